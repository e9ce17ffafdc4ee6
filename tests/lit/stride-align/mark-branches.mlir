// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// MarkStrideAlign.cpp, branch by branch (membase unless a regbase
// hacc.target is given). Each chunk names the C++ function and branch.

// runOnOperation: a host function (hacc::utils::isHost) is not visited;
// the same op in a device function is marked (getLastDiscontinuousDim:
// the strided input keeps the flattened groups [0] [1], so the last
// discontinuous dim is 0; the input is already aligned by its stride, so
// adjustAlignDim drops it: only the output is marked).
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @host(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xf16, #hivm.address_space<ub>>) attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
  hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @device(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @device(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// runOnOperation walk: an op that is not an HIVMStructuredOp
// (hivm.hir.bitcast) is not looked at.
// CHECK-LABEL: func.func @not_structured(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) -> memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>> {
// CHECK-NEXT: %[[V0:[^ ]+]] = hivm.hir.bitcast %arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> -> memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: return %[[V0]] : memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: }
func.func @not_structured(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) -> memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>> {
  %0 = hivm.hir.bitcast %a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> -> memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>>
  return %0 : memref<4x15xi16, strided<[16, 1]>, #hivm.address_space<ub>>
}

// -----

// noNeedAlign: every memref operand is in GM: nothing to align.
// CHECK-LABEL: func.func @all_gm(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %arg1: memref<4x15xf16, #hivm.address_space<gm>>) {
// CHECK-NEXT: hivm.hir.copy ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<gm>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @all_gm(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %c: memref<4x15xf16, #hivm.address_space<gm>>) {
  hivm.hir.copy ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%c : memref<4x15xf16, #hivm.address_space<gm>>)
  return
}

// -----

// CustomOp: without arg_attrs nothing is marked; an arg_attrs entry
// without align_dim leaves its operand alone; an entry with one marks that
// operand on that dim (markAlignedDim), whatever the op's other rules.
// CHECK-LABEL: func.func @custom_no_arg_attrs(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.custom "my_op" ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @custom_no_arg_attrs(%a: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.custom "my_op" ins(%a : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @custom_partial(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.custom "my_op" ins(%arg0, %arg1 : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x15xf16, #hivm.address_space<ub>> {align_dim = 1 : i64})
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @custom_partial(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.custom "my_op" {arg_attrs = [{}, {align_dim = 1 : i64}]} ins(%a, %b : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// runOnOperation: a transpose whose transpose loop dims include the last
// one (VTransposeOp::isLastDimTranspose) is skipped (hivm-align-alloc-size
// sizes it); one that keeps the last dim in place is marked like any op.
// CHECK-LABEL: func.func @transpose_last_dim(
// CHECK-SAME: %arg0: memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<15x16xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vtranspose ins(%arg0 : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<15x16xf16, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @transpose_last_dim(%a: memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %b: memref<15x16xf16, #hivm.address_space<ub>>) {
  hivm.hir.vtranspose ins(%a : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%b : memref<15x16xf16, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}
// CHECK-LABEL: func.func @transpose_outer_dims(
// CHECK-SAME: %arg0: memref<2x4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x2x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%arg0 : memref<2x4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x2x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @transpose_outer_dims(%a: memref<2x4x15xf16, #hivm.address_space<ub>>, %b: memref<4x2x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vtranspose ins(%a : memref<2x4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x2x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
  return
}

// -----

// runOnOperation: on membase a reduce with index is marked like any op.
// CHECK-LABEL: func.func @reduce_with_index_membase(
// CHECK-SAME: %arg0: memref<7x17x15xf16, #hivm.address_space<ub>>, %arg1: memref<1x17x15xf16, #hivm.address_space<ub>>, %arg2: memref<1x17x15xi32, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<7x17x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vreduce <max_with_index_left> ins(%arg0 : memref<7x17x15xf16, #hivm.address_space<ub>>) outs(%arg1, %arg2 : memref<1x17x15xf16, #hivm.address_space<ub>>, memref<1x17x15xi32, #hivm.address_space<ub>>) reduce_dims = [0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reduce_with_index_membase(%a: memref<7x17x15xf16, #hivm.address_space<ub>>, %b: memref<1x17x15xf16, #hivm.address_space<ub>>, %i: memref<1x17x15xi32, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max_with_index_left> ins(%a : memref<7x17x15xf16, #hivm.address_space<ub>>) outs(%b, %i : memref<1x17x15xf16, #hivm.address_space<ub>>, memref<1x17x15xi32, #hivm.address_space<ub>>) reduce_dims = [0]
  return
}

// -----

// runOnOperation: on regbase a reduce with index (utils::isReduceWithIndex)
// is skipped.
// CHECK-LABEL: func.func @reduce_with_index_regbase(
// CHECK-SAME: %arg0: memref<7x17x15xf16, #hivm.address_space<ub>>, %arg1: memref<1x17x15xf16, #hivm.address_space<ub>>, %arg2: memref<1x17x15xi32, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vreduce <max_with_index_left> ins(%arg0 : memref<7x17x15xf16, #hivm.address_space<ub>>) outs(%arg1, %arg2 : memref<1x17x15xf16, #hivm.address_space<ub>>, memref<1x17x15xi32, #hivm.address_space<ub>>) reduce_dims = [0]
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @reduce_with_index_regbase(%a: memref<7x17x15xf16, #hivm.address_space<ub>>, %b: memref<1x17x15xf16, #hivm.address_space<ub>>, %i: memref<1x17x15xi32, #hivm.address_space<ub>>) {
    hivm.hir.vreduce <max_with_index_left> ins(%a : memref<7x17x15xf16, #hivm.address_space<ub>>) outs(%b, %i : memref<1x17x15xf16, #hivm.address_space<ub>>, memref<1x17x15xi32, #hivm.address_space<ub>>) reduce_dims = [0]
    return
  }
}

// -----

// isAllRank0: rank-0 memrefs only: skipped. isAllOnesShape (membase):
// all-unit shapes: skipped.
// CHECK-LABEL: func.func @rank0(
// CHECK-SAME: %arg0: memref<f16, #hivm.address_space<ub>>, %arg1: memref<f16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<f16, #hivm.address_space<ub>>) outs(%arg1 : memref<f16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @rank0(%a: memref<f16, #hivm.address_space<ub>>, %b: memref<f16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<f16, #hivm.address_space<ub>>) outs(%b : memref<f16, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @all_ones(
// CHECK-SAME: %arg0: memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<1x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<1x1xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @all_ones(%a: memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %b: memref<1x1xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%b : memref<1x1xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getLastDiscontinuousDim (membase): a flattened operand whose last stride
// is not 1 makes the last non-unit dim of the last group the one to align
// (getLastNotUnitDim walking back from the last group): dim 1 here, for
// both operands.
// CHECK-LABEL: func.func @last_stride_not_one(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @last_stride_not_one(%a: memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getLastDiscontinuousDim (membase): one flattened group: no
// discontinuous dim, nothing marked.
// CHECK-LABEL: func.func @one_group(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @one_group(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getLastDiscontinuousDim (membase): several groups: the last non-unit dim
// of the groups before the last. The unit dim 1 is folded into the groups
// (getFlattened's unit folding) and skipped by getLastNotUnitDim, so dim 0.
// CHECK-LABEL: func.func @unit_dim_skipped(
// CHECK-SAME: %arg0: memref<4x1x15xf16, strided<[16, 16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x1x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x1x15xf16, strided<[16, 16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unit_dim_skipped(%a: memref<4x1x15xf16, strided<[16, 16, 1]>, #hivm.address_space<ub>>, %b: memref<4x1x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x1x15xf16, strided<[16, 16, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x1x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// fixAlignDimForSingleUBStoreSubview: the store's only UB operand is a
// subview dropping a trailing unit slice; the source's last non-unit dim
// (1) is the dropped one, so the subview's source is marked on it.
// CHECK-LABEL: func.func @store_subview_dropped(
// CHECK-SAME: %arg0: memref<4xf16, strided<[16]>, #hivm.address_space<gm>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0] [4, 1] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<4xf16, strided<[15]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.store ins(%[[SUBVIEW]] : memref<4xf16, strided<[15]>, #hivm.address_space<ub>>) outs(%arg0 : memref<4xf16, strided<[16]>, #hivm.address_space<gm>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @store_subview_dropped(%gm: memref<4xf16, strided<[16]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<4xf16, strided<[15]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<4xf16, strided<[15]>, #hivm.address_space<ub>>) outs(%gm : memref<4xf16, strided<[16]>, #hivm.address_space<gm>>)
  return
}

// -----

// getTrailingUnitRankReducedSubviewInfo: a dropped dim that is not
// trailing does not take the subview path; the operand is marked as found
// (dim 0: the strided GM side keeps the flattened groups [0] [1]).
// CHECK-LABEL: func.func @store_subview_leading_drop(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<1x4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [1, 4, 15] [1, 1, 1] : memref<1x4x15xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.store ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @store_subview_leading_drop(%gm: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<1x4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [1, 4, 15] [1, 1, 1] : memref<1x4x15xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// shouldSkipStrideAlignForVLoad: a load whose UB operand's root carries
// hivm.skip_stride_align_for_vload (PreMarkStrideAlign) is not marked; the
// same load into an unmarked buffer is.
// CHECK-LABEL: func.func @load_skip_vload(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%[[ALLOC]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC_0]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @load_skip_vload(%gm: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<4x15xf16, #hivm.address_space<ub>>)
  %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Regbase: isAllOnesShape skips (not a Fixpipe); filterNonHivmSpace
// leaves no UB memref for an L1-only op: skipped.
// CHECK-LABEL: func.func @regbase_all_ones(
// CHECK-SAME: %arg0: memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<1x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<1x1xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @regbase_all_ones(%a: memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %b: memref<1x1xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%a : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%b : memref<1x1xf16, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @regbase_no_ub(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<gm>>, %arg1: memref<4x15xf16, #hivm.address_space<cbuf>>) {
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, #hivm.address_space<gm>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<cbuf>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @regbase_no_ub(%a: memref<4x15xf16, #hivm.address_space<gm>>, %b: memref<4x15xf16, #hivm.address_space<cbuf>>) {
    hivm.hir.load ins(%a : memref<4x15xf16, #hivm.address_space<gm>>) outs(%b : memref<4x15xf16, #hivm.address_space<cbuf>>)
    return
  }
}

