// RUN: tilemem opt -hivm-pre-mark-stride-align -split-input-file %s | FileCheck %s
// Rules of PreMarkStrideAlign.cpp, one chunk each.

// isArgUsedByVLoad: the callee reads its argument through a memref.subview
// with vector.transfer_read: the loaded buffer's root is marked, right
// after the allocation and before the marks already on it.
// CHECK-LABEL: func.func @through_callee_subview
// CHECK: %[[A:.*]] = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload}
// CHECK-NEXT: annotation.mark %[[A]] {buffer_size_in_byte = 256 : i64}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_sub(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %s = memref.subview %arg0[0, 0] [4, 16] [1, 1] : memref<8x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    %v = vector.transfer_read %s[%c0, %c0], %pad : memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @through_callee_subview(%gm: memref<8x16xf16, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    annotation.mark %a {buffer_size_in_byte = 256 : i64} : memref<8x16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%a : memref<8x16xf16, #hivm.address_space<ub>>)
    func.call @vf_sub(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// flowsToVLoadInVF: on the caller's side, a memref.cast passes the loaded
// buffer on to the call.
// CHECK-LABEL: func.func @caller_cast
// CHECK: %[[A:.*]] = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_dyn(%arg0: memref<?x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %arg0[%c0, %c0], %pad : memref<?x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @caller_cast(%gm: memref<8x16xf16, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%a : memref<8x16xf16, #hivm.address_space<ub>>)
    %c = memref.cast %a : memref<8x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
    func.call @vf_dyn(%c) : (memref<?x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// The search goes forward from the load's destination only: a load into a
// subview whose *root* is later passed to the callee is not marked, while
// a load whose destination view itself is passed is marked on its root.
// CHECK-LABEL: func.func @forward_only
// CHECK: %[[A:.*]] = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[B]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf4(%arg0: memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %arg0[%c0, %c0], %pad : memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @vf8(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %arg0[%c0, %c0], %pad : memref<8x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @forward_only(%gm: memref<4x16xf16, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    %sa = memref.subview %a[0, 0] [4, 16] [1, 1] : memref<8x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    %sb = memref.subview %b[0, 0] [4, 16] [1, 1] : memref<8x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<4x16xf16, #hivm.address_space<gm>>) outs(%sa : memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
    hivm.hir.load ins(%gm : memref<4x16xf16, #hivm.address_space<gm>>) outs(%sb : memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
    func.call @vf8(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    func.call @vf4(%sb) : (memref<4x16xf16, strided<[16, 1]>, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// Only vector.transfer_read inside a callee counts: a transfer_read in the
// loading function itself, a callee that only stores to the argument, a
// callee that reaches the read through a memref.cast, and a callee that
// passes the argument on to another call are all not marked.
// CHECK-LABEL: func.func @not_counted
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_load(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %z = arith.constant dense<0.0> : vector<4x16xf16>
    vector.transfer_write %z, %arg0[%c0, %c0] : vector<4x16xf16>, memref<8x16xf16, #hivm.address_space<ub>>
    return
  }
  func.func @vf_cast(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %c = memref.cast %arg0 : memref<8x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
    %v = vector.transfer_read %c[%c0, %c0], %pad : memref<?x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @vf_inner(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %arg0[%c0, %c0], %pad : memref<8x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @vf_outer(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    func.call @vf_inner(%arg0) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
  func.func @not_counted(%gm: memref<8x16xf16, #hivm.address_space<gm>>) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %a = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%a : memref<8x16xf16, #hivm.address_space<ub>>)
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<8x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    func.call @vf_load(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    func.call @vf_cast(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    func.call @vf_outer(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// A root that is not an allocation (a function argument) is not marked;
// a second load into an already marked root adds no second mark.
// CHECK-LABEL: func.func @roots
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK-NEXT: annotation.mark %[[A]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<8x16xf16, #hivm.address_space<ub>>
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf(%arg0: memref<8x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %arg0[%c0, %c0], %pad : memref<8x16xf16, #hivm.address_space<ub>>, vector<4x16xf16>
    return
  }
  func.func @roots(%gm: memref<8x16xf16, #hivm.address_space<gm>>, %ub: memref<8x16xf16, #hivm.address_space<ub>>) {
    %a = memref.alloc() : memref<8x16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%a : memref<8x16xf16, #hivm.address_space<ub>>)
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%a : memref<8x16xf16, #hivm.address_space<ub>>)
    hivm.hir.load ins(%gm : memref<8x16xf16, #hivm.address_space<gm>>) outs(%ub : memref<8x16xf16, #hivm.address_space<ub>>)
    func.call @vf(%a) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    func.call @vf(%ub) : (memref<8x16xf16, #hivm.address_space<ub>>) -> ()
    return
  }
}
