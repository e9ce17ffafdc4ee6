// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -hivm-enable-stride-align -split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// RUN: tilemem opt -allow-unregistered-dialect -hivm-mark-stride-align -hivm-enable-stride-align -split-input-file %s 2>/dev/null | FileCheck %s
// RUN: not tilemem opt -hivm-enable-stride-align %S/enable-max-iterations-error.mlir 2>/dev/null | count 0
// `hivm.hir.vfoo` is not an hivm op: MLIR reads it only with
// -allow-unregistered-dialect (and prints it in generic form).

// Errors a pass emits without signalling failure (the `Cannot align ...
// across blocks.` of the propagation pattern run by applyPatternsGreedily)
// are reported, the next pass still runs, the module is printed and the
// exit code is 0 (the first two RUN lines have no `not`). Only a signalled
// failure (the third RUN line: enable's iteration limit) exits non-zero
// and prints nothing.

// An op that is not an HIVM structured op is left alone by both passes.
// DIAG-NOT: error: unsupport flatten op
// CHECK-LABEL: func.func @unflattenable
// CHECK: hivm.hir.vfoo
// CHECK: return
func.func @unflattenable(%a: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %c: memref<4x15xf16, #hivm.address_space<ub>>) {
  hivm.hir.vfoo ins(%a : memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%c : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// The enable pass reports the mark on a function argument (each time the
// greedy driver visits it: PropagateAlignUpToRootAllocationPattern fails
// without removing it) and goes on: the allocation marked in the same
// function is still padded; the mark goes with RemoveAlignMarkPattern.
// DIAG: pass-diagnostics.mlir:[[@LINE+8]]:3: error: Cannot align <block argument> of type 'memref<2x15xf16, #hivm.address_space<ub>>' at index: 0 across blocks.
// CHECK-LABEL: func.func @block_argument
// CHECK-SAME: attributes {hivm.storage_aligned}
// CHECK-NOT: annotation.mark
// CHECK: memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
// CHECK-NOT: annotation.mark
// CHECK: return
func.func @block_argument(%a: memref<2x15xf16, #hivm.address_space<ub>>) {
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%b : memref<2x15xf16, #hivm.address_space<ub>>) outs(%b : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}
