//! Carrying a new memref type to the users of a replaced allocation
//! (`replaceAndPropagateMemRefType` of `PropagateAlignUtil.cpp`), and the
//! clean-ups the passes run afterwards (`handlePropagateFailure`,
//! `materializeRemainingStaticUBLayoutCasts`).
//!
//! The old value's users first read a `builtin.unrealized_conversion_cast`
//! of the new value back to the old type; each conversion is then pushed
//! past its users:
//! - views are rebuilt on the new value (`subview` with a re-inferred
//!   type, `collapse_shape`, `expand_shape`, `reshape` as a collapse or an
//!   expansion, `hivm.hir.bitcast`) and convert their own result back;
//! - a `memref.cast` used only by marks keeps reading the conversion;
//!   otherwise it is rebuilt from the new value when the types are cast
//!   compatible;
//! - an `scf.for` init retypes the loop (iter arg and result), with
//!   conversions back after the loop and at the top of the body, and one
//!   to the new type before the yield;
//! - an `scf.yield` of an `scf.if` retypes the result once both branches
//!   yield conversions from the same type; of an `scf.for`, the loop is
//!   retyped when the iter arg is unused and the init is (a conversion
//!   from) the new type, and when the init is a plain value the yield gets
//!   a dense copy and the init's alignment is dropped; of an `scf.while`
//!   it fails;
//! - a `scope.return` retypes the scope's result;
//! - a conversion back to the new type cancels out;
//! - a `func.call` retypes the callee and carries the type into it;
//! - any other user reads the new value directly, unless it produces
//!   memrefs or has memref block arguments.
//!
//! A user that cannot take the new value keeps the conversion and is a
//! propagation failure, handled once the function's allocations are all
//! rewritten ([`handle_propagate_failure`]): a dense copy before the user,
//! copied back after later writes to it and refreshed after later writes
//! to the aligned buffer (writes counted per use and effect, as
//! `findWriteOp` does, including the block-sync wait of a tightly coupled
//! buffer filled by a Fixpipe).

use std::collections::HashSet;

use crate::ir::{
    Attribute, FunctionType, InsertPoint, Layout, Location, MemRefType, Module, Ofr, OpId, OpSpec,
    Type, ValueId,
};

use super::common::{after_value, callee_of};
use super::interfaces::{Role, Structured};
use super::op_table::{flow_kind, is_view_like, FlowKind, COPY_OP, MARK_OP};
use super::strides::{collapse_type, collapsed_layout, layout_is_identity};
use super::view_maps::{
    cast_compatible, expanded_type, infer_rank_reduced_subview_type, reshape_reassociation,
};

/// `builtin.unrealized_conversion_cast`.
pub const CONVERSION: &str = "builtin.unrealized_conversion_cast";

/// The users that could not take a new type, with the conversions they
/// keep reading (`PropagateFailure`).
#[derive(Default)]
pub struct Failures {
    convs: HashSet<OpId>,
    users: HashSet<OpId>,
}

/// Builds `unrealized_conversion_cast %v : T to ty` at `at`; returns the
/// op and its result.
fn conversion(
    m: &mut Module,
    v: ValueId,
    ty: Type,
    at: InsertPoint,
    loc: Location,
) -> (OpId, ValueId) {
    let mut spec = OpSpec::new(CONVERSION, loc);
    spec.operands = vec![v];
    spec.result_types = vec![ty];
    let op = m.build(spec, at);
    (op, m.op(op).results()[0])
}

/// `rewriter.replaceOp(op, conversion(new result))`: `op`'s uses take a
/// conversion of `new`'s result back to `old_ty`, built before `op`,
/// and `op` goes. Returns the conversion.
fn replace_with_conversion(
    m: &mut Module,
    op: OpId,
    new: OpId,
    old_ty: Type,
    loc: Location,
) -> OpId {
    let new_res = m.op(new).results()[0];
    let (c, out) = conversion(m, new_res, old_ty, InsertPoint::Before(op), loc);
    m.replace_op(op, &[out]);
    c
}

/// The input of a conversion op.
fn conv_input(m: &Module, c: OpId) -> Option<ValueId> {
    m.op(c).operand(0)
}

/// The output of a conversion op.
fn conv_output(m: &Module, c: OpId) -> Option<ValueId> {
    m.op(c).result(0)
}

/// `replaceAndPropagateMemRefType(from, to)` (see the module docs).
pub fn replace_and_propagate(
    m: &mut Module,
    from: ValueId,
    to: ValueId,
    loc: Location,
    failures: &mut Failures,
) {
    let Some(at) = after_value(m, to) else { return };
    let from_ty = m.value_type(from).clone();
    let (first, out) = conversion(m, to, from_ty, at, loc);
    m.replace_all_uses(from, out);
    let mut list = vec![first];
    let mut i = 0;
    while i < list.len() {
        let c = list[i];
        i += 1;
        if m.op(c).is_erased() {
            continue;
        }
        let Some(out) = conv_output(m, c) else {
            continue;
        };
        for u in m.uses(out).to_vec() {
            let user = u.op;
            if m.op(user).is_erased() || m.op(user).operand(u.index as usize) != Some(out) {
                continue;
            }
            match push_past(m, c, user, u.index as usize) {
                Ok(new) => list.extend(new.into_iter().filter(|&n| n != c)),
                Err(()) => {
                    failures.convs.insert(c);
                    failures.users.insert(user);
                }
            }
        }
    }
    for c in list {
        if !m.op(c).is_erased() && conv_output(m, c).is_some_and(|o| !m.has_uses(o)) {
            m.erase_op(c);
        }
    }
}

