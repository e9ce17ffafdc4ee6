//! Replacing an allocation by a padded one plus a subview, and carrying the
//! new memref type to every user (`replaceAndPropagateMemRefType` of
//! `PropagateAlignUtil.cpp`).
//!
//! Views get re-inferred result types, `scf.for` iter args and results,
//! `scf.if` results (when both branches yield the same new type,
//! `propagateScfIfOp`), `scope.scope` results and callee signatures follow.
//! A `memref.cast` keeps its result type (`propagateCastOp`); a padded
//! value yielded by an `scf.for` that keeps the dense type is copied
//! before the yield (`propagateScfForYieldOp`). A user that cannot take the
//! new layout (a view that cannot express it, a cast to an incompatible
//! layout, an op producing memrefs from it, an `scf.while`) is a
//! propagation failure. Failures are handled once every allocation has been replaced
//! (`handlePropagateFailure`): right before the user, a `memref.alloc` of
//! the old dense type is filled by `hivm.hir.copy` from the aligned buffer
//! and the user reads that; after every later op writing the dense copy
//! (through views or calls) it is copied back, and after every later op
//! writing the aligned buffer the dense copy is refreshed.
//!
//! An `scf.if` result whose branches end up with different types keeps its
//! type; the branch value is converted back where it is defined: on
//! regbase, for static UB memrefs of the same shape, by a `memref.alloc` of
//! the old type and a copy into it (`materializeRemainingStaticUBLayoutCasts`);
//! otherwise by a `builtin.unrealized_conversion_cast`, which stays in the
//! output as it does in MLIR.

use crate::ir::{
    Attribute, FunctionType, InsertPoint, Layout, Location, MemRefType, Module, Ofr, OpId, OpSpec,
    Type, ValueId,
};

use super::op_table::{flow_kind, hivm_syntax, view_kind, FlowKind, COPY_OP, MARK_OP};

/// A use that could not take the new type.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The using op.
    pub user: OpId,
    /// The operand number.
    pub index: usize,
    /// The dense type the user expects.
    pub dense: MemRefType,
}

/// Replaces `alloc` (a `memref.alloc`/`alloca`) with a new allocation of
/// `shape` (dynamic sizes from `dyn_sizes`, in order) and a subview of
/// `sizes` cut back to the old logical shape; propagates the subview's type
/// to all users. Returns the subview result.
pub fn replace_alloc(
    m: &mut Module,
    alloc: OpId,
    shape: Vec<i64>,
    dyn_sizes: Vec<ValueId>,
    sizes: Vec<Ofr>,
    branches: &mut Branches,
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
    // The replacement carries only its type and dynamic sizes, as
    // `rewriter.create<AllocLikeOp>(loc, alignedTy, dynSizes)` builds it:
    // attributes of the old allocation are not copied.
    let mut spec = m.alloc_spec(new_ty, &dyn_sizes, loc);
    spec.name = m.op(alloc).name().to_string();
    let new_alloc = m.build(spec, InsertPoint::Before(alloc));
    let new_v = m.op(new_alloc).results()[0];
    let strides = crate::ir::identity_strides(&shape);
    let kept: Vec<i64> = strides[..old_ty.rank()].to_vec();
    let view_ty = old_ty.with_layout(Layout::Strided {
        strides: kept,
        offset: 0,
    });
    let zeros = vec![Ofr::Static(0); shape.len()];
    let ones = vec![Ofr::Static(1); shape.len()];
    let sv_spec = m.subview_spec(new_v, &zeros, &sizes, &ones, Type::MemRef(view_ty), loc);
    let sv = m.build(sv_spec, InsertPoint::After(new_alloc));
    let view = m.op(sv).results()[0];
    m.replace_all_uses(old_v, view);
    m.erase_op(alloc);
    let mut ctx = Ctx::default();
    propagate(m, view, &old_ty, &mut ctx, 0);
    branches.pending.extend(ctx.pending_ifs);
    branches
        .failures
        .extend(ctx.failures.into_iter().map(|f| (f, loc)));
    branches.casts_back.extend(ctx.casts_back);
    Some(view)
}

