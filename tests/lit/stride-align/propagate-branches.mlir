// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s 2>/dev/null | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// PropagateAlignUtil.cpp's propagation edges, branch by branch, through
// hivm-enable-stride-align (membase unless a regbase hacc.target is given).
// Each buffer has a user besides its marks (a buffer only marks use is dead
// for the greedy driver and erased).

// propagateAlignUp(memref::CastOp): the requirement reaches the cast source
// through adjustAlignInfo; a source already aligned (isAlreadyAligned: rows
// of 16 x f16) drops it, so nothing is padded. (The cast feeds a call: an
// HIVM vector op would fold it away, foldMemRefCast.)
// CHECK-LABEL: func.func private @ext_up(
// CHECK-LABEL: func.func @up_cast_already_aligned(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[CAST:[^ ]+]] = memref.cast %[[ALLOC]] : memref<4x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: call @ext_up(%[[CAST]]) : (memref<?x16xf16, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func private @ext_up(memref<?x16xf16, #hivm.address_space<ub>>)
func.func @up_cast_already_aligned() {
  %a = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  %c = memref.cast %a : memref<4x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
  annotation.mark %c {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<?x16xf16, #hivm.address_space<ub>>
  func.call @ext_up(%c) : (memref<?x16xf16, #hivm.address_space<ub>>) -> ()
  return
}

// -----

// propagateAlignUp(memref::SubViewOp): the dim maps to the source
// (getPrevAlignDimBeforeDrop); isNoNeedAlign drops a dim whose dims up to
// it are all unit in the source: nothing padded.
// CHECK-LABEL: func.func @up_subview_unit_prefix(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<1x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0] [1, 15] [1, 1] : memref<1x15xf16, #hivm.address_space<ub>> to memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_subview_unit_prefix() {
  %a = memref.alloc() : memref<1x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [1, 15] [1, 1] : memref<1x15xf16, #hivm.address_space<ub>> to memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%s : memref<1x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignInfoByExpand (up through collapse_shape) -> getExpandedDim:
// the result dim's group is [0, 1] of a 2x1x15 source; its last non-unit
// dim is 0, so the source is aligned on dim 0.
// CHECK-LABEL: func.func @up_collapse_unit_in_group(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x16x15x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [2, 1, 15, 1] [1, 1, 1, 1] : memref<2x16x15x1xf16, #hivm.address_space<ub>> to memref<2x1x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[COLLAPSE_SHAPE:[^ ]+]] = memref.collapse_shape %[[SUBVIEW]] {{\[\[}}0, 1], [2]] : memref<2x1x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>> into memref<2x15xf16, strided<[240, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[COLLAPSE_SHAPE]] : memref<2x15xf16, strided<[240, 1]>, #hivm.address_space<ub>>) outs(%[[COLLAPSE_SHAPE]] : memref<2x15xf16, strided<[240, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_collapse_unit_in_group() {
  %a = memref.alloc() : memref<2x1x15xf16, #hivm.address_space<ub>>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x1x15xf16, #hivm.address_space<ub>> into memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %c {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%c : memref<2x15xf16, #hivm.address_space<ub>>) outs(%c : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignInfoByCollapse (up through expand_shape) -> getCollapsedDim:
// result dim 1 is a unit dim before its group's last non-unit dim (2); the
// group's prefix up to it is unit and the source is contiguous, so the dim
// is borrowed from the previous group with a non-unit dim: source dim 0.
// CHECK-LABEL: func.func @up_expand_borrow(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x15x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [4, 6, 15, 1] [1, 1, 1, 1] : memref<4x16x15x1xf16, #hivm.address_space<ub>> to memref<4x6x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[EXPAND_SHAPE:[^ ]+]] = memref.expand_shape %[[SUBVIEW]] {{\[\[}}0], [1, 2], [3]] output_shape [4, 1, 6, 15] : memref<4x6x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>> into memref<4x1x6x15xf16, strided<[240, 90, 15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[EXPAND_SHAPE]] : memref<4x1x6x15xf16, strided<[240, 90, 15, 1]>, #hivm.address_space<ub>>) outs(%[[EXPAND_SHAPE]] : memref<4x1x6x15xf16, strided<[240, 90, 15, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_expand_borrow() {
  %a = memref.alloc() : memref<4x6x15xf16, #hivm.address_space<ub>>
  %e = memref.expand_shape %a [[0], [1, 2], [3]] output_shape [4, 1, 6, 15] : memref<4x6x15xf16, #hivm.address_space<ub>> into memref<4x1x6x15xf16, #hivm.address_space<ub>>
  annotation.mark %e {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x1x6x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%e : memref<4x1x6x15xf16, #hivm.address_space<ub>>) outs(%e : memref<4x1x6x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignUp(memref::ReshapeOp): shapes without a reassociation
// (getReassociationIndicesForReshape fails) stop the requirement: nothing
// is padded.
// CHECK-LABEL: func.func @up_reshape_no_reassociation(
// CHECK-SAME: %arg0: memref<2xindex, #hivm.address_space<ub>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[RESHAPE:[^ ]+]] = memref.reshape %[[ALLOC]](%arg0) : (memref<6x15xf16, #hivm.address_space<ub>>, memref<2xindex, #hivm.address_space<ub>>) -> memref<10x9xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[RESHAPE]] : memref<10x9xf16, #hivm.address_space<ub>>) outs(%[[RESHAPE]] : memref<10x9xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_reshape_no_reassociation(%shape: memref<2xindex, #hivm.address_space<ub>>) {
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  %r = memref.reshape %a(%shape) : (memref<6x15xf16, #hivm.address_space<ub>>, memref<2xindex, #hivm.address_space<ub>>) -> memref<10x9xf16, #hivm.address_space<ub>>
  annotation.mark %r {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<10x9xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<10x9xf16, #hivm.address_space<ub>>) outs(%r : memref<10x9xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignUp on an allocation: a second requirement on another dim is
// united with the first (unionAlignInfo): both dims are padded (the units
// per dim are tilemem's collectAlignUnits rule, not in the reference).
// CHECK-LABEL: func.func @up_alloc_union(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x32x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [4, 3, 15, 1] [1, 1, 1, 1] : memref<4x32x16x1xf16, #hivm.address_space<ub>> to memref<4x3x15xf16, strided<[512, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<4x3x15xf16, strided<[512, 16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x3x15xf16, strided<[512, 16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_alloc_union() {
  %a = memref.alloc() : memref<4x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 64>} : memref<4x3x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x3x15xf16, #hivm.address_space<ub>>) outs(%a : memref<4x3x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(memref::SubViewOp): a subview dropping the marked dim
// maps it to no result dim (getPostAlignDimAfterDrop = -1): the subview is
// not marked, and its other user is not aligned with it.
// CHECK-LABEL: func.func @down_subview_dropped(
// CHECK-SAME: %arg0: memref<15xf16, #hivm.address_space<ub>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_0:[^ ]+]] = memref.subview %[[SUBVIEW]][1, 0] [1, 15] [1, 1] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> to memref<15xf16, strided<[1], offset: 16>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW_0]] : memref<15xf16, strided<[1], offset: 16>, #hivm.address_space<ub>>) outs(%arg0 : memref<15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @down_subview_dropped(%o: memref<15xf16, #hivm.address_space<ub>>) {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[1, 0] [1, 15] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<15xf16, strided<[1], offset: 15>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<15xf16, strided<[1], offset: 15>, #hivm.address_space<ub>>) outs(%o : memref<15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(memref::CastOp): the requirement is copied onto the
// cast's result, goes on through the subview of it and reaches the other
// operand of the subview's user (among the vexp's operands): both
// allocations are padded. The padded view casts to the cast's dynamic
// strides (propagateCastOp rebuilds the cast). A vexp reading the cast
// itself would fold it away (foldMemRefCast) before any of this.
// CHECK-LABEL: func.func @down_cast_then_among(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[CAST:[^ ]+]] = memref.cast %[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> to memref<?x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_0:[^ ]+]] = memref.subview %[[CAST]][0, 0] [2, 15] [1, 1] : memref<?x15xf16, strided<[?, 1]>, #hivm.address_space<ub>> to memref<2x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_1:[^ ]+]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_2:[^ ]+]] = memref.subview %[[ALLOC_1]][0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW_0]] : memref<2x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_2]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @down_cast_then_among() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %c = memref.cast %a : memref<4x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>
  %s = memref.subview %c[0, 0] [2, 15] [1, 1] : memref<?x15xf16, strided<[?, 1]>, #hivm.address_space<ub>> to memref<2x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<2x15xf16, strided<[?, 1]>, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(memref::CollapseShapeOp) -> propagateAlignInfoByCollapse:
// source dim 1 lies in result group 0 ([0, 1]); the result is aligned on
// dim 0 and, among the vexp's operands, so is the other buffer.
// CHECK-LABEL: func.func @down_collapse(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x3x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [2, 3, 15, 1] [1, 1, 1, 1] : memref<2x3x16x1xf16, #hivm.address_space<ub>> to memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[COLLAPSE_SHAPE:[^ ]+]] = memref.collapse_shape %[[SUBVIEW]] {{\[\[}}0, 1], [2]] : memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>> into memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<6x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [6, 15, 1] [1, 1, 1] : memref<6x16x1xf16, #hivm.address_space<ub>> to memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[COLLAPSE_SHAPE]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @down_collapse() {
  %a = memref.alloc() : memref<2x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x3x15xf16, #hivm.address_space<ub>>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x15xf16, #hivm.address_space<ub>> into memref<6x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%c : memref<6x15xf16, #hivm.address_space<ub>>) outs(%b : memref<6x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(memref::ReshapeOp): shapes without a reassociation
// are the error `cannot be inference alignment` at the reshape, once per
// greedy sweep that visits the allocation's mark (the pattern fails, the
// pass goes on). The padded value cannot be pushed through the reshape
// either (propagateReshapeOp fails): handlePropagateFailure gives it a
// dense copy, copied back after each write through the reshape.
// CHECK-LABEL: func.func @down_reshape_no_reassociation(
// CHECK-SAME: %arg0: memref<2xindex, #hivm.address_space<ub>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<6x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [6, 15, 1] [1, 1, 1] : memref<6x16x1xf16, #hivm.address_space<ub>> to memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<6x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[RESHAPE:[^ ]+]] = memref.reshape %[[ALLOC_0]](%arg0) : (memref<6x15xf16, #hivm.address_space<ub>>, memref<2xindex, #hivm.address_space<ub>>) -> memref<10x9xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[RESHAPE]] : memref<10x9xf16, #hivm.address_space<ub>>) outs(%[[RESHAPE]] : memref<10x9xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<6x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<6x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @down_reshape_no_reassociation(%shape: memref<2xindex, #hivm.address_space<ub>>) {
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<6x15xf16, #hivm.address_space<ub>>
  // DIAG-COUNT-2: propagate-branches.mlir:[[@LINE+1]]:3: error: cannot be inference alignment
  %r = memref.reshape %a(%shape) : (memref<6x15xf16, #hivm.address_space<ub>>, memref<2xindex, #hivm.address_space<ub>>) -> memref<10x9xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<10x9xf16, #hivm.address_space<ub>>) outs(%r : memref<10x9xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(scf::ForOp): an init's requirement marks the loop
// result and the iter arg; the result's user aligns its other operand.
// CHECK-LABEL: func.func @down_for_init(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[C0:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[C4:[^ ]+]] = arith.constant 4 : index
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V0:[^ ]+]] = scf.for %arg0 = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%arg1 = %[[SUBVIEW]]) -> (memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%arg1 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%arg1 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %arg1 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: }
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[V0]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @down_for_init() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<4x15xf16, #hivm.address_space<ub>>) {
    hivm.hir.vexp ins(%x : memref<4x15xf16, #hivm.address_space<ub>>) outs(%x : memref<4x15xf16, #hivm.address_space<ub>>)
    scf.yield %x : memref<4x15xf16, #hivm.address_space<ub>>
  }
  %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignDown(scf::YieldOp) fails on regbase: a branch buffer's
// requirement does not reach the scf.if result, so the other branch is not
// padded; the padded value is materialised as a dense copy
// (materializeRemainingStaticUBLayoutCasts).
// CHECK-LABEL: func.func @down_yield_regbase(
// CHECK-SAME: %arg0: i1) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[ALLOC_1:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V0:[^ ]+]] = scf.if %arg0 -> (memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: scf.yield %[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ALLOC_1]] : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: }
// CHECK-NEXT: hivm.hir.vexp ins(%[[V0]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[V0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @down_yield_regbase(%cond: i1) {
    %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    %r = scf.if %cond -> (memref<4x15xf16, #hivm.address_space<ub>>) {
      scf.yield %a : memref<4x15xf16, #hivm.address_space<ub>>
    } else {
      scf.yield %b : memref<4x15xf16, #hivm.address_space<ub>>
    }
    hivm.hir.vexp ins(%r : memref<4x15xf16, #hivm.address_space<ub>>) outs(%r : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
}

// -----

// PropagateAlignAmongOperationOperands: scalar operands and rank-0 memrefs
// take no part; load and store do not propagate (no need for GM); among a
// vector op's memrefs the requirement is united and given to each
// (markAlignInfoForNoAlignOperand), the copy's source excepted.
// CHECK-LABEL: func.func @among_scalars(
// CHECK-SAME: %arg0: f16) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vadd ins(%[[SUBVIEW]], %arg0 : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, f16) outs(%[[SUBVIEW_1]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @among_scalars(%s: f16) {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%a, %s : memref<4x15xf16, #hivm.address_space<ub>>, f16) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// markAlignInfoForAlignedOperand: an operand whose mark already contains
// the union (isContain) is left as is; one whose mark disagrees on a dim's
// bytes gets a new mark with the union, and its allocation takes the lcm
// (32 and 64 bytes on dim 0: 64).
// CHECK-LABEL: func.func @among_aligned_operand(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x32x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x32x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x32x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x32x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<4x15xf16, strided<[32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @among_aligned_operand() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 64>} : memref<4x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateAlignUp(memref::SubViewOp) re-checks the source at each hop
// (adjustAlignInfo -> isNoNeedAlign): a source in GM, or without an HIVM
// address space, needs no alignment, so the requirement dies there.
// CHECK-LABEL: func.func @up_to_gm(
// CHECK-SAME: %arg0: memref<4x16xf16, #hivm.address_space<gm>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %arg0[0, 0] [4, 15] [1, 1] : memref<4x16xf16, #hivm.address_space<gm>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>
// CHECK-NEXT: "some_use"(%[[SUBVIEW]]) : (memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_to_gm(%gm: memref<4x16xf16, #hivm.address_space<gm>>) {
  %s = memref.subview %gm[0, 0] [4, 15] [1, 1] : memref<4x16xf16, #hivm.address_space<gm>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>
  "some_use"(%s) : (memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) -> ()
  return
}
// CHECK-LABEL: func.func @up_to_no_space(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0] [4, 15] [1, 1] : memref<4x15xf16> to memref<4x15xf16, strided<[15, 1]>>
// CHECK-NEXT: "some_use"(%[[SUBVIEW]]) : (memref<4x15xf16, strided<[15, 1]>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @up_to_no_space() {
  %a = memref.alloc() : memref<4x15xf16>
  %s = memref.subview %a[0, 0] [4, 15] [1, 1] : memref<4x15xf16> to memref<4x15xf16, strided<[15, 1]>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[15, 1]>>
  "some_use"(%s) : (memref<4x15xf16, strided<[15, 1]>>) -> ()
  return
}
