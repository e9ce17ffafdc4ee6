// RUN: tilemem opt -split-input-file %s | FileCheck %s
// RUN: tilemem opt -split-input-file %s -o %t.out && FileCheck %s --input-file=%t.out
// RUN: tilemem opt -split-input-file - < %s | FileCheck %s
// Each chunk is a module of its own; outputs are joined by `// -----`.

// CHECK: module {
// CHECK-NEXT: func.func @first() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @second(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: // -----
func.func @first() {
  return
}

// -----

func.func @second(%x: i32) -> i32 {
  return %x : i32
}
