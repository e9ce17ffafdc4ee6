//! Allocation constraints: which roots may never share bytes, which are
//! closed to sharing altogether, and the pipeline-stage memberships that
//! keep concurrent stage copies apart (PyPTO's `allocation_constraints`).
//!
//! Every fact here is a hard rule for every planner: MemoryReuse refuses the
//! sharing, DSA_RP and the optimal planner turn each pair into a hard
//! separation ([`super::model`] hands them the same list), and `verify`
//! checks the outputs of all three against its own reading of the same
//! rules. Each separation carries the statement it is about. Facts are keyed
//! by [`RootId`]; an operand reached through a view, a bare alias, an iter
//! arg or a phi is resolved to the root that holds its bytes, so a forbidden
//! operand is caught however it is reached.
//!
//! Sources of separations:
//! - **No-alias** (op table): an output may not share with the inputs its
//!   op forbids (`not_inplace_safe`, `forbid_output_alias(i)`, the
//!   target-aware `sels`/`prelu`/`cast` rules). Tuple results pass the
//!   rule on to every element read with `t[k]`.
//! - **Split load + tpop hazard** (A2/A3 split-AIV functions): a writer that
//!   consumes a `tile.tpop_from_aic` value may not take over the buffer of a
//!   load-derived operand. Classification follows views, bare aliases and
//!   loop carries (by base), scanning the body twice because a carry may be
//!   tainted by a producer later in the body.
//! - **Written workspace**: a workspace operand may not share with a root
//!   that dies at or before the workspace is defined; inside a loop it is
//!   closed to sharing ([`AllocationConstraints::isolated`]). The A2/A3
//!   `sels` tmp, written before mask and src are read, also stays apart
//!   from them (an operand-overlap separation of the same seed rule).
//!
//! Declared (`pinned`) allocations are closed to sharing too, and the tiles
//! bound to one constant slot of a declaration must not be live at the same
//! time ([`check_declared_slots`]).

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use std::collections::{BTreeMap, BTreeSet};

use tilemem_soc::{Family, Soc};

use super::hazards::forbidden_operands_with;
use super::order::{is_assigned, Lifetime};
use super::roots::{AllocationLifetimes, RootId};
use super::walk::stmts;
use crate::ir::{Expr, Function, StmtId, StmtKind, Type, VarId};
use crate::ops::{self, OpClass};
use crate::passes::context::{PassError, SeedRules};

/// Why two roots must stay apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SeparationReason {
    /// An op's output may not alias this input (op table).
    NoAlias,
    /// Two operands of one op may not overlap (A2/A3 `sels` tmp).
    OperandOverlap,
    /// Split-AIV load + tpop writer hazard (A2/A3).
    LoadTpopHazard,
    /// A written workspace may not reuse bytes of an earlier value (or, in
    /// a loop, of any value).
    WrittenWorkspace,
    /// A declared (`pinned`) allocation never shares.
    Declared,
}

/// A hard separation between two roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Separation {
    /// One root.
    pub a: RootId,
    /// The other root.
    pub b: RootId,
    /// The rule.
    pub reason: SeparationReason,
    /// The statement the rule is about (the op whose operands or output
    /// it keeps apart, the workspace's op; `None` for a declared
    /// allocation, which is about the allocation itself).
    pub at: Option<StmtId>,
}

/// Pipeline-stage membership of a root: `(group, dense stage ordinal)`.
pub type StageTag = (u32, u32);

/// The constraints of one function.
#[derive(Clone, Debug, Default)]
pub struct AllocationConstraints {
    /// Hard separations, deduplicated, `a < b`.
    pub separations: Vec<Separation>,
    /// The same pairs as a set for constant-time lookup (`a < b`).
    pub pairs: HashSet<(RootId, RootId)>,
    /// Roots closed to sharing with any other root of their space: declared
    /// allocations and workspaces written inside loops.
    pub isolated: BTreeSet<RootId>,
    /// The op that writes each workspace root (the statement of its
    /// written-workspace separations).
    pub workspace_at: HashMap<RootId, StmtId>,
    /// Stage memberships per root.
    pub stages: HashMap<RootId, Vec<StageTag>>,
    /// Requested depth (number of distinct stages) per pipeline group.
    pub group_depth: BTreeMap<u32, u32>,
    /// Written workspaces outside loops: root -> definition index of the
    /// workspace value. Such a root may not share with a root whose
    /// lifetime ends at or before that index (see [`Self::workspace_blocks`]);
    /// kept as a rule rather than as pairs so the constraint set stays
    /// linear in the program size.
    pub workspace_def: BTreeMap<RootId, u32>,
}

