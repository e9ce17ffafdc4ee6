//! Independent check of a function's final placement.
//!
//! Lowers each memory space of a laid-out function into a
//! [`tilemem_plan::Problem`] and runs the placement crate's validator, which
//! shares no code with the passes. A failure means a pass broke its
//! guarantees and is reported as an internal error; no output is written.
//!
//! The lowering:
//! - **values**: tile variables are grouped into families of the same data
//!   (a view and its source, an in-place result and its input, a bare alias
//!   and its source, the four values of a loop carry, an `if` result and its
//!   branch yields). Each (family, root) pair is one buffer whose bytes are
//!   the hull of its members' windows;
//! - **lifetimes**: every statement gets the next program-order index (the
//!   whole tree, yields and returns included); a family lives from its first
//!   definition to its last read, a read inside a loop of a value defined
//!   before it lasting to the loop's end. `[def, last]` becomes the
//!   half-open `[2 def + 1, max(2 def + 2, 2 last + 1))`, so a value whose
//!   last read is the statement defining another does not overlap it;
//! - **no-alias rules**: for every op with forbidden operands (per target
//!   family), the output and each forbidden input form a hard conflict pair;
//! - **capacity** from the target, **reserved** windows from
//!   `system.reserve_buffer`, and every slot base must satisfy the address
//!   policy's alignment.

use crate::report::SpaceSummary;
use rustc_hash::FxHashMap as HashMap;

use tilemem_plan::{validate, Buffer, BufferId, Problem, Solution};
use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::{
    Block, EntityRef, Expr, Function, MemSpace, StmtId, StmtKind, Type, VarDef, VarId,
};
use crate::ops::{self, CastWidths};

use super::analysis::layout::Layout;
use super::PassError;

/// Program-order live ranges of a function's variables: one dense `u32`
/// pair per variable (this check runs on the whole program at once, so its
/// tables are kept at a few bytes per variable).
#[derive(Clone, Debug, Default)]
pub struct Lifetimes {
    /// Index of the defining statement (parameters: 0); [`NONE`] when the
    /// variable is never defined.
    def: Vec<u32>,
    /// Greatest reading index (loop-extended); 0 when never read.
    last: Vec<u32>,
}

/// No index: a variable without a definition.
const NONE: u32 = u32::MAX;

impl Lifetimes {
    /// `[def, last]` of `v`, when it is defined.
    pub fn range(&self, v: VarId) -> Option<(u64, u64)> {
        let d = *self.def.get(v.index()).filter(|&&d| d != NONE)?;
        Some((u64::from(d), u64::from(self.last[v.index()].max(d))))
    }
}

/// Statement numbering: index of each statement and the last index of its
/// subtree (0 for statements no block contains).
struct Numbering {
    index: Vec<u32>,
    end: Vec<u32>,
}

/// Computes program-order lifetimes over the whole statement tree.
pub fn lifetimes(f: &Function) -> Lifetimes {
    let n = f.stmts.len();
    let mut num = Numbering {
        index: vec![0; n],
        end: vec![0; n],
    };
    let mut next = 1u32;
    number(f, Block::Body, &mut next, &mut num);
    let mut def: Vec<u32> = f
        .vars
        .values()
        .map(|d| match d.def {
            VarDef::Param(_) => 0,
            // Loop and `if` results are defined where the statement ends.
            VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) => {
                num.end[s.index()]
            }
            VarDef::Stmt(s) | VarDef::IterArg(s) | VarDef::LoopVar(s) => Some(num.index[s.index()])
                .filter(|&i| i > 0)
                .unwrap_or(NONE),
            VarDef::Free => NONE,
        })
        .collect();
    for p in &f.params {
        def[p.var.index()] = 0;
    }
    let mut lt = Lifetimes {
        last: vec![0; def.len()],
        def,
    };
    // Enclosing loops of the statement being read, outermost first.
    let mut stack: Vec<StmtId> = Vec::new();
    reads(f, Block::Body, &num, &mut stack, &mut lt);
    lt
}

fn number(f: &Function, b: Block, next: &mut u32, num: &mut Numbering) {
    for &s in f.block(b) {
        num.index[s.index()] = *next;
        *next += 1;
        for child in f.child_blocks(s) {
            number(f, child, next, num);
        }
        num.end[s.index()] = *next - 1;
    }
}

