//! Which pipes touch which buffers (`OptMemPlanForDma`) and the loop a
//! buffer belongs to.
//!
//! A buffer is touched by an op when an operand or result of the op is the
//! buffer or a view of it ([`crate::analysis::views::traceback_to_alloc`]).
//! DMA buffers are those an MTE2 (load) or MTE3 (store) op touches, scalar
//! buffers those `memref.load`/`memref.store` touch. At level 3 two
//! entries conflict when either holds a DMA buffer: DMA buffers are never
//! reused in that first plan (reusing a DMA buffer ties the transfer pipe
//! to the other user; the reference's design note, "Level2").
//!
//! The reachability the register-based VF rule asks ("does this buffer
//! reach a store / a load?") is a pipe's touch, united over in-place
//! pairs: a buffer reaches a load when any buffer it shares memory with in
//! place does ([`Reach`]).

use std::collections::{HashMap, HashSet};

use crate::analysis::views::traceback_to_alloc_value;
use crate::ir::{Module, OpId, ValueId};

use super::op_facts::{is_loop_like, pipe, Pipe};

/// Buffers per pipe.
#[derive(Debug, Default)]
pub struct DmaFacts {
    by_pipe: HashMap<Pipe, HashSet<ValueId>>,
}

impl DmaFacts {
    /// `OptMemPlanForDma::build`: records the buffers every op of `func`
    /// touches under its pipe.
    pub fn build(m: &Module, func: OpId) -> DmaFacts {
        let mut f = DmaFacts::default();
        for op in m.walk(func) {
            let Some(p) = pipe(m, op) else { continue };
            let d = m.op(op);
            for &v in d.operands().iter().chain(d.results()) {
                if m.value_type(v).as_memref().is_none() {
                    continue;
                }
                if let Some(root) = traceback_to_alloc_value(m, v) {
                    f.by_pipe.entry(p).or_default().insert(root);
                }
            }
        }
        f
    }

    /// Whether an op of pipe `p` touches buffer `v`.
    pub fn touched_by(&self, p: Pipe, v: ValueId) -> bool {
        self.by_pipe.get(&p).is_some_and(|s| s.contains(&v))
    }

    /// `IsDmaBuffer`: a load or a store touches `v`.
    pub fn is_dma(&self, v: ValueId) -> bool {
        self.touched_by(Pipe::Mte2, v) || self.touched_by(Pipe::Mte3, v)
    }

    /// `IsScalarBuffer`: a scalar load or store touches `v`.
    pub fn is_scalar(&self, v: ValueId) -> bool {
        self.touched_by(Pipe::S, v)
    }

    /// `BufferPipeConflict`: either buffer is a DMA buffer.
    pub fn buffer_pipe_conflict(&self, a: ValueId, b: ValueId) -> bool {
        self.is_dma(a) || self.is_dma(b)
    }
}

/// In-place unions of buffers, for reachability (`InplaceReuseReachableMap`).
#[derive(Debug, Default)]
pub struct Reach {
    parent: HashMap<ValueId, ValueId>,
}

impl Reach {
    fn find(&self, v: ValueId) -> ValueId {
        let mut cur = v;
        while let Some(&p) = self.parent.get(&cur) {
            if p == cur {
                break;
            }
            cur = p;
        }
        cur
    }

    /// Records that `a` and `b` share memory in place.
    pub fn unite(&mut self, a: ValueId, b: ValueId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }

    /// Whether `v` or a buffer united with it is touched by pipe `p`.
    pub fn reaches(&self, facts: &DmaFacts, p: Pipe, v: ValueId) -> bool {
        let root = self.find(v);
        if facts.touched_by(p, v) {
            return true;
        }
        facts
            .by_pipe
            .get(&p)
            .is_some_and(|s| s.iter().any(|&b| self.find(b) == root))
    }
}

