//! `hivm-mark-stride-align`: marks the UB operands of HIVM structured ops
//! whose row starts must be aligned to the hardware's block
//! (`MarkStrideAlign.cpp`).
//!
//! **Assumes** bufferized IR, flattened where the target needs it, and, on
//! regbase targets, that `hivm-pre-mark-stride-align` ran if buffers read
//! by vector loads must be skipped. Host functions are skipped.
//!
//! **Guarantees**, in the order of `runOnOperation`'s walk of each
//! function, for every op implementing `HIVMStructuredOpInterface`:
//! 1. ops with no memref operand outside GM are skipped (`noNeedAlign`,
//!    extra buffers included);
//! 2. `hivm.hir.custom`/`custom_macro`: operand `i` is marked on the
//!    `align_dim` of `arg_attrs[i]`, whatever its space
//!    (`markAlignedDim`);
//! 3. a tensor operand is the error `Not bufferized.`; a `vtranspose`
//!    whose transpose dims include the last loop dim is skipped (sized by
//!    `hivm-align-alloc-size`); on regbase a `vreduce` with index is
//!    skipped; ops without a memref operand of rank > 0, or without one
//!    in a local space, are skipped;
//! 4. regbase: all-unit shapes are skipped (not for Fixpipe); only the UB
//!    memrefs are searched, taken as already flattened
//!    (`getLastDiscontinuousDimRegBased`, with the UB DMA exemption of
//!    `isSubLowDimStrideAlign` and `isNotTailJumpOrStrideAlign`); Fixpipe
//!    has its own tables and the 3-D dot rule
//!    (`getLastDiscontinuousDimRegBasedForFixcctoub`);
//! 5. membase: all-unit shapes are skipped; the op is flattened under the
//!    stride marks its operands already carry
//!    ([`get_flattened`]) and searched (`getLastDiscontinuousDim`);
//! 6. a store whose only UB operand is a rank-reducing subview dropping
//!    trailing unit dims aligns its source's last non-unit dim
//!    (`fixAlignDimForSingleUBStoreSubview`);
//! 7. each UB operand (extra buffers excluded) then gets
//!    [`adjust_align_dim`], judged under the marks written so far (earlier
//!    operands' included), and when a dim remains one mark
//!    (`markAlignedDim`): `annotation.mark %v {hivm.stride_align_dims =
//!    array<i32: d>, hivm.stride_align_value_in_byte = array<i32: B>}`
//!    with `B` the hardware alignment of the operand's space, written
//!    right after the definition of `%v` (so later marks come first). A
//!    load whose root carries `hivm.skip_stride_align_for_vload` is not
//!    marked. `Not bufferized.`, `Non-strided-memref not supported.` and
//!    `align dim is too large.` are errors; the first stops the walk of
//!    that function and fails the pass;
//! 8. regbase then walks the `func.call`s: each unmarked local memref
//!    argument (on Ascend950 only `i1` ones) is marked on its last
//!    discontinuous dim, then `markForVsstb`.
//!
//! Like the C++, the pass is not idempotent: running it twice writes the
//! marks twice (`hivm-enable-stride-align` unions duplicates).

use tilemem_soc::{Family, Soc};

use crate::ir::{Attribute, Diagnostic, Location, MemRefType, Module, OpId, Type, ValueId};
use crate::pass::{Pass, PassContext, PassFailed};

use super::adjust::{
    adjust_align_dim, adjust_align_info, hivm_memref_types, last_not_unit_dim,
    last_not_unit_dim_from,
};
use super::common::{
    callee_of, calls, create_align_mark, device_funcs, enum_param, hw_align_bytes, is_local,
    is_tensor, marks_of, memref_of, root_skips_vload, target_of, trace_def_op,
};
use super::fixpipe::{m_align, n_align, DataWidth, DualDst, FixpipeKey};
use super::interfaces::flatten::{get_flattened, memref_types, DpsKind, FlattenOptions};
use super::interfaces::{IteratorType, Structured};
use super::layout::lcm;
use super::op_table::{
    attrs, flow_kind, hivm_syntax, spaces, view_kind, FlowKind, ViewKind, TRANSFER_WRITE,
};
use super::strides::{collapsible_strictly, last_dim_unit_stride};
use super::view_maps::{post_dim_after_drop, subview_dropped_dims};

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
                if let Err(d) = mark_op(m, op, target) {
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

    /// Every failure of the pass is the input's (not bufferized, a layout
    /// it does not take, a dimension past the rank): bad input.
    fn run_in(&self, m: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        let r = self.run(m, &mut cx.diags);
        cx.bad_input |= r.is_err();
        r
    }
}