impl AllocationConstraints {
    /// Whether a hard separation keeps `a` and `b` apart.
    pub fn separated(&self, a: RootId, b: RootId) -> bool {
        let k = if a < b { (a, b) } else { (b, a) };
        self.pairs.contains(&k)
    }

    /// Whether the written-workspace rule keeps `a` and `b` apart, given
    /// their lifetimes: a workspace may not take over the bytes of a value
    /// that died at or before the workspace was defined (a vector read of
    /// that value may still be in flight when the scalar pipe writes).
    pub fn workspace_blocks(&self, a: RootId, la: &Lifetime, b: RootId, lb: &Lifetime) -> bool {
        self.workspace_def.get(&a).is_some_and(|&w| lb.last <= w)
            || self.workspace_def.get(&b).is_some_and(|&w| la.last <= w)
    }

    /// Every hard rule between two roots (pairs and the workspace rule);
    /// lifetime interference and stage separation are separate.
    pub fn hard_separated(&self, lt: &AllocationLifetimes, a: RootId, b: RootId) -> bool {
        if self.separated(a, b) {
            return true;
        }
        match (lt.roots[a].lifetime(), lt.roots[b].lifetime()) {
            (Some(la), Some(lb)) => self.workspace_blocks(a, &la, b, &lb),
            _ => false,
        }
    }

    /// Every hard separation as explicit pairs `a < b` of one memory space,
    /// for planners that need them listed (DSA_RP): the recorded pairs,
    /// the written-workspace rule evaluated on the lifetimes, and every
    /// isolated root (declared allocations, workspaces written in loops)
    /// against every other root of its space. Quadratic in the worst case.
    pub fn all_separations(&self, lt: &AllocationLifetimes) -> Vec<Separation> {
        let mut out: BTreeSet<Separation> = self.separations.iter().copied().collect();
        let ids: Vec<RootId> = lt.roots.keys().collect();
        for &w in self.workspace_def.keys().chain(self.isolated.iter()) {
            for &o in &ids {
                if o == w || lt.space(o) != lt.space(w) {
                    continue;
                }
                let reason = if self.isolated.contains(&w) {
                    if lt.roots[w].pinned {
                        SeparationReason::Declared
                    } else {
                        SeparationReason::WrittenWorkspace
                    }
                } else if self.hard_separated(lt, w, o) && !self.separated(w, o) {
                    SeparationReason::WrittenWorkspace
                } else {
                    continue;
                };
                let (a, b) = if w < o { (w, o) } else { (o, w) };
                let at = self.workspace_at.get(&w).copied();
                out.insert(Separation { a, b, reason, at });
            }
        }
        // One reason per pair (the first in reason order).
        let mut seen = HashSet::default();
        out.into_iter()
            .filter(|s| seen.insert((s.a, s.b)))
            .collect()
    }

    /// Pairs of roots holding different stage copies of one pipeline group
    /// at its full requested depth (DSA_RP keeps them apart, relaxing only
    /// these pairs when nothing fits).
    pub fn stage_pairs(&self, lt: &AllocationLifetimes) -> Vec<(RootId, RootId)> {
        let tagged: Vec<RootId> = lt
            .roots
            .keys()
            .filter(|r| self.stages.contains_key(r))
            .collect();
        let mut out = Vec::new();
        for (i, &a) in tagged.iter().enumerate() {
            for &b in &tagged[i + 1..] {
                if lt.space(a) == lt.space(b) && self.stage_conflict(a, b, &self.group_depth) {
                    out.push((a.min(b), a.max(b)));
                }
            }
        }
        out
    }

    fn add(&mut self, a: RootId, b: RootId, reason: SeparationReason, at: StmtId) {
        if a == b {
            return;
        }
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        if self.pairs.insert((a, b)) {
            self.separations.push(Separation {
                a,
                b,
                reason,
                at: Some(at),
            });
        }
    }

    /// Whether two roots hold copies of different stages of one pipeline
    /// group that must stay apart at the given per-group depths: copies of
    /// dense stage ordinals `i` and `j` share only when `i % F == j % F`.
    pub fn stage_conflict(&self, a: RootId, b: RootId, depth: &BTreeMap<u32, u32>) -> bool {
        let (Some(sa), Some(sb)) = (self.stages.get(&a), self.stages.get(&b)) else {
            return false;
        };
        sa.iter().any(|&(ga, ka)| {
            sb.iter().any(|&(gb, kb)| {
                let f = depth.get(&ga).copied().unwrap_or(1).max(1);
                ga == gb && ka % f != kb % f
            })
        })
    }
}

