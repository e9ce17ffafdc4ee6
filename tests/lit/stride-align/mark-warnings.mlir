// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s --allow-empty
// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=OUT
// `hivm.hir.vfoo` is not an hivm op: MLIR reads it only with
// -allow-unregistered-dialect (and prints it in generic form). It does not
// implement HIVMStructuredOpInterface, so runOnOperation's walk passes it
// by (`!isa<HIVMStructuredOp>(op)`): no diagnostic, no mark, on either
// target. (`unsupport flatten op` needs getFlattened to fail, which
// getFlattenedImpl only does for ops that are not structured.)

// CHECK-NOT: error
// CHECK-NOT: warning
func.func @unknown_op(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
  %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}
// OUT-LABEL: func.func @unknown_op
// OUT-NOT: annotation.mark
// OUT: return

// -----

// OUT-LABEL: func.func @unknown_op_regbase
// OUT-NOT: annotation.mark
// OUT: return
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @unknown_op_regbase(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) {
    %c = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
    hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
    return
  }
}
