// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory | FileCheck %s
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -verify-diagnostics -o /dev/null
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o %t.mlir | FileCheck %s --check-prefix=STDOUT
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=FILE
// RUN: tilemem opt %t.mlir -o /dev/null
// With -o the module goes to the file and the warning, which the
// reference writes to standard output (llvm::outs()), stays there: the
// file holds the module alone and reads back.
// STDOUT: warning: [hivm-plan-memory] There reused some dma buffers in ub address space
// STDOUT-NOT: func.func
// FILE-NOT: warning
// FILE: module
// When everything does not fit, the level-3 plan (DMA buffers never
// reused) is tried first; at 2359296 bits it does not fit either, so the
// planner goes level by level and reuses DMA buffers by lifetime, and says
// so on standard output (not a diagnostic: -verify-diagnostics sees none).
// l0, s0, l1, s1 are DMA buffers (loaded or stored), v0, v1, v2 vector
// temporaries; each is 48 KiB, UB is 192 KiB.
// CHECK: warning: [hivm-plan-memory] There reused some dma buffers in ub address space, which may stall pipe. Not reusing dma buffer needs 2359296 bits while 1572864 bits available!
// CHECK-LABEL: func.func @dma_not_reused_at_level3
// CHECK: %[[L0:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK: %[[V0:.*]] = hivm.hir.pointer_cast(%c49152_i64)
// CHECK: %[[V1:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK: %[[S0:.*]] = hivm.hir.pointer_cast(%c49152_i64)
// CHECK: %[[L1:.*]] = hivm.hir.pointer_cast(%c98304_i64)
// CHECK: %[[V2:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK: %[[S1:.*]] = hivm.hir.pointer_cast(%c147456_i64)
func.func @dma_not_reused_at_level3(%a: memref<12288xf32, #hivm.address_space<gm>>) {
  %l0 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<12288xf32, #hivm.address_space<gm>>) outs(%l0 : memref<12288xf32, #hivm.address_space<ub>>)
  %v0 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%l0 : memref<12288xf32, #hivm.address_space<ub>>) outs(%v0 : memref<12288xf32, #hivm.address_space<ub>>) transpose = [0]
  %v1 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%v0 : memref<12288xf32, #hivm.address_space<ub>>) outs(%v1 : memref<12288xf32, #hivm.address_space<ub>>) transpose = [0]
  %s0 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%v1 : memref<12288xf32, #hivm.address_space<ub>>) outs(%s0 : memref<12288xf32, #hivm.address_space<ub>>) transpose = [0]
  hivm.hir.store ins(%s0 : memref<12288xf32, #hivm.address_space<ub>>) outs(%a : memref<12288xf32, #hivm.address_space<gm>>)
  %l1 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<12288xf32, #hivm.address_space<gm>>) outs(%l1 : memref<12288xf32, #hivm.address_space<ub>>)
  %v2 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%l1 : memref<12288xf32, #hivm.address_space<ub>>) outs(%v2 : memref<12288xf32, #hivm.address_space<ub>>) transpose = [0]
  %s1 = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%v2 : memref<12288xf32, #hivm.address_space<ub>>) outs(%s1 : memref<12288xf32, #hivm.address_space<ub>>) transpose = [0]
  hivm.hir.store ins(%s1 : memref<12288xf32, #hivm.address_space<ub>>) outs(%a : memref<12288xf32, #hivm.address_space<gm>>)
  return
}