use super::hazards::pipeline_membership;

/// Collects the constraints of `f` for target `soc`, with the seed rules
/// `rules` selects (every planner asks with the same switches).
pub fn collect(
    f: &Function,
    lt: &AllocationLifetimes,
    soc: &Soc,
    rules: SeedRules,
) -> AllocationConstraints {
    let mut c = AllocationConstraints::default();
    let family = soc.family();
    for (id, r) in lt.roots.iter() {
        if r.pinned {
            c.isolated.insert(id);
        }
    }
    no_alias(f, lt, family, rules, &mut c);
    if rules.split_load_tpop && soc.requires_split_load_tpop_workaround() && f.is_split_aiv() {
        load_tpop(f, lt, &mut c);
    }
    if rules.written_workspace {
        written_workspace(f, lt, &mut c);
    }
    stages(f, lt, &mut c);
    c.separations.sort();
    c
}

fn no_alias(
    f: &Function,
    lt: &AllocationLifetimes,
    family: Family,
    rules: SeedRules,
    c: &mut AllocationConstraints,
) {
    // Forbidden operand roots of tuple-valued calls (and the call), for
    // `t[k]` reads.
    let mut tuple_forbid: HashMap<VarId, (Vec<RootId>, StmtId)> = HashMap::default();
    for (_, s) in stmts(f) {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            continue;
        };
        if let Expr::Index(base, _) = value {
            if let (Some(t), [out]) = (base.as_var(), targets.as_slice()) {
                if let (Some((list, at)), Some(ro)) =
                    (tuple_forbid.get(&t), lt.storage_root(f, *out))
                {
                    for &ri in list.clone().iter() {
                        c.add(ro, ri, SeparationReason::NoAlias, *at);
                    }
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
        // Every root a forbidden operand's bytes may be in (a phi's branch
        // values too: the yield fix-up may put the phi on one of them).
        let forbidden: Vec<RootId> =
            forbidden_operands_with(f, call, first, family, rules.narrowing_casts)
                .into_iter()
                .filter_map(|i| call.args[i].as_var())
                .flat_map(|v| {
                    let mut rs = lt.carrying_roots(f, v);
                    if rs.is_empty() {
                        rs.extend(lt.storage_root(f, v));
                    }
                    rs
                })
                .collect();
        for &t in targets {
            if !forbidden.is_empty() && matches!(f.vars[t].ty, Some(Type::Tuple(_)) | None) {
                let e = tuple_forbid.entry(t).or_insert_with(|| (Vec::new(), s));
                e.0.extend(&forbidden);
            }
            if let Some(ro) = lt.storage_root(f, t) {
                for &ri in &forbidden {
                    c.add(ro, ri, SeparationReason::NoAlias, s);
                }
            }
        }
        // The A2/A3 scratch operand written before the sources are read
        // (`tile.sels` tmp) belongs to the written-workspace rule.
        if !rules.written_workspace {
            continue;
        }
        for (i, j) in info.operand_separations(family, call.args.len()) {
            let ri = call.args[i].as_var().and_then(|v| lt.storage_root(f, v));
            let rj = call.args[j].as_var().and_then(|v| lt.storage_root(f, v));
            if let (Some(ri), Some(rj)) = (ri, rj) {
                c.add(ri, rj, SeparationReason::OperandOverlap, s);
            }
        }
    }
}

/// Load / tpop provenance, keyed by variable identity and (for loop
/// carries) by storage root.
#[derive(Default)]
struct Provenance {
    vars: HashSet<VarId>,
    roots: HashSet<RootId>,
}

impl Provenance {
    fn has(&self, f: &Function, lt: &AllocationLifetimes, v: VarId) -> bool {
        if self.vars.contains(&v) {
            return true;
        }
        // A loop carry (iter arg) is not an assignment: judge it by the
        // taint of the storage the carry chain was fused into.
        matches!(f.vars[v].def, crate::ir::VarDef::IterArg(_))
            && lt
                .storage_root(f, v)
                .is_some_and(|r| self.roots.contains(&r))
    }

    fn mark(&mut self, lt: &AllocationLifetimes, v: VarId) {
        self.vars.insert(v);
        if let Some(r) = lt.root_of(v) {
            self.roots.insert(r);
        }
    }
}

fn load_tpop(f: &Function, lt: &AllocationLifetimes, c: &mut AllocationConstraints) {
    let mut load = Provenance::default();
    let mut tpop = Provenance::default();
    // Two sweeps: a carry can be tainted by a producer that comes after the
    // read in program order (it feeds the next iteration).
    for _ in 0..2 {
        for (_, s) in stmts(f) {
            let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
                continue;
            };
            let (class, view_src) = match value {
                Expr::Var(src) => (OpClass::Compute, Some(*src)),
                Expr::Call(call) => {
                    let info = ops::lookup_or_default(call.op_name());
                    let src = if info.is_view() {
                        call.args.first().and_then(Expr::as_var)
                    } else {
                        None
                    };
                    (info.class, src)
                }
                _ => (OpClass::Compute, None),
            };
            for &t in targets {
                match class {
                    OpClass::Load => load.mark(lt, t),
                    OpClass::Tpop => tpop.mark(lt, t),
                    _ => {
                        if let Some(src) = view_src {
                            if load.has(f, lt, src) {
                                load.mark(lt, t);
                            }
                            if tpop.has(f, lt, src) {
                                tpop.mark(lt, t);
                            }
                        }
                    }
                }
            }
        }
    }
    for (_, s) in stmts(f) {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            continue;
        };
        let Some(call) = value.as_call() else {
            continue;
        };
        let info = ops::lookup_or_default(call.op_name());
        if info.is_view() || matches!(info.class, OpClass::Load | OpClass::Tpop) {
            continue;
        }
        let operands: Vec<VarId> = call.args.iter().filter_map(Expr::as_var).collect();
        if !operands.iter().any(|&v| tpop.has(f, lt, v)) {
            continue;
        }
        for &v in &operands {
            if !load.has(f, lt, v) {
                continue;
            }
            let Some(rl) = lt.storage_root(f, v) else {
                continue;
            };
            for &t in targets {
                if let Some(ro) = lt.storage_root(f, t) {
                    c.add(ro, rl, SeparationReason::LoadTpopHazard, s);
                }
            }
        }
    }
}

