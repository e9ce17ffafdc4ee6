// RUN: not tilemem opt -hivm-enable-stride-align -split-input-file %s 2>&1 | FileCheck %s
// Diagnostics of the enable pass, at the offending op.

func.func @dims_without_bytes() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  // CHECK: enable-errors.mlir:[[@LINE+1]]:3: error: align info must contain align dims and align bytes
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// NormalizeAlignInfoPattern only looks at marks with dims, and the
// propagation pattern skips a mark missing either attribute: a mark with
// bytes alone is no error; RemoveAlignMarkPattern drops it.
// CHECK-NOT: enable-errors.mlir:[[@LINE+3]]
func.func @bytes_without_dims() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// Normalization reports the lengths; the propagation pattern then reports
// the mark each time it runs (it fails before consuming the mark): in the
// first upward propagation and again in the first round of
// propagateAlignInfoToOperands.
func.func @length_mismatch() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  // CHECK: enable-errors.mlir:[[@LINE+4]]:3: error: size of align bytes should be matched with size of align dims
  // CHECK: enable-errors.mlir:[[@LINE+3]]:3: error: Mismatched storage align marks
  // CHECK: enable-errors.mlir:[[@LINE+2]]:3: error: Mismatched storage align marks
  // CHECK-NOT: Mismatched
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0, 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// Aligning dim 0 of the expanded view would need the stride inside the
// collapsed source dim.
func.func @expand_inner_dim() {
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  // CHECK: enable-errors.mlir:[[@LINE+1]]:3: error: cannot align 0 axis for
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 15] : memref<6x15xf16, #hivm.address_space<ub>> into memref<2x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %e {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x3x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// A byte view of a flat buffer cannot be padded: the mark stops at the
// view, and 15 elements right of dim 0 are not a multiple of 32 (the C++
// compares the element count with the byte count). Reported at the mark.
func.func @byte_view() {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<1024xi8, #hivm.address_space<ub>>
  // CHECK: enable-errors.mlir:[[@LINE+2]]:3: error: Alignment cannot be satisfied for %view
  %v = memref.view %buf[%c0][] : memref<1024xi8, #hivm.address_space<ub>> to memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %v {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// Function arguments are not root allocations; reported at the mark, with
// the value as MLIR prints a block argument, each time the propagation
// pattern runs (twice: the mark is not consumed).
func.func @block_argument(%a: memref<2x15xf16, #hivm.address_space<ub>>) {
  // CHECK: enable-errors.mlir:[[@LINE+3]]:3: error: Cannot align <block argument> of type 'memref<2x15xf16, #hivm.address_space<ub>>' at index: 0 across blocks.
  // CHECK: enable-errors.mlir:[[@LINE+2]]:3: error: Cannot align <block argument> of type 'memref<2x15xf16, #hivm.address_space<ub>>' at index: 0 across blocks.
  // CHECK-NOT: Cannot align
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// The requested bytes must be whole elements (collectAlignUnits is not in
// the reference: this is tilemem's rule). The allocation is used: one that
// only a mark uses is erased as dead by the greedy driver before it could
// be padded.
func.func @fractional_elements() {
  // CHECK: enable-errors.mlir:[[@LINE+1]]:3: error: alignment of 6 bytes is not a whole number of 32-bit elements
  %a = memref.alloc() : memref<2x7xi32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 6>} : memref<2x7xi32, #hivm.address_space<ub>>
  hivm.hir.vabs ins(%a : memref<2x7xi32, #hivm.address_space<ub>>) outs(%a : memref<2x7xi32, #hivm.address_space<ub>>)
  return
}
