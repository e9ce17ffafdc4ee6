// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// getFlattened (ir-impl FlattenInterface/, HIVMInterfaces.cpp) on membase,
// the branches flatten-branches.mlir does not show: contiguity of
// layouts, unit folding, limited axes, and each operand re-flattened
// under the marks it carries (checkMarkStride), marks just made for
// earlier operands of the same op included.

// getContiguousAxesImpl: a layout that is not a StridedLayoutAttr (an affine
// map) does not constrain contiguity; getStridesAndOffset reads its linear
// result (strides [15, 1]), so the collapsed type has unit last stride and
// one group: nothing is marked.
// CHECK: #map = affine_map<(d0, d1) -> (d0 * 15 + d1)>
// CHECK-LABEL: func.func @affine_map_layout(
// CHECK-SAME: %arg0: memref<4x15xf16, #map, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, #map, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @affine_map_layout(%a: memref<4x15xf16, affine_map<(d0, d1) -> (d0 * 15 + d1)>, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x15xf16, affine_map<(d0, d1) -> (d0 * 15 + d1)>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getContiguousAxesImpl: a dynamic size breaks contiguity even under static
// strides (strided<[15, 1]> on 4x?): groups [0] [1], dim 0 marked.
// CHECK-LABEL: func.func @dynamic_size_static_strides(
// CHECK-SAME: %arg0: memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @dynamic_size_static_strides(%a: memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>, %b: memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// getContiguousAxesImpl: static strides equal to size times inner stride
// (strided<[15, 1]> on 4x15) are contiguous: one group, nothing marked.
// CHECK-LABEL: func.func @static_contiguous_strides(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @static_contiguous_strides(%a: memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// getFlattenedUnit: the unit dim folds into the group before it whatever
// its stride (strided<[15, 7, 1]>); the folded 4x15 with strides [15, 1]
// is contiguous: one group, nothing marked (unfolded, dims 0 | 1 | 2 would
// mark dim 0).
// CHECK-LABEL: func.func @unit_axis_folds(
// CHECK-SAME: %arg0: memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @unit_axis_folds(%a: memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>, %b: memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x1x15xf16, strided<[15, 7, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// getLimitedAxes(VTransposeOp): the permuted dims (0 and 1 of [1, 0, 2])
// stay apart, and VTransposeOp lacks CollapsibleConsecutiveTargetDimsTrait,
// so each is a group of its own: groups [0] [1] [2], dim 1 marked.
// CHECK-LABEL: func.func @transpose_limited(
// CHECK-SAME: %arg0: memref<4x2x15xf16, #hivm.address_space<ub>>, %arg1: memref<2x4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%arg0 : memref<4x2x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<2x4x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
// CHECK-NEXT: return
func.func @transpose_limited(%a: memref<4x2x15xf16, #hivm.address_space<ub>>, %b: memref<2x4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vtranspose ins(%a : memref<4x2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x4x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
  return
}

// -----

// getLimitedAxes(VGatherOp): the gather loop dim (membase: the last) stays
// apart: groups [0] [1], dim 0 marked on source, indices and destination.
// CHECK-LABEL: func.func @gather_last(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xi32, #hivm.address_space<ub>>, %arg2: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg2 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xi32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vgather ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) indices(%arg1 : memref<4x15xi32, #hivm.address_space<ub>>) outs(%arg2 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @gather_last(%a: memref<4x15xf16, #hivm.address_space<ub>>, %i: memref<4x15xi32, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vgather ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) indices(%i : memref<4x15xi32, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getFlattenedUnit: a unit dim the op limits (the broadcast dim of vbrc)
// is not folded: groups [0] [1] [2]; the last non-unit dim before the last
// group is dim 0, marked.
// CHECK-LABEL: func.func @brc_unit_limited(
// CHECK-SAME: %arg0: memref<4x1x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x1x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vbrc ins(%arg0 : memref<4x1x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1x15xf16, #hivm.address_space<ub>>) broadcast_dims = [1]
// CHECK-NEXT: return
func.func @brc_unit_limited(%a: memref<4x1x15xf16, #hivm.address_space<ub>>, %b: memref<4x1x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%a : memref<4x1x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x1x15xf16, #hivm.address_space<ub>>) broadcast_dims = [1]
  return
}

// -----

// checkMarkStride (computeAnnotationMarkedOp) per operand: adjustAlignDim
// flattens the op again for each UB operand, after the marks made for the
// operands before it. The source (not an init) keeps alignDim 4 and is
// marked first; under that mark its strides become [1216, 408, 136, 48, 16,
// 1], which splits the groups into [0] [1, 2] [3, 4] [5]; for the init,
// adjustReduceAlignDim then finds getPrevUncontiguousDim(1) = dim 0 and
// marks it. Flattened without the fresh mark (one group before the reduce
// dim) the init would get no mark.
// CHECK-LABEL: func.func @reflatten_under_fresh_mark(
// CHECK-SAME: %arg0: memref<3x3x3x3x3x15xf32, #hivm.address_space<ub>>, %arg1: memref<3x3x3x3x3x1xf32, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<3x3x3x3x3x1xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 4>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<3x3x3x3x3x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vreduce <max> ins(%arg0 : memref<3x3x3x3x3x15xf32, #hivm.address_space<ub>>) outs(%arg1 : memref<3x3x3x3x3x1xf32, #hivm.address_space<ub>>) reduce_dims = [5]
// CHECK-NEXT: return
func.func @reflatten_under_fresh_mark(%src: memref<3x3x3x3x3x15xf32, #hivm.address_space<ub>>, %dst: memref<3x3x3x3x3x1xf32, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<3x3x3x3x3x15xf32, #hivm.address_space<ub>>) outs(%dst : memref<3x3x3x3x3x1xf32, #hivm.address_space<ub>>) reduce_dims = [5]
  return
}