/// Pushes conversion `c` past `user` (which reads it as operand `index`);
/// returns the conversions created (or `c` when it stays).
fn push_past(m: &mut Module, c: OpId, user: OpId, index: usize) -> Result<Vec<OpId>, ()> {
    let name = m.op(user).name().to_string();
    match name.as_str() {
        "memref.subview" => subview(m, c, user).map(|n| vec![n]),
        "memref.collapse_shape" => collapse(m, c, user),
        "memref.expand_shape" => expand(m, c, user).map(|n| vec![n]),
        "memref.reshape" => reshape(m, c, user),
        "memref.cast" => cast(m, c, user),
        "hivm.hir.bitcast" => bitcast(m, c, user),
        CONVERSION => {
            let (Some(input), Some(res)) = (conv_input(m, c), m.op(user).result(0)) else {
                return Err(());
            };
            if m.value_type(input) != m.value_type(res) || m.op(user).results().len() != 1 {
                return Err(());
            }
            m.replace_all_uses(res, input);
            Ok(Vec::new())
        }
        _ => match flow_kind(&name) {
            Some(FlowKind::For) if index >= 3 => scf_for(m, c, user, index - 3),
            Some(FlowKind::Yield) => yield_op(m, c, user, index),
            Some(FlowKind::ScopeReturn) => scope_return(m, c, user, index),
            Some(FlowKind::Call) => call(m, c, user),
            _ => default(m, c, user),
        },
    }
}

/// `propagateSubViewOp`.
fn subview(m: &mut Module, c: OpId, op: OpId) -> Result<OpId, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let parts = m.slice_parts(op).ok_or(())?;
    let old_res = m.op(op).result(0).ok_or(())?;
    let old_ty = m.value_type(old_res).clone();
    let src_ty = m.value_type(input).as_memref().ok_or(())?.clone();
    let shape = old_ty.shape().ok_or(())?.to_vec();
    let new_ty = infer_rank_reduced_subview_type(
        &shape,
        &src_ty,
        &parts.offsets,
        &parts.sizes,
        &parts.strides,
    )
    .ok_or(())?;
    let loc = m.op(op).loc;
    let spec = m.subview_spec(
        input,
        &parts.offsets,
        &parts.sizes,
        &parts.strides,
        Type::MemRef(new_ty),
        loc,
    );
    let sv = m.build(spec, InsertPoint::Before(op));
    Ok(replace_with_conversion(m, op, sv, old_ty, loc))
}

/// `propagateCollapseShapeOp`.
fn collapse(m: &mut Module, c: OpId, op: OpId) -> Result<Vec<OpId>, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let bad = m.value_type(input).as_memref().ok_or(())?.clone();
    let re: Vec<Vec<usize>> = m
        .reassociation(op)
        .ok_or(())?
        .into_iter()
        .map(|g| g.into_iter().map(|d| d as usize).collect())
        .collect();
    if !layout_is_identity(&bad) && collapsed_layout(&bad, &re, false).is_none() {
        return Err(());
    }
    let collapsed = collapse_type(&bad, &re);
    let old_res = m.op(op).result(0).ok_or(())?;
    let old_ty = m.value_type(old_res).clone();
    let loc = m.op(op).loc;
    let new_op = build_collapse(
        m,
        input,
        &re,
        collapsed.clone(),
        InsertPoint::Before(op),
        loc,
    );
    if Type::MemRef(collapsed) == old_ty {
        let new_res = m.op(new_op).results()[0];
        m.replace_op(op, &[new_res]);
        return Ok(vec![c]);
    }
    Ok(vec![replace_with_conversion(m, op, new_op, old_ty, loc)])
}

/// Builds `memref.collapse_shape %src [re] : .. into ty`.
fn build_collapse(
    m: &mut Module,
    src: ValueId,
    re: &[Vec<usize>],
    ty: MemRefType,
    at: InsertPoint,
    loc: Location,
) -> OpId {
    let spec = OpSpec::new("memref.collapse_shape", loc)
        .operands([src])
        .results([Type::MemRef(ty)])
        .attr("reassociation", reassociation_attr(re));
    m.build(spec, at)
}

/// Builds `memref.expand_shape %src [re] output_shape [..] : .. into ty`
/// (dynamic output sizes from `dyn_sizes`).
fn build_expand(
    m: &mut Module,
    src: ValueId,
    re: &[Vec<usize>],
    ty: MemRefType,
    dyn_sizes: &[ValueId],
    at: InsertPoint,
    loc: Location,
) -> OpId {
    let shape = ty.shape.clone();
    let spec = OpSpec::new("memref.expand_shape", loc)
        .operands(std::iter::once(src).chain(dyn_sizes.iter().copied()))
        .results([Type::MemRef(ty)])
        .attr("reassociation", reassociation_attr(re))
        .attr("static_output_shape", Attribute::dense_i64(shape))
        .segments(vec![1, dyn_sizes.len() as u32]);
    m.build(spec, at)
}

