// RUN: tilemem opt -hivm-align-alloc-size -split-input-file %s | FileCheck %s
// getUnAlignSizeInfo (ir-impl HIVMImpl.cpp) and markAllocAlign
// (HIVMAlignAllocSize.cpp), the branches align-alloc-size-branches.mlir
// does not show. Each expected size follows the C++ rule named above it.

// getUnAlignSizeInfo(VTransposeOp), collectOpAlignInfo: every transpose
// loop dim (getTransposeLoopDims: each dim i with permutation[i] != i, here
// all three) of every operand in whole 32-byte blocks (16 x f16); 16-bit
// elements stop there (elemTypeBytes != 4).
// CHECK-LABEL: func.func @transpose_all_loop_dims(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<16x16x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0, 0] [4, 6, 8] [1, 1, 1] : memref<16x16x16xf16, #hivm.address_space<ub>> to memref<4x6x8xf16, strided<[256, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<16x16x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0, 0] [6, 8, 4] [1, 1, 1] : memref<16x16x16xf16, #hivm.address_space<ub>> to memref<6x8x4xf16, strided<[256, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%subview : memref<4x6x8xf16, strided<[256, 16, 1]>, #hivm.address_space<ub>>) outs(%subview_1 : memref<6x8x4xf16, strided<[256, 16, 1]>, #hivm.address_space<ub>>) permutation = [1, 2, 0]
// CHECK-NEXT: return
func.func @transpose_all_loop_dims() {
  %a = memref.alloc() : memref<4x6x8xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<6x8x4xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<4x6x8xf16, #hivm.address_space<ub>>) outs(%b : memref<6x8x4xf16, #hivm.address_space<ub>>) permutation = [1, 2, 0]
  return
}

// -----

// getUnAlignSizeInfo(VTransposeOp): a dim the permutation keeps in place
// (dim 1 of [2, 1, 0]) is not a transpose loop dim and keeps its size.
// CHECK-LABEL: func.func @transpose_keeps_middle(
// CHECK-SAME: %arg0: index) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<16x6x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0, 0] [4, 6, 8] [1, 1, 1] : memref<16x6x16xf16, #hivm.address_space<ub>> to memref<4x6x8xf16, strided<[96, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<16x6x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0, 0] [8, 6, 4] [1, 1, 1] : memref<16x6x16xf16, #hivm.address_space<ub>> to memref<8x6x4xf16, strided<[96, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%subview : memref<4x6x8xf16, strided<[96, 16, 1]>, #hivm.address_space<ub>>) outs(%subview_1 : memref<8x6x4xf16, strided<[96, 16, 1]>, #hivm.address_space<ub>>) permutation = [2, 1, 0]
// CHECK-NEXT: return
func.func @transpose_keeps_middle(%n: index) {
  %a = memref.alloc() : memref<4x6x8xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<8x6x4xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<4x6x8xf16, #hivm.address_space<ub>>) outs(%b : memref<8x6x4xf16, #hivm.address_space<ub>>) permutation = [2, 1, 0]
  return
}

// -----

// getUnAlignSizeInfo(VTransposeOp), B32 with a dynamic transpose dim: the
// dynamic dims get whole blocks (8 x f32); the double-block test multiplies
// the size as an unsigned 64-bit number, so kDynamic * 4 wraps to 0 bytes,
// which counts as already doubled: no crosswise doubling.
// CHECK-LABEL: func.func @transpose_b32_dynamic(
// CHECK-SAME: %arg0: index) {
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: %0 = arith.addi %arg0, %c7 : index
// CHECK-NEXT: %1 = arith.remsi %0, %c8 : index
// CHECK-NEXT: %2 = arith.subi %0, %1 : index
// CHECK-NEXT: %alloc = memref.alloc(%2) : memref<?x8xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0] [%arg0, 8] [1, 1] : memref<?x8xf32, #hivm.address_space<ub>> to memref<?x8xf32, strided<[8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %3 = arith.addi %arg0, %c7 : index
// CHECK-NEXT: %4 = arith.remsi %3, %c8 : index
// CHECK-NEXT: %5 = arith.subi %3, %4 : index
// CHECK-NEXT: %alloc_0 = memref.alloc(%5) : memref<8x?xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0] [8, %arg0] [1, 1] : memref<8x?xf32, #hivm.address_space<ub>> to memref<8x?xf32, strided<[?, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%subview : memref<?x8xf32, strided<[8, 1]>, #hivm.address_space<ub>>) outs(%subview_1 : memref<8x?xf32, strided<[?, 1]>, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
func.func @transpose_b32_dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?x8xf32, #hivm.address_space<ub>>
  %b = memref.alloc(%n) : memref<8x?xf32, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<?x8xf32, #hivm.address_space<ub>>) outs(%b : memref<8x?xf32, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}

