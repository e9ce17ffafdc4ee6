//! `AdjustAlignUtil.cpp`: whether an operand needs a stride mark on a dim
//! at all, and the per-op rules that move the dim a mark asks for.
//!
//! - [`is_no_need_align`] (`isNoNeedAlign`): no dim; not a ranked memref;
//!   no HIVM address space or GM; dims `0..=d` all static 1; or the stride
//!   of `d` already a multiple of the space's hardware alignment
//!   ([`is_already_aligned`]);
//! - [`adjust_align_dim`] (`adjustAlignDim`): after `isNoNeedAlign`, an op
//!   that will be lowered to scalar loops needs no mark
//!   (`ImplByScalarOpInterface`); then `adjustBrcAlignDim`,
//!   `adjustReduceAlignDim`, `adjustDeInterleaveAlignDim`, the
//!   `may_implicit_transpose_with_last_axis` rule of `load`/`store`,
//!   `adjustCopyAlignDim` and `adjustInlineBrcOp`, each in terms of the
//!   op's flattening ([`get_flattened`] with the stride marks already on
//!   the operands);
//! - [`adjust_align_info`] (`adjustAlignInfo`): the adjusted dim of every
//!   entry, entries landing on one dim merged by the lcm of their bytes,
//!   sorted by dim.
//!
//! `op` may be any op: propagation asks about view ops, loops and
//! allocations too, which only `isNoNeedAlign` applies to.

use tilemem_soc::Soc;

use crate::ir::{Attribute, MemRefType, Module, OpId, Type, ValueId};

use super::common::{block_bytes, hw_align_bytes};
use super::interfaces::flatten::{
    get_flattened, memref_types, DpsKind, FlattenOptions, FlattenResult,
};
use super::interfaces::scalar::should_lower_to_scalar_loops;
use super::interfaces::Structured;
use super::layout::{lcm, AlignInfo};
use super::strides::{collapsible_strictly, contiguous_axes, last_dim_unit_stride};

/// Attribute of `hivm.hir.load`/`store` that lets the DMA transpose the
/// last axis (`getMayImplicitTransposeWithLastAxis`).
pub const MAY_IMPLICIT_TRANSPOSE: &str = "may_implicit_transpose_with_last_axis";
/// The collapse groups of a `hivm.hir.copy` (`getCollapseReassociation`).
pub const COLLAPSE_REASSOCIATION: &str = "collapse_reassociation";
/// Channel count of `hivm.hir.vdeinterleave` (default 2).
pub const CHANNEL_NUM: &str = "channel_num";

/// `isAlreadyAligned`: the strided layout's stride of `d` is a static
/// multiple of `hw_bits`, or dims `d..` are strictly collapsible and the
/// static sizes right of `d` (dynamic ones skipped, as the C++ does)
/// multiply to such a multiple.
pub fn is_already_aligned(t: &MemRefType, d: usize, hw_bits: i64) -> bool {
    let rank = t.rank();
    if d >= rank || hw_bits <= 0 {
        return false;
    }
    let bits = i64::from(t.element_bit_width().unwrap_or(8));
    if let crate::ir::Layout::Strided { strides, .. } = &t.layout {
        let s = strides[d];
        if !crate::ir::is_dynamic(s) && (s * bits) % hw_bits == 0 {
            return true;
        }
    }
    if !collapsible_strictly(t, &[(d..rank).collect()]) {
        return false;
    }
    let collapsed: i64 = t.shape[d + 1..]
        .iter()
        .filter(|&&s| !crate::ir::is_dynamic(s))
        .product();
    (collapsed * bits) % hw_bits == 0
}

/// `isNoNeedAlign(operand, dim)`.
pub fn is_no_need_align(m: &Module, target: &Soc, v: ValueId, dim: Option<usize>) -> bool {
    let Some(d) = dim else { return true };
    let Some(t) = m.value_type(v).as_memref() else {
        return true;
    };
    match t.address_space() {
        None | Some(super::op_table::spaces::GM) => return true,
        Some(_) => {}
    }
    if d >= t.rank() {
        return false;
    }
    if t.shape[..=d].iter().all(|&s| s == 1) {
        return true;
    }
    is_already_aligned(t, d, hw_align_bytes(target, t) * 8)
}

