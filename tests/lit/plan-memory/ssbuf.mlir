// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,MB
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,RB
// A pointer_cast that is already an address (not an allocation) is an op
// the liveness walk does not know. The register-based pass skips one that
// touches only SSBUF (isSkippableOp with isOpTouchSsbufferOnly,
// regbase/PlanMemory.cpp:720-732, HIVMUtils.cpp:482-492); the memory-based
// pass skips none, and SSBUF is a local buffer (isLocalBuffer,
// HIVMUtils.cpp:423-435), so it refuses the op (CheckIfUnknownOpTouchBuffer,
// PlanMemory.cpp:577-588). A pointer_cast into UB is refused by both.

// MB: error: PlanMemory Fail : Unrecognized type of Operation touches local buffer!
// MB-NEXT: hivm.hir.pointer_cast(%arg0) : memref<i8, #hivm.address_space<ssbuf>>
// CHECK: error: PlanMemory Fail : Unrecognized type of Operation touches local buffer!
// CHECK-NEXT: hivm.hir.pointer_cast(%arg0) : memref<i8, #hivm.address_space<ub>>
// RB-LABEL: func.func @ssbuf_cast
// RB: hivm.hir.pointer_cast(%arg0) : memref<i8, #hivm.address_space<ssbuf>>
// RB-NEXT: memref.load
func.func @ssbuf_cast(%arg0: i64) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c1_i8 = arith.constant 1 : i8
  %0 = hivm.hir.pointer_cast(%arg0) : memref<i8, #hivm.address_space<ssbuf>>
  %1 = memref.load %0[] : memref<i8, #hivm.address_space<ssbuf>>
  %3 = arith.subi %1, %c1_i8 : i8
  memref.store %3, %0[] : memref<i8, #hivm.address_space<ssbuf>>
  return
}
// -----
func.func @ub_cast(%arg0: i64) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c1_i8 = arith.constant 1 : i8
  %0 = hivm.hir.pointer_cast(%arg0) : memref<i8, #hivm.address_space<ub>>
  %1 = memref.load %0[] : memref<i8, #hivm.address_space<ub>>
  return
}