/// `noNeedAlign`: no memref operand (extra buffers included) is in an
/// HIVM address space other than GM.
fn no_need_align(m: &Module, op: OpId) -> bool {
    !m.op(op).operands().iter().any(|&v| {
        memref_of(m, v)
            .and_then(MemRefType::address_space)
            .is_some_and(|s| s != spaces::GM)
    })
}

/// `markAlignedDim`: checks the operand and writes one mark on `dim` with
/// the hardware alignment of the operand's space. Values that are neither
/// tensors nor ranked memrefs (scalars, unranked memrefs) get nothing.
fn mark_aligned_dim(
    m: &mut Module,
    target: &Soc,
    v: ValueId,
    dim: Option<usize>,
    loc: Location,
) -> Result<(), Diagnostic> {
    let Some(d) = dim else { return Ok(()) };
    let bytes = match checked_memref(m, v, d, loc)? {
        Some(t) => hw_align_bytes(target, t),
        None => return Ok(()),
    };
    create_align_mark(m, v, &vec![(d, bytes)], loc);
    Ok(())
}

/// The checks `markAlignedDim` and `markAlignedDimForFixcctoub` make
/// before marking `v` on `d`: the memref type to mark, `None` when `v` is
/// not a ranked memref (scalars, unranked memrefs). Errors, in the C++'s
/// order: `Not bufferized.`, `Non-strided-memref not supported.`, `align
/// dim is too large.`.
fn checked_memref(
    m: &Module,
    v: ValueId,
    d: usize,
    loc: Location,
) -> Result<Option<&MemRefType>, Diagnostic> {
    match m.value_type(v) {
        ty if is_tensor(ty) => Err(Diagnostic::error(loc, "Not bufferized.")),
        // `isa<MemRefType>` is false for an unranked memref, so the C++'s
        // "UnrankedMemRef not supported." is never reached: such a value,
        // like a scalar, gets nothing.
        // The C++ asks the layout's kind: neither the identity nor a
        // `strided<..>` layout (an affine map) is refused.
        Type::MemRef(t) if matches!(t.layout, crate::ir::Layout::Map(_)) => {
            Err(Diagnostic::error(loc, "Non-strided-memref not supported."))
        }
        Type::MemRef(t) if d + 1 > t.rank() => {
            Err(Diagnostic::error(loc, "align dim is too large."))
        }
        Type::MemRef(t) => Ok(Some(t)),
        _ => Ok(None),
    }
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
    if checked_memref(m, v, d, loc)?.is_some() {
        create_align_mark(m, v, &vec![(d, bytes)], loc);
    }
    Ok(())
}

/// The memref types of the op's HIVM operands (extra buffers excluded)
/// with rank > 0 (`getMemRefTypes(getHIVMOperandTypes(false))`).
fn operand_memrefs(s: &Structured) -> Vec<MemRefType> {
    hivm_memref_types(s)
}

/// `isAllOnesShape`.
fn all_ones(types: &[MemRefType]) -> bool {
    types.iter().all(|t| t.shape.iter().all(|&d| d == 1))
}

