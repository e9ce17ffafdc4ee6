//! Writing the plan into the IR (`AllocToPointerCast.cpp` and the pass's
//! `fixMultibufferEnabledPointerCastOps`).
//!
//! - Every `memref.alloc` becomes `hivm.hir.pointer_cast(%addr...)` with
//!   one `i64` address per slot; each distinct address is one
//!   `arith.constant` created at the start of the function's entry block
//!   (so they print in reverse order of first use). An allocation the plan
//!   did not cover fails: `error: read before first write` (as in the
//!   reference, an allocation nothing uses included), with a note saying
//!   what to change.
//! - With `mem-plan-mode=global-work-space-plan` every
//!   `memref_ext.alloc_workspace` without offsets gets its byte offsets as
//!   `index` constants.
//! - A multi-buffered `pointer_cast` moves to the front of its loop body,
//!   its mark right after it; an unmarked `pointer_cast` inside it with the
//!   same addresses and type has its uses taken by the marked one.

use std::collections::HashMap;

use crate::ir::{
    Attribute, Diagnostic, InsertPoint, Location, Module, OpId, OpSpec, Type, ValueId,
};

/// Materialises one constant per distinct offset at the top of `func`.
struct Constants {
    entry: crate::ir::BlockId,
    ty: Type,
    made: HashMap<u64, ValueId>,
}

impl Constants {
    fn new(entry: crate::ir::BlockId, ty: Type) -> Constants {
        Constants {
            entry,
            ty,
            made: HashMap::new(),
        }
    }

    fn get(&mut self, m: &mut Module, offset: u64, loc: Location) -> ValueId {
        if let Some(&v) = self.made.get(&offset) {
            return v;
        }
        let spec = OpSpec::new("arith.constant", loc)
            .results([self.ty.clone()])
            .attr(
                "value",
                Attribute::Integer {
                    value: i128::from(offset),
                    ty: self.ty.clone(),
                },
            );
        let op = m.build(spec, InsertPoint::BlockStart(self.entry));
        let v = m.op(op).results()[0];
        self.made.insert(offset, v);
        v
    }
}

/// What to change for an allocation the plan did not cover, beside the
/// reference's error, which names only the symptom. PlanMemory gives a
/// buffer its place from the op that first writes it, so an allocation no
/// op writes has none; AscendNPU-IR's pass rejects it in the same words
/// (a never-used allocation included: it is defined, never generated, and
/// `walkAllocToPointerCast` finds no offsets for it).
fn unplanned_note(m: &Module, v: ValueId) -> &'static str {
    if m.has_uses(v) {
        "no op writes this buffer before it is read: write it first (an op \
         with it among its outs) or read another buffer"
    } else {
        "nothing uses this allocation, and PlanMemory places only buffers an op \
         writes: remove it"
    }
}

/// `walkAllocToPointerCast`.
pub fn allocs_to_pointer_casts(
    m: &mut Module,
    func: OpId,
    offsets: &HashMap<ValueId, Vec<u64>>,
) -> Result<(), Diagnostic> {
    let Some(entry) = m.func_body(func) else {
        return Ok(());
    };
    let mut consts = Constants::new(entry, Type::i64());
    let allocs = ops_named(m, func, "memref.alloc");
    for alloc in allocs {
        let d = m.op(alloc);
        let Some(v) = d.result(0) else { continue };
        let loc = d.loc;
        let Some(offs) = offsets.get(&v) else {
            return Err(
                Diagnostic::error(loc, "'memref.alloc' op error: read before first write")
                    .with_note(loc, unplanned_note(m, v)),
            );
        };
        let dynamic = d.segment(0).to_vec();
        let ty = m.value_type(v).clone();
        let addrs: Vec<ValueId> = offs.iter().map(|&o| consts.get(m, o, loc)).collect();
        let spec = OpSpec::new("hivm.hir.pointer_cast", loc)
            .operands(addrs.iter().copied().chain(dynamic.iter().copied()))
            .results([ty])
            .segments(vec![addrs.len() as u32, dynamic.len() as u32]);
        let cast = m.build(spec, InsertPoint::Before(alloc));
        let r = m.op(cast).results()[0];
        m.replace_op(alloc, &[r]);
    }
    Ok(())
}