fn written_workspace(f: &Function, lt: &AllocationLifetimes, c: &mut AllocationConstraints) {
    let mut walk = stmts(f);
    while let Some((_, s)) = walk.next() {
        let Some(call) = f.stmts[s].call() else {
            continue;
        };
        let info = ops::lookup_or_default(call.op_name());
        for &i in info.workspace_args {
            let Some(w) = call.args.get(i).and_then(Expr::as_var) else {
                continue;
            };
            let Some(rw) = lt.storage_root(f, w) else {
                continue;
            };
            c.workspace_at.entry(rw).or_insert(s);
            // Inside a loop the next iteration rewrites the workspace while
            // vector reads of this one may still be in flight.
            let def = match (walk.in_loop(s), is_assigned(f, w), lt.def(w)) {
                (false, Some(_), Some(d)) => d,
                _ => {
                    c.isolated.insert(rw);
                    continue;
                }
            };
            let e = c.workspace_def.entry(rw).or_insert(def);
            *e = (*e).max(def);
        }
    }
}

fn stages(f: &Function, lt: &AllocationLifetimes, c: &mut AllocationConstraints) {
    let mut raw: HashMap<RootId, Vec<(u32, i64)>> = HashMap::default();
    let mut ids: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
    for id in lt.roots.keys() {
        for &m in lt.members(id) {
            let Some(s) = is_assigned(f, m) else { continue };
            let Some(call) = f.stmts[s].call() else {
                continue;
            };
            for (g, st) in pipeline_membership(call) {
                ids.entry(g).or_default().insert(st);
                let e = raw.entry(id).or_default();
                if !e.contains(&(g, st)) {
                    e.push((g, st));
                }
            }
        }
    }
    if raw.is_empty() {
        planned_pipeline_stages(f, lt, c);
        return;
    }
    for (g, set) in &ids {
        c.group_depth
            .insert(*g, u32::try_from(set.len()).unwrap_or(u32::MAX));
    }
    for (id, tags) in raw {
        let dense = tags
            .into_iter()
            .map(|(g, st)| {
                let ord = ids[&g].iter().position(|&x| x == st).unwrap_or(0);
                (g, u32::try_from(ord).unwrap_or(u32::MAX))
            })
            .collect();
        c.stages.insert(id, dense);
    }
}

