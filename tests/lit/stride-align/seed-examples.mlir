// RUN: tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align -split-input-file %s | FileCheck %s
// The examples of the specification, end to end (mark, then enable).

// memref<3x13xi8, strided<[16, 1]>>: 16-byte rows are not 32-byte aligned;
// the allocation's last dim is padded to 32.
// CHECK-LABEL: func.func @rows_of_13_i8
// CHECK: %[[A:.*]] = memref.alloc() : memref<3x32x1xi8, #hivm.address_space<ub>>
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]][0, 0, 0] [3, 16, 1] [1, 1, 1] : memref<3x32x1xi8, #hivm.address_space<ub>> to memref<3x16xi8, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[S:.*]] = memref.subview %[[V]][0, 0] [3, 13] [1, 1] : memref<3x16xi8, strided<[32, 1]>, #hivm.address_space<ub>> to memref<3x13xi8, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%{{.*}} : memref<3x13xi8, #hivm.address_space<gm>>) outs(%[[S]] : memref<3x13xi8, strided<[32, 1]>, #hivm.address_space<ub>>)
func.func @rows_of_13_i8(%gm: memref<3x13xi8, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<3x16xi8, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [3, 13] [1, 1] : memref<3x16xi8, #hivm.address_space<ub>> to memref<3x13xi8, strided<[16, 1]>, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<3x13xi8, #hivm.address_space<gm>>) outs(%s : memref<3x13xi8, strided<[16, 1]>, #hivm.address_space<ub>>)
  return
}

// -----

// memref<37x5x3xi32> loaded from GM rows of 150 elements (membase): the mark
// lands on dim 1, the allocation becomes 37x5x8, the view strided<[40, 8, 1]>.
// CHECK-LABEL: func.func @seed_membase
// CHECK: memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>
// CHECK: outs(%{{.*}} : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>)
func.func @seed_membase(%gm: memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  return
}

// -----

// The same buffer on Ascend950: strided<[15, 3, 1]> becomes strided<[40, 8, 1]>.
// CHECK-LABEL: func.func @seed_regbase
// CHECK: memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>
// CHECK: outs(%{{.*}} : memref<37x5x3xi32, strided<[40, 8, 1]>, #hivm.address_space<ub>>)
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @seed_regbase(%gm: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
    return
  }
}

// -----

// Operand propagation: A and B are loaded with unaligned rows, C (only
// written by the vadd) gets the same alignment.
// CHECK-LABEL: func.func @vadd_abc
// CHECK-COUNT-3: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
func.func @vadd_abc(%x: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>, %y: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%x : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  hivm.hir.load ins(%y : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%a, %b : memref<2x15xf16, #hivm.address_space<ub>>, memref<2x15xf16, #hivm.address_space<ub>>) outs(%c : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// The rank-reducing store of the specification, memref<3x1x1xi32> viewed as
// memref<1x1xi32>: all-ones operands have no rows, nothing changes.
// CHECK-LABEL: func.func @store_3x1x1
// CHECK: memref.alloc() : memref<3x1x1xi32, #hivm.address_space<ub>>
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @store_3x1x1(%gm: memref<1x1xi32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<3x1x1xi32, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0, 0] [1, 1, 1] [1, 1, 1] : memref<3x1x1xi32, #hivm.address_space<ub>> to memref<1x1xi32, strided<[1, 1]>, #hivm.address_space<ub>>
  hivm.hir.store ins(%s : memref<1x1xi32, strided<[1, 1]>, #hivm.address_space<ub>>) outs(%gm : memref<1x1xi32, #hivm.address_space<gm>>)
  return
}
