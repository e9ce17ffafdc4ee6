//! The rules that keep two tiles' bytes apart whatever their lifetimes,
//! read from the planned program and the op table on their own:
//! - **reserved windows**: no tile touches a `system.reserve_buffer`
//!   window of its space (AIC functions reserve in Mat, the others in Vec);
//! - **declared allocations**: a `pinned` allocation shares no byte with
//!   another allocation;
//! - **no-alias**: an op's output shares no byte with an operand the op
//!   table forbids it (target aware; tuple results pass the rule to every
//!   element read with `t[k]`);
//! - **written workspaces** (seed rule): an A2/A3 scratch operand shares
//!   no byte with the operands read after it is written; a workspace shares
//!   no byte with a tile defined before it, nor, inside a loop or when it
//!   is not an assignment's result, with any other tile;
//! - **split-AIV load + tpop** (seed rule, A2/A3 split-AIV functions): a
//!   writer reading a value popped from the cube core puts its output on no
//!   byte of a loaded operand (provenance through views, aliases and loop
//!   carries);
//! - **pipeline stages**: the copies of one group whose dense stage
//!   ordinals differ modulo the depth the planner claims share no byte.
//!
//! Tiles of one family (the same data: views, aliases, in-place results,
//! carries) are never apart from each other, nor concurrent stage copies.

use tilemem_soc::Soc;

use super::families::{families, lifetimes, Families};
use super::windows::{Window, Windows};
use crate::ir::{
    Block, EntityRef, Expr, Function, FunctionKind, MemSpace, StmtId, StmtKind, Type, VarId,
};
use crate::ops::{self, CastWidths, OpClass};
use crate::passes::context::{SeedRules, StageClaims};

/// Everything the rules read.
pub(super) struct Rules<'a> {
    pub f: &'a Function,
    pub soc: &'a Soc,
    pub rules: SeedRules,
    pub w: &'a Windows,
    fam: Families,
    /// The statement of the last violation found, when it has one.
    pub at: Option<StmtId>,
}

