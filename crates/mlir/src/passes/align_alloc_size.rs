//! `hivm-align-alloc-size`: pads the allocations of ops whose hardware
//! implementation works on whole blocks (`HIVMAlignAllocSize.cpp`).
//!
//! **Assumes** bufferized IR. Host functions are skipped.
//!
//! **Guarantees** (`markAllocAlign`) for every UB operand of
//! - a `vtranspose` that moves the last dim, unless it has
//!   `disable_align = true`: the last two dims rounded up to 32 bytes each;
//! - a `vcast` from `i32`/`i16` to `i8` (unless the function has
//!   `hivm.disable_size_align_for_cast`): the second-to-last dim rounded up
//!   to 32 elements, and the last dim of the `i8` side to 32 bytes;
//! - a `vsort`: the last dim rounded up to 32 elements;
//!
//! the requirement is carried to the root allocation (through views, loop
//! and branch results, `PropagateAlignUpToRootAllocationPattern`). A
//! `memref.alloc` root is replaced (`AlignAllocSizePattern`) by an
//! allocation of the padded shape (no unit dim appended; dynamic sizes
//! rounded at run time; the index constants this needs are materialised
//! once at the top of the function, as the greedy driver's folder does) and
//! a `memref.subview` back to the logical shape,
//! with users retyped; a `memref.alloca` root only carries the requirement
//! as `hivm.alloc_align_dims`/`hivm.alloc_align_value_in_byte`.
//! Allocations already of that size are left alone, so the pass is
//! idempotent on its own output.

use crate::ir::{Attribute, Diagnostic, Module, OpId, ValueId};
use crate::pass::{Pass, PassFailed};
use tilemem_soc::Soc;

use super::common::{device_funcs, hw_align_bytes, info_attrs, is_ub, memref_of, target_of};
use super::layout::{align_up, normalize_info, AlignInfo};
use super::op_table::{attrs, hivm_op, hivm_syntax};
use super::propagate::Propagation;
use super::retype::{align_up_sizes, replace_alloc, Branches};

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
        let mut prop = Propagation::new(target.clone());
        prop.adjust = false;
        for func in device_funcs(m) {
            let disable_cast = m.op(func).has_attr(attrs::DISABLE_CAST_SIZE_ALIGN);
            for op in m.walk(func) {
                for (v, info) in requirements(m, &target, op, disable_cast) {
                    prop.up(m, v, &info, diags, 0);
                }
            }
        }
        // Errors of the propagation pattern do not fail the pass (see
        // `crate::pass`): the C++ signals failure only when the greedy
        // driver does not converge.
        let mut branches = Branches::new(target_of(m).is_regbase());
        for (alloc, info) in std::mem::take(&mut prop.alloc_info) {
            pad_allocation(m, alloc, &info, &mut branches);
        }
        branches.settle(m);
        Ok(())
    }
}