// -----

// getHWAlignBytes(AddressSpaceAttr): L1 (cbuf) has the UB's 32-byte block.
// CHECK-LABEL: func.func @transpose_l1(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<16x16xf16, #hivm.address_space<cbuf>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0] [8, 8] [1, 1] : memref<16x16xf16, #hivm.address_space<cbuf>> to memref<8x8xf16, strided<[16, 1]>, #hivm.address_space<cbuf>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<16x16xf16, #hivm.address_space<cbuf>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0] [8, 8] [1, 1] : memref<16x16xf16, #hivm.address_space<cbuf>> to memref<8x8xf16, strided<[16, 1]>, #hivm.address_space<cbuf>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%subview : memref<8x8xf16, strided<[16, 1]>, #hivm.address_space<cbuf>>) outs(%subview_1 : memref<8x8xf16, strided<[16, 1]>, #hivm.address_space<cbuf>>) permutation = [1, 0]
// CHECK-NEXT: return
func.func @transpose_l1() {
  %a = memref.alloc() : memref<8x8xf16, #hivm.address_space<cbuf>>
  %b = memref.alloc() : memref<8x8xf16, #hivm.address_space<cbuf>>
  hivm.hir.vtranspose ins(%a : memref<8x8xf16, #hivm.address_space<cbuf>>) outs(%b : memref<8x8xf16, #hivm.address_space<cbuf>>) permutation = [1, 0]
  return
}

// -----

// getUnAlignSizeInfo(VCastOp), rank >= 2 (castAlignDims = [rank - 2,
// rank - 1]), i32 -> i8, rank 3: getCastSrcUnAlignSizeInfo puts the source's
// last dim in whole blocks (20 -> 24 x i32) and dim 1 in
// numElemPerBlockForDst * bytesFactor = 32 * 4 = 128 bytes (5 -> 32 x i32);
// getCastDstUnAlignSizeInfo puts both destination dims in whole blocks
// (5 -> 32, 20 -> 32 x i8). Dim 0 is untouched.
// CHECK-LABEL: func.func @cast_rank3(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<2x32x24xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0, 0] [2, 5, 20] [1, 1, 1] : memref<2x32x24xi32, #hivm.address_space<ub>> to memref<2x5x20xi32, strided<[768, 24, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<2x32x32xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0, 0] [2, 5, 20] [1, 1, 1] : memref<2x32x32xi8, #hivm.address_space<ub>> to memref<2x5x20xi8, strided<[1024, 32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%subview : memref<2x5x20xi32, strided<[768, 24, 1]>, #hivm.address_space<ub>>) outs(%subview_1 : memref<2x5x20xi8, strided<[1024, 32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @cast_rank3() {
  %a = memref.alloc() : memref<2x5x20xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x5x20xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x5x20xi32, #hivm.address_space<ub>>) outs(%b : memref<2x5x20xi8, #hivm.address_space<ub>>)
  return
}

// -----

// getUnAlignSizeInfo(VCastOp), rank 1, i16 -> i8, dynamic size: the source
// takes the large-size branch, 32 * 32 * 2 = 2048 bytes (1024 x i16); the
// destination 32 * 32 bytes (1024 x i8). Both are rounded at run time
// (AlignUpOFR).
// CHECK-LABEL: func.func @cast_rank1_dynamic(
// CHECK-SAME: %arg0: index) {
// CHECK-NEXT: %c1024 = arith.constant 1024 : index
// CHECK-NEXT: %c1023 = arith.constant 1023 : index
// CHECK-NEXT: %0 = arith.addi %arg0, %c1023 : index
// CHECK-NEXT: %1 = arith.remsi %0, %c1024 : index
// CHECK-NEXT: %2 = arith.subi %0, %1 : index
// CHECK-NEXT: %alloc = memref.alloc(%2) : memref<?xi16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0] [%arg0] [1] : memref<?xi16, #hivm.address_space<ub>> to memref<?xi16, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %3 = arith.addi %arg0, %c1023 : index
// CHECK-NEXT: %4 = arith.remsi %3, %c1024 : index
// CHECK-NEXT: %5 = arith.subi %3, %4 : index
// CHECK-NEXT: %alloc_0 = memref.alloc(%5) : memref<?xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0] [%arg0] [1] : memref<?xi8, #hivm.address_space<ub>> to memref<?xi8, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%subview : memref<?xi16, strided<[1]>, #hivm.address_space<ub>>) outs(%subview_1 : memref<?xi8, strided<[1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @cast_rank1_dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xi16, #hivm.address_space<ub>>
  %b = memref.alloc(%n) : memref<?xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<?xi16, #hivm.address_space<ub>>) outs(%b : memref<?xi8, #hivm.address_space<ub>>)
  return
}