/// 3-argument `getLastNotUnitDim`: from group `start` down to group 0,
/// each group's dims from the last, the first dim where some type is not a
/// static 1.
pub fn last_not_unit_dim_from(
    types: &[MemRefType],
    groups: &[Vec<usize>],
    start: isize,
) -> Option<usize> {
    if start < 0 {
        return None;
    }
    let start = (start as usize).min(groups.len().checked_sub(1)?);
    groups[..=start]
        .iter()
        .rev()
        .flat_map(|g| g.iter().rev())
        .copied()
        .find(|&d| !all_unit(types, d))
}

/// 2-argument `getLastNotUnitDim`: within one group, from the last dim.
pub fn last_not_unit_dim(types: &[MemRefType], group: &[usize]) -> Option<usize> {
    group.iter().rev().copied().find(|&d| !all_unit(types, d))
}

/// Whether every type has static size 1 at `d` (a type without dim `d`
/// counts as 1).
fn all_unit(types: &[MemRefType], d: usize) -> bool {
    types.iter().all(|t| t.shape.get(d).is_none_or(|&s| s == 1))
}

/// `getPrevUncontiguousDim`: the last non-unit dim of the groups before
/// `flat` (none for group 0).
fn prev_uncontiguous(types: &[MemRefType], groups: &[Vec<usize>], flat: isize) -> Option<usize> {
    if flat <= 0 {
        return None;
    }
    last_not_unit_dim_from(types, groups, flat - 1)
}

/// The flattening the per-op rules read: `getFlattened` with the stride
/// marks already on the operands.
fn flattened(op: &Structured) -> FlattenResult {
    get_flattened(
        op,
        FlattenOptions {
            check_mark_stride: true,
            ..FlattenOptions::default()
        },
    )
}

/// The HIVM operand types of the op, ranked memrefs of rank > 0
/// (`getMemRefTypes(getHIVMOperandTypes(false))`).
pub fn hivm_memref_types(op: &Structured) -> Vec<MemRefType> {
    let types: Vec<Type> = op
        .hivm_operands(false)
        .into_iter()
        .map(|i| op.m.value_type(op.operand(i)).clone())
        .collect();
    memref_types(&types)
}

/// `adjustAlignDim(op, operand, dim)`.
pub fn adjust_align_dim(
    m: &Module,
    target: &Soc,
    op: OpId,
    v: ValueId,
    dim: Option<usize>,
) -> Option<usize> {
    if is_no_need_align(m, target, v, dim) {
        return None;
    }
    let Some(s) = Structured::of(m, op) else {
        return dim;
    };
    if should_lower_to_scalar_loops(&s) {
        return None;
    }
    let mnemonic = s.name().strip_prefix("hivm.hir.").unwrap_or("");
    match mnemonic {
        "vbrc" => adjust_brc(&s, target, v, dim),
        "vreduce" => adjust_reduce(&s, target, v, dim),
        "vdeinterleave" => adjust_deinterleave(&s, target, v, dim),
        "load" | "store" => {
            let transposes = s
                .attr(MAY_IMPLICIT_TRANSPOSE)
                .is_some_and(|a| matches!(a, Attribute::Unit) || a.as_bool() == Some(true));
            (!transposes).then_some(dim?)
        }
        "copy" => adjust_copy(&s, v, dim),
        _ if s.is_inline_broadcastable() => adjust_inline_brc(&s, target, v, dim),
        _ => dim,
    }
}

/// The tail the per-op adjustments share: the previous uncontiguous dim
/// before flattened dim `flat` (`getPrevUncontiguousDim`), dropped when the
/// operand needs no alignment there (`isNoNeedAlign`).
fn prev_uncontiguous_to_align(
    s: &Structured,
    f: &FlattenResult,
    target: &Soc,
    v: ValueId,
    flat: isize,
) -> Option<usize> {
    let adj = prev_uncontiguous(&hivm_memref_types(s), f.input_reassociation(), flat);
    if is_no_need_align(s.m, target, v, adj) {
        return None;
    }
    adj
}

