//! `hivm-mark-stride-align`: marks the UB operands of HIVM structured ops
//! whose row starts must be 32-byte aligned.
//!
//! **Assumes** bufferized IR (memref operands; a tensor operand is the
//! error `Not bufferized.`), flattened where the target needs it, and, on
//! regbase targets, that `hivm-pre-mark-stride-align` ran if buffers read
//! by vector loads must be skipped.
//!
//! **Guarantees** for every HIVM structured op of every device function:
//! each UB operand whose last discontinuous dim `d` is not already 32-byte
//! aligned gets `annotation.mark %v {hivm.stride_align_dims = array<i32: d>,
//! hivm.stride_align_value_in_byte = array<i32: 32>}` right after its
//! definition. Membase searches the flattened operands
//! ([`last_discontinuous_dim_membase`]); regbase searches the UB operands
//! ([`last_discontinuous_dim_regbase`], with the UB DMA exemption), applies
//! the Fixpipe tables, and marks `func.call` arguments (all local args on
//! 310B/910_95, `i1` ones on 950) and `vsstb` stores. Nothing else changes;
//! identical marks are never duplicated, so the pass is idempotent.
//! Functions carrying `hivm.storage_aligned` (already aligned) are skipped.

use crate::ir::{Attribute, Diagnostic, Location, Module, OpId, Piece, Type, ValueId};
use crate::pass::{Pass, PassFailed};

