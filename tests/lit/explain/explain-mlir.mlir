// RUN: tilemem explain %s | FileCheck %s
// RUN: tilemem explain --all %s | FileCheck %s --check-prefix=ALL
// RUN: tilemem explain --planner=optimal %s | FileCheck %s --check-prefix=OPT
// RUN: not tilemem explain --planner=dsa-rp %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tilemem explain %s --map %t.html > /dev/null
// RUN: FileCheck %s --input-file=%t.html --check-prefix=MAP
// RUN: not tilemem explain %s --map %t.png 2>&1 | FileCheck %s --check-prefix=BADMAP
// --map draws the plan as `tilemem opt -map` does: each function planned
// (one that overflows beyond its capacity, against the real one, the note
// says by how much), not only the first that overflows.
// MAP: "note":"does not fit; drawn as planned with larger capacities against the real ones: @fragmented/ub needs 327680 of 196608 bytes (drawn as planned with 393216); @mb/ub needs 212992 of 196608 bytes (drawn as planned with 393216)"
// MAP: "function":"fragmented","space":"ub","capacity":196608,"used":327680,"lower_bound":196608
// MAP: "function":"mb","space":"ub","capacity":196608,"used":212992,"lower_bound":212992
// MAP: "function":"fits","space":"ub","capacity":196608,"used":65536,"lower_bound":65536
// BADMAP: error: --map {{.*}}.png: name a file ending in .html (interactive) or .svg (static)
// tilemem explain on HIVM MLIR: per (function, space) the peak op, the
// allocations live there largest first, the lower bound and whether it
// proves nothing fits, and remedies, each re-planned with PlanMemory.
// UB of Ascend910B1 (the default chip): 196608 bytes.

// Three 64 KiB buffers live together, then one 128 KiB: the lower bound
// (196608) fits, bishengir's first-fit order does not; the optimal
// planner does.
// CHECK: @fragmented/ub: does not fit: planner bishengir overflows, capacity 196608 bytes (Ascend910B1)
// CHECK-NEXT: peak: {{.*}}explain-mlir.mlir:[[@LINE+14]]:3 (hivm.hir.load)
// CHECK-NEXT: live at the peak: 3 allocations, 196608 bytes
// CHECK-NEXT: line [[@LINE+7]]:3  memref<32768xf16, #hivm.address_space<ub>>  65536 bytes
// CHECK-NEXT: line [[@LINE+7]]:3  memref<32768xf16, #hivm.address_space<ub>>  65536 bytes
// CHECK-NEXT: line [[@LINE+7]]:3  memref<32768xf16, #hivm.address_space<ub>>  65536 bytes
// CHECK-NEXT: lower bound: 196608 bytes <= capacity 196608: a placement could fit; the planner's order refused it
// CHECK-NEXT: remedies (each re-planned and checked):
// CHECK-NEXT: - use the optimal planner (-hivm-plan-memory=planner=optimal): then 196608 bytes
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

// Two double-buffered 48 KiB buffers and a 16 KiB one in a loop: 212992
// bytes live at once, so nothing fits; dropping either mark fits, and
// so does halving either double buffer.
// CHECK: @mb/ub: does not fit: planner bishengir overflows, capacity 196608 bytes (Ascend910B1)
// CHECK-NEXT: peak: {{.*}}explain-mlir.mlir:[[@LINE+24]]:5 (hivm.hir.load)
// CHECK-NEXT: live at the peak: 3 allocations, 212992 bytes
// CHECK-NEXT: line [[@LINE+15]]:5  memref<12288xf32, #hivm.address_space<ub>>  49152 bytes x2 (multi-buffer)
// CHECK-NEXT: line [[@LINE+16]]:5  memref<12288xf32, #hivm.address_space<ub>>  49152 bytes x2 (multi-buffer)
// CHECK-NEXT: line [[@LINE+17]]:5  memref<4096xf32, #hivm.address_space<ub>>  16384 bytes
// CHECK-NEXT: lower bound: 212992 bytes > capacity 196608: no placement fits (16384 bytes short)
// CHECK-NEXT: remedies (each re-planned and checked):
// CHECK-NEXT: - drop the hivm.multi_buffer mark of the allocation at line [[@LINE+10]] (memref<12288xf32, #hivm.address_space<ub>>): then {{[0-9]+}} bytes
// CHECK-NEXT: - drop the hivm.multi_buffer mark of the allocation at line [[@LINE+11]] (memref<12288xf32, #hivm.address_space<ub>>): then {{[0-9]+}} bytes
// CHECK-NEXT: - shrink dimension 0 of the allocation at line [[@LINE+8]] (memref<12288xf32, #hivm.address_space<ub>>) from 12288 to 6144: then {{[0-9]+}} bytes
// CHECK-NEXT: - shrink dimension 0 of the allocation at line [[@LINE+9]] (memref<12288xf32, #hivm.address_space<ub>>) from 12288 to 6144: then {{[0-9]+}} bytes
// CHECK-NOT: @
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

// ALL: @fragmented/ub: does not fit
// ALL: @mb/ub: does not fit
// ALL: @fits/ub: fits: planner bishengir uses 65536 bytes, capacity 196608 bytes (Ascend910B1)
// ALL-NEXT: peak:
// ALL-NEXT: live at the peak: 1 allocations, 65536 bytes
// ALL-NEXT: line
// ALL-NEXT: lower bound: 65536 bytes <= capacity 196608
// OPT-NOT: @fragmented
// OPT: @mb/ub: does not fit: planner optimal overflows
// OPT-NOT: optimal planner
// BAD: error: unknown --planner 'dsa-rp' for MLIR; use bishengir or optimal
func.func @fits(%g: memref<32768xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  return
}
