// RUN: tilemem explain --all %s | FileCheck %s
// RUN: tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT
// A buffer of 48 bytes takes two 32-byte units of UB: explain counts the
// usage as PlanMemory, the lower bound and the `opt` summary do (it said
// "uses 48 bytes" beside "lower bound: 64 bytes").
// CHECK: @rows/ub: fits: planner bishengir uses 64 bytes, capacity 196608 bytes (Ascend910B1)
// CHECK: lower bound: 64 bytes <= capacity 196608
// OPT: [summary] rows/ub: 64 / 196608 bytes (0.0 %), lower bound 64, allocations 1 -> 1 buffers, planner bishengir
func.func @rows(%gm: memref<3x16xi8, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<3x16xi8, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<3x16xi8, #hivm.address_space<gm>>) outs(%a : memref<3x16xi8, #hivm.address_space<ub>>)
  return
}