fn reassociation_attr(re: &[Vec<usize>]) -> Attribute {
    Attribute::Array(
        re.iter()
            .map(|g| Attribute::Array(g.iter().map(|&d| Attribute::i64(d as i64)).collect()))
            .collect(),
    )
}

/// `propagateExpandShapeOp`.
fn expand(m: &mut Module, c: OpId, op: OpId) -> Result<OpId, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let src = m.value_type(input).as_memref().ok_or(())?.clone();
    let old_res = m.op(op).result(0).ok_or(())?;
    let old_ty = m.value_type(old_res).clone();
    let shape = old_ty.shape().ok_or(())?.to_vec();
    let re: Vec<Vec<usize>> = m
        .reassociation(op)
        .ok_or(())?
        .into_iter()
        .map(|g| g.into_iter().map(|d| d as usize).collect())
        .collect();
    let ty = expanded_type(&src, &shape, &re).ok_or(())?;
    let dyn_sizes = m.op(op).segment(1).to_vec();
    let loc = m.op(op).loc;
    let new_op = build_expand(m, input, &re, ty, &dyn_sizes, InsertPoint::Before(op), loc);
    Ok(replace_with_conversion(m, op, new_op, old_ty, loc))
}

/// `propagateReshapeOp`: a collapse or an expansion of the new value.
fn reshape(m: &mut Module, c: OpId, op: OpId) -> Result<Vec<OpId>, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let new_src = m.value_type(input).as_memref().ok_or(())?.clone();
    let src = m.op(op).operand(0).ok_or(())?;
    let res = m.op(op).result(0).ok_or(())?;
    let orig_src = m.value_type(src).as_memref().ok_or(())?.clone();
    let orig_dst = m.value_type(res).as_memref().ok_or(())?.clone();
    let re = reshape_reassociation(&orig_src, &orig_dst).ok_or(())?;
    let loc = m.op(op).loc;
    let at = InsertPoint::Before(op);
    let new_op = if orig_src.rank() > orig_dst.rank() {
        let ty = collapse_type(&new_src, &re);
        build_collapse(m, input, &re, ty, at, loc)
    } else {
        let ty = expanded_type(&new_src, &orig_dst.shape, &re).ok_or(())?;
        build_expand(m, input, &re, ty, &[], at, loc)
    };
    Ok(vec![replace_with_conversion(
        m,
        op,
        new_op,
        Type::MemRef(orig_dst),
        loc,
    )])
}

/// `propagateCastOp`.
fn cast(m: &mut Module, c: OpId, op: OpId) -> Result<Vec<OpId>, ()> {
    let res = m.op(op).result(0).ok_or(())?;
    if m.users(res).into_iter().all(|u| m.op(u).is(MARK_OP)) {
        return Ok(vec![c]);
    }
    let input = conv_input(m, c).ok_or(())?;
    let dst = m.value_type(res).as_memref().ok_or(())?.clone();
    let src = m.value_type(input).as_memref().ok_or(())?.clone();
    if !cast_compatible(&src, &dst) {
        return Err(());
    }
    let loc = m.op(op).loc;
    let mut spec = OpSpec::new("memref.cast", loc);
    spec.operands = vec![input];
    spec.result_types = vec![Type::MemRef(dst)];
    let new = m.build(spec, InsertPoint::Before(op));
    let new_res = m.op(new).results()[0];
    m.replace_all_uses(res, new_res);
    Ok(vec![c])
}

/// `propagateBitcastOp`.
fn bitcast(m: &mut Module, c: OpId, op: OpId) -> Result<Vec<OpId>, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let res = m.op(op).result(0).ok_or(())?;
    let old_ty = m.value_type(res).clone();
    let elem = old_ty.element_type().ok_or(())?.clone();
    let src = m.value_type(input).as_memref().ok_or(())?.clone();
    let new_ty = MemRefType {
        elem: Box::new(elem),
        ..src
    };
    let loc = m.op(op).loc;
    let mut spec = OpSpec::new("hivm.hir.bitcast", loc);
    spec.operands = vec![input];
    spec.result_types = vec![Type::MemRef(new_ty)];
    spec.syntax = m.op(op).syntax.clone();
    spec.segments = m.op(op).segments.clone();
    let new = m.build(spec, InsertPoint::Before(op));
    Ok(vec![replace_with_conversion(m, op, new, old_ty, loc)])
}

