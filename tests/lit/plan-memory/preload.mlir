// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file 2>&1 | FileCheck %s
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file 2>&1 | FileCheck %s
// Preload buffers (hivm.preload_local_buffer), both passes:
// UpdatePreloadBuffers (PlanMemory.cpp:761-780), UpdateOperandGenInfo
// (734-748: no gen at a write), UpdatePreloadBuffersGenKillMap (903-924:
// written where the loop begins, freed where it ends). 128 KiB buffers:
// two do not fit in UB, so they share address 0 exactly when their
// lifetimes do not overlap.

// %p lives through its whole loop, so %x, loaded after %p's last use,
// still overlaps it: overflow.
// CHECK: error: ub overflow, requires 2097152 bits while
// CHECK-NEXT: func.func @preload_whole_loop
func.func @preload_whole_loop(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %p = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    annotation.mark %p {hivm.preload_local_buffer = 1 : i32} : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%p : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%p : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
    %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----
// Preload buffers of two loops live one loop each (the map keeps a loop
// per buffer): one address.
// CHECK-LABEL: func.func @preload_two_loops
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @preload_two_loops(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %p = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    annotation.mark %p {hivm.preload_local_buffer = 1 : i32} : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%p : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%p : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %q = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    annotation.mark %q {hivm.preload_local_buffer = 1 : i32} : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%q : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%q : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}
