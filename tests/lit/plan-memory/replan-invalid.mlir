// RUN: rm -f %t.out
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// A function that is already planned (pointer casts at constant addresses,
// no allocation) is kept as it is, but only when the independent check
// accepts its placement: here %1 was moved to 1024, over %0 while both are
// live. The input is refused (exit 2), nothing is written.
// CHECK: replan-invalid.mlir:[[#@LINE+5]]:5: error: the function's planned buffers (pointer casts at constant addresses, kept as they are) fail the placement check: plan check: @two, ub: buffers %0 [0, 65536) and %1 [1024, 66560) overlap but are live at the same time
module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
  func.func @two(%arg0: memref<32768xf16, #hivm.address_space<gm>>) {
    %c0_i64 = arith.constant 0 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %0 = hivm.hir.pointer_cast(%c0_i64) : memref<32768xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<32768xf16, #hivm.address_space<gm>>) outs(%0 : memref<32768xf16, #hivm.address_space<ub>>)
    %1 = hivm.hir.pointer_cast(%c1024_i64) : memref<32768xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<32768xf16, #hivm.address_space<gm>>) outs(%1 : memref<32768xf16, #hivm.address_space<ub>>)
    hivm.hir.store ins(%0 : memref<32768xf16, #hivm.address_space<ub>>) outs(%arg0 : memref<32768xf16, #hivm.address_space<gm>>)
    hivm.hir.store ins(%1 : memref<32768xf16, #hivm.address_space<ub>>) outs(%arg0 : memref<32768xf16, #hivm.address_space<gm>>)
    return
  }
}
