//! The per-op rules that move or drop the dim a stride mark asks for,
//! mirroring `AdjustAlignUtil.cpp`, and the op's flattening
//! (`FlattenInterface::getFlattened` with `checkMarkStride`) they are
//! expressed in.
//!
//! - [`flatten_groups`] (`getFlattened`): dims `i`, `i + 1` merge when every
//!   operand is strictly collapsible there (or unit at `i`) **and** the op
//!   lets them merge: a `vbrc` only merges two broadcast dims or two
//!   non-broadcast dims (no `broadcast_dims` = every dim), a `vreduce` two
//!   reduced or two kept dims, a `vtranspose` dims that stay neighbours in
//!   the permutation; other ops merge freely;
//! - [`last_not_unit_dim_from`] (3-argument `getLastNotUnitDim`): walking
//!   the groups from `start` backwards, the last dim where some operand is
//!   not a static 1;
//! - [`adjust_align_dim`] (`adjustAlignDim`): first `isNoNeedAlign` (no
//!   dim, a non-HIVM/GM memref, dims `0..=d` all unit, or the row stride of
//!   `d` already a multiple of the hardware alignment: no mark), then
//!   `adjustBrcAlignDim`, `adjustReduceAlignDim`,
//!   `adjustDeInterleaveAlignDim`, the `may_implicit_transpose_with_last_axis`
//!   rule of `hivm.hir.load`/`store` (no mark) and `adjustCopyAlignDim`.

use crate::ir::{Attribute, Module, OpId, ValueId};

use super::common::{enum_param, memref_of, strided_of};
use super::layout::{groups_where, Strided};
use super::op_table::{hivm_syntax, HivmKind, HivmOp};

/// Attribute of `hivm.hir.load`/`store` that lets the DMA transpose the
/// last axis (`getMayImplicitTransposeWithLastAxis`).
pub const MAY_IMPLICIT_TRANSPOSE: &str = "may_implicit_transpose_with_last_axis";
/// The collapse groups of a non-contiguous `hivm.hir.copy`
/// (`getReassociationIndices(isCollapse)`).
pub const COLLAPSE_REASSOCIATION: &str = "collapse_reassociation";
/// Channel count of `hivm.hir.vdeinterleave` (default 2).
pub const CHANNEL_NUM: &str = "channel_num";

fn int_array(m: &Module, op: OpId, name: &str) -> Option<Vec<i64>> {
    m.attr(op, name).and_then(Attribute::as_int_array)
}

/// Whether the op lets flattening merge dims `i` and `i + 1`.
fn op_merges(m: &Module, op: OpId, rank: usize, i: usize) -> bool {
    let (a, b) = (i as i64, i as i64 + 1);
    if let Some(p) = int_array(m, op, hivm_syntax::PERMUTATION) {
        return p.windows(2).any(|w| w[0] == a && w[1] == b);
    }
    let same_class = |set: Vec<i64>| set.contains(&a) == set.contains(&b);
    if let Some(dims) = int_array(m, op, hivm_syntax::BROADCAST_DIMS) {
        let dims = if dims.is_empty() {
            (0..rank as i64).collect()
        } else {
            dims
        };
        return same_class(dims);
    }
    if let Some(dims) = int_array(m, op, hivm_syntax::REDUCE_DIMS) {
        return same_class(dims);
    }
    true
}

/// `getFlattened(checkMarkStride)`: the groups of consecutive dims the op's
/// flattening merges. Operands of different ranks are not flattened (one
/// group per dim).
pub fn flatten_groups(m: &Module, op: OpId, types: &[Strided]) -> Vec<Vec<usize>> {
    let rank = types.iter().map(Strided::rank).max().unwrap_or(0);
    if types.iter().any(|t| t.rank() != rank) {
        return groups_where(rank, |_| false);
    }
    groups_where(rank, |i| {
        types.iter().all(|t| t.collapsible(i) || t.is_unit(i)) && op_merges(m, op, rank, i)
    })
}