/// `propagateScfForOp` for init `j`.
fn scf_for(m: &mut Module, c: OpId, op: OpId, j: usize) -> Result<Vec<OpId>, ()> {
    let input = conv_input(m, c).ok_or(())?;
    let orig = m.value_type(conv_output(m, c).ok_or(())?).clone();
    let new = m.value_type(input).clone();
    let parts = m.for_parts(op).ok_or(())?;
    let (&res, &arg) = (
        parts.results.get(j).ok_or(())?,
        parts.iter_args.get(j).ok_or(())?,
    );
    m.set_operand(op, 3 + j, input);
    m.set_type(arg, new.clone());
    m.set_type(res, new.clone());
    let loc = m.op(op).loc;
    let (rc, rc_out) = conversion(m, res, orig.clone(), InsertPoint::After(op), loc);
    m.replace_all_uses_except(res, rc_out, rc);
    let (ic, ic_out) = conversion(m, arg, orig, InsertPoint::BlockStart(parts.body), loc);
    m.replace_all_uses_except(arg, ic_out, ic);
    if let Some(y) = m.for_parts(op).and_then(|p| p.yield_op) {
        if let Some(yv) = m.op(y).operand(j) {
            let (_, yc_out) = conversion(m, yv, new, InsertPoint::Before(y), loc);
            m.set_operand(y, j, yc_out);
        }
    }
    Ok(vec![rc, ic])
}

/// `propagateYieldOp`.
fn yield_op(m: &mut Module, c: OpId, y: OpId, index: usize) -> Result<Vec<OpId>, ()> {
    let Some(parent) = m.parent_op(y) else {
        return Ok(Vec::new());
    };
    match flow_kind(m.op(parent).name()) {
        Some(FlowKind::If) => scf_if(m, parent, index),
        Some(FlowKind::For) => for_yield(m, c, parent, index),
        Some(FlowKind::While) => Err(()),
        _ => Ok(Vec::new()),
    }
}

/// `propagateScfIfOp`: once both branches yield conversions from the same
/// type, they yield the new values and the result is retyped.
fn scf_if(m: &mut Module, if_op: OpId, index: usize) -> Result<Vec<OpId>, ()> {
    let yields: Vec<OpId> = m
        .op(if_op)
        .regions()
        .iter()
        .filter_map(|&r| m.region_blocks(r).first().copied())
        .filter_map(|b| m.last_op(b))
        .collect();
    if yields.len() != 2 {
        return Ok(Vec::new());
    }
    let src_of = |m: &Module, y: OpId| -> Option<ValueId> {
        let v = m.op(y).operand(index)?;
        let d = m.defining_op(v)?;
        m.op(d).is(CONVERSION).then(|| m.op(d).operand(0)).flatten()
    };
    let (Some(a), Some(b)) = (src_of(m, yields[0]), src_of(m, yields[1])) else {
        return Ok(Vec::new());
    };
    if m.value_type(a) != m.value_type(b) {
        return Ok(Vec::new());
    }
    m.set_operand(yields[0], index, a);
    m.set_operand(yields[1], index, b);
    let res = m.op(if_op).result(index).ok_or(())?;
    let orig = m.value_type(res).clone();
    m.set_type(res, m.value_type(a).clone());
    let loc = m.op(if_op).loc;
    let (rc, out) = conversion(m, res, orig, InsertPoint::After(if_op), loc);
    m.replace_all_uses_except(res, out, rc);
    Ok(vec![rc])
}

/// `propagateScfForYieldOp`.
fn for_yield(m: &mut Module, c: OpId, for_op: OpId, index: usize) -> Result<Vec<OpId>, ()> {
    let parts = m.for_parts(for_op).ok_or(())?;
    if index >= parts.results.len() {
        return Err(());
    }
    let orig = m.value_type(conv_output(m, c).ok_or(())?).clone();
    let aligned = conv_input(m, c).ok_or(())?;
    let new = m.value_type(aligned).clone();
    if new.as_memref().is_none() {
        return Err(());
    }
    let (res, arg, init) = (
        parts.results[index],
        parts.iter_args[index],
        parts.inits[index],
    );
    if *m.value_type(res) != orig || *m.value_type(arg) != orig {
        return Err(());
    }
    if m.has_uses(arg) {
        return Err(());
    }
    let yield_op = parts.yield_op.ok_or(())?;
    let mut new_init = init;
    if *m.value_type(init) != new {
        let init_conv = m.defining_op(init).filter(|&d| {
            m.op(d).is(CONVERSION) && m.op(d).operands().len() == m.op(d).results().len()
        });
        match init_conv {
            Some(d) => {
                let k = m
                    .op(d)
                    .results()
                    .iter()
                    .position(|&r| r == init)
                    .ok_or(())?;
                let src = m.op(d).operands()[k];
                if *m.value_type(src) != new {
                    return Err(());
                }
                new_init = src;
            }
            None => {
                // Plain init: the loop keeps its types; the aligned value
                // is copied into a buffer of the original type before the
                // yield, and the init's alignment goes.
                let loc = m.op(for_op).loc;
                let dst = empty_like(m, &orig, InsertPoint::Before(yield_op), loc).ok_or(())?;
                let copy = m.structured_spec(COPY_OP, &[aligned], &[dst], loc);
                m.build(copy, InsertPoint::Before(yield_op));
                m.set_operand(yield_op, index, dst);
                strip_align(m, init);
                strip_align(m, arg);
                return Ok(Vec::new());
            }
        }
    }
    m.set_operand(for_op, 3 + index, new_init);
    m.set_type(arg, new.clone());
    m.set_type(res, new);
    let loc = m.op(for_op).loc;
    let (rc, out) = conversion(m, res, orig, InsertPoint::After(for_op), loc);
    m.replace_all_uses_except(res, out, rc);
    m.set_operand(yield_op, index, aligned);
    Ok(Vec::new())
}

