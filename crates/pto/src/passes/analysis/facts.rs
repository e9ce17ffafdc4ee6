//! Per-variable facts of one function that the DSA_RP model needs: program
//! order indices, definition and (loop-extended) last use, whether a value is
//! touched inside control flow, and which statements read it.
//!
//! The numbering and the loop extension are [`ProgramOrder`]'s, the same as
//! MemoryReuse's: a value defined before a loop and read inside it lives
//! until the loop's last index ([`ProgramOrder::read_end`]; whether a
//! later iteration reads it again is for the occupancies to ask). Unlike MemoryReuse's phi families (see
//! [`super::roots`]), every variable has its own facts here: loop iter args
//! and loop variables are defined at the loop header, loop and `if` results
//! at the yield that produces them (an `if` result also records the index
//! where its branches join).
//!
//! Assumes: a well-formed program model (every block owner exists).
//! Guarantees: deterministic, read-only.

use super::order::ProgramOrder;
use super::walk::stmts;
use crate::ir::{Block, EntityRef, Function, StmtId, StmtKind, VarId};

/// Facts about one variable.
#[derive(Clone, Debug, Default)]
pub struct VarFacts {
    /// Program-order index of the definition (smallest when defined twice,
    /// e.g. an `if` result yielded by both branches).
    pub def: Option<u32>,
    /// Greatest (loop-extended) index of a read, if read at all.
    pub last_read: Option<u32>,
    /// The defining statement is an assignment inside a `for`/`if`, or the
    /// variable is a loop iter arg or a loop/`if` result.
    pub def_in_control_flow: bool,
    /// Defined or read inside a `for`/`if` (or a carried value).
    pub touched_in_control_flow: bool,
    /// Assignment or expression statements that read the variable.
    pub readers: Vec<StmtId>,
    /// For an `if` result (a phi): the last index of its `if`, where the
    /// branches join. Before it the value sits in the bytes of the value
    /// the taken branch yields, and only on that branch's path.
    pub join: Option<u32>,
}

impl VarFacts {
    /// Last index the value is needed at (its definition when never read).
    pub fn last(&self) -> Option<u32> {
        match (self.def, self.last_read) {
            (Some(d), Some(r)) => Some(d.max(r)),
            (d, r) => d.or(r),
        }
    }
}

/// Facts about every variable of a function, indexed by `VarId::index()`.
pub struct Facts {
    pub vars: Vec<VarFacts>,
}

impl Facts {
    /// The facts of `v`.
    pub fn var(&self, v: VarId) -> &VarFacts {
        &self.vars[v.index()]
    }
}

/// Computes the facts of `f`.
pub fn analyze(f: &Function) -> Facts {
    analyze_with(f, &ProgramOrder::build(f))
}

/// Computes the facts of `f` on an existing program order of `f`.
pub fn analyze_with(f: &Function, order: &ProgramOrder) -> Facts {
    let mut vars = vec![VarFacts::default(); f.vars.len()];
    // Reads to extend once every definition is known.
    let mut reads: Vec<(VarId, StmtId)> = Vec::new();
    let define = |vars: &mut Vec<VarFacts>, v: VarId, at: u32, in_cf: bool| {
        let x = &mut vars[v.index()];
        x.def = Some(x.def.map_or(at, |d| d.min(at)));
        if in_cf {
            x.def_in_control_flow = true;
            x.touched_in_control_flow = true;
        }
    };
    for (b, s) in stmts(f) {
        let st = &f.stmts[s];
        if matches!(st.kind, StmtKind::Comment(_) | StmtKind::Blank) {
            continue;
        }
        let at = order.index[s];
        let in_cf = b != Block::Body;
        let reader = matches!(st.kind, StmtKind::Assign { .. } | StmtKind::Expr(_)).then_some(s);
        st.for_each_use(&mut |v| {
            let x = &mut vars[v.index()];
            x.touched_in_control_flow |= in_cf;
            if let Some(r) = reader {
                x.readers.push(r);
            }
            reads.push((v, s));
        });
        for_each_definition(f, b, s, &mut |v, cf| define(&mut vars, v, at, in_cf || cf));
        if let StmtKind::If(i) = &st.kind {
            // Without an else branch there is no second path to exclude.
            if i.else_body.is_some() {
                for &r in &i.results {
                    vars[r.index()].join = Some(order.end[s]);
                }
            }
        }
    }
    for (v, s) in reads {
        let x = &mut vars[v.index()];
        let at = order.read_end(s, x.def).at;
        x.last_read = Some(x.last_read.map_or(at, |l| l.max(at)));
    }
    Facts { vars }
}

/// Calls `define(v, in_control_flow)` on every variable statement `s` (of
/// block `b`) defines: an assignment's or allocation's targets, a yield's
/// loop or `if` results, a loop's iter args and loop variable (the last
/// two always inside control flow).
fn for_each_definition(f: &Function, b: Block, s: StmtId, define: &mut impl FnMut(VarId, bool)) {
    let st = &f.stmts[s];
    match &st.kind {
        StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
            for &t in st.targets() {
                define(t, false);
            }
        }
        StmtKind::Yield(_) => {
            let results = match b.owner().map(|o| &f.stmts[o].kind) {
                Some(StmtKind::For(l)) => l.results.as_slice(),
                Some(StmtKind::If(i)) => i.results.as_slice(),
                _ => &[],
            };
            for &r in results {
                define(r, true);
            }
        }
        StmtKind::For(l) => {
            for &a in l.iter_args.iter().chain(&l.loop_var) {
                define(a, true);
            }
        }
        _ => {}
    }
}

/// The definition index of every variable ([`VarFacts::def`] alone, by
/// variable index): for the passes that need no more of the facts, without
/// the per-variable reader lists.
pub fn definitions(f: &Function, order: &ProgramOrder) -> Vec<Option<u32>> {
    let mut def: Vec<Option<u32>> = vec![None; f.vars.len()];
    for (b, s) in stmts(f) {
        if matches!(f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank) {
            continue;
        }
        let at = order.index[s];
        for_each_definition(f, b, s, &mut |v, _| {
            let d = &mut def[v.index()];
            *d = Some(d.map_or(at, |x| x.min(at)));
        });
    }
    def
}
