//! `hivm-enable-stride-align`: carries stride marks to the root
//! allocations and pads them (`EnableStrideAlign.cpp`).
//!
//! **Assumes** stride marks (`annotation.mark` with
//! `hivm.stride_align_dims`/`hivm.stride_align_value_in_byte`, or the same
//! attributes on a `memref.alloc`/`alloca`) as `hivm-mark-stride-align`
//! writes them.
//!
//! **Guarantees**, per function (host functions skipped), in the order of
//! `runOnOperation`, each step a greedy rewrite over the function as the
//! C++ runs it ([`super::greedy`]: constants hoisted and deduplicated,
//! unused side-effect-free ops erased):
//! 1. stride marks are validated and sorted by dim
//!    (`NormalizeAlignInfoPattern`: `align info must contain align dims and
//!    align bytes`, `size of align bytes should be matched with size of
//!    align dims`) and carried up to their root allocations, each hop
//!    judging the requirement afresh ([`super::propagate::up`]);
//! 2. on Ascend950, once a function with a Fixpipe has been seen, the
//!    requirements of AIC tightly coupled buffers reach the AIV buffers of
//!    the same id (`AddStrideAlignInfoForAiv`);
//! 3. rounds of down, among-operand and up propagation until the
//!    allocations' requirements stop changing; more than 10 rounds is the
//!    error `propagate storage align failure and match the max
//!    iterations10` at the function, and the pass fails;
//! 4. all stride marks are removed (`RemoveAlignMarkPattern`);
//! 5. each allocation carrying stride attributes is replaced by one of the
//!    padded shape (`EnableAlignAllocation`: a unit dim appended; membase
//!    pads dim `d + 1` for a requirement on `d`, regbase pads `d`; dynamic
//!    sizes rounded with `arith.addi/remsi/subi`) and a `memref.subview`
//!    back to the logical shape, `buffer_size_in_byte` marks scaled, the
//!    new type carried to the users ([`super::retype`]); an allocation
//!    already of that shape just loses the attributes;
//! 6. users that could not take the new type get dense copies
//!    (`handlePropagateFailure`); on regbase, conversions left between
//!    static UB memrefs become copies
//!    (`materializeRemainingStaticUBLayoutCasts`);
//! 7. membase functions get `hivm.storage_aligned`.
//! 8. the function's ops must still type-check as MLIR's verifier
//!    demands after the pass ([`super::type_agree`]); a dense copy fed to
//!    an op that ties the operand's type to region arguments or results
//!    (an `scf.while` init, a yield) fails the pass with an error at that
//!    op, where the C++ would leave the verifier to reject the module.
//!
//! Errors the patterns emit (a mark across blocks, a view that cannot
//! carry a requirement, ...) do not fail the pass: `applyPatternsGreedily`
//! fails only when it does not converge.

use std::collections::HashSet;

use crate::ir::{Attribute, Diagnostic, Module, OpId};
use crate::pass::{Pass, PassContext, PassFailed};

use tilemem_soc::{Family, Soc};

use super::common::{is_host, memref_of, target_of};
use super::greedy;
use super::layout::{align_targets, align_units, aligned_shape, static_volume, sub_shape};
use super::marks::{self, STRIDE};
use super::op_table::{attrs, FIXPIPE_OP};
pub use super::propagate::MAX_ITERATIONS;
use super::propagate::{self as prop, Rounds};
use super::retype::{self, align_up_sizes, replace_alloc, scale_buffer_size, Failures};
use super::type_agree;

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
        run_flagged(m, diags, &mut false)
    }

    /// A failure the input causes (a mark whose bytes are not a whole
    /// number of elements) is bad input; a rewrite that does not converge
    /// is a pass failure.
    fn run_in(&self, m: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        let mut bad_input = false;
        let r = run_flagged(m, &mut cx.diags, &mut bad_input);
        cx.bad_input |= r.is_err() && bad_input;
        r
    }
}

/// [`EnableStrideAlign`]'s run; sets `bad_input` when it fails on a
/// property of the input.
fn run_flagged(
    m: &mut Module,
    diags: &mut Vec<Diagnostic>,
    bad_input: &mut bool,
) -> Result<(), PassFailed> {
    let target = target_of(m);
    let mut fixpipe_seen = false;
    for func in m.funcs() {
        if is_host(m, func) {
            continue;
        }
        if !fixpipe_seen {
            fixpipe_seen = m.walk(func).into_iter().any(|o| m.op(o).is(FIXPIPE_OP));
        }
        run_on_function(m, func, &target, fixpipe_seen, diags, bad_input)?;
    }
    Ok(())
}

/// The C++ fails silently where a greedy rewrite does not converge; here
/// that is reported, as a failing pass must say why.
fn driver_failed(m: &Module, func: OpId, diags: &mut Vec<Diagnostic>) -> PassFailed {
    diags.push(Diagnostic::error(
        m.op(func).loc,
        "stride alignment rewrites did not converge",
    ));
    PassFailed
}

