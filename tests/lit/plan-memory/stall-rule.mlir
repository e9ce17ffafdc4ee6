// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase=enable-print-memory-allocated-size=true | FileCheck %s --check-prefix=RB
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory | FileCheck %s --check-prefix=MB
// The stall rule (InplaceStallPipeline) is the memory-based pass's: there,
// a multi-buffered output that reaches a store never takes the memory of
// a multi-buffered input that reaches a load. The register-based pass
// reuses it in place. With enable-print-memory-allocated-size the
// register-based pass prints the UB bits it uses.
// RB: [AscendNPU IR] Allocated UB size = 1024 bits
// RB: scf.for
// RB-NEXT: %[[OUT:.*]] = hivm.hir.pointer_cast(%c0_i64, %c64_i64)
// RB: %[[IN:.*]] = hivm.hir.pointer_cast(%c0_i64, %c64_i64)
// RB: hivm.hir.vadd ins(%[[IN]], %{{.*}} : {{.*}}) outs(%[[OUT]] :
// MB: scf.for
// MB-NEXT: %[[OUT:.*]] = hivm.hir.pointer_cast(%c64_i64, %c160_i64)
// MB: hivm.hir.vadd ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%[[OUT]] :
func.func @stall_rule_is_membase_only(%arg0 : memref<16xf16, #hivm.address_space<gm>>, %arg1 : memref<16xf16, #hivm.address_space<gm>>, %arg2 : memref<16xf16, #hivm.address_space<gm>>) {
  %start = arith.constant 0 : index
  %end = arith.constant 1024 : index
  %step = arith.constant 128 : index
  scf.for %iv = %start to %end step %step {
    %alloc_0 = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    annotation.mark %alloc_0 {hivm.multi_buffer = 2 : i32} : memref<16xf16, #hivm.address_space<ub>>
    %alloc_1 = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    %alloc_2 = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    annotation.mark %alloc_2 {hivm.multi_buffer = 2 : i32} : memref<16xf16, #hivm.address_space<ub>>
    %alloc_3 = memref.alloc() : memref<16xf16, #hivm.address_space<ub>>
    annotation.mark %alloc_3 {hivm.multi_buffer = 2 : i32} : memref<16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<16xf16, #hivm.address_space<gm>>) outs(%alloc_0 : memref<16xf16, #hivm.address_space<ub>>)
    hivm.hir.load ins(%arg1 : memref<16xf16, #hivm.address_space<gm>>) outs(%alloc_2 : memref<16xf16, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%alloc_0, %alloc_0 : memref<16xf16, #hivm.address_space<ub>>, memref<16xf16, #hivm.address_space<ub>>) outs(%alloc_1 : memref<16xf16, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%alloc_1, %alloc_2 : memref<16xf16, #hivm.address_space<ub>>, memref<16xf16, #hivm.address_space<ub>>) outs(%alloc_3 : memref<16xf16, #hivm.address_space<ub>>)
    hivm.hir.store ins(%alloc_3 : memref<16xf16, #hivm.address_space<ub>>) outs(%arg2 : memref<16xf16, #hivm.address_space<gm>>)
  }
  return
}
