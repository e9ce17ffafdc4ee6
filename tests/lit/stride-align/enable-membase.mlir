// RUN: tilemem opt -hivm-enable-stride-align -split-input-file %s | FileCheck %s
// Membase (Ascend910B): a mark on dim d aligns stride[d] by padding dim d+1
// of the root allocation (a unit dim is appended), then a subview cuts the
// logical shape back out. Marks are removed, functions get
// hivm.storage_aligned.

// The notes' example: 2x15xf16, dims=[0] => alloc 2x16x1 + subview.
// CHECK-LABEL: func.func @pad_row
// CHECK-SAME: attributes {hivm.storage_aligned}
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NOT: annotation.mark
func.func @pad_row(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// The seed's enable example: attributes on the alloc itself, dims=[1] on
// 37x5x3xi32 => the last dim is padded to 8 (32 bytes).
// CHECK-LABEL: func.func @seed_example
// CHECK: %[[A:.*]] = memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0, 0] [37, 5, 3, 1] [1, 1, 1, 1] : memref<37x5x8x1xi32, #hivm.address_space<ub>> to memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%{{.*}}) outs(%[[V]] : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>)
func.func @seed_example(%gm: memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  return
}

// -----

// Marking the last dim pads the appended unit dim: stride[1] becomes 16.
// CHECK-LABEL: func.func @last_dim
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x15x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[A]][0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x15x16xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[240, 16]>, #hivm.address_space<ub>>
func.func @last_dim() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Padding goes to the first dim right of the mark that makes the stride a
// multiple: 256x1x2x3x4xi8, dims=[0] => the unit dim 1 becomes 4. (Each
// allocation here has a user besides its marks: one only marks use is
// erased as dead by the greedy rewrites of the pass.)
// CHECK-LABEL: func.func @outer_unit_dim
// CHECK: memref.alloc() : memref<256x4x2x3x4x1xi8, #hivm.address_space<ub>>
// CHECK: memref.subview %{{.*}}[0, 0, 0, 0, 0, 0] [256, 1, 2, 3, 4, 1] [1, 1, 1, 1, 1, 1] : memref<256x4x2x3x4x1xi8, #hivm.address_space<ub>> to memref<256x1x2x3x4xi8, strided<[96, 24, 12, 4, 1]>, #hivm.address_space<ub>>
func.func @outer_unit_dim() {
  %a = memref.alloc() : memref<256x1x2x3x4xi8, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<256x1x2x3x4xi8, #hivm.address_space<ub>>
  hivm.hir.vabs ins(%a : memref<256x1x2x3x4xi8, #hivm.address_space<ub>>) outs(%a : memref<256x1x2x3x4xi8, #hivm.address_space<ub>>)
  return
}

// -----

// 15x15x15xf32, dims=[1] => 15x15x16x1.
// CHECK-LABEL: func.func @cube_f32
// CHECK: memref.alloc() : memref<15x15x16x1xf32, #hivm.address_space<ub>>
// CHECK: to memref<15x15x15xf32, strided<[240, 16, 1]>, #hivm.address_space<ub>>
func.func @cube_f32() {
  %a = memref.alloc() : memref<15x15x15xf32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<15x15x15xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<15x15x15xf32, #hivm.address_space<ub>>) outs(%a : memref<15x15x15xf32, #hivm.address_space<ub>>)
  return
}

// -----

// Dynamic sizes are rounded up at run time: n' = (n + 15) - (n + 15) rem 16.
// CHECK-LABEL: func.func @dynamic
// The constants are created once at the top of the function (the
// folder puts each new one first, so 16 precedes 15).
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[C15:.*]] = arith.constant 15 : index
// CHECK-NEXT: %[[ADD:.*]] = arith.addi %arg0, %[[C15]] : index
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[ADD]], %[[C16]] : index
// CHECK-NEXT: %[[SUB:.*]] = arith.subi %[[ADD]], %[[REM]] : index
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%[[SUB]]) : memref<2x?x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0] [2, %arg0, 1] [1, 1, 1] : memref<2x?x1xf16, #hivm.address_space<ub>> to memref<2x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[V]] : memref<2x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>)
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<2x?xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x?xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<2x?xf16, #hivm.address_space<ub>>) outs(%a : memref<2x?xf16, #hivm.address_space<ub>>)
  return
}

// -----

// A dynamic dim that needs no rounding is passed through.
// CHECK-LABEL: func.func @dynamic_outer
// CHECK-NOT: arith.addi
// CHECK: %[[A:.*]] = memref.alloc(%arg0) : memref<?x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[A]][0, 0, 0] [%arg0, 15, 1] [1, 1, 1] : memref<?x16x1xf16, #hivm.address_space<ub>> to memref<?x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
func.func @dynamic_outer(%n: index) {
  %a = memref.alloc(%n) : memref<?x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<?x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<?x15xf16, #hivm.address_space<ub>>) outs(%a : memref<?x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// buffer_size_in_byte marks follow the padding: 60 bytes * 32/30 = 64.
// The replacement allocation is built from its type and sizes only: other
// attributes of the old one are not carried over.
// CHECK-LABEL: func.func @buffer_size
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: annotation.mark %[[V]] {buffer_size_in_byte = 64 : i64} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
func.func @buffer_size() {
  %a = memref.alloc() {alignment = 64 : i64} : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {buffer_size_in_byte = 60 : i64} : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// A mark the shape already meets: the alloc stays, the mark goes.
// CHECK-LABEL: func.func @nothing_to_pad
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp
func.func @nothing_to_pad() {
  %a = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x16xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x16xf16, #hivm.address_space<ub>>) outs(%a : memref<4x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// memref.alloca is padded the same way.
// CHECK-LABEL: func.func @alloca
// CHECK: %[[A:.*]] = memref.alloca() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[A]][0, 0, 0] [2, 15, 1] [1, 1, 1]
func.func @alloca() {
  %a = memref.alloca() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Marks with other attributes keep them; unsorted dims are normalized and
// merged (lcm of 32 and 64 bytes on dim 0).
// CHECK-LABEL: func.func @normalize
// CHECK: memref.alloc() : memref<4x32x1xf16, #hivm.address_space<ub>>
// CHECK: annotation.mark %{{.*}} {hivm.multi_buffer = 2 : i32} : memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>
func.func @normalize() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.multi_buffer = 2 : i32} : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0, 0>, hivm.stride_align_value_in_byte = array<i32: 32, 64>} : memref<4x15xf16, #hivm.address_space<ub>>
  return
}

// -----

// Running the pass on its own output changes nothing but what is already
// there (the function attribute stays, no new alloc).
// CHECK-LABEL: func.func @idempotent
// CHECK-SAME: attributes {hivm.storage_aligned}
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @idempotent() attributes {hivm.storage_aligned} {
  %a = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%s : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
  return
}