fn reads(f: &Function, b: Block, num: &Numbering, stack: &mut Vec<StmtId>, lt: &mut Lifetimes) {
    for &s in f.block(b) {
        let at = num.index[s.index()];
        f.stmts[s].for_each_use(&mut |u| {
            let def = match lt.def[u.index()] {
                NONE => 0,
                d => d,
            };
            // A value defined before an enclosing loop lives to its end.
            let mut last = at;
            for &l in stack.iter() {
                if def < num.index[l.index()] {
                    last = last.max(num.end[l.index()]);
                    break;
                }
            }
            let e = &mut lt.last[u.index()];
            *e = (*e).max(last);
        });
        let is_loop = matches!(f.stmts[s].kind, StmtKind::For(_));
        if is_loop {
            stack.push(s);
        }
        for child in f.child_blocks(s) {
            reads(f, child, num, stack, lt);
        }
        if is_loop {
            stack.pop();
        }
    }
}

/// Calls `visit` on every statement of block `b` and its nested blocks, in
/// program order (a walk without a table of every statement).
fn each_stmt(f: &Function, b: Block, visit: &mut impl FnMut(StmtId)) {
    for &s in f.block(b) {
        visit(s);
        for child in f.child_blocks(s) {
            each_stmt(f, child, visit);
        }
    }
}

/// Union-find over variables: families of the same data. A family's
/// representative is its lowest variable.
struct Families {
    parent: Vec<u32>,
}

impl Families {
    fn find(&mut self, v: VarId) -> VarId {
        let mut r = v.index();
        while self.parent[r] as usize != r {
            let p = self.parent[r] as usize;
            self.parent[r] = self.parent[p];
            r = p;
        }
        VarId::new(r)
    }

    fn union(&mut self, a: VarId, b: VarId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi.index()] = lo.index() as u32;
        }
    }
}

fn families(f: &Function) -> Families {
    let mut fam = Families {
        parent: (0..f.vars.len() as u32).collect(),
    };
    each_stmt(f, Block::Body, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { targets, value } if targets.len() == 1 => {
            let x = targets[0];
            match value {
                Expr::Var(y) => fam.union(x, *y),
                Expr::Call(c) => {
                    let info = ops::lookup_or_default(c.op_name());
                    if info.is_view() {
                        if let Some(y) = c.args.first().and_then(Expr::as_var) {
                            fam.union(x, y);
                        }
                    }
                    if let Some(i) = info.output_binds_input() {
                        if let Some(y) = c.args.get(i).and_then(Expr::as_var) {
                            fam.union(x, y);
                        }
                    }
                }
                _ => {}
            }
        }
        StmtKind::For(l) => {
            let yields = yielded(f, Block::Loop(s));
            for (k, &a) in l.iter_args.iter().enumerate() {
                if let Some(i) = l.init_values().get(k).and_then(Expr::as_var) {
                    fam.union(a, i);
                }
                if let Some(y) = yields.get(k).and_then(Expr::as_var) {
                    fam.union(a, y);
                }
                if let Some(&r) = l.results.get(k) {
                    fam.union(a, r);
                }
            }
        }
        StmtKind::If(i) => {
            let then = yielded(f, Block::Then(s));
            let other = if i.else_body.is_some() {
                yielded(f, Block::Else(s))
            } else {
                &[]
            };
            for (k, &r) in i.results.iter().enumerate() {
                for ys in [then, other] {
                    if let Some(y) = ys.get(k).and_then(Expr::as_var) {
                        fam.union(r, y);
                    }
                }
            }
        }
        _ => {}
    });
    fam
}

