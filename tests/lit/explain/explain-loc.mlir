// RUN: tilemem explain %s | FileCheck %s
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=OPT
// RUN: tilemem explain %s --report %t.json > /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// When the IR carries source locations (Triton's debug info), explain and
// the short form after an overflow give the source line each op and
// allocation comes from: the first file:line:col its loc(...) leads to
// through #loc aliases, names, call sites (the callee first) and fused
// locations. The overflow error itself is located where the function's
// loc(...) leads, as MLIR reports it, with a note at its place in the IR.
// --report writes the same facts as JSON.
// UB of Ascend910B1: 196608 bytes.
// JSON: "chip": "Ascend910B1",
// JSON: "ub overflow, requires 2097152 bits while 1572864 bits available!
// JSON: "planner": "bishengir",
// JSON: "source": "k.py:5:8",
// JSON: "source": "k.py:6:8",
// JSON: "lower_bound": 262144,
// JSON: "op": "hivm.hir.load",
// JSON-NEXT: "source": "helpers.py:40:4"
// JSON: "proven_over_capacity": true,
// JSON: "bytes_after": 196608,
// JSON-NEXT: "change": "shrink dimension 0 of the allocation at line
// CHECK: @k/ub: does not fit: planner bishengir overflows, capacity 196608 bytes (Ascend910B1)
// CHECK-NEXT: peak: {{.*}}explain-loc.mlir:[[@LINE+21]]:5 (hivm.hir.load)  (at helpers.py:40:4)
// CHECK-NEXT: live at the peak: 2 allocations, 262144 bytes
// CHECK-NEXT: line [[@LINE+16]]:5  memref<32768xf32, #hivm.address_space<ub>>  131072 bytes  (at k.py:5:8)
// CHECK-NEXT: line [[@LINE+16]]:5  memref<32768xf32, #hivm.address_space<ub>>  131072 bytes  (at k.py:6:8)
// CHECK-NEXT: lower bound: 262144 bytes > capacity 196608: no placement fits (65536 bytes short)
// CHECK-NEXT: remedies (each re-planned and checked):
// CHECK-NEXT: - shrink dimension 0 of the allocation at line [[@LINE+12]] (memref<32768xf32, #hivm.address_space<ub>>)  (at k.py:5:8) from 32768 to 16384: then 196608 bytes
// CHECK-NEXT: - shrink dimension 0 of the allocation at line [[@LINE+12]] (memref<32768xf32, #hivm.address_space<ub>>)  (at k.py:6:8) from 32768 to 16384: then 196608 bytes
// OPT: {{^}}k.py:3:0: error: ub overflow, requires 2097152 bits while 1572864 bits available!
// OPT-NEXT: explain-loc.mlir:[[@LINE+8]]:3: note: the operation in the IR
// OPT: explain: @k/ub does not fit its 196608 bytes (Ascend910B1); peak at {{.*}}explain-loc.mlir:[[@LINE+11]]:5 (hivm.hir.load)  (at helpers.py:40:4)
// OPT-NEXT: live there: 2 allocations, 262144 bytes; the largest:
// OPT-NEXT: line [[@LINE+6]]:5  memref<32768xf32, #hivm.address_space<ub>>  131072 bytes  (at k.py:5:8)
// OPT-NEXT: line [[@LINE+6]]:5  memref<32768xf32, #hivm.address_space<ub>>  131072 bytes  (at k.py:6:8)
// OPT-NEXT: lower bound: 262144 bytes > capacity 196608: no placement fits (65536 bytes short)
// OPT-NEXT: best remedy (re-planned and checked): shrink dimension 0 of the allocation at line [[@LINE+3]] (memref<32768xf32, #hivm.address_space<ub>>)  (at k.py:5:8) from 32768 to 16384: then 196608 bytes
module {
  func.func @k(%arg0: memref<32768xf32, #hivm.address_space<gm>> loc("k.py":3:0)) {
    %a = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>> loc(#loc1)
    %b = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>> loc(#loc2)
    hivm.hir.load ins(%arg0 : memref<32768xf32, #hivm.address_space<gm>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>) loc(#loc3)
    hivm.hir.load ins(%arg0 : memref<32768xf32, #hivm.address_space<gm>>) outs(%b : memref<32768xf32, #hivm.address_space<ub>>) loc(callsite(#loc4 at #loc3))
    hivm.hir.vadd ins(%a, %b : memref<32768xf32, #hivm.address_space<ub>>, memref<32768xf32, #hivm.address_space<ub>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>) loc(fused[unknown, #loc5])
    hivm.hir.store ins(%a : memref<32768xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<32768xf32, #hivm.address_space<gm>>)
    return
  } loc(#loc0)
}
#loc0 = loc("k.py":3:0)
#loc1 = loc("a"("k.py":5:8))
#loc2 = loc("b"("k.py":6:8))
#loc3 = loc("k.py":7:12)
#loc4 = loc("helpers.py":40:4)
#loc5 = loc("k.py":9:10 to :20)