/// Drops the alignment attributes of `v`'s definition and its alignment
/// marks (the `stripAlignMarks` of `propagateScfForYieldOp`).
fn strip_align(m: &mut Module, v: ValueId) {
    use super::op_table::attrs;
    if let Some(d) = m.defining_op(v) {
        for a in [
            attrs::DIMS,
            attrs::BYTES,
            attrs::ALLOC_DIMS,
            attrs::ALLOC_BYTES,
        ] {
            m.remove_attr(d, a);
        }
    }
    for u in m.users(v) {
        if m.op(u).is(MARK_OP)
            && (m.op(u).has_attr(attrs::DIMS) || m.op(u).has_attr(attrs::ALLOC_DIMS))
        {
            m.erase_op(u);
        }
    }
}

/// `propagateScopeReturnOp`.
fn scope_return(m: &mut Module, c: OpId, ret: OpId, index: usize) -> Result<Vec<OpId>, ()> {
    let scope = m.parent_op(ret).ok_or(())?;
    let aligned = conv_input(m, c).ok_or(())?;
    let orig = m.value_type(conv_output(m, c).ok_or(())?).clone();
    m.set_operand(ret, index, aligned);
    let res = m.op(scope).result(index).ok_or(())?;
    m.set_type(res, m.value_type(aligned).clone());
    let loc = m.op(scope).loc;
    let (rc, out) = conversion(m, res, orig, InsertPoint::After(scope), loc);
    m.replace_all_uses_except(res, out, rc);
    Ok(vec![rc])
}

/// `propagateFuncCallOp`: the callee takes the new type and the conversion
/// moves into it.
fn call(m: &mut Module, c: OpId, call: OpId) -> Result<Vec<OpId>, ()> {
    let callee = callee_of(m, call).ok_or(())?;
    let out = conv_output(m, c).ok_or(())?;
    let idx = m
        .op(call)
        .operands()
        .iter()
        .position(|&o| o == out)
        .ok_or(())?;
    let input = conv_input(m, c).ok_or(())?;
    m.set_operand(call, idx, input);
    let inputs: Vec<Type> = m
        .op(call)
        .operands()
        .iter()
        .map(|&v| m.value_type(v).clone())
        .collect();
    let results: Vec<Type> = m
        .op(call)
        .results()
        .iter()
        .map(|&v| m.value_type(v).clone())
        .collect();
    let old = m.func_type(callee).cloned().ok_or(())?;
    m.set_function_type(
        callee,
        FunctionType {
            inputs: inputs.clone(),
            results,
        },
    );
    let entry = m.func_body(callee).ok_or(())?;
    let args = m.block_args(entry).to_vec();
    for (a, t) in args.iter().zip(&inputs) {
        m.set_type(*a, t.clone());
    }
    let arg = *args.get(idx).ok_or(())?;
    let loc = m.first_op(entry).map_or(m.op(call).loc, |o| m.op(o).loc);
    let old_in = old.inputs.get(idx).cloned().ok_or(())?;
    let (ic, ic_out) = conversion(m, arg, old_in, InsertPoint::BlockStart(entry), loc);
    m.replace_all_uses_except(arg, ic_out, ic);
    let mut list = vec![ic];
    let mut i = 0;
    while i < list.len() {
        let conv = list[i];
        i += 1;
        let Some(o) = conv_output(m, conv) else {
            continue;
        };
        for user in m.users(o) {
            if m.op(user).is_erased() {
                continue;
            }
            let r = match m.op(user).name() {
                "memref.subview" => subview(m, conv, user).map(|n| vec![n]),
                "memref.expand_shape" => expand(m, conv, user).map(|n| vec![n]),
                _ => default(m, conv, user),
            };
            list.extend(r?.into_iter().filter(|&n| n != conv));
        }
    }
    for conv in list {
        if !m.op(conv).is_erased() && conv_output(m, conv).is_some_and(|o| !m.has_uses(o)) {
            m.erase_op(conv);
        }
    }
    Ok(vec![c])
}

/// `propagateDefaultOp`: the user reads the new value directly, unless it
/// produces memrefs or has memref block arguments.
fn default(m: &mut Module, c: OpId, user: OpId) -> Result<Vec<OpId>, ()> {
    let d = m.op(user);
    if d.results()
        .iter()
        .any(|&r| m.value_type(r).as_memref().is_some())
    {
        return Err(());
    }
    let block_memref = d.regions().iter().any(|&r| {
        m.region_blocks(r).iter().any(|&b| {
            m.block_args(b)
                .iter()
                .any(|&a| m.value_type(a).as_memref().is_some())
        })
    });
    if block_memref {
        return Err(());
    }
    let (Some(out), Some(input)) = (conv_output(m, c), conv_input(m, c)) else {
        return Err(());
    };
    for (i, v) in m.op(user).operands().to_vec().into_iter().enumerate() {
        if v == out {
            m.set_operand(user, i, input);
        }
    }
    Ok(vec![c])
}

