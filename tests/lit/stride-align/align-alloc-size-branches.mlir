// RUN: tilemem opt -hivm-align-alloc-size -split-input-file %s 2>/dev/null | FileCheck %s
// RUN: tilemem opt -hivm-align-alloc-size -split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// HIVMAlignAllocSize.cpp and the getUnAlignSizeInfo rules of HIVMImpl.cpp,
// branch by branch.

// markAllocAlign: a transpose that keeps the last dim in place
// (!isLastDimTranspose) needs no size alignment, only stride alignment;
// host functions are not visited (runOnOperation).
// CHECK-LABEL: func.func @transpose_outer(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%[[ALLOC]] : memref<2x4x15xf16, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<4x2x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @transpose_outer() {
  %a = memref.alloc() : memref<2x4x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<2x4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x2x15xf16, #hivm.address_space<ub>>) permutation = [1, 0, 2]
  return
}
// CHECK-LABEL: func.func @host_transpose(
// CHECK-SAME: ) attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<15x4xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%[[ALLOC]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<15x4xf16, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @host_transpose() attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<15x4xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<15x4xf16, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}

// -----

// getUnAlignSizeInfo(VTransposeOp), B32: neither transpose dim is a
// multiple of two blocks (8 x f32 = 32 bytes), so one is doubled crosswise:
// the source's dims get 32 and 64 bytes, the destination's 64 and 32
// (AlignAllocSizePattern: units of bytes / 4 elements).
// CHECK-LABEL: func.func @transpose_b32_double(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<8x16xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0] [8, 8] [1, 1] : memref<8x16xf32, #hivm.address_space<ub>> to memref<8x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<16x8xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0] [8, 8] [1, 1] : memref<16x8xf32, #hivm.address_space<ub>> to memref<8x8xf32, strided<[8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%[[SUBVIEW]] : memref<8x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<8x8xf32, strided<[8, 1]>, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @transpose_b32_double() {
  %a = memref.alloc() : memref<8x8xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<8x8xf32, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<8x8xf32, #hivm.address_space<ub>>) outs(%b : memref<8x8xf32, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}

// -----

// getUnAlignSizeInfo(VTransposeOp), B32: a transpose dim already a
// multiple of two blocks (16 x f32): only the whole-block rule, which the
// 8 x f32 dims already meet: nothing changes.
// CHECK-LABEL: func.func @transpose_b32_already_double(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<8x16xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<16x8xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vtranspose ins(%[[ALLOC]] : memref<8x16xf32, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<16x8xf32, #hivm.address_space<ub>>) permutation = [1, 0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @transpose_b32_already_double() {
  %a = memref.alloc() : memref<8x16xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<16x8xf32, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<8x16xf32, #hivm.address_space<ub>>) outs(%b : memref<16x8xf32, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}

// -----

// getUnAlignSizeInfo(VCastOp), rank 1, i32 -> i8: a source of at most
// 32 elements (one destination block) is sized in blocks of
// ceil(20 * 4, 32) * 32 = 3072 bytes; the destination's in 32 x 32 bytes.
// CHECK-LABEL: func.func @cast_rank1_small(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<768xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0] [20] [1] : memref<768xi32, #hivm.address_space<ub>> to memref<20xi32, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<1024xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0] [20] [1] : memref<1024xi8, #hivm.address_space<ub>> to memref<20xi8, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%[[SUBVIEW]] : memref<20xi32, strided<[1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<20xi8, strided<[1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cast_rank1_small() {
  %a = memref.alloc() : memref<20xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<20xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<20xi32, #hivm.address_space<ub>>) outs(%b : memref<20xi8, #hivm.address_space<ub>>)
  return
}

// -----

// getUnAlignSizeInfo(VCastOp), rank 1, i32 -> i8, more than 32 elements:
// blocks of 32 * 32 * 4 bytes for the source.
// CHECK-LABEL: func.func @cast_rank1_large(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<1024xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0] [40] [1] : memref<1024xi32, #hivm.address_space<ub>> to memref<40xi32, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<1024xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0] [40] [1] : memref<1024xi8, #hivm.address_space<ub>> to memref<40xi8, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%[[SUBVIEW]] : memref<40xi32, strided<[1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<40xi8, strided<[1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cast_rank1_large() {
  %a = memref.alloc() : memref<40xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<40xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<40xi32, #hivm.address_space<ub>>) outs(%b : memref<40xi8, #hivm.address_space<ub>>)
  return
}

// -----

// getUnAlignSizeInfo(VCastOp), rank 2, i16 -> i8: the source's last dim in
// whole blocks (20 x i16 -> 32 bytes), its dim before in
// 16 * 2 * 2 = 64 bytes; both destination dims in whole blocks.
// CHECK-LABEL: func.func @cast_rank2_i16(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<32x32xi16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0] [5, 20] [1, 1] : memref<32x32xi16, #hivm.address_space<ub>> to memref<5x20xi16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<32x32xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0] [5, 20] [1, 1] : memref<32x32xi8, #hivm.address_space<ub>> to memref<5x20xi8, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%[[SUBVIEW]] : memref<5x20xi16, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<5x20xi8, strided<[32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cast_rank2_i16() {
  %a = memref.alloc() : memref<5x20xi16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<5x20xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<5x20xi16, #hivm.address_space<ub>>) outs(%b : memref<5x20xi8, #hivm.address_space<ub>>)
  return
}

// -----

// PropagateAlignUpToRootAllocationPattern with the alloc-align attributes,
// getExpandedDim: a collapsed dim whose group holds more than one non-unit
// dim cannot carry a size requirement: the error `cannot align 0 axis for`
// the collapsed value; the pattern fails and the pass goes on, so only the
// destination is resized.
// CHECK-LABEL: func.func @collapse_two_non_unit(
// CHECK-SAME: ) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x3x32xi16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [2, 3, 20] [1, 1, 1] : memref<2x3x32xi16, #hivm.address_space<ub>> to memref<2x3x20xi16, strided<[96, 32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[COLLAPSE_SHAPE:[^ ]+]] = memref.collapse_shape %[[SUBVIEW]] {{\[\[}}0, 1], [2]] : memref<2x3x20xi16, strided<[96, 32, 1]>, #hivm.address_space<ub>> into memref<6x20xi16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<32x32xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0] [6, 20] [1, 1] : memref<32x32xi8, #hivm.address_space<ub>> to memref<6x20xi8, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%[[COLLAPSE_SHAPE]] : memref<6x20xi16, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<6x20xi8, strided<[32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @collapse_two_non_unit() {
  %a = memref.alloc() : memref<2x3x20xi16, #hivm.address_space<ub>>
  // DIAG: align-alloc-size-branches.mlir:[[@LINE+1]]:3: error: cannot align 0 axis for
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x20xi16, #hivm.address_space<ub>> into memref<6x20xi16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<6x20xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%c : memref<6x20xi16, #hivm.address_space<ub>>) outs(%b : memref<6x20xi8, #hivm.address_space<ub>>)
  return
}
