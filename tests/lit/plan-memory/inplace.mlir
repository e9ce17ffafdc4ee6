// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file | FileCheck %s
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=restrict-inplace-as-isa=true -split-input-file | FileCheck %s --check-prefix=ISA
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file | FileCheck %s
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase=restrict-inplace-as-isa=true -split-input-file | FileCheck %s --check-prefix=ISA
// The register-based pass (regbase/PlanMemory.cpp:1238-1272) follows the
// same rules for these ops; where the two differ see inplace-branches.mlir.
// In-place reuse (IsReuseHIVMOp): an op's output takes the memory of an
// input that dies at the op.

// The ISA allows vadd in place: both addresses are 0, with or without
// restrict-inplace-as-isa.
// CHECK-LABEL: func.func @isa_vadd
// CHECK: %[[A:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: %[[B:.*]] = hivm.hir.pointer_cast(%c0_i64)
// ISA-LABEL: func.func @isa_vadd
// ISA: hivm.hir.pointer_cast(%c0_i64)
// ISA-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @isa_vadd(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%x, %x : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
// -----
// Elementwise ops with one element type reuse in place unless restricted
// to the ISA.
// CHECK-LABEL: func.func @elementwise_vexp
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// ISA-LABEL: func.func @elementwise_vexp
// ISA: hivm.hir.pointer_cast(%c0_i64)
// ISA-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @elementwise_vexp(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
// -----
// A larger output never takes a smaller dead input (f16 to f32).
// CHECK-LABEL: func.func @larger_gen
// CHECK: hivm.hir.pointer_cast(%c0_i64) : memref<64xf16
// CHECK-NEXT: hivm.hir.pointer_cast(%c128_i64) : memref<64xf32
func.func @larger_gen(%a: memref<64xf16, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf16, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf16, #hivm.address_space<gm>>) outs(%x : memref<64xf16, #hivm.address_space<ub>>)
  hivm.hir.vcast ins(%x : memref<64xf16, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
// -----
// An inline transpose is never in place.
// CHECK-LABEL: func.func @transpose
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @transpose(%a: memref<8x8xf32, #hivm.address_space<gm>>, %o: memref<8x8xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<8x8xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<8x8xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<8x8xf32, #hivm.address_space<gm>>) outs(%x : memref<8x8xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%x : memref<8x8xf32, #hivm.address_space<ub>>) outs(%y : memref<8x8xf32, #hivm.address_space<ub>>) transpose = [1, 0]
  hivm.hir.store ins(%y : memref<8x8xf32, #hivm.address_space<ub>>) outs(%o : memref<8x8xf32, #hivm.address_space<gm>>)
  return
}
// -----
// A narrowing cast of rank 1 reuses in place; of rank 2 it may be lifted
// by the library and does not (isReusableCastOp).
// CHECK-LABEL: func.func @cast_rank1
// CHECK: hivm.hir.pointer_cast(%c0_i64) : memref<64xf32
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64) : memref<64xf16
func.func @cast_rank1(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf16, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vcast ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf16, #hivm.address_space<ub>>) round_mode = <rint>
  hivm.hir.store ins(%y : memref<64xf16, #hivm.address_space<ub>>) outs(%o : memref<64xf16, #hivm.address_space<gm>>)
  return
}
// CHECK-LABEL: func.func @cast_rank2
// CHECK: hivm.hir.pointer_cast(%c0_i64) : memref<8x8xf32
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64) : memref<8x8xf16
func.func @cast_rank2(%a: memref<8x8xf32, #hivm.address_space<gm>>, %o: memref<8x8xf16, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<8x8xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<8x8xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<8x8xf32, #hivm.address_space<gm>>) outs(%x : memref<8x8xf32, #hivm.address_space<ub>>)
  hivm.hir.vcast ins(%x : memref<8x8xf32, #hivm.address_space<ub>>) outs(%y : memref<8x8xf16, #hivm.address_space<ub>>) round_mode = <rint>
  hivm.hir.store ins(%y : memref<8x8xf16, #hivm.address_space<ub>>) outs(%o : memref<8x8xf16, #hivm.address_space<gm>>)
  return
}
// -----
// An input still needed later is not reused; a temporary buffer is never
// reused in place.
// CHECK-LABEL: func.func @live_input_and_temp
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : i64
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : i64
// CHECK: hivm.hir.pointer_cast(%[[C0]]) : memref<64xf32
// CHECK-NEXT: hivm.hir.pointer_cast(%[[C256]]) : memref<64xf32
// CHECK-NEXT: hivm.hir.pointer_cast(%[[C512]]) : memref<64xf32
func.func @live_input_and_temp(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %t = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>) temp_buffer(%t : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
