// RUN: tilemem opt -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// Rules of MarkStrideAlign.cpp and AdjustAlignUtil.cpp, one chunk each.

// runOnOperation has no "already aligned" exemption: a function carrying
// hivm.storage_aligned is marked like any other.
// CHECK-LABEL: func.func @storage_aligned_is_marked
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>}
func.func @storage_aligned_is_marked(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) attributes {hivm.storage_aligned} {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// markAlignedDim: custom ops mark every named operand whatever its space,
// with the hardware alignment of that space (util::getHWAlignBytes, from
// the SoC description: L1 32 bytes, L0C 512 bytes).
// CHECK-LABEL: func.func @custom_spaces
// CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 512>} : memref<16x16xf32, #hivm.address_space<cc>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<cbuf>>
func.func @custom_spaces(%l1: memref<4x15xf16, #hivm.address_space<cbuf>>, %l0c: memref<16x16xf32, #hivm.address_space<cc>>) {
  hivm.hir.custom {arg_attrs = [{align_dim = 0 : i64}, {align_dim = 1 : i64}]} ins(%l1, %l0c : memref<4x15xf16, #hivm.address_space<cbuf>>, memref<16x16xf32, #hivm.address_space<cc>>)
  return
}

// -----

// adjustBrcAlignDim on membase: the broadcast keeps broadcast and
// non-broadcast dims in separate flattened groups (getLimitedAxes =
// broadcast_dims). The destination's dim 1 stride (16 x f16) is already
// aligned, so isNoNeedAlign drops it before any adjustment; the source's
// dim 1 sits on the second-to-last group of a last-dim broadcast whose
// last two dims are contiguous (isLastTwoDimContiguous: 1 x 16 = 16), so
// the dim before it (0) is marked instead.
// CHECK-LABEL: func.func @brc_membase
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x3x1xf16, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vbrc
func.func @brc_membase(%src: memref<4x3x1xf16, #hivm.address_space<ub>>, %dst: memref<4x3x16xf16, strided<[56, 16, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x3x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x3x16xf16, strided<[56, 16, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// adjustBrcAlignDim, isLastTwoDimContiguous false: a destination row of 15
// in a stride of 16 is not contiguous with the dim before it
// (getContiguousAxesImpl: 1 x 15 != 16), so the source keeps dim 1.
// CHECK-LABEL: func.func @brc_last_two_not_contiguous
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x3x1xf16, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vbrc
func.func @brc_last_two_not_contiguous(%src: memref<4x3x1xf16, #hivm.address_space<ub>>, %dst: memref<4x3x15xf16, strided<[56, 16, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x3x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x3x15xf16, strided<[56, 16, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// With only two flattened groups a last-dim broadcast has no earlier dim to
// align: nothing is marked. i8 broadcasts keep their dim (1) on both
// operands; the later-marked destination's mark comes first.
// CHECK-LABEL: func.func @brc_two_groups
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vbrc
// CHECK-LABEL: func.func @brc_two_groups_i8
// CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
func.func @brc_two_groups(%src: memref<4x3x1xf16, #hivm.address_space<ub>>, %dst: memref<4x3x15xf16, strided<[45, 15, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x3x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x3x15xf16, strided<[45, 15, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}
func.func @brc_two_groups_i8(%src: memref<4x3x1xi8, #hivm.address_space<ub>>, %dst: memref<4x3x15xi8, strided<[45, 15, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x3x1xi8, #hivm.address_space<ub>>) outs(%dst : memref<4x3x15xi8, strided<[45, 15, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// adjustReduceAlignDim on membase: the reduced dim stays its own group.
// The align dim is 2; the source's dim-2 stride (16 x f32) is aligned, and
// the init skips dim 2 as well as the dim before the reduced one: dim 0.
// CHECK-LABEL: func.func @reduce_init_4d
// CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vreduce
func.func @reduce_init_4d(%src: memref<2x3x4x15xf32, strided<[256, 64, 16, 1]>, #hivm.address_space<ub>>, %init: memref<2x3x4x1xf32, strided<[20, 8, 1, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<2x3x4x15xf32, strided<[256, 64, 16, 1]>, #hivm.address_space<ub>>) outs(%init : memref<2x3x4x1xf32, strided<[20, 8, 1, 1]>, #hivm.address_space<ub>>) reduce_dims = [3]
  return
}

// -----

// The float-sum exemption: a sum over 8 x f32 = 32 bytes (a power of two)
// into a dense Nx1 init needs no mark at all; the same max marks the source
// on dim 0.
// CHECK-LABEL: func.func @reduce_small_sum
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vreduce <sum>
// CHECK-LABEL: func.func @reduce_small_max
// CHECK: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.vreduce <max>
func.func @reduce_small_sum(%src: memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>, %init: memref<4x1xf32, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <sum> ins(%src : memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>) outs(%init : memref<4x1xf32, #hivm.address_space<ub>>) reduce_dims = [1]
  return
}
func.func @reduce_small_max(%src: memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>, %init: memref<4x1xf32, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<4x8xf32, strided<[12, 1]>, #hivm.address_space<ub>>) outs(%init : memref<4x1xf32, #hivm.address_space<ub>>) reduce_dims = [1]
  return
}

// -----

// A DMA allowed to transpose the last axis is not marked
// (getMayImplicitTransposeWithLastAxis).
// CHECK-LABEL: func.func @implicit_transpose
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.load
func.func @implicit_transpose(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>) may_implicit_transpose_with_last_axis = true
  return
}

// -----

// fixAlignDimForSingleUBStoreSubview applies even when the store itself
// has no dim to align (a rank-1 UB DMA operand): the subview drops a
// trailing unit dim of a 16x1 source whose last non-unit dim is 0.
// CHECK-LABEL: func.func @store_fix_without_dim
// CHECK: %[[S:.*]] = memref.subview
// CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16xf32, strided<[1]>, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @store_fix_without_dim(%gm: memref<16xf32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<16x1xf32, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0] [16, 1] [1, 1] : memref<16x1xf32, #hivm.address_space<ub>> to memref<16xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.store ins(%s : memref<16xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%gm : memref<16xf32, #hivm.address_space<gm>>)
    return
  }
}

// -----

// The 3-D dot rule of Fixpipe does not depend on the tables: with
// channel_split on f16 there is no table entry, and the rank-3 root still
// gets dim 1 aligned.
// CHECK-LABEL: func.func @dot_3d_without_table
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NOT: annotation.mark
// CHECK: hivm.hir.fixpipe
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @dot_3d_without_table(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0, 0] [1, 16, 30] [1, 1, 1] : memref<2x16x30xf16, #hivm.address_space<ub>> to memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>
    hivm.hir.fixpipe {channel_split = true} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%s : memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>)
    return
  }
}

// -----

// markForVsstb: bytes are (lcm(shape[rank-2], 16) + 1) x element bytes:
// (lcm(20, 16) + 1) x 4 = 324 for 8x20 f32, on dim rank - 2, right after
// the definition. The destination is found through a subview of the
// argument.
// CHECK-LABEL: func.func @caller_vsstb_f32
// CHECK: %[[A:.*]] = memref.alloc() : memref<8x20x16xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 324>}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_vsstb_f32(%arg0: memref<8x20x16xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c20 = arith.constant 20 : index
    %cst = arith.constant dense<0.000000e+00> : vector<8xf32>
    %s = memref.subview %arg0[0, 0, 0] [4, 20, 16] [1, 1, 1] : memref<8x20x16xf32, #hivm.address_space<ub>> to memref<4x20x16xf32, strided<[320, 16, 1]>, #hivm.address_space<ub>>
    scf.for %i = %c0 to %c20 step %c1 {
      vector.transfer_write %cst, %s[%c0, %i, %c0] : vector<8xf32>, memref<4x20x16xf32, strided<[320, 16, 1]>, #hivm.address_space<ub>>
    } {unroll_for_vsstb}
    return
  }
  func.func @caller_vsstb_f32() {
    %a = memref.alloc() : memref<8x20x16xf32, #hivm.address_space<ub>>
    func.call @vf_vsstb_f32(%a) : (memref<8x20x16xf32, #hivm.address_space<ub>>) -> ()
    return
  }
}
