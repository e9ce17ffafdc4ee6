// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>/dev/null | FileCheck %s
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// Two tiles of one loop that lifetimes alone would let share (%u is
// loaded and stored, then %t written) stay apart while the pipe levels
// fit: everything apart needs 5 x 64 KiB (the level-3 plan fails, hence
// the warning), so PlanMemory places entry by entry from level 3 down and
// keeps the first level that fits (MultiSpecPlan). DMA buffers first
// (GetReorderRootStorageEntry): %a 0, %u 65536, %w 131072 (level 3:
// PipeConflict, every DMA buffer apart); %x at level 2 (65536: not %a's
// or %w's bytes, outside any loop as %x is; %u's, whose loop it is not
// in, and whose lifetime it does not meet); %t at level 2 too (131072,
// %w's: not %u's, same loop, PipeConflictInSameLoop; not %a's, live).
// Level 0, where %t could take %u's bytes, is never reached. The optimal
// planner takes the levels as penalties, first: the same placement,
// proven of least penalty.

// CHECK-LABEL: func.func @f(
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c65536_i64)
// CHECK: hivm.hir.pointer_cast(%c131072_i64)
// CHECK: hivm.hir.pointer_cast(%c131072_i64)
// CHECK: hivm.hir.pointer_cast(%c65536_i64)
// SUM: [summary] @f ub: optimal 196608 bytes, penalty 4 (proven); bishengir 196608 bytes, penalty 4; bishengir placement used
func.func @f(%g: memref<16384xf32, #hivm.address_space<gm>>, %o: memref<16384xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%a : memref<16384xf32, #hivm.address_space<ub>>)
  scf.for %i = %c0 to %c3 step %c1 {
    %u = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%u : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%u : memref<16384xf32, #hivm.address_space<ub>>) outs(%o : memref<16384xf32, #hivm.address_space<gm>>)
    %t = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<16384xf32, #hivm.address_space<ub>>) outs(%t : memref<16384xf32, #hivm.address_space<ub>>)
  }
  %w = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%w : memref<16384xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%x : memref<16384xf32, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%w, %x : memref<16384xf32, #hivm.address_space<ub>>, memref<16384xf32, #hivm.address_space<ub>>) outs(%w : memref<16384xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%w : memref<16384xf32, #hivm.address_space<ub>>) outs(%o : memref<16384xf32, #hivm.address_space<gm>>)
  return
}

// -----

// With 72 KiB tiles three do not fit: %w and %x go to lower levels, and
// %t, which fits at neither level 3 nor level 2, takes %u's bytes at level
// 0 (their lifetimes do not meet).
// CHECK-LABEL: func.func @g(
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c73728_i64)
// CHECK: hivm.hir.pointer_cast(%c73728_i64)
// CHECK: hivm.hir.pointer_cast(%c73728_i64)
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// SUM: [summary] @g ub: optimal 147456 bytes, penalty 10 (proven); bishengir 147456 bytes, penalty 10; bishengir placement used
func.func @g(%g: memref<16384xf32, #hivm.address_space<gm>>, %o: memref<16384xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<18432xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%a : memref<18432xf32, #hivm.address_space<ub>>)
  scf.for %i = %c0 to %c3 step %c1 {
    %u = memref.alloc() : memref<18432xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%u : memref<18432xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%u : memref<18432xf32, #hivm.address_space<ub>>) outs(%o : memref<16384xf32, #hivm.address_space<gm>>)
    %t = memref.alloc() : memref<18432xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<18432xf32, #hivm.address_space<ub>>) outs(%t : memref<18432xf32, #hivm.address_space<ub>>)
  }
  %w = memref.alloc() : memref<18432xf32, #hivm.address_space<ub>>
  %x = memref.alloc() : memref<18432xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%w : memref<18432xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%x : memref<18432xf32, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%w, %x : memref<18432xf32, #hivm.address_space<ub>>, memref<18432xf32, #hivm.address_space<ub>>) outs(%w : memref<18432xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%w : memref<18432xf32, #hivm.address_space<ub>>) outs(%o : memref<16384xf32, #hivm.address_space<gm>>)
  return
}