/// Whether `val` is used inside `lp` (through ops that are not terminators
/// or marks, and not inside another loop nested in it): `isConsumedInLoop`.
fn consumed_in_loop(m: &Module, val: ValueId, lp: OpId) -> bool {
    for u in m.uses(val) {
        let d = m.op(u.op);
        if d.is("annotation.mark") || is_terminator(d.name()) {
            continue;
        }
        let mut cur = Some(u.op);
        while let Some(a) = cur {
            if a == lp {
                return true;
            }
            if matches!(m.op(a).name(), "scf.for" | "scf.while") {
                break;
            }
            cur = m.parent_op(a);
        }
    }
    false
}

fn is_terminator(name: &str) -> bool {
    matches!(
        name,
        "scf.yield" | "scf.condition" | "func.return" | "scope.return" | "cf.br" | "cf.cond_br"
    )
}

fn nearest_loop(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op);
    while let Some(p) = cur {
        if is_loop_like(m.op(p).name()) {
            return Some(p);
        }
        cur = m.parent_op(p);
    }
    None
}

fn yielded(m: &Module, lp: OpId) -> Vec<ValueId> {
    let d = m.op(lp);
    let region = if d.is("scf.while") { 1 } else { 0 };
    m.entry_block(lp, region)
        .and_then(|b| m.last_op(b))
        .filter(|&t| m.op(t).is("scf.yield"))
        .map(|t| m.op(t).operands().to_vec())
        .unwrap_or_default()
}

/// `getParentLoop`: the loop a value lives in, following it out of loops
/// and `if`s it is yielded from, and preferring the loop that consumes it.
pub fn parent_loop(m: &Module, val: ValueId) -> Option<OpId> {
    parent_loop_impl(m, val, None, 0)
}

fn parent_loop_impl(m: &Module, val: ValueId, consumer: Option<OpId>, depth: u32) -> Option<OpId> {
    let def = m.defining_op(val)?;
    let Some(lp) = nearest_loop(m, def) else {
        return consumer;
    };
    if depth > 64 {
        return consumer.or(Some(lp));
    }
    let mut consumer = consumer;
    if consumed_in_loop(m, val, lp) {
        consumer = Some(lp);
    }
    let ys = yielded(m, lp);
    if ys.is_empty() {
        return consumer.or(Some(lp));
    }
    if let Some(i) = ys.iter().position(|&y| y == val) {
        let results = m.op(lp).results();
        return match results.get(i) {
            Some(&r) => parent_loop_impl(m, r, consumer, depth + 1),
            None => consumer.or(Some(lp)),
        };
    }
    // The innermost enclosing `scf.if` with results.
    let mut cur = m.parent_op(def);
    let mut parent_if = None;
    while let Some(p) = cur {
        if m.op(p).is("scf.if") {
            parent_if = Some(p);
            break;
        }
        cur = m.parent_op(p);
    }
    let Some(pif) = parent_if.filter(|&p| !m.op(p).results().is_empty()) else {
        return consumer.or(Some(lp));
    };
    for region in 0..2 {
        let ys: Vec<ValueId> = m
            .entry_block(pif, region)
            .and_then(|b| m.last_op(b))
            .map(|t| m.op(t).operands().to_vec())
            .unwrap_or_default();
        if let Some(i) = ys.iter().position(|&y| y == val) {
            if let Some(&r) = m.op(pif).results().get(i) {
                return parent_loop_impl(m, r, consumer, depth + 1);
            }
        }
    }
    consumer.or(Some(lp))
}

/// `GetBufferParentLoop`: the one loop all (defined) buffers live in.
pub fn buffer_parent_loop(m: &Module, buffers: &[ValueId]) -> Option<OpId> {
    let mut loops: Vec<OpId> = Vec::new();
    for &b in buffers {
        if m.defining_op(b).is_none() {
            continue;
        }
        match parent_loop(m, b) {
            Some(l) => {
                if !loops.contains(&l) {
                    loops.push(l);
                }
            }
            None => return None,
        }
    }
    if loops.len() == 1 {
        Some(loops[0])
    } else {
        None
    }
}
