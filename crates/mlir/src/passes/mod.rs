//! The HIVM passes registered with the driver.
//!
//! Pipeline order, as HIVM runs them: `hivm-align-alloc-size`, then
//! (regbase only) `hivm-pre-mark-stride-align`, `hivm-mark-stride-align`,
//! and `hivm-enable-stride-align`. The target family comes from the
//! module's `hacc.target` ([`common::target_of`], a [`tilemem_soc::Soc`]).
//!
//! - [`adjust`]: the op's flattening and the per-op dim adjustments;
//! - [`layout`]: pure stride/shape arithmetic of the rules;
//! - [`op_table`]: everything the passes know about individual ops;
//! - [`fixpipe`]: the Fixpipe alignment tables;
//! - [`view_maps`]: dims and types across view-like ops;
//! - [`retype`]: replacing an allocation and retyping its users;
//! - [`common`]: targets, marks, roots.
//!
//! The rules follow the reference C++ (`PreMarkStrideAlign.cpp`,
//! `MarkStrideAlign.cpp`, `EnableStrideAlign.cpp`, `HIVMAlignAllocSize.cpp`,
//! `AdjustAlignUtil.cpp`, `PropagateAlignUtil.cpp`) where it and seed 002
//! differ. Rule by rule, with the C++ function each mirrors:
//!
//! | rule | C++ | here |
//! |---|---|---|
//! | skip marks only for loads read by `vector.transfer_read` in a defined callee (through subview/view there; views and casts on the caller's side) | `flowsToVLoadInVF`, `isArgUsedByVLoad` | [`pre_mark`] |
//! | skip mark written right after the root allocation, once | `markSkipStrideAlignForVLoad` | [`pre_mark`] |
//! | op order: GM-only skip, custom, tensor error, last-dim transpose, regbase reduce-with-index, rank 0 / no local | `MarkStrideAlignPass::runOnOperation` | [`mark`] |
//! | which dims flattening merges (broadcast, reduce, transpose barriers) | `FlattenInterface::getFlattened` | [`adjust::flatten_groups`] |
//! | membase / regbase dim search, UB DMA exemption | `getLastDiscontinuousDim(RegBased)` | [`layout`] |
//! | one mark per op and operand, right after the definition, newest first, bytes from the space | `createAlignMarkOp`, `markAlignedDim`, `util::getHWAlignBytes` | [`common::create_align_mark`], [`common::hw_align_bytes`] |
//! | memrefs never aligned: GM, unit prefix, already aligned stride | `isNoNeedAlign`, `isAlreadyAligned` | [`adjust::no_need_align`] |
//! | broadcast, reduce (init, float sum), deinterleave, copy, implicit-transpose DMA dims | `adjustBrcAlignDim`, `adjustReduceAlignDim`, `adjustDeInterleaveAlignDim`, `adjustCopyAlignDim`, `adjustAlignDim` | [`adjust`] |
//! | custom ops: named dim, any space, no adjustment | `markAlignedDim` | [`mark`] |
//! | store through a trailing-unit rank-reducing subview | `fixAlignDimForSingleUBStoreSubview` | [`mark`] |
//! | Fixpipe N/M tables, one mark each on every UB operand; 3-D dot root | `getLastDiscontinuousDimRegBasedForFixcctoub` | [`mark`], [`fixpipe`] |
//! | VF call arguments, vsstb strides | second walk of `runOnOperation`, `markForVsstb`, `findArgNeedMark` | [`mark`] |
//! | mark validation, propagation up/down/among, 10 rounds | `NormalizeAlignInfoPattern`, `PropagateAlignUpToRootAllocationPattern`, `propagateAlignInfoToOperands` | [`enable`] |
//! | among-operand union with the op's own dim rules | `PropagateAlignAmongOperationOperands`, `adjustAlignInfo` | [`enable`] |
//! | byte views stop a mark (remark / error) | `propagateAlignUp(memref::ViewOp)` | [`enable`] |
//! | replacement alloc: type and dynamic sizes only, unit dim appended, subview back | `EnableAlignAllocation`, `calculateAlignedShape` | [`enable`], [`retype`] |
//! | `scf.for`/`scf.if`/`scope` results retyped; disagreeing `scf.if` branches cast back | `propagateScfForOp`, `propagateScfIfOp`, `materializeRemainingStaticUBLayoutCasts` | [`retype`] |
//! | propagation failures: dense copy before the user, copied back after writes to it, refreshed after writes to the aligned buffer | `replaceAndPropagateMemRefType`, `handlePropagateFailure`, `findWriteOp` | [`retype`] |
//! | size alignment: transpose (unless `disable_align`), i32/i16 to i8 cast (unless the function disables it), sort; only `memref.alloc` rewritten | `markAllocAlign`, `AlignAllocSizePattern` | [`align_alloc_size`] |
//!
//! Where neither the seed nor the C++ in the reference decides (the ops'
//! own `getUnAlignSizeInfo`, `collectAlignUnits`, `isTransferWriteSuitForStoreWithStride`
//! are not in it), these passes decide:
//! - a padded allocation always gets a unit dim appended (`2x15xf16`,
//!   dims `[0]` on membase: `2x16x1xf16`; `37x5x3xi32`, dims `[2]` on
//!   regbase: `37x5x8x1xi32`), and the subview drops it again;
//! - a store is `vsstb`-suitable when it sits in an `scf.for` carrying
//!   `unroll_for_vsstb`;
//! - `hivm-align-alloc-size` rounds the two last dims of last-dim
//!   transposes to 32 bytes, the second-to-last dim of `i32`/`i16` to `i8`
//!   casts to 32 elements (and the `i8` rows to 32 bytes), and the last dim
//!   of sorts to 32 elements.
//!
//! Known differences from the C++: `unsupport flatten op` is reported as a
//! warning (MLIR emits an error but lets the pass succeed; the driver here
//! fails on any error); `memref.reshape` users of a padded buffer get a
//! dense copy instead of being rewritten to `expand_shape`/`collapse_shape`;
//! values in diagnostics print as their SSA name rather than their whole
//! defining op; the ops' `ImplByScalarOpInterface` and inline-broadcast
//! rules are not modelled.

use crate::pass::Pass;

pub mod adjust;
pub mod align_alloc_size;
pub mod append_device_spec;
pub mod common;
pub mod device_spec;
pub mod enable;
pub mod fixpipe;
pub mod layout;
pub mod mark;
pub mod op_table;
pub mod plan_memory;
pub mod pre_mark;
pub mod retype;
pub mod view_maps;

/// Every pass this crate provides, in registration order: the registry the
/// drivers use.
pub fn registry() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(append_device_spec::AppendDeviceSpec::default()),
        Box::new(align_alloc_size::AlignAllocSize),
        Box::new(pre_mark::PreMarkStrideAlign),
        Box::new(mark::MarkStrideAlign),
        Box::new(enable::EnableStrideAlign),
        Box::new(plan_memory::membase::PlanMemory::default()),
        Box::new(plan_memory::regbase::PlanMemoryRegbase::default()),
    ]
}

/// The registered pass whose flag is `name` (without dash).
pub fn lookup(name: &str) -> Option<Box<dyn Pass>> {
    registry().into_iter().find(|p| p.name() == name)
}

#[cfg(test)]
mod tests;
