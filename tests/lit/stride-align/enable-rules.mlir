// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s 2>/dev/null | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// Rules of EnableStrideAlign.cpp and PropagateAlignUtil.cpp, one chunk each.

// propagateAlignUp(memref::ViewOp): a mark stops at a byte view. When the
// element count right of each dim is a multiple of its bytes (32 x 16
// elements here), MLIR remarks (with its own spelling) and nothing is
// padded.
// CHECK-LABEL: func.func @view_satisfied
// CHECK: memref.view %{{.*}} : memref<2048xi8, #hivm.address_space<ub>> to memref<2x32x16xf16, #hivm.address_space<ub>>
func.func @view_satisfied() {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<2048xi8, #hivm.address_space<ub>>
  %v = memref.view %buf[%c0][] : memref<2048xi8, #hivm.address_space<ub>> to memref<2x32x16xf16, #hivm.address_space<ub>>
  // DIAG: enable-rules.mlir:[[@LINE+1]]:3: remark: Alignemnt already satisfied for %view
  annotation.mark %v {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x32x16xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%v : memref<2x32x16xf16, #hivm.address_space<ub>>) outs(%v : memref<2x32x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// processYieldOp (membase): a root yielded by an scf.if branch warns (and
// the up-propagation of that mark fails after marking the root). The mark
// still goes down the yield to the scf.if result and from there up to the
// other branch's buffer: both are padded and the result is retyped.
// CHECK-LABEL: func.func @root_yielded_by_if
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[W:.*]] = memref.subview %[[B]]
// CHECK-NEXT: scf.if %arg0 -> (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: scf.yield %[[V]]
// CHECK: scf.yield %[[W]]
func.func @root_yielded_by_if(%cond: i1) {
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.if %cond -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    // DIAG: enable-rules.mlir:[[@LINE+1]]:5: warning: Parent operation is not a scf::ForOp
    scf.yield %a : memref<2x15xf16, #hivm.address_space<ub>>
  } else {
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  return
}

// -----

// Regbase: branches that disagree keep the scf.if result type, and the
// padded branch value is materialised as a dense copy right where it is
// defined (materializeRemainingStaticUBLayoutCasts), not as a cast.
// CHECK-LABEL: func.func @if_disagree_regbase
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[D]] : memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK: scf.if %arg0 -> (memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[D]] : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NOT: unrealized_conversion_cast
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @if_disagree_regbase(%cond: i1) {
    %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    %r = scf.if %cond -> (memref<2x15xf16, #hivm.address_space<ub>>) {
      scf.yield %a : memref<2x15xf16, #hivm.address_space<ub>>
    } else {
      scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
    }
    return
  }
}

// -----

// Both branches padded alike: the scf.if result takes the padded type
// (propagateScfIfOp) and its users follow.
// CHECK-LABEL: func.func @if_agree
// CHECK: scf.if %arg0 -> (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK: hivm.hir.vexp ins(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @if_agree(%cond: i1) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.if %cond -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    scf.yield %a : memref<2x15xf16, #hivm.address_space<ub>>
  } else {
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// handlePropagateFailure: the dense copy is made right before the failed
// user (an unknown op producing a memref: propagateDefaultOp fails); a
// later write to the aligned buffer refreshes it right after that write,
// once per write findWriteOp collects: the vexp uses the buffer twice
// (ins and outs) and each use reports the op's write, so twice.
// CHECK-LABEL: func.func @refresh_after_src_write
// CHECK: %[[V:.*]] = memref.subview
// CHECK-NEXT: %[[M:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[M]] : {{.*}})
// CHECK-NEXT: "some_use"(%[[M]])
// CHECK-NEXT: hivm.hir.vexp ins(%[[V]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[M]] : {{.*}})
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[M]] : {{.*}})
// CHECK-NEXT: return
func.func @refresh_after_src_write() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %f = "some_use"(%a) : (memref<2x15xf16, #hivm.address_space<ub>>) -> memref<30xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// A write to the dense copy through a view of the failed user (memref.cast
// is view-like; the cast to the dense dynamic type is not cast compatible
// with the padded view, so propagateCastOp fails) is copied back right
// after that write, inside the loop where it happens, once per use of the
// cast by the writer: a call to an external function passing it twice
// (callOperandMayBeWritten: an external callee may write). An HIVM vector
// op would fold the cast away instead (foldMemRefCast).
// CHECK-LABEL: func.func @copy_back_after_write
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[M:.*]] = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[M]] : {{.*}})
// CHECK-NEXT: %[[R:.*]] = memref.cast %[[M]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: call @ext_rw(%[[R]], %[[R]])
// CHECK-NEXT: hivm.hir.copy ins(%[[M]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK-NEXT: hivm.hir.copy ins(%[[M]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func private @ext_rw(memref<?x15xf16, #hivm.address_space<ub>>, memref<?x15xf16, #hivm.address_space<ub>>)
func.func @copy_back_after_write() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<6x15xf16, #hivm.address_space<ub>>
  %r = memref.cast %a : memref<6x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @ext_rw(%r, %r) : (memref<?x15xf16, #hivm.address_space<ub>>, memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  }
  return
}

// -----

