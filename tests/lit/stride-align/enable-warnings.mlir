// RUN: tilemem opt -hivm-enable-stride-align -allow-unregistered-dialect %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// RUN: tilemem opt -hivm-enable-stride-align -allow-unregistered-dialect %s 2>/dev/null | FileCheck %s
// A mark on the result of an op the propagation does not know is reported
// and left alone; the pass still succeeds.

func.func @unsupported_def() {
  // DIAG: enable-warnings.mlir:[[@LINE+1]]:3: warning: Align mark on unsupported op
  %x = "some_def"() : () -> memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %x {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  return
}
// CHECK: func.func @unsupported_def() attributes {hivm.storage_aligned}
// CHECK-NEXT: "some_def"()
// CHECK-NEXT: return
