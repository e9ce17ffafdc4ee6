// RUN: not tilemem opt %s 2>&1 | FileCheck %s
// Per-operand dictionaries belong to the inputs of the custom ops only.

func.func @outs_dict(%arg0: memref<16xf32>) {
  // CHECK: hivm-custom-errors.mlir:[[@LINE+1]]:75: error: per-operand attributes are only allowed in ins(...) of hivm.hir.custom/custom_macro
  hivm.hir.custom {symbol = "k"} "user.x" ins(%arg0 : memref<16xf32>) outs(%arg0 : memref<16xf32> {inplace_outs = 0 : i32})
  return
}