/// `AlignUpOFR` over a shape: the sizes of `alloc`'s logical `shape`
/// (dynamic ones are the alloc's operands, in order) and the dynamic sizes
/// of the padded allocation, where a dynamic size whose unit is above 1 is
/// rounded at run time (`(n + u - 1) - (n + u - 1) rem u`, the arithmetic
/// built before `alloc`, the index constants `u - 1` and `u` materialised
/// once at the top of the function). `None` when the alloc has fewer dynamic operands than the
/// shape needs.
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
        // The C++ creates both constants before `alloc`, but it runs under
        // the greedy rewrite driver, whose folder moves each constant to
        // the top of the function and reuses an equal one already there.
        let c_minus = m.constant_at_function_top(alloc, u - 1, Type::Index, loc);
        let c_unit = m.constant_at_function_top(alloc, u, Type::Index, loc);
        let add = m.build_binary(super::op_table::arith::ADD, n, c_minus, at, loc);
        let rem = m.build_binary(super::op_table::arith::REM, add, c_unit, at, loc);
        let up = m.build_binary(super::op_table::arith::SUB, add, rem, at, loc);
        dyn_sizes.push(up);
    }
    Some((dyn_sizes, sizes))
}

/// `scf.if` results whose branches were retyped one at a time: they are
/// settled once every allocation has been replaced.
#[derive(Default)]
pub struct Branches {
    pending: Vec<(OpId, usize)>,
    failures: Vec<(Failure, Location)>,
    casts_back: Vec<(OpId, ValueId, MemRefType)>,
    /// Whether the target is regbase (decides how a branch value is
    /// converted back).
    regbase: bool,
}

impl Branches {
    /// Nothing pending yet, for a regbase or membase target.
    pub fn new(regbase: bool) -> Branches {
        Branches {
            regbase,
            ..Branches::default()
        }
    }

    /// Retypes each pending `scf.if` result when both branches now yield
    /// the same type; otherwise converts the differing branch values back
    /// (see the module docs). Then handles the propagation failures.
    pub fn settle(self, m: &mut Module) {
        let regbase = self.regbase;
        let mut failures = self.failures;
        let mut seen = std::collections::HashSet::new();
        for (if_op, index) in self.pending {
            if !seen.insert((if_op, index)) || m.op(if_op).is_erased() {
                continue;
            }
            let Some(r) = m.op(if_op).result(index) else {
                continue;
            };
            let Some(rt) = m.value_type(r).as_memref().cloned() else {
                continue;
            };
            let yields = branch_yields(m, if_op);
            let types: Vec<Option<Type>> = yields
                .iter()
                .map(|y| y.operand(m, index).map(|v| m.value_type(v).clone()))
                .collect();
            let loc = m.op(if_op).loc;
            let mut ctx = Ctx::default();
            match types.first() {
                Some(Some(Type::MemRef(t0)))
                    if types
                        .iter()
                        .all(|t| t.as_ref() == Some(&Type::MemRef(t0.clone()))) =>
                {
                    let t0 = t0.clone();
                    retype_value(m, r, &t0, &mut ctx, 0);
                }
                _ => {
                    for y in &yields {
                        let Some(v) = y.operand(m, index) else {
                            continue;
                        };
                        if m.value_type(v) != &Type::MemRef(rt.clone()) {
                            let back = convert_back(m, v, &rt, regbase, loc);
                            m.set_operand(y.0, index, back);
                        }
                    }
                }
            }
            failures.extend(ctx.failures.into_iter().map(|f| (f, loc)));
        }
        for (cast, v, old) in self.casts_back {
            if m.op(cast).is_erased() || m.op(cast).operand(0) != Some(v) {
                continue;
            }
            let loc = m.op(cast).loc;
            let back = convert_back(m, v, &old, regbase, loc);
            m.set_operand(cast, 0, back);
        }
        for (f, loc) in failures {
            mirror(m, f, loc);
        }
    }
}

/// A value of type `old` standing for the aligned `v`, defined right after
/// `v`: on regbase a copy into a new `memref.alloc` when both are static
/// UB memrefs of the same shape and element
/// (`materializeRemainingStaticUBLayoutCasts`), otherwise a
/// `builtin.unrealized_conversion_cast`.
fn convert_back(
    m: &mut Module,
    v: ValueId,
    old: &MemRefType,
    regbase: bool,
    loc: Location,
) -> ValueId {
    let Some(at) = super::common::after_value(m, v) else {
        return v;
    };
    let new_ty = m.value_type(v).as_memref().cloned();
    let materialize = regbase
        && new_ty.as_ref().is_some_and(|t| {
            super::common::is_ub(t)
                && super::common::is_ub(old)
                && t.shape == old.shape
                && t.elem == old.elem
                && t.has_static_shape()
        });
    if materialize {
        let spec = m.alloc_spec(old.clone(), &[], loc);
        let alloc = m.build(spec, at);
        let dst = m.op(alloc).results()[0];
        let copy = m.structured_spec(COPY_OP, &[v], &[dst], loc);
        m.build(copy, InsertPoint::After(alloc));
        return dst;
    }
    let mut spec = OpSpec::new("builtin.unrealized_conversion_cast", loc);
    spec.operands = vec![v];
    spec.result_types = vec![Type::MemRef(old.clone())];
    let cast = m.build(spec, at);
    m.op(cast).results()[0]
}