/// Size requirements (`(dim, bytes)`: round `dim` up to `bytes /
/// element bytes` elements) of the UB operands of `op`.
fn requirements(
    m: &Module,
    target: &Soc,
    op: OpId,
    disable_cast: bool,
) -> Vec<(ValueId, AlignInfo)> {
    let Some(row) = hivm_op(m.op(op).name()) else {
        return Vec::new();
    };
    let operands: Vec<ValueId> = m
        .op(op)
        .operands()
        .iter()
        .copied()
        .filter(|&v| memref_of(m, v).is_some_and(is_ub))
        .collect();
    let mut out = Vec::new();
    if row.flags.transpose {
        let moves_last = m
            .attr(op, hivm_syntax::PERMUTATION)
            .and_then(Attribute::as_int_array)
            .is_some_and(|p| p.last().is_some_and(|&l| l != p.len() as i64 - 1));
        // `disable_align = true` opts a transpose out (getDisableAlign).
        let disabled = m
            .attr(op, DISABLE_ALIGN)
            .is_some_and(|a| matches!(a, Attribute::Unit) || a.as_bool() == Some(true));
        if !moves_last || disabled {
            return out;
        }
        for v in operands {
            let t = memref_of(m, v).unwrap();
            let r = t.rank();
            if r >= 2 {
                let hw = hw_align_bytes(target, t);
                out.push((v, vec![(r - 2, hw), (r - 1, hw)]));
            }
        }
    } else if row.flags.cast && !disable_cast {
        let widths: Vec<(ValueId, u32, bool)> = operands
            .iter()
            .map(|&v| {
                let t = memref_of(m, v).unwrap();
                (v, t.element_bit_width().unwrap_or(0), t.elem.is_integer())
            })
            .collect();
        let narrows_to_i8 = widths.len() >= 2
            && widths
                .first()
                .is_some_and(|&(_, w, int)| int && (w == 32 || w == 16))
            && widths.last().is_some_and(|&(_, w, int)| int && w == 8);
        if !narrows_to_i8 {
            return out;
        }
        for (v, w, _) in widths {
            let t = memref_of(m, v).unwrap();
            let r = t.rank();
            let elem_bytes = i64::from(w / 8).max(1);
            let mut info = Vec::new();
            if r >= 2 {
                info.push((r - 2, 32 * elem_bytes));
            }
            if w == 8 && r >= 1 {
                info.push((r - 1, hw_align_bytes(target, t)));
            }
            out.push((v, normalize_info(info)));
        }
    } else if row.flags.sort {
        for v in operands {
            let t = memref_of(m, v).unwrap();
            let elem_bytes = i64::from(t.element_bit_width().unwrap_or(8) / 8).max(1);
            if t.rank() >= 1 {
                out.push((v, vec![(t.rank() - 1, 32 * elem_bytes)]));
            }
        }
    }
    out
}

/// `AlignAllocSizePattern`: replaces a `memref.alloc` by one whose marked
/// dims are rounded up to `bytes / element bytes` elements (no unit dim is
/// appended; dynamic sizes are rounded at run time with
/// `arith.addi`/`remsi`/`subi` before the new allocation, `AlignUpOFR`)
/// and a subview back to the logical shape. Only `memref.alloc` is
/// rewritten: a `memref.alloca` keeps the requirement as its
/// `hivm.alloc_align_dims`/`hivm.alloc_align_value_in_byte` attributes, as
/// `propagateAlignUp` leaves them on any alloc-like root.
fn pad_allocation(m: &mut Module, alloc: OpId, info: &AlignInfo, branches: &mut Branches) {
    let Some(v) = m.op(alloc).result(0) else {
        return;
    };
    let Some(ty) = memref_of(m, v).cloned() else {
        return;
    };
    if m.op(alloc).name() != "memref.alloc" {
        for (name, a) in info_attrs(info)
            .into_iter()
            .zip([attrs::ALLOC_DIMS, attrs::ALLOC_BYTES])
            .map(|((_, a), n)| (n, a))
        {
            m.set_attr(alloc, name, a);
        }
        return;
    }
    let elem_bytes = i64::from(ty.element_bit_width().unwrap_or(8) / 8).max(1);
    let mut units = vec![1i64; ty.rank()];
    for &(d, bytes) in info {
        if d < units.len() {
            units[d] = (bytes / elem_bytes).max(1);
        }
    }
    let mut shape = ty.shape.clone();
    for (d, s) in shape.iter_mut().enumerate() {
        if !crate::ir::is_dynamic(*s) {
            *s = align_up(*s, units[d]);
        }
    }
    let dyn_padded = ty
        .shape
        .iter()
        .zip(&units)
        .any(|(&s, &u)| crate::ir::is_dynamic(s) && u > 1);
    if shape == ty.shape && !dyn_padded {
        return;
    }
    let Some((dyn_sizes, sizes)) = align_up_sizes(m, alloc, &ty.shape, &units) else {
        return;
    };
    replace_alloc(m, alloc, shape, dyn_sizes, sizes, branches);
}
