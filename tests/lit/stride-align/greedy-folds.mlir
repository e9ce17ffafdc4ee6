// RUN: tilemem opt -hivm-enable-stride-align -split-input-file %s | FileCheck %s
// RUN: tilemem opt -hivm-enable-stride-align -split-input-file %s | tilemem opt -hivm-enable-stride-align -split-input-file - | FileCheck %s
// The folds MLIR's greedy driver applies while EnableStrideAlign.cpp runs
// its pattern sets (applyPatternsGreedily on every func.func), one chunk
// per op folder. They decide which casts a propagation meets afterwards.

// memref::CopyOp::fold folds only the casts canFoldIntoConsumerOp allows
// (the cast relaxes the type: static -> dynamic); memref::LoadOp::fold and
// StoreOp::fold use foldMemRefCast, which folds any cast of a ranked
// memref. The unused allocation is erased (isOpTriviallyDead).
// CHECK-LABEL: func.func @copy_load_store_casts
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[T:.*]] = memref.cast %arg0 : memref<?x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.copy %[[A]], %[[T]] : memref<4x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[L:.*]] = memref.load %arg0[%[[C0]], %[[C0]]] : memref<?x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: memref.store %[[L]], %[[A]][%[[C0]], %[[C0]]] : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: return
func.func @copy_load_store_casts(%d: memref<?x16xf16, #hivm.address_space<ub>>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  %relax = memref.cast %a : memref<4x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
  %tight = memref.cast %d : memref<?x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, #hivm.address_space<ub>>
  memref.copy %relax, %tight : memref<?x16xf16, #hivm.address_space<ub>> to memref<4x16xf16, #hivm.address_space<ub>>
  %l = memref.load %tight[%c0, %c0] : memref<4x16xf16, #hivm.address_space<ub>>
  memref.store %l, %relax[%c0, %c0] : memref<?x16xf16, #hivm.address_space<ub>>
  return
}

// -----

// vector::TransferReadOp::fold, foldTransferInBoundsAttribute: a dim whose
// index is a constant c with c + vector size <= the static source size
// becomes in bounds (8 + 8 <= 16); 9 + 8 > 16 and a non-constant index
// stay as they are.
// CHECK-LABEL: func.func @transfer_in_bounds
// CHECK: vector.transfer_read %arg0[%arg1, %c8], %cst {in_bounds = [true]}
// CHECK-NEXT: vector.transfer_read %arg0[%c0, %c9], %cst :
// CHECK-NEXT: vector.transfer_read %arg0[%c0, %arg1], %cst :
func.func @transfer_in_bounds(%m: memref<4x16xf16, #hivm.address_space<ub>>, %i: index) -> (vector<8xf16>, vector<8xf16>, vector<16xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %p = arith.constant 0.0 : f16
  %a = vector.transfer_read %m[%i, %c8], %p : memref<4x16xf16, #hivm.address_space<ub>>, vector<8xf16>
  %b = vector.transfer_read %m[%c0, %c9], %p : memref<4x16xf16, #hivm.address_space<ub>>, vector<8xf16>
  %c = vector.transfer_read %m[%c0, %i], %p : memref<4x16xf16, #hivm.address_space<ub>>, vector<16xf16>
  return %a, %b, %c : vector<8xf16>, vector<8xf16>, vector<16xf16>
}

// -----

// HIVMVectorOps.td's vectorOpBaseDecls: every HIVM vector op folds the
// memref.cast operands it reads or writes (foldMemRefCast), so the vexp
// uses the allocations directly and the casts die.
// CHECK-LABEL: func.func @hivm_vector_op_casts
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[A]] : memref<4x16xf16, #hivm.address_space<ub>>) outs(%[[B]] : memref<4x16xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @hivm_vector_op_casts() {
  %a = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  %ca = memref.cast %a : memref<4x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
  %cb = memref.cast %b : memref<4x16xf16, #hivm.address_space<ub>> to memref<?x16xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%ca : memref<?x16xf16, #hivm.address_space<ub>>) outs(%cb : memref<?x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// isOpTriviallyDead for an HIVM structured op: its effects come from
// HIVMStructuredOpInterface (getEffectsImpl: reads of memref inputs,
// writes of memref inits, none for tensors). An unused vexp or load on
// tensors is erased, and the tensor.empty the vexp used after it; a vexp
// writing a memref stays.
// CHECK-LABEL: func.func @dead_tensor_vexp
// CHECK-NEXT: hivm.hir.vexp ins(%arg1 : memref<4x16xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<4x16xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
func.func @dead_tensor_vexp(%t: tensor<4x16xf16>, %m: memref<4x16xf16, #hivm.address_space<ub>>) {
  %e = tensor.empty() : tensor<4x16xf16>
  %r = hivm.hir.vexp ins(%t : tensor<4x16xf16>) outs(%e : tensor<4x16xf16>) -> tensor<4x16xf16>
  %l = hivm.hir.load ins(%m : memref<4x16xf16, #hivm.address_space<ub>>) outs(%t : tensor<4x16xf16>) -> tensor<4x16xf16>
  hivm.hir.vexp ins(%m : memref<4x16xf16, #hivm.address_space<ub>>) outs(%m : memref<4x16xf16, #hivm.address_space<ub>>)
  return
}
