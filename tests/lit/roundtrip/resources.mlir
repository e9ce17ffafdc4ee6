// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Dialect resources (the blobs dense_resource<..> names) are kept and
// printed after the module.

// CHECK: %cst = arith.constant dense_resource<blob1> : tensor<2xi32>
// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: blob1: "0x040000000100000002000000"
// CHECK: #-}
func.func @f() {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi32>
  return
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
