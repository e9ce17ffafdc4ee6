// RUN: tilemem opt -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// Regbase: local buffers passed to vector functions are marked like
// structured-op operands (on Ascend950 only i1 buffers), and stores that
// become vsstb ask for strides of 512*N + 32 bytes.

// Ascend310B: an unmarked UB argument gets its last contiguous dim marked.
// CHECK-LABEL: func.func @caller_310b
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend310B4">} {
  func.func @vf(%arg0: memref<4x15xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    return
  }
  func.func @caller_310b() {
    %a = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    func.call @vf(%a) : (memref<4x15xf32, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// Ascend950: only i1 buffers are marked at calls.
// CHECK-LABEL: func.func @caller_950
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4x15xi1, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[B]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>}
// CHECK-NEXT: {{(func\.)?}}call @vf2
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf2(%arg0: memref<4x15xf32, #hivm.address_space<ub>>, %arg1: memref<4x15xi1, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    return
  }
  func.func @caller_950() {
    %a = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<4x15xi1, #hivm.address_space<ub>>
    func.call @vf2(%a, %b) : (memref<4x15xf32, #hivm.address_space<ub>>, memref<4x15xi1, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// vsstb: the callee stores the argument in a loop unrolled for vsstb; the
// second-to-last dim gets (lcm(64, 16) + 1) * 2 = 130 bytes.
// CHECK-LABEL: func.func @caller_vsstb
// CHECK: %[[A:.*]] = memref.alloc() : memref<8x64x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 130>}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_vsstb(%arg0: memref<8x64x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cst = arith.constant dense<0.000000e+00> : vector<16xf16>
    scf.for %i = %c0 to %c64 step %c1 {
      vector.transfer_write %cst, %arg0[%c0, %i, %c0] : vector<16xf16>, memref<8x64x16xf16, #hivm.address_space<ub>>
    } {unroll_for_vsstb}
    return
  }
  func.func @caller_vsstb() {
    %a = memref.alloc() : memref<8x64x16xf16, #hivm.address_space<ub>>
    func.call @vf_vsstb(%a) : (memref<8x64x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// A buffer that is collapsed elsewhere is not given vsstb padding.
// CHECK-LABEL: func.func @caller_vsstb_collapsed
// CHECK-NOT: hivm.stride_align_dims
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_vsstb2(%arg0: memref<8x64x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cst = arith.constant dense<0.000000e+00> : vector<16xf16>
    scf.for %i = %c0 to %c64 step %c1 {
      vector.transfer_write %cst, %arg0[%c0, %i, %c0] : vector<16xf16>, memref<8x64x16xf16, #hivm.address_space<ub>>
    } {unroll_for_vsstb}
    return
  }
  func.func @caller_vsstb_collapsed() {
    %a = memref.alloc() : memref<8x64x16xf16, #hivm.address_space<ub>>
    %c = memref.collapse_shape %a [[0, 1], [2]] : memref<8x64x16xf16, #hivm.address_space<ub>> into memref<512x16xf16, #hivm.address_space<ub>>
    func.call @vf_vsstb2(%a) : (memref<8x64x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}
