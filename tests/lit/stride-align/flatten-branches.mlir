// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// The HIVM flatten interface (ir-impl FlattenInterface/*.cpp,
// getFlattened) as the mark pass sees it on membase: the groups it forms
// decide the last discontinuous dim (getLastDiscontinuousDim: the last
// non-unit dim of the groups before the last).

// getFlattenedImpl: an op without UniformReassociationFlattenTrait (here a
// Fixpipe) is not flattened (fillWithIdentity): groups [0] [1], dim 0.
// CHECK-LABEL: func.func @identity_flatten(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<cc>>, %arg1: memref<16x30xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x30xf32, #hivm.address_space<cc>>) outs(%arg1 : memref<16x30xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @identity_flatten(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
  hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Contiguity (getContiguousAxes): identity layouts collapse whatever their
// sizes, dynamic ones included: one group, nothing marked. A dynamic stride
// does not: groups [0] [1], dim 0.
// CHECK-LABEL: func.func @dynamic_identity(
// CHECK-SAME: %arg0: memref<4x?xf16, #hivm.address_space<ub>>, %arg1: memref<4x?xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x?xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x?xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @dynamic_identity(%a: memref<4x?xf16, #hivm.address_space<ub>>, %b: memref<4x?xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x?xf16, #hivm.address_space<ub>>) outs(%b : memref<4x?xf16, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @dynamic_stride(
// CHECK-SAME: %arg0: memref<4x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x?xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x?xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x?xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @dynamic_stride(%a: memref<4x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>, %b: memref<4x?xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x?xf16, #hivm.address_space<ub>>)
  return
}

// -----

// checkMarkStride (getAnnotationMarkByteAlignment): an operand already
// marked is flattened with the strides its mark asks for, so a contiguous
// 4x15 marked on dim 0 no longer collapses: groups [0] [1], dim 0 for both
// operands (the marked one gets a second mark: isNoNeedAlign looks at the
// type, not at marks).
// CHECK-LABEL: func.func @marked_operand(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @marked_operand(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getLimitedAxes: cum dims are not merged with their neighbours. Along dim
// 0 the groups are [0] [1] and dim 0 is marked; along the last dim the op
// lowers to scalar loops (shouldCumOpLowerToScalarLoops: the cum dim is the
// last flattened dim) and nothing is marked.
// CHECK-LABEL: func.func @cumsum_dim0(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcumsum ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) cum_dims = [0] reverse = false
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cumsum_dim0(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vcumsum ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>) cum_dims = [0] reverse = false
  return
}
// CHECK-LABEL: func.func @cumsum_last(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vcumsum ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) cum_dims = [1] reverse = false
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cumsum_last(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vcumsum ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>) cum_dims = [1] reverse = false
  return
}

// -----

// getLimitedAxes: the flip axis and the sort axis stay apart: groups
// [0] [1], dim 0.
// CHECK-LABEL: func.func @flip(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vflip ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) flip_axis = 1
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @flip(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vflip ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>) flip_axis = 1
  return
}
// CHECK-LABEL: func.func @sort(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vsort ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @sort(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vsort ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  return
}

// -----

// getLimitedAxes: the concat dim stays apart (getConcatLoopDims): groups
// [0] [1], dim 0 on the inputs; the output's rows (32 x f16) are already
// aligned.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x17xf16, #hivm.address_space<ub>>, %arg2: memref<4x32xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x17xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vconcat dim(1) ins(%arg0, %arg1 : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x17xf16, #hivm.address_space<ub>>) outs(%arg2 : memref<4x32xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @concat(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x17xf16, #hivm.address_space<ub>>, %c: memref<4x32xf16, #hivm.address_space<ub>>) {
  hivm.hir.vconcat dim(1) ins(%a, %b : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x17xf16, #hivm.address_space<ub>>) outs(%c : memref<4x32xf16, #hivm.address_space<ub>>)
  return
}

// -----

// getLimitedAxes: the padded dims stay apart (getPadLoopDims).
// CHECK-LABEL: func.func @pad(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x17xf16, #hivm.address_space<ub>>, %arg2: f16) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x17xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vpad ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x17xf16, #hivm.address_space<ub>>) low[0, 1] high[0, 1] pad_value %arg2 : f16
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @pad(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x17xf16, #hivm.address_space<ub>>, %v: f16) {
  hivm.hir.vpad ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x17xf16, #hivm.address_space<ub>>) low[0, 1] high[0, 1] pad_value %v : f16
  return
}