// PropagateAlignAmongOperationOperands applies the op's own dim rules
// (adjustAlignInfo -> adjustBrcAlignDim). The broadcast is a last-dim one
// and the marked dim is the second-to-last flattened dim, but the
// destination's flattened type carries its mark (getFlattened with
// checkMarkStride: 12x15 with stride 16), so isLastTwoDimContiguous is false
// and the source takes the dim unchanged: its stride of dim 1 becomes 16
// elements (the row of one is padded to 16).
// CHECK-LABEL: func.func @among_brc
// CHECK: memref.alloc() : memref<4x3x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<4x3x16x1xf16, #hivm.address_space<ub>>
func.func @among_brc() {
  %src = memref.alloc() : memref<4x3x1xf16, #hivm.address_space<ub>>
  %dst = memref.alloc() : memref<4x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %dst {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x3x15xf16, #hivm.address_space<ub>>
  hivm.hir.vbrc ins(%src : memref<4x3x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x3x15xf16, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// isAlreadyAligned (AdjustAlignUtil.cpp) compares a dim's stride with the
// hardware alignment (32 bytes on UB), not with the mark's bytes: a 64-byte
// requirement on a 16 x f16 row is dropped when it goes up the subview, and
// nothing is padded.
// CHECK-LABEL: func.func @already_aligned_to_hw
// CHECK: memref.alloc() : memref<4x3x1xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<4x4x16xf16, #hivm.address_space<ub>>
// CHECK-NOT: memref.alloc
func.func @already_aligned_to_hw() {
  %src = memref.alloc() : memref<4x3x1xf16, #hivm.address_space<ub>>
  %a = memref.alloc() : memref<4x4x16xf16, #hivm.address_space<ub>>
  %dst = memref.subview %a[0, 0, 0] [4, 3, 15] [1, 1, 1] : memref<4x4x16xf16, #hivm.address_space<ub>> to memref<4x3x15xf16, strided<[64, 16, 1]>, #hivm.address_space<ub>>
  annotation.mark %dst {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 64>} : memref<4x3x15xf16, strided<[64, 16, 1]>, #hivm.address_space<ub>>
  hivm.hir.vbrc ins(%src : memref<4x3x1xf16, #hivm.address_space<ub>>) outs(%dst : memref<4x3x15xf16, strided<[64, 16, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}

// -----

// propagateScfForYieldOp (regbase, where the loop init is not marked): a
// padded buffer yielded by an scf.for body whose loop keeps the dense type
// is copied into a dense buffer right before the yield.
// CHECK-LABEL: func.func @yield_in_loop
// CHECK: scf.for {{.*}} -> (memref<2x15xf16, #hivm.address_space<ub>>) {
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[D]] : memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[D]] : memref<2x15xf16, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @yield_in_loop() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a) -> (memref<2x15xf16, #hivm.address_space<ub>>) {
      %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
      annotation.mark %b {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
      scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
    }
    return
  }
}

// -----

// propagateCastOp: a memref.cast keeps its result type. To a layout the
// padded type casts to (dynamic strides) it reads the padded buffer
// directly; to the dense layout it cannot, so it is a propagation failure
// and reads a dense copy (copied back after each write through it: the two
// calls to an external callee; the call through the first cast is not
// after the copy, so the copy is not refreshed); a cast used by nothing
// but marks reads the padded value cast back (membase: an
// unrealized_conversion_cast). The casts feed calls: an HIVM vector op
// would fold them (foldMemRefCast).
// CHECK-LABEL: func.func @casts
// CHECK: %[[V:.*]] = memref.subview
// CHECK-NEXT: %[[U:.*]] = builtin.unrealized_conversion_cast %[[V]]
// CHECK-NEXT: %[[C1:.*]] = memref.cast %[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> to memref<2x15xf16, strided<[?, 1], offset: ?>, #hivm.address_space<ub>>
// CHECK-NEXT: call @ext_strided(%[[C1]])
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[D]] : {{.*}})
// CHECK-NEXT: %[[C2:.*]] = memref.cast %[[D]] : memref<2x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: call @ext_dense(%[[C2]])
// CHECK-NEXT: hivm.hir.copy ins(%[[D]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK-NEXT: call @ext_dense(%[[C2]])
// CHECK-NEXT: hivm.hir.copy ins(%[[D]] : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK-NEXT: %[[C3:.*]] = memref.cast %[[U]] : memref<2x15xf16, #hivm.address_space<ub>> to memref<?x?xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[C3]] {keep}
// CHECK-NEXT: return
func.func private @ext_strided(memref<2x15xf16, strided<[?, 1], offset: ?>, #hivm.address_space<ub>>)
func.func private @ext_dense(memref<?x15xf16, #hivm.address_space<ub>>)
func.func @casts() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %c1 = memref.cast %a : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[?, 1], offset: ?>, #hivm.address_space<ub>>
  func.call @ext_strided(%c1) : (memref<2x15xf16, strided<[?, 1], offset: ?>, #hivm.address_space<ub>>) -> ()
  %c2 = memref.cast %a : memref<2x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
  func.call @ext_dense(%c2) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  func.call @ext_dense(%c2) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  %c3 = memref.cast %a : memref<2x15xf16, #hivm.address_space<ub>> to memref<?x?xf16, #hivm.address_space<ub>>
  annotation.mark %c3 {keep} : memref<?x?xf16, #hivm.address_space<ub>>
  return
}

