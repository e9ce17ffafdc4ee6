//! `hivm-enable-stride-align`: carries stride marks to the root
//! allocations and pads them.
//!
//! **Assumes** stride marks (`annotation.mark` with
//! `hivm.stride_align_dims`/`hivm.stride_align_value_in_byte`, or the same
//! attributes on a `memref.alloc`/`alloca`) as `hivm-mark-stride-align`
//! writes them, and memrefs not returned by `scf.if`/`scf.while` through
//! unsupported paths.
//!
//! **Guarantees**:
//! 1. marks are normalized (dims sorted, duplicates merged by lcm); a mark
//!    with dims but no bytes (or the reverse) is the error `align info must
//!    contain align dims and align bytes`, unequal lengths `size of align
//!    bytes should be matched with size of align dims`;
//! 2. requirements flow up to root allocations (through views, `scf.for`
//!    results/iter args, `scf.if` results), down to every view and loop of
//!    a root, and among the UB operands of vector ops and `hivm.hir.copy`
//!    (a copy's source never receives), until nothing changes; more than
//!    10 rounds is the error `propagate storage align failure and match the
//!    max iterations10`;
//! 3. all stride marks are removed (marks left without attributes are
//!    erased);
//! 4. each marked allocation whose padded shape differs is replaced by an
//!    allocation of the padded shape carrying nothing of the old one (a
//!    unit dim appended; membase pads dim `d + 1` for a mark on `d`,
//!    regbase pads `d`; dynamic sizes are rounded with
//!    `arith.addi/remsi/subi`) and a `memref.subview` back to the logical
//!    shape; users are retyped, `buffer_size_in_byte` marks scaled; users
//!    that cannot take the layout get a dense copy ([`super::retype`]);
//! 5. membase functions get `hivm.storage_aligned`.
//!
//! Running the pass again changes nothing: padded buffers already meet
//! their marks, so no mark survives normalization.

use crate::ir::{Attribute, Diagnostic, Module, OpId};
use crate::pass::{Pass, PassFailed};

use tilemem_soc::{Family, Soc};

use super::common::{device_funcs, memref_of, target_of};
use super::layout::{
    align_targets, align_units, aligned_shape, static_volume, sub_shape, AlignInfo,
};
use super::op_table::{attrs, is_root_alloc, MARK_OP};
use super::propagate::Propagation;
pub use super::propagate::MAX_ITERATIONS;
use super::retype::{align_up_sizes, replace_alloc, scale_buffer_size, Branches};

/// The `hivm-enable-stride-align` pass.
pub struct EnableStrideAlign;

impl Pass for EnableStrideAlign {
    fn name(&self) -> &'static str {
        "hivm-enable-stride-align"
    }

    fn description(&self) -> &'static str {
        "Propagate stride marks to root allocations and pad them"
    }

    fn run(&self, m: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let target = target_of(m);
        let mut engine = Propagation::new(target.clone());
        engine.collect(m, diags);
        if target.family() == Family::A5 {
            engine.aic_to_aiv(m);
        }
        // Errors the propagation patterns emit (a mark across blocks, a
        // view that cannot carry the requirement, ...) do not fail the
        // pass: `applyPatternsGreedily` fails only when it does not
        // converge, so the C++ goes on and prints the module.
        let converged = engine.run_to_fixed_point(m, diags);
        if !converged {
            let loc = engine.last_changed.unwrap_or_default();
            diags.push(Diagnostic::error(
                loc,
                format!(
                    "propagate storage align failure and match the max iterations{MAX_ITERATIONS}"
                ),
            ));
            return Err(PassFailed);
        }
        strip_marks(m);
        let mut branches = Branches::new(target.is_regbase());
        for (alloc, info) in std::mem::take(&mut engine.alloc_info) {
            if let Err(d) = align_allocation(m, alloc, &info, &target, &mut branches) {
                diags.push(d);
                return Err(PassFailed);
            }
        }
        branches.settle(m);
        if !target.is_regbase() {
            for f in device_funcs(m) {
                m.set_attr(f, attrs::STORAGE_ALIGNED, Attribute::Unit);
            }
        }
        Ok(())
    }
}

/// Removes the stride attributes from every `annotation.mark` (erasing
/// marks left empty) and from allocations.
fn strip_marks(m: &mut Module) {
    for op in m.all_ops() {
        if m.op(op).is_erased() {
            continue;
        }
        let d = m.op(op);
        let is_mark = d.is(MARK_OP);
        if !is_mark && !is_root_alloc(d.name()) {
            continue;
        }
        if !d.has_attr(attrs::DIMS) && !d.has_attr(attrs::BYTES) {
            continue;
        }
        m.remove_attr(op, attrs::DIMS);
        m.remove_attr(op, attrs::BYTES);
        if is_mark && m.op(op).attrs.is_empty() {
            m.erase_op(op);
        }
    }
}

/// Pads one allocation for `info` (EnableAlignAllocation).
fn align_allocation(
    m: &mut Module,
    alloc: OpId,
    info: &AlignInfo,
    target: &Soc,
    branches: &mut Branches,
) -> Result<(), Diagnostic> {
    if m.op(alloc).is_erased() {
        return Ok(());
    }
    let Some(v) = m.op(alloc).result(0) else {
        return Ok(());
    };
    let Some(ty) = memref_of(m, v).cloned() else {
        return Ok(());
    };
    let loc = m.op(alloc).loc;
    let Some(bits) = ty.element_bit_width().map(i64::from) else {
        return Ok(());
    };
    let targets = align_targets(ty.rank(), bits, info).map_err(|bytes| {
        Diagnostic::error(
            loc,
            format!("alignment of {bytes} bytes is not a whole number of {bits}-bit elements"),
        )
    })?;
    let units = align_units(&ty.shape, &targets, target.is_regbase());
    let sub = sub_shape(&ty.shape);
    let aligned = aligned_shape(&sub, &units);
    let dyn_padded = sub
        .iter()
        .zip(&units)
        .any(|(&s, &u)| crate::ir::is_dynamic(s) && u > 1);
    if aligned == sub && !dyn_padded {
        return Ok(());
    }
    let Some((dyn_sizes, sizes)) = align_up_sizes(m, alloc, &sub, &units) else {
        return Ok(());
    };
    for a in [attrs::DIMS, attrs::BYTES] {
        m.remove_attr(alloc, a);
    }
    let old_volume = static_volume(&ty.shape);
    let new_volume = static_volume(&aligned);
    let Some(view) = replace_alloc(m, alloc, aligned, dyn_sizes, sizes, branches) else {
        return Ok(());
    };
    if let (Some(o), Some(n)) = (old_volume, new_volume) {
        scale_buffer_size(m, view, o, n);
    }
    Ok(())
}
