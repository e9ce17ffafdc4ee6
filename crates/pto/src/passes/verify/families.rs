//! Families of tiles holding the same data and their program-order
//! lifetimes, read from the planned program alone: a view and its source,
//! an in-place result and its input, a bare alias and its source, the four
//! values of a loop carry, an `if` result and its branch yields. The
//! report draws one buffer per (family, root); the written-workspace check
//! asks which tiles hold other data.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{
    Block, EntityRef, Expr, Function, MemSpace, StmtId, StmtKind, Type, VarDef, VarId,
};
use crate::ops;

use crate::passes::analysis::layout::Layout;
use crate::passes::analysis::order::ProgramOrder;

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
    let num = Numbering::of(f);
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

impl Numbering {
    /// The numbering of `f`'s statements, from 1 in program order.
    fn of(f: &Function) -> Numbering {
        let n = f.stmts.len();
        let mut num = Numbering {
            index: vec![0; n],
            end: vec![0; n],
        };
        let mut next = 1u32;
        number(f, Block::Body, &mut next, &mut num);
        num
    }
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

/// Per variable (by index), the representative of its family (see
/// [`family_buffers`]).
pub fn family_reps(f: &Function) -> Vec<VarId> {
    let mut fam = families(f);
    f.vars.keys().map(|v| fam.find(v)).collect()
}

/// For each [`ProgramOrder`] index, the index [`lifetimes`] gives the same
/// statement: the two numberings walk the statements in one order, but
/// this one also numbers comments and starts at 1 (parameters are 0).
pub fn order_to_index(f: &Function, order: &ProgramOrder) -> Vec<u32> {
    let num = Numbering::of(f);
    let mut out = vec![0u32; order.len as usize];
    each_stmt(f, Block::Body, &mut |s| {
        if matches!(f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank) {
            return;
        }
        if let Some(o) = out.get_mut(order.index[s] as usize) {
            *o = num.index[s.index()];
        }
    });
    out
}

/// Calls `visit` on every statement of block `b` and its nested blocks, in
/// program order (a walk without a table of every statement).
pub(super) fn each_stmt(f: &Function, b: Block, visit: &mut impl FnMut(StmtId)) {
    for &s in f.block(b) {
        visit(s);
        for child in f.child_blocks(s) {
            each_stmt(f, child, visit);
        }
    }
}

/// Union-find over variables: families of the same data. A family's
/// representative is its lowest variable.
pub(super) struct Families {
    parent: Vec<u32>,
}

impl Families {
    pub(super) fn find(&mut self, v: VarId) -> VarId {
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

pub(super) fn families(f: &Function) -> Families {
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
pub(super) fn yielded(f: &Function, b: Block) -> &[Expr] {
    f.yield_index(b)
        .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
            StmtKind::Yield(v) => Some(v.as_slice()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Per variable (by index), the tile whose bytes it is: a view (the op
/// table's view rule, on its first argument) or a bare alias is its
/// source's, through chains of them; every other variable is its own.
/// Definitions precede reads, so one walk in program order settles chains.
pub fn byte_sources(f: &Function) -> Vec<VarId> {
    let mut source: Vec<VarId> = f.vars.keys().collect();
    each_stmt(f, Block::Body, &mut |s| {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            return;
        };
        let src = match value {
            Expr::Var(y) => Some(*y),
            Expr::Call(c) if ops::lookup_or_default(c.op_name()).is_view() => {
                c.args.first().and_then(Expr::as_var)
            }
            _ => None,
        };
        if let Some(y) = src {
            for &t in targets.iter() {
                source[t.index()] = source[y.index()];
            }
        }
    });
    source
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
///
/// A view or bare alias is charged to the root of the tile whose bytes it
/// is ([`byte_sources`]), whatever allocation its own MemRef names: a view
/// is physically an alias of its source's allocation (seed 001: a root and
/// its views take one slot), so a view a planner left naming another
/// allocation (DSA-RP and the optimal planner place it on its source's
/// bytes, at its own address) is part of its source's buffer, never a
/// second one.
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
    let source = byte_sources(f);
    let root_of = |v: VarId| match &f.vars[v].ty {
        Some(Type::Tile(_, Some(m))) => m.base_var(),
        _ => None,
    };
    for (v, d) in f.vars.iter() {
        let Some(Type::Tile(_, Some(m))) = &d.ty else {
            continue;
        };
        let Some(own) = m.base_var() else { continue };
        let Some(own_slot) = layout.slot(own) else {
            continue;
        };
        // The source's root, when it is laid out in the same space.
        let (root, slot) = match root_of(source[v.index()])
            .filter(|&r| r != own)
            .and_then(|r| layout.slot(r).map(|s| (r, s)))
        {
            Some((r, s)) if s.space == own_slot.space => (r, s),
            _ => (own, own_slot),
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
