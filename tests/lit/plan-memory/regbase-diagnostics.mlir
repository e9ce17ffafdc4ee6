// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file -verify-diagnostics
// The register-based pass's errors (regbase/PlanMemory.cpp), word for word:
// CheckLocalBufferAllocOp (719), CheckIfUnknownOpTouchBuffer (742),
// GetBufferInfo (1104), AllocToPointerCast, isLocalBuffer
// (HIVMUtils.cpp:434), UpdatePreloadBuffers (532) and the overflow of
// EmitPlanMemoryFailureInfo (1408), which has no "possible reason".

func.func @no_space(%g: memref<16xf32>) {
  // expected-error@+1 {{Alloc buffer not at UB space! }}
  %a = memref.alloc() : memref<16xf32>
  memref.copy %g, %a : memref<16xf32> to memref<16xf32>
  return
}

// -----

func.func @gm_alloc() {
  // expected-error@+1 {{Alloc buffer not at UB space! }}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<gm>>
  return
}

// -----

func.func @unknown_op(%g: memref<16xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%a : memref<16xf32, #hivm.address_space<ub>>)
  // expected-error@+1 {{PlanMemory Fail : Unrecognized type of Operation touches local buffer!}}
  memref.copy %a, %g : memref<16xf32, #hivm.address_space<ub>> to memref<16xf32, #hivm.address_space<gm>>
  return
}

// -----

func.func @dynamic(%g: memref<?xf32, #hivm.address_space<gm>>, %n: index) {
  // expected-error@+1 {{Failed to obtain op buffer shape size which should be static.}}
  %a = memref.alloc(%n) : memref<?xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<?xf32, #hivm.address_space<gm>>) outs(%a : memref<?xf32, #hivm.address_space<ub>>)
  return
}

// -----

func.func @never_written(%g: memref<16xf32, #hivm.address_space<gm>>) {
  // expected-error@+1 {{'memref.alloc' op error: read before first write}}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.store ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%g : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

func.func @l0a(%g: memref<16xf32, #hivm.address_space<gm>>) {
  // expected-error@+1 {{Currently only support (UB | L1 | L0C) allocation}}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ca>>
  return
}

// -----

func.func @preload_outside_loop(%g: memref<16xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  // expected-error@+1 {{preload local buffer must be inside a loop-like op}}
  annotation.mark %a {hivm.preload_local_buffer = 1 : i32} : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%a : memref<16xf32, #hivm.address_space<ub>>)
  return
}

// -----

// L1 (cbuf) is 512 KiB on Ascend950PR_950z too: 2 x 384 KiB live together overflow.
// expected-error@+1 {{cbuf overflow, requires 6291456 bits while 4194304 bits available!}}
func.func @l1_overflow(%g: memref<196608xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<196608xf16, #hivm.address_space<cbuf>>
  %b = memref.alloc() : memref<196608xf16, #hivm.address_space<cbuf>>
  hivm.hir.load ins(%g : memref<196608xf16, #hivm.address_space<gm>>) outs(%a : memref<196608xf16, #hivm.address_space<cbuf>>)
  hivm.hir.load ins(%g : memref<196608xf16, #hivm.address_space<gm>>) outs(%b : memref<196608xf16, #hivm.address_space<cbuf>>)
  hivm.hir.store ins(%a : memref<196608xf16, #hivm.address_space<cbuf>>) outs(%g : memref<196608xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%b : memref<196608xf16, #hivm.address_space<cbuf>>) outs(%g : memref<196608xf16, #hivm.address_space<gm>>)
  return
}

// -----

// GenerateBufferInfo (regbase/PlanMemory.cpp:1075-1077): an SSBUF
// allocation stops the register-based pass at the allocation (the
// memory-based pass gets as far as GetBufferSpaceInfo: diagnostics.mlir).
func.func @ssbuf(%x: i8) {
  // expected-error@+1 {{Alloc-like on SSBUF is not yet supported!}}
  %a = memref.alloc() : memref<i8, #hivm.address_space<ssbuf>>
  memref.store %x, %a[] : memref<i8, #hivm.address_space<ssbuf>>
  return
}
