// RUN: not tilemem opt -q -hivm-enable-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s
// RUN: not tilemem opt -q -hivm-enable-stride-align -split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=OUT
// The padded allocation %a (dim 0 aligned to 32 bytes: 2x55 -> 2x64x1)
// reaches ops that require several values to share one type. Where a
// view of it cannot take the padded layout, handlePropagateFailure feeds
// the op a dense copy (memref.alloc without layout) in place of the
// strided view, changing one operand only; where the op takes the padded
// view directly (scf.condition, through propagateDefaultOp), the same
// happens with the padded type. MLIR's verifier rejects such a module
// after the pass; here the pass fails at the op and prints nothing for
// that function, never a module that does not read back.

// CHECK: enable-ill-typed.mlir:[[@LINE+7]]:3: error: stride alignment would leave 'scf.while' ill-typed (init and 'before' argument #0: memref<2x11xf16, #hivm.address_space<ub>> vs memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>)
func.func @while_init(%c: i1) {
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.while (%w = %v) : (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.condition(%c) %w : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  } do {
  ^bb0(%x: memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>):
    scf.yield %x : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}

// -----

// CHECK: enable-ill-typed.mlir:[[@LINE+7]]:3: error: stride alignment would leave 'scf.while' ill-typed ('after' yield and 'before' argument #0: memref<2x11xf16, #hivm.address_space<ub>> vs
func.func @while_yield(%c: i1) {
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.while (%w = %u) : (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.condition(%c) %w : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  } do {
  ^bb0(%x: memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>):
    scf.yield %v : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}

// -----

// CHECK: enable-ill-typed.mlir:[[@LINE+7]]:3: error: stride alignment would leave 'scf.while' ill-typed (scf.condition and 'after' argument #0: memref<2x11xf16, strided<[64, 1], offset: 21>, #hivm.address_space<ub>> vs
func.func @while_condition(%c: i1) {
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.while (%w = %u) : (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.condition(%c) %v : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  } do {
  ^bb0(%x: memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>):
    scf.yield %x : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}

// -----

// A yield of the padded view into a loop whose init is another buffer:
// the yield takes a dense copy (propagateForOp's plain-init rule), whose
// type is not the strided iter_arg's.
// CHECK: enable-ill-typed.mlir:[[@LINE+9]]:3: error: stride alignment would leave 'scf.for' ill-typed (yield and iter_arg #0: memref<2x11xf16, #hivm.address_space<ub>> vs
func.func @for_yield(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %u) -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.yield %v : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}

// -----

// CHECK: enable-ill-typed.mlir:[[@LINE+7]]:3: error: stride alignment would leave 'arith.select' ill-typed (true value and result: memref<2x11xf16, #hivm.address_space<ub>> vs
func.func @select(%c: i1) {
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %s = arith.select %c, %v, %u : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) outs(%s : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>)
  return
}

// -----

// The same views through ops that carry the padded type whole: no error.
// CHECK-NOT: error
// OUT-NOT: @while_
// OUT-NOT: @for_yield
// OUT-NOT: @select
// OUT: func.func @if_yield
// OUT: scf.if %arg0 -> (memref<2x11xf16, strided<[64, 1], offset: 21>, #hivm.address_space<ub>>)
func.func @if_yield(%c: i1) {
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.if %c -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.yield %v : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  } else {
    scf.yield %u : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}

// -----

// OUT: func.func @for_init
// OUT: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (memref<2x11xf16, strided<[64, 1], offset: 21>, #hivm.address_space<ub>>)
func.func @for_init(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x55xf16, #hivm.address_space<ub>>
  %v = memref.subview %a[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x55xf16, #hivm.address_space<ub>>
  %u = memref.subview %b[0, 21] [2, 11] [1, 1] : memref<2x55xf16, #hivm.address_space<ub>> to memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %v) -> (memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>) {
    scf.yield %x : memref<2x11xf16, strided<[55, 1], offset: 21>, #hivm.address_space<ub>>
  }
  return
}
