// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// scf.forall prints its normalized `in (..)` form when lower bounds are 0
// and steps 1 (constants too, as ForallOp::isNormalized), the bounds form
// otherwise; the in_parallel terminator is printed only with shared_outs.
// scf.parallel keeps its scf.reduce terminator.
// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: tensor<4xf32>, %arg1: index) -> tensor<4xf32> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: scf.forall (%arg2, %arg3) in (100, %arg1) {
// CHECK-NEXT: "some_use"(%arg2) : (index) -> ()
// CHECK-NEXT: } {mapping = [#hivm.block]}
// CHECK-NEXT: scf.forall (%arg2) in (%arg1) {
// CHECK-NEXT: "some_use"(%arg2) : (index) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: %0 = scf.forall (%arg2) = (0) to (4) step (2) shared_outs(%arg3 = %arg0) -> (tensor<4xf32>) {
// CHECK-NEXT: %cst = arith.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice %cst into %arg3[%arg2] [1] [1] : tensor<1xf32> into tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel (%arg2) = (%c0) to (%arg1) step (%c1) {
// CHECK-NEXT: %alloca = memref.alloca() : memref<8xf32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @f(%t: tensor<4xf32>, %ub: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%i, %j) in (100, %ub) {
    "some_use"(%i) : (index) -> ()
  } {mapping = [#hivm.block]}
  scf.forall (%i) = (%c0) to (%ub) step (%c1) {
    "some_use"(%i) : (index) -> ()
  }
  %r = scf.forall (%i) = (0) to (4) step (2) shared_outs(%o = %t) -> (tensor<4xf32>) {
    %cst = arith.constant dense<1.0> : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %cst into %o[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  scf.parallel (%i) = (%c0) to (%ub) step (%c1) {
    %a = memref.alloca() : memref<8xf32>
  }
  return %r : tensor<4xf32>
}
