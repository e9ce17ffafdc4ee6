//! A model of MLIR's greedy pattern driver (`applyPatternsGreedily` on a
//! function with the default `GreedyRewriteConfig`), for passes that run
//! their rewrites the way the C++ does:
//!
//! - each sweep first walks the function in post-order; constants go to
//!   the folder (`insertKnownConstant`: the first of each value and type
//!   is kept and moved to the top of the function's entry block unless it
//!   is first there or follows a constant the folder already owns, later
//!   equal ones are replaced by it) and every other op to the worklist;
//! - the worklist is processed bottom-up (the default traversal is not
//!   top-down): last in, first out, so the function's last op first, and
//!   ops a rewrite creates right after it, newest first;
//! - an op whose results are unused and that has no side effect
//!   (`isOpTriviallyDead`, allocations included) is erased when reached;
//! - otherwise the op's `fold` hook is tried (see [`fold`]: the folders of
//!   the ops these passes create or meet on buffers), then the pattern;
//!   sweeps repeat while a sweep changed something, up to
//!   `max_iterations` sweeps; not converging is a failure.
//!
//! Folders of other ops (arith and affine arithmetic on constants,
//! `memref.dim`, ...) are not modelled: those ops are left as written.
//! Ops modified in place are not pushed back onto the worklist; the next
//! sweep visits them.

use std::collections::HashMap;

use crate::ir::{Attribute, Diagnostic, InsertPoint, Module, OpId, Type, ValueId};

/// MLIR's default `GreedyRewriteConfig::maxIterations`.
pub const DEFAULT_MAX_ITERATIONS: usize = 10;

/// The ops of `func` in post-order (an op after the ops of its regions).
pub fn post_order(m: &Module, func: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    post_order_into(m, func, &mut out);
    out
}

fn post_order_into(m: &Module, op: OpId, out: &mut Vec<OpId>) {
    for &r in m.op(op).regions() {
        for &b in m.region_blocks(r) {
            let ops: Vec<OpId> = m.block_ops(b).collect();
            for o in ops {
                post_order_into(m, o, out);
                out.push(o);
            }
        }
    }
}

/// Whether `op` is a constant the folder handles (`m_Constant`).
fn is_constant(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    d.is("arith.constant") && d.results().len() == 1 && d.regions().is_empty()
}

/// The folder's uniquing key of a constant: its value and result type.
fn constant_key(m: &Module, op: OpId) -> Option<(String, Type)> {
    let d = m.op(op);
    let v = d.attr("value")?;
    let ty = m.value_type(d.result(0)?).clone();
    Some((v.to_string(), ty))
}

/// Ops a driver may erase when their results are unused
/// (`wouldOpBeTriviallyDead`: no memory effect but reads and the
/// allocation of their own results): arith and math, index arithmetic,
/// views and casts, allocations, loads, the value-semantics tensor and
/// vector ops, `hivm` ops declared `Pure`/`NoMemoryEffect`, and HIVM
/// structured ops that write no memref.
fn is_side_effect_free(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    let name = d.name();
    if !d.regions().is_empty() {
        return false;
    }
    if let Some(t) = crate::ir::ods::traits_of(name) {
        if t.has("Pure") || t.has("NoMemoryEffect") {
            return true;
        }
        // Structured ops take `getEffects` from HIVMStructuredOpInterface
        // or call its `getEffectsImpl` (copy, nd2nz, fixpipe, ...): reads
        // of memref inputs, writes of memref inits, nothing for tensors.
        // Reads do not keep an op alive. The custom ops and
        // `indirect_store` report effects of their own.
        if t.has("HIVMStructuredOpInterface")
            && !matches!(
                name,
                "hivm.hir.custom" | "hivm.hir.custom_macro" | "hivm.hir.indirect_store"
            )
        {
            return super::interfaces::Structured::of(m, op).is_some_and(|s| {
                s.inits()
                    .iter()
                    .all(|&v| !matches!(m.value_type(v), Type::MemRef(_)))
            });
        }
        return false;
    }
    let (dialect, mnemonic) = name.split_once('.').unwrap_or(("", name));
    match dialect {
        "arith" | "math" | "index" => true,
        // Every tensor op without a region is `Pure`.
        "tensor" => true,
        // Vector ops compute on values; the loads only read.
        "vector" => !matches!(
            mnemonic,
            "transfer_write"
                | "store"
                | "maskedstore"
                | "scatter"
                | "compressstore"
                | "print"
                | "yield"
        ),
        _ => matches!(
            name,
            "affine.apply"
                | "affine.min"
                | "affine.max"
                | "affine.load"
                | "affine.vector_load"
                | "memref.load"
                | "memref.subview"
                | "memref.cast"
                | "memref.collapse_shape"
                | "memref.expand_shape"
                | "memref.reshape"
                | "memref.reinterpret_cast"
                | "memref.view"
                | "memref.dim"
                | "memref.rank"
                | "memref.extract_strided_metadata"
                | "memref.extract_aligned_pointer_as_index"
                | "memref.memory_space_cast"
                | "memref.transpose"
                | "memref.alloc"
                | "memref.alloca"
                | "memref.get_global"
                | "builtin.unrealized_conversion_cast"
        ),
    }
}

