// RUN: tilemem opt -hivm-pre-mark-stride-align -split-input-file %s | FileCheck %s
// RUN: tilemem opt -hivm-pre-mark-stride-align -hivm-mark-stride-align -split-input-file %s | FileCheck %s --check-prefix=MARK

// A loaded buffer read by vector.transfer_read in a vector function must stay
// contiguous: its root alloc is marked to be skipped, and the mark pass then
// leaves the load alone.
// CHECK-LABEL: func.func @kernel
// CHECK: %[[A:.*]] = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<37x5x3xi32, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview
// MARK-LABEL: func.func @kernel
// MARK-NOT: hivm.stride_align_dims
// MARK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf(%arg0: memref<5x3xi32, strided<[3, 1]>, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %0 = vector.transfer_read %arg0[%c0, %c0], %c0_i32 : memref<5x3xi32, strided<[3, 1]>, #hivm.address_space<ub>>, vector<5x3xi32>
    return
  }
  func.func @kernel(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    %s = memref.subview %a[0, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, #hivm.address_space<ub>> to memref<5x3xi32, strided<[3, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    func.call @vf(%s) : (memref<5x3xi32, strided<[3, 1]>, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// A callee known only by its declaration cannot be looked into: no skip
// mark, and the load is marked as usual.
// CHECK-LABEL: func.func @kernel_decl
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
// MARK-LABEL: func.func @kernel_decl
// MARK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func private @vf_decl(memref<37x5x3xi32, #hivm.address_space<ub>>) attributes {hivm.vector_function}
  func.func @kernel_decl(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    func.call @vf_decl(%a) : (memref<37x5x3xi32, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// A vector function that only stores to the buffer does not need it
// contiguous for loads.
// CHECK-LABEL: func.func @kernel_store
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf_store(%arg0: memref<37x5x3xi32, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant dense<0> : vector<3xi32>
    vector.transfer_write %cst, %arg0[%c0, %c0, %c0] : vector<3xi32>, memref<37x5x3xi32, #hivm.address_space<ub>>
    return
  }
  func.func @kernel_store(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    func.call @vf_store(%a) : (memref<37x5x3xi32, #hivm.address_space<ub>>) -> ()
    return
  }
}

// -----

// Membase targets have no vector-function loads to protect: nothing happens.
// CHECK-LABEL: func.func @kernel_membase
// CHECK-NOT: hivm.skip_stride_align_for_vload
// CHECK: return
func.func @vf_mb(%arg0: memref<37x5x3xi32, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %0 = vector.transfer_read %arg0[%c0, %c0, %c0], %c0_i32 : memref<37x5x3xi32, #hivm.address_space<ub>>, vector<3xi32>
  return
}
func.func @kernel_membase(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  func.call @vf_mb(%a) : (memref<37x5x3xi32, #hivm.address_space<ub>>) -> ()
  return
}
