// Two UB buffers whose rows are not 32-byte aligned, loaded from GM.
// Try: tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align examples/mlir/unaligned_rows.mlir
func.func @rows_of_13_i8(%gm: memref<3x13xi8, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<3x16xi8, #hivm.address_space<ub>>
  %s = memref.subview %a[0, 0] [3, 13] [1, 1] : memref<3x16xi8, #hivm.address_space<ub>> to memref<3x13xi8, strided<[16, 1]>, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<3x13xi8, #hivm.address_space<gm>>) outs(%s : memref<3x13xi8, strided<[16, 1]>, #hivm.address_space<ub>>)
  return
}

func.func @rows_of_3_i32(%gm: memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[150, 30, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, #hivm.address_space<ub>>)
  return
}