/// `utils::createEmptyOp` for a memref: a `memref.alloc` of the type with
/// its layout dropped (static shapes only).
fn empty_like(m: &mut Module, ty: &Type, at: InsertPoint, loc: Location) -> Option<ValueId> {
    let t = ty.as_memref()?.with_layout(Layout::Identity);
    if !t.has_static_shape() {
        return None;
    }
    let spec = m.alloc_spec(t, &[], loc);
    let op = m.build(spec, at);
    Some(m.op(op).results()[0])
}

/// `handlePropagateFailure`: each failed user of a conversion reads a
/// dense copy made right before it (see the module docs); conversions left
/// unused are erased.
pub fn handle_propagate_failure(m: &mut Module, func: OpId, failures: &mut Failures) {
    let convs: Vec<OpId> = super::greedy::post_order(m, func)
        .into_iter()
        .filter(|c| failures.convs.contains(c))
        .collect();
    for c in convs {
        if m.op(c).is_erased() {
            continue;
        }
        let (Some(src), Some(dst)) = (conv_input(m, c), conv_output(m, c)) else {
            continue;
        };
        let loc = m.op(c).loc;
        let dst_ty = m.value_type(dst).clone();
        let write_src = write_ops(m, src);
        for u in m.uses(dst).to_vec() {
            if !failures.users.contains(&u.op) || m.op(u.op).operand(u.index as usize) != Some(dst)
            {
                continue;
            }
            let at = InsertPoint::Before(u.op);
            let Some(new_dst) = empty_like(m, &dst_ty, at, loc) else {
                continue;
            };
            let copy = m.structured_spec(COPY_OP, &[src], &[new_dst], loc);
            let new_copy = m.build(copy, at);
            m.set_operand(u.op, u.index as usize, new_dst);
            for w in write_ops(m, new_dst) {
                if w != new_copy && dominates(m, new_copy, w) {
                    let back = m.structured_spec(COPY_OP, &[new_dst], &[src], loc);
                    m.build(back, InsertPoint::After(w));
                }
            }
            for &w in &write_src {
                if dominates(m, new_copy, w) {
                    let refresh = m.structured_spec(COPY_OP, &[src], &[new_dst], loc);
                    m.build(refresh, InsertPoint::After(w));
                }
            }
        }
        if !m.has_uses(dst) {
            m.erase_op(c);
        }
    }
    failures.convs.clear();
    failures.users.clear();
}

/// `materializeRemainingStaticUBLayoutCasts` (regbase): unused conversions
/// go; a conversion between static UB memrefs of the same shape and
/// element becomes a `memref.alloc` of its result type filled by a copy.
pub fn materialize_remaining_casts(m: &mut Module, func: OpId) {
    let convs: Vec<OpId> = super::greedy::post_order(m, func)
        .into_iter()
        .filter(|&c| m.op(c).is(CONVERSION))
        .collect();
    for c in convs {
        if m.op(c).is_erased() {
            continue;
        }
        let d = m.op(c);
        if d.results().iter().all(|&r| !m.has_uses(r)) {
            m.erase_op(c);
            continue;
        }
        if d.operands().len() != 1 || d.results().len() != 1 {
            continue;
        }
        let (src, dst) = (d.operands()[0], d.results()[0]);
        let (Some(st), Some(dt)) = (
            m.value_type(src).as_memref().cloned(),
            m.value_type(dst).as_memref().cloned(),
        ) else {
            continue;
        };
        let ub = |t: &MemRefType| t.address_space() == Some(super::op_table::spaces::UB);
        if !ub(&st)
            || !ub(&dt)
            || st.shape != dt.shape
            || st.elem != dt.elem
            || !st.has_static_shape()
        {
            continue;
        }
        let loc = m.op(c).loc;
        let spec = m.alloc_spec(dt, &[], loc);
        let alloc = m.build(spec, InsertPoint::Before(c));
        let new_dst = m.op(alloc).results()[0];
        let copy = m.structured_spec(COPY_OP, &[src], &[new_dst], loc);
        m.build(copy, InsertPoint::Before(c));
        m.replace_all_uses(dst, new_dst);
        m.erase_op(c);
    }
}

/// The number of write effects `op` has on `v` (`getEffectsOnValue`):
/// one per DPS init slot of an HIVM structured op holding `v`, and the
/// written memref of stores and copies.
fn writes_on(m: &Module, op: OpId, v: ValueId) -> usize {
    let d = m.op(op);
    if let Some(s) = Structured::of(m, op) {
        return s
            .roles()
            .iter()
            .zip(d.operands())
            .filter(|(r, &o)| **r == Role::Init && o == v)
            .count();
    }
    let slot = match d.name() {
        "memref.store"
        | "memref.copy"
        | "vector.transfer_write"
        | "vector.store"
        | "affine.store" => 1,
        _ => return 0,
    };
    usize::from(d.operand(slot) == Some(v))
}

