// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// Reads through a part (a subview) of buffers PlanMemory merges (an
// scf.for's iter_args init %x and the buffer %y it yields) are judged by
// the bytes they cover when the offsets are constants: a read of the
// half of %x that the body wrote through %y first gets %y's bytes once
// both share an address, so they are planned apart; a read of the other
// half keeps the reference's merge. A part at an inner loop's induction
// variable (slice %j of the init read, then slice %j of %y written, as
// hivm-create-preload makes them) keeps it too: that loop is run trip by
// trip, and no trip reads bytes another wrote (see carried-iv-slices.mlir).

// CHECK-LABEL: func.func @same_half
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @same_half: buffers allocated at 22:3 and 24:3 planned apart: PlanMemory gives one address to the buffers an scf.for carries (its iter_args init, iteration argument, yielded value and result) (scf.for at 25:3), but the op at 29:5 reads the first after the second may have written it
func.func @same_half(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>, %g8: memref<8xf32, #hivm.address_space<gm>>, %o8: memref<8xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %sy = memref.subview %y[0] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g8 : memref<8xf32, #hivm.address_space<gm>>) outs(%sy : memref<8xf32, strided<[1]>, #hivm.address_space<ub>>)
    %sa = memref.subview %a[0] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.store ins(%sa : memref<8xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%o8 : memref<8xf32, #hivm.address_space<gm>>)
    hivm.hir.load ins(%g8 : memref<8xf32, #hivm.address_space<gm>>) outs(%sa : memref<8xf32, strided<[1]>, #hivm.address_space<ub>>)
    hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// CHECK-LABEL: func.func @other_half
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @other_half: buffers
func.func @other_half(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>, %g8: memref<8xf32, #hivm.address_space<gm>>, %o8: memref<8xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %sy = memref.subview %y[8] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: 8>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g8 : memref<8xf32, #hivm.address_space<gm>>) outs(%sy : memref<8xf32, strided<[1], offset: 8>, #hivm.address_space<ub>>)
    %sa = memref.subview %a[0] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.store ins(%sa : memref<8xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%o8 : memref<8xf32, #hivm.address_space<gm>>)
    %sy2 = memref.subview %y[0] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g8 : memref<8xf32, #hivm.address_space<gm>>) outs(%sy2 : memref<8xf32, strided<[1]>, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_slices
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @dynamic_slices: buffers
func.func @dynamic_slices(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    scf.for %j = %c0 to %c16 step %c4 {
      %sa = memref.subview %a[%j] [4] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%j] [4] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// A view that covers its source's bytes exactly (here a cast to a dynamic
// size, whose type says nothing of where it lies) covers them as its
// source does: the loop writes the even elements of %y through it, and
// the odd elements of %x are stored after the loop, bytes %y never wrote,
// so the merge stands. (Were the cast taken as some bytes of its source's
// extent, %y might have written the odd elements too, and the two would
// be planned apart.)

// CHECK-LABEL: func.func @cast_of_even_elements
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @cast_of_even_elements: buffers
func.func @cast_of_even_elements(%g: memref<16xf32, #hivm.address_space<gm>>, %o8: memref<8xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    %sa = memref.subview %a[0] [8] [2] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[2]>, #hivm.address_space<ub>>
    %sy = memref.subview %y[0] [8] [2] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[2]>, #hivm.address_space<ub>>
    %cy = memref.cast %sy : memref<8xf32, strided<[2]>, #hivm.address_space<ub>> to memref<?xf32, strided<[2]>, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%sa : memref<8xf32, strided<[2]>, #hivm.address_space<ub>>) outs(%cy : memref<?xf32, strided<[2]>, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  %sx = memref.subview %x[1] [8] [2] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[2], offset: 1>, #hivm.address_space<ub>>
  hivm.hir.store ins(%sx : memref<8xf32, strided<[2], offset: 1>, #hivm.address_space<ub>>) outs(%o8 : memref<8xf32, #hivm.address_space<gm>>)
  return
}

// -----

// The same halves through the views stride alignment leaves: a
// rank-reducing subview (1x16x1 to 1x16), then a part of it with one
// offset fewer than its source's type has dims. The body writes the
// second half of %y and reads the first half of the carried value: the
// merge stands.

// CHECK-LABEL: func.func @rank_reduced_halves
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @rank_reduced_halves: buffers
func.func @rank_reduced_halves(%g: memref<1x16x1xf32, #hivm.address_space<gm>>, %g8: memref<1x8xf32, #hivm.address_space<gm>>, %o8: memref<1x8xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<1x16x1xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<1x16x1xf32, #hivm.address_space<gm>>) outs(%x : memref<1x16x1xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<1x16x1xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<1x16x1xf32, #hivm.address_space<ub>>) {
    %ry = memref.subview %y[0, 0, 0] [1, 16, 1] [1, 1, 1] : memref<1x16x1xf32, #hivm.address_space<ub>> to memref<1x16xf32, strided<[16, 1]>, #hivm.address_space<ub>>
    %sy = memref.subview %ry[0, 8] [1, 8] [1, 1] : memref<1x16xf32, strided<[16, 1]>, #hivm.address_space<ub>> to memref<1x8xf32, strided<[16, 1], offset: 8>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g8 : memref<1x8xf32, #hivm.address_space<gm>>) outs(%sy : memref<1x8xf32, strided<[16, 1], offset: 8>, #hivm.address_space<ub>>)
    %ra = memref.subview %a[0, 0, 0] [1, 16, 1] [1, 1, 1] : memref<1x16x1xf32, #hivm.address_space<ub>> to memref<1x16xf32, strided<[16, 1]>, #hivm.address_space<ub>>
    %sa = memref.subview %ra[0, 0] [1, 8] [1, 1] : memref<1x16xf32, strided<[16, 1]>, #hivm.address_space<ub>> to memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>
    hivm.hir.store ins(%sa : memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%o8 : memref<1x8xf32, #hivm.address_space<gm>>)
    %sy2 = memref.subview %ry[0, 0] [1, 8] [1, 1] : memref<1x16xf32, strided<[16, 1]>, #hivm.address_space<ub>> to memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%g8 : memref<1x8xf32, #hivm.address_space<gm>>) outs(%sy2 : memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>)
    scf.yield %y : memref<1x16x1xf32, #hivm.address_space<ub>>
  }
  %rr = memref.subview %r[0, 0, 0] [1, 8, 1] [1, 1, 1] : memref<1x16x1xf32, #hivm.address_space<ub>> to memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%rr : memref<1x8xf32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%o8 : memref<1x8xf32, #hivm.address_space<gm>>)
  return
}
