// RUN: tilemem opt -hivm-align-alloc-size -split-input-file %s | FileCheck %s
// Size alignment for ops that work on whole hardware blocks: the padded
// allocation has no extra unit dim.

// i32 -> i8 cast: both sides get 32 rows, the i8 side 32-byte rows.
// CHECK-LABEL: func.func @cast_i32_to_i8
// CHECK: %[[A:.*]] = memref.alloc() : memref<32x16xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[VA:.*]] = memref.subview %[[A]][0, 0] [2, 16] [1, 1] : memref<32x16xi32, #hivm.address_space<ub>> to memref<2x16xi32, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<32x32xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[VB:.*]] = memref.subview %[[B]][0, 0] [2, 16] [1, 1] : memref<32x32xi8, #hivm.address_space<ub>> to memref<2x16xi8, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcast ins(%[[VA]] : memref<2x16xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[VB]] : memref<2x16xi8, strided<[32, 1]>, #hivm.address_space<ub>>)
func.func @cast_i32_to_i8() {
  %a = memref.alloc() : memref<2x16xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x16xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x16xi32, #hivm.address_space<ub>>) outs(%b : memref<2x16xi8, #hivm.address_space<ub>>)
  return
}

// -----

// i16 -> i8 as well.
// CHECK-LABEL: func.func @cast_i16_to_i8
// CHECK: memref.alloc() : memref<32x16xi16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<32x32xi8, #hivm.address_space<ub>>
func.func @cast_i16_to_i8() {
  %a = memref.alloc() : memref<2x16xi16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x16xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x16xi16, #hivm.address_space<ub>>) outs(%b : memref<2x16xi8, #hivm.address_space<ub>>)
  return
}

// -----

// The function attribute turns the cast rule off; widening casts are not
// concerned.
// CHECK-LABEL: func.func @cast_disabled
// CHECK-NOT: memref.subview
// CHECK-LABEL: func.func @cast_widening
// CHECK-NOT: memref.subview
// CHECK: return
func.func @cast_disabled() attributes {hivm.disable_size_align_for_cast} {
  %a = memref.alloc() : memref<2x16xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x16xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x16xi32, #hivm.address_space<ub>>) outs(%b : memref<2x16xi8, #hivm.address_space<ub>>)
  return
}
func.func @cast_widening() {
  %a = memref.alloc() : memref<2x16xi8, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x16xi32, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x16xi8, #hivm.address_space<ub>>) outs(%b : memref<2x16xi32, #hivm.address_space<ub>>)
  return
}

// -----

// A last-dim transpose works on 32-byte blocks in both dims.
// CHECK-LABEL: func.func @transpose
// CHECK: memref.alloc() : memref<16x16xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<16x16xf16, #hivm.address_space<ub>>
// CHECK: hivm.hir.vtranspose ins(%{{.*}} : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%{{.*}} : memref<15x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @transpose() {
  %a = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<15x16xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<16x15xf16, #hivm.address_space<ub>>) outs(%b : memref<15x16xf16, #hivm.address_space<ub>>) permutation = [1, 0]
  return
}

// -----

// Sorting works on groups of 32 elements; the requirement reaches the root
// through a subview.
// CHECK-LABEL: func.func @sort
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x32xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0] [4, 30] [1, 1] : memref<4x32xf32, #hivm.address_space<ub>> to memref<4x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[V]][0, 0] [2, 30] [1, 1] : memref<4x30xf32, strided<[32, 1]>, #hivm.address_space<ub>> to memref<2x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
func.func @sort() {
  %a = memref.alloc() : memref<4x30xf32, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [2, 30] [1, 1] : memref<4x30xf32, #hivm.address_space<ub>> to memref<2x30xf32, strided<[30, 1]>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x32xf32, #hivm.address_space<ub>>
  hivm.hir.vsort ins(%s : memref<2x30xf32, strided<[30, 1]>, #hivm.address_space<ub>>) outs(%b : memref<2x32xf32, #hivm.address_space<ub>>) descending = false sort_axis = -1
  return
}

// -----

// Already aligned sizes are left alone (and so is a second run).
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: memref.subview
// CHECK: return
func.func @aligned() {
  %a = memref.alloc() : memref<32x16xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<32x32xi8, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<32x16xi32, #hivm.address_space<ub>>) outs(%b : memref<32x32xi8, #hivm.address_space<ub>>)
  return
}