/// `isOpTriviallyDead`.
pub fn is_trivially_dead(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    // The op a `vector.mask` masks is yielded by the mask's implicit
    // terminator, which the IR does not hold as a use.
    let masked = m.parent_op(op).is_some_and(|p| m.op(p).is("vector.mask"));
    !d.is_erased()
        && !masked
        && d.results().iter().all(|&r| !m.has_uses(r))
        && !d.results().is_empty()
        && is_side_effect_free(m, op)
}

/// Erases `op` when trivially dead, then the ops defining its operands
/// that became so. Returns whether anything was erased.
fn erase_if_dead(m: &mut Module, op: OpId) -> bool {
    let mut stack = vec![op];
    let mut any = false;
    while let Some(o) = stack.pop() {
        if !is_trivially_dead(m, o) {
            continue;
        }
        let defs: Vec<OpId> = m
            .op(o)
            .operands()
            .iter()
            .filter_map(|&v| m.defining_op(v))
            .collect();
        m.erase_op(o);
        any = true;
        stack.extend(defs);
    }
    any
}

/// The folder's constant pass over `func` (`insertKnownConstant` for each
/// constant in walk order): later duplicates are replaced by the first,
/// and each kept constant not at the top of the entry block (or right
/// after a kept one) moves to the top. Returns whether anything changed.
pub fn hoist_constants(m: &mut Module, func: OpId) -> bool {
    let Some(entry) = m.func_body(func) else {
        return false;
    };
    let mut owned: HashMap<(String, Type), OpId> = HashMap::new();
    let mut owned_set: Vec<OpId> = Vec::new();
    let mut changed = false;
    for op in post_order(m, func) {
        if m.op(op).is_erased() || !is_constant(m, op) {
            continue;
        }
        let Some(key) = constant_key(m, op) else {
            continue;
        };
        if let Some(&first) = owned.get(&key) {
            let (r, f) = (m.op(op).results()[0], m.op(first).results()[0]);
            m.replace_all_uses(r, f);
            m.erase_op(op);
            changed = true;
            continue;
        }
        let in_entry = m.op(op).parent_block() == Some(entry);
        let at_front = m.first_op(entry) == Some(op);
        let after_owned = m.prev_op(op).is_some_and(|p| owned_set.contains(&p));
        if !in_entry || (!at_front && !after_owned) {
            m.move_op(op, InsertPoint::BlockStart(entry));
            changed = true;
        }
        owned.insert(key, op);
        owned_set.push(op);
    }
    changed
}

