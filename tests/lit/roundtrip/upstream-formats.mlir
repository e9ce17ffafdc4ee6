// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Upstream memref, arith, math, affine and scf ops in their LLVM 19
// assembly formats: attribute dictionaries where the formats put them,
// overflow and fastmath flags, memref.extract_aligned_pointer_as_index,
// and default-valued attributes elided as the generated printers do
// (memref.load/store's nontemporal = false).

// CHECK: #map = affine_map<(d0) -> (d0 * 4)>
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @u(%arg0: memref<4x8xf32>, %arg1: index, %arg2: i32, %arg3: i32, %arg4: f32, %arg5: f32, %arg6: memref<?xf32>) {
// CHECK-NEXT: %alloc = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NEXT: %alloc_0 = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT: %alloca = memref.alloca() {alignment = 32 : i64} : memref<16xi8>
// CHECK-NEXT: %subview = memref.subview %arg0[0, 0] [2, 8] [1, 1] {foo} : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
// CHECK-NEXT: %collapse_shape = memref.collapse_shape %arg0 {{\[\[}}0, 1]] {bar} : memref<4x8xf32> into memref<32xf32>
// CHECK-NEXT: %expand_shape = memref.expand_shape %collapse_shape {{\[\[}}0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
// CHECK-NEXT: %cast = memref.cast %arg0 : memref<4x8xf32> to memref<?x?xf32>
// CHECK-NEXT: %0 = arith.addi %arg2, %arg3 overflow<nsw> : i32
// CHECK-NEXT: %1 = arith.addf %arg4, %arg5 fastmath<fast> : f32
// CHECK-NEXT: %2 = arith.cmpi slt, %arg2, %arg3 : i32
// CHECK-NEXT: %3 = arith.select %2, %arg2, %arg3 : i32
// CHECK-NEXT: %4 = arith.index_cast %arg2 : i32 to index
// CHECK-NEXT: %5 = math.exp %arg4 fastmath<fast> : f32
// CHECK-NEXT: %dim = memref.dim %arg0, %arg1 : memref<4x8xf32>
// CHECK-NEXT: %6 = affine.apply #map(%arg1)
// CHECK-NEXT: %c1_i32 = arith.constant {tag} 1 : i32
// CHECK-NEXT: %7 = memref.load %arg0[%arg1, %arg1] : memref<4x8xf32>
// CHECK-NEXT: memref.store %arg4, %arg0[%arg1, %arg1] : memref<4x8xf32>
// CHECK-NEXT: memref.copy %arg0, %alloc : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT: memref.dealloc %alloc : memref<4x8xf32>
// CHECK-NEXT: %8 = arith.extf %arg4 : f32 to f64
// CHECK-NEXT: %9 = arith.trunci %arg2 : i32 to i8
// CHECK-NEXT: %10 = arith.maximumf %arg4, %arg5 : f32
// CHECK-NEXT: %11 = arith.divsi %arg2, %arg3 : i32
// CHECK-NEXT: %12 = arith.muli %arg2, %arg3 overflow<nsw, nuw> : i32
// CHECK-NEXT: %13 = arith.sitofp %arg2 : i32 to f32
// CHECK-NEXT: %intptr = memref.extract_aligned_pointer_as_index %arg0 : memref<4x8xf32> -> index
// CHECK-NEXT: %memspacecast = memref.memory_space_cast %arg0 : memref<4x8xf32> to memref<4x8xf32, 1>
// CHECK-NEXT: %transpose = memref.transpose %arg0 (i, j) -> (j, i) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %14 = scf.for %arg7 = %arg1 to %arg1 step %c1 iter_args(%arg8 = %arg4) -> (f32) {
// CHECK-NEXT: scf.yield %arg8 : f32
// CHECK-NEXT: } {tag2}
// CHECK-NEXT: scf.for %arg7 = %arg1 to %arg1 step %c1 {
// CHECK-NEXT: }
// CHECK-NEXT: %15 = scf.if %2 -> (f32) {
// CHECK-NEXT: scf.yield %arg4 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg5 : f32
// CHECK-NEXT: } {tag3}
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @u(%m: memref<4x8xf32>, %i: index, %a: i32, %b: i32, %f: f32, %g: f32, %n: memref<?xf32>) {
  %0 = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  %1 = memref.alloc(%i) : memref<?xf32>
  %2 = memref.alloca() {alignment = 32 : i64} : memref<16xi8>
  %3 = memref.subview %m[0, 0] [2, 8] [1, 1] {foo} : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %4 = memref.collapse_shape %m [[0, 1]] {bar} : memref<4x8xf32> into memref<32xf32>
  %5 = memref.expand_shape %4 [[0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
  %6 = memref.cast %m : memref<4x8xf32> to memref<?x?xf32>
  %7 = arith.addi %a, %b overflow<nsw> : i32
  %8 = arith.addf %f, %g fastmath<fast> : f32
  %9 = arith.cmpi slt, %a, %b : i32
  %10 = arith.select %9, %a, %b : i32
  %11 = arith.index_cast %a : i32 to index
  %12 = math.exp %f fastmath<fast> : f32
  %13 = memref.dim %m, %i : memref<4x8xf32>
  %14 = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
  %15 = arith.constant {tag} 1 : i32
  %16 = memref.load %m[%i, %i] {nontemporal = false} : memref<4x8xf32>
  memref.store %f, %m[%i, %i] {nontemporal = false} : memref<4x8xf32>
  memref.copy %m, %0 : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %0 : memref<4x8xf32>
  %17 = arith.extf %f : f32 to f64
  %18 = arith.trunci %a : i32 to i8
  %19 = arith.maximumf %f, %g : f32
  %20 = arith.divsi %a, %b : i32
  %21 = arith.muli %a, %b overflow<nsw, nuw> : i32
  %22 = arith.sitofp %a : i32 to f32
  %23 = memref.extract_aligned_pointer_as_index %m : memref<4x8xf32> -> index
  %24 = memref.memory_space_cast %m : memref<4x8xf32> to memref<4x8xf32, 1>
  %25 = memref.transpose %m (i, j) -> (j, i) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  %c1 = arith.constant 1 : index
  %26 = scf.for %k = %i to %i step %c1 iter_args(%x = %f) -> (f32) {
    scf.yield %x : f32
  } {tag2}
  scf.for %k = %i to %i step %c1 : index {
  }
  %27 = scf.if %9 -> (f32) {
    scf.yield %f : f32
  } else {
    scf.yield %g : f32
  } {tag3}
  return
}
