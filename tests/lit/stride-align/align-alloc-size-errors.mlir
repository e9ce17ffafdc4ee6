// RUN: not tilemem opt -hivm-align-alloc-size %s 2>&1 | FileCheck %s
// getUnAlignSizeInfo(VTransposeOp) fails for a B32 transpose over more
// than two dims none of which is a multiple of two blocks ("For B32, do
// transpose decompose first"): markAllocAlign interrupts the walk and the
// pass fails. The C++ reports nothing; tilemem names the op, why and what
// to change, and exits 2 (bad input).

func.func @transpose_b32_three_dims() {
  %a = memref.alloc() : memref<8x8x8xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<8x8x8xf32, #hivm.address_space<ub>>
  // CHECK: align-alloc-size-errors.mlir:[[@LINE+1]]:3: error: cannot align the allocation sizes this op needs: a transpose of 32-bit elements over more than two dims, none of them already a multiple of two blocks, has no size rule; decompose it into transposes of two dims first
  hivm.hir.vtranspose ins(%a : memref<8x8x8xf32, #hivm.address_space<ub>>) outs(%b : memref<8x8x8xf32, #hivm.address_space<ub>>) permutation = [1, 2, 0]
  return
}
