// RUN: rm -f %t.out
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// An already planned function (kept as it is when the independent check
// accepts it) whose loop's init %0 and yielded buffer %2 sit at one
// address, as PlanMemory merges them, while %0 is stored after the loop:
// the plumbing makes them one memory, but the store reads the loop's
// last write. The check rejects the placement; the input is refused
// (exit 2), nothing is written.
// CHECK: carried-kept.mlir:[[#@LINE+7]]:5: error: the function's planned buffers (pointer casts at constant addresses, kept as they are) fail the placement check: plan check: @init_read_after_the_loop, ub: buffers %0 and %2 share bytes as one carried memory, but the op at 24:5 reads %0 after %2 may have written them
module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
  func.func @init_read_after_the_loop(%arg0: memref<16xf32, #hivm.address_space<gm>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c0_i64 = arith.constant 0 : i64
    %0 = hivm.hir.pointer_cast(%c0_i64) : memref<16xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<16xf32, #hivm.address_space<gm>>) outs(%0 : memref<16xf32, #hivm.address_space<ub>>)
    %1 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %0) -> (memref<16xf32, #hivm.address_space<ub>>) {
      %2 = hivm.hir.pointer_cast(%c0_i64) : memref<16xf32, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%2 : memref<16xf32, #hivm.address_space<ub>>)
      scf.yield %2 : memref<16xf32, #hivm.address_space<ub>>
    }
    hivm.hir.store ins(%0 : memref<16xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<16xf32, #hivm.address_space<gm>>)
    hivm.hir.store ins(%1 : memref<16xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<16xf32, #hivm.address_space<gm>>)
    return
  }
}