/// What a propagation collects: uses that failed, and branches to settle.
#[derive(Default)]
struct Ctx {
    failures: Vec<Failure>,
    /// `memref.cast` ops that read the padded value converted back.
    casts_back: Vec<(OpId, ValueId, MemRefType)>,
    pending_ifs: Vec<(OpId, usize)>,
}

/// Carries the type of `v` (which used to be `old`) to its users.
fn propagate(m: &mut Module, v: ValueId, old: &MemRefType, ctx: &mut Ctx, depth: u32) {
    if depth > 256 {
        return;
    }
    let Some(ty) = m.value_type(v).as_memref().cloned() else {
        return;
    };
    for u in m.uses(v).to_vec() {
        let op = u.op;
        let index = u.index as usize;
        let name = m.op(op).name().to_string();
        if name == MEMREF_CAST && index == 0 {
            memref_cast(m, op, v, &ty, old, ctx);
            continue;
        }
        if let Some(kind) = view_kind(&name) {
            if index != 0 {
                continue;
            }
            let Some(res) = m.op(op).result(0) else {
                continue;
            };
            let Some(res_old) = m.value_type(res).as_memref().cloned() else {
                continue;
            };
            match super::view_maps::retyped_result(m, op, kind, &ty) {
                Some(t) if t == res_old => {}
                Some(t) => {
                    m.set_type(res, Type::MemRef(t));
                    propagate(m, res, &res_old, ctx, depth + 1);
                }
                None => ctx.failures.push(Failure {
                    user: op,
                    index,
                    dense: dense_of(old),
                }),
            }
            continue;
        }
        match flow_kind(&name) {
            Some(FlowKind::For) => {
                let Some(parts) = m.for_parts(op) else {
                    continue;
                };
                if index < 3 {
                    continue;
                }
                let j = index - 3;
                for w in [parts.iter_args.get(j), parts.results.get(j)]
                    .into_iter()
                    .flatten()
                    .copied()
                {
                    retype_value(m, w, &ty, ctx, depth);
                }
            }
            Some(FlowKind::Yield) | Some(FlowKind::ScopeReturn) => {
                let Some(parent) = m.parent_op(op) else {
                    continue;
                };
                match flow_kind(m.op(parent).name()) {
                    Some(FlowKind::If) => {
                        let agree = branch_yields(m, parent).iter().all(|y| {
                            y.operand(m, index)
                                .is_some_and(|o| m.value_type(o) == &Type::MemRef(ty.clone()))
                        });
                        if agree {
                            if let Some(r) = m.op(parent).result(index) {
                                retype_value(m, r, &ty, ctx, depth);
                            }
                        } else {
                            // The other branch may still be padded later.
                            ctx.pending_ifs.push((parent, index));
                        }
                    }
                    Some(FlowKind::Scope) => {
                        if let Some(r) = m.op(parent).result(index) {
                            retype_value(m, r, &ty, ctx, depth);
                        }
                    }
                    Some(FlowKind::For) => for_yield(m, op, parent, index, &ty, old, ctx, depth),
                    _ => {}
                }
            }
            Some(FlowKind::Call) => {
                let Some(callee) = super::common::callee_of(m, op) else {
                    continue;
                };
                let Some(mut fty) = m.func_type(callee).cloned() else {
                    continue;
                };
                if fty.inputs.get(index) == Some(&Type::MemRef(ty.clone())) {
                    continue;
                }
                if index >= fty.inputs.len() {
                    continue;
                }
                fty.inputs[index] = Type::MemRef(ty.clone());
                let arg = m
                    .func_body(callee)
                    .and_then(|b| m.block_args(b).get(index).copied());
                let arg_old = arg.and_then(|a| m.value_type(a).as_memref().cloned());
                m.set_function_type(callee, FunctionType { ..fty });
                if let (Some(a), Some(o)) = (arg, arg_old) {
                    propagate(m, a, &o, ctx, depth + 1);
                }
            }
            Some(FlowKind::While) => ctx.failures.push(Failure {
                user: op,
                index,
                dense: dense_of(old),
            }),
            _ => {
                if name == MARK_OP {
                    continue;
                }
                let makes_memrefs = m
                    .op(op)
                    .results()
                    .iter()
                    .any(|&r| m.value_type(r).is_memref_like());
                if makes_memrefs {
                    ctx.failures.push(Failure {
                        user: op,
                        index,
                        dense: dense_of(old),
                    });
                }
            }
        }
    }
}