/// `isLastBrc`: every flattened memref has a unit last stride and the
/// last broadcast dim (all dims when none are listed) is in the last
/// flattened group.
fn is_last_brc(s: &Structured, f: &FlattenResult) -> bool {
    if !f
        .memref_types(DpsKind::All)
        .iter()
        .all(last_dim_unit_stride)
    {
        return false;
    }
    let mut brc = s.int_array("broadcast_dims");
    if brc.is_empty() {
        let rank = s
            .inits()
            .first()
            .and_then(|&d| s.m.value_type(d).shape().map(<[_]>::len))
            .unwrap_or(0);
        brc = (0..rank as i64).collect();
    }
    let Some(&last) = brc.last() else {
        return false;
    };
    usize::try_from(last)
        .ok()
        .and_then(|d| f.group_of(d))
        .is_some_and(|g| g + 1 == f.rank())
}

/// `isLastTwoDimContiguous`: rank 1, or every flattened memref has a unit
/// last stride and the last flattened dim is contiguous.
fn is_last_two_dim_contiguous(f: &FlattenResult) -> bool {
    let rank = f.rank();
    if rank == 1 {
        return true;
    }
    let types = f.types(DpsKind::All);
    if !types
        .iter()
        .all(|t| t.as_memref().is_none_or(last_dim_unit_stride))
    {
        return false;
    }
    rank > 0
        && contiguous_axes(&types)
            .get(rank - 1)
            .copied()
            .unwrap_or(false)
}

/// `adjustBrcAlignDim`: a broadcast over the last flattened dim, with the
/// align dim on the second-to-last flattened dim and the last two
/// contiguous, marks the last non-unit dim before that group instead;
/// `i8`/`i1` broadcasts keep their dim.
fn adjust_brc(s: &Structured, target: &Soc, v: ValueId, dim: Option<usize>) -> Option<usize> {
    let d = dim?;
    let dst_elem = s
        .inits()
        .first()
        .and_then(|&x| s.m.value_type(x).element_type().cloned());
    if matches!(dst_elem, Some(Type::Integer { width: 8 | 1, .. })) {
        return dim;
    }
    let f = flattened(s);
    if !is_last_brc(s, &f) {
        return dim;
    }
    let rank = f.rank();
    let flat = f.group_of(d);
    if flat.is_none_or(|g| g + 2 != rank) || !is_last_two_dim_contiguous(&f) {
        return dim;
    }
    prev_uncontiguous_to_align(s, &f, target, v, flat? as isize)
}

/// `isLastReduce`: every flattened memref has a unit last stride and the
/// last reduce dim is in the last flattened group.
fn is_last_reduce(s: &Structured, f: &FlattenResult) -> bool {
    if !f
        .memref_types(DpsKind::All)
        .iter()
        .all(last_dim_unit_stride)
    {
        return false;
    }
    let Some(&last) = s.int_array("reduce_dims").last() else {
        return false;
    };
    usize::try_from(last)
        .ok()
        .and_then(|d| f.group_of(d))
        .is_some_and(|g| g + 1 == f.rank())
}

/// `adjustReduceAlignDim`: for a reduction over the last flattened dim
/// with the align dim on the second-to-last one: a float `sum` over a
/// power-of-two number of elements fitting one block, with the flattened
/// init's first stride 1, needs no mark; a DPS init (value or index
/// output) skips the dim before the reduced one too (`reduce_aar`); the
/// source keeps its dim.
fn adjust_reduce(s: &Structured, target: &Soc, v: ValueId, dim: Option<usize>) -> Option<usize> {
    let d = dim?;
    let f = flattened(s);
    if !is_last_reduce(s, &f) {
        return dim;
    }
    let rank = f.rank();
    let flat = f.group_of(d)?;
    if flat + 2 != rank {
        return dim;
    }
    let src = *s.named("src").first()?;
    let dst = *s.inits().first()?;
    let src_ty = f.type_of(src)?;
    let last_size = src_ty.shape()?.get(rank - 1).copied()?;
    let elem = src_ty.element_type();
    let elem_bits = i64::from(elem.and_then(Type::bit_width).unwrap_or(0));
    let dst_first_stride = f
        .type_of(dst)
        .and_then(Type::as_memref)
        .and_then(MemRefType::strides_and_offset)
        .and_then(|(st, _)| st.first().copied());
    let float = matches!(elem, Some(Type::Float(_)));
    // The C++ computes in `unsigned int` (`static_cast<unsigned
    // int>(size) * width / 8`) and asks `isPowerOf2_64(size)`: a dynamic
    // size (`INT64_MIN`) truncates to 0 bytes and is a power of two as an
    // unsigned 64-bit value, so it passes both tests.
    let bytes = u64::from((last_size as u32).wrapping_mul(elem_bits as u32) / 8);
    let pow2 = (last_size as u64).is_power_of_two();
    let sum = s.enum_param("arith").as_deref() == Some("sum");
    if dst_first_stride == Some(1) && bytes <= block_bytes(target) as u64 && float && pow2 && sum {
        return None;
    }
    if !s.inits().contains(&v) {
        return dim;
    }
    prev_uncontiguous_to_align(s, &f, target, v, flat as isize - 1)
}

