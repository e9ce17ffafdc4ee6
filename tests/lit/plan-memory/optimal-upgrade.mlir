// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=bishengir -quiet | FileCheck %s --check-prefix=REF
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal -quiet | FileCheck %s
// The reference's level-1 upgrade: %b, placed over the double buffer %a
// of its loop (levels 3 and 2 refuse: both are DMA buffers of one loop),
// takes as many slots as %a, at %a's offsets. The optimal planner finds a
// placement with a lower reuse penalty and takes it, and %b keeps its two
// slots there (each extra slot is one more buffer of the problem, live
// with %b), so planner=optimal never loses a double buffer the reference
// made, and never uses more bytes. (The buffers before the loop are
// those of optimal.mlir's @smaller, where the lower penalty comes from.)
// REF-LABEL: func.func @upgraded
// REF: hivm.hir.pointer_cast(%c0_i64, %c65536_i64) : memref<16384xf32
// REF: hivm.hir.pointer_cast(%c131072_i64) : memref<16384xf32
// REF: hivm.hir.pointer_cast(%c0_i64, %c65536_i64) : memref<16384xf32
// SUM: [summary] @upgraded ub: optimal 196608 bytes, penalty 25 (proven); bishengir 196608 bytes, penalty 31; optimal placement used
// CHECK-LABEL: func.func @upgraded
// CHECK: hivm.hir.pointer_cast(%{{c[0-9]+_i64}}, %{{c[0-9]+_i64}}) : memref<16384xf32
// CHECK: hivm.hir.pointer_cast(%{{c[0-9]+_i64}}) : memref<16384xf32
// CHECK: hivm.hir.pointer_cast(%{{c[0-9]+_i64}}, %{{c[0-9]+_i64}}) : memref<16384xf32
func.func @upgraded(%g: memref<16384xf32, #hivm.address_space<gm>>, %g0: memref<8192xf16, #hivm.address_space<gm>>, %g1: memref<40960xf16, #hivm.address_space<gm>>, %g2: memref<49152xf16, #hivm.address_space<gm>>, %g3: memref<8192xf16, #hivm.address_space<gm>>) {
  %a0 = memref.alloc() : memref<8192xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g0 : memref<8192xf16, #hivm.address_space<gm>>) outs(%a0 : memref<8192xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a0 : memref<8192xf16, #hivm.address_space<ub>>) outs(%g0 : memref<8192xf16, #hivm.address_space<gm>>)
  %a1 = memref.alloc() : memref<40960xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g1 : memref<40960xf16, #hivm.address_space<gm>>) outs(%a1 : memref<40960xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a1 : memref<40960xf16, #hivm.address_space<ub>>) outs(%g1 : memref<40960xf16, #hivm.address_space<gm>>)
  %a2 = memref.alloc() : memref<49152xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g2 : memref<49152xf16, #hivm.address_space<gm>>) outs(%a2 : memref<49152xf16, #hivm.address_space<ub>>)
  %a3 = memref.alloc() : memref<8192xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g3 : memref<8192xf16, #hivm.address_space<gm>>) outs(%a3 : memref<8192xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a2 : memref<49152xf16, #hivm.address_space<ub>>) outs(%g2 : memref<49152xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%a3 : memref<8192xf16, #hivm.address_space<ub>>) outs(%g3 : memref<8192xf16, #hivm.address_space<gm>>)
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.multi_buffer = 2 : i32} : memref<16384xf32, #hivm.address_space<ub>>
    %c = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%a : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%c : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%a, %c : memref<16384xf32, #hivm.address_space<ub>>, memref<16384xf32, #hivm.address_space<ub>>) outs(%c : memref<16384xf32, #hivm.address_space<ub>>)
    %b = memref.alloc() : memref<16384xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16384xf32, #hivm.address_space<gm>>) outs(%b : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%b, %c : memref<16384xf32, #hivm.address_space<ub>>, memref<16384xf32, #hivm.address_space<ub>>) outs(%c : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%c : memref<16384xf32, #hivm.address_space<ub>>) outs(%g : memref<16384xf32, #hivm.address_space<gm>>)
  }
  return
}