/// The flattened group holding `d` (`getMapedAlignDim`).
pub fn group_of(groups: &[Vec<usize>], d: usize) -> Option<usize> {
    groups.iter().position(|g| g.contains(&d))
}

/// 3-argument `getLastNotUnitDim`: from group `start` backwards, the last
/// dim where some operand is not a static 1.
pub fn last_not_unit_dim_from(
    types: &[Strided],
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
        .find(|&d| types.iter().any(|t| d < t.rank() && !t.is_unit(d)))
}

/// `getPrevUncontiguousDim`: the last non-unit dim of the groups before
/// group `flat` (none for group 0).
fn prev_uncontiguous(types: &[Strided], groups: &[Vec<usize>], flat: isize) -> Option<usize> {
    if flat == 0 {
        return None;
    }
    last_not_unit_dim_from(types, groups, flat - 1)
}

/// `isNoNeedAlign` on a UB operand: no dim, dims `0..=d` all unit, or the
/// stride of `d` already aligned (`isAlreadyAligned`).
pub fn no_need_align(t: &Strided, d: Option<usize>, align_bits: i64) -> bool {
    let Some(d) = d else { return true };
    d >= t.rank() || (0..=d).all(|i| t.is_unit(i)) || t.stride_aligned(d, align_bits)
}

/// What the per-op rules see of one op.
pub struct OpView<'a> {
    /// The op.
    pub op: OpId,
    /// Its op-table row.
    pub row: &'a HivmOp,
    /// Its buffer operands (temp buffers excluded) and their types.
    pub operands: Vec<ValueId>,
    /// Their strided types.
    pub types: Vec<Strided>,
    /// The op's flattening groups.
    pub groups: Vec<Vec<usize>>,
}

