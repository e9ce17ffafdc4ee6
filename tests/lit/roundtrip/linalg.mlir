// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// linalg.reduce in its long form (block arguments %in/%init on their own
// line) and its short form `{ arith.addf }`, results named %reduced and
// %transposed as upstream names them.
// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: tensor<8xi1>, %arg1: tensor<i1>, %arg2: tensor<?x?xf32>, %arg3: tensor<?xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<3x2xf32>) -> tensor<i1> {
// CHECK-NEXT: %reduced = linalg.reduce ins(%arg0 : tensor<8xi1>) outs(%arg1 : tensor<i1>) dimensions = [0]
// CHECK-NEXT: (%in: i1, %init: i1) {
// CHECK-NEXT: %0 = arith.addi %in, %init : i1
// CHECK-NEXT: linalg.yield %0 : i1
// CHECK-NEXT: }
// CHECK-NEXT: %reduced_0 = linalg.reduce { arith.addf } ins(%arg2 : tensor<?x?xf32>) outs(%arg3 : tensor<?xf32>) dimensions = [1]
// CHECK-NEXT: %transposed = linalg.transpose ins(%arg4 : tensor<2x3xf32>) outs(%arg5 : tensor<3x2xf32>) permutation = [1, 0]
// CHECK-NEXT: return %reduced : tensor<i1>
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @f(%a: tensor<8xi1>, %b: tensor<i1>, %c: tensor<?x?xf32>, %d: tensor<?xf32>, %t: tensor<2x3xf32>, %u: tensor<3x2xf32>) -> tensor<i1> {
  %r = linalg.reduce ins(%a : tensor<8xi1>) outs(%b : tensor<i1>) dimensions = [0]
        (%in: i1, %init: i1) {
          %2 = arith.addi %in, %init : i1
          linalg.yield %2 : i1
        }
  %1 = linalg.reduce { arith.addf } ins(%c : tensor<?x?xf32>) outs(%d : tensor<?xf32>) dimensions = [1]
  %2 = linalg.transpose ins(%t : tensor<2x3xf32>) outs(%u : tensor<3x2xf32>) permutation = [1, 0]
  return %r : tensor<i1>
}
