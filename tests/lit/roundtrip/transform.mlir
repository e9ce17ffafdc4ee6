// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Transform scripts of the corpus: named_sequence prints as a function,
// its ops by their upstream formats (`ops{[..]}`, `tile_sizes [1, 2]`,
// `%f[3]`); a result group bound as `%t, %loops:2` prints as one group.
// CHECK: module attributes {transform.with_named_sequence} {
// CHECK-NEXT: transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
// CHECK-NEXT: %0 = transform.structured.match ops{["func.func"]} in %arg0 : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT: %1 = transform.structured.match ops{["hivm.hir.copy"]} in %0 : (!transform.any_op) -> !transform.op<"hivm.hir.copy">
// CHECK-NEXT: %2:3 = transform.structured.tile_using_for %1 tile_sizes [1, 2] : (!transform.op<"hivm.hir.copy">) -> (!transform.any_op, !transform.any_op, !transform.any_op)
// CHECK-NEXT: %3 = transform.func.get_func_argument %0[3] : (!transform.any_op) -> !transform.any_value
// CHECK-NEXT: transform.yield
// CHECK-NEXT: }
// CHECK-NEXT: }

module attributes { transform.with_named_sequence } {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["hivm.hir.copy"]} in %f : (!transform.any_op) -> !transform.op<"hivm.hir.copy">
    %t, %loops:2 = transform.structured.tile_using_for %c tile_sizes [1, 2] : (!transform.op<"hivm.hir.copy">) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %a = transform.func.get_func_argument %f[3]: (!transform.any_op) -> !transform.any_value
    transform.yield
  }
}
