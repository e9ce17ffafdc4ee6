// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Ops whose operands sit inside an affine map, in the forms of the
// AscendNPU-IR corpus (RegBase/merge-vf-level-1.mlir, i1op-soft-impl.mlir,
// compose-collapse-expand.mlir): affine subscripts may be constants and
// expressions (`symbol(%s)` marks a symbol), a transpose carries its
// permutation map inline, symbolic ints and shape bindings an affine_map
// attribute (aliased like any other).

// CHECK: #[[UNIT:map]] = affine_map<() -> ()>
// CHECK: #[[SHAPE:map1]] = affine_map<()[s0, s1] -> (2, s0, s1)>
// CHECK-LABEL: func.func @affine
// CHECK: affine.store %cst, %arg0[0, 0] : memref<16x128xf16>
// CHECK-NEXT: affine.store %cst, %arg0[%arg1 + 1, %arg2 * 2 + %arg1] : memref<16x128xf16>
// CHECK-NEXT: %{{.*}} = affine.load %arg0[%arg1 floordiv 2, symbol(%arg3)] : memref<16x128xf16>
// CHECK-NEXT: %{{.*}} = affine.load %arg0[%arg1, %arg2] {foo} : memref<16x128xf16>
// CHECK-NEXT: %transpose = memref.transpose %arg0 (d0, d1) -> (d1, d0) : memref<16x128xf16> to memref<128x16xf16, strided<[1, 128]>>
func.func @affine(%m: memref<16x128xf16>, %i: index, %j: index, %s: index) {
  %cst = arith.constant 0.0 : f16
  affine.store %cst, %m[0, 0] : memref<16x128xf16>
  affine.store %cst, %m[%i  +  1, %j * 2 + %i] : memref<16x128xf16>
  %v = affine.load %m[%i floordiv 2, symbol(%s)] : memref<16x128xf16>
  %w = affine.load %m[%i, %j] {foo} : memref<16x128xf16>
  %t = memref.transpose %m (d0,d1) -> (d1,  d0) : memref<16x128xf16> to memref<128x16xf16, strided<[1, 128]>>
  return
}

// CHECK-LABEL: func.func @symbols
// CHECK: %[[S0:.*]] = symbol.symbolic_int @s0 [], #[[UNIT]] {max_val = 1024 : i64, min_val = 128 : i64} : index
// CHECK-NEXT: %[[S1:.*]] = symbol.symbolic_int @s1 [], #[[UNIT]] {max_val = 512 : i64, min_val = 256 : i64} : index
// CHECK-NEXT: symbol.bind_symbolic_shape %arg0, [%[[S0]], %[[S1]]], #[[SHAPE]] : memref<2x?x?xf16>
func.func @symbols(%arg0: memref<2x?x?xf16>) {
  %s0 = symbol.symbolic_int @s0 [], affine_map<() -> ()> {max_val = 1024 : i64, min_val = 128 : i64} : index
  %s1 = symbol.symbolic_int @s1 [], affine_map<() -> ()> {max_val = 512 : i64, min_val = 256 : i64} : index
  symbol.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (2, s0, s1)> : memref<2x?x?xf16>
  return
}