// -----

// getLastDiscontinuousDimRegBased: the UB memrefs are taken as flattened
// (identity groups). A non-unit last stride: the last non-unit dim (1); a
// UB DMA whose UB side has isSubLowDimStrideAlign and
// isNotTailJumpOrStrideAlign: nothing; rank 1: nothing; otherwise the last
// non-unit dim of the whole identity group (1 for a 4x15, 0 for a 4x1).
// CHECK-LABEL: func.func @regbase_last_stride(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @regbase_last_stride(%a: memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[32, 2]>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @regbase_dma_exempt(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @regbase_dma_exempt(%gm: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %a: memref<4x15xf16, #hivm.address_space<ub>>) {
    hivm.hir.load ins(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @regbase_rank1(
// CHECK-SAME: %arg0: memref<15xf16, #hivm.address_space<ub>>, %arg1: memref<15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @regbase_rank1(%a: memref<15xf16, #hivm.address_space<ub>>, %b: memref<15xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%a : memref<15xf16, #hivm.address_space<ub>>) outs(%b : memref<15xf16, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @regbase_multi_dim(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @regbase_multi_dim(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @regbase_trailing_unit(
// CHECK-SAME: %arg0: memref<4x1xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x1xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @regbase_trailing_unit(%a: memref<4x1xf16, #hivm.address_space<ub>>, %b: memref<4x1xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%a : memref<4x1xf16, #hivm.address_space<ub>>) outs(%b : memref<4x1xf16, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Regbase UB DMA whose UB side jumps at the tail (a 4x15 row of stride 20,
// 40 bytes: neither the row size nor aligned): not exempt, so the last
// non-unit dim is marked.
// CHECK-LABEL: func.func @regbase_dma_tail_jump(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<gm>>, %arg1: memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, #hivm.address_space<gm>>) outs(%arg1 : memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @regbase_dma_tail_jump(%gm: memref<4x15xf16, #hivm.address_space<gm>>, %a: memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>) {
    hivm.hir.load ins(%gm : memref<4x15xf16, #hivm.address_space<gm>>) outs(%a : memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Regbase calls (the func::CallOp walk): an argument already marked
// (isMarked), a rank-0 one, and one outside local buffers (GM) are left
// alone. Ascend310B is regbase but not Ascend950, so every element type
// counts. getLastDiscontinuousDim on the regbase path with the argument's
// own contiguous groups: one group of one dim (rank 1): nothing; one group
// of several dims: its last dim (1).
// CHECK-LABEL: func.func private @vf(
// CHECK-SAME: memref<4x15xf32, #hivm.address_space<ub>>, memref<f32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<gm>>, memref<15xf32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function}
module attributes {hacc.target = #hacc.target<"Ascend310B4">} {
  func.func private @vf(memref<4x15xf32, #hivm.address_space<ub>>, memref<f32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<gm>>, memref<15xf32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function}
// CHECK-LABEL: func.func @call_args(
// CHECK-SAME: %arg0: memref<4x15xf32, #hivm.address_space<gm>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<f32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_1:[^ ]+]] = memref.alloc() : memref<15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_2:[^ ]+]] = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC_2]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: call @vf(%[[ALLOC]], %[[ALLOC_0]], %arg0, %[[ALLOC_1]], %[[ALLOC_2]]) : (memref<4x15xf32, #hivm.address_space<ub>>, memref<f32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<gm>>, memref<15xf32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @call_args(%gm: memref<4x15xf32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, #hivm.address_space<ub>>
    %r = memref.alloc() : memref<f32, #hivm.address_space<ub>>
    %v = memref.alloc() : memref<15xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    func.call @vf(%a, %r, %gm, %v, %c) : (memref<4x15xf32, #hivm.address_space<ub>>, memref<f32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<gm>>, memref<15xf32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// Regbase calls: a strided argument has two contiguous groups; the last
// non-unit dim of the last group (1). An argument whose root carries
// hivm.skip_stride_align_for_vload is not marked
// (shouldSkipStrideAlignForVLoad).
// CHECK-LABEL: func.func private @vf2(
// CHECK-SAME: memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function}
module attributes {hacc.target = #hacc.target<"Ascend310B4">} {
  func.func private @vf2(memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function}
// CHECK-LABEL: func.func @call_args_groups(
// CHECK-SAME: %arg0: memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: call @vf2(%arg0, %[[ALLOC]]) : (memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @call_args_groups(%s: memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>) {
    %b = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    annotation.mark %b {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<4x15xf32, #hivm.address_space<ub>>
    func.call @vf2(%s, %b) : (memref<4x15xf32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// getTrailingUnitRankReducedSubviewInfo: the dropped dims are
// getDroppedDims's, which tells unit dims apart by their strides. Here the
// result keeps the unit dim of stride 1 (the source's dim 2) and drops dim
// 1 (stride 8): not trailing, so the store's own dim (0) marks the operand.
// CHECK-LABEL: func.func @store_subview_middle_unit_dropped(
// CHECK: %[[SUBVIEW:[^ ]+]] = memref.subview
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.store
func.func @store_subview_middle_unit_dropped(%gm: memref<4x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x1x8xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [4, 1, 1] [1, 1, 1] : memref<4x1x8xf16, #hivm.address_space<ub>> to memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<4x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// The same slice with the other unit dim kept (result strides [8, 8]):
// dim 2 is dropped, trailing and of size 1, so
// fixAlignDimForSingleUBStoreSubview finds the source's last non-unit dim
// (2) among the dropped ones and marks the source on it.
// CHECK-LABEL: func.func @store_subview_last_unit_dropped(
// CHECK: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x1x8xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1x8xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview
// CHECK-NEXT: hivm.hir.store
func.func @store_subview_last_unit_dropped(%gm: memref<4x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x1x8xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [4, 1, 1] [1, 1, 1] : memref<4x1x8xf16, #hivm.address_space<ub>> to memref<4x1xf16, strided<[8, 8]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<4x1xf16, strided<[8, 8]>, #hivm.address_space<ub>>) outs(%gm : memref<4x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// markAlignedDim: an unranked memref is not a MemRefType (isa<MemRefType>
// is false), so the C++'s "UnrankedMemRef not supported." is never
// reached: the unranked operand gets no mark and no error; the ranked one
// is marked.
// CHECK-LABEL: func.func @custom_unranked_operand(
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.custom
// CHECK-NEXT: return
func.func @custom_unranked_operand(%a: memref<*xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.custom {arg_attrs = [{align_dim = 0 : i64}, {align_dim = 0 : i64}]} ins(%a, %b : memref<*xf16, #hivm.address_space<ub>>, memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
