// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// Blocks: cf.br/cf.cond_br with successor operands, a branch to a block
// defined further down, a value used before its definition, successors in
// the generic form, and MLIR's `// pred:` comments after block labels.
// CHECK: module {
// CHECK-NEXT: func.func @branches(%arg0: i1, %arg1: index) {
// CHECK-NEXT: cf.cond_br %arg0, ^bb2(%arg1 : index), ^bb1
// CHECK-NEXT: ^bb1:  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT: %0 = "t.next"(%1) : (index) -> index
// CHECK-NEXT: %1 = "t.def"() : () -> index
// CHECK-NEXT: cf.br ^bb2(%0 : index)
// CHECK-NEXT: ^bb2(%2: index):  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: "t.use"(%2)[^bb1] : (index) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @branches(%c: i1, %a: index) {
  cf.cond_br %c, ^bb2(%a : index), ^bb1
^bb1:
  %n = "t.next"(%late) : (index) -> index
  %late = "t.def"() : () -> index
  cf.br ^bb2(%n: index)
^bb2(%x: index):
  "t.use"(%x) [^bb1] : (index) -> ()
}
