//! `hivm-align-alloc-size`: pads the allocations of ops whose hardware
//! implementation works on whole blocks (`HIVMAlignAllocSize.cpp`).
//!
//! **Assumes** bufferized IR. Host functions are skipped.
//!
//! **Guarantees**, per function:
//! 1. `markAllocAlign`: each size requirement `getUnAlignSizeInfo` gives
//!    ([`super::interfaces::unaligned`]) becomes one mark
//!    `annotation.mark %v {hivm.alloc_align_dims = array<i32: d>,
//!    hivm.alloc_align_value_in_byte = array<i32: B>}` right after the
//!    definition of the operand, for
//!    - a `vtranspose` whose transpose dims include the last loop dim,
//!      unless `disable_align`: every operand's transpose dims in whole
//!      blocks (32-bit elements: one dim in two blocks);
//!    - a `vcast` from `i32`/`i16` to `i8`, unless the function has
//!      `hivm.disable_size_align_for_cast`: the block rules of narrowing
//!      casts, of any rank;
//!    - a `vsort`: the last dim in whole bit-sort repeats;
//!
//!    an op that is not bufferized, or whose rule has no answer (an
//!    operand outside `ub` and `cbuf`, a 32-bit transpose over more than
//!    two dims none of which is already two blocks long), fails the pass.
//!    Each is a property of the module, which the C++ reports by failing
//!    without a message: bad input (exit 2), with the reason and what to
//!    change; rewrites that do not converge stay a failure to meet the
//!    request (exit 1);
//! 2. the marks are carried up to their root allocations as
//!    `hivm-enable-stride-align` carries stride marks
//!    ([`super::propagate::up`], size mode);
//! 3. `AlignAllocSizePattern`: a `memref.alloc` carrying size attributes
//!    is replaced by one whose marked dims are rounded up to `bytes /
//!    element bytes` elements (no unit dim appended; dynamic sizes rounded
//!    at run time) and a `memref.subview` back to the logical shape, the
//!    new type carried to the users; an allocation already of that size
//!    just loses the attributes; a `memref.alloca` keeps them.
//!
//! Allocations already of that size are left alone, so the pass is
//! idempotent on its own output.

use crate::ir::{Diagnostic, Module, OpId};
use crate::pass::{Pass, PassContext, PassFailed};

use super::common::{is_host, memref_of, target_of};
use super::greedy;
use super::interfaces::{unaligned, Structured};
use super::layout::align_up;
use super::marks::{self, ALLOC};
use super::op_table::{attrs, spaces};
use super::propagate as prop;
use super::retype::{align_up_sizes, replace_alloc, Failures};

/// The attribute that turns size alignment off for one `vtranspose`.
pub const DISABLE_ALIGN: &str = "disable_align";

/// The `hivm-align-alloc-size` pass.
pub struct AlignAllocSize;

impl Pass for AlignAllocSize {
    fn name(&self) -> &'static str {
        "hivm-align-alloc-size"
    }

    fn description(&self) -> &'static str {
        "Pad allocations of transposes, i8 casts and sorts to whole hardware blocks"
    }

    fn run(&self, m: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let target = target_of(m);
        for func in m.funcs() {
            if is_host(m, func) {
                continue;
            }
            if let Err(op) = mark_alloc_align(m, func) {
                // The C++ signals failure without a message.
                diags.push(Diagnostic::error(
                    m.op(op).loc,
                    format!(
                        "cannot align the allocation sizes this op needs: {}",
                        why_not_marked(m, op)
                    ),
                ));
                return Err(PassFailed);
            }
            if !prop::propagate_up_to_alloc(m, func, ALLOC, false, &target, diags) {
                diags.push(Diagnostic::error(
                    m.op(func).loc,
                    "size alignment rewrites did not converge",
                ));
                return Err(PassFailed);
            }
            let mut failures = Failures::default();
            let converged = greedy::apply(
                m,
                func,
                greedy::DEFAULT_MAX_ITERATIONS,
                diags,
                |m, op, _| align_alloc_size(m, op, &mut failures),
            );
            if !converged {
                diags.push(Diagnostic::error(
                    m.op(func).loc,
                    "size alignment rewrites did not converge",
                ));
                return Err(PassFailed);
            }
        }
        Ok(())
    }

    /// A failure to mark an op is the module's (bad input: exit 2); one
    /// of the rewrites not converging is a request not met (exit 1).
    fn run_in(&self, m: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        let before = cx.diags.len();
        let r = self.run(m, &mut cx.diags);
        cx.bad_input |= r.is_err()
            && cx.diags[before..]
                .iter()
                .any(|d| d.message.starts_with("cannot align the allocation sizes"));
        r
    }
}

