// RUN: not tilemem opt %s 2>&1 | FileCheck %s
// Affine subscripts take SSA values and constants, not map dims.

func.func @dim_id(%m: memref<16xf16>) {
  // CHECK: affine-errors.mlir:[[@LINE+1]]:23: error: expected an SSA value or constant in affine subscript
  %v = affine.load %m[d0] : memref<16xf16>
  return
}
