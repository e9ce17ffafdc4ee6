// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -quiet -o %t.once.mlir
// RUN: tilemem opt %t.once.mlir -hivm-plan-memory -quiet -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: tilemem opt %t.once.mlir -hivm-plan-memory=planner=optimal -quiet -o %t.opt.mlir
// RUN: diff %t.once.mlir %t.opt.mlir
// RUN: FileCheck %s --input-file=%t.twice.mlir
// Planning planned IR is a fixed point: a function whose buffers are all
// pointer casts (the pass's own output) is left as it is. (The reference
// never re-plans in bishengir's pipeline, and rejects a pointer cast as an
// unknown op touching a local buffer; a function mixing allocations and
// pointer casts is still rejected so: diagnostics.mlir.)
// CHECK-LABEL: func.func @two
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: hivm.hir.pointer_cast(%c65536_i64)
// CHECK-LABEL: func.func @db
// CHECK: hivm.hir.pointer_cast(%c0_i64, %c16384_i64)
// CHECK-NOT: memref.alloc
func.func @two(%g: memref<32768xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  %b = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf16, #hivm.address_space<gm>>) outs(%b : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%b : memref<32768xf16, #hivm.address_space<ub>>) outs(%g : memref<32768xf16, #hivm.address_space<gm>>)
  return
}

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