impl<'a> OpView<'a> {
    /// The view of `op` (whose op-table row is `row`): its memref operands
    /// outside the `temp_buffer` group, their types and the op's
    /// flattening.
    pub fn new(m: &Module, op: OpId, row: &'a HivmOp) -> OpView<'a> {
        let d = m.op(op);
        let temps: &[ValueId] = d.group(hivm_syntax::TEMP_BUFFER).unwrap_or(&[]);
        let operands: Vec<ValueId> = d
            .operands()
            .iter()
            .copied()
            .filter(|v| !temps.contains(v) && m.value_type(*v).is_memref_like())
            .collect();
        let types: Vec<Strided> = operands.iter().filter_map(|&v| strided_of(m, v)).collect();
        let groups = flatten_groups(m, op, &types);
        OpView {
            op,
            row,
            operands,
            types,
            groups,
        }
    }

    fn all_last_unit_stride(&self) -> bool {
        self.types
            .iter()
            .all(|t| t.rank() == 0 || t.strides[t.rank() - 1] == 1)
    }

    fn last_dim_in_last_group(&self, dim: Option<i64>) -> bool {
        let n = self.groups.len();
        dim.and_then(|d| usize::try_from(d).ok())
            .and_then(|d| group_of(&self.groups, d))
            .is_some_and(|g| n > 0 && g == n - 1)
    }

    fn first(m: &Module, op: OpId, group: &str) -> Option<ValueId> {
        m.op(op).group(group).and_then(<[_]>::first).copied()
    }
}

/// `adjustAlignDim`: the dim operand `v` of the op is finally marked on.
pub fn adjust_align_dim(
    m: &Module,
    view: &OpView,
    v: ValueId,
    dim: Option<usize>,
    align_bits: i64,
) -> Option<usize> {
    let t = strided_of(m, v)?;
    if no_need_align(&t, dim, align_bits) {
        return None;
    }
    let d = dim?;
    let flags = view.row.flags;
    if flags.last_dim_broadcast_shifts {
        return adjust_brc(m, view, &t, d, align_bits);
    }
    if flags.last_axis_reduce_shifts {
        return adjust_reduce(m, view, &t, v, d, align_bits);
    }
    if flags.deinterleave_shifts {
        return adjust_deinterleave(m, view, &t, d, align_bits);
    }
    match view.row.kind {
        HivmKind::Load | HivmKind::Store => {
            let transposes = m
                .attr(view.op, MAY_IMPLICIT_TRANSPOSE)
                .is_some_and(|a| a.as_bool() == Some(true));
            (!transposes).then_some(d)
        }
        HivmKind::Copy => adjust_copy(m, view, v, d),
        _ => Some(d),
    }
}

/// `adjustBrcAlignDim`: for a broadcast over the last flattened dim whose
/// align dim is the second-to-last flattened dim (last two contiguous), the
/// dim before it is marked instead; `i8`/`i1` broadcasts keep theirs.
fn adjust_brc(m: &Module, view: &OpView, t: &Strided, d: usize, bits: i64) -> Option<usize> {
    let dst = OpView::first(m, view.op, hivm_syntax::OUTS).and_then(|v| memref_of(m, v));
    if dst.is_some_and(|ty| matches!(ty.element_bit_width(), Some(8 | 1))) {
        return Some(d);
    }
    let rank = dst.map_or(t.rank(), |ty| ty.rank());
    let brc = int_array(m, view.op, hivm_syntax::BROADCAST_DIMS).unwrap_or_default();
    let last_brc = brc
        .last()
        .copied()
        .or(rank.checked_sub(1).map(|r| r as i64));
    if !view.all_last_unit_stride() || !view.last_dim_in_last_group(last_brc) {
        return Some(d);
    }
    let n = view.groups.len();
    let flat = group_of(&view.groups, d)?;
    if n < 2 || flat != n - 2 {
        return Some(d);
    }
    let adj = prev_uncontiguous(&view.types, &view.groups, flat as isize);
    (!no_need_align(t, adj, bits)).then_some(adj?)
}

/// `adjustReduceAlignDim`: for a reduction over the last flattened dim with
/// the align dim on the second-to-last one: a float sum over at most 32
/// bytes of a power-of-two size needs no mark at all; the init skips the
/// dim right before the reduced one too (`reduce_aar`); the source keeps
/// its dim.
fn adjust_reduce(
    m: &Module,
    view: &OpView,
    t: &Strided,
    v: ValueId,
    d: usize,
    bits: i64,
) -> Option<usize> {
    let reduce = int_array(m, view.op, hivm_syntax::REDUCE_DIMS).unwrap_or_default();
    if !view.all_last_unit_stride() || !view.last_dim_in_last_group(reduce.last().copied()) {
        return Some(d);
    }
    let n = view.groups.len();
    let flat = group_of(&view.groups, d)?;
    if n < 2 || flat != n - 2 {
        return Some(d);
    }
    if is_small_float_sum(m, view) {
        return None;
    }
    let init = OpView::first(m, view.op, hivm_syntax::OUTS);
    if init != Some(v) {
        return Some(d);
    }
    let adj = prev_uncontiguous(&view.types, &view.groups, flat as isize - 1);
    (!no_need_align(t, adj, bits)).then_some(adj?)
}

/// The float-sum exemption of `adjustReduceAlignDim`: a `<sum>` over a
/// flattened last dim of power-of-two size and at most 32 bytes, with the
/// init's first flattened stride 1.
fn is_small_float_sum(m: &Module, view: &OpView) -> bool {
    let d = m.op(view.op);
    let is_sum = d.syntax.as_ref().is_some_and(|s| {
        s.pieces
            .iter()
            .any(|p| matches!(p, crate::ir::Piece::Text(t) if t.trim() == hivm_syntax::SUM))
    }) || enum_param(m, view.op, "arith")
        .is_some_and(|p| format!("<{p}>") == hivm_syntax::SUM);
    let (Some(src), Some(dst)) = (
        OpView::first(m, view.op, hivm_syntax::INS).and_then(|v| strided_of(m, v)),
        OpView::first(m, view.op, hivm_syntax::OUTS).and_then(|v| strided_of(m, v)),
    ) else {
        return false;
    };
    let Some(last) = view.groups.last() else {
        return false;
    };
    let float = OpView::first(m, view.op, hivm_syntax::INS)
        .and_then(|v| memref_of(m, v))
        .is_some_and(|ty| ty.elem.is_float());
    let size: i64 = last
        .iter()
        .map(|&i| src.shape.get(i).copied().unwrap_or(1))
        .product();
    let dst_first_stride = view
        .groups
        .first()
        .and_then(|g| g.last())
        .and_then(|&i| dst.strides.get(i).copied());
    is_sum
        && float
        && size > 0
        && (size & (size - 1)) == 0
        && size * src.bits / 8 <= 32
        && dst_first_stride == Some(1)
}

/// `adjustDeInterleaveAlignDim`: an align dim on the last flattened dim,
/// with the source's last stride equal to `channel_num` and a unit-stride
/// destination, moves to the dim before it.
fn adjust_deinterleave(
    m: &Module,
    view: &OpView,
    t: &Strided,
    d: usize,
    bits: i64,
) -> Option<usize> {
    let n = view.groups.len();
    let flat = group_of(&view.groups, d)?;
    if n == 0 || flat != n - 1 {
        return Some(d);
    }
    let channels = m
        .attr(view.op, CHANNEL_NUM)
        .and_then(Attribute::as_int)
        .unwrap_or(2);
    let src = OpView::first(m, view.op, hivm_syntax::INS).and_then(|v| strided_of(m, v));
    let dst = OpView::first(m, view.op, hivm_syntax::OUTS).and_then(|v| strided_of(m, v));
    let (Some(src), Some(dst)) = (src, dst) else {
        return Some(d);
    };
    if src.strides.last() != Some(&channels) || dst.strides.last() != Some(&1) {
        return Some(d);
    }
    let adj = prev_uncontiguous(&view.types, &view.groups, flat as isize);
    (!no_need_align(t, adj, bits)).then_some(adj?)
}

/// `adjustCopyAlignDim`: with a `collapse_reassociation` attribute, the
/// destination is not marked on a dim that a group collapses into the next
/// one (every index of a group but its last); without it, or for the
/// source, the dim is kept.
fn adjust_copy(m: &Module, view: &OpView, v: ValueId, d: usize) -> Option<usize> {
    if OpView::first(m, view.op, hivm_syntax::OUTS) != Some(v) {
        return Some(d);
    }
    let Some(Attribute::Array(groups)) = m.attr(view.op, COLLAPSE_REASSOCIATION) else {
        return Some(d);
    };
    let merged = groups.iter().any(|g| {
        g.as_int_array().is_some_and(|g| {
            g.split_last()
                .is_some_and(|(_, rest)| rest.contains(&(d as i64)))
        })
    });
    (!merged).then_some(d)
}

/// `adjustAlignInfo`: [`adjust_align_dim`] of every entry for operand `v`
/// of the op, entries landing on the same dim merged by the lcm of their
/// bytes, sorted by dim. `isNoNeedAlign` judges against the hardware
/// alignment (`hw_bits`), not the entry's bytes.
pub fn adjust_align_info(
    m: &Module,
    view: &OpView,
    v: ValueId,
    info: &[(usize, i64)],
    hw_bits: i64,
) -> Vec<(usize, i64)> {
    let mut out: Vec<(usize, i64)> = Vec::new();
    for &(d, b) in info {
        let Some(a) = adjust_align_dim(m, view, v, Some(d), hw_bits) else {
            continue;
        };
        match out.iter_mut().find(|e| e.0 == a) {
            Some(e) => e.1 = super::layout::lcm(e.1, b),
            None => out.push((a, b)),
        }
    }
    out.sort_by_key(|e| e.0);
    out
}
