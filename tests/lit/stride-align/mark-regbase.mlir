// RUN: tilemem opt -hivm-mark-stride-align -split-input-file %s | FileCheck %s
// Regbase (Ascend950 / 910_95 / 310B): operands are taken as flattened and
// only UB types are looked at.

// The seed's example: a 37x5x3xi32 UB buffer loaded by DMA. Its dim-0 stride
// (15 x 4 bytes) is not 32-byte aligned, so the rows of the last dim (dim 2)
// must be padded.
// CHECK-LABEL: func.func @seed_example
// CHECK: %[[A:.*]] = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[A]] {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<37x5x3xi32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @seed_example(%gm: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// UB DMA exemption: a 2-D buffer whose last dim equals its row stride has no
// tail jump, the DMA handles it as is.
// CHECK-LABEL: func.func @dma_no_tail_jump
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @dma_no_tail_jump(%gm: memref<3x741xf32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<3x741xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<3x741xf32, #hivm.address_space<gm>>) outs(%a : memref<3x741xf32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// UB DMA with padded rows already: exempt.
// CHECK-LABEL: func.func @dma_rows_aligned
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @dma_rows_aligned(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>, %a: memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>) {
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Vector ops have no DMA exemption: every UB operand's last non-unit dim.
// CHECK-LABEL: func.func @vadd
// CHECK-COUNT-3: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf32, #hivm.address_space<ub>>
// CHECK: hivm.hir.vadd
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vadd() {
    %a = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    hivm.hir.vadd ins(%a, %b : memref<4x15xf32, #hivm.address_space<ub>>, memref<4x15xf32, #hivm.address_space<ub>>) outs(%c : memref<4x15xf32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Ascend310B is regbase too.
// CHECK-LABEL: func.func @ascend310b
// CHECK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend310B4">} {
  func.func @ascend310b(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Rank-1 buffers have no discontinuous dim.
// CHECK-LABEL: func.func @rank1
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @rank1() {
    %a = memref.alloc() : memref<15xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<15xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<15xf32, #hivm.address_space<ub>>) outs(%c : memref<15xf32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Reductions with index are skipped on regbase.
// CHECK-LABEL: func.func @reduce_with_index
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @reduce_with_index() {
    %a = memref.alloc() : memref<4x15xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<4x1xf32, #hivm.address_space<ub>>
    %i = memref.alloc() : memref<4x1xi32, #hivm.address_space<ub>>
    hivm.hir.vreduce <max_with_index> ins(%a : memref<4x15xf32, #hivm.address_space<ub>>) outs(%c, %i : memref<4x1xf32, #hivm.address_space<ub>>, memref<4x1xi32, #hivm.address_space<ub>>) reduce_dims = [1]
    return
  }
}

// -----

// A transpose that moves the last dim is left to hivm-align-alloc-size.
// CHECK-LABEL: func.func @last_dim_transpose
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @last_dim_transpose() {
    %a = memref.alloc() : memref<16x15xf16, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<15x16xf16, #hivm.address_space<ub>>
    hivm.hir.vtranspose ins(%a : memref<16x15xf16, #hivm.address_space<ub>>) outs(%c : memref<15x16xf16, #hivm.address_space<ub>>) permutation = [1, 0]
    return
  }
}

// -----

// Ascend910_95 chips are Ascend950s (NPUTargetSpec.td: Ascend950_BaseSpec),
// so regbase as well.
// CHECK-LABEL: func.func @ascend910_95
// CHECK: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>}
module attributes {hacc.target = #hacc.target<"Ascend910_9589">} {
  func.func @ascend910_95(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Ascend910B is membase: the same dense load needs nothing.
// CHECK-LABEL: func.func @ascend910b
// CHECK-NOT: annotation.mark
// CHECK: return
module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
  func.func @ascend910b(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    return
  }
}
