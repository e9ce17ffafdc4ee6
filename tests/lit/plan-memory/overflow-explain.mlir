// RUN: not tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory 2>&1 >/dev/null | FileCheck %s
// RUN: not tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -quiet 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -verify-diagnostics 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY --allow-empty
// After bishengir's overflow error (its exact words, at the function, exit
// 1), a short explanation: the peak op, the largest allocations live
// there, whether the lower bound proves that nothing fits, and the best
// remedy found by re-planning (the optimal planner first: it leaves the
// kernel as written), then where the whole story is. A space that fits
// gets its summary line instead. -quiet drops both; -verify-diagnostics
// checks the error against the expectation and prints neither.
// UB of Ascend910B1: 196608 bytes.

// Two double-buffered 48 KiB buffers and a 16 KiB one: 212992 bytes live
// at once, so nothing fits; dropping a mark does.
// CHECK: overflow-explain.mlir:[[@LINE+16]]:1: error: ub overflow, requires 1703936 bits while 1572864 bits available! (possible reason: tiling basic block is too large or block number is more than what user expect due to multi-buffer feature is enabled and some ops need extra local buffer.)
// CHECK-NEXT: func.func @mb(
// CHECK-NEXT: ^
// CHECK-NEXT: explain: @mb/ub does not fit its 196608 bytes (Ascend910B1); peak at {{.*}}overflow-explain.mlir:[[@LINE+25]]:5 (hivm.hir.load)
// CHECK-NEXT:   live there: 3 allocations, 212992 bytes; the largest:
// CHECK-NEXT:     line [[@LINE+16]]:5  memref<12288xf32, #hivm.address_space<ub>>  49152 bytes x2 (multi-buffer)
// CHECK-NEXT:     line [[@LINE+17]]:5  memref<12288xf32, #hivm.address_space<ub>>  49152 bytes x2 (multi-buffer)
// CHECK-NEXT:     line [[@LINE+18]]:5  memref<4096xf32, #hivm.address_space<ub>>  16384 bytes
// CHECK-NEXT:   lower bound: 212992 bytes > capacity 196608: no placement fits (16384 bytes short)
// CHECK-NEXT:   best remedy (re-planned and checked): drop the hivm.multi_buffer mark of the allocation at line [[@LINE+12]] (memref<12288xf32, #hivm.address_space<ub>>): then 163840 bytes
// CHECK-NEXT:   the whole story: tilemem explain {{.*}}overflow-explain.mlir
// QUIET: error: ub overflow, requires 1703936 bits while 1572864 bits available!
// QUIET-NOT: does not fit
// QUIET-NOT: summary
// VERIFY-NOT: {{.}}
// expected-error @+1 {{ub overflow, requires 1703936 bits while 1572864 bits available!}}
func.func @mb(%g: memref<12288xf32, #hivm.address_space<gm>>, %h: memref<4096xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.multi_buffer = 2 : i32} : memref<12288xf32, #hivm.address_space<ub>>
    %b = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>>
    annotation.mark %b {hivm.multi_buffer = 2 : i32} : memref<12288xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<4096xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<12288xf32, #hivm.address_space<gm>>) outs(%a : memref<12288xf32, #hivm.address_space<ub>>)
    hivm.hir.load ins(%g : memref<12288xf32, #hivm.address_space<gm>>) outs(%b : memref<12288xf32, #hivm.address_space<ub>>)
    hivm.hir.load ins(%h : memref<4096xf32, #hivm.address_space<gm>>) outs(%c : memref<4096xf32, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%a, %b : memref<12288xf32, #hivm.address_space<ub>>, memref<12288xf32, #hivm.address_space<ub>>) outs(%a : memref<12288xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%a : memref<12288xf32, #hivm.address_space<ub>>) outs(%g : memref<12288xf32, #hivm.address_space<gm>>)
    hivm.hir.store ins(%c : memref<4096xf32, #hivm.address_space<ub>>) outs(%h : memref<4096xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----

// The lower bound fits, bishengir's first-fit order does not: the best
// remedy is the optimal planner.
// CHECK: error: ub overflow, requires 2097152 bits while 1572864 bits available!
// CHECK-NEXT: func.func @fragmented(
// CHECK-NEXT: ^
// CHECK-NEXT: explain: @fragmented/ub does not fit its 196608 bytes (Ascend910B1); peak at {{.*}}overflow-explain.mlir:[[@LINE+13]]:3 (hivm.hir.load)
// CHECK-NEXT:   live there: 3 allocations, 196608 bytes; the largest:
// CHECK-COUNT-3: memref<32768xf16, #hivm.address_space<ub>>  65536 bytes
// CHECK-NEXT:   lower bound: 196608 bytes <= capacity 196608: a placement could fit; the planner's order refused it
// CHECK-NEXT:   best remedy (re-planned and checked): use the optimal planner (-hivm-plan-memory=planner=optimal): then 196608 bytes
// CHECK-NEXT:   the whole story: tilemem explain {{.*}}overflow-explain.mlir
// expected-error @+1 {{ub overflow, requires 2097152 bits while 1572864 bits available!}}
func.func @fragmented(%ga: memref<32768xf16, #hivm.address_space<gm>>, %gd: memref<65536xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%b : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%c : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%c : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  %d = memref.alloc() : memref<65536xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gd : memref<65536xf16, #hivm.address_space<gm>>) outs(%d : memref<65536xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%d : memref<65536xf16, #hivm.address_space<ub>>) outs(%gd : memref<65536xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%b : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  return
}

// -----

// A space that fits: its summary line (bytes used of the capacity, the
// lower bound, allocations -> distinct addresses, the planner). When
// everything fits one after another the reference reuses nothing, so the
// two buffers never live together still take two addresses.
// CHECK: [summary] fits/ub: 131072 / 196608 bytes (66.7 %), lower bound 65536, allocations 2 -> 2 buffers, planner bishengir
// CHECK-NOT: {{.}}
func.func @fits(%g: memref<32768xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  %b = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%b : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%b : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  return
}