/// `walkUpdateAllocWorkspaceOffset`.
pub fn workspace_offsets(
    m: &mut Module,
    func: OpId,
    offsets: &HashMap<ValueId, Vec<u64>>,
) -> Result<(), Diagnostic> {
    let Some(entry) = m.func_body(func) else {
        return Ok(());
    };
    let mut consts = Constants::new(entry, Type::Index);
    let ops = ops_named(m, func, "memref_ext.alloc_workspace");
    for op in ops {
        let d = m.op(op);
        if !d.segment(2).is_empty() {
            continue;
        }
        let Some(v) = d.result(0) else { continue };
        let loc = d.loc;
        let Some(offs) = offsets.get(&v) else {
            return Err(Diagnostic::error(
                loc,
                "'memref_ext.alloc_workspace' op error: read before first write",
            )
            .with_note(loc, unplanned_note(m, v)));
        };
        let dynamic = d.segment(0).to_vec();
        let arg = d.segment(1).to_vec();
        let attrs = d.attrs.clone();
        let ty = m.value_type(v).clone();
        let addrs: Vec<ValueId> = offs.iter().map(|&o| consts.get(m, o, loc)).collect();
        let mut spec = OpSpec::new("memref_ext.alloc_workspace", loc)
            .operands(
                dynamic
                    .iter()
                    .chain(arg.iter())
                    .chain(addrs.iter())
                    .copied(),
            )
            .results([ty])
            .segments(vec![
                dynamic.len() as u32,
                arg.len() as u32,
                addrs.len() as u32,
            ]);
        spec.attrs = attrs;
        let new = m.build(spec, InsertPoint::Before(op));
        let r = m.op(new).results()[0];
        m.replace_op(op, &[r]);
    }
    Ok(())
}

/// `fixMultibufferEnabledPointerCastOps`.
pub fn hoist_multi_buffer_casts(m: &mut Module, func: OpId) -> Result<(), Diagnostic> {
    let mut marked: Vec<(OpId, OpId)> = Vec::new();
    for op in m.walk(func) {
        let d = m.op(op);
        if !d.is("annotation.mark") || !d.has_attr("hivm.multi_buffer") {
            continue;
        }
        let Some(src) = d.operand(0) else { continue };
        let Some(cast) = m.defining_op(src) else {
            continue;
        };
        if !m.op(cast).is("hivm.hir.pointer_cast") {
            continue;
        }
        match marked.iter_mut().find(|(c, _)| *c == cast) {
            Some(e) => e.1 = op,
            None => marked.push((cast, op)),
        }
    }
    for &(cast, mark) in &marked {
        let mut lp = m.parent_op(cast);
        while let Some(p) = lp {
            if super::op_facts::is_loop_like(m.op(p).name()) {
                break;
            }
            lp = m.parent_op(p);
        }
        let Some(lp) = lp else { continue };
        let target = match m.op(lp).name() {
            "scf.for" => m.entry_block(lp, 0),
            "scf.while" => {
                let after = m.entry_block(lp, 1);
                let in_after = after.is_some_and(|a| {
                    let mut cur = m.op(cast).parent_block();
                    while let Some(b) = cur {
                        if b == a {
                            return true;
                        }
                        cur = m.op(m.block_parent_op(b)).parent_block();
                    }
                    false
                });
                if in_after {
                    after
                } else {
                    m.entry_block(lp, 0)
                }
            }
            _ => {
                return Err(Diagnostic::error(
                    m.op(cast).loc,
                    "Unsupported loop parent for pointer cast op with multibuffer attribute",
                ))
            }
        };
        let Some(target) = target else { continue };
        match m.first_op(target) {
            Some(front) if front != cast => m.move_op(cast, InsertPoint::Before(front)),
            Some(_) => {}
            None => m.move_op(cast, InsertPoint::BlockStart(target)),
        }
        m.move_op(mark, InsertPoint::After(cast));
    }
    let marked_casts: Vec<OpId> = marked.iter().map(|&(c, _)| c).collect();
    let mut visited: Vec<OpId> = Vec::new();
    for op in m.walk(func) {
        if !m.op(op).is("hivm.hir.pointer_cast") {
            continue;
        }
        if marked_casts.contains(&op) {
            visited.push(op);
            continue;
        }
        for &v in visited.iter().rev() {
            let Some(vp) = m.parent_op(v) else { continue };
            if !m.is_ancestor(vp, op) {
                continue;
            }
            let (a, b) = (m.op(op), m.op(v));
            let same_types = a.results().len() == b.results().len()
                && a.results()
                    .iter()
                    .zip(b.results())
                    .all(|(&x, &y)| m.value_type(x) == m.value_type(y));
            if same_types && a.operands() == b.operands() {
                let (old, new) = (a.results()[0], b.results()[0]);
                m.replace_all_uses(old, new);
                break;
            }
        }
    }
    Ok(())
}

/// The ops named `name` in `func`, collected before a rewrite changes it.
fn ops_named(m: &Module, func: OpId, name: &str) -> Vec<OpId> {
    m.walk(func)
        .into_iter()
        .filter(|&o| m.op(o).is(name))
        .collect()
}