/// `findWriteOp(mem)`: the writes to `mem` — through views, calls that may
/// write the argument, and every use times every write effect on the
/// value — and, for a tightly coupled buffer, the block-sync wait that
/// hands over a Fixpipe's result.
pub fn write_ops(m: &Module, mem: ValueId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut work = vec![mem];
    while let Some(v) = work.pop() {
        for u in m.uses(v).to_vec() {
            let name = m.op(u.op).name();
            if is_view_like(name) {
                work.extend(m.op(u.op).results().iter().copied());
                continue;
            }
            if flow_kind(name) == Some(FlowKind::Call) {
                if call_may_write(m, u.op, u.index as usize, &mut HashSet::new()) {
                    out.push(u.op);
                }
                continue;
            }
            if name == MARK_OP {
                continue;
            }
            for _ in 0..writes_on(m, u.op, v) {
                out.push(u.op);
            }
        }
    }
    if let Some(def) = m.defining_op(mem) {
        if let Some(w) = coupled_wait(m, mem, def) {
            out.push(w);
        }
    }
    out
}

/// `getTightlyCoupledBufferId`: the id of the tightly coupled buffer mark
/// on `v` or on what it views.
fn coupled_id(m: &Module, v: ValueId) -> Option<String> {
    let mut work = vec![v];
    let mut seen = HashSet::new();
    while let Some(cur) = work.pop() {
        if !seen.insert(cur) {
            continue;
        }
        if let Some(mk) = super::marks::first_with(m, cur, super::op_table::attrs::TIGHTLY_COUPLED)
        {
            if let Some(Attribute::Dialect {
                params: Some(p), ..
            }) = m.attr(mk, super::op_table::attrs::TIGHTLY_COUPLED)
            {
                return Some(p.trim().to_string());
            }
        }
        if let Some(d) = m.defining_op(cur) {
            if is_view_like(m.op(d).name()) {
                if let Some(s) = m.op(d).operand(0) {
                    work.push(s);
                }
            }
        }
    }
    None
}

/// The `sync_block_wait` after `def` in its block that matches a
/// `sync_block_set` following a Fixpipe into the same tightly coupled
/// buffer (stopping at the block's end or at a `sync_block_set`).
fn coupled_wait(m: &Module, mem: ValueId, def: OpId) -> Option<OpId> {
    let id = coupled_id(m, mem)?;
    let mut sets = Vec::new();
    for op in m.all_ops() {
        if !m.op(op).is("hivm.hir.fixpipe") {
            continue;
        }
        let dst = m.op(op).group("outs").and_then(<[_]>::first).copied();
        if dst.and_then(|d| coupled_id(m, d)).as_deref() != Some(id.as_str()) {
            continue;
        }
        let mut cur = m.next_op(op);
        while let Some(o) = cur {
            if m.op(o).is("hivm.hir.sync_block_set") {
                sets.push(o);
                break;
            }
            if m.next_op(o).is_none() {
                break;
            }
            cur = m.next_op(o);
        }
    }
    let same = |a: OpId, b: OpId| {
        ["tpipe", "pipe", "static_flag_id"]
            .iter()
            .all(|k| m.attr(a, k) == m.attr(b, k))
            && m.op(a).group("dynamic_flag_id") == m.op(b).group("dynamic_flag_id")
    };
    let mut cur = m.next_op(def);
    while let Some(o) = cur {
        if m.op(o).is("hivm.hir.sync_block_wait") && sets.iter().any(|&s| same(s, o)) {
            return Some(o);
        }
        if m.next_op(o).is_none() || m.op(o).is("hivm.hir.sync_block_set") {
            break;
        }
        cur = m.next_op(o);
    }
    None
}

/// `callOperandMayBeWritten` / `mayWriteThroughFuncArg`.
fn call_may_write(m: &Module, call: OpId, index: usize, seen: &mut HashSet<ValueId>) -> bool {
    let Some(arg) = callee_of(m, call)
        .and_then(|f| m.func_body(f))
        .and_then(|b| m.block_args(b).get(index).copied())
    else {
        return true;
    };
    may_write_through(m, arg, seen)
}

fn may_write_through(m: &Module, v: ValueId, seen: &mut HashSet<ValueId>) -> bool {
    if !seen.insert(v) {
        return false;
    }
    for u in m.uses(v).to_vec() {
        let name = m.op(u.op).name();
        if is_view_like(name) {
            if m.op(u.op)
                .results()
                .to_vec()
                .into_iter()
                .any(|r| may_write_through(m, r, seen))
            {
                return true;
            }
        } else if flow_kind(name) == Some(FlowKind::Call) {
            if call_may_write(m, u.op, u.index as usize, seen) {
                return true;
            }
        } else if name != MARK_OP && writes_on(m, u.op, v) > 0 {
            return true;
        }
    }
    false
}