/// The values the final `pl.yield_` of block `b` yields (none without one).
fn yielded(f: &Function, b: Block) -> &[Expr] {
    f.yield_index(b)
        .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
            StmtKind::Yield(v) => Some(v.as_slice()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Checks the placement of one laid-out function; an internal error on any
/// violation.
pub fn check_function(
    f: &Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    layout: &Layout,
) -> Result<(), PassError> {
    check_function_with(f, soc, policy, layout, true, None)
}

/// [`check_function`], choosing whether an A2/A3 narrowing cast's source
/// is a hard conflict (the seed's rule), as MemoryReuse chose: under
/// `--compat pypto-e2d0f78` the reuse shares them, so the check must not
/// call that sharing a bug. With `summary`, also appends the summary
/// numbers of each space it checked (what [`crate::report::summary`]
/// computes), in space order.
pub fn check_function_with(
    f: &Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    layout: &Layout,
    narrowing_casts: bool,
    mut summary: Option<&mut Vec<SpaceSummary>>,
) -> Result<(), PassError> {
    // One space's problem at a time: each is dropped once validated.
    let mut failed = None;
    let first = summary.as_ref().map_or(0, |s| s.len());
    lower(
        f,
        soc,
        layout,
        false,
        narrowing_casts,
        &mut |space, problem, solution, numbers| {
            if validate(&problem, &solution).is_ok() {
                if let (Some(out), Some(n)) = (summary.as_deref_mut(), numbers) {
                    out.push(n);
                }
                return true;
            }
            failed = Some(space);
            false
        },
    );
    if let Some(out) = summary {
        out[first..].sort_by_key(|s| MemSpace::from_name(&s.space));
    }
    if let Some(space) = failed {
        // Failure path only: lower again with buffer names for the message.
        let mut violations = Vec::new();
        lower(
            f,
            soc,
            layout,
            true,
            narrowing_casts,
            &mut |s, problem, solution, _| {
                if s != space {
                    return true;
                }
                violations = validate(&problem, &solution).err().unwrap_or_default();
                false
            },
        );
        let first = violations
            .first()
            .map(|v| v.to_string())
            .unwrap_or_default();
        return Err(PassError::internal(format!(
            "placement check failed in function '{}', space {}: {first} ({} violation(s)); \
             this is a bug in the memory passes",
            f.name,
            space.name(),
            violations.len()
        )));
    }
    for slot in layout.slots() {
        if slot.space.is_known() && policy.align_address(slot.base, slot.space) != slot.base {
            return Err(PassError::internal(format!(
                "slot of '{}' at address {} in {} breaks the address policy's alignment",
                f.vars[slot.root].name,
                slot.base,
                slot.space.name()
            )));
        }
    }
    Ok(())
}

/// One buffer per (family, root): bytes, lifetime, and the family's members.
#[derive(Clone, Debug)]
pub struct FamilyBuffer {
    /// The family's representative variable.
    pub rep: VarId,
    /// Root allocation.
    pub root: VarId,
    /// Lowest absolute address of a member window.
    pub start: u64,
    /// One past the highest member byte.
    pub end: u64,
    /// `[def, last]` in program order.
    pub live: (u64, u64),
}

/// The family buffers of each space of a laid-out function, each space's
/// buffers in the order of their first member variable, the spaces in the
/// order of their first buffer.
pub fn family_buffers(f: &Function, layout: &Layout) -> Vec<(MemSpace, Vec<FamilyBuffer>)> {
    family_buffers_with(f, layout, &mut families(f))
}

/// `[def, last]` of every family, at its representative's index: each
/// variable's lifetime folded into its family's (`None` when no member is
/// defined).
fn family_lifetimes(f: &Function, fam: &mut Families) -> Lifetimes {
    let mut lt = lifetimes(f);
    // In place, in variable order: a family's representative is its lowest
    // variable, so its entry already holds the family's hull so far when a
    // later member is folded in, and no member's own entry is read after.
    for i in 0..lt.def.len() {
        let v = VarId::new(i);
        let Some((d, l)) = lt.range(v) else {
            continue;
        };
        let r = fam.find(v).index();
        if r == i {
            lt.last[i] = l as u32;
        } else if lt.def[r] == NONE {
            (lt.def[r], lt.last[r]) = (d as u32, l as u32);
        } else {
            lt.def[r] = lt.def[r].min(d as u32);
            lt.last[r] = lt.last[r].max(l as u32);
        }
    }
    lt
}

fn family_buffers_with(
    f: &Function,
    layout: &Layout,
    fam: &mut Families,
) -> Vec<(MemSpace, Vec<FamilyBuffer>)> {
    let live = family_lifetimes(f, fam);
    let mut out: Vec<(MemSpace, Vec<FamilyBuffer>)> = Vec::new();
    // Where each (family, root) buffer is, dense: the family's first buffer
    // through its representative (`first`, an index into `at`), any other
    // root of the same family (rare: a family normally lives in one root)
    // in `more`.
    let mut first: Vec<u32> = vec![NONE; f.vars.len()];
    let mut at: Vec<(u32, u32)> = Vec::new();
    let mut more: HashMap<(VarId, VarId), (u32, u32)> = HashMap::default();
    for (v, d) in f.vars.iter() {
        let Some(Type::Tile(_, Some(m))) = &d.ty else {
            continue;
        };
        let Some(root) = m.base_var() else { continue };
        let Some(slot) = layout.slot(root) else {
            continue;
        };
        let start = m
            .const_offset()
            .and_then(|o| u64::try_from(o).ok())
            .unwrap_or(slot.base);
        let end = start + m.size().unwrap_or(0);
        let rep = fam.find(v);
        let found = match first[rep.index()] {
            NONE => None,
            k => {
                let (si, i) = at[k as usize];
                if out[si as usize].1[i as usize].root == root {
                    Some((si, i))
                } else {
                    more.get(&(rep, root)).copied()
                }
            }
        };
        if let Some((si, i)) = found {
            let b = &mut out[si as usize].1[i as usize];
            b.start = b.start.min(start);
            b.end = b.end.max(end);
            continue;
        }
        let si = match out.iter().position(|(s, _)| *s == slot.space) {
            Some(si) => si,
            None => {
                out.push((slot.space, Vec::new()));
                out.len() - 1
            }
        };
        let list = &mut out[si].1;
        let place = (si as u32, list.len() as u32);
        list.push(FamilyBuffer {
            rep,
            root,
            start,
            end,
            live: live.family(rep),
        });
        if first[rep.index()] == NONE {
            first[rep.index()] = at.len() as u32;
            at.push(place);
        } else {
            more.insert((rep, root), place);
        }
    }
    for (_, list) in &mut out {
        list.shrink_to_fit();
    }
    out
}

impl Lifetimes {
    /// The hull of family `rep` after [`family_lifetimes`] (`(0, 0)` when
    /// no member is defined).
    fn family(&self, rep: VarId) -> (u64, u64) {
        match self.def[rep.index()] {
            NONE => (0, 0),
            d => (u64::from(d), u64::from(self.last[rep.index()])),
        }
    }
}

/// Lowers each space of `f` into a placement problem and the placement the
/// program uses, one space at a time, handing each to `visit` (which
/// returns whether to go on).
fn lower(
    f: &Function,
    soc: &Soc,
    layout: &Layout,
    named: bool,
    narrowing_casts: bool,
    visit: &mut dyn FnMut(MemSpace, Problem, Solution, Option<SpaceSummary>) -> bool,
) {
    let mut fam = families(f);
    let per_space = family_buffers_with(f, layout, &mut fam);
    // No-alias rules as pairs of different families, collected once.
    let mut forbidden: Vec<(VarId, VarId)> = Vec::new();
    each_stmt(f, Block::Body, &mut |s| {
        let st = &f.stmts[s];
        let (Some(x), Some(call)) = (st.def(), st.call()) else {
            return;
        };
        let info = ops::lookup_or_default(call.op_name());
        if info.alias == ops::AliasRule::InplaceSafe {
            return;
        }
        let cast = cast_widths(f, x, call.args.first());
        for i in
            info.forbidden_alias_args_with(soc.family(), call.args.len(), cast, narrowing_casts)
        {
            let Some(y) = call.args.get(i).and_then(Expr::as_var) else {
                continue;
            };
            let (fx, fy) = (fam.find(x), fam.find(y));
            if fx != fy {
                forbidden.push((fx, fy));
            }
        }
    });
    drop(fam);
    for (space, bufs) in per_space {
        // The summary line's numbers, while the buffers are at hand.
        let numbers = (!named).then(|| crate::report::space_summary(f, soc, layout, space, &bufs));
        let mut problem = Problem::new();
        problem.capacity = soc.capacity(space);
        for r in layout.reserves.iter().filter(|r| r.space == space) {
            problem.reserved.push((r.base, r.base + r.size));
        }
        problem.buffers.reserve_exact(bufs.len());
        let mut solution = Solution {
            offsets: Vec::with_capacity(bufs.len()),
        };
        // The buffers of each family, by family then buffer order (a
        // sorted table instead of a list per family).
        let mut by_rep: Vec<(VarId, BufferId)> = Vec::with_capacity(bufs.len());
        for b in &bufs {
            let (d, l) = b.live;
            let lower = 2 * d + 1;
            let upper = (2 * d + 2).max(2 * l + 1);
            let mut buffer = Buffer::new(b.end - b.start, lower, upper);
            if named {
                buffer = buffer.with_name(f.vars[b.rep].name.to_string());
            }
            let id = problem.push(buffer);
            solution.offsets.push(b.start);
            by_rep.push((b.rep, id));
        }
        drop(bufs);
        by_rep.sort_unstable_by_key(|&(r, id)| (r, id.0));
        let ids = |r: VarId| {
            let lo = by_rep.partition_point(|&(x, _)| x < r);
            let hi = by_rep.partition_point(|&(x, _)| x <= r);
            by_rep[lo..hi].iter().map(|&(_, id)| id)
        };
        for &(fx, fy) in &forbidden {
            for a in ids(fx) {
                for b in ids(fy) {
                    problem.conflicts.push((a, b));
                }
            }
        }
        drop(by_rep);
        if !visit(space, problem, solution, numbers) {
            return;
        }
    }
}

fn cast_widths(f: &Function, x: VarId, src: Option<&Expr>) -> Option<CastWidths> {
    let dst_bits = f.ty(x)?.as_tile()?.dtype.bits()?;
    let src_bits = f.ty(src?.as_var()?)?.as_tile()?.dtype.bits()?;
    Some(CastWidths { src_bits, dst_bits })
}