/// Applies the marking rules to one op (`runOnOperation`'s walk).
fn mark_op(m: &mut Module, op: OpId, target: &Soc) -> Result<(), Diagnostic> {
    let Some(s) = Structured::of(m, op) else {
        return Ok(());
    };
    if no_need_align(m, op) {
        return Ok(());
    }
    let loc = m.op(op).loc;
    if s.is("custom") || s.is("custom_macro") {
        return mark_custom(m, op, target, loc);
    }
    if !s.has_pure_buffer_semantics() {
        return Err(Diagnostic::error(loc, "Not bufferized."));
    }
    if s.is("vtranspose") && is_last_dim_transpose(&s) {
        return Ok(());
    }
    if target.is_regbase() && s.is("vreduce") && is_reduce_with_index(&s) {
        return Ok(());
    }
    let memrefs = operand_memrefs(&s);
    if memrefs.is_empty() || !memrefs.iter().any(is_local) {
        return Ok(());
    }
    let ub_dma = s.is("load") || s.is("store") || s.is("copy");
    let dim = if target.is_regbase() {
        let fixpipe = s.is("fixpipe");
        if !fixpipe && all_ones(&memrefs) {
            return Ok(());
        }
        let ub: Vec<MemRefType> = memrefs.iter().filter(is_ub).cloned().collect();
        if ub.is_empty() {
            return Ok(());
        }
        let identity: Vec<usize> = (0..ub[0].rank()).collect();
        if fixpipe {
            return mark_fixpipe(m, op, target, identity.len(), loc);
        }
        last_discontinuous_dim_regbase(&ub, &identity, ub_dma, target)
    } else {
        if all_ones(&memrefs) {
            return Ok(());
        }
        let f = get_flattened(
            &s,
            FlattenOptions {
                check_mark_stride: true,
                ..FlattenOptions::default()
            },
        );
        last_discontinuous_dim(
            &f.memref_types(DpsKind::All),
            &memrefs,
            f.input_reassociation(),
        )
    };
    let ub_operands = s.target_space_operands(spaces::UB, false);
    let is_load = s.is("load");
    let is_store = s.is("store");
    let mut single: Option<(ValueId, Option<usize>)> = None;
    if is_store && ub_operands.len() == 1 {
        single = store_subview_decision(m, ub_operands[0], dim);
    }
    for v in ub_operands {
        let (mark_target, d) = single.unwrap_or((v, dim));
        if dim.is_some() && is_load && root_skips_vload(m, mark_target) {
            continue;
        }
        let adjusted = adjust_align_dim(m, target, op, mark_target, d);
        mark_aligned_dim(m, target, mark_target, adjusted, loc)?;
    }
    Ok(())
}

/// Whether a memref type lives in UB.
fn is_ub(t: &&MemRefType) -> bool {
    t.address_space() == Some(spaces::UB)
}

/// `VTransposeOp::isLastDimTranspose`: the transpose loop dims include
/// the last loop dim.
pub fn is_last_dim_transpose(s: &Structured) -> bool {
    let n = s.num_loops() as i64;
    s.loop_dims(IteratorType::Transpose).contains(&(n - 1))
}

/// `utils::isReduceWithIndex`: `vreduce <max_with_index_*>` /
/// `<min_with_index_*>`.
fn is_reduce_with_index(s: &Structured) -> bool {
    let in_attr = s
        .enum_param("arith")
        .is_some_and(|a| a.contains(hivm_syntax::WITH_INDEX));
    let in_syntax = s.m.op(s.op).syntax.as_ref().is_some_and(|x| {
        x.pieces
            .iter()
            .any(|p| matches!(p, crate::ir::Piece::Text(t) if t.contains(hivm_syntax::WITH_INDEX)))
    });
    in_attr || in_syntax
}

/// Membase `getLastDiscontinuousDim` over the flattened memref types, the
/// original ones and the flattening's groups: when some flattened memref's
/// last stride is not 1, the last non-unit dim of any group; otherwise,
/// with one group nothing, else the last non-unit dim of the groups before
/// the last.
pub fn last_discontinuous_dim(
    flattened: &[MemRefType],
    original: &[MemRefType],
    groups: &[Vec<usize>],
) -> Option<usize> {
    if groups.is_empty() {
        return None;
    }
    if !flattened.iter().all(last_dim_unit_stride) {
        return last_not_unit_dim_from(original, groups, groups.len() as isize - 1);
    }
    if groups.len() == 1 {
        return None;
    }
    last_not_unit_dim_from(original, groups, groups.len() as isize - 2)
}