/// Why `markAllocAlign` has no size rule for `op` (which it found not
/// bufferized or whose `getUnAlignSizeInfo` failed), and what to change.
fn why_not_marked(m: &Module, op: OpId) -> String {
    let Some(s) = Structured::of(m, op) else {
        return "the op is not a structured HIVM op".to_string();
    };
    if !s.has_pure_buffer_semantics() {
        return "the op is not bufferized (its operands are tensors); run the pass on \
                bufferized HIVM, whose operands are memrefs"
            .to_string();
    }
    let outside = m.op(op).operands().iter().find_map(|&v| {
        let space = memref_of(m, v)?.address_space()?;
        (space != spaces::UB && space != spaces::L1).then(|| space.to_string())
    });
    if let Some(space) = outside {
        return format!(
            "an operand is in `{space}`, and only `ub` and `cbuf` have a hardware block to pad \
             to; give the op's operands an on-chip buffer space"
        );
    }
    if s.is("vtranspose") {
        return "a transpose of 32-bit elements over more than two dims, none of them already \
                a multiple of two blocks, has no size rule; decompose it into transposes of two \
                dims first"
            .to_string();
    }
    "its operand shapes have no size rule (a rank-0 operand); give the op ranked operands"
        .to_string()
}

/// `markAllocAlign`: the size marks of every transpose, cast and sort of
/// `func`; `Err(op)` for an op whose rule fails.
fn mark_alloc_align(m: &mut Module, func: OpId) -> Result<(), OpId> {
    let disable_cast = m.op(func).has_attr(attrs::DISABLE_CAST_SIZE_ALIGN);
    for op in greedy::post_order(m, func) {
        if m.op(op).is_erased() {
            continue;
        }
        let Some(s) = Structured::of(m, op) else {
            continue;
        };
        let infos = if s.is("vtranspose") {
            if !super::mark::is_last_dim_transpose(&s) {
                continue;
            }
            let disabled = s.attr(DISABLE_ALIGN).is_some_and(|a| {
                matches!(a, crate::ir::Attribute::Unit) || a.as_bool() == Some(true)
            });
            if disabled {
                continue;
            }
            if !s.has_pure_buffer_semantics() {
                return Err(op);
            }
            unaligned::transpose(&s)
        } else if s.is("vcast") {
            if disable_cast {
                continue;
            }
            let elem = |v: Option<&crate::ir::ValueId>| {
                v.and_then(|&v| m.value_type(v).element_type().cloned())
            };
            let (src, dst) = (elem(s.named("src").first()), elem(s.named("dst").first()));
            let int = |t: &Option<crate::ir::Type>, w: u32| matches!(t, Some(crate::ir::Type::Integer { width, .. }) if *width == w);
            if !((int(&src, 32) || int(&src, 16)) && int(&dst, 8)) {
                continue;
            }
            if !s.has_pure_buffer_semantics() {
                return Err(op);
            }
            unaligned::cast(&s)
        } else if s.is("vsort") {
            if !s.has_pure_buffer_semantics() {
                return Err(op);
            }
            unaligned::sort(&s)
        } else {
            continue;
        };
        let loc = m.op(op).loc;
        for (v, d, bytes) in infos.map_err(|_| op)? {
            marks::create(m, v, &vec![(d, bytes)], ALLOC, loc);
        }
    }
    Ok(())
}

/// `AlignAllocSizePattern` on `op` (a `memref.alloc` carrying size
/// attributes).
fn align_alloc_size(m: &mut Module, op: OpId, failures: &mut Failures) -> bool {
    if !m.op(op).is("memref.alloc") {
        return false;
    }
    let (Some(dims), Some(bytes)) = marks::read(m, op, ALLOC) else {
        return false;
    };
    let Some(v) = m.op(op).result(0) else {
        return false;
    };
    let Some(ty) = memref_of(m, v).cloned() else {
        return false;
    };
    let elem_bytes = i64::from(ty.element_bit_width().unwrap_or(8) / 8).max(1);
    let mut units = vec![1i64; ty.rank()];
    for (&d, &b) in dims.iter().zip(&bytes) {
        if let Some(u) = usize::try_from(d).ok().and_then(|d| units.get_mut(d)) {
            *u = (b / elem_bytes).max(1);
        }
    }
    let aligned: Vec<i64> = ty
        .shape
        .iter()
        .zip(&units)
        .map(|(&s, &u)| {
            if crate::ir::is_dynamic(s) {
                s
            } else {
                align_up(s, u)
            }
        })
        .collect();
    let dyn_padded = ty
        .shape
        .iter()
        .zip(&units)
        .any(|(&s, &u)| crate::ir::is_dynamic(s) && u > 1);
    if aligned == ty.shape && !dyn_padded {
        m.remove_attr(op, attrs::ALLOC_DIMS);
        m.remove_attr(op, attrs::ALLOC_BYTES);
        return true;
    }
    let Some((dyn_sizes, sizes)) = align_up_sizes(m, op, &ty.shape, &units) else {
        return false;
    };
    replace_alloc(m, op, aligned, dyn_sizes, sizes, failures);
    true
}