/// `memref.cast`.
const MEMREF_CAST: &str = "memref.cast";

/// `propagateCastOp`: a `memref.cast` keeps its result type. If only marks
/// use its result (or nothing does), it reads the padded value converted
/// back (see [`convert_back`]); if the padded type casts to its result type
/// (`areCastCompatible`), it reads the padded value directly; otherwise it
/// is a propagation failure.
fn memref_cast(
    m: &mut Module,
    op: OpId,
    v: ValueId,
    ty: &MemRefType,
    old: &MemRefType,
    ctx: &mut Ctx,
) {
    let Some(res) = m.op(op).result(0) else {
        return;
    };
    let Some(res_ty) = m.value_type(res).as_memref().cloned() else {
        return;
    };
    let only_marks = m.users(res).into_iter().all(|u| m.op(u).is(MARK_OP));
    if only_marks {
        ctx.casts_back.push((op, v, old.clone()));
    } else if !cast_compatible(ty, &res_ty) {
        ctx.failures.push(Failure {
            user: op,
            index: 0,
            dense: dense_of(old),
        });
    }
}

/// `memref::CastOp::areCastCompatible` for ranked memrefs: same element,
/// space and rank; sizes, strides and offsets equal wherever both are
/// static.
fn cast_compatible(a: &MemRefType, b: &MemRefType) -> bool {
    let agree = |x: i64, y: i64| x == y || crate::ir::is_dynamic(x) || crate::ir::is_dynamic(y);
    let (Some((sa, oa)), Some((sb, ob))) = (a.strides_and_offset(), b.strides_and_offset()) else {
        return false;
    };
    a.elem == b.elem
        && a.memory_space == b.memory_space
        && a.rank() == b.rank()
        && a.shape.iter().zip(&b.shape).all(|(&x, &y)| agree(x, y))
        && sa.iter().zip(&sb).all(|(&x, &y)| agree(x, y))
        && agree(oa, ob)
}

/// `propagateScfForYieldOp`: a padded value yielded by an `scf.for` body.
/// Nothing to do when the loop already carries the new type. When the
/// loop still carries the old type: with an unused iter arg and an init of
/// the new type the loop is retyped; otherwise the yield is a propagation
/// failure and yields a dense copy made right before it.
#[allow(clippy::too_many_arguments)]
fn for_yield(
    m: &mut Module,
    yield_op: OpId,
    for_op: OpId,
    index: usize,
    ty: &MemRefType,
    old: &MemRefType,
    ctx: &mut Ctx,
    depth: u32,
) {
    let Some(parts) = m.for_parts(for_op) else {
        return;
    };
    let (Some(&res), Some(&arg), Some(&init)) = (
        parts.results.get(index),
        parts.iter_args.get(index),
        parts.inits.get(index),
    ) else {
        return;
    };
    let new_ty = Type::MemRef(ty.clone());
    if m.value_type(res) == &new_ty {
        return;
    }
    let old_ty = Type::MemRef(old.clone());
    if m.value_type(res) != &old_ty || m.value_type(arg) != &old_ty {
        return;
    }
    if m.uses(arg).is_empty() && m.value_type(init) == &new_ty {
        retype_value(m, arg, ty, ctx, depth);
        retype_value(m, res, ty, ctx, depth);
        return;
    }
    ctx.failures.push(Failure {
        user: yield_op,
        index,
        dense: dense_of(old),
    });
}

/// Gives `w` the type `ty` and propagates further when it changed.
fn retype_value(m: &mut Module, w: ValueId, ty: &MemRefType, ctx: &mut Ctx, depth: u32) {
    let Some(old) = m.value_type(w).as_memref().cloned() else {
        return;
    };
    if &old == ty {
        return;
    }
    m.set_type(w, Type::MemRef(ty.clone()));
    propagate(m, w, &old, ctx, depth + 1);
}

/// The `scf.yield` terminators of both branches of an `scf.if`.
fn branch_yields(m: &Module, if_op: OpId) -> Vec<YieldRef> {
    m.op(if_op)
        .regions()
        .iter()
        .filter_map(|&r| m.region_blocks(r).first().copied())
        .filter_map(|b| m.last_op(b))
        .map(YieldRef)
        .collect()
}

struct YieldRef(OpId);

impl YieldRef {
    fn operand(&self, m: &Module, i: usize) -> Option<ValueId> {
        m.op(self.0).operand(i)
    }
}

/// The dense (identity layout) version of a type.
fn dense_of(t: &MemRefType) -> MemRefType {
    t.with_layout(Layout::Identity)
}

