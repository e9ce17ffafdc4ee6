// RUN: tilemem opt -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// Op-specific marking rules.

// Custom ops name the dim to align per operand; the dim is marked as
// given, with no adjustment (markAlignedDim directly), so the already
// aligned %arg1 is marked too. Operand 1 is marked last, so its mark comes
// first.
// CHECK-LABEL: func.func @custom
// CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.custom
func.func @custom(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x16xf16, #hivm.address_space<ub>>) {
  hivm.hir.custom {arg_attrs = [{align_dim = 0 : i64}, {align_dim = 0 : i64}]} ins(%a, %b : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// A store through a subview that drops trailing unit dims: the dim to align
// is the last non-unit dim of the subview source. Here it survives the
// rank reduction, so the subview result is marked on it.
// CHECK-LABEL: func.func @store_trailing_unit_subview
// CHECK: %[[S:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<3x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
func.func @store_trailing_unit_subview(%gm: memref<3x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<3x15x1xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [3, 15, 1] [1, 1, 1] : memref<3x15x1xf16, #hivm.address_space<ub>> to memref<3x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<3x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<3x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// When the source's last non-unit dim is dropped by the subview, the
// source itself is marked.
// CHECK-LABEL: func.func @store_dropped_dim
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x1x5xi32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.store
func.func @store_dropped_dim(%gm: memref<4x1xi32, strided<[8, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<4x1x5xi32, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [4, 1, 1] [1, 1, 1] : memref<4x1x5xi32, #hivm.address_space<ub>> to memref<4x1xi32, strided<[5, 5]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<4x1xi32, strided<[5, 5]>, #hivm.address_space<ub>>) outs(%gm : memref<4x1xi32, strided<[8, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// Regbase takes the last non-unit dim (1). adjustBrcAlignDim only moves a
// dim on the second-to-last flattened group; the broadcast keeps dims 0
// and 1 apart, and dim 1 is the last group: both operands keep dim 1.
// CHECK-LABEL: func.func @vbrc_last_dim
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf32, #hivm.address_space<ub>>
// CHECK: %[[S:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vbrc
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vbrc_last_dim(%src: memref<4x1xf32, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x20xf32, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0] [4, 15] [1, 1] : memref<4x20xf32, #hivm.address_space<ub>> to memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>
    hivm.hir.vbrc ins(%src : memref<4x1xf32, #hivm.address_space<ub>>) outs(%s : memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>) broadcast_dims = [1]
    return
  }
}

// -----

// Without the broadcast, the same output is marked on its last dim.
// CHECK-LABEL: func.func @vexp_last_dim
// CHECK: %[[S:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vexp_last_dim(%src: memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x20xf32, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0] [4, 15] [1, 1] : memref<4x20xf32, #hivm.address_space<ub>> to memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%src : memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%s : memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Copies (adjustCopyAlignDim): without collapse_reassociation both
// operands keep the dim; with it, a destination dim that a group collapses
// into the next one is not marked. The destination is marked last, so its
// mark comes first.
// CHECK-LABEL: func.func @copy_plain
// CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>
// CHECK-LABEL: func.func @copy_collapsed_dst
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.copy
func.func @copy_plain(%a: memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.copy ins(%a : memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
func.func @copy_collapsed_dst(%a: memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>, %b: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.copy ins(%a : memref<4x15xf16, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>) collapse_reassociation = [[0, 1]]
  return
}

// -----

// Regbase: the align dim (1) is the last flattened group, so
// adjustReduceAlignDim keeps it for the input and the init alike.
// CHECK-LABEL: func.func @vreduce_last_axis
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK: %[[I:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[I]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vreduce_last_axis(%src: memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x5xf32, #hivm.address_space<ub>>
    %init = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x5xf32, #hivm.address_space<ub>> to memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>
    hivm.hir.vreduce <sum> ins(%src : memref<4x15xf32, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%init : memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>) reduce_dims = [1]
    return
  }
}

// -----

// The small float-sum exemption is only looked at when the align dim is
// the second-to-last flattened group; on regbase it is the last, so the
// init is marked like any other operand.
// CHECK-LABEL: func.func @vreduce_small_sum
// CHECK: %[[I:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[I]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NEXT: hivm.hir.vreduce
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vreduce_small_sum(%src: memref<4x8xf32, strided<[20, 1]>, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x5xf32, #hivm.address_space<ub>>
    %init = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x5xf32, #hivm.address_space<ub>> to memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>
    hivm.hir.vreduce <sum> ins(%src : memref<4x8xf32, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%init : memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>) reduce_dims = [1]
    return
  }
}

// -----

// The same with a max reduction.
// CHECK-LABEL: func.func @vreduce_small_max
// CHECK: %[[I:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[I]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vreduce_small_max(%src: memref<4x8xf32, strided<[20, 1]>, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x5xf32, #hivm.address_space<ub>>
    %init = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x5xf32, #hivm.address_space<ub>> to memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>
    hivm.hir.vreduce <max> ins(%src : memref<4x8xf32, strided<[20, 1]>, #hivm.address_space<ub>>) outs(%init : memref<4x1xf32, strided<[5, 1]>, #hivm.address_space<ub>>) reduce_dims = [1]
    return
  }
}

// -----

// adjustDeInterleaveAlignDim moves the dim only when the source's last
// stride equals channel_num; a dense source (last stride 1) keeps dim 1.
// CHECK-LABEL: func.func @vdeinterleave
// CHECK: %[[O:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[O]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vdeinterleave(%src: memref<4x16xf32, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<4x12xf32, #hivm.address_space<ub>>
    %o = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<4x12xf32, #hivm.address_space<ub>> to memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>
    hivm.hir.vdeinterleave ins(%src : memref<4x16xf32, #hivm.address_space<ub>>) outs(%o : memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>)
    return
  }
}
