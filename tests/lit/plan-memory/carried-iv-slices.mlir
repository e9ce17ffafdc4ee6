// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// An scf.for carries %x (its init) and %y (the buffer it yields), so
// PlanMemory gives them one address; its body reads slice %k of the
// iteration argument and writes slice %k of %y, %k a function of an inner
// loop's induction variable %j. The check runs the inner loop trip by trip
// (its bounds are constants), so it knows each trip's bytes: slices that
// consecutive trips share (trip 1 reads bytes trip 0 wrote through %y
// while the argument is still %x) plan %x and %y apart; slices that never
// meet keep the merge. Where the trips are not run one by one (here more
// than MAX_TRIPS = 256 of them; bounds that are not constants alike) the
// check cannot tell which bytes a trip reads: the merge is refused, never
// kept unproven.

// CHECK-LABEL: func.func @overlapping_slices
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @overlapping_slices: buffers allocated at 29:3 and 31:3 planned apart
func.func @overlapping_slices(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.for %j = %c0 to %c2 step %c1 {
      %k = arith.addi %j, %c0 : index
      %sa = memref.subview %a[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// CHECK-LABEL: func.func @scaled_overlapping_slices
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @scaled_overlapping_slices: buffers allocated at 59:3 and 61:3 planned apart
func.func @scaled_overlapping_slices(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.for %j = %c0 to %c2 step %c1 {
      %k = arith.muli %j, %c4 : index
      %sa = memref.subview %a[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// CHECK-LABEL: func.func @disjoint_slices
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @disjoint_slices: buffers
func.func @disjoint_slices(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.for %j = %c0 to %c2 step %c1 {
      %k = arith.muli %j, %c8 : index
      %sa = memref.subview %a[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// The slice offset through an affine map (as hivm-create-preload writes
// it): known per trip too.

// CHECK-LABEL: func.func @affine_disjoint_slices
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM-NOT: @affine_disjoint_slices: buffers
func.func @affine_disjoint_slices(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.for %j = %c0 to %c2 step %c1 {
      %k = affine.apply affine_map<()[s0] -> (s0 * 8)>()[%j]
      %sa = memref.subview %a[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%k] [8] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<8xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// CHECK-LABEL: func.func @too_many_trips
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c64_i64)
// SUM: [summary] @too_many_trips: buffers allocated at 153:3 and 155:3 planned apart
func.func @too_many_trips(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c300 = arith.constant 300 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    scf.for %j = %c0 to %c300 step %c1 {
      %k = arith.remui %j, %c2 : index
      %sa = memref.subview %a[%k] [4] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      %sy = memref.subview %y[%k] [4] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%sa : memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>) outs(%sy : memref<4xf32, strided<[1], offset: ?>, #hivm.address_space<ub>>)
    }
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}