/// The stage separation of a pipelined loop whose `pipeline_membership`
/// tags were consumed by an earlier run (seed 000: the tags are consumed).
///
/// That run kept the copies of different stages in different buffers, and
/// its output shows the decision only through those buffers. So when no
/// tile of `f` carries a tag, every distinct root written inside a
/// `pl.pipeline` loop counts as its own stage of one group per (loop,
/// space): the
/// roots stay apart, under the same affordable-depth rule as tagged
/// stages, and a second run reaches the first run's decision instead of
/// merging the stage copies.
fn planned_pipeline_stages(f: &Function, lt: &AllocationLifetimes, c: &mut AllocationConstraints) {
    let mut group = u32::MAX;
    for (_, s) in stmts(f) {
        let StmtKind::For(l) = &f.stmts[s].kind else {
            continue;
        };
        if l.kind() != crate::ir::LoopKind::Pipeline {
            continue;
        }
        // Per space, the distinct roots in order of first write.
        let mut by_space: BTreeMap<tilemem_soc::MemSpace, Vec<RootId>> = BTreeMap::new();
        for (_, inner) in f.walk_in(crate::ir::Block::Loop(s)) {
            let StmtKind::Assign { targets, .. } = &f.stmts[inner].kind else {
                continue;
            };
            for &t in targets {
                if let Some(r) = lt.storage_root(f, t) {
                    let roots = by_space.entry(lt.space(r)).or_default();
                    if !lt.roots[r].pinned && !roots.contains(&r) {
                        roots.push(r);
                    }
                }
            }
        }
        for roots in by_space.into_values().filter(|r| r.len() > 1) {
            for (k, &r) in roots.iter().enumerate() {
                let tags = c.stages.entry(r).or_default();
                tags.push((group, u32::try_from(k).unwrap_or(u32::MAX)));
            }
            c.group_depth
                .insert(group, u32::try_from(roots.len()).unwrap_or(u32::MAX));
            group = group.saturating_sub(1);
        }
    }
}

/// Checks the declared allocations of `f`: two tiles bound (not merely
/// inherited through a view, an in-place result or a bare alias) to the
/// same constant slot of one `pinned` allocation must not be live at the
/// same time. Runtime slot indices (`l0c[i % 2]`) skip the check.
pub fn check_declared_slots(f: &Function, lt: &AllocationLifetimes) -> Result<(), PassError> {
    for (id, r) in lt.roots.iter() {
        if !r.pinned {
            continue;
        }
        let mut by_slot: BTreeMap<i64, Vec<VarId>> = BTreeMap::new();
        for &m in lt.members(id) {
            let Some(s) = is_assigned(f, m) else { continue };
            let bound = match &f.stmts[s].kind {
                StmtKind::Assign {
                    value: Expr::Call(call),
                    ..
                } => {
                    let info = ops::lookup_or_default(call.op_name());
                    !info.is_view() && info.output_binds_input().is_none()
                }
                _ => false,
            };
            if !bound {
                continue;
            }
            let Some(mr) = f.vars[m].ty.as_ref().and_then(Type::memref) else {
                continue;
            };
            let slot = match &mr.slot_index() {
                None => 0,
                Some(e) => match e.as_int() {
                    Some(k) => k,
                    None => continue,
                },
            };
            by_slot.entry(slot).or_default().push(m);
        }
        for (slot, vs) in by_slot {
            for (i, &a) in vs.iter().enumerate() {
                for &b in &vs[i + 1..] {
                    let (Some(la), Some(lb)) =
                        (lt.pinned_member_lifetime(a), lt.pinned_member_lifetime(b))
                    else {
                        continue;
                    };
                    if la.overlaps(&lb) {
                        let base = match &lt.base(id) {
                            crate::ir::MemBase::Var(v) => f.vars[*v].name.to_string(),
                            crate::ir::MemBase::Named(n) => n.to_string(),
                        };
                        let pos = is_assigned(f, b)
                            .or(lt.alloc_stmt(f, id))
                            .map(|s| f.pos_of(s))
                            .unwrap_or_default();
                        return Err(PassError::planning(format!(
                            "MemoryReuse: tiles '{}' and '{}' of function '{}' are bound to slot {} of the declared allocation '{}' and are live at the same time; the second write would destroy data the first still needs. Bind them to different slots (pl.MemRef(..., slots=N)[k]) or to different declarations",
                            f.vars[a].name, f.vars[b].name, f.name, slot, base
                        ))
                        .at(crate::passes::context::Loc {
                            line: pos.line,
                            col: pos.col,
                        }));
                    }
                }
            }
        }
    }
    Ok(())
}