use super::common::{
    add_stride_mark, callee_of, calls, device_funcs, has_stride_mark, is_local, is_tensor, is_ub,
    marks_of, memref_of, root_alloc, root_skips_vload, strided_of, Target,
};
use super::fixpipe::{m_align, n_align, DataWidth, DualDst, FixpipeKey};
use super::layout::{
    adjust_align_dim, last_discontinuous_dim_membase, last_discontinuous_dim_regbase, lcm,
    AlignInfo, Strided, HW_ALIGN_BYTES,
};
use super::op_table::{
    attrs, flow_kind, hivm_op, hivm_syntax, spaces, view_kind, FlowKind, HivmKind, HivmOp,
    ViewKind, VECTOR_STORE_OPS,
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
        let target = Target::of(m);
        let mut failed = false;
        for func in device_funcs(m) {
            // Functions already through `hivm-enable-stride-align` keep
            // their layout: rows padded with dynamic sizes cannot be proven
            // aligned again, and marking them would pad them twice.
            if m.op(func).has_attr(attrs::STORAGE_ALIGNED) {
                continue;
            }
            let ops = m.walk(func);
            for &op in &ops {
                if m.op(op).is_erased() {
                    continue;
                }
                if let Err(d) = mark_op(m, op, target, diags) {
                    diags.push(d);
                    failed = true;
                }
            }
            if target.is_regbase() {
                for call in calls(m, &ops) {
                    mark_call_args(m, call, target);
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

/// Checks the operand types of a structured op (bufferized, ranked,
/// strided); `Err` is the diagnostic to report.
fn check_operands(m: &Module, op: OpId) -> Result<(), Diagnostic> {
    let d = m.op(op);
    let loc = d.loc;
    if d.operands().iter().any(|&v| is_tensor(m.value_type(v))) {
        return Err(Diagnostic::error(loc, "Not bufferized."));
    }
    for &v in d.operands() {
        match m.value_type(v) {
            Type::UnrankedMemRef { .. } => {
                return Err(Diagnostic::error(loc, "UnrankedMemRef not supported."))
            }
            Type::MemRef(t) if t.strides_and_offset().is_none() => {
                return Err(Diagnostic::error(loc, "Non-strided-memref not supported."))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Applies the marking rules to one op.
fn mark_op(
    m: &mut Module,
    op: OpId,
    target: Target,
    diags: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let info = match hivm_op(m.op(op).name()) {
        Some(info) => info,
        None if is_unknown_structured(m, op) => {
            // Regbase takes operands as already flattened, so any
            // structured op can be analysed; membase needs the op's flatten
            // rule, which an unknown op does not have.
            if !target.is_regbase() {
                diags.push(Diagnostic::warning(m.op(op).loc, "unsupport flatten op"));
                return Ok(());
            }
            &GENERIC_STRUCTURED
        }
        None => return Ok(()),
    };
    check_operands(m, op)?;
    let loc = m.op(op).loc;
    let operands = buffer_operands(m, op);
    if info.kind == HivmKind::Custom {
        return mark_custom(m, op, &operands, loc);
    }
    let types: Vec<_> = operands.iter().filter_map(|&v| memref_of(m, v)).collect();
    if types.is_empty() || types.iter().all(|t| !is_local(t)) {
        return Ok(());
    }
    if info.flags.transpose && is_last_dim_transpose(m, op) {
        return Ok(());
    }
    if target.is_regbase() && info.kind == HivmKind::Vector && is_reduce_with_index(m, op) {
        return Ok(());
    }
    if types.iter().all(|t| t.rank() == 0) || !types.iter().any(|t| is_ub(t)) {
        return Ok(());
    }
    if target.is_regbase() && info.kind == HivmKind::Fixpipe {
        mark_fixpipe(m, op, loc);
        return Ok(());
    }
    if info.kind == HivmKind::Cube {
        return Ok(());
    }
    let all: Vec<Strided> = operands.iter().filter_map(|&v| strided_of(m, v)).collect();
    if all.iter().all(Strided::all_ones) {
        return Ok(());
    }
    let ub_operands: Vec<ValueId> = operands
        .iter()
        .copied()
        .filter(|&v| memref_of(m, v).is_some_and(is_ub))
        .collect();
    let dim = if target.is_regbase() {
        let ub: Vec<Strided> = ub_operands
            .iter()
            .filter_map(|&v| strided_of(m, v))
            .collect();
        last_discontinuous_dim_regbase(&ub, info.is_ub_dma())
    } else {
        last_discontinuous_dim_membase(&all)
    };
    let Some(dim) = dim else {
        return Ok(());
    };
    if info.kind == HivmKind::Store && ub_operands.len() == 1 {
        if let Some(done) = mark_store_through_trailing_subview(m, ub_operands[0], loc) {
            return Ok(done);
        }
    }
    let outs: Vec<ValueId> = m.op(op).group(hivm_syntax::OUTS).unwrap_or(&[]).to_vec();
    for v in ub_operands {
        if info.kind == HivmKind::Load && root_skips_vload(m, v) {
            continue;
        }
        let Some(t) = strided_of(m, v) else { continue };
        let Some(d) = shift_dim(m, op, info, &t, dim, outs.contains(&v)) else {
            continue;
        };
        if info.kind == HivmKind::Copy && outs.contains(&v) && t.collapsible(d) {
            continue;
        }
        if let Some(d) = adjust_align_dim(&t, d) {
            add_stride_mark(m, v, &vec![(d, HW_ALIGN_BYTES)], loc);
        }
    }
    Ok(())
}

/// Op-specific moves of the marked dim: a last-dim broadcast (non-8/1-bit),
/// a last-axis reduction init or a deinterleave output needs the previous
/// discontinuous dim, since the last one is walked by the vector unit
/// itself.
fn shift_dim(
    m: &Module,
    op: OpId,
    info: &HivmOp,
    t: &Strided,
    dim: usize,
    is_out: bool,
) -> Option<usize> {
    let rank = t.rank();
    if rank == 0 || dim >= rank {
        return None;
    }
    let last = rank - 1;
    let over_last = |name: &str| {
        m.attr(op, name)
            .and_then(Attribute::as_int_array)
            .is_some_and(|ds| ds.contains(&(last as i64)))
    };
    let shifts = (info.flags.last_dim_broadcast_shifts
        && t.bits != 8
        && t.bits != 1
        && over_last(hivm_syntax::BROADCAST_DIMS))
        || (info.flags.last_axis_reduce_shifts && is_out && over_last(hivm_syntax::REDUCE_DIMS))
        || (info.flags.deinterleave_shifts && is_out);
    if !shifts || dim != last {
        return Some(dim);
    }
    let reduce_init = info.flags.last_axis_reduce_shifts && is_out;
    if reduce_init && is_small_float_sum(m, op, t) {
        return None;
    }
    (0..dim).rev().find(|&k| !t.collapsible(k))
}

/// A float sum over a last axis of a power-of-two size of at most 32
/// bytes: the reduction stays within one block, its init needs no row
/// alignment.
fn is_small_float_sum(m: &Module, op: OpId, init: &Strided) -> bool {
    let d = m.op(op);
    let is_sum = d.syntax.as_ref().is_some_and(|s| {
        s.pieces
            .iter()
            .any(|p| matches!(p, Piece::Text(t) if t.trim() == hivm_syntax::SUM))
    }) || enum_param(m, op, "arith")
        .is_some_and(|p| format!("<{p}>") == hivm_syntax::SUM);
    let Some(src) = d
        .group(hivm_syntax::INS)
        .and_then(<[_]>::first)
        .and_then(|&v| memref_of(m, v))
    else {
        return false;
    };
    let Some(&n) = src.shape.last() else {
        return false;
    };
    let bytes = n.saturating_mul(init.bits) / 8;
    is_sum && src.elem.is_float() && n > 0 && bytes > 0 && bytes <= 32 && (bytes & (bytes - 1)) == 0
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

/// `hivm.hir.custom`: operand `i` is marked on the `align_dim` its
/// `arg_attrs` entry names.
fn mark_custom(
    m: &mut Module,
    op: OpId,
    operands: &[ValueId],
    loc: Location,
) -> Result<(), Diagnostic> {
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
        if !operands.contains(&v) {
            continue;
        }
        let Some(ty) = memref_of(m, v) else { continue };
        if !is_ub(ty) {
            continue;
        }
        let Some(t) = strided_of(m, v) else { continue };
        if dim < 0 || dim as usize >= t.rank() {
            return Err(Diagnostic::error(loc, "align dim is too large."));
        }
        if let Some(d) = adjust_align_dim(&t, dim as usize) {
            add_stride_mark(m, v, &vec![(d, HW_ALIGN_BYTES)], loc);
        }
    }
    Ok(())
}

/// The rank-reducing store fix: when the single UB operand of a store is a
/// `memref.subview` that only drops trailing static unit dims, the dim to
/// align is the last non-unit dim of the subview source. If that dim was
/// dropped, the source is marked instead. Returns `Some(())` when handled.
fn mark_store_through_trailing_subview(m: &mut Module, v: ValueId, loc: Location) -> Option<()> {
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
    let e = src.last_non_unit()?;
    if e >= res_rank {
        if let Some(d) = adjust_align_dim(&src, e) {
            add_stride_mark(m, parts.source, &vec![(d, HW_ALIGN_BYTES)], loc);
        }
    } else {
        let t = strided_of(m, v)?;
        if let Some(d) = adjust_align_dim(&t, e) {
            add_stride_mark(m, v, &vec![(d, HW_ALIGN_BYTES)], loc);
        }
    }
    Some(())
}

/// The attribute `name` of `op` as the text inside `#dialect.mnemonic<..>`.
fn enum_param(m: &Module, op: OpId, name: &str) -> Option<String> {
    match m.attr(op, name)? {
        Attribute::Dialect { params, .. } => params.clone(),
        Attribute::Opaque(s) | Attribute::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Fixpipe L0C to UB with a 2-D output: N/M stride marks from the tables,
/// plus dim 1 of a rank-3 root alloc (3-D dot tiling).
fn mark_fixpipe(m: &mut Module, op: OpId, loc: Location) {
    let d = m.op(op);
    let (Some(&src), Some(&dst)) = (
        d.group(hivm_syntax::INS).and_then(<[_]>::first),
        d.group(hivm_syntax::OUTS).and_then(<[_]>::first),
    ) else {
        return;
    };
    let (Some(src_ty), Some(dst_ty)) = (memref_of(m, src), memref_of(m, dst)) else {
        return;
    };
    if src_ty.address_space() != Some(spaces::L0C) || !is_ub(dst_ty) || dst_ty.rank() != 2 {
        return;
    }
    let Some(t) = strided_of(m, dst) else { return };
    let Some(width) = DataWidth::of_bits(t.bits) else {
        return;
    };
    let mode = enum_param(m, op, hivm_syntax::DMA_MODE).unwrap_or_default();
    let dual = match enum_param(m, op, hivm_syntax::DUAL_DST_MODE).as_deref() {
        Some(s) if s.contains(hivm_syntax::ROW_SPLIT) => DualDst::SplitM,
        Some(s) if s.contains(hivm_syntax::COLUMN_SPLIT) => DualDst::SplitN,
        _ => tiling_dual_dst(m, dst, t.rank()),
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
    let mut info: AlignInfo = Vec::new();
    if let Some(e) = m_align(&key) {
        info.push((0, e * t.bits / 8));
    }
    if let Some(e) = n_align(&key) {
        info.push((1, e * t.bits / 8));
    }
    add_stride_mark(m, dst, &info, loc);
    if let Some(root) = root_alloc(m, dst) {
        let rv = m.op(root).results()[0];
        if let Some(rt) = strided_of(m, rv) {
            if rt.rank() == 3 && rt.shape[0] > 1 {
                if let Some(d) = adjust_align_dim(&rt, 1) {
                    add_stride_mark(m, rv, &vec![(d, HW_ALIGN_BYTES)], loc);
                }
            }
        }
    }
}

/// The dual-destination mode implied by the `hivm.tiling_dim` of the
/// destination's tightly coupled buffer mark.
fn tiling_dual_dst(m: &Module, dst: ValueId, rank: usize) -> DualDst {
    let root = super::common::trace_root(m, dst);
    for mk in marks_of(m, root).into_iter().chain(marks_of(m, dst)) {
        if let Some(td) = m.attr(mk, attrs::TILING_DIM).and_then(Attribute::as_int) {
            if td == rank as i64 - 2 {
                return DualDst::SplitM;
            }
            if td == rank as i64 - 1 {
                return DualDst::SplitN;
            }
        }
    }
    DualDst::N
}

/// Regbase `func.call` arguments: unmarked local buffers get the
/// contiguous-group rule (on Ascend950 only `i1` buffers), then `vsstb`
/// stores in the callee ask for `512·N + 32`-byte strides.
fn mark_call_args(m: &mut Module, call: OpId, target: Target) {
    let loc = m.op(call).loc;
    let args = m.op(call).operands().to_vec();
    for &v in &args {
        let Some(ty) = memref_of(m, v) else { continue };
        if !is_local(ty) || ty.rank() == 0 || has_stride_mark(m, v) {
            continue;
        }
        if target.is_ascend950() && ty.element_bit_width() != Some(1) {
            continue;
        }
        let Some(t) = strided_of(m, v) else { continue };
        let Some(d) = call_arg_dim(&t) else { continue };
        if root_skips_vload(m, v) {
            continue;
        }
        if let Some(d) = adjust_align_dim(&t, d) {
            add_stride_mark(m, v, &vec![(d, HW_ALIGN_BYTES)], loc);
        }
    }
    let Some(callee) = callee_of(m, call) else {
        return;
    };
    for k in vsstb_args(m, callee) {
        let Some(&v) = args.get(k) else { continue };
        if has_stride_mark(m, v) || has_reshaping_user(m, v) {
            continue;
        }
        let Some(t) = strided_of(m, v) else { continue };
        let r = t.rank();
        if r < 2 || t.shape[r - 2] <= 0 {
            continue;
        }
        let bytes = (lcm(t.shape[r - 2], 16) + 1) * (t.bits / 8).max(1);
        add_stride_mark(m, v, &vec![(r - 2, bytes)], loc);
    }
}

/// The dim a VF call argument is marked on, from its contiguous groups.
fn call_arg_dim(t: &Strided) -> Option<usize> {
    let groups = t.contiguous_groups();
    let last_group = groups.last()?;
    let last_non_unit = |g: &Vec<usize>| g.iter().rev().copied().find(|&d| !t.is_unit(d));
    if t.strides[t.rank() - 1] != 1 {
        return last_non_unit(last_group).or(last_group.last().copied());
    }
    if groups.len() == 1 {
        return if last_group.len() == 1 {
            None
        } else {
            last_group.last().copied()
        };
    }
    last_non_unit(last_group).or(last_group.last().copied())
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

/// Arguments of `callee` stored by a `vsstb`-suitable store: a vector store
/// inside a loop marked `unroll_for_vsstb` whose base views the argument.
fn vsstb_args(m: &Module, callee: OpId) -> Vec<usize> {
    let Some(entry) = m.func_body(callee) else {
        return Vec::new();
    };
    let params = m.block_args(entry).to_vec();
    let mut out = Vec::new();
    for op in m.walk(callee) {
        if !VECTOR_STORE_OPS.contains(&m.op(op).name()) {
            continue;
        }
        let in_vsstb_loop = {
            let mut cur = m.parent_op(op);
            let mut found = false;
            while let Some(p) = cur {
                if p == callee {
                    break;
                }
                if flow_kind(m.op(p).name()) == Some(FlowKind::For)
                    && m.op(p).has_attr(attrs::UNROLL_FOR_VSSTB)
                {
                    found = true;
                    break;
                }
                cur = m.parent_op(p);
            }
            found
        };
        if !in_vsstb_loop {
            continue;
        }
        let Some(base) = m.op(op).operand(1) else {
            continue;
        };
        let root = super::common::trace_root(m, base);
        if let Some(k) = params.iter().position(|&p| p == root) {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}