/// `getLastDiscontinuousDim` on the regbase path (VF call arguments): the
/// last group's last non-unit dim when some last stride is not 1; with one
/// group, nothing for a single dim, else its last dim; else the last
/// group's last non-unit dim.
fn last_discontinuous_dim_vf(types: &[MemRefType], groups: &[Vec<usize>]) -> Option<usize> {
    let last = groups.last()?;
    if !types.iter().all(last_dim_unit_stride) {
        return last_not_unit_dim(types, last);
    }
    if groups.len() == 1 {
        return if last.len() == 1 {
            None
        } else {
            last.last().copied()
        };
    }
    last_not_unit_dim(types, last)
}

/// `getLastDiscontinuousDimRegBased` over the UB memref types, taken as
/// already flattened (`identity` groups): the last non-unit dim when some
/// last stride is not 1; none for a UB DMA whose UB side has an aligned
/// sub-low dim and no tail jump; none for rank 1; else the last non-unit
/// dim.
pub fn last_discontinuous_dim_regbase(
    types: &[MemRefType],
    identity: &[usize],
    ub_dma: bool,
    target: &Soc,
) -> Option<usize> {
    if !types.iter().all(last_dim_unit_stride) {
        return last_not_unit_dim(types, identity);
    }
    if ub_dma
        && types.iter().any(|t| {
            let bits = hw_align_bytes(target, t) * 8;
            sub_low_dim_stride_aligned(t, bits) && not_tail_jump_or_stride_aligned(t, bits)
        })
    {
        return None;
    }
    if identity.len() == 1 {
        return None;
    }
    last_not_unit_dim(types, identity)
}

/// `isSubLowDimStrideAlign`: rank ≤ 2, or the stride of dim `rank - 3` is
/// a static multiple of the hardware alignment.
fn sub_low_dim_stride_aligned(t: &MemRefType, hw_bits: i64) -> bool {
    let r = t.rank();
    if r <= 2 {
        return true;
    }
    let bits = i64::from(t.element_bit_width().unwrap_or(8));
    match t.strides_and_offset() {
        Some((s, _)) => !crate::ir::is_dynamic(s[r - 3]) && (s[r - 3] * bits) % hw_bits == 0,
        None => false,
    }
}

/// `isNotTailJumpOrStrideAlign`: rank 1, or the static last size equals
/// the stride of dim `rank - 2`, or that stride is a multiple of the
/// hardware alignment.
fn not_tail_jump_or_stride_aligned(t: &MemRefType, hw_bits: i64) -> bool {
    let r = t.rank();
    if r == 1 {
        return true;
    }
    let bits = i64::from(t.element_bit_width().unwrap_or(8));
    match t.strides_and_offset() {
        Some((s, _)) if r >= 2 && !crate::ir::is_dynamic(t.shape[r - 1]) => {
            let s2 = s[r - 2];
            t.shape[r - 1] == s2 || (!crate::ir::is_dynamic(s2) && (s2 * bits) % hw_bits == 0)
        }
        _ => false,
    }
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
/// store is a rank-reducing `memref.subview` whose dropped dims
/// (`getDroppedDims`, MLIR's rank-reduction mask, which tells dropped unit
/// dims apart by their strides) are a suffix of the source's dims, each
/// sliced with static size 1, the dim to align is the last non-unit dim of
/// the subview's source; when that dim was dropped, the source is marked
/// instead. Applies even when the op itself found no dim. `None`: the
/// pattern does not match.
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
    let src = memref_of(m, parts.source)?;
    let res_rank = memref_of(m, v)?.rank();
    if src.rank() <= res_rank {
        return None;
    }
    let dropped = subview_dropped_dims(m, sv)?;
    let first = dropped.iter().position(|&d| d)?;
    if dropped[first..].iter().any(|&d| !d)
        || parts.sizes.len() != src.rank()
        || parts.sizes[first..]
            .iter()
            .any(|s| s.as_static() != Some(1))
    {
        return None;
    }
    let identity: Vec<usize> = (0..src.rank()).collect();
    let Some(e) = last_not_unit_dim(std::slice::from_ref(src), &identity) else {
        return Some((v, dim));
    };
    if dropped[e] {
        return Some((parts.source, Some(e)));
    }
    let mapped = post_dim_after_drop(e, &dropped);
    if mapped < 0 {
        return Some((parts.source, Some(e)));
    }
    Some((v, Some(mapped as usize)))
}

