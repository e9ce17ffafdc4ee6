// RUN: tilemem opt -hivm-mark-stride-align %s | FileCheck %s
// Fixpipe (L0C to UB) on regbase (MarkStrideAlign.cpp
// getLastDiscontinuousDimRegBasedForFixcctoub with
// getNsizeAlignmentRequirement / getMsizeAlignmentRequirement, the dual
// destination mode from the op or from the tightly coupled buffer's tiling
// dim, and the 3-D dot rule of runOnOperation): one function per row of
// the N and M tables. The N stride is dim 1 of the 2-D output, the M stride dim 0; bytes
// are the table's element count times the output element width.

module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  // CHECK-LABEL: func.func @n_b16(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b16(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b16_nz2nd(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b16_nz2nd(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b8(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 16>} : memref<16x30xi8, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b8(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi8, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi8, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b8_nz2nd(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xi8, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b8_nz2nd(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi8, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi8, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b4(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 8>} : memref<16x30xi4, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b4(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi4, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi4, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b4_nz2nd(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xi4, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b4_nz2nd(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi4, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi4, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b32(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 64>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b32(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b32_nz2nd(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b32_nz2nd(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b32_channel_split(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b32_channel_split(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {channel_split = true} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b32_split_n(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 128>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b32_split_n(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dual_dst_mode = #hivm.fixpipe_dual_dst_mode<COLUMN_SPLIT>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b32_nz2nd_split_n(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 128>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @n_b32_nz2nd_split_n(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>, dual_dst_mode = #hivm.fixpipe_dual_dst_mode<COLUMN_SPLIT>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @n_b16_channel_split_missing(
  // CHECK-NOT: annotation.mark
  // CHECK: hivm.hir.fixpipe
  func.func @n_b16_channel_split_missing(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {channel_split = true} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @m_b16_nz2dn(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @m_b16_nz2dn(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2dn>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @m_b8_nz2dn(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xi8, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 16>} : memref<16x30xi8, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @m_b8_nz2dn(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi8, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2dn>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi8, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @m_b4_nz2dn(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xi4, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 8>} : memref<16x30xi4, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @m_b4_nz2dn(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xi4, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2dn>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xi4, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @m_b32_split_m(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 8>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @m_b32_split_m(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>, dual_dst_mode = #hivm.fixpipe_dual_dst_mode<ROW_SPLIT>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // CHECK-LABEL: func.func @m_b32_nz2dn(
  // CHECK: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %arg1 {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 64>} : memref<16x30xf32, #hivm.address_space<ub>>
  // CHECK: hivm.hir.fixpipe
  func.func @m_b32_nz2dn(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %ub: memref<16x30xf32, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2dn>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%ub : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // The dual-destination mode can come from the destination's tightly
  // coupled buffer: tiling dim 0 (= rank - 2) splits M.
  // CHECK-LABEL: func.func @tiling_dim_split_m(
  // New marks go right after the allocation, the M one (written last) first.
  // CHECK: %[[A:.*]] = memref.alloc()
  // CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 8>}
  // CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
  // CHECK-NEXT: annotation.mark %[[A]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>, hivm.tiling_dim = 0 : i32}
  func.func @tiling_dim_split_m(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>, hivm.tiling_dim = 0 : i32} : memref<16x30xf32, #hivm.address_space<ub>>
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // Tiling dim 1 (= rank - 1) splits N.
  // CHECK-LABEL: func.func @tiling_dim_split_n(
  // CHECK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 128>}
  func.func @tiling_dim_split_n(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>, hivm.tiling_dim = 1 : i32} : memref<16x30xf32, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }

  // 3-D dot: the rank-3 root allocation also gets its dim-1 stride aligned.
  // CHECK-LABEL: func.func @dot_3d(
  // CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
  // CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
  // CHECK: %[[S:.*]] = memref.subview %[[A]]
  // CHECK-NEXT: annotation.mark %[[S]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
  // CHECK: hivm.hir.fixpipe
  func.func @dot_3d(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0, 0] [1, 16, 30] [1, 1, 1] : memref<2x16x30xf16, #hivm.address_space<ub>> to memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%s : memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>)
    return
  }

  // Fixpipe to GM is not a UB row problem.
  // CHECK-LABEL: func.func @to_gm(
  // CHECK-NOT: annotation.mark
  // CHECK: return
  func.func @to_gm(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %gm: memref<16x30xf16, #hivm.address_space<gm>>) {
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%gm : memref<16x30xf16, #hivm.address_space<gm>>)
    return
  }

  // getLastDiscontinuousDimRegBasedForFixcctoub: an output that is not 2-D
  // has no table entry; the 3-D dot rule still aligns dim 1 of a rank-3
  // root allocation with more than one batch (adjustAlignInfo on the
  // allocation, hardware alignment bytes).
// CHECK-LABEL: func.func @out_rank3(
// CHECK-SAME: %arg0: memref<2x16x30xf32, #hivm.address_space<cc>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x16x30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<2x16x30xf32, #hivm.address_space<cc>>) outs(%[[ALLOC]] : memref<2x16x30xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @out_rank3(%l0c: memref<2x16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<2x16x30xf16, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<2x16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<2x16x30xf16, #hivm.address_space<ub>>)
    return
  }
  // Tiling dim -1 on the tightly coupled buffer: no dual-destination mode,
  // so the B32 NZ2ND row of the N table (8 elements, 32 bytes) and no M
  // entry.
// CHECK-LABEL: func.func @tiling_dim_none(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<cc>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>, hivm.tiling_dim = -1 : i32} : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%arg0 : memref<16x30xf32, #hivm.address_space<cc>>) outs(%[[ALLOC]] : memref<16x30xf32, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @tiling_dim_none(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>, hivm.tiling_dim = -1 : i32} : memref<16x30xf32, #hivm.address_space<ub>>
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }
  // A Fixpipe whose source is not L0C has no table entry (and its own
  // regbase dim is not used): nothing.
// CHECK-LABEL: func.func @not_from_l0c(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<ub>>, %arg1: memref<16x30xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x30xf32, #hivm.address_space<ub>>) outs(%arg1 : memref<16x30xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @not_from_l0c(%src: memref<16x30xf32, #hivm.address_space<ub>>, %ub: memref<16x30xf16, #hivm.address_space<ub>>) {
    hivm.hir.fixpipe ins(%src : memref<16x30xf32, #hivm.address_space<ub>>) outs(%ub : memref<16x30xf16, #hivm.address_space<ub>>)
    return
  }
  // 3-D dot rule: a rank-3 root with a unit batch is left to the N table.
// CHECK-LABEL: func.func @dot_3d_unit_batch(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<cc>>) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<1x16x30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [1, 16, 30] [1, 1, 1] : memref<1x16x30xf16, #hivm.address_space<ub>> to memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x30xf32, #hivm.address_space<cc>>) outs(%[[SUBVIEW]] : memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @dot_3d_unit_batch(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) {
    %a = memref.alloc() : memref<1x16x30xf16, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0, 0] [1, 16, 30] [1, 1, 1] : memref<1x16x30xf16, #hivm.address_space<ub>> to memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%s : memref<16x30xf16, strided<[30, 1]>, #hivm.address_space<ub>>)
    return
  }
}
