//! The HIVM passes registered with the driver.
//!
//! Pipeline order, as HIVM runs them: `hivm-align-alloc-size`, then
//! (regbase only) `hivm-pre-mark-stride-align`, `hivm-mark-stride-align`,
//! and `hivm-enable-stride-align`. The target family comes from the
//! module's `hacc.target` ([`common::Target`]).
//!
//! - [`layout`]: pure stride/shape arithmetic of the rules;
//! - [`op_table`]: everything the passes know about individual ops;
//! - [`fixpipe`]: the Fixpipe alignment tables;
//! - [`view_maps`]: dims and types across view-like ops;
//! - [`retype`]: replacing an allocation and retyping its users;
//! - [`common`]: targets, marks, roots.

use crate::pass::Pass;

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