/// Runs `pattern` greedily over `func` (see the module docs). `pattern`
/// returns whether it succeeded on the op; the ops it creates are
/// visited next. Returns whether the rewrites converged within
/// `max_iterations` sweeps.
pub fn apply(
    m: &mut Module,
    func: OpId,
    max_iterations: usize,
    diags: &mut Vec<Diagnostic>,
    mut pattern: impl FnMut(&mut Module, OpId, &mut Vec<Diagnostic>) -> bool,
) -> bool {
    for _ in 0..max_iterations.max(1) {
        // Uniquing and hoisting constants while the worklist is filled is
        // not a change: only the worklist's rewrites, folds and erasures
        // make the driver sweep again.
        hoist_constants(m, func);
        let mut changed = false;
        let mut worklist: Vec<OpId> = post_order(m, func)
            .into_iter()
            .filter(|&o| !is_constant(m, o))
            .collect();
        while let Some(op) = worklist.pop() {
            if m.op(op).is_erased() {
                continue;
            }
            if erase_if_dead(m, op) {
                changed = true;
                continue;
            }
            if let Some(touched) = fold(m, op) {
                changed = true;
                for t in touched {
                    if !m.op(t).is_erased() && !worklist.contains(&t) {
                        worklist.push(t);
                    }
                }
                continue;
            }
            let before = m.num_ops();
            if pattern(m, op, diags) {
                changed = true;
            }
            for i in before..m.num_ops() {
                let new = OpId::from_index(i);
                if !m.op(new).is_erased() && !is_constant(m, new) {
                    worklist.push(new);
                }
            }
        }
        if !changed {
            return true;
        }
    }
    false
}

/// Replaces the results of `op` by `values` and erases it; returns the ops
/// to revisit (the users of the replaced results and the ops defining
/// `op`'s operands, as the driver's `notifyOperationModified` and
/// `addOperandsToWorklist` do).
fn fold_to(m: &mut Module, op: OpId, values: &[ValueId]) -> Vec<OpId> {
    let results = m.op(op).results().to_vec();
    let mut touched: Vec<OpId> = m
        .op(op)
        .operands()
        .iter()
        .filter_map(|&v| m.defining_op(v))
        .collect();
    for (&r, &v) in results.iter().zip(values) {
        touched.extend(m.users(r));
        m.replace_all_uses(r, v);
    }
    m.erase_op(op);
    touched
}

/// `memref::foldMemRefCast`: operands produced by a `memref.cast` from a
/// ranked memref are replaced by the cast's source. Returns whether any
/// operand changed.
fn fold_memref_cast_operands(m: &mut Module, op: OpId) -> bool {
    fold_cast_operands(m, op, |from, _| {
        !matches!(from, Type::UnrankedMemRef { .. })
    })
}

/// `CopyOp::fold`: an operand produced by a `memref.cast` that
/// `CastOp::canFoldIntoConsumerOp` allows (ranked, same element type and
/// rank, both strided, and no size, offset or stride made static by the
/// cast) uses the cast's source. Returns whether any operand changed.
fn fold_relaxing_casts(m: &mut Module, op: OpId) -> bool {
    fold_cast_operands(m, op, |from, to| {
        let (Type::MemRef(from), Type::MemRef(to)) = (from, to) else {
            return false;
        };
        if from.elem != to.elem || from.rank() != to.rank() {
            return false;
        }
        let (Some((fs, fo)), Some((ts, to_off))) =
            (from.strides_and_offset(), to.strides_and_offset())
        else {
            return false;
        };
        // A dynamic source entry the cast makes static forbids the fold.
        let tightens = |a: i64, b: i64| crate::ir::is_dynamic(a) && !crate::ir::is_dynamic(b);
        let tightened = from
            .shape
            .iter()
            .zip(&to.shape)
            .any(|(&a, &b)| tightens(a, b))
            || tightens(fo, to_off)
            || fs.iter().zip(&ts).any(|(&a, &b)| tightens(a, b));
        !tightened
    })
}