impl<'a> Rules<'a> {
    pub fn new(f: &'a Function, soc: &'a Soc, rules: SeedRules, w: &'a Windows) -> Rules<'a> {
        Rules {
            f,
            soc,
            rules,
            w,
            fam: families(f),
            at: None,
        }
    }

    fn bounds(&self, v: VarId) -> Option<Window> {
        self.w.place[v.index()].bounds()
    }

    /// `a` and `b` hold different data on shared bytes.
    fn clash(&mut self, a: VarId, b: VarId) -> bool {
        match (self.bounds(a), self.bounds(b)) {
            (Some(x), Some(y)) => x.overlaps(&y) && self.fam.find(a) != self.fam.find(b),
            _ => false,
        }
    }

    fn name(&self, v: VarId) -> String {
        self.f.vars[v].name.to_string()
    }

    fn line(&self, s: StmtId) -> u32 {
        self.f.pos_of(s).line
    }

    /// Checks every rule; the first violation, in words.
    pub fn check(&mut self, claims: Option<&StageClaims>) -> Result<(), String> {
        self.reserves()?;
        self.declared()?;
        self.check_sharing()?;
        if let Some(c) = claims {
            self.stages(c)?;
        }
        Ok(())
    }

    /// The rules about which tiles may share bytes (no-alias, written
    /// workspaces, the split-AIV load + tpop hazard), without those about
    /// addresses: what a program's own sharing must keep before planning.
    pub fn check_sharing(&mut self) -> Result<(), String> {
        self.ops()?;
        if self.rules.written_workspace {
            self.workspaces()?;
        }
        if self.rules.split_load_tpop
            && self.soc.requires_split_load_tpop_workaround()
            && self.f.is_split_aiv()
        {
            self.load_tpop()?;
        }
        Ok(())
    }

    fn reserves(&self) -> Result<(), String> {
        let f = self.f;
        let space = if f.kind() == FunctionKind::Aic {
            MemSpace::Mat
        } else {
            MemSpace::Vec
        };
        let Some(sp) = self.w.space_index(space) else {
            return Ok(());
        };
        let mut windows: Vec<(u64, u64, String)> = Vec::new();
        for &s in &f.body {
            let Some(call) = f.stmts[s].call() else {
                continue;
            };
            if ops::lookup_or_default(call.op_name()).class != OpClass::Reserve {
                continue;
            }
            let int = |k: &str| call.kwarg(k).and_then(Expr::as_int);
            let (Some(base), Some(size)) = (int("base"), int("size")) else {
                continue;
            };
            let (Ok(base), Ok(size)) = (u64::try_from(base), u64::try_from(size)) else {
                continue;
            };
            let name = call
                .kwarg("name")
                .and_then(Expr::as_str)
                .unwrap_or("")
                .to_string();
            windows.push((base, base.saturating_add(size), name));
        }
        for (v, p) in self.w.place.iter().enumerate() {
            let Some(t) = p.bounds() else { continue };
            if t.space != sp {
                continue;
            }
            if let Some((a, b, name)) = windows.iter().find(|(a, b, _)| t.start < *b && *a < t.end)
            {
                return Err(format!(
                    "tile '{}' at [{}, {}) overlaps the reserved window '{name}' [{a}, {b}) of {}",
                    self.name(VarId::new(v)),
                    t.start,
                    t.end,
                    space.name()
                ));
            }
        }
        Ok(())
    }

    fn declared(&self) -> Result<(), String> {
        let allocs = &self.w.allocs;
        for &(p, sp, pinned, extent) in allocs {
            let (true, Some((a, b))) = (pinned, extent) else {
                continue;
            };
            for &(o, osp, _, oext) in allocs {
                let Some((c, d)) = oext else { continue };
                if o != p && osp == sp && a < d && c < b {
                    return Err(format!(
                        "the declared allocation '{}' [{a}, {b}) shares bytes with '{}' [{c}, {d})",
                        self.name(p),
                        self.name(o)
                    ));
                }
            }
        }
        Ok(())
    }

    /// No-alias rules and the A2/A3 operand pairs, op by op.
    fn ops(&mut self) -> Result<(), String> {
        let f = self.f;
        let family = self.soc.family();
        // Forbidden operands of tuple-valued calls, for `t[k]` reads.
        let mut tuple: Vec<(VarId, StmtId, Vec<VarId>)> = Vec::new();
        let mut all: Vec<StmtId> = Vec::new();
        super::families::each_stmt(f, Block::Body, &mut |s| all.push(s));
        for s in all {
            let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
                continue;
            };
            if let (Expr::Index(base, _), [out]) = (value, targets.as_slice()) {
                let Some(t) = base.as_var() else { continue };
                let Some((_, at, list)) = tuple.iter().find(|(x, _, _)| *x == t).cloned() else {
                    continue;
                };
                for y in list {
                    if self.clash(*out, y) {
                        self.at = Some(at);
                        return Err(self.no_alias_message(*out, y, at));
                    }
                }
                continue;
            }
            let Some(call) = value.as_call() else {
                continue;
            };
            let Some(&first) = targets.first() else {
                continue;
            };
            let info = ops::lookup_or_default(call.op_name());
            let widths = cast_widths(f, first, call.args.first());
            let forbidden: Vec<VarId> = info
                .forbidden_alias_args_with(
                    family,
                    call.args.len(),
                    widths,
                    self.rules.narrowing_casts,
                )
                .into_iter()
                .filter_map(|i| call.args.get(i).and_then(Expr::as_var))
                .collect();
            for &t in targets.iter() {
                if matches!(f.vars[t].ty, Some(Type::Tuple(_)) | None) && !forbidden.is_empty() {
                    tuple.push((t, s, forbidden.clone()));
                }
                for &y in &forbidden {
                    if self.clash(t, y) {
                        self.at = Some(s);
                        return Err(self.no_alias_message(t, y, s));
                    }
                }
            }
            if !self.rules.written_workspace {
                continue;
            }
            for (i, j) in info.operand_separations(family, call.args.len()) {
                let (Some(a), Some(b)) = (
                    call.args.get(i).and_then(Expr::as_var),
                    call.args.get(j).and_then(Expr::as_var),
                ) else {
                    continue;
                };
                if self.clash(a, b) {
                    self.at = Some(s);
                    return Err(format!(
                        "operands '{}' and '{}' of {} at line {} share bytes, which the op writes \
                         before it reads (written-workspace rule)",
                        self.name(a),
                        self.name(b),
                        call.op_name(),
                        self.line(s)
                    ));
                }
            }
        }
        Ok(())
    }

