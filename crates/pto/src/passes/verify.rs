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

use rustc_hash::FxHashMap as HashMap;

use tilemem_plan::{validate, Buffer, BufferId, Problem, Solution};
use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::{
    Block, EntityRef, Expr, Function, MemSpace, SecondaryMap, StmtId, StmtKind, Type, VarDef, VarId,
};
use crate::ops::{self, CastWidths};

use super::analysis::layout::Layout;
use super::PassError;

/// Program-order live ranges of a function's variables.
#[derive(Clone, Debug, Default)]
pub struct Lifetimes {
    /// Index of the defining statement (parameters: 0); `None` when the
    /// variable is never defined.
    pub def: SecondaryMap<VarId, Option<u64>>,
    /// Greatest reading index (loop-extended); 0 when never read.
    pub last: SecondaryMap<VarId, u64>,
}

impl Lifetimes {
    /// `[def, last]` of `v`, when it is defined.
    pub fn range(&self, v: VarId) -> Option<(u64, u64)> {
        let d = self.def[v]?;
        Some((d, self.last[v].max(d)))
    }
}

/// Statement numbering: index of each statement and the last index of its
/// subtree.
struct Numbering {
    index: SecondaryMap<StmtId, u64>,
    end: SecondaryMap<StmtId, u64>,
}

/// Computes program-order lifetimes over the whole statement tree.
pub fn lifetimes(f: &Function) -> Lifetimes {
    let mut lt = Lifetimes::default();
    let mut num = Numbering {
        index: SecondaryMap::new(),
        end: SecondaryMap::new(),
    };
    let mut next = 1u64;
    number(f, Block::Body, &mut next, &mut num);
    for (v, d) in f.vars.iter() {
        lt.def[v] = match d.def {
            VarDef::Param(_) => Some(0),
            // Loop and `if` results are defined where the statement ends.
            VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) => {
                Some(num.end[s])
            }
            VarDef::Stmt(s) | VarDef::IterArg(s) | VarDef::LoopVar(s) => {
                Some(num.index[s]).filter(|&i| i > 0)
            }
            VarDef::Free => None,
        };
    }
    for p in &f.params {
        lt.def[p.var] = Some(0);
    }
    // Enclosing loops of the statement being read, outermost first.
    let mut stack: Vec<StmtId> = Vec::new();
    reads(f, Block::Body, &num, &mut stack, &mut lt);
    lt
}

fn number(f: &Function, b: Block, next: &mut u64, num: &mut Numbering) {
    for &s in f.block(b) {
        num.index[s] = *next;
        *next += 1;
        for child in f.child_blocks(s) {
            number(f, child, next, num);
        }
        num.end[s] = *next - 1;
    }
}