/// Whether `a` dominates `b` in structured control flow: `b` is `a`, or
/// `b` (or an op holding it) comes after `a` in `a`'s block.
fn dominates(m: &Module, a: OpId, b: OpId) -> bool {
    let block = m.op(a).parent_block();
    let mut cur = b;
    loop {
        if m.op(cur).parent_block() == block {
            if cur == a {
                return true;
            }
            let mut x = m.next_op(a);
            while let Some(o) = x {
                if o == cur {
                    return true;
                }
                x = m.next_op(o);
            }
            return false;
        }
        match m.parent_op(cur) {
            Some(p) => cur = p,
            None => return false,
        }
    }
}

/// `AlignUpOFR` over a shape: the sizes of `alloc`'s logical `shape`
/// (dynamic ones are the alloc's operands, in order) and the dynamic sizes
/// of the padded allocation, where a dynamic size whose unit is above 1 is
/// rounded at run time (`(n + u - 1) - (n + u - 1) rem u`, built before
/// `alloc` with its index constants; the greedy driver then moves those to
/// the top of the function). `None` when the alloc has fewer dynamic
/// operands than the shape needs.
pub fn align_up_sizes(
    m: &mut Module,
    alloc: OpId,
    shape: &[i64],
    units: &[i64],
) -> Option<(Vec<ValueId>, Vec<Ofr>)> {
    let loc = m.op(alloc).loc;
    let old_dyn: Vec<ValueId> = m.op(alloc).segment(0).to_vec();
    let mut it = old_dyn.iter().copied();
    let mut sizes = Vec::with_capacity(shape.len());
    let mut dyn_sizes = Vec::new();
    let at = InsertPoint::Before(alloc);
    for (d, &s) in shape.iter().enumerate() {
        if !crate::ir::is_dynamic(s) {
            sizes.push(Ofr::Static(s));
            continue;
        }
        let n = it.next()?;
        sizes.push(Ofr::Dynamic(n));
        let u = units.get(d).copied().unwrap_or(1);
        if u <= 1 {
            dyn_sizes.push(n);
            continue;
        }
        let c_minus = m.build_index_constant(u - 1, at, loc);
        let add = m.build_binary(super::op_table::arith::ADD, n, c_minus, at, loc);
        let c_unit = m.build_index_constant(u, at, loc);
        let rem = m.build_binary(super::op_table::arith::REM, add, c_unit, at, loc);
        let up = m.build_binary(super::op_table::arith::SUB, add, rem, at, loc);
        dyn_sizes.push(up);
    }
    Some((dyn_sizes, sizes))
}

/// Replaces `alloc` (a `memref.alloc`/`alloca`) by a new allocation of
/// `shape` (identity layout, dynamic sizes from `dyn_sizes`) and a
/// subview of `sizes` back to the old logical shape (`createAlignedValue`
/// / `EnableAlignAllocation`), then propagates the subview's type to the
/// users. Returns the subview result.
pub fn replace_alloc(
    m: &mut Module,
    alloc: OpId,
    shape: Vec<i64>,
    dyn_sizes: Vec<ValueId>,
    sizes: Vec<Ofr>,
    failures: &mut Failures,
) -> Option<ValueId> {
    let old_v = m.op(alloc).result(0)?;
    let old_ty = m.value_type(old_v).as_memref()?.clone();
    let loc = m.op(alloc).loc;
    let new_ty = MemRefType {
        shape: shape.clone(),
        elem: old_ty.elem.clone(),
        layout: Layout::Identity,
        memory_space: old_ty.memory_space.clone(),
    };
    let mut spec = m.alloc_spec(new_ty.clone(), &dyn_sizes, loc);
    spec.name = m.op(alloc).name().to_string();
    let new_alloc = m.build(spec, InsertPoint::Before(alloc));
    let new_v = m.op(new_alloc).results()[0];
    let zeros = vec![Ofr::Static(0); shape.len()];
    let ones = vec![Ofr::Static(1); shape.len()];
    let view_ty = infer_rank_reduced_subview_type(&old_ty.shape, &new_ty, &zeros, &sizes, &ones)?;
    let sv_spec = m.subview_spec(new_v, &zeros, &sizes, &ones, Type::MemRef(view_ty), loc);
    let sv = m.build(sv_spec, InsertPoint::Before(alloc));
    let view = m.op(sv).results()[0];
    replace_and_propagate(m, old_v, view, loc, failures);
    m.erase_op(alloc);
    Some(view)
}

/// `scaleBufferSizeMarks`: the `buffer_size_in_byte` marks on `v` scale
/// by `new / old` static volume, rounded up (only when it grew).
pub fn scale_buffer_size(m: &mut Module, v: ValueId, old_volume: i64, new_volume: i64) {
    if old_volume <= 0 || new_volume <= old_volume {
        return;
    }
    for mk in super::common::marks_of(m, v) {
        let Some(size) = m
            .attr(mk, super::op_table::attrs::BUFFER_SIZE)
            .and_then(Attribute::as_int)
        else {
            continue;
        };
        let scaled = (i128::from(size) * i128::from(new_volume) + i128::from(old_volume) - 1)
            / i128::from(old_volume);
        let scaled = i64::try_from(scaled).unwrap_or(i64::MAX);
        m.set_attr(
            mk,
            super::op_table::attrs::BUFFER_SIZE,
            Attribute::i64(scaled),
        );
    }
}
