// RUN: not tilemem opt -hivm-enable-stride-align %s 2>&1 | FileCheck %s
// Ten links need eleven rounds: more than the limit of ten.
// CHECK: error: propagate storage align failure and match the max iterations10

func.func @ten_links() {
  %a0 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s0 = memref.subview %a0[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a1 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s1 = memref.subview %a1[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a2 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s2 = memref.subview %a2[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a3 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s3 = memref.subview %a3[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a4 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s4 = memref.subview %a4[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a5 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s5 = memref.subview %a5[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a6 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s6 = memref.subview %a6[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a7 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s7 = memref.subview %a7[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a8 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s8 = memref.subview %a8[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a9 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s9 = memref.subview %a9[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  %a10 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  %s10 = memref.subview %a10[0, 0] [2, 15] [1, 1] : memref<2x15xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>
  annotation.mark %a0 {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a0 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s1 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a1 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s2 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a2 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s3 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a3 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s4 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a4 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s5 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a5 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s6 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a6 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s7 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a7 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s8 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a8 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s9 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a9 : memref<2x15xf16, #hivm.address_space<ub>>) outs(%s10 : memref<2x15xf16, strided<[15, 1]>, #hivm.address_space<ub>>)
  return
}
