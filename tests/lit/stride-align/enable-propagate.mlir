// RUN: tilemem opt -hivm-enable-stride-align -allow-unregistered-dialect -split-input-file %s | FileCheck %s
// Propagation edges of the enable pass (membase unless a target is given):
// up from views to root allocations, down to views and loops, among the
// operands of vector ops and copies, and type propagation to every user.

// Up through a subview; the subview is retyped from the new source.
// CHECK-LABEL: func.func @up_subview
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0] [4, 15, 1] [1, 1, 1] : memref<4x16x1xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[S:.*]] = memref.subview %[[V]][2, 0] [2, 15] [1, 1] : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1], offset: 32>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[S]] : memref<2x15xf16, strided<[16, 1], offset: 32>, #hivm.address_space<ub>>)
func.func @up_subview() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[2, 0] [2, 15] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1], offset: 30>, #hivm.address_space<ub>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, strided<[15, 1], offset: 30>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<2x15xf16, strided<[15, 1], offset: 30>, #hivm.address_space<ub>>) outs(%s : memref<2x15xf16, strided<[15, 1], offset: 30>, #hivm.address_space<ub>>)
  return
}

// -----

// Up through a rank-reducing subview: result dim 0 is source dim 0.
// CHECK-LABEL: func.func @up_rank_reducing_subview
// CHECK: memref.alloc() : memref<4x16x15x1xf16, #hivm.address_space<ub>>
// CHECK: memref.subview %{{.*}}[0, 0, 0] [4, 1, 15] [1, 1, 1] : memref<4x1x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>> to memref<4x15xf16, strided<[240, 1]>, #hivm.address_space<ub>>
func.func @up_rank_reducing_subview() {
  %a = memref.alloc() : memref<4x1x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [4, 1, 15] [1, 1, 1] : memref<4x1x15xf16, #hivm.address_space<ub>> to memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  annotation.mark %s {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>) outs(%s : memref<4x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// Up through memref.cast, then back down: the padded view is not cast
// compatible with the cast's result type (strides [16, 1] against the
// identity layout), so propagateCastOp fails and handlePropagateFailure
// (PropagateAlignUtil.cpp) copies the padded buffer into a dense one for
// the cast, and copies it back after each write findWriteOp finds through
// the cast: a func.call whose callee stores into the argument
// (callOperandMayBeWritten / mayWriteThroughFuncArg), once per call. (An
// HIVM vector op reading the cast would fold it away first: every op of
// HIVMVectorOps.td folds memref.cast operands, foldMemRefCast.)
// CHECK-LABEL: func.func private @writes
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 0.000000e+00 : f16
// CHECK-NEXT: memref.store
// CHECK-LABEL: func.func @up_cast
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[S:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[S]] : {{.*}}) outs(%[[D]] : {{.*}})
// CHECK-NEXT: %[[C:.*]] = memref.cast %[[D]] : memref<4x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: call @writes(%[[C]])
// CHECK-NEXT: hivm.hir.copy ins(%[[D]] : {{.*}}) outs(%[[S]] : {{.*}})
// CHECK-NEXT: call @writes(%[[C]])
// CHECK-NEXT: hivm.hir.copy ins(%[[D]] : {{.*}}) outs(%[[S]] : {{.*}})
// CHECK-NEXT: return
func.func private @writes(%m: memref<?x15xf16, #hivm.address_space<ub>>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f16
  memref.store %z, %m[%c0, %c0] : memref<?x15xf16, #hivm.address_space<ub>>
  return
}
func.func @up_cast() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  %c = memref.cast %a : memref<4x15xf16, #hivm.address_space<ub>> to memref<?x15xf16, #hivm.address_space<ub>>
  annotation.mark %c {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<?x15xf16, #hivm.address_space<ub>>
  call @writes(%c) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  call @writes(%c) : (memref<?x15xf16, #hivm.address_space<ub>>) -> ()
  return
}

// -----

// Up through collapse_shape: result dim 0 is the group [0, 1]; its last
// non-unit dim (1) is marked on the source.
// CHECK-LABEL: func.func @up_collapse
// CHECK: memref.alloc() : memref<2x3x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>> into memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
func.func @up_collapse() {
  %a = memref.alloc() : memref<2x3x15xf16, #hivm.address_space<ub>>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x15xf16, #hivm.address_space<ub>> into memref<6x15xf16, #hivm.address_space<ub>>
  annotation.mark %c {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<6x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%c : memref<6x15xf16, #hivm.address_space<ub>>) outs(%c : memref<6x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Up through expand_shape: result dim 1 closes group 0 => source dim 0.
// CHECK-LABEL: func.func @up_expand
// CHECK: memref.alloc() : memref<6x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 3, 15] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> into memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>>
func.func @up_expand() {
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 15] : memref<6x15xf16, #hivm.address_space<ub>> into memref<2x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %e {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x3x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%e : memref<2x3x15xf16, #hivm.address_space<ub>>) outs(%e : memref<2x3x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Down: the root's requirement reaches a subview, and from there the other
// operand of a vector op, whose own root is padded too.
// CHECK-LABEL: func.func @down_then_among
// CHECK: memref.alloc() : memref<4x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: hivm.hir.vadd ins(%{{.*}}, %{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @down_then_among() {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [2, 15] [1, 1] : memref<4x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%s, %b : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>, memref<2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Among operands: A and B are marked, C gets the same.
// CHECK-LABEL: func.func @among_vadd
// CHECK-COUNT-3: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
func.func @among_vadd() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%a, %b : memref<2x15xf16, #hivm.address_space<ub>>, memref<2x15xf16, #hivm.address_space<ub>>) outs(%c : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Copies propagate from source to destination only.
// CHECK-LABEL: func.func @copy_src_to_dst
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-LABEL: func.func @copy_dst_not_to_src
// CHECK: memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
func.func @copy_src_to_dst() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.copy ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}
func.func @copy_dst_not_to_src() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.copy ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Load and store do not propagate among their operands.
// CHECK-LABEL: func.func @load_no_among
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
func.func @load_no_among(%gm: memref<2x15xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.store ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%gm : memref<2x15xf16, #hivm.address_space<gm>>)
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, #hivm.address_space<gm>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// scf.for: a mark on the iter arg reaches the init's root; iter arg, result
// and yield are retyped.
// CHECK-LABEL: func.func @scf_for
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %[[V]]) -> (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: hivm.hir.vexp ins(%[[X]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[X]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK: hivm.hir.vexp ins(%[[R]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @scf_for() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    annotation.mark %x {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%x : memref<2x15xf16, #hivm.address_space<ub>>) outs(%x : memref<2x15xf16, #hivm.address_space<ub>>)
    scf.yield %x : memref<2x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// scf.for result: marks on a loop result reach both the init and the
// yielded buffer.
// CHECK-LABEL: func.func @scf_for_result
// CHECK-COUNT-2: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
func.func @scf_for_result() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%x : memref<2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  annotation.mark %r {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// scf.if: a mark on the result reaches the buffers of both branches; the
// result is retyped since both branches agree.
// CHECK-LABEL: func.func @scf_if
// CHECK-COUNT-2: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: %[[R:.*]] = scf.if %arg0 -> (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK: hivm.hir.vexp ins(%[[R]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @scf_if(%cond: i1) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.if %cond -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    scf.yield %a : memref<2x15xf16, #hivm.address_space<ub>>
  } else {
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  annotation.mark %r {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Marks inside scope.scope regions are handled like any other.
// CHECK-LABEL: func.func @scope
// CHECK: scope.scope
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: hivm.hir.vexp ins(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK: scope.return
func.func @scope() {
  scope.scope : () -> () {
    %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<2x15xf16, #hivm.address_space<ub>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
    scope.return
  }
  return
}

// -----

// func.call: the callee's signature and body follow the padded buffer.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%arg0: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.vexp ins(%arg0 : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
// CHECK-LABEL: func.func @caller
// CHECK: {{(func\.)?}}call @callee(%{{.*}}) : (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) -> ()
func.func @callee(%arg0: memref<2x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%arg0 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%arg0 : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}
func.func @caller() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  func.call @callee(%a) : (memref<2x15xf16, #hivm.address_space<ub>>) -> ()
  return
}

// -----

// A user that cannot take the padded layout (an unknown op producing a
// memref from it) is a propagation failure: it reads a dense copy made
// right before it. Nothing is known to write the copy (an unknown op has no
// memory effects), so nothing is copied back (handlePropagateFailure).
// CHECK-LABEL: func.func @mirror
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[M:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[M]] : memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: "some_use"(%[[M]]) : (memref<2x15xf16, #hivm.address_space<ub>>) -> memref<30xf16, #hivm.address_space<ub>>
// CHECK-NEXT: return
func.func @mirror() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %f = "some_use"(%a) : (memref<2x15xf16, #hivm.address_space<ub>>) -> memref<30xf16, #hivm.address_space<ub>>
  return
}

// -----

// Up through memref.reshape (reassociation inferred from the shapes: result
// dims 0 and 1 expand source dim 0), then back down: propagateReshapeOp
// rewrites a reshape whose shapes have a reassociation into an expand_shape
// (a collapse_shape when the rank shrinks) of the padded view, and the vexp
// uses it directly (propagateDefaultOp). No copy.
// CHECK-LABEL: func.func @up_reshape
// CHECK: %[[A:.*]] = memref.alloc() : memref<6x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[V]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 15] : memref<6x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> into memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[E]] : memref<2x3x15xf16, strided<[48, 16, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @up_reshape(%shape: memref<3xindex, #hivm.address_space<ub>>) {
  %a = memref.alloc() : memref<6x15xf16, #hivm.address_space<ub>>
  %r = memref.reshape %a(%shape) : (memref<6x15xf16, #hivm.address_space<ub>>, memref<3xindex, #hivm.address_space<ub>>) -> memref<2x3x15xf16, #hivm.address_space<ub>>
  annotation.mark %r {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x3x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%r : memref<2x3x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x3x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Up through hivm.hir.bitcast (same dims), which follows the new layout.
// CHECK-LABEL: func.func @up_bitcast
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK: hivm.hir.bitcast %{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>> -> memref<2x15xi16, strided<[16, 1]>, #hivm.address_space<ub>>
func.func @up_bitcast() {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %b = hivm.hir.bitcast %a : memref<2x15xf16, #hivm.address_space<ub>> -> memref<2x15xi16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xi16, #hivm.address_space<ub>>
  hivm.hir.vabs ins(%b : memref<2x15xi16, #hivm.address_space<ub>>) outs(%b : memref<2x15xi16, #hivm.address_space<ub>>)
  return
}

// -----

// A buffer returned by scope.scope: the scope result follows the padded
// type.
// CHECK-LABEL: func.func @scope_result
// CHECK: scope.return %{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK: hivm.hir.vexp ins(%{{.*}} : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @scope_result() {
  %r = scope.scope : () -> memref<2x15xf16, #hivm.address_space<ub>> {
    %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    scope.return %a : memref<2x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Membase: a root yielded by a loop body also marks the loop's init
// (processYieldOp). The greedy driver rewrites the body's allocation first
// (it works bottom-up); its padded value reaches the yield, whose loop has
// a plain init, so propagateScfForYieldOp keeps the loop types, yields a
// dense copy, and strips the init's marks: the init is not padded.
// CHECK-LABEL: func.func @yielded_root
// CHECK: %[[I:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[I]]) -> (memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[D]] : memref<2x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: scf.yield %[[D]] : memref<2x15xf16, #hivm.address_space<ub>>
func.func @yielded_root() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a) -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// Writes through the result of an unknown op are not seen (findWriteOp only
// follows view-like ops): the dense copy is not copied back.
// CHECK-LABEL: func.func @mirror_written_later
// CHECK: %[[V:.*]] = memref.subview
// CHECK-NEXT: %[[M:.*]] = memref.alloc() : memref<2x16xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%[[V]] : {{.*}}) outs(%[[M]] : {{.*}})
// CHECK-NEXT: %[[F:.*]] = "some_view"(%[[M]])
// CHECK-NEXT: hivm.hir.vexp ins(%[[F]] : {{.*}}) outs(%[[F]] : {{.*}})
// CHECK-NEXT: return
func.func @mirror_written_later() {
  %a = memref.alloc() : memref<2x16xf32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 96>} : memref<2x16xf32, #hivm.address_space<ub>>
  %f = "some_view"(%a) : (memref<2x16xf32, #hivm.address_space<ub>>) -> memref<32xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%f : memref<32xf32, #hivm.address_space<ub>>) outs(%f : memref<32xf32, #hivm.address_space<ub>>)
  return
}

// -----

// A mark on one branch's buffer reaches the other branch: on membase the
// yield passes it down to the scf.if result (propagateAlignDown for
// scf::YieldOp, which on regbase fails), and from the result it goes up to
// both yielded values. Both branches are padded alike, so
// propagateScfIfOp retypes the result.
// CHECK-LABEL: func.func @if_branches_disagree
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[W:.*]] = memref.subview %[[B]]
// CHECK-NEXT: %[[R:.*]] = scf.if %arg0 -> (memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
// CHECK-NEXT: scf.yield %[[V]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[W]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK: hivm.hir.vexp ins(%[[R]] : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
func.func @if_branches_disagree(%cond: i1) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %r = scf.if %cond -> (memref<2x15xf16, #hivm.address_space<ub>>) {
    scf.yield %a : memref<2x15xf16, #hivm.address_space<ub>>
  } else {
    scf.yield %b : memref<2x15xf16, #hivm.address_space<ub>>
  }
  hivm.hir.vexp ins(%r : memref<2x15xf16, #hivm.address_space<ub>>) outs(%r : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}
