//! `hivm-mark-stride-align`: marks the UB operands of HIVM structured ops
//! whose row starts must be aligned to the hardware's block.
//!
//! **Assumes** bufferized IR, flattened where the target needs it, and, on
//! regbase targets, that `hivm-pre-mark-stride-align` ran if buffers read
//! by vector loads must be skipped. Host functions are skipped.
//!
//! **Guarantees**, rule by rule as `MarkStrideAlign.cpp` has them:
//! - `runOnOperation`, per HIVM structured op, in this order: ops whose
//!   memref operands (temp buffers too) are all in GM are skipped
//!   (`noNeedAlign`); `hivm.hir.custom`/`custom_macro` go to
//!   `mark_custom`; a tensor operand is the error `Not bufferized.`; a
//!   `vtranspose` moving the last dim is skipped (its size is aligned by
//!   `hivm-align-alloc-size`); on regbase `vreduce <max_with_index>` /
//!   `<min_with_index>` is skipped; operands that are all rank 0 or none
//!   local are skipped;
//! - regbase: all-unit shapes are skipped (not for Fixpipe); only UB
//!   operands are searched, as already flattened
//!   (`getLastDiscontinuousDimRegBased`, with the UB DMA exemption of
//!   `isSubLowDimStrideAlign`/`isNotTailJumpOrStrideAlign`); Fixpipe has
//!   its own rule (`mark_fixpipe`);
//! - membase: all-unit shapes are skipped; the operands are flattened as
//!   the op allows ([`flatten_groups`]) and searched with
//!   `getLastDiscontinuousDim`; an op without a flatten rule gets the error
//!   `unsupport flatten op`, is skipped, and the pass still succeeds
//!   (the error does not fail the pass or change the exit code, see
//!   [`crate::pass`]);
//! - a store with one UB operand that is a rank-reducing subview dropping
//!   trailing unit dims marks per `store_subview_decision`;
//! - each UB operand then gets `adjustAlignDim` ([`adjust_align_dim`]) and,
//!   when a dim remains, one mark (`markAlignedDim`, see
//!   [`create_align_mark`]): `annotation.mark %v {hivm.stride_align_dims =
//!   array<i32: d>, hivm.stride_align_value_in_byte = array<i32: B>}` with
//!   `B` the hardware alignment of the operand's space (32 for UB, from the
//!   chip's [`tilemem_soc::Soc`]), written right after the definition of
//!   `%v`. Every op writes its own marks: a buffer used by three ops gets
//!   three marks, the newest first; a load whose root carries
//!   `hivm.skip_stride_align_for_vload` is not marked. `align dim is too
//!   large.`, `UnrankedMemRef not supported.` and `Non-strided-memref not
//!   supported.` are errors; the first error stops the walk of that
//!   function and fails the pass;
//! - regbase then walks the `func.call`s (`mark_call_args`) and their
//!   `vsstb` stores (`mark_for_vsstb`).
//!
//! Like the C++, the pass is not idempotent: running it twice writes the
//! marks twice (`hivm-enable-stride-align` unions duplicates).

use tilemem_soc::{Family, Soc};

use crate::ir::{Attribute, Diagnostic, Location, Module, OpId, Piece, Type, ValueId};
use crate::pass::{Pass, PassFailed};

use super::adjust::{adjust_align_dim, flatten_groups, no_need_align, OpView};
use super::common::{
    callee_of, calls, create_align_mark, device_funcs, enum_param, hw_align_bytes, is_local,
    is_tensor, is_ub, marks_of, memref_of, root_alloc, root_skips_vload, strided_of, target_of,
};
use super::fixpipe::{m_align, n_align, DataWidth, DualDst, FixpipeKey};
use super::layout::{last_discontinuous_dim_membase, last_discontinuous_dim_regbase, lcm, Strided};
use super::op_table::{
    attrs, flow_kind, hivm_op, hivm_syntax, spaces, view_kind, FlowKind, HivmKind, HivmOp,
    ViewKind, TRANSFER_WRITE,
};

