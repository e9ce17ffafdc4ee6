// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// Region-holding ops print like mlir-opt: scf.while with its `do` region and
// explicit block arguments, scf.for over i32 with iter_args, empty yields
// left out, block labels in generic regions, and numbering that restarts in
// sibling regions.

// CHECK-LABEL: func.func @loops(%arg0: f32, %arg1: i1, %arg2: i32) -> f32 {
func.func @loops(%x: f32, %c: i1, %n: i32) -> f32 {
  // CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
  // CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
  %lo = arith.constant 0 : i32
  %st = arith.constant 1 : i32
  // CHECK-NEXT: %0 = scf.while (%arg3 = %arg0) : (f32) -> f32 {
  // CHECK-NEXT:   scf.condition(%arg1) %arg3 : f32
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%arg3: f32):
  // CHECK-NEXT:   scf.yield %arg3 : f32
  // CHECK-NEXT: }
  %r = scf.while (%a = %x) : (f32) -> f32 {
    scf.condition(%c) %a : f32
  } do {
  ^bb0(%b: f32):
    scf.yield %b : f32
  }
  // CHECK-NEXT: %1 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %0) -> (f32)  : i32 {
  // CHECK-NEXT:   %3 = arith.addf %arg4, %arg4 : f32
  // CHECK-NEXT:   scf.yield %3 : f32
  // CHECK-NEXT: }
  %s = scf.for %i = %lo to %n step %st iter_args(%acc = %r) -> (f32) : i32 {
    %d = arith.addf %acc, %acc : f32
    scf.yield %d : f32
  }
  // CHECK-NEXT: %2 = "test.region"() ({
  // CHECK-NEXT:   "test.op"() : () -> ()
  // CHECK-NEXT: ^bb1(%3: i32):
  // CHECK-NEXT:   "test.op"(%3) : (i32) -> ()
  // CHECK-NEXT: }) : () -> i64
  %g = "test.region"() ({
    "test.op"() : () -> ()
  ^bb1(%v: i32):
    "test.op"(%v) : (i32) -> ()
  }) : () -> i64
  // CHECK-NEXT: return %1 : f32
  return %s : f32
}
