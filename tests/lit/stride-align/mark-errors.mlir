// RUN: not tilemem opt -hivm-mark-stride-align -split-input-file %s 2>&1 | FileCheck %s
// Diagnostics of the mark pass carry the location of the offending op.

// MarkStrideAlign.cpp runOnOperation: an op without pure buffer semantics
// (hasPureBufferSemantics) is the error `Not bufferized.`.
func.func @tensor_operand(%t: tensor<4x16xf16>) {
  %c = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  // CHECK: mark-errors.mlir:[[@LINE+1]]:3: error: Not bufferized.
  hivm.hir.vexp ins(%t : tensor<4x16xf16>) outs(%c : memref<4x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// markAlignedDim: a layout that is neither the identity nor strided.
func.func @not_strided(%a: memref<4x16xf16, affine_map<(d0, d1) -> (d1, d0)>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x16xf16, #hivm.address_space<ub>>
  // CHECK: mark-errors.mlir:[[@LINE+1]]:3: error: Non-strided-memref not supported.
  hivm.hir.vexp ins(%a : memref<4x16xf16, affine_map<(d0, d1) -> (d1, d0)>, #hivm.address_space<ub>>) outs(%c : memref<4x16xf16, #hivm.address_space<ub>>)
  return
}

// -----

// markAlignedDim: a dim past the operand's rank (a custom op's align_dim).
func.func @align_dim_too_large(%a: memref<4x15xf16, #hivm.address_space<ub>>) {
  // CHECK: mark-errors.mlir:[[@LINE+1]]:3: error: align dim is too large.
  hivm.hir.custom {arg_attrs = [{align_dim = 2 : i64}]} ins(%a : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