/// Regbase Fixpipe (`getLastDiscontinuousDimRegBasedForFixcctoub` and
/// the 3-D dot rule of `runOnOperation`):
/// - L0C to UB with a 2-D output (operand 1): the N table gives bytes for
///   the last dim of the first UB operand's rank (by position, even when
///   it is unit), then the M table for the dim before it; each entry is
///   one mark on every UB operand, with no adjustment. The element width
///   is the output's (`4`, `8`, `16` bits, anything else counts as 32);
///   the dual-destination mode comes from `dual_dst_mode`, or else from
///   the `hivm.tiling_dim` of the tightly coupled buffer mark on the
///   output's root `memref.alloc` (`rank - 2`: row split, `rank - 1`:
///   column split);
/// - whatever the spaces and ranks: when the first UB operand's root is a
///   `memref.alloc` of rank 3 with more than one outer row, dim 1 of the
///   alloc is marked with the hardware alignment, if `adjustAlignInfo`
///   keeps it.
fn mark_fixpipe(
    m: &mut Module,
    op: OpId,
    target: &Soc,
    rank: usize,
    loc: Location,
) -> Result<(), Diagnostic> {
    let ub_operands = Structured::of(m, op)
        .map(|s| s.target_space_operands(spaces::UB, false))
        .unwrap_or_default();
    for (d, bytes) in fixpipe_table_marks(m, op, rank) {
        for &v in &ub_operands {
            mark_with_bytes(m, v, d, bytes, loc)?;
        }
    }
    let Some(root) = ub_operands
        .first()
        .and_then(|&v| trace_def_op(m, v, |n| n == "memref.alloc"))
    else {
        return Ok(());
    };
    let rv = m.op(root).results()[0];
    let Some(rt) = memref_of(m, rv).cloned() else {
        return Ok(());
    };
    if rt.rank() == 3 && rt.shape[0] > 1 {
        let bytes = hw_align_bytes(target, &rt);
        let info = adjust_align_info(m, target, root, rv, &[(1, bytes)]);
        if let Some(&(d, b)) = info.first() {
            mark_with_bytes(m, rv, d, b, m.op(root).loc)?;
        }
    }
    Ok(())
}

