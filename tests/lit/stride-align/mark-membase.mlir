// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// `hivm.hir.vfoo` is not an hivm op: MLIR reads it only with
// -allow-unregistered-dialect (and prints it in generic form).
// Membase (no hacc.target: Ascend910B). The last discontinuous dim is found
// on the flattened operands; UB operands get a 32-byte mark on it.

// GM rows are 16 elements apart, the UB buffer is dense: dims 0 and 1 do not
// flatten together, so the UB row stride (dim 0) must be aligned.
// CHECK-LABEL: func.func @load_row_stride
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%[[A]] : memref<2x15xf16, #hivm.address_space<ub>>)
func.func @load_row_stride(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// The seed's example: GM strides [150, 30, 1] flatten dims 0 and 1 together;
// the row stride to align is the one of dim 1.
// CHECK-LABEL: func.func @seed_example
// CHECK: %[[A:.*]] = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NEXT: hivm.hir.load
func.func @seed_example(%gm: memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  return
}

// -----

// Everything contiguous: one flattened group, nothing to align.
// CHECK-LABEL: func.func @contiguous
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @contiguous(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  return
}

// -----

// The UB row stride is 16 x f16 = 32 bytes already: no mark.
// CHECK-LABEL: func.func @already_aligned
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @already_aligned(%gm: memref<2x16xf16, strided<[32, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x16xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x16xf16, strided<[32, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Only GM operands: GM needs no alignment.
// CHECK-LABEL: func.func @gm_only
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @gm_only(%x: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %y: memref<2x15xf16, #hivm.address_space<gm>>) {
  hivm.hir.copy ins(%x : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%y : memref<2x15xf16, #hivm.address_space<gm>>)
  return
}

// -----

// All-ones shapes are skipped.
// CHECK-LABEL: func.func @all_ones
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @all_ones(%gm: memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<1x1xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<1x1xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Vector op: each UB operand is checked on its own; the strided inputs are
// aligned already, the dense output is not.
// CHECK-LABEL: func.func @vadd_per_operand
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[C]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vadd
func.func @vadd_per_operand(%a: memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%a, %b : memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>, memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// A non-unit last stride makes the last dim itself discontinuous.
// CHECK-LABEL: func.func @last_stride_not_one
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[30, 2]>, #hivm.address_space<ub>>
// CHECK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK: hivm.hir.vexp
func.func @last_stride_not_one(%a: memref<4x15xf16, strided<[30, 2]>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x15xf16, strided<[30, 2]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Leading unit dims are ignored: the mark lands on the first non-unit row.
// CHECK-LABEL: func.func @unit_prefix
// CHECK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
func.func @unit_prefix(%gm: memref<1x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<1x2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<1x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<1x2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Host functions are not device code.
// CHECK-LABEL: func.func @host
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @host(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Marks land on the operand value itself (a subview here), right after it.
// Each op writes its own mark (createAlignMarkOp never merges): two
// stores, two marks.
// CHECK-LABEL: func.func @on_subview
// CHECK: %[[S:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.store
func.func @on_subview(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [2, 15] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  hivm.hir.store ins(%s : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// An HIVM structured op the op table does not know has no flatten rule on
// membase: reported, left alone.
// CHECK-LABEL: func.func @unknown_op
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @unknown_op(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
