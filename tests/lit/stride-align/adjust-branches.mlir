// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// AdjustAlignUtil.cpp adjustAlignDim, branch by branch, as the mark pass
// applies it to each UB operand of an op (membase). The dim the pass found
// (getLastDiscontinuousDim) is given in each chunk.

// isNoNeedAlign -> isAlreadyAligned: dim 0 found. The identity operand's
// row of 16 x f16 (the dynamic dim is left out of the product) is already
// 32 bytes: dropped. The strided one has a dynamic stride and cannot be
// collapsed strictly from dim 0: marked.
// CHECK-LABEL: func.func @already_aligned_dynamic(
// CHECK-SAME: %arg0: memref<4x?x16xf16, #hivm.address_space<ub>>, %arg1: memref<4x?x16xf16, strided<[?, 16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x?x16xf16, strided<[?, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<4x?x16xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x?x16xf16, strided<[?, 16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @already_aligned_dynamic(%a: memref<4x?x16xf16, #hivm.address_space<ub>>, %c: memref<4x?x16xf16, strided<[?, 16, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%a : memref<4x?x16xf16, #hivm.address_space<ub>>) outs(%c : memref<4x?x16xf16, strided<[?, 16, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// ImplByScalarOpInterface::shouldLowerToScalarLoops: an i64 vadd becomes
// scalar loops (default rule: 64-bit integer operand 0): no mark. The same
// op on i32 is marked (dim 0 found).
// CHECK-LABEL: func.func @scalar_i64(
// CHECK-SAME: %arg0: memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xi64, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vadd ins(%arg0, %arg0 : memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xi64, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @scalar_i64(%a: memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xi64, #hivm.address_space<ub>>) {
  hivm.hir.vadd ins(%a, %a : memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi64, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xi64, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @vector_i32(
// CHECK-SAME: %arg0: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xi32, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xi32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vadd ins(%arg0, %arg0 : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xi32, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @vector_i32(%a: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xi32, #hivm.address_space<ub>>) {
  hivm.hir.vadd ins(%a, %a : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xi32, #hivm.address_space<ub>>)
  return
}

// -----

// shouldVCmpOpLowerToScalarLoopsImpl: an integer compare other than eq/ne
// on i32 is scalar (no mark); eq on i32 is vectorized (marked).
// CHECK-LABEL: func.func @vcmp_gt_i32(
// CHECK-SAME: %arg0: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xi1, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vcmp ins(%arg0, %arg0 : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xi1, #hivm.address_space<ub>>) compare_mode = <gt>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @vcmp_gt_i32(%a: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xi1, #hivm.address_space<ub>>) {
  hivm.hir.vcmp ins(%a, %a : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xi1, #hivm.address_space<ub>>) compare_mode = <gt>
  return
}
// CHECK-LABEL: func.func @vcmp_eq_i32(
// CHECK-SAME: %arg0: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xi1, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xi1, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vcmp ins(%arg0, %arg0 : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xi1, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @vcmp_eq_i32(%a: memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xi1, #hivm.address_space<ub>>) {
  hivm.hir.vcmp ins(%a, %a : memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>, memref<4x15xi32, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xi1, #hivm.address_space<ub>>)
  return
}

// -----

// adjustBrcAlignDim: a last-dim broadcast whose last two flattened dims are
// contiguous moves the dim to the previous uncontiguous one
// (getPrevUncontiguousDim); dim 0 found, which is the first flattened dim,
// so there is none: no operand is marked.
// CHECK-LABEL: func.func @brc_last_dim(
// CHECK-SAME: %arg0: memref<4x1xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vbrc ins(%arg0 : memref<4x1xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) broadcast_dims = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @brc_last_dim(%src: memref<4x1xf16, #hivm.address_space<ub>>, %dst: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x15xf16, #hivm.address_space<ub>>) broadcast_dims = [1]
  return
}

// -----

// adjustBrcAlignDim: with three flattened dims (dim 1 found), the previous
// uncontiguous dim is 0: the source (rows of 8 x f16) is marked on it; the
// destination's dim-0 stride (64 x f16) is already aligned.
// CHECK-LABEL: func.func @brc_prev_uncontiguous(
// CHECK-SAME: %arg0: memref<2x4x1xf16, strided<[8, 1, 1]>, #hivm.address_space<ub>>, %arg1: memref<2x4x15xf16, strided<[64, 15, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x4x1xf16, strided<[8, 1, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vbrc ins(%arg0 : memref<2x4x1xf16, strided<[8, 1, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<2x4x15xf16, strided<[64, 15, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @brc_prev_uncontiguous(%src: memref<2x4x1xf16, strided<[8, 1, 1]>, #hivm.address_space<ub>>, %dst: memref<2x4x15xf16, strided<[64, 15, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<2x4x1xf16, strided<[8, 1, 1]>, #hivm.address_space<ub>>) outs(%dst : memref<2x4x15xf16, strided<[64, 15, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// adjustBrcAlignDim: i8 (and i1) destinations keep the dim; a broadcast
// that is not over the last flattened dim (isLastBrc) keeps it too (the
// unit source row is then dropped by isNoNeedAlign).
// CHECK-LABEL: func.func @brc_i8(
// CHECK-SAME: %arg0: memref<4x1xi8, #hivm.address_space<ub>>, %arg1: memref<4x15xi8, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xi8, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xi8, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vbrc ins(%arg0 : memref<4x1xi8, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xi8, #hivm.address_space<ub>>) broadcast_dims = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @brc_i8(%src: memref<4x1xi8, #hivm.address_space<ub>>, %dst: memref<4x15xi8, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<4x1xi8, #hivm.address_space<ub>>) outs(%dst : memref<4x15xi8, #hivm.address_space<ub>>) broadcast_dims = [1]
  return
}
// CHECK-LABEL: func.func @brc_first_dim(
// CHECK-SAME: %arg0: memref<1x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vbrc ins(%arg0 : memref<1x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) broadcast_dims = [0]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @brc_first_dim(%src: memref<1x15xf16, #hivm.address_space<ub>>, %dst: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vbrc ins(%src : memref<1x15xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x15xf16, #hivm.address_space<ub>>) broadcast_dims = [0]
  return
}

