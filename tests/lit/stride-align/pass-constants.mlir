// RUN: tilemem opt -hivm-align-alloc-size %s | FileCheck %s

// AlignUpOFR builds its index constants right before the allocation; the
// greedy driver's next sweep hands every constant to the folder
// (OperationFolder::insertKnownConstant, in walk order): the first of each
// value is kept and moved to the front of the function's entry block unless
// it is first there or follows a constant the folder owns, later equal ones
// are replaced by it. The two allocations inside the loop both round their
// dynamic size up to 32 elements and share one `arith.constant 31` and one
// `arith.constant 32`, moved above the existing constants one after the
// other (so in reverse order) and never suffixed.
// CHECK-LABEL: func.func @two_uses
// CHECK-NEXT: %[[C32:c32]] = arith.constant 32 : index
// CHECK-NEXT: %[[C31:c31]] = arith.constant 31 : index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[ADD0:.*]] = arith.addi %arg0, %[[C31]] : index
// CHECK-NEXT: %[[REM0:.*]] = arith.remsi %[[ADD0]], %[[C32]] : index
// CHECK-NEXT: %[[SUB0:.*]] = arith.subi %[[ADD0]], %[[REM0]] : index
// CHECK-NEXT: memref.alloc(%[[SUB0]])
// CHECK-NEXT: memref.subview
// CHECK-NEXT: hivm.hir.vsort
// CHECK-NEXT: %[[ADD1:.*]] = arith.addi %arg1, %[[C31]] : index
// CHECK-NEXT: %[[REM1:.*]] = arith.remsi %[[ADD1]], %[[C32]] : index
// CHECK-NEXT: %[[SUB1:.*]] = arith.subi %[[ADD1]], %[[REM1]] : index
// CHECK-NEXT: memref.alloc(%[[SUB1]])
// CHECK-NOT: arith.constant
// CHECK: return
func.func @two_uses(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc(%n) : memref<2x?xf16, #hivm.address_space<ub>>
    hivm.hir.vsort ins(%a : memref<2x?xf16, #hivm.address_space<ub>>) outs(%a : memref<2x?xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
    %b = memref.alloc(%m) : memref<2x?xf16, #hivm.address_space<ub>>
    hivm.hir.vsort ins(%b : memref<2x?xf16, #hivm.address_space<ub>>) outs(%b : memref<2x?xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  }
  return
}

// An existing `arith.constant 32` at the top is kept; the new 31, built
// right after it, follows an owned constant and stays; the new 32 is
// replaced by the existing one.
// CHECK-LABEL: func.func @reuses_existing
// CHECK-NEXT: %c32 = arith.constant 32 : index
// CHECK-NEXT: %c31 = arith.constant 31 : index
// CHECK-NEXT: %[[ADD:.*]] = arith.addi %arg0, %c31 : index
// CHECK-NOT: arith.constant
// CHECK: return
func.func @reuses_existing(%n: index) {
  %c32 = arith.constant 32 : index
  %a = memref.alloc(%n) : memref<2x?xf16, #hivm.address_space<ub>>
  hivm.hir.vsort ins(%a : memref<2x?xf16, #hivm.address_space<ub>>) outs(%a : memref<2x?xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  return
}
