// RUN: rm -f %t.html
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -map=%t.html 2>&1 | FileCheck %s
// RUN: not test -e %t.html
// Input the plan-memory pass rejects (exit 2) writes no map.
// CHECK: opt-map-bad-input.mlir:[[@LINE+3]]:3: error: Failed to obtain op buffer shape size which should be static.
// CHECK-NOT: summary
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32, #hivm.address_space<ub>>
  return
}