/// The `(dim, bytes)` entries of the Fixpipe tables, N first, for an L0C to
/// UB Fixpipe with a 2-D output; empty otherwise. `rank` is the rank of
/// the first UB operand (the dims are taken from its identity groups).
fn fixpipe_table_marks(m: &Module, op: OpId, rank: usize) -> Vec<(usize, i64)> {
    let d = m.op(op);
    let (Some(&src), Some(&dst)) = (d.operands().first(), d.operands().get(1)) else {
        return Vec::new();
    };
    let (Some(src_ty), Some(dst_ty)) = (memref_of(m, src), memref_of(m, dst)) else {
        return Vec::new();
    };
    if dst_ty.rank() != 2
        || src_ty.address_space() != Some(spaces::L0C)
        || dst_ty.address_space() != Some(spaces::UB)
    {
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
    if rank == 0 {
        return out;
    }
    if let Some(e) = n_align(&key) {
        out.push((rank - 1, e * bits / 8));
    }
    if let Some(e) = m_align(&key) {
        out.push((rank.saturating_sub(2), e * bits / 8));
    }
    out
}

/// The dual-destination mode implied by the `hivm.tiling_dim` of the
/// tightly coupled buffer mark on the root `memref.alloc` of `dst`.
fn tiling_dual_dst(m: &Module, dst: ValueId) -> DualDst {
    let Some(alloc) = trace_def_op(m, dst, |n| n == "memref.alloc") else {
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
        Some(td) if td != -1 && td == rank - 2 => DualDst::SplitM,
        Some(td) if td != -1 && td == rank - 1 => DualDst::SplitN,
        _ => DualDst::N,
    }
}

/// Regbase `func.call` arguments (the second walk of `runOnOperation`):
/// each argument without a `hivm.stride_align_dims` mark that is a local
/// memref of rank > 0 (on Ascend950 only when its element is `i1`) is
/// marked on its last discontinuous dim ([`continuous_groups`],
/// `getLastDiscontinuousDim`) with the hardware alignment, unless its root
/// is skipped for vector loads or `isNoNeedAlign` drops the dim; then
/// `markForVsstb`.
fn mark_call_args(m: &mut Module, call: OpId, target: &Soc) -> Result<(), Diagnostic> {
    let loc = m.op(call).loc;
    let args = m.op(call).operands().to_vec();
    for &v in &args {
        if has_dims_mark(m, v) {
            continue;
        }
        let Some(ty) = memref_of(m, v).cloned() else {
            continue;
        };
        if ty.rank() == 0 || !is_local(&ty) {
            continue;
        }
        if target.family() == Family::A5 && ty.element_bit_width() != Some(1) {
            continue;
        }
        let types = memref_types(&[Type::MemRef(ty.clone())]);
        let groups = continuous_groups(&types);
        let dim = last_discontinuous_dim_vf(&types, &groups);
        if dim.is_some() && root_skips_vload(m, v) {
            continue;
        }
        let adjusted = adjust_align_dim(m, target, call, v, dim);
        mark_aligned_dim(m, target, v, adjusted, loc)?;
    }
    mark_for_vsstb(m, call, &args, loc);
    Ok(())
}

/// `util::getContinuousReassociation(types, {}, {})`: all dims start in
/// one group; when the types do not collapse strictly within it, it is
/// cut wherever two neighbours do not; then neighbouring groups combine
/// when one of them is all unit (in order) and the combination collapses
/// strictly (`combineReassociationGroups`).
pub fn continuous_groups(types: &[MemRefType]) -> Vec<Vec<usize>> {
    let Some(rank) = types.first().map(MemRefType::rank) else {
        return Vec::new();
    };
    if types.iter().any(|t| t.rank() != rank) {
        return Vec::new();
    }
    let initial: Vec<Vec<usize>> = vec![(0..rank).collect()];
    let whole = types.iter().all(|t| collapsible_strictly(t, &initial));
    let refined = if whole {
        initial
    } else {
        let mut out: Vec<Vec<usize>> = Vec::new();
        for group in &initial {
            let Some(&first) = group.first() else {
                continue;
            };
            let mut cur = vec![first];
            for w in group.windows(2) {
                let pair = vec![vec![w[0], w[1]]];
                if types.iter().all(|t| collapsible_strictly(t, &pair)) {
                    cur.push(w[1]);
                } else {
                    out.push(std::mem::take(&mut cur));
                    cur.push(w[1]);
                }
            }
            if !cur.is_empty() {
                out.push(cur);
            }
        }
        out
    };
    combine_groups(types, &refined)
}

/// `combineReassociationGroups`.
fn combine_groups(types: &[MemRefType], groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let Some(first) = groups.first() else {
        return Vec::new();
    };
    let one_side = |g: &[usize], start: usize| {
        types.iter().all(|t| {
            g.iter()
                .enumerate()
                .all(|(k, &d)| d == start + k && t.shape.get(d) == Some(&1))
        })
    };
    let mut out = Vec::new();
    let mut prev = first.clone();
    let mut size = first.len();
    for cur in &groups[1..] {
        let prev_start = size - prev.len();
        let combinable = one_side(cur, size) || one_side(&prev, prev_start);
        let mut joined = prev.clone();
        joined.extend(cur);
        if combinable
            && types
                .iter()
                .all(|t| collapsible_strictly(t, &[joined.clone()]))
        {
            prev = joined;
        } else {
            out.push(std::mem::replace(&mut prev, cur.clone()));
        }
        size += cur.len();
    }
    if !prev.is_empty() {
        out.push(prev);
    }
    out
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
        let Some(t) = memref_of(m, v) else { continue };
        let r = t.rank();
        if r < 2 || t.shape[r - 2] <= 0 {
            continue;
        }
        let elem_bytes = i64::from(t.element_bit_width().unwrap_or(8) / 8);
        let bytes = (lcm(t.shape[r - 2], 16) + 1) * elem_bytes;
        create_align_mark(m, v, &vec![(r - 2, bytes)], loc);
    }
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
