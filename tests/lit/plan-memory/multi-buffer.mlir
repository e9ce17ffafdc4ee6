// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file | FileCheck %s
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file | FileCheck %s
// The register-based pass expands, places and hoists the slots alike
// (regbase/PlanMemory.cpp ExpandMultiBufferStorageEntry,
// fixMultibufferEnabledPointerCastOps 3050-3103).
// Multi-buffering: a buffer marked hivm.multi_buffer = N gets N slots
// (N addresses: the first slots of every buffer in gen order, then the
// other slots); its pointer_cast moves to the front of the loop body with
// its mark right after it.

// CHECK-LABEL: func.func @slots_and_hoisting
// CHECK: scf.for
// CHECK-NEXT: %[[B:.*]] = hivm.hir.pointer_cast(%c1024_i64, %c2048_i64, %c3072_i64) : memref<256xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[B]] {hivm.multi_buffer = 3 : i32}
// CHECK-NEXT: %[[A:.*]] = hivm.hir.pointer_cast(%c0_i64) : memref<256xf32, #hivm.address_space<ub>>
// CHECK: hivm.hir.load ins(%{{.*}} : memref<256xf32, #hivm.address_space<gm>>) outs(%[[A]]
// CHECK: hivm.hir.load ins(%{{.*}} : memref<256xf32, #hivm.address_space<gm>>) outs(%[[B]]
func.func @slots_and_hoisting(%g: memref<256xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<256xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<256xf32, #hivm.address_space<gm>>) outs(%a : memref<256xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%a : memref<256xf32, #hivm.address_space<ub>>) outs(%g : memref<256xf32, #hivm.address_space<gm>>)
    %b = memref.alloc() : memref<256xf32, #hivm.address_space<ub>>
    annotation.mark %b {hivm.multi_buffer = 3 : i32} : memref<256xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<256xf32, #hivm.address_space<gm>>) outs(%b : memref<256xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%b : memref<256xf32, #hivm.address_space<ub>>) outs(%g : memref<256xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----

// A mark of 1 is a single buffer (its cast still moves to the loop front);
// a mark on a view marks the allocation.
// CHECK-LABEL: func.func @one_and_views
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c512_i64) : memref<16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %{{.*}} {hivm.multi_buffer = 1 : i32}
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64, %c544_i64) : memref<16x16xf16, #hivm.address_space<ub>>
func.func @one_and_views(%g: memref<16x1xf16, #hivm.address_space<gm>>, %h: memref<16xf16, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<16x16xf16, #hivm.address_space<ub>>
    %v = memref.subview %a[0, 0] [16, 1] [1, 1] : memref<16x16xf16, #hivm.address_space<ub>> to memref<16x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    annotation.mark %v {hivm.multi_buffer = 2 : i32} : memref<16x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16x1xf16, #hivm.address_space<gm>>) outs(%v : memref<16x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
    hivm.hir.store ins(%v : memref<16x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%g : memref<16x1xf16, #hivm.address_space<gm>>)
    %b = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    annotation.mark %b {hivm.multi_buffer = 1 : i32} : memref<16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%h : memref<16xf16, #hivm.address_space<gm>>) outs(%b : memref<16xf16, #hivm.address_space<ub>>)
    hivm.hir.store ins(%b : memref<16xf16, #hivm.address_space<ub>>) outs(%h : memref<16xf16, #hivm.address_space<gm>>)
  }
  return
}
