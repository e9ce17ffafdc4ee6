// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,REUSE
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,REUSE
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=disable-tightly-coupled-buffer-reuse=true -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,UNIQUE
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase=disable-tightly-coupled-buffer-reuse=true -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,UNIQUE
// Tightly coupled buffers (hivm.tightly_coupled_buffer = <id>), both
// passes: ProcessMarkOpForTightlyCoupledCV (PlanMemory.cpp:821-865,
// regbase/PlanMemory.cpp:636-680), updateId2Offsets and
// updateBuffer2OffsetsForFuncOp (PlanMemory.cpp:3141-3187). The owning
// side is a UB buffer of a vector (AIV) function or an L1 buffer of a cube
// (AIC) function; the other side takes the owner's addresses.
// 128 KiB buffers: two do not fit in UB, so they share address 0 exactly
// when their lifetimes do not overlap (else: the overflow error).

// The owning side's buffer is written at its mark (PlanMemory.cpp:849-862,
// 800-801), so %t, marked before %x is loaded, lives with %x: overflow.
// CHECK: error: ub overflow, requires 2097152 bits while
// CHECK-NEXT: func.func @owner_gen_at_mark
func.func @owner_gen_at_mark(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  annotation.mark %t {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// Marked after %x's last use, %t does not overlap it: one address. With
// disable-tightly-coupled-buffer-reuse the owning side's buffer is
// mem_unique (PlanMemory.cpp:851-856), shares with nothing
// (VerifyConflictStage0, 2686-2689): overflow.
// UNIQUE: error: ub overflow, requires 2097152 bits while
// UNIQUE-NEXT: func.func @owner_late_mark
// REUSE-LABEL: func.func @owner_late_mark
// REUSE: hivm.hir.pointer_cast(%c0_i64)
// REUSE-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @owner_late_mark(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  annotation.mark %t {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// A plain mark is no write: %t is written by its load, after %x died.
// CHECK-LABEL: func.func @plain_mark
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @plain_mark(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  annotation.mark %t {hivm.multi_buffer = 1 : i32} : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// The cube function's UB buffer of id 1 is not the owner: it takes the
// addresses the vector function planned for its id-1 buffer (256), not its
// own (0).
// CHECK-LABEL: func.func @aiv
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
// CHECK-LABEL: func.func @aic
// CHECK: hivm.hir.pointer_cast(%c256_i64)
func.func @aiv(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %t = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  annotation.mark %t {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.store ins(%t : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
func.func @aic(%a: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  %u = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  annotation.mark %u {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%u : memref<64xf32, #hivm.address_space<ub>>)
  return
}

// -----
// With no owning side for its id, the other side's buffer gets the empty
// address list id2Offsets holds for it (operator[]), and its pointer_cast
// no address at all (walkAllocToPointerCast, AllocToPointerCast.cpp:51-58).
// CHECK-LABEL: func.func @aic_alone
// CHECK: hivm.hir.pointer_cast() : memref<64xf32, #hivm.address_space<ub>>
func.func @aic_alone(%a: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  %u = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  annotation.mark %u {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<7>} : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%u : memref<64xf32, #hivm.address_space<ub>>)
  return
}
