//! The HIVM passes registered with the driver.
//!
//! Pipeline order, as HIVM runs them: `hivm-align-alloc-size`, then
//! (regbase only) `hivm-pre-mark-stride-align`, `hivm-mark-stride-align`,
//! and `hivm-enable-stride-align`. The target family comes from the
//! module's `hacc.target` ([`common::Target`]).
//!
//! - [`adjust`]: the op's flattening and the per-op dim adjustments;
//! - [`layout`]: pure stride/shape arithmetic of the rules;
//! - [`op_table`]: everything the passes know about individual ops;
//! - [`fixpipe`]: the Fixpipe alignment tables;
//! - [`view_maps`]: dims and types across view-like ops;
//! - [`retype`]: replacing an allocation and retyping its users;
//! - [`common`]: targets, marks, roots.
//!
//! Where the specification leaves a choice open, these passes decide:
//! - a padded allocation always gets a unit dim appended (`2x15xf16`,
//!   dims `[0]` on membase: `2x16x1xf16`; `37x5x3xi32`, dims `[2]` on
//!   regbase: `37x5x8x1xi32`), and the subview drops it again;
//! - a store is `vsstb`-suitable when it sits in an `scf.for` carrying
//!   `unroll_for_vsstb`;
//! - a use that cannot take a padded layout reads a dense mirror that is
//!   copied in right before it and copied back at the end of its block;
//! - `hivm-mark-stride-align` leaves functions with `hivm.storage_aligned`
//!   alone (rows padded to dynamic sizes cannot be re-proven aligned);
//! - `hivm-align-alloc-size` rounds the two last dims of last-dim
//!   transposes to 32 bytes, the second-to-last dim of `i32`/`i16` to `i8`
//!   casts to 32 elements (and the `i8` rows to 32 bytes), and the last dim
//!   of sorts to 32 elements.

use crate::pass::Pass;

pub mod adjust;
pub mod align_alloc_size;
pub mod common;
pub mod enable;
pub mod fixpipe;
pub mod layout;
pub mod mark;
pub mod op_table;
pub mod pre_mark;
pub mod retype;
pub mod view_maps;

/// Every pass this crate provides, in registration order.
pub fn all() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(align_alloc_size::AlignAllocSize),
        Box::new(pre_mark::PreMarkStrideAlign),
        Box::new(mark::MarkStrideAlign),
        Box::new(enable::EnableStrideAlign),
    ]
}

#[cfg(test)]
mod tests;