// -----

// markAllocAlign: only i32 -> i8 and i16 -> i8 casts are sized (isInteger(32)
// / isInteger(16) to isInteger(8)); f32 -> f16 and f16 -> i8 are not.
// CHECK-LABEL: func.func @cast_not_narrowing_to_i8(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<2x5xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<2x5xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_1 = memref.alloc() : memref<2x5xi8, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%alloc : memref<2x5xf32, #hivm.address_space<ub>>) outs(%alloc_0 : memref<2x5xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.vcast ins(%alloc_0 : memref<2x5xf16, #hivm.address_space<ub>>) outs(%alloc_1 : memref<2x5xi8, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @cast_not_narrowing_to_i8() {
  %a = memref.alloc() : memref<2x5xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x5xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<2x5xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x5xf32, #hivm.address_space<ub>>) outs(%b : memref<2x5xf16, #hivm.address_space<ub>>)
  hivm.hir.vcast ins(%b : memref<2x5xf16, #hivm.address_space<ub>>) outs(%c : memref<2x5xi8, #hivm.address_space<ub>>)
  return
}

// -----

// markAllocAlign: a function with hivm.disable_size_align_for_cast sizes no
// cast.
// CHECK-LABEL: func.func @cast_disabled(
// CHECK-SAME: ) attributes {hivm.disable_size_align_for_cast} {
// CHECK-NEXT: %alloc = memref.alloc() : memref<2x5xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<2x5xi8, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%alloc : memref<2x5xi32, #hivm.address_space<ub>>) outs(%alloc_0 : memref<2x5xi8, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @cast_disabled() attributes {hivm.disable_size_align_for_cast} {
  %a = memref.alloc() : memref<2x5xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x5xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x5xi32, #hivm.address_space<ub>>) outs(%b : memref<2x5xi8, #hivm.address_space<ub>>)
  return
}

// -----

// getUnAlignSizeInfo(VSortOp): the last dim of every operand in whole
// bit-sort repeats, per operand's element type: hw * (32 / elements per
// block), 4 blocks (128 bytes) for f32 and 2 blocks (64 bytes) for f16, 32
// elements either way.
// CHECK-LABEL: func.func @sort_per_operand(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<4x32xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %subview = memref.subview %alloc[0, 0] [4, 20] [1, 1] : memref<4x32xf32, #hivm.address_space<ub>> to memref<4x20xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<4x32xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_1 = memref.subview %alloc_0[0, 0] [4, 20] [1, 1] : memref<4x32xf16, #hivm.address_space<ub>> to memref<4x20xf16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_2 = memref.alloc() : memref<4x32xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %subview_3 = memref.subview %alloc_2[0, 0] [4, 20] [1, 1] : memref<4x32xf16, #hivm.address_space<ub>> to memref<4x20xf16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vsort ins(%subview : memref<4x20xf32, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%subview : memref<4x20xf32, strided<[32, 1]>, #hivm.address_space<ub>>) descending = false sort_axis = 1
// CHECK-NEXT: hivm.hir.vsort ins(%subview_1 : memref<4x20xf16, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%subview_3 : memref<4x20xf16, strided<[32, 1]>, #hivm.address_space<ub>>) descending = false sort_axis = 1
// CHECK-NEXT: return
func.func @sort_per_operand() {
  %a = memref.alloc() : memref<4x20xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x20xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<4x20xf16, #hivm.address_space<ub>>
  hivm.hir.vsort ins(%a : memref<4x20xf32, #hivm.address_space<ub>>) outs(%a : memref<4x20xf32, #hivm.address_space<ub>>) descending = false sort_axis = 1
  hivm.hir.vsort ins(%b : memref<4x20xf16, #hivm.address_space<ub>>) outs(%c : memref<4x20xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  return
}

// -----

// collectOpAlignInfo takes the element width in whole bytes
// (getIntOrFloatBitWidth() / 8): 0 for i1, so every i1 size counts as
// whole blocks and an i1 transpose is not resized.
// CHECK-LABEL: func.func @transpose_i1(
// CHECK-SAME: ) {
// CHECK-NEXT: %alloc = memref.alloc() : memref<4x8xi1, #hivm.address_space<ub>>
// CHECK-NEXT: %alloc_0 = memref.alloc() : memref<8x4xi1, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%alloc : memref<4x8xi1, #hivm.address_space<ub>>) outs(%alloc_0 : memref<8x4xi1, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
func.func @transpose_i1() {
  %a = memref.alloc() : memref<4x8xi1, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<8x4xi1, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<4x8xi1, #hivm.address_space<ub>>) outs(%b : memref<8x4xi1, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}
