// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file -verify-diagnostics
// RUN: rm -f %t.never
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file -o %t.never 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not test -e %t.never
// The errors of the reference, word for word, at its locations. A failing
// function stops the pass: nothing is printed, nothing written (exit 2 for
// a program the pass rejects, 1 for an overflow: crates/cli/tests/opt_plan_memory.rs).
// EXIT: error: Alloc buffer not at UB space!

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
  // expected-error@+2 {{'memref.alloc' op error: read before first write}}
  // expected-note@+1 {{no op writes this buffer before it is read: write it first}}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.store ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%g : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

// Never used: AscendNPU-IR's PlanMemory rejects it too (defined, never
// written, so no offsets for AllocToPointerCast), in the same words.
func.func @never_used(%g: memref<16xf32, #hivm.address_space<gm>>) {
  // expected-error@+2 {{'memref.alloc' op error: read before first write}}
  // expected-note@+1 {{nothing uses this allocation, and PlanMemory places only buffers an op writes: remove it}}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%b : memref<16xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%b : memref<16xf32, #hivm.address_space<ub>>) outs(%g : memref<16xf32, #hivm.address_space<gm>>)
  return
}

// -----

func.func @l0a(%g: memref<16xf32, #hivm.address_space<gm>>) {
  // expected-error@+1 {{Currently only support (UB | L1 | L0C) allocation}}
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ca>>
  return
}

// -----

// expected-error@+1 {{Temporarily unsupported memory buffer space !}}
func.func @ssbuf(%x: i8) {
  %a = memref.alloc() : memref<i8, #hivm.address_space<ssbuf>>
  memref.store %x, %a[] : memref<i8, #hivm.address_space<ssbuf>>
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

// L1 (cbuf) is 512 KiB on Ascend910B1: 2 x 384 KiB live together overflow.
// expected-error@+1 {{cbuf overflow, requires 6291456 bits while 4194304 bits available! (possible reason: tiling basic block is too large or block number is more than what user expect due to multi-buffer feature is enabled and some ops need extra local buffer.)}}
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

// Planned IR with an allocation added: not the pass's own output, so the
// pointer cast is an op the pass does not know (replan.mlir: planned IR
// alone is left as it is).
func.func @mixed(%g: memref<16xf32, #hivm.address_space<gm>>) {
  %c0_i64 = arith.constant 0 : i64
  // expected-error@+1 {{PlanMemory Fail : Unrecognized type of Operation touches local buffer!}}
  %p = hivm.hir.pointer_cast(%c0_i64) : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%p : memref<16xf32, #hivm.address_space<ub>>)
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%a : memref<16xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<16xf32, #hivm.address_space<ub>>) outs(%g : memref<16xf32, #hivm.address_space<gm>>)
  return
}
