// RUN: not tilemem opt -hivm-align-alloc-size %s 2>&1 | FileCheck %s
// getHWAlignBytes(AddressSpaceAttr) knows only UB and L1; for any other
// HIVM space the C++ aborts ("Unsupported address space"). tilemem fails
// the pass at the op (bad input, exit 2) instead of padding with another
// space's alignment.

func.func @transpose_gm(%a: memref<8x8xf16, #hivm.address_space<gm>>, %b: memref<8x8xf16, #hivm.address_space<gm>>) {
  // CHECK: unaligned-size-space-error.mlir:[[@LINE+1]]:3: error: cannot align the allocation sizes this op needs: an operand is in `gm`, and only `ub` and `cbuf` have a hardware block to pad to; give the op's operands an on-chip buffer space
  hivm.hir.vtranspose ins(%a : memref<8x8xf16, #hivm.address_space<gm>>) outs(%b : memref<8x8xf16, #hivm.address_space<gm>>) permutation = [1, 0]
  return
}
