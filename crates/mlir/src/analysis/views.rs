//! Which values are the same memory as another: view-like ops, casts and
//! loop/region plumbing, and the root allocation a memref value comes from.
//!
//! - [`view_source`]: MLIR's `ViewLikeOpInterface::getViewSource`;
//! - [`alias_pairs`]: HIVM's `getOperationAliasInfo` (the `(alias, source)`
//!   pairs an op creates: views, casts, bufferization and tensor reshapes,
//!   `arith.select` arms, `scope.scope` results);
//! - [`traceback_memref`] / [`traceback_to_alloc`]: the value a memref
//!   comes from through views, casts, loop-carried values and regions
//!   (`utils::tracebackMemRef`, `getMemRefAlloc`).

use crate::ir::{Module, OpId, ValueDef, ValueId};

/// Ops implementing `ViewLikeOpInterface`: the result views operand 0.
const VIEW_LIKE: &[&str] = &[
    "hivm.hir.convert_layout",
    "memref.cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.extract_strided_metadata",
    "memref.memory_space_cast",
    "memref.reinterpret_cast",
    "memref.reshape",
    "memref.subview",
    "memref.transpose",
    "memref.view",
];

/// Whether `name` is a view-like op.
pub fn is_view_like(name: &str) -> bool {
    VIEW_LIKE.contains(&name)
}

/// The viewed value of a view-like op.
pub fn view_source(m: &Module, op: OpId) -> Option<ValueId> {
    let d = m.op(op);
    if is_view_like(d.name()) {
        d.operand(0)
    } else {
        None
    }
}

/// Ops whose result aliases operand 0 without being a view
/// (`getOperationAliasInfo` beyond the views).
const CASTS: &[&str] = &[
    "bufferization.to_memref",
    "bufferization.to_buffer",
    "bufferization.to_tensor",
    "hivm.hir.bitcast",
    "tensor.collapse_shape",
    "tensor.expand_shape",
    "tensor.extract_slice",
];

/// `getOperationAliasInfo`: the `(alias, aliased)` pairs `op` creates.
pub fn alias_pairs(m: &Module, op: OpId) -> Vec<(ValueId, ValueId)> {
    let d = m.op(op);
    let name = d.name();
    match name {
        "arith.select" => match (d.result(0), d.operand(1), d.operand(2)) {
            (Some(r), Some(t), Some(f)) => vec![(r, t), (r, f)],
            _ => Vec::new(),
        },
        "memref.extract_strided_metadata" => match (d.result(0), d.operand(0)) {
            (Some(base), Some(src)) => vec![(base, src)],
            _ => Vec::new(),
        },
        "scope.scope" => {
            let Some(body) = m.entry_block(op, 0) else {
                return Vec::new();
            };
            let Some(ret) = m.last_op(body) else {
                return Vec::new();
            };
            d.results()
                .iter()
                .copied()
                .zip(m.op(ret).operands().iter().copied())
                .collect()
        }
        // memref.transpose is `ins` in its builder; view source otherwise.
        _ if is_view_like(name) || CASTS.contains(&name) => match (d.result(0), d.operand(0)) {
            (Some(r), Some(s)) => vec![(r, s)],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Whether `v` is defined by an allocation (`memref.alloc`, `memref.alloca`,
/// `memref_ext.alloc_workspace`): `memref_ext::isDefiningOpAllocLike`.
pub fn is_alloc_like(m: &Module, v: ValueId) -> bool {
    m.defining_op(v)
        .is_some_and(|o| is_alloc_like_op(m.op(o).name()))
}

/// Whether `name` allocates memory.
pub fn is_alloc_like_op(name: &str) -> bool {
    matches!(
        name,
        "memref.alloc" | "memref.alloca" | "memref_ext.alloc_workspace"
    )
}

/// One step up from `v` toward the memory it refers to, if any: a view's
/// or cast's source, a loop iteration argument's or result's init, a
/// `scope.scope` result's returned value.
fn step_up(m: &Module, v: ValueId) -> Option<ValueId> {
    match m.value_def(v) {
        ValueDef::OpResult { op, index } => {
            let d = m.op(op);
            let name = d.name();
            if is_alloc_like_op(name) {
                return None;
            }
            if is_view_like(name) || CASTS.contains(&name) {
                return d.operand(0);
            }
            match name {
                "scf.for" => d.operand(3 + index as usize),
                "scf.while" => d.operand(index as usize),
                "scope.scope" => {
                    let body = m.entry_block(op, 0)?;
                    let ret = m.last_op(body)?;
                    m.op(ret).operand(index as usize)
                }
                _ => None,
            }
        }
        ValueDef::BlockArg { block, index } => {
            let owner = m.block_parent_op(block);
            let d = m.op(owner);
            match d.name() {
                // Induction variable first, then the iteration arguments.
                "scf.for" if index >= 1 && m.entry_block(owner, 0) == Some(block) => {
                    d.operand(3 + index as usize - 1)
                }
                "scf.while" if m.entry_block(owner, 0) == Some(block) => d.operand(index as usize),
                _ => None,
            }
        }
    }
}

/// `utils::tracebackMemRef`: the value `v` refers to once views, casts,
/// loop plumbing and regions are looked through (an allocation, a function
/// argument, or the first value no rule looks through).
pub fn traceback_memref(m: &Module, v: ValueId) -> ValueId {
    let mut cur = v;
    // A bound against cyclic plumbing (a loop-carried value refers to
    // itself through its init only, but malformed input may not).
    for _ in 0..256 {
        match step_up(m, cur) {
            Some(next) => cur = next,
            None => break,
        }
    }
    cur
}

/// `utils::tracebackMemRefToAlloc`: the `memref.alloc` `v` refers to.
pub fn traceback_to_alloc(m: &Module, v: ValueId) -> Option<OpId> {
    let root = traceback_memref(m, v);
    let op = m.defining_op(root)?;
    m.op(op).is("memref.alloc").then_some(op)
}

/// The allocation value `v` refers to (the allocation op's result).
pub fn traceback_to_alloc_value(m: &Module, v: ValueId) -> Option<ValueId> {
    traceback_to_alloc(m, v).and_then(|o| m.op(o).result(0))
}