/// `handlePropagateFailure` for one failed use: a dense copy of the aligned
/// buffer made right before the user, copied back after each later write
/// to it and refreshed after each later write to the aligned buffer.
fn mirror(m: &mut Module, f: Failure, loc: Location) {
    if !f.dense.has_static_shape() || m.op(f.user).is_erased() {
        return;
    }
    let Some(src) = m.op(f.user).operand(f.index) else {
        return;
    };
    // MLIR's failed user reads the cast back to the old type, not the
    // aligned value: writes through it are not writes to the aligned value.
    let write_src: Vec<OpId> = write_ops_except(m, src, Some((f.user, f.index)));
    let at = InsertPoint::Before(f.user);
    let spec = m.alloc_spec(f.dense.clone(), &[], loc);
    let mirror_alloc = m.build(spec, at);
    let mirror_v = m.op(mirror_alloc).results()[0];
    let copy_in = m.structured_spec(COPY_OP, &[src], &[mirror_v], loc);
    let new_copy = m.build(copy_in, at);
    m.set_operand(f.user, f.index, mirror_v);
    for w in write_ops(m, mirror_v) {
        if w != new_copy && dominates(m, new_copy, w) {
            let back = m.structured_spec(COPY_OP, &[mirror_v], &[src], loc);
            m.build(back, InsertPoint::After(w));
        }
    }
    for w in write_src {
        if dominates(m, new_copy, w) {
            let refresh = m.structured_spec(COPY_OP, &[src], &[mirror_v], loc);
            m.build(refresh, InsertPoint::After(w));
        }
    }
}

/// Whether `op` writes its operand `index`: the `outs` of an HIVM
/// structured op, the destination of `memref.store`/`memref.copy` and of
/// vector stores.
fn writes_operand(m: &Module, op: OpId, index: usize) -> bool {
    let d = m.op(op);
    if d.name().starts_with(hivm_syntax::PREFIX) {
        let Some(v) = d.operand(index) else {
            return false;
        };
        return d.group(hivm_syntax::OUTS).is_some_and(|o| o.contains(&v));
    }
    matches!(
        d.name(),
        "memref.store" | "memref.copy" | "vector.transfer_write" | "vector.store"
    ) && index == 1
}

/// `findWriteOp`: the ops writing `mem`, through view-like ops and calls
/// (a call counts when the callee may write the argument, or is unknown).
fn write_ops(m: &Module, mem: ValueId) -> Vec<OpId> {
    write_ops_except(m, mem, None)
}

/// [`write_ops`], not following the use `skip` (op, operand number).
fn write_ops_except(m: &Module, mem: ValueId, skip: Option<(OpId, usize)>) -> Vec<OpId> {
    let mut out: Vec<OpId> = Vec::new();
    let mut work = vec![mem];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in m.uses(v).to_vec() {
            if v == mem && skip == Some((u.op, u.index as usize)) {
                continue;
            }
            let name = m.op(u.op).name();
            let writes = if view_kind(name).is_some() {
                work.extend(m.op(u.op).results().iter().copied());
                false
            } else if flow_kind(name) == Some(FlowKind::Call) {
                call_may_write(m, u.op, u.index as usize, &mut Default::default())
            } else {
                name != MARK_OP && writes_operand(m, u.op, u.index as usize)
            };
            if writes && !out.contains(&u.op) {
                out.push(u.op);
            }
        }
    }
    out
}

/// `callOperandMayBeWritten` / `mayWriteThroughFuncArg`.
fn call_may_write(
    m: &Module,
    call: OpId,
    index: usize,
    seen: &mut std::collections::HashSet<ValueId>,
) -> bool {
    let Some(arg) = super::common::callee_of(m, call)
        .and_then(|f| m.func_body(f))
        .and_then(|b| m.block_args(b).get(index).copied())
    else {
        return true;
    };
    may_write_through(m, arg, seen)
}

fn may_write_through(
    m: &Module,
    v: ValueId,
    seen: &mut std::collections::HashSet<ValueId>,
) -> bool {
    if !seen.insert(v) {
        return false;
    }
    for u in m.uses(v).to_vec() {
        let name = m.op(u.op).name();
        if view_kind(name).is_some() {
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
        } else if name != MARK_OP && writes_operand(m, u.op, u.index as usize) {
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

/// Scales the `buffer_size_in_byte` marks on `v` by `new / old` volume.
pub fn scale_buffer_size(m: &mut Module, v: ValueId, old_volume: i64, new_volume: i64) {
    if old_volume <= 0 {
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
