// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// Multi-result ops: a group is defined `%0:2` and every use names its
// result, the first one included (`%0#0`); ops whose results have their
// own names (mulsi_extended: %low, %high) use them. Type aliases are
// expanded; loc(...) after ops, arguments and functions, and the #loc
// aliases, are kept and printed back as written.
// CHECK: #loc = loc("kernel.py":1:2)
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @f(%arg0: memref<4xf32, #hivm.address_space<ub>> loc("x":1:1), %arg1: i32) {
// CHECK-NEXT: %0:2 = "t.two"() : () -> (i32, i32) loc(#loc)
// CHECK-NEXT: "t.use"(%0#0, %0#1) : (i32, i32) -> ()
// CHECK-NEXT: %low, %high = arith.mulsi_extended %0#0, %arg1 : i32
// CHECK-NEXT: "t.use"(%high, %arg0) : (i32, memref<4xf32, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: return loc(unknown)
// CHECK-NEXT: } loc(#loc)
// CHECK-NEXT: }

#loc = loc("kernel.py":1:2)
!buf = memref<4xf32, #hivm.address_space<ub>>
func.func @f(%m: !buf loc("x":1:1), %a: i32) {
  %0:2 = "t.two"() : () -> (i32, i32) loc(#loc)
  "t.use"(%0#0, %0#1) : (i32, i32) -> ()
  %r:2 = arith.mulsi_extended %0#0, %a : i32
  "t.use"(%r#1, %m) : (i32, !buf) -> ()
  return loc(unknown)
} loc(#loc)