// -----

// adjustReduceAlignDim: a last-axis reduce with the dim found (0) on the
// second-to-last flattened dim: the source keeps it; the init (a DPS init,
// reduce_aar) skips the dim before the reduced one and finds none.
// CHECK-LABEL: func.func @reduce_last_axis(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vreduce <max> ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reduce_last_axis(%src: memref<4x15xf16, #hivm.address_space<ub>>, %dst: memref<4x1xf16, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<4x15xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
  return
}

// -----

// adjustReduceAlignDim: a float sum over a power-of-two row that fits one
// block (8 x f16), with the flattened init's first stride 1: nothing needs
// alignment. The same shapes under max: the source is marked.
// CHECK-LABEL: func.func @reduce_sum_small_row(
// CHECK-SAME: %arg0: memref<4x8xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vreduce <sum> ins(%arg0 : memref<4x8xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reduce_sum_small_row(%src: memref<4x8xf16, #hivm.address_space<ub>>, %dst: memref<4x1xf16, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <sum> ins(%src : memref<4x8xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
  return
}
// CHECK-LABEL: func.func @reduce_max_small_row(
// CHECK-SAME: %arg0: memref<4x8xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x8xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vreduce <max> ins(%arg0 : memref<4x8xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reduce_max_small_row(%src: memref<4x8xf16, #hivm.address_space<ub>>, %dst: memref<4x1xf16, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<4x8xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x1xf16, #hivm.address_space<ub>>) reduce_dims = [1]
  return
}

// -----

// adjustReduceAlignDim: four flattened dims (dim 2 found, the source's
// stride there already aligned): the init skips dim 1 (reduce_aar) and is
// marked on dim 0, its 12 x f16 stride being unaligned.
// CHECK-LABEL: func.func @reduce_init_4d(
// CHECK-SAME: %arg0: memref<2x2x4x15xf16, strided<[256, 128, 16, 1]>, #hivm.address_space<ub>>, %arg1: memref<2x2x4x1xf16, strided<[12, 4, 1, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x2x4x1xf16, strided<[12, 4, 1, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vreduce <max> ins(%arg0 : memref<2x2x4x15xf16, strided<[256, 128, 16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<2x2x4x1xf16, strided<[12, 4, 1, 1]>, #hivm.address_space<ub>>) reduce_dims = [3]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reduce_init_4d(%src: memref<2x2x4x15xf16, strided<[256, 128, 16, 1]>, #hivm.address_space<ub>>, %dst: memref<2x2x4x1xf16, strided<[12, 4, 1, 1]>, #hivm.address_space<ub>>) {
  hivm.hir.vreduce <max> ins(%src : memref<2x2x4x15xf16, strided<[256, 128, 16, 1]>, #hivm.address_space<ub>>) outs(%dst : memref<2x2x4x1xf16, strided<[12, 4, 1, 1]>, #hivm.address_space<ub>>) reduce_dims = [3]
  return
}

