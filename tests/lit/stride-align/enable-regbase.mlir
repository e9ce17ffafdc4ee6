// RUN: tilemem opt -hivm-enable-stride-align -split-input-file %s | FileCheck %s
// RUN: tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align -split-input-file %s | FileCheck %s --check-prefix=PIPE
// Regbase (Ascend950): a mark on dim d pads dim d itself; no
// hivm.storage_aligned. Vector-function callees follow the new type.

// The seed's regbase example: 37x5x3xi32 rows padded to 8 elements, the view
// becomes strided<[40, 8, 1]>, and the VF callee's signature and its
// subviews follow. (The callee stores what it loads: an unused load is
// trivially dead, and the greedy drivers run on the callee too.)
// CHECK-LABEL: func.func @vf
// CHECK-SAME: (%arg0: memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>, %arg1: index)
// CHECK: memref.subview %arg0[%arg1, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>> to memref<5x3xi32, strided<[8, 1], offset: ?>, #hivm.address_space<ub>>
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: hivm.storage_aligned
// CHECK: %[[A:.*]] = memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0, 0] [37, 5, 3, 1] [1, 1, 1, 1] : memref<37x5x8x1xi32, #hivm.address_space<ub>> to memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%{{.*}} : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%[[V]] : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: {{(func\.)?}}call @vf(%[[V]], %{{.*}}) : (memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>, index) -> ()
// PIPE-LABEL: func.func @kernel
// PIPE: memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>
// PIPE-NOT: annotation.mark
// PIPE: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf(%arg0: memref<37x5x3xi32, #hivm.address_space<ub>>, %i: index) attributes {hivm.vector_function} {
    %s = memref.subview %arg0[%i, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, #hivm.address_space<ub>> to memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    %v = memref.load %s[%i, %i] : memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    memref.store %v, %s[%i, %i] : memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    return
  }
  func.func @kernel(%gm: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>, %i: index) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    func.call @vf(%a, %i) : (memref<37x5x3xi32, #hivm.address_space<ub>>, index) -> ()
    return
  }
}

// -----

// 3x741xf32 marked on its last dim: rows of 744.
// CHECK-LABEL: func.func @rows_744
// CHECK: memref.alloc() : memref<3x744x1xf32, #hivm.address_space<ub>>
// CHECK: to memref<3x741xf32, strided<[744, 1]>, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @rows_744() {
    %a = memref.alloc() : memref<3x741xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<3x741xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<3x741xf32, #hivm.address_space<ub>>) outs(%a : memref<3x741xf32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// vsstb: 130 bytes on dim 1 of 8x64x16xf16 => 65 rows, stride 1040 elements
// (2080 bytes = 4 * 512 + 32).
// CHECK-LABEL: func.func @vsstb
// CHECK: memref.alloc() : memref<8x65x16x1xf16, #hivm.address_space<ub>>
// CHECK: to memref<8x64x16xf16, strided<[1040, 16, 1]>, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vsstb() {
    %a = memref.alloc() : memref<8x64x16xf16, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 130>} : memref<8x64x16xf16, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<8x64x16xf16, #hivm.address_space<ub>>) outs(%a : memref<8x64x16xf16, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Dim 0 is never padded on regbase.
// CHECK-LABEL: func.func @dim0
// CHECK: memref.alloc() : memref<3x5xf32, #hivm.address_space<ub>>
// CHECK-NOT: memref.subview
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @dim0() {
    %a = memref.alloc() : memref<3x5xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<3x5xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<3x5xf32, #hivm.address_space<ub>>) outs(%a : memref<3x5xf32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// AIC -> AIV (Ascend950 with a Fixpipe): the AIV side of a tightly coupled
// buffer is padded like the AIC side.
// CHECK-LABEL: func.func @aic
// CHECK: memref.alloc() : memref<16x32x1xf32, #hivm.address_space<ub>>
// CHECK-LABEL: func.func @aiv
// CHECK: memref.alloc() : memref<16x32x1xf32, #hivm.address_space<ub>>
// CHECK-LABEL: func.func @aiv_other
// CHECK: memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @aic(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }
  func.func @aiv() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
    return
  }
  func.func @aiv_other() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<2>} : memref<16x30xf32, #hivm.address_space<ub>>
    return
  }
}
