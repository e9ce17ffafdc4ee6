// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Reading and printing without passes gives mlir-opt's canonical form:
// an explicit module, mlir-opt's SSA names, sorted attribute dictionaries,
// typed integer attributes, and implicit terminators left out.

// CHECK-LABEL: module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
  // CHECK: func.func @kernel(%arg0: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %arg1: index) attributes {hacc.entry, hivm.func_core_type = #hivm.func_core_type<AIV>} {
  func.func @kernel(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hacc.entry} {
    // CHECK-NEXT: %c0 = arith.constant 0 : index
    // CHECK-NEXT: %c16 = arith.constant 16 : index
    // CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
    // CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f16
    // CHECK-NEXT: %true = arith.constant true
    %zero = arith.constant 0 : index
    %sixteen = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %f = arith.constant 0.0 : f16
    %t = arith.constant true
    // CHECK-NEXT: %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x15xf16, #hivm.address_space<ub>>
    %buf = memref.alloc() {alignment = 64} : memref<2x15xf16, #hivm.address_space<ub>>
    // CHECK-NEXT: hivm.hir.load ins(%arg0 : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%alloc : memref<2x15xf16, #hivm.address_space<ub>>)
    hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%buf : memref<2x15xf16, #hivm.address_space<ub>>)
    // CHECK-NEXT: %subview = memref.subview %alloc[0, 0] [2, %arg1] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
    %sv = memref.subview %buf[0, 0] [2, %n] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
    // CHECK-NEXT: annotation.mark %subview {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
    annotation.mark %sv {hivm.stride_align_value_in_byte = array<i32: 32>, hivm.stride_align_dims = array<i32: 0>} : memref<2x?xf16, strided<[15, 1]>, #hivm.address_space<ub>>
    // CHECK-NEXT: scf.for %arg2 = %c0 to %c16 step %c16 {
    // CHECK-NEXT:   %alloc_0 = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    // CHECK-NEXT:   hivm.hir.vbrc ins(%cst : f16) outs(%alloc_0 : memref<16xf16, #hivm.address_space<ub>>)
    // CHECK-NEXT: }
    scf.for %i = %zero to %sixteen step %sixteen {
      %tmp = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
      hivm.hir.vbrc ins(%f : f16) outs(%tmp : memref<16xf16, #hivm.address_space<ub>>)
    }
    // CHECK-NEXT: %0 = scf.if %true -> (index) {
    // CHECK-NEXT:   scf.yield %c0 : index
    // CHECK-NEXT: } else {
    // CHECK-NEXT:   scf.yield %c16 : index
    // CHECK-NEXT: }
    %r = scf.if %t -> (index) {
      scf.yield %zero : index
    } else {
      scf.yield %sixteen : index
    }
    // CHECK-NEXT: %collapse_shape = memref.collapse_shape %alloc {{\[\[}}0, 1]] : memref<2x15xf16, #hivm.address_space<ub>> into memref<30xf16, #hivm.address_space<ub>>
    %c = memref.collapse_shape %buf [[0, 1]] : memref<2x15xf16, #hivm.address_space<ub>> into memref<30xf16, #hivm.address_space<ub>>
    // CHECK-NEXT: %expand_shape = memref.expand_shape %collapse_shape {{\[\[}}0, 1]] output_shape [2, 15] : memref<30xf16, #hivm.address_space<ub>> into memref<2x15xf16, #hivm.address_space<ub>>
    %e = memref.expand_shape %c [[0, 1]] output_shape [2, 15] : memref<30xf16, #hivm.address_space<ub>> into memref<2x15xf16, #hivm.address_space<ub>>
    // CHECK-NEXT: call @vf(%expand_shape) : (memref<2x15xf16, #hivm.address_space<ub>>) -> ()
    func.call @vf(%e) : (memref<2x15xf16, #hivm.address_space<ub>>) -> ()
    // CHECK-NEXT: return
    return
  }
  // CHECK: func.func private @vf(memref<2x15xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function}
  func.func private @vf(memref<2x15xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function}
}