/// `adjustDeInterleaveAlignDim`: an align dim on the last flattened dim,
/// with the flattened source's last stride equal to `channel_num` and a
/// unit-stride flattened destination, moves to the last non-unit dim
/// before that group.
fn adjust_deinterleave(
    s: &Structured,
    target: &Soc,
    v: ValueId,
    dim: Option<usize>,
) -> Option<usize> {
    let d = dim?;
    let f = flattened(s);
    let rank = f.rank();
    let flat = f.group_of(d);
    if flat.is_none_or(|g| g + 1 != rank) {
        return dim;
    }
    let channels = s.int(CHANNEL_NUM).unwrap_or(2);
    let inputs = f.types(DpsKind::Input);
    let Some(src) = inputs.first().and_then(Type::as_memref) else {
        return dim;
    };
    let Some((src_strides, _)) = src.strides_and_offset() else {
        return dim;
    };
    if src_strides.last() != Some(&channels) {
        return dim;
    }
    let inits = f.types(DpsKind::Init);
    let Some(dst) = inits.first().and_then(Type::as_memref) else {
        return dim;
    };
    if !last_dim_unit_stride(dst) {
        return dim;
    }
    prev_uncontiguous_to_align(s, &f, target, v, flat? as isize)
}

/// `adjustCopyAlignDim`: with a `collapse_reassociation`, the destination
/// is not marked on a dim a group collapses into the next one (every index
/// of a group but its last).
fn adjust_copy(s: &Structured, v: ValueId, dim: Option<usize>) -> Option<usize> {
    let d = dim?;
    let Some(Attribute::Array(groups)) = s.attr(COLLAPSE_REASSOCIATION) else {
        return dim;
    };
    if groups.is_empty() || s.named("dst").first() != Some(&v) {
        return dim;
    }
    let merged = groups.iter().any(|g| {
        g.as_int_array().is_some_and(|g| {
            g.split_last()
                .is_some_and(|(_, rest)| rest.contains(&(d as i64)))
        })
    });
    (!merged).then_some(d)
}

/// `adjustInlineBrcOp`: an op broadcasting inline over its last dim, on
/// an operand whose last dim is 1 and whose second-to-last stride is 1,
/// marks the last non-unit dim before the align dim's group instead.
fn adjust_inline_brc(
    s: &Structured,
    target: &Soc,
    v: ValueId,
    dim: Option<usize>,
) -> Option<usize> {
    let d = dim?;
    let rank = s
        .inits()
        .first()
        .and_then(|&x| s.m.value_type(x).shape().map(<[_]>::len))
        .unwrap_or(0);
    let brc = s.inlined_broadcastable_axes(None);
    if rank <= 1 || !brc.contains(&(rank as i64 - 1)) {
        return dim;
    }
    let Some(t) = s.memref(v) else { return dim };
    if t.shape.last() != Some(&1) {
        return dim;
    }
    let Some((strides, _)) = t.strides_and_offset() else {
        return dim;
    };
    if strides.get(rank - 2) != Some(&1) {
        return dim;
    }
    let f = flattened(s);
    let flat = f.group_of(d)?;
    prev_uncontiguous_to_align(s, &f, target, v, flat as isize)
}

/// `adjustAlignInfo(op, operand, dims, bytes)`.
pub fn adjust_align_info(
    m: &Module,
    target: &Soc,
    op: OpId,
    v: ValueId,
    info: &[(usize, i64)],
) -> AlignInfo {
    let mut out: Vec<(usize, i64)> = Vec::new();
    for &(d, b) in info {
        let Some(a) = adjust_align_dim(m, target, op, v, Some(d)) else {
            continue;
        };
        match out.iter_mut().find(|e| e.0 == a) {
            Some(e) => e.1 = lcm(e.1, b),
            None => out.push((a, b)),
        }
    }
    out.sort_by_key(|e| e.0);
    out
}