/// Replaces each operand of `op` produced by a `memref.cast` by the cast's
/// source when `allowed(source type, cast type)`. Returns whether any
/// operand changed.
fn fold_cast_operands(m: &mut Module, op: OpId, allowed: impl Fn(&Type, &Type) -> bool) -> bool {
    let mut folded = false;
    for i in 0..m.op(op).operands().len() {
        let v = m.op(op).operands()[i];
        let Some(def) = m.defining_op(v) else {
            continue;
        };
        if !m.op(def).is("memref.cast") {
            continue;
        }
        let Some(src) = m.op(def).operand(0) else {
            continue;
        };
        if !allowed(m.value_type(src), m.value_type(v)) {
            continue;
        }
        m.set_operand(op, i, src);
        folded = true;
    }
    folded
}

/// The `fold` hook of `op`, for the ops whose folders these passes meet:
///
/// - `builtin.unrealized_conversion_cast`: a cast to its own operand types
///   folds to its operands, and a cast of a cast back to the inner cast's
///   operand types folds to the inner cast's operands;
/// - `memref.subview` with a static result type equal to its source's
///   folds to the source;
/// - `memref.collapse_shape`/`memref.expand_shape` (`foldReshapeOp`): to
///   the source when the type does not change, and to the source of the
///   inverse reshape that produced the operand when that has the result
///   type;
/// - `memref.cast`, the `hivm.hir.copy`/`load`/`store`/`fixpipe` DMA
///   ops, every HIVM vector op, `memref.load`/`store`/`dealloc` and the
///   vector loads and stores (`foldMemRefCast`, in place): operands
///   produced by a `memref.cast` from a ranked memref use the cast's
///   source;
/// - `memref.copy` (in place): the same for casts that only relax the
///   type (`canFoldIntoConsumerOp`);
/// - `vector.transfer_read`/`transfer_write` (in place): dims provably in
///   bounds are marked so (`foldTransferInBoundsAttribute`), else
///   `foldMemRefCast`.
///
/// Returns the ops to revisit when the op folded.
pub fn fold(m: &mut Module, op: OpId) -> Option<Vec<OpId>> {
    let d = m.op(op);
    let operand_types: Vec<&Type> = d.operands().iter().map(|&v| m.value_type(v)).collect();
    let result_types: Vec<&Type> = d.results().iter().map(|&v| m.value_type(v)).collect();
    match d.name() {
        "builtin.unrealized_conversion_cast" => {
            if operand_types == result_types {
                let ops = d.operands().to_vec();
                return Some(fold_to(m, op, &ops));
            }
            let first = *d.operands().first()?;
            let inner = m.defining_op(first)?;
            let i = m.op(inner);
            let inner_types: Vec<&Type> = i.operands().iter().map(|&v| m.value_type(v)).collect();
            if !i.is("builtin.unrealized_conversion_cast")
                || i.results() != d.operands()
                || inner_types != result_types
            {
                return None;
            }
            let ops = i.operands().to_vec();
            Some(fold_to(m, op, &ops))
        }
        "memref.subview" => {
            let (Type::MemRef(src), Type::MemRef(res)) =
                (operand_types.first()?, result_types.first()?)
            else {
                return None;
            };
            if !res.has_static_shape() || src != res {
                return None;
            }
            let src = d.operands()[0];
            Some(fold_to(m, op, &[src]))
        }
        "memref.collapse_shape" | "memref.expand_shape" => {
            let inverse = if d.is("memref.collapse_shape") {
                "memref.expand_shape"
            } else {
                "memref.collapse_shape"
            };
            let src = *d.operands().first()?;
            if operand_types.first()? == result_types.first()? {
                return Some(fold_to(m, op, &[src]));
            }
            let def = m.defining_op(src)?;
            let inner = m.op(def);
            let inner_src = *inner.operands().first()?;
            if !inner.is(inverse) || m.value_type(inner_src) != *result_types.first()? {
                return None;
            }
            Some(fold_to(m, op, &[inner_src]))
        }
        "memref.cast" | "hivm.hir.copy" | "hivm.hir.load" | "hivm.hir.store"
        | "hivm.hir.fixpipe" | "memref.load" | "memref.store" | "memref.dealloc"
        | "vector.load" | "vector.store" | "vector.maskedload" | "vector.maskedstore" => {
            fold_memref_cast_operands(m, op).then(|| vec![op])
        }
        "memref.copy" => fold_relaxing_casts(m, op).then(|| vec![op]),
        // Every op of `HIVMVectorOps.td` declares `fold` as
        // `memref::foldMemRefCast(*this)` (`vectorOpBaseDecls`).
        name if crate::ir::ods::traits_of(name).is_some_and(|t| t.file == "HIVMVectorOps") => {
            fold_memref_cast_operands(m, op).then(|| vec![op])
        }
        "vector.transfer_read" | "vector.transfer_write" => {
            (fold_transfer_in_bounds(m, op) || fold_memref_cast_operands(m, op)).then(|| vec![op])
        }
        _ => None,
    }
}