// -----

// adjustCopyAlignDim: the copy destination is not aligned on a dim its
// collapse_reassociation collapses into a later one (dim 1 found; in
// [[0, 1, 2]] dim 1 is not a group's last); with [[0, 1], [2]] it is, so
// the destination is marked. The strided source is already aligned.
// CHECK-LABEL: func.func @copy_collapsed(
// CHECK-SAME: %arg0: memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x2x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.copy ins(%arg0 : memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x2x15xf16, #hivm.address_space<ub>>) collapse_reassociation = {{\[\[}}0, 1, 2]]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @copy_collapsed(%src: memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>, %dst: memref<4x2x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.copy ins(%src : memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>) outs(%dst : memref<4x2x15xf16, #hivm.address_space<ub>>) collapse_reassociation = [[0, 1, 2]]
  return
}
// CHECK-LABEL: func.func @copy_group_end(
// CHECK-SAME: %arg0: memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x2x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%arg0 : memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x2x15xf16, #hivm.address_space<ub>>) collapse_reassociation = {{\[\[}}0, 1], [2]]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @copy_group_end(%src: memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>, %dst: memref<4x2x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.copy ins(%src : memref<4x2x15xf16, strided<[32, 16, 1]>, #hivm.address_space<ub>>) outs(%dst : memref<4x2x15xf16, #hivm.address_space<ub>>) collapse_reassociation = [[0, 1], [2]]
  return
}

// -----

// adjustAlignDim for LoadOp / StoreOp: may_implicit_transpose_with_last_axis
// drops the dim; without it the UB side is marked (dim 0 found).
// CHECK-LABEL: func.func @load_implicit_transpose(
// CHECK-SAME: %arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %arg1: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%arg1 : memref<4x15xf16, #hivm.address_space<ub>>) may_implicit_transpose_with_last_axis = true
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @load_implicit_transpose(%gm: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %a: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.load ins(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<4x15xf16, #hivm.address_space<ub>>) may_implicit_transpose_with_last_axis = true
  return
}
// CHECK-LABEL: func.func @store_plain(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.store ins(%arg0 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @store_plain(%a: memref<4x15xf16, #hivm.address_space<ub>>, %gm: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  hivm.hir.store ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%gm : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>)
  return
}

// -----

// adjustInlineBrcOp: an inline broadcast over the last dim. The operand
// broadcast along it (4x1, stride 1 on dim 0) moves to the previous
// uncontiguous dim, of which there is none: not marked. A 4x1 operand with
// a real row stride (8) keeps the dim; the full operands keep it too.
// CHECK-LABEL: func.func @inline_brc(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, #hivm.address_space<ub>>, %arg2: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg2 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vadd ins(%arg0, %arg1 : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x1xf16, #hivm.address_space<ub>>) outs(%arg2 : memref<4x15xf16, #hivm.address_space<ub>>) broadcast = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @inline_brc(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x1xf16, #hivm.address_space<ub>>, %c: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vadd ins(%a, %b : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x1xf16, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>) broadcast = [1]
  return
}
// CHECK-LABEL: func.func @inline_brc_row_stride(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<ub>>, %arg1: memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>, %arg2: memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: annotation.mark %arg2 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %arg0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vadd ins(%arg0, %arg1 : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>) outs(%arg2 : memref<4x15xf16, #hivm.address_space<ub>>) broadcast = [1]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @inline_brc_row_stride(%a: memref<4x15xf16, #hivm.address_space<ub>>, %b: memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vadd ins(%a, %b : memref<4x15xf16, #hivm.address_space<ub>>, memref<4x1xf16, strided<[8, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>) broadcast = [1]
  return
}
