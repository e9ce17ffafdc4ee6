// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -quiet -map=%t.html -o /dev/null
// RUN: FileCheck %s --input-file=%t.html --check-prefix=HTML
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -quiet --map %t.svg -o /dev/null
// RUN: FileCheck %s --input-file=%t.svg --check-prefix=SVG
// RUN: tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not tilemem opt %s -hivm-plan-memory -map=%t.txt 2>&1 | FileCheck %s --check-prefix=BADEXT
// RUN: rm -f %t.out
// RUN: not tilemem opt %s -split-input-file -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -quiet -map=%t.missing/m.html -o %t.out 2>&1 | FileCheck %s --check-prefix=NOWRITE
// RUN: not test -e %t.out
// RUN: not tilemem opt %s -hivm-align-alloc-size -map=%t.none.html 2>&1 | FileCheck %s --check-prefix=NOPLAN
// -map=FILE.html|svg (or --map FILE) draws what -hivm-plan-memory placed,
// with the renderer of `tilemem plan --map`: per (function, space) a lane
// of the allocations' slots (address up, op number right), the capacity,
// the lower bound and the peak. A function that overflows is drawn as
// planned with larger capacities, against the real one, and the map's
// note says so (opt-map-overflow.mlir).

// HTML: "title":"{{.*}}opt-map.mlir","note":null
// HTML: "planner":"bishengir","lanes":[{"function":"two","space":"ub","capacity":196608,"used":131072,"lower_bound":65536
// HTML-SAME: "rects":[{"name":"%alloc","group":"%alloc","start":0,"end":65536,"t0":{{[0-9]+}},"t1":{{[0-9]+}},"line":[[@LINE+17]]
// HTML-SAME: {"name":"%alloc_0","group":"%alloc_0","start":65536,"end":131072,"t0":{{[0-9]+}},"t1":{{[0-9]+}},"line":[[@LINE+19]]
// HTML: {"function":"db","space":"ub","capacity":196608
// HTML-SAME: "name":"%alloc [slot 1/2]"
// HTML-SAME: "name":"%alloc [slot 2/2]"
// SVG: <svg xmlns="http://www.w3.org/2000/svg" width="960" height="1080"
// SVG: two / ub ({{.*}}opt-map.mlir)
// SVG: 2 buffers, 128 KiB used of 192 KiB (66.7 %), lower bound 64 KiB
// SVG: db / ub ({{.*}}opt-map.mlir)
// SVG: </svg>
// The summary line of each space (a double buffer's slots counted).
// SUM: [summary] two/ub: 131072 / 196608 bytes (66.7 %), lower bound 65536, allocations 2 -> 2 buffers, planner bishengir
// SUM-NEXT: [summary] db/ub: 32768 / 196608 bytes (16.7 %), lower bound 32768, allocations 1 (2 slots) -> 2 buffers, planner bishengir
// BADEXT: tilemem opt: --map {{.*}}.txt: name a file ending in .html (interactive) or .svg (static)
// NOWRITE: tilemem opt: cannot write {{.*}}.missing/m.html: No such file or directory (os error 2); nothing was written
// NOPLAN: tilemem opt: -map={{.*}}none.html draws the plan of -hivm-plan-memory or -hivm-plan-memory-regbase: add one of them
func.func @two(%g: memref<32768xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  %b = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%b : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%b : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  return
}

// -----

func.func @db(%g: memref<4096xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<4096xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.multi_buffer = 2 : i32} : memref<4096xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<4096xf32, #hivm.address_space<gm>>) outs(%a : memref<4096xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%a : memref<4096xf32, #hivm.address_space<ub>>) outs(%g : memref<4096xf32, #hivm.address_space<gm>>)
  }
  return
}