/// The `hivm-mark-stride-align` pass.
pub struct MarkStrideAlign;

impl Pass for MarkStrideAlign {
    fn name(&self) -> &'static str {
        "hivm-mark-stride-align"
    }

    fn description(&self) -> &'static str {
        "Mark UB operands of HIVM ops whose rows need 32-byte aligned strides"
    }

    fn run(&self, m: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let target = &target_of(m);
        let mut failed = false;
        for func in device_funcs(m) {
            let ops = m.walk(func);
            for &op in &ops {
                if m.op(op).is_erased() {
                    continue;
                }
                if let Err(d) = mark_op(m, op, target, diags) {
                    diags.push(d);
                    failed = true;
                    break;
                }
            }
            if target.is_regbase() {
                for call in calls(m, &ops) {
                    if let Err(d) = mark_call_args(m, call, target) {
                        diags.push(d);
                        failed = true;
                        break;
                    }
                }
            }
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}

/// The row used for HIVM structured ops missing from the op table.
const GENERIC_STRUCTURED: HivmOp = HivmOp {
    name: "hivm.hir.*",
    kind: HivmKind::Vector,
    flags: super::op_table::HivmFlags {
        last_dim_broadcast_shifts: false,
        last_axis_reduce_shifts: false,
        deinterleave_shifts: false,
        transpose: false,
        cast: false,
        sort: false,
    },
};

/// An `hivm.hir.*` op with `ins`/`outs` groups that the op table does not
/// know.
fn is_unknown_structured(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    d.name().starts_with(hivm_syntax::PREFIX)
        && (d.group(hivm_syntax::INS).is_some() || d.group(hivm_syntax::OUTS).is_some())
}

/// The memref operands an op's rules look at: every operand except those
/// of the `temp_buffer` group.
fn buffer_operands(m: &Module, op: OpId) -> Vec<ValueId> {
    let d = m.op(op);
    let temps: &[ValueId] = d.group(hivm_syntax::TEMP_BUFFER).unwrap_or(&[]);
    d.operands()
        .iter()
        .copied()
        .filter(|v| !temps.contains(v) && m.value_type(*v).is_memref_like())
        .collect()
}

/// `noNeedAlign`: every memref operand (temp buffers included) is in GM.
fn all_gm(m: &Module, op: OpId) -> bool {
    m.op(op)
        .operands()
        .iter()
        .filter_map(|&v| memref_of(m, v))
        .all(|t| t.address_space() == Some(spaces::GM))
}

/// `markAlignedDim`: checks the operand and writes one mark on `dim` with
/// the hardware alignment of the operand's space.
fn mark_aligned_dim(
    m: &mut Module,
    target: &Soc,
    v: ValueId,
    dim: Option<usize>,
    loc: Location,
) -> Result<(), Diagnostic> {
    let Some(d) = dim else { return Ok(()) };
    match m.value_type(v) {
        ty if is_tensor(ty) => Err(Diagnostic::error(loc, "Not bufferized.")),
        Type::UnrankedMemRef { .. } => Err(Diagnostic::error(loc, "UnrankedMemRef not supported.")),
        Type::MemRef(t) if t.strides_and_offset().is_none() => {
            Err(Diagnostic::error(loc, "Non-strided-memref not supported."))
        }
        Type::MemRef(t) => {
            if d + 1 > t.rank() {
                return Err(Diagnostic::error(loc, "align dim is too large."));
            }
            let bytes = hw_align_bytes(target, t);
            create_align_mark(m, v, &vec![(d, bytes)], loc);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Applies the marking rules to one op (`runOnOperation`'s walk).
fn mark_op(
    m: &mut Module,
    op: OpId,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let unknown = hivm_op(m.op(op).name()).is_none();
    let info = match hivm_op(m.op(op).name()) {
        Some(info) => info,
        None if is_unknown_structured(m, op) => &GENERIC_STRUCTURED,
        None => return Ok(()),
    };
    if all_gm(m, op) {
        return Ok(());
    }
    let loc = m.op(op).loc;
    if info.kind == HivmKind::Custom {
        return mark_custom(m, op, target, loc);
    }
    if m.op(op)
        .operands()
        .iter()
        .any(|&v| is_tensor(m.value_type(v)))
    {
        return Err(Diagnostic::error(loc, "Not bufferized."));
    }
    // A UB operand the rules cannot read: the errors `markAlignedDim`
    // gives for it.
    for &v in m.op(op).operands() {
        match m.value_type(v) {
            Type::UnrankedMemRef { .. } => {
                return Err(Diagnostic::error(loc, "UnrankedMemRef not supported."))
            }
            Type::MemRef(t) if is_ub(t) && t.strides_and_offset().is_none() => {
                return Err(Diagnostic::error(loc, "Non-strided-memref not supported."))
            }
            _ => {}
        }
    }
    if info.flags.transpose && is_last_dim_transpose(m, op) {
        return Ok(());
    }
    if target.is_regbase() && info.kind == HivmKind::Vector && is_reduce_with_index(m, op) {
        return Ok(());
    }
    let operands = buffer_operands(m, op);
    let types: Vec<_> = operands.iter().filter_map(|&v| memref_of(m, v)).collect();
    if types.iter().all(|t| t.rank() == 0) || !types.iter().any(|t| is_local(t)) {
        return Ok(());
    }
    let all: Vec<Strided> = operands.iter().filter_map(|&v| strided_of(m, v)).collect();
    let ub_operands: Vec<ValueId> = operands
        .iter()
        .copied()
        .filter(|&v| memref_of(m, v).is_some_and(is_ub))
        .collect();
    let groups = flatten_groups(m, op, &all);
    let dim = if target.is_regbase() {
        let is_fixpipe = info.kind == HivmKind::Fixpipe;
        if !is_fixpipe && all.iter().all(Strided::all_ones) {
            return Ok(());
        }
        let ub: Vec<Strided> = ub_operands
            .iter()
            .filter_map(|&v| strided_of(m, v))
            .collect();
        if ub.is_empty() {
            return Ok(());
        }
        if is_fixpipe {
            return mark_fixpipe(m, op, target, &ub_operands, loc);
        }
        let ub_bits = memref_of(m, ub_operands[0]).map_or(0, |t| hw_align_bytes(target, t) * 8);
        last_discontinuous_dim_regbase(&ub, info.is_ub_dma(), ub_bits)
    } else {
        if all.iter().all(Strided::all_ones) {
            return Ok(());
        }
        if unknown || info.kind == HivmKind::Cube {
            // No flatten rule: MLIR reports the error and skips the op
            // without failing the pass.
            if unknown {
                diags.push(Diagnostic::error(loc, "unsupport flatten op"));
            }
            return Ok(());
        }
        last_discontinuous_dim_membase(&all, &groups)
    };
    let view = OpView::new(m, op, info);
    let mut single: Option<(ValueId, Option<usize>)> = None;
    if info.kind == HivmKind::Store && ub_operands.len() == 1 {
        single = store_subview_decision(m, ub_operands[0], dim);
    }
    for v in ub_operands {
        let (mark_target, d) = single.unwrap_or((v, dim));
        if dim.is_some() && info.kind == HivmKind::Load && root_skips_vload(m, mark_target) {
            continue;
        }
        // A value without a memref type gets no mark (adjustAlignDim
        // finds no strided layout).
        let Some(bits) = memref_of(m, mark_target).map(|t| hw_align_bytes(target, t) * 8) else {
            continue;
        };
        let adjusted = adjust_align_dim(m, &view, mark_target, d, bits);
        mark_aligned_dim(m, target, mark_target, adjusted, loc)?;
    }
    Ok(())
}

/// `vtranspose` whose permutation moves the last dim.
fn is_last_dim_transpose(m: &Module, op: OpId) -> bool {
    let Some(perm) = m
        .attr(op, hivm_syntax::PERMUTATION)
        .and_then(Attribute::as_int_array)
    else {
        return false;
    };
    perm.last().is_some_and(|&p| p != perm.len() as i64 - 1)
}

/// `vreduce <max_with_index>` / `<min_with_index>`.
fn is_reduce_with_index(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    let in_syntax = d.syntax.as_ref().is_some_and(|s| {
        s.pieces
            .iter()
            .any(|p| matches!(p, Piece::Text(t) if t.contains(hivm_syntax::WITH_INDEX)))
    });
    in_syntax
        || d.attrs.iter().any(|(_, a)| match a {
            Attribute::Opaque(t) => t.contains(hivm_syntax::WITH_INDEX),
            Attribute::Dialect {
                params: Some(p), ..
            } => p.contains(hivm_syntax::WITH_INDEX),
            _ => false,
        })
}

/// `hivm.hir.custom`/`custom_macro`: operand `i` is marked on the
/// `align_dim` its `arg_attrs` entry names, whatever its space, with no
/// further adjustment (`markAlignedDim` directly).
fn mark_custom(m: &mut Module, op: OpId, target: &Soc, loc: Location) -> Result<(), Diagnostic> {
    let Some(arg_attrs) = m
        .attr(op, hivm_syntax::ARG_ATTRS)
        .and_then(|a| a.as_array().map(<[_]>::to_vec))
    else {
        return Ok(());
    };
    let all = m.op(op).operands().to_vec();
    for (i, entry) in arg_attrs.iter().enumerate() {
        let Some(dim) = entry
            .as_dict()
            .and_then(|d| d.get(hivm_syntax::ALIGN_DIM))
            .and_then(Attribute::as_int)
        else {
            continue;
        };
        let Some(&v) = all.get(i) else { continue };
        let Ok(d) = usize::try_from(dim) else {
            return Err(Diagnostic::error(loc, "align dim is too large."));
        };
        mark_aligned_dim(m, target, v, Some(d), loc)?;
    }
    Ok(())
}

/// `getTrailingUnitRankReducedSubviewInfo` +
/// `fixAlignDimForSingleUBStoreSubview`: when the single UB operand of a
/// store is a `memref.subview` that only drops trailing dims of static size
/// 1, the dim to align is the last non-unit dim of the subview's source;
/// when that dim was dropped, the source is marked instead. Applies even
/// when the op itself found no dim. `None`: the pattern does not match.
fn store_subview_decision(
    m: &Module,
    v: ValueId,
    dim: Option<usize>,
) -> Option<(ValueId, Option<usize>)> {
    let sv = m.defining_op(v)?;
    if view_kind(m.op(sv).name()) != Some(ViewKind::Subview) {
        return None;
    }
    let parts = m.slice_parts(sv)?;
    let src = strided_of(m, parts.source)?;
    let res_rank = memref_of(m, v)?.rank();
    let sizes: Vec<i64> = parts
        .sizes
        .iter()
        .map(|o| o.as_static().unwrap_or(crate::ir::DYNAMIC))
        .collect();
    if sizes.len() != src.rank()
        || res_rank >= src.rank()
        || sizes[res_rank..].iter().any(|&s| s != 1)
    {
        return None;
    }
    let Some(e) = src.last_non_unit() else {
        return Some((v, dim));
    };
    if e >= res_rank {
        Some((parts.source, Some(e)))
    } else {
        Some((v, Some(e)))
    }
}

/// Regbase Fixpipe (`getLastDiscontinuousDimRegBasedForFixcctoub` and
/// the 3-D dot rule of `runOnOperation`):
/// - L0C to UB with a 2-D output: the N table gives bytes for the last dim
///   (by position, even when it is unit), then the M table for the dim
///   before it; each entry is one mark (dims `[1]`, then `[0]`) on every UB
///   operand, with no adjustment. The element width is the output's (`4`,
///   `8`, `16` bits, anything else counts as 32); the dual-destination mode
///   comes from `dual_dst_mode`, or else from the `hivm.tiling_dim` of the
///   tightly coupled buffer mark on the output's root `memref.alloc`
///   (`rank - 2`: row split, `rank - 1`: column split);
/// - whatever the spaces and ranks: when the first UB operand's root is a
///   `memref.alloc` of rank 3 with more than one outer row, dim 1 of the
///   alloc is marked with the hardware alignment (if `isNoNeedAlign` allows).
fn mark_fixpipe(
    m: &mut Module,
    op: OpId,
    target: &Soc,
    ub_operands: &[ValueId],
    loc: Location,
) -> Result<(), Diagnostic> {
    for (d, bytes) in fixpipe_table_marks(m, op) {
        for &v in ub_operands {
            mark_with_bytes(m, v, d, bytes, loc)?;
        }
    }
    let Some(root) = ub_operands.first().and_then(|&v| root_alloc(m, v)) else {
        return Ok(());
    };
    if m.op(root).name() != "memref.alloc" {
        return Ok(());
    }
    let rv = m.op(root).results()[0];
    let Some(rt) = strided_of(m, rv) else {
        return Ok(());
    };
    if rt.rank() == 3 && rt.shape[0] > 1 {
        let Some(bytes) = memref_of(m, rv).map(|t| hw_align_bytes(target, t)) else {
            return Ok(());
        };
        if !no_need_align(&rt, Some(1), bytes * 8) {
            mark_with_bytes(m, rv, 1, bytes, m.op(root).loc)?;
        }
    }
    Ok(())
}

/// `markAlignedDimForFixcctoub`: the checks of [`mark_aligned_dim`], then
/// one mark of `bytes` on `d`.
fn mark_with_bytes(
    m: &mut Module,
    v: ValueId,
    d: usize,
    bytes: i64,
    loc: Location,
) -> Result<(), Diagnostic> {
    match m.value_type(v) {
        ty if is_tensor(ty) => Err(Diagnostic::error(loc, "Not bufferized.")),
        Type::UnrankedMemRef { .. } => Err(Diagnostic::error(loc, "UnrankedMemRef not supported.")),
        Type::MemRef(t) if t.strides_and_offset().is_none() => {
            Err(Diagnostic::error(loc, "Non-strided-memref not supported."))
        }
        Type::MemRef(t) if d + 1 > t.rank() => {
            Err(Diagnostic::error(loc, "align dim is too large."))
        }
        Type::MemRef(_) => {
            create_align_mark(m, v, &vec![(d, bytes)], loc);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The `(dim, bytes)` entries of the Fixpipe tables, N first, for an L0C to
/// UB Fixpipe with a 2-D output; empty otherwise.
fn fixpipe_table_marks(m: &Module, op: OpId) -> Vec<(usize, i64)> {
    let d = m.op(op);
    let (Some(&src), Some(&dst)) = (
        d.group(hivm_syntax::INS).and_then(<[_]>::first),
        d.group(hivm_syntax::OUTS).and_then(<[_]>::first),
    ) else {
        return Vec::new();
    };
    let (Some(src_ty), Some(dst_ty)) = (memref_of(m, src), memref_of(m, dst)) else {
        return Vec::new();
    };
    if dst_ty.rank() != 2 || src_ty.address_space() != Some(spaces::L0C) || !is_ub(dst_ty) {
        return Vec::new();
    }
    let bits = i64::from(dst_ty.element_bit_width().unwrap_or(32));
    let width = DataWidth::of_bits(bits).unwrap_or(DataWidth::B32);
    let mode = enum_param(m, op, hivm_syntax::DMA_MODE).unwrap_or_default();
    let dual = match enum_param(m, op, hivm_syntax::DUAL_DST_MODE) {
        Some(s) if s.contains(hivm_syntax::ROW_SPLIT) => DualDst::SplitM,
        Some(s) if s.contains(hivm_syntax::COLUMN_SPLIT) => DualDst::SplitN,
        Some(_) => DualDst::N,
        None => tiling_dual_dst(m, dst),
    };
    let key = FixpipeKey {
        width,
        channel_split: m
            .attr(op, hivm_syntax::CHANNEL_SPLIT)
            .is_some_and(|a| matches!(a, Attribute::Unit) || a.as_bool() == Some(true)),
        nz2nd: mode.trim() == hivm_syntax::NZ2ND,
        nz2dn: mode.trim() == hivm_syntax::NZ2DN,
        loop_enhance: false,
        dual_dst: dual,
    };
    let mut out = Vec::new();
    if let Some(e) = n_align(&key) {
        out.push((1, e * bits / 8));
    }
    if let Some(e) = m_align(&key) {
        out.push((0, e * bits / 8));
    }
    out
}

/// The dual-destination mode implied by the `hivm.tiling_dim` of the
/// tightly coupled buffer mark on the root `memref.alloc` of `dst`.
fn tiling_dual_dst(m: &Module, dst: ValueId) -> DualDst {
    let Some(alloc) = root_alloc(m, dst).filter(|&a| m.op(a).name() == "memref.alloc") else {
        return DualDst::N;
    };
    let rv = m.op(alloc).results()[0];
    let rank = memref_of(m, rv).map_or(0, |t| t.rank()) as i64;
    let Some(mk) = marks_of(m, rv)
        .into_iter()
        .find(|&mk| m.op(mk).has_attr(attrs::TIGHTLY_COUPLED))
    else {
        return DualDst::N;
    };
    match m.attr(mk, attrs::TILING_DIM).and_then(Attribute::as_int) {
        Some(td) if td == rank - 2 => DualDst::SplitM,
        Some(td) if td == rank - 1 => DualDst::SplitN,
        _ => DualDst::N,
    }
}

/// Regbase `func.call` arguments (the second walk of `runOnOperation`):
/// each argument without a `hivm.stride_align_dims` mark that is a local
/// memref of rank > 0 (on Ascend950 only when its element is `i1`) is
/// marked on [`call_arg_dim`] with the hardware alignment, unless its root
/// is skipped for vector loads or `isNoNeedAlign` drops the dim; then
/// `markForVsstb`.
fn mark_call_args(m: &mut Module, call: OpId, target: &Soc) -> Result<(), Diagnostic> {
    let loc = m.op(call).loc;
    let args = m.op(call).operands().to_vec();
    for &v in &args {
        if has_dims_mark(m, v) {
            continue;
        }
        let Some(ty) = memref_of(m, v) else { continue };
        if !is_local(ty) || ty.rank() == 0 {
            continue;
        }
        if target.family() == Family::A5 && ty.element_bit_width() != Some(1) {
            continue;
        }
        let bits = hw_align_bytes(target, ty) * 8;
        let Some(t) = strided_of(m, v) else {
            mark_aligned_dim(m, target, v, Some(0), loc)?;
            continue;
        };
        let dim = call_arg_dim(&t);
        if dim.is_some() && root_skips_vload(m, v) {
            continue;
        }
        if !no_need_align(&t, dim, bits) {
            mark_aligned_dim(m, target, v, dim, loc)?;
        }
    }
    mark_for_vsstb(m, call, &args, loc);
    Ok(())
}

/// `isMarked`: whether `v` has a mark carrying `hivm.stride_align_dims`.
fn has_dims_mark(m: &Module, v: ValueId) -> bool {
    marks_of(m, v)
        .into_iter()
        .any(|o| m.op(o).has_attr(attrs::DIMS))
}

/// `markForVsstb`: for each `vsstb`-suitable `vector.transfer_write` of
/// the callee whose destination is (through `memref.subview`/`memref.view`)
/// argument `k`, call operand `k` gets one mark on dim `rank - 2` of
/// `(lcm(shape[rank - 2], 16) + 1) * element bytes` bytes (a stride of
/// `512·N + 32` bytes avoids bank conflicts), unless it is already marked
/// or feeds a `collapse_shape`/`reshape`.
fn mark_for_vsstb(m: &mut Module, call: OpId, args: &[ValueId], loc: Location) {
    let Some(callee) = callee_of(m, call) else {
        return;
    };
    for k in vsstb_args(m, callee) {
        let Some(&v) = args.get(k) else { continue };
        if has_dims_mark(m, v) || has_reshaping_user(m, v) {
            continue;
        }
        let Some(t) = strided_of(m, v) else { continue };
        let r = t.rank();
        if r < 2 || t.shape[r - 2] <= 0 {
            continue;
        }
        let bytes = (lcm(t.shape[r - 2], 16) + 1) * (t.bits / 8);
        create_align_mark(m, v, &vec![(r - 2, bytes)], loc);
    }
}

/// The dim a VF call argument is marked on, from its contiguous groups.
fn call_arg_dim(t: &Strided) -> Option<usize> {
    let groups = t.contiguous_groups();
    let last_group = groups.last()?;
    let last_non_unit = |g: &Vec<usize>| g.iter().rev().copied().find(|&d| !t.is_unit(d));
    if t.strides[t.rank() - 1] != 1 {
        return last_non_unit(last_group);
    }
    if groups.len() == 1 {
        return if last_group.len() == 1 {
            None
        } else {
            last_group.last().copied()
        };
    }
    last_non_unit(last_group)
}

/// Whether a value feeds a `collapse_shape` or `reshape` (padding would
/// break their contiguity).
fn has_reshaping_user(m: &Module, v: ValueId) -> bool {
    m.users(v).into_iter().any(|u| {
        matches!(
            view_kind(m.op(u).name()),
            Some(ViewKind::Collapse | ViewKind::Reshape)
        )
    })
}

/// Arguments of `callee` stored by a `vsstb`-suitable store, in walk
/// order: a `vector.transfer_write` inside an `scf.for` marked
/// `unroll_for_vsstb` whose destination is the argument itself or a
/// `memref.subview`/`memref.view` of it (`findArgNeedMark`).
fn vsstb_args(m: &Module, callee: OpId) -> Vec<usize> {
    let Some(entry) = m.func_body(callee) else {
        return Vec::new();
    };
    let params = m.block_args(entry).to_vec();
    let mut out = Vec::new();
    for op in m.walk(callee) {
        if m.op(op).name() != TRANSFER_WRITE {
            continue;
        }
        let mut cur = m.parent_op(op);
        let mut in_vsstb_loop = false;
        while let Some(p) = cur {
            if p == callee {
                break;
            }
            if flow_kind(m.op(p).name()) == Some(FlowKind::For)
                && m.op(p).has_attr(attrs::UNROLL_FOR_VSSTB)
            {
                in_vsstb_loop = true;
                break;
            }
            cur = m.parent_op(p);
        }
        if !in_vsstb_loop {
            continue;
        }
        let Some(mut base) = m.op(op).operand(1) else {
            continue;
        };
        while let Some(d) = m.defining_op(base) {
            match view_kind(m.op(d).name()) {
                Some(ViewKind::Subview | ViewKind::ByteView) => match m.op(d).operand(0) {
                    Some(src) => base = src,
                    None => break,
                },
                _ => break,
            }
        }
        if let Some(k) = params.iter().position(|&p| p == base) {
            out.push(k);
        }
    }
    out
}