/// `runOnOperation`'s body for one function.
fn run_on_function(
    m: &mut Module,
    func: OpId,
    target: &Soc,
    fixpipe_seen: bool,
    diags: &mut Vec<Diagnostic>,
    bad_input: &mut bool,
) -> Result<(), PassFailed> {
    // The reader does not verify: disagreements the input already has are
    // not the pass's doing and are left to whoever reads the output.
    let ill_typed_before: HashSet<OpId> = type_agree::disagreements(m, &m.walk(func))
        .into_iter()
        .map(|d| d.op)
        .collect();
    if !prop::propagate_up_to_alloc(m, func, STRIDE, true, target, diags) {
        return Err(driver_failed(m, func, diags));
    }
    if target.family() == Family::A5 && fixpipe_seen {
        prop::add_stride_align_info_for_aiv(m);
    }
    match prop::propagate_to_operands(m, func, target, diags) {
        Rounds::Converged => {}
        Rounds::TooMany => {
            diags.push(Diagnostic::error(
                m.op(func).loc,
                format!(
                    "propagate storage align failure and match the max iterations{MAX_ITERATIONS}"
                ),
            ));
            return Err(PassFailed);
        }
        Rounds::DriverFailed => return Err(driver_failed(m, func, diags)),
    }
    if !greedy::apply(
        m,
        func,
        greedy::DEFAULT_MAX_ITERATIONS,
        diags,
        |m, op, _| prop::remove(m, op),
    ) {
        return Err(driver_failed(m, func, diags));
    }
    let mut failures = Failures::default();
    let mut error: Option<Diagnostic> = None;
    let converged = greedy::apply(
        m,
        func,
        greedy::DEFAULT_MAX_ITERATIONS,
        diags,
        |m, op, _| {
            if error.is_some() {
                return false;
            }
            match enable_align_allocation(m, op, target, &mut failures) {
                Ok(applied) => applied,
                Err(d) => {
                    error = Some(d);
                    false
                }
            }
        },
    );
    if let Some(d) = error {
        diags.push(d);
        *bad_input = true;
        return Err(PassFailed);
    }
    if !converged {
        return Err(driver_failed(m, func, diags));
    }
    retype::handle_propagate_failure(m, func, &mut failures);
    if target.is_regbase() {
        retype::materialize_remaining_casts(m, func);
    } else {
        m.set_attr(func, attrs::STORAGE_ALIGNED, Attribute::Unit);
    }
    check_types(m, func, &ill_typed_before, diags)
}

/// MLIR's verifier after the pass: a value whose type the padding or a
/// dense copy (`handlePropagateFailure`) changed must still agree with
/// the region arguments, yields and results it flows through. The copy
/// changes only the operand it feeds, so where that operand is tied to
/// other types (an `scf.while` init, a loop yield, ...) the reference
/// builds an op its verifier rejects; here that fails the pass before an
/// ill-typed module could be printed.
fn check_types(
    m: &Module,
    func: OpId,
    before: &HashSet<OpId>,
    diags: &mut Vec<Diagnostic>,
) -> Result<(), PassFailed> {
    let Some(d) = type_agree::disagreements(m, &m.walk(func))
        .into_iter()
        .find(|d| !before.contains(&d.op))
    else {
        return Ok(());
    };
    let name = m.op(d.op).name().to_string();
    diags.push(Diagnostic::error(
        m.op(d.op).loc,
        format!(
            "stride alignment would leave '{name}' ill-typed ({}): the padded layout, or \
             the dense copy made where a view cannot take it, reaches only some of the \
             values this op requires to share one type; pass the op a buffer the padding \
             leaves alone (copy the view into a buffer of its own before the op) or keep \
             the padded view out of it",
            d.message
        ),
    ));
    Err(PassFailed)
}

/// `EnableAlignAllocation` on `op` (a `memref.alloc`/`alloca` carrying
/// stride attributes): the padded allocation and a subview back, or, when
/// the shape is already aligned, just the attributes removed. `Err` for a
/// requirement that is not a whole number of elements.
fn enable_align_allocation(
    m: &mut Module,
    op: OpId,
    target: &Soc,
    failures: &mut Failures,
) -> Result<bool, Diagnostic> {
    let name = m.op(op).name();
    if name != "memref.alloc" && name != "memref.alloca" {
        return Ok(false);
    }
    let (Some(dims), Some(bytes)) = marks::read(m, op, STRIDE) else {
        return Ok(false);
    };
    let info = marks::pairs(&dims, &bytes);
    let Some(v) = m.op(op).result(0) else {
        return Ok(false);
    };
    let Some(ty) = memref_of(m, v).cloned() else {
        return Ok(false);
    };
    let loc = m.op(op).loc;
    let Some(bits) = ty.element_bit_width().map(i64::from) else {
        return Ok(false);
    };
    let targets = align_targets(ty.rank(), bits, &info).map_err(|b| {
        Diagnostic::error(
            loc,
            format!("alignment of {b} bytes is not a whole number of {bits}-bit elements"),
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
        m.remove_attr(op, attrs::DIMS);
        m.remove_attr(op, attrs::BYTES);
        return Ok(true);
    }
    let Some((dyn_sizes, sizes)) = align_up_sizes(m, op, &sub, &units) else {
        return Ok(false);
    };
    if let (Some(o), Some(n)) = (static_volume(&ty.shape), static_volume(&aligned)) {
        scale_buffer_size(m, v, o, n);
    }
    replace_alloc(m, op, aligned, dyn_sizes, sizes, failures);
    Ok(true)
}
