// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -verify-diagnostics -o /dev/null
// PlanMemory gives one address to the buffers an scf.for carries (its
// iter_args init, the iteration argument, the yielded value, the result),
// and to those the regions of an scf.if yield (PlanMemory.cpp,
// UpdateForOpInitArgsAlias / UpdateForOpBufferAlias / UpdateIfOpBufferAlias,
// then InitializeInplacePairList and MergeInplaceSE): it takes in-place
// bufferized input, where they are one memory anyway. When the program
// reads one of them after another may have written (the init read after
// a loop that yields a buffer of its own; a buffer one branch yields read
// after the branch that yields another), one address would change what it
// reads: those buffers are planned apart, and the summary says so (no
// diagnostic: -verify-diagnostics sees none). Both planners agree.

// The init %x is stored after the loop, whose body yields %y: apart.
// CHECK-LABEL: func.func @init_read_after_the_loop
// CHECK: %[[X:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.for
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @init_read_after_the_loop: buffers allocated at 27:3 and 30:5 planned apart: PlanMemory gives one address to the buffers an scf.for carries (its iter_args init, iteration argument, yielded value and result) (scf.for at 29:3), but the op at 34:3 reads the first after the second may have written it
func.func @init_read_after_the_loop(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%x : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// The same loop read only through its result: one buffer, as the
// reference places it (the body's op reads the iteration argument and
// writes %y: an in-place op).
// CHECK-LABEL: func.func @result_read_after_the_loop
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.for
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @result_read_after_the_loop: buffers
func.func @result_read_after_the_loop(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// The then region yields %x, the else region a buffer it loads; %x is
// stored after the scf.if: on the else path it must still hold its own
// bytes. Apart.
// CHECK-LABEL: func.func @branch_yield_then_read
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.if
// CHECK: } else {
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @branch_yield_then_read: buffers allocated at 76:3 and 81:5 planned apart: PlanMemory gives one address to the buffers the regions of an scf.if yield (and its result) (scf.if at 78:3), but the op at 86:3 reads the first after the second may have written it
func.func @branch_yield_then_read(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>, %c: i1) {
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %r = scf.if %c -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.yield %x : memref<16xf32, #hivm.address_space<ub>>
  } else {
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  hivm.hir.store ins(%x : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}
