// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=mem-plan-mode=global-work-space-plan | FileCheck %s --check-prefix=NOREUSE
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 '-hivm-plan-memory=mem-plan-mode=global-work-space-plan enable-global-workspace-reuse=true' | FileCheck %s --check-prefix=REUSE
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -pass-pipeline='builtin.module(hivm-plan-memory{mem-plan-mode=global-work-space-plan enable-global-workspace-reuse=1})' | FileCheck %s --check-prefix=REUSE
// RUN: not tilemem opt %s -hivm-plan-memory=mem-plan-mode=bogus 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not tilemem opt %s -hivm-plan-memory=restrict-inplace-as-isa=maybe 2>&1 | FileCheck %s --check-prefix=BADBOOL
// RUN: not tilemem opt %s -hivm-plan-memory=enable-print-memory-allocated-size=1 2>&1 | FileCheck %s --check-prefix=OTHERPASS
// RUN: not tilemem opt %s -hivm-plan-memory-regbase=plan-memory-strategy=smallest 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not tilemem opt %s -hivm-plan-memory=simt-vf-dynamic-size=lots 2>&1 | FileCheck %s --check-prefix=INT
// The workspace plan: memref_ext.alloc_workspace gets byte offsets (index
// constants), one after another aligned to 32 bytes, or reused by lifetime
// with enable-global-workspace-reuse. Bad option values exit 2.
// NOREUSE: %c1024 = arith.constant 1024 : index
// NOREUSE: %c0 = arith.constant 0 : index
// NOREUSE: memref_ext.alloc_workspace() from %arg0 offset = [%c0] : from memref<?xi8> to memref<16x16xf32>
// NOREUSE: memref_ext.alloc_workspace() from %arg0 offset = [%c1024] : from memref<?xi8> to memref<16x16xf32>
// NOREUSE: memref_ext.alloc_workspace() from %arg2 offset = [%c0] : from memref<?xi8> to memref<3xf32>
// REUSE: memref_ext.alloc_workspace() from %arg0 offset = [%c0] : from memref<?xi8> to memref<16x16xf32>
// REUSE: memref_ext.alloc_workspace() from %arg0 offset = [%c0] : from memref<?xi8> to memref<16x16xf32>
// BADMODE: tilemem opt: pass '-hivm-plan-memory': option 'mem-plan-mode' takes local-mem-plan or global-work-space-plan (got 'bogus')
// BADBOOL: tilemem opt: pass '-hivm-plan-memory': option 'restrict-inplace-as-isa' takes true or false (got 'maybe')
// OTHERPASS: tilemem opt: pass '-hivm-plan-memory' has no option 'enable-print-memory-allocated-size'
// STRATEGY: tilemem opt: pass '-hivm-plan-memory-regbase': option 'plan-memory-strategy' takes default or largest-first (got 'smallest')
// INT: tilemem opt: pass '-hivm-plan-memory': option 'simt-vf-dynamic-size' takes an integer (got 'lots')
func.func @workspace(%ws: memref<?xi8>, %g: memref<16x16xf32, #hivm.address_space<gm>>, %ws2: memref<?xi8>, %h: memref<3xf32, #hivm.address_space<gm>>) {
  %a = memref_ext.alloc_workspace() from %ws : from memref<?xi8> to memref<16x16xf32>
  %b = memref_ext.alloc_workspace() from %ws : from memref<?xi8> to memref<16x16xf32>
  %c = memref_ext.alloc_workspace() from %ws2 : from memref<?xi8> to memref<3xf32>
  hivm.hir.load ins(%g : memref<16x16xf32, #hivm.address_space<gm>>) outs(%a : memref<16x16xf32>)
  hivm.hir.store ins(%a : memref<16x16xf32>) outs(%g : memref<16x16xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%g : memref<16x16xf32, #hivm.address_space<gm>>) outs(%b : memref<16x16xf32>)
  hivm.hir.store ins(%b : memref<16x16xf32>) outs(%g : memref<16x16xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%h : memref<3xf32, #hivm.address_space<gm>>) outs(%c : memref<3xf32>)
  return
}