    fn no_alias_message(&self, out: VarId, input: VarId, s: StmtId) -> String {
        let op = self.f.stmts[s]
            .call()
            .map_or("its op".to_string(), |c| c.op_name().to_string());
        format!(
            "output '{}' of {op} at line {} shares bytes with its input '{}', which the op's \
             no-alias rule forbids",
            self.name(out),
            self.line(s),
            self.name(input)
        )
    }

    /// The written-workspace rule (seed 000): a workspace's bytes held no
    /// other data before it (a vector read of that data may still be in
    /// flight when the scalar pipe writes); inside a loop they hold no
    /// other data at all.
    fn workspaces(&mut self) -> Result<(), String> {
        let f = self.f;
        let mut found: Vec<(StmtId, VarId, bool)> = Vec::new();
        in_loop_walk(f, Block::Body, false, &mut |s, in_loop| {
            let Some(call) = f.stmts[s].call() else {
                return;
            };
            for &i in ops::lookup_or_default(call.op_name()).workspace_args {
                if let Some(w) = call.args.get(i).and_then(Expr::as_var) {
                    found.push((s, w, in_loop));
                }
            }
        });
        // Without a workspace operand there is nothing to place against the
        // other tiles (and no table of them to build).
        if found.is_empty() {
            return Ok(());
        }
        let lt = lifetimes(f);
        // Every placed tile, by space and start.
        let mut tiles: Vec<(u32, u64, u64, VarId)> = self
            .w
            .place
            .iter()
            .enumerate()
            .filter_map(|(v, p)| p.bounds().map(|w| (w.space, w.start, w.end, VarId::new(v))))
            .collect();
        tiles.sort_unstable();
        for (s, ws, in_loop) in found {
            let Some(wb) = self.bounds(ws) else { continue };
            let assigned = matches!(
                f.vars[ws].def,
                crate::ir::VarDef::Stmt(d) if matches!(f.stmts[d].kind, StmtKind::Assign { .. })
            );
            let def = lt.range(ws).map(|(d, _)| d);
            let isolated = in_loop || !assigned || def.is_none();
            let hi = tiles.partition_point(|t| (t.0, t.1) < (wb.space, wb.end));
            for &(sp, start, end, x) in tiles[..hi].iter().rev() {
                if sp != wb.space {
                    break;
                }
                if end <= wb.start || self.fam.find(x) == self.fam.find(ws) {
                    continue;
                }
                let earlier = match (lt.range(x), def) {
                    (Some((dx, _)), Some(dw)) => dx < dw,
                    _ => true,
                };
                if isolated || earlier {
                    let why = if isolated {
                        "a workspace written inside a loop shares with no other tile"
                    } else {
                        "a workspace may not take the bytes of a tile defined before it"
                    };
                    self.at = Some(s);
                    return Err(format!(
                        "workspace '{}' of {} at line {} shares bytes [{}, {}) with '{}' ({why}; \
                         written-workspace rule)",
                        self.name(ws),
                        call_name(f, s),
                        self.line(s),
                        start.max(wb.start),
                        end.min(wb.end),
                        self.name(x)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The split-AIV load + tpop hazard, with its own provenance: loaded
    /// and popped values, followed through views, aliases and carries.
    fn load_tpop(&mut self) -> Result<(), String> {
        let f = self.f;
        let n = f.vars.len();
        let (mut load, mut tpop) = (vec![false; n], vec![false; n]);
        let mut all: Vec<StmtId> = Vec::new();
        super::families::each_stmt(f, Block::Body, &mut |s| all.push(s));
        // A carry may be fed by a producer later in the body: two sweeps.
        for _ in 0..2 {
            for &s in &all {
                match &f.stmts[s].kind {
                    StmtKind::Assign { targets, value } => {
                        let (class, src) = match value {
                            Expr::Var(y) => (OpClass::Compute, Some(*y)),
                            Expr::Call(c) => {
                                let info = ops::lookup_or_default(c.op_name());
                                let src = info
                                    .is_view()
                                    .then(|| c.args.first().and_then(Expr::as_var))
                                    .flatten();
                                (info.class, src)
                            }
                            _ => (OpClass::Compute, None),
                        };
                        for &t in targets.iter() {
                            let t = t.index();
                            load[t] |=
                                class == OpClass::Load || src.is_some_and(|y| load[y.index()]);
                            tpop[t] |=
                                class == OpClass::Tpop || src.is_some_and(|y| tpop[y.index()]);
                        }
                    }
                    StmtKind::For(l) => {
                        let ys = super::families::yielded(f, Block::Loop(s));
                        for (k, &a) in l.iter_args.iter().enumerate() {
                            let from = [
                                l.init_values().get(k).and_then(Expr::as_var),
                                ys.get(k).and_then(Expr::as_var),
                            ];
                            for x in from.into_iter().flatten() {
                                load[a.index()] |= load[x.index()];
                                tpop[a.index()] |= tpop[x.index()];
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for &s in &all {
            let StmtKind::Assign {
                targets,
                value: Expr::Call(call),
            } = &f.stmts[s].kind
            else {
                continue;
            };
            let info = ops::lookup_or_default(call.op_name());
            if info.is_view() || matches!(info.class, OpClass::Load | OpClass::Tpop) {
                continue;
            }
            let operands: Vec<VarId> = call.args.iter().filter_map(Expr::as_var).collect();
            if !operands.iter().any(|v| tpop[v.index()]) {
                continue;
            }
            for &x in operands.iter().filter(|v| load[v.index()]) {
                for &t in targets.iter() {
                    if self.clash(t, x) {
                        self.at = Some(s);
                        return Err(format!(
                            "output '{}' of {} at line {} reads a popped tile and shares bytes with \
                             the loaded '{}' (split-AIV load + tpop hazard)",
                            self.name(t),
                            call.op_name(),
                            self.line(s),
                            self.name(x)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies of different residues at the claimed depth are apart.
    fn stages(&mut self, c: &StageClaims) -> Result<(), String> {
        for &(space, group, depth) in &c.depths {
            let Some(sp) = self.w.space_index(space) else {
                continue;
            };
            let mut stages: Vec<i64> = c
                .tags
                .iter()
                .filter(|t| t.1 == group)
                .map(|t| t.2)
                .collect();
            stages.sort_unstable();
            stages.dedup();
            let depth = u64::from(depth.max(1));
            let mut copies: Vec<(u64, u64, u64, VarId)> = c
                .tags
                .iter()
                .filter(|t| t.1 == group)
                .filter_map(|&(v, _, st)| {
                    let w = self.w.place.get(v.index())?.bounds()?;
                    let ord = stages.binary_search(&st).ok()? as u64;
                    (w.space == sp).then_some((w.start, w.end, ord % depth, v))
                })
                .collect();
            copies.sort_unstable();
            let mut active: Vec<(u64, u64, VarId)> = Vec::new();
            for (start, end, res, v) in copies {
                active.retain(|a| a.0 > start);
                // Copies of one family (an in-place chain across stages)
                // are one value, not concurrent copies.
                let fv = self.fam.find(v);
                let clash = active
                    .iter()
                    .map(|a| (a.1, a.2))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .find(|&(r, o)| r != res && self.fam.find(o) != fv);
                if let Some((_, o)) = clash {
                    return Err(format!(
                        "pipeline copies '{}' and '{}' of group {group} hold different stages at \
                         the planned depth {depth} but share bytes in {}",
                        self.name(o),
                        self.name(v),
                        space.name()
                    ));
                }
                active.push((end, res, v));
            }
        }
        Ok(())
    }
}

fn call_name(f: &Function, s: StmtId) -> String {
    f.stmts[s]
        .call()
        .map_or("its op".to_string(), |c| c.op_name().to_string())
}

/// Calls `visit(statement, inside a loop)` on every statement of block `b`
/// and its nested blocks, in program order.
fn in_loop_walk(f: &Function, b: Block, in_loop: bool, visit: &mut impl FnMut(StmtId, bool)) {
    for &s in f.block(b) {
        visit(s, in_loop);
        let inner = in_loop || matches!(f.stmts[s].kind, StmtKind::For(_));
        for c in f.child_blocks(s) {
            in_loop_walk(f, c, inner, visit);
        }
    }
}

fn cast_widths(f: &Function, x: VarId, src: Option<&Expr>) -> Option<CastWidths> {
    let dst_bits = f.ty(x)?.as_tile()?.dtype.bits()?;
    let src_bits = f.ty(src?.as_var()?)?.as_tile()?.dtype.bits()?;
    Some(CastWidths { src_bits, dst_bits })
}
