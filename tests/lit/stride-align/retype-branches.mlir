// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s 2>/dev/null | FileCheck %s
// replaceAndPropagateMemRefType (PropagateAlignUtil.cpp): how the padded
// value replaces an allocation, user kind by user kind, and what
// handlePropagateFailure does where it cannot (membase unless a regbase
// hacc.target is given).

// propagateReshapeOp: a reshape to a lower rank with a reassociation
// becomes a collapse_shape of the padded value; the padded 2x3 rows do not
// collapse with the row dim, so the result keeps dims [6, 15] with stride
// 16.
// CHECK-LABEL: func.func @reshape_as_collapse(
// CHECK-SAME: %arg0: memref<2xindex, #hivm.address_space<ub>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x3x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [2, 3, 15, 1] [1, 1, 1, 1] : memref<2x3x16x1xf16, #hivm.address_space<ub>> to memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[COLLAPSE_SHAPE:[^ ]+]] = memref.collapse_shape %[[SUBVIEW]] {{\[\[}}0, 1], [2]] : memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>> into memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[COLLAPSE_SHAPE]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[COLLAPSE_SHAPE]] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reshape_as_collapse(%shape: memref<2xindex, #hivm.address_space<ub>>) {
  %a = memref.alloc() : memref<2x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x3x15xf16, #hivm.address_space<ub>>
  %r = memref.reshape %a(%shape) : (memref<2x3x15xf16, #hivm.address_space<ub>>, memref<2xindex, #hivm.address_space<ub>>) -> memref<6x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<6x15xf16, #hivm.address_space<ub>>) outs(%r : memref<6x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateCollapseShapeOp: a strided padded source whose group cannot be
// collapsed (isGuaranteedCollapsibleUnStrictly: the rows of 15 are 16
// apart) is a propagation failure: the collapse reads a dense copy, copied
// back after each write through it.
// CHECK-LABEL: func.func @collapse_not_collapsible(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[COLLAPSE_SHAPE:[^ ]+]] = memref.collapse_shape %[[ALLOC_0]] {{\[\[}}0, 1]] : memref<2x15xf16, #hivm.address_space<ub>> into memref<30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[COLLAPSE_SHAPE]] : memref<30xf16, #hivm.address_space<ub>>) outs(%[[COLLAPSE_SHAPE]] : memref<30xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<2x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<2x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @collapse_not_collapsible() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %c = memref.collapse_shape %a [[0, 1]] : memref<2x15xf16, #hivm.address_space<ub>> into memref<30xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%c : memref<30xf16, #hivm.address_space<ub>>) outs(%c : memref<30xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateScfForYieldOp (regbase, no processYieldOp): the region iter arg
// has uses (a store, which does not pass marks among its operands), so the
// padded value cannot become the loop's: failure, and the yield gets a
// dense copy of it made right before the yield.
// CHECK-LABEL: func.func @for_yield_iter_arg_used(
// CHECK-SAME: %arg0: memref<4x15xf16, #hivm.address_space<gm>>) {
// CHECK-NEXT: %[[C0:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[C4:[^ ]+]] = arith.constant 4 : index
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V0:[^ ]+]] = scf.for %arg1 = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%arg2 = %[[ALLOC]]) -> (memref<4x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.store ins(%arg2 : memref<4x15xf16, #hivm.address_space<ub>>) outs(%arg0 : memref<4x15xf16, #hivm.address_space<gm>>)
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[ALLOC_1:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_1]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[ALLOC_1]] : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: }
// CHECK-NEXT: hivm.hir.vexp ins(%[[V0]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[V0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @for_yield_iter_arg_used(%gm: memref<4x15xf16, #hivm.address_space<gm>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<4x15xf16, #hivm.address_space<ub>>) {
      %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
      annotation.mark %b {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
      hivm.hir.store ins(%x : memref<4x15xf16, #hivm.address_space<ub>>) outs(%gm : memref<4x15xf16, #hivm.address_space<gm>>)
      hivm.hir.vexp ins(%b : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
      scf.yield %b : memref<4x15xf16, #hivm.address_space<ub>>
    }
    hivm.hir.vexp ins(%r : memref<4x15xf16, #hivm.address_space<ub>>) outs(%r : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
}

// -----

// propagateUnrealizedConversionCastOp: the greedy driver rewrites the
// allocation defined last first. The init's padded value retypes the loop
// (propagateScfForOp), which casts the yielded buffer up to the padded type;
// when that buffer is rewritten, its own cast back meets this one and the
// two cancel: the loop yields the padded buffer directly.
// CHECK-LABEL: func.func @conversion_cancel(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[C0:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[C4:[^ ]+]] = arith.constant 4 : index
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V0:[^ ]+]] = scf.for %arg0 = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%arg1 = %[[SUBVIEW_1]]) -> (memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: scf.yield %[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: }
// CHECK-NEXT: hivm.hir.vexp ins(%[[V0]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[V0]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @conversion_cancel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%b : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<4x15xf16, #hivm.address_space<ub>>) {
    scf.yield %b : memref<4x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<4x15xf16, #hivm.address_space<ub>>) outs(%r : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// propagateYieldOp: a padded value yielded in an scf.while body is not
// supported (failure): the yield gets a dense copy.
// CHECK-LABEL: func.func @while_yield(
// CHECK-SAME: %arg0: i1) {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V0:[^ ]+]] = scf.while (%arg1 = %[[ALLOC]]) : (memref<4x15xf16, #hivm.address_space<ub>>) -> memref<4x15xf16, #hivm.address_space<ub>> {
// CHECK-NEXT: scf.condition(%arg0) %arg1 : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%arg1: memref<4x15xf16, #hivm.address_space<ub>>):
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[ALLOC_1:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_1]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[ALLOC_1]] : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @while_yield(%cond: i1) {
    %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    %r = scf.while (%x = %a) : (memref<4x15xf16, #hivm.address_space<ub>>) -> memref<4x15xf16, #hivm.address_space<ub>> {
      scf.condition(%cond) %x : memref<4x15xf16, #hivm.address_space<ub>>
    } do {
    ^bb0(%y: memref<4x15xf16, #hivm.address_space<ub>>):
      %b = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
      annotation.mark %b {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
      hivm.hir.vexp ins(%b : memref<4x15xf16, #hivm.address_space<ub>>) outs(%b : memref<4x15xf16, #hivm.address_space<ub>>)
      scf.yield %b : memref<4x15xf16, #hivm.address_space<ub>>
    }
    return
  }
}

// -----

// propagateDefaultOp: a user with a region whose block arguments are
// memrefs cannot take the padded value: failure, it reads a dense copy.
// CHECK-LABEL: func.func @region_with_memref_args(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: "some.region"(%[[ALLOC_0]]) ({
// CHECK-NEXT: ^bb0(%arg0: memref<4x15xf16, #hivm.address_space<ub>>):
// CHECK-NEXT: "some.use"(%arg0) : (memref<4x15xf16, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: }) : (memref<4x15xf16, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @region_with_memref_args() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  "some.region"(%a) ({
  ^bb0(%x: memref<4x15xf16, #hivm.address_space<ub>>):
    "some.use"(%x) : (memref<4x15xf16, #hivm.address_space<ub>>) -> ()
  }) : (memref<4x15xf16, #hivm.address_space<ub>>) -> ()
  return
}

// -----

// findWriteOp -> callOperandMayBeWritten: the dense copy of a failed cast
// is passed on to a function known only by its declaration, which may
// write it: the copy is copied back to the padded buffer after the call.
// CHECK-LABEL: func.func private @ext(
// CHECK-SAME: memref<?x15xf16, #hivm.address_space<ub>>) attributes {hivm.storage_aligned}
func.func private @ext(memref<?x15xf16, #hivm.address_space<ub>>)
// CHECK-LABEL: func.func @write_through_external_call(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[CAST:[^ ]+]] = memref.cast %[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: call @ext(%[[CAST]]) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @write_through_external_call() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %c = memref.cast %a : memref<4x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
  func.call @ext(%c) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  return
}

// -----

// findWriteOp: for a tightly coupled buffer, the sync_block_wait that
// matches the sync_block_set following a Fixpipe into the same buffer id
// counts as a write of the padded buffer: the dense copy of a failed user
// is refreshed right after that wait.
// CHECK-LABEL: func.func @aic(
// CHECK-SAME: %arg0: memref<16x15xf32, #hivm.address_space<cc>>) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x15xf32, #hivm.address_space<cc>>) outs(%[[ALLOC]] : memref<16x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.sync_block_set[<CUBE>, <PIPE_FIX>, <PIPE_V>] flag = 3
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @aic(%l0c: memref<16x15xf32, #hivm.address_space<cc>>) {
  %x = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
  annotation.mark %x {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x15xf16, #hivm.address_space<ub>>
  hivm.hir.fixpipe ins(%l0c : memref<16x15xf32, #hivm.address_space<cc>>) outs(%x : memref<16x15xf16, #hivm.address_space<ub>>)
  hivm.hir.sync_block_set[<CUBE>, <PIPE_FIX>, <PIPE_V>] flag = 3
  return
}
// CHECK-LABEL: func.func @aiv(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [16, 15, 1] [1, 1, 1] : memref<16x16x1xf16, #hivm.address_space<ub>> to memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<16x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[V0:[^ ]+]] = "some_use"(%[[ALLOC_0]]) : (memref<16x15xf16, #hivm.address_space<ub>>) -> memref<240xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.sync_block_wait[<CUBE>, <PIPE_FIX>, <PIPE_V>] flag = 3
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<16x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<16x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @aiv() {
  %a = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x15xf16, #hivm.address_space<ub>>
  %f = "some_use"(%a) : (memref<16x15xf16, #hivm.address_space<ub>>) -> memref<240xf16, #hivm.address_space<ub>>
  hivm.hir.sync_block_wait[<CUBE>, <PIPE_FIX>, <PIPE_V>] flag = 3
  return
}

// -----

// propagateDefaultOp: a user producing a memref (memref.reinterpret_cast)
// cannot take the padded value: failure; it reads a dense copy, copied back
// after each write through its result (the vexp's two uses).
// CHECK-LABEL: func.func @reinterpret_cast_user(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[REINTERPRET_CAST:[^ ]+]] = memref.reinterpret_cast %[[ALLOC_0]] to offset: [0], sizes: [60], strides: [1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<60xf16, strided<[1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[REINTERPRET_CAST]] : memref<60xf16, strided<[1]>, #hivm.address_space<ub>>) outs(%[[REINTERPRET_CAST]] : memref<60xf16, strided<[1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.copy ins(%[[ALLOC_0]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[SUBVIEW]] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reinterpret_cast_user() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %r = memref.reinterpret_cast %a to offset: [0], sizes: [60], strides: [1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<60xf16, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<60xf16, strided<[1]>, #hivm.address_space<ub>>) outs(%r : memref<60xf16, strided<[1]>, #hivm.address_space<ub>>)
  return
}
