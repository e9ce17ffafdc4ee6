// RUN: not tilemem opt %s -hivm-plan-memory 2>&1 | FileCheck %s --check-prefix=NOSPEC
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file -verify-diagnostics
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase=simt-vf-dynamic-size=300 -split-input-file 2>&1 | FileCheck %s --check-prefix=SIMT
// Capacities come from the module's device spec (-hacc-append-device-spec).
// Without one the pass says what to run. On register-based chips SIMT and
// MIX vector functions plan UB in simt-vf-dynamic-size KB (default 216,
// within [UB - max d-cache, UB - min d-cache]); the register-based pass's
// overflow message has no "possible reason".
// NOSPEC: error: PlanMemory Fail : the module has no NPU device spec entry UB_SIZE; run -hacc-append-device-spec=target=<chip> first
// SIMT: error: PlanMemory Fail : SimtVFDynamicSize have to in range [128, 216], but got 300!

// expected-error@+1 {{ub overflow, requires 1835008 bits while 1769472 bits available!}}
func.func @mix(%g: memref<57344xf32, #hivm.address_space<gm>>) attributes {hivm.vf_mode = #hivm.vf_mode<MIX>} {
  %a = memref.alloc() : memref<57344xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<57344xf32, #hivm.address_space<gm>>) outs(%a : memref<57344xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<57344xf32, #hivm.address_space<ub>>) outs(%g : memref<57344xf32, #hivm.address_space<gm>>)
  return
}

// -----

// The same buffer fits the whole UB of a SIMD function.
func.func @simd(%g: memref<57344xf32, #hivm.address_space<gm>>) attributes {hivm.vf_mode = #hivm.vf_mode<SIMD>} {
  %a = memref.alloc() : memref<57344xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<57344xf32, #hivm.address_space<gm>>) outs(%a : memref<57344xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<57344xf32, #hivm.address_space<ub>>) outs(%g : memref<57344xf32, #hivm.address_space<gm>>)
  return
}