/// `foldTransferInBoundsAttribute` for a transfer with the default (minor
/// identity) permutation map: a vector dim whose index is a constant `c`
/// with `c + vector size <= source size` (a static source dim) becomes in
/// bounds; the op changes when one does. Other permutation maps are left
/// alone.
fn fold_transfer_in_bounds(m: &mut Module, op: OpId) -> bool {
    let d = m.op(op);
    let read = d.is("vector.transfer_read");
    if d.segments.len() != 4 {
        return false;
    }
    let (base, idx, vec_ty) = if read {
        let Some(r) = d.result(0) else { return false };
        (
            d.segment(0).first().copied(),
            d.segment(1).to_vec(),
            m.value_type(r),
        )
    } else {
        let Some(&v) = d.segment(0).first() else {
            return false;
        };
        (
            d.segment(1).first().copied(),
            d.segment(2).to_vec(),
            m.value_type(v),
        )
    };
    let Some(base) = base else { return false };
    // A memref or a tensor: the fold asks only for the shape.
    let Some(src_shape) = m.value_type(base).shape().map(<[_]>::to_vec) else {
        return false;
    };
    let Some(vshape) = vec_ty.shape().map(<[_]>::to_vec) else {
        return false;
    };
    let (n, k) = (src_shape.len(), vshape.len());
    if k == 0 || k > n || idx.len() != n {
        return false;
    }
    if let Some(map) = d.attr("permutation_map") {
        if !crate::dialect::vector::is_minor_identity(map, n, k) {
            return false;
        }
    }
    let old: Vec<bool> = match d.attr("in_bounds") {
        Some(Attribute::Array(a)) if a.len() == k => {
            a.iter().map(|x| x.as_bool() == Some(true)).collect()
        }
        Some(_) => return false,
        None => vec![false; k],
    };
    let constant = |v: ValueId| {
        let def = m.defining_op(v)?;
        let c = m.op(def);
        if !c.is("arith.constant") {
            return None;
        }
        c.attr("value").and_then(Attribute::as_int)
    };
    let mut changed = false;
    let mut new = old.clone();
    for i in 0..k {
        if old[i] {
            continue;
        }
        let p = n - k + i;
        let size = src_shape[p];
        if crate::ir::is_dynamic(size) || crate::ir::is_dynamic(vshape[i]) {
            continue;
        }
        if constant(idx[p]).is_some_and(|c| c + vshape[i] <= size) {
            new[i] = true;
            changed = true;
        }
    }
    if changed {
        m.set_attr(
            op,
            "in_bounds",
            Attribute::Array(new.into_iter().map(Attribute::Bool).collect()),
        );
    }
    changed
}

/// Whether an attribute is the unit attribute (a flag).
pub fn is_unit(a: Option<&Attribute>) -> bool {
    matches!(a, Some(Attribute::Unit))
}
