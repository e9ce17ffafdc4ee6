// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=OUT
// `hivm.hir.vfoo` is not an hivm op: MLIR reads it only with
// -allow-unregistered-dialect (and prints it in generic form).

// Membase cannot flatten an HIVM structured op it does not know.
func.func @unknown_op(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  // CHECK: mark-warnings.mlir:[[@LINE+1]]:3: error: unsupport flatten op
  hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
// OUT-LABEL: func.func @unknown_op
// OUT-NOT: annotation.mark
// OUT: return

// -----

// Regbase takes operands as flattened: the unknown op is analysed like a
// vector op, without an error.
// CHECK-NOT: error
// OUT-LABEL: func.func @unknown_op_regbase
// OUT: annotation.mark %{{.*}} {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @unknown_op_regbase(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
    %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
}
