// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file | FileCheck %s --check-prefixes=CHECK,MB
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file | FileCheck %s --check-prefixes=CHECK,RB
// In-place reuse rules (IsReuseHIVMOp: plan-memory/PlanMemory.cpp:1360-1401,
// regbase/PlanMemory.cpp:1238-1272; GenerateInplaceList), branch by branch,
// where the two passes differ. Everything fits, so each storage entry has
// its own address (no-reuse plan) and two allocations share one exactly
// when they were paired in place.

// isReusableByOffset (PlanMemory.cpp:1363, 91-106): the memory-based pass
// pairs an output with a dead input only at the same static offset: the
// input at offset 64 is not reused. The register-based pass has no such
// check and reuses it.
// CHECK-LABEL: func.func @offset_differs
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// MB-NEXT: hivm.hir.pointer_cast(%c512_i64)
// RB-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @offset_differs(%a: memref<128xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<128xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<128xf32, #hivm.address_space<gm>>) outs(%x : memref<128xf32, #hivm.address_space<ub>>)
  %s = memref.subview %x[64] [64] [1] : memref<128xf32, #hivm.address_space<ub>> to memref<64xf32, strided<[1], offset: 64>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<64xf32, strided<[1], offset: 64>, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
// At offset 0 both passes reuse it.
// CHECK-LABEL: func.func @offset_same
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @offset_same(%a: memref<128xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<128xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<128xf32, #hivm.address_space<gm>>) outs(%x : memref<128xf32, #hivm.address_space<ub>>)
  %s = memref.subview %x[0] [64] [1] : memref<128xf32, #hivm.address_space<ub>> to memref<64xf32, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<64xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// isReusableOperands (PlanMemory.cpp:115-128): vcmp has no
// SameOperandsElementType; its i1 output is narrower than the f32 inputs by
// a whole factor (124) and it is not a vcast, so it takes a dead input's
// memory (which one follows the reference's shuffled kill order).
// CHECK-LABEL: func.func @vcmp_narrow
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c{{0|256}}_i64) : memref<64xi1
func.func @vcmp_narrow(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xi1, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %m = memref.alloc() : memref<64xi1, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vcmp ins(%x, %y : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%m : memref<64xi1, #hivm.address_space<ub>>) compare_mode = <lt>
  hivm.hir.store ins(%m : memref<64xi1, #hivm.address_space<ub>>) outs(%o : memref<64xi1, #hivm.address_space<gm>>)
  return
}

// -----
// isReusableVSelOp (PlanMemory.cpp:62-71, 1396): with an i64 source and an
// i1 condition the memory-based pass never gives the output the
// condition's buffer (1024 bytes, large enough; the source %x stays live).
// The register-based pass has no vsel rule: the output (as wide as an
// input, 124) takes the condition's memory.
// CHECK-LABEL: func.func @vsel_i64
// CHECK: hivm.hir.pointer_cast(%c0_i64) : memref<8192xi1
// CHECK-NEXT: hivm.hir.pointer_cast(%c1024_i64) : memref<64xi64
// MB-NEXT: hivm.hir.pointer_cast(%c1536_i64) : memref<64xi64
// RB-NEXT: hivm.hir.pointer_cast(%c0_i64) : memref<64xi64
func.func @vsel_i64(%a: memref<64xi64, #hivm.address_space<gm>>, %cg: memref<8192xi1, #hivm.address_space<gm>>, %o: memref<64xi64, #hivm.address_space<gm>>) {
  %c = memref.alloc() : memref<8192xi1, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<64xi64, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xi64, #hivm.address_space<ub>>
  hivm.hir.load ins(%cg : memref<8192xi1, #hivm.address_space<gm>>) outs(%c : memref<8192xi1, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xi64, #hivm.address_space<gm>>) outs(%x : memref<64xi64, #hivm.address_space<ub>>)
  %cs = memref.subview %c[0] [64] [1] : memref<8192xi1, #hivm.address_space<ub>> to memref<64xi1, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vsel ins(%cs, %x, %x : memref<64xi1, strided<[1]>, #hivm.address_space<ub>>, memref<64xi64, #hivm.address_space<ub>>, memref<64xi64, #hivm.address_space<ub>>) outs(%y : memref<64xi64, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xi64, #hivm.address_space<ub>>) outs(%o : memref<64xi64, #hivm.address_space<gm>>)
  hivm.hir.store ins(%x : memref<64xi64, #hivm.address_space<ub>>) outs(%o : memref<64xi64, #hivm.address_space<gm>>)
  return
}
// With an i32 source the memory-based rule allows it (isReusableVSelOp
// returns true).
// CHECK-LABEL: func.func @vsel_i32
// CHECK: hivm.hir.pointer_cast(%c0_i64) : memref<8192xi1
// CHECK-NEXT: hivm.hir.pointer_cast(%c1024_i64) : memref<64xi32
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64) : memref<64xi32
func.func @vsel_i32(%a: memref<64xi32, #hivm.address_space<gm>>, %cg: memref<8192xi1, #hivm.address_space<gm>>, %o: memref<64xi32, #hivm.address_space<gm>>) {
  %c = memref.alloc() : memref<8192xi1, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<64xi32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xi32, #hivm.address_space<ub>>
  hivm.hir.load ins(%cg : memref<8192xi1, #hivm.address_space<gm>>) outs(%c : memref<8192xi1, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xi32, #hivm.address_space<gm>>) outs(%x : memref<64xi32, #hivm.address_space<ub>>)
  %cs = memref.subview %c[0] [64] [1] : memref<8192xi1, #hivm.address_space<ub>> to memref<64xi1, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vsel ins(%cs, %x, %x : memref<64xi1, strided<[1]>, #hivm.address_space<ub>>, memref<64xi32, #hivm.address_space<ub>>, memref<64xi32, #hivm.address_space<ub>>) outs(%y : memref<64xi32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xi32, #hivm.address_space<ub>>) outs(%o : memref<64xi32, #hivm.address_space<gm>>)
  hivm.hir.store ins(%x : memref<64xi32, #hivm.address_space<ub>>) outs(%o : memref<64xi32, #hivm.address_space<gm>>)
  return
}

// -----
// GenerateInplaceList: the memory-based pass does not look at mem_unique
// (PlanMemory.cpp:1480-1496), so the vexp output %y marked mem_unique
// still takes %x's memory; the register-based pass skips mem_unique gens
// and kills (regbase/PlanMemory.cpp:1360, 1368).
// CHECK-LABEL: func.func @mem_unique_gen
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// MB-NEXT: hivm.hir.pointer_cast(%c0_i64)
// MB-NEXT: hivm.hir.pointer_cast(%c256_i64)
// RB-NEXT: hivm.hir.pointer_cast(%c256_i64)
// RB-NEXT: hivm.hir.pointer_cast(%c512_i64)
func.func @mem_unique_gen(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  annotation.mark %y {mem_unique} : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%z : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
