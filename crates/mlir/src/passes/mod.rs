//! The HIVM passes registered with the driver.
//!
//! Pipeline order, as HIVM runs them: `hivm-align-alloc-size`, then
//! (regbase only) `hivm-pre-mark-stride-align`, `hivm-mark-stride-align`,
//! and `hivm-enable-stride-align`. The target family comes from the
//! module's `hacc.target` ([`common::target_of`], a [`tilemem_soc::Soc`]).
//!
//! The four passes follow their C++ (`PreMarkStrideAlign.cpp`,
//! `MarkStrideAlign.cpp`, `EnableStrideAlign.cpp`, `HIVMAlignAllocSize.cpp`,
//! with `AdjustAlignUtil.cpp` and `PropagateAlignUtil.cpp`) down into the
//! HIVM ops' interface implementations in `reference/ascendnpu-ir/ir-impl`:
//!
//! - [`pre_mark`], [`mark`], [`enable`], [`align_alloc_size`]: the passes;
//! - [`interfaces`]: what an HIVM op answers (`HIVMStructuredOpInterface`:
//!   DPS roles, iterator types, loop dims, target-space operands, inline
//!   broadcast/transpose; [`interfaces::flatten`]: `getFlattened`;
//!   [`interfaces::scalar`]: `shouldLowerToScalarLoops`;
//!   [`interfaces::unaligned`]: `getUnAlignSizeInfo`), with each op's ODS
//!   traits from [`crate::ir::ods::traits_of`];
//! - [`adjust`]: `AdjustAlignUtil.cpp` (`adjustAlignDim` per op,
//!   `adjustAlignInfo`, `isNoNeedAlign`, `isAlreadyAligned`);
//! - [`propagate`]: the propagation engine of `PropagateAlignUtil.cpp` and
//!   `EnableStrideAlign.cpp` (normalize, up to roots, down to views, among
//!   operands, rounds), shared by enable and align-alloc-size;
//! - [`retype`]: `replaceAndPropagateMemRefType` (the unrealized-cast push
//!   down, user kind by user kind), `handlePropagateFailure`,
//!   `materializeRemainingStaticUBLayoutCasts`, the replacement allocation;
//! - [`greedy`]: MLIR's greedy pattern driver as these passes use it
//!   (bottom-up worklist, dead-op erasure, constant folding and the folds
//!   of the ops met here, sweeps until nothing changes);
//! - [`marks`], [`view_maps`], [`strides`], [`layout`], [`fixpipe`],
//!   [`op_table`], [`common`]: align marks, dims across views, MLIR layout
//!   arithmetic, padding units, the Fixpipe tables, op and attribute names,
//!   targets.
//!
//! | C++ function | here |
//! |---|---|
//! | `PreMarkStrideAlignPass::runOnOperation`, `flowsToVLoadInVF`, `isArgUsedByVLoad`, `markSkipStrideAlignForVLoad`, `traceToRoot` | [`pre_mark`], [`common::trace_root`] |
//! | `MarkStrideAlignPass::runOnOperation` (both walks), `noNeedAlign`, `isAllRank0`, `isAllOnesShape`, `isAnyOfLocalBuffer`, `filterNonHivmSpace` | [`mark`] |
//! | `getLastDiscontinuousDim`, `getLastDiscontinuousDimRegBased`, `isSubLowDimStrideAlign`, `isNotTailJumpOrStrideAlign` | [`mark::last_discontinuous_dim`], [`mark::last_discontinuous_dim_regbase`] |
//! | `markAlignedDim`, `markAlignedDimForFixcctoub`, `createAlignMarkOp`, `getHWAlignBytes` | [`mark`], [`common::create_align_mark`], [`marks::create`], [`common::hw_align_bytes`] |
//! | `getTrailingUnitRankReducedSubviewInfo`, `fixAlignDimForSingleUBStoreSubview` | [`mark`] |
//! | `getLastDiscontinuousDimRegBasedForFixcctoub`, `getNsizeAlignmentRequirement`, `getMsizeAlignmentRequirement`, `traceDefOp` | [`mark`], [`fixpipe`], [`common::trace_def_op`] |
//! | `markForVsstb`, `findArgNeedMark`, `alignSizeForBankConflict`, `shouldSkipStrideAlignForVLoad`, `getDimAxisInfo`, `getContinuousReassociation` | [`mark`] |
//! | `adjustAlignDim`, `adjustBrcAlignDim`, `adjustReduceAlignDim`, `adjustDeInterleaveAlignDim`, `adjustCopyAlignDim`, `adjustInlineBrcOp`, `adjustAlignInfo`, `isNoNeedAlign`, `isAlreadyAligned`, `getPrevUncontiguousDim`, `getLastNotUnitDim` | [`adjust`] |
//! | `getFlattened` (uniform reassociation pipeline, unit folding, limited axes, contiguity, `checkMarkStride`, transposable OTF, composition) | [`interfaces::flatten`], [`strides`] |
//! | `shouldLowerToScalarLoops` (default rule, vshr, vmod, vmulext, vcmp, cumulative ops, vreduce) | [`interfaces::scalar`] |
//! | `getUnAlignSizeInfo` (transpose, sort, cast with `getCastSrcUnAlignSizeInfo`/`getCastDstUnAlignSizeInfo`), `collectOpAlignInfo`, `getHWAlignBytes` (UB and L1 only) | [`interfaces::unaligned`] |
//! | `NormalizeAlignInfoPattern`, `PropagateAlignUpToRootAllocationPattern`, `propagateAlignUpFromResult` and every `propagateAlignUp`, `processYieldOp`, `getCollapsedDim`, `getExpandedDim`, `propagateAlignInfoByCollapse`/`ByExpand` | [`propagate::normalize`], [`propagate::up`] |
//! | `AddAlignAnnotationMarkForAlloc`, `PropagateAlignDownToLeafOperandsPattern`, `propagateDownAlignInfo` and every `propagateAlignDown` | [`propagate::down`] |
//! | `PropagateAlignAmongOperationOperands`, `processAlignPropagationAmongOperationOperands`, `markAlignInfoFor(No)AlignOperand`, `isContain`, `unionAlignInfo` | [`propagate::among`], [`marks::union`] |
//! | `propagateAlignInfoToOperands`, `collectAlignInfo`, `isSame`, `RemoveAlignMarkPattern`, `AddStrideAlignInfoForAiv` | [`propagate`] |
//! | `EnableAlignAllocation`, `calculateAlignedShape`, `AlignUpOFR`, `scaleBufferSizeMarks`, `EnableStrideAlignPass::runOnOperation` | [`enable`], [`retype`], [`layout`] |
//! | `replaceAndPropagateMemRefType` and every `propagate*Op` push-down, `handlePropagateFailure`, `findWriteOp`, `callOperandMayBeWritten`, `mayWriteThroughFuncArg`, `getTightlyCoupledBufferId`, `materializeRemainingStaticUBLayoutCasts` | [`retype`] |
//! | `markAllocAlign`, `alignAllocSize`, `AlignAllocSizePattern`, `createAlignedValue`, `AlignAllocSizePass::runOnOperation` | [`align_alloc_size`] |
//! | `applyPatternsGreedily` (default config), `OperationFolder`, `isOpTriviallyDead`/`wouldOpBeTriviallyDead`, the folds of `unrealized_conversion_cast`, `memref.subview`/`cast`/`collapse_shape`/`expand_shape`, the HIVM DMA and vector ops, `memref.load`/`store`/`dealloc`, the vector loads and stores (`foldMemRefCast`), `memref.copy` (`canFoldIntoConsumerOp`), `vector.transfer_read`/`write` (`foldTransferInBoundsAttribute`) | [`greedy`] |
//!
//! Not in the reference, so decided here: `utils::collectAlignUnits` (the
//! padding units, [`layout::align_units`]: a padded allocation gets a unit
//! dim appended that the subview drops again) and
//! `utils::isTransferWriteSuitForStoreWithStride` (a store is
//! `vsstb`-suitable inside an `scf.for` carrying `unroll_for_vsstb`).
//!
//! Known differences from the C++: values in diagnostics print as their
//! SSA name, not as MLIR prints a `Value` (its whole defining op); failures
//! the C++ signals without a message (`getUnAlignSizeInfo` on an
//! unsupported transpose, a greedy driver that does not converge) carry a
//! message of ours, as do its aborts on a size rule for an operand outside
//! UB and L1 (`getHWAlignBytes`); a memref without address space, on which
//! the C++ asserts, is taken as UB; affine-map layouts are read for strides
//! only when their single result is linear (MLIR's `getStridesAndOffset`
//! also handles expressions that simplify to linear ones); folders of ops the passes do not create or rewrite
//! (arith and affine arithmetic, `memref.dim`, ...) are not run by the
//! greedy model, and ops modified in place are revisited on the next sweep
//! rather than re-queued at once; of the transfer folds, only
//! `foldTransferInBoundsAttribute` on minor-identity permutation maps is
//! modelled (not broadcast dims, other permutations, `foldTransferFullMask`
//! or `tensor::foldTensorCast`).

use crate::pass::Pass;

pub mod adjust;
pub mod align_alloc_size;
pub mod append_device_spec;
pub mod common;
pub mod device_spec;
pub mod enable;
pub mod fixpipe;
pub mod greedy;
pub mod interfaces;
pub mod layout;
pub mod mark;
pub mod marks;
pub mod op_table;
pub mod plan_memory;
pub mod pre_mark;
pub mod propagate;
pub mod retype;
pub mod strides;
pub mod type_agree;
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