fn reads(f: &Function, b: Block, num: &Numbering, stack: &mut Vec<StmtId>, lt: &mut Lifetimes) {
    for &s in f.block(b) {
        let at = num.index[s];
        f.stmts[s].for_each_use(&mut |u| {
            let def = lt.def[u].unwrap_or(0);
            // A value defined before an enclosing loop lives to its end.
            let mut last = at;
            for &l in stack.iter() {
                if def < num.index[l] {
                    last = last.max(num.end[l]);
                    break;
                }
            }
            let e = &mut lt.last[u];
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

/// Union-find over variables: families of the same data.
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
    for (b, s) in f.walk() {
        let _ = b;
        match &f.stmts[s].kind {
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
                let yields = yield_vars(f, Block::Loop(s));
                for (k, &a) in l.iter_args.iter().enumerate() {
                    if let Some(i) = l.init_values().get(k).and_then(Expr::as_var) {
                        fam.union(a, i);
                    }
                    if let Some(Some(y)) = yields.get(k) {
                        fam.union(a, *y);
                    }
                    if let Some(&r) = l.results.get(k) {
                        fam.union(a, r);
                    }
                }
            }
            StmtKind::If(i) => {
                let mut branches = vec![yield_vars(f, Block::Then(s))];
                if i.else_body.is_some() {
                    branches.push(yield_vars(f, Block::Else(s)));
                }
                for (k, &r) in i.results.iter().enumerate() {
                    for ys in &branches {
                        if let Some(Some(y)) = ys.get(k) {
                            fam.union(r, *y);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    fam
}

fn yield_vars(f: &Function, b: Block) -> Vec<Option<VarId>> {
    f.yield_index(b)
        .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
            StmtKind::Yield(v) => Some(v.iter().map(Expr::as_var).collect()),
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
    check_function_with(f, soc, policy, layout, true)
}

/// [`check_function`], choosing whether an A2/A3 narrowing cast's source
/// is a hard conflict (the seed's rule), as MemoryReuse chose: under
/// `--compat pypto-e2d0f78` the reuse shares them, so the check must not
/// call that sharing a bug.
pub fn check_function_with(
    f: &Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    layout: &Layout,
    narrowing_casts: bool,
) -> Result<(), PassError> {
    for (space, problem, solution) in &lower(f, soc, layout, false, narrowing_casts) {
        if validate(problem, solution).is_ok() {
            continue;
        }
        // Failure path only: lower again with buffer names for the message.
        let named = lower(f, soc, layout, true, narrowing_casts);
        let violations = named
            .iter()
            .find(|(s, _, _)| s == space)
            .and_then(|(_, p, sol)| validate(p, sol).err())
            .unwrap_or_default();
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

/// The family buffers of each space of a laid-out function.
pub fn family_buffers(f: &Function, layout: &Layout) -> Vec<(MemSpace, Vec<FamilyBuffer>)> {
    family_buffers_with(f, layout, &mut families(f))
}

fn family_buffers_with(
    f: &Function,
    layout: &Layout,
    fam: &mut Families,
) -> Vec<(MemSpace, Vec<FamilyBuffer>)> {
    let lt = lifetimes(f);
    let mut by_key: HashMap<(VarId, VarId), FamilyBuffer> = HashMap::default();
    let mut order: Vec<(VarId, VarId)> = Vec::new();
    // Members of each family (typed or not) for lifetimes.
    let mut fam_live: Vec<Option<(u64, u64)>> = vec![None; f.vars.len()];
    for (v, _) in f.vars.iter() {
        if let Some((d, l)) = lt.range(v) {
            let e = &mut fam_live[fam.find(v).index()];
            *e = Some(match *e {
                None => (d, l),
                Some((d0, l0)) => (d0.min(d), l0.max(l)),
            });
        }
    }
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
        let live = fam_live[rep.index()].unwrap_or((0, 0));
        let key = (rep, root);
        match by_key.get_mut(&key) {
            Some(b) => {
                b.start = b.start.min(start);
                b.end = b.end.max(end);
            }
            None => {
                order.push(key);
                by_key.insert(
                    key,
                    FamilyBuffer {
                        rep,
                        root,
                        start,
                        end,
                        live,
                    },
                );
            }
        }
    }
    let mut out: Vec<(MemSpace, Vec<FamilyBuffer>)> = Vec::new();
    for key in order {
        let b = by_key.remove(&key).expect("key recorded once");
        let Some(slot) = layout.slot(b.root) else {
            continue;
        };
        match out.iter_mut().find(|(s, _)| *s == slot.space) {
            Some((_, v)) => v.push(b),
            None => out.push((slot.space, vec![b])),
        }
    }
    out
}

fn lower(
    f: &Function,
    soc: &Soc,
    layout: &Layout,
    named: bool,
    narrowing_casts: bool,
) -> Vec<(MemSpace, Problem, Solution)> {
    let mut fam = families(f);
    let per_space = family_buffers_with(f, layout, &mut fam);
    // No-alias rules as pairs of different families, collected once.
    let mut forbidden: Vec<(VarId, VarId)> = Vec::new();
    for (_, s) in f.walk() {
        let st = &f.stmts[s];
        let (Some(x), Some(call)) = (st.def(), st.call()) else {
            continue;
        };
        let info = ops::lookup_or_default(call.op_name());
        if info.alias == ops::AliasRule::InplaceSafe {
            continue;
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
    }
    let mut out = Vec::new();
    for (space, bufs) in per_space {
        let mut problem = Problem::new();
        problem.capacity = soc.capacity(space);
        for r in layout.reserves.iter().filter(|r| r.space == space) {
            problem.reserved.push((r.base, r.base + r.size));
        }
        let mut solution = Solution::default();
        let mut id_of: HashMap<VarId, Vec<BufferId>> = HashMap::default();
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
            id_of.entry(b.rep).or_default().push(id);
        }
        for &(fx, fy) in &forbidden {
            for &a in id_of.get(&fx).into_iter().flatten() {
                for &b in id_of.get(&fy).into_iter().flatten() {
                    problem.conflicts.push((a, b));
                }
            }
        }
        out.push((space, problem, solution));
    }
    out
}

fn cast_widths(f: &Function, x: VarId, src: Option<&Expr>) -> Option<CastWidths> {
    let dst_bits = f.ty(x)?.as_tile()?.dtype.bits()?;
    let src_bits = f.ty(src?.as_var()?)?.as_tile()?.dtype.bits()?;
    Some(CastWidths { src_bits, dst_bits })
}
