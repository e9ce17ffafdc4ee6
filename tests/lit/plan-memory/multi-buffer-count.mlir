// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: sed 's/-3 : i32/2147483647 : i32/' %s > %t.huge.mlir
// RUN: not tilemem opt %t.huge.mlir -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>&1 | FileCheck %s --check-prefix=HUGE
// A hivm.multi_buffer count below 1 names no buffer, and one of 2^31 made
// as many storage entries (the plan ran out of time): each is an input
// error at the mark (exit 2), nothing written.
// CHECK: multi-buffer-count.mlir:[[#@LINE+5]]:5: error: hivm.multi_buffer = -3 is not a buffer count: mark 1 to 65536 copies (2 for double buffering)
// HUGE: error: hivm.multi_buffer = 2147483647 is not a buffer count
module {
  func.func @k(%arg0: memref<1024xf32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<1024xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.multi_buffer = -3 : i32} : memref<1024xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<1024xf32, #hivm.address_space<gm>>) outs(%a : memref<1024xf32, #hivm.address_space<ub>>)
    return
  }
}
