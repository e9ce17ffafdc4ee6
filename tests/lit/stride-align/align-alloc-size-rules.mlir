// RUN: tilemem opt -hivm-align-alloc-size -split-input-file %s | FileCheck %s
// Rules of HIVMAlignAllocSize.cpp, one chunk each.

// markAllocAlign: a last-dim transpose with disable_align = true is left
// alone (getDisableAlign).
// CHECK-LABEL: func.func @transpose_disable_align
// CHECK: memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<15x4xf16, #hivm.address_space<ub>>
// CHECK-NOT: memref.subview
func.func @transpose_disable_align() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<15x4xf16, #hivm.address_space<ub>>
  hivm.hir.vtranspose ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<15x4xf16, #hivm.address_space<ub>>) permutation = [1, 0] disable_align = true
  return
}

// -----

// AlignAllocSizePattern rewrites memref.alloc only: a memref.alloca root
// keeps the requirement as attributes, as propagateAlignUp leaves it.
// CHECK-LABEL: func.func @alloca_keeps_attrs
// CHECK: memref.alloca() {hivm.alloc_align_dims = array<i32: 1>, hivm.alloc_align_value_in_byte = array<i32: 64>} : memref<2x10xf16, #hivm.address_space<ub>>
func.func @alloca_keeps_attrs() {
  %a = memref.alloca() : memref<2x10xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x10xf16, #hivm.address_space<ub>>
  hivm.hir.vsort ins(%a : memref<2x10xf16, #hivm.address_space<ub>>) outs(%b : memref<2x10xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  return
}

// -----

// AlignUpOFR: a dynamic size is rounded at run time, n' = (n + 31) - (n +
// 31) rem 32; the subview keeps n.
// CHECK-LABEL: func.func @sort_dynamic
// The constants are created once at the top of the function (the
// folder puts each new one first, so 32 precedes 31).
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : index
// CHECK-NEXT: %[[ADD:.*]] = arith.addi %arg0, %[[C31]] : index
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[ADD]], %[[C32]] : index
// CHECK-NEXT: %[[SUB:.*]] = arith.subi %[[ADD]], %[[REM]] : index
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%[[SUB]]) : memref<2x?xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[A]][0, 0] [2, %arg0] [1, 1] : memref<2x?xf16, #hivm.address_space<ub>> to memref<2x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>
func.func @sort_dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<2x?xf16, #hivm.address_space<ub>>
  hivm.hir.vsort ins(%a : memref<2x?xf16, #hivm.address_space<ub>>) outs(%a : memref<2x?xf16, #hivm.address_space<ub>>) descending = false sort_axis = 1
  return
}
