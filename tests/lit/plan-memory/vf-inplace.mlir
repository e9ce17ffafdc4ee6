// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory | FileCheck %s --check-prefixes=CHECK,REACH
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase | FileCheck %s --check-prefixes=CHECK,REACH
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=disable-vf-reachable-check=true | FileCheck %s --check-prefixes=CHECK,NOCHECK
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase=disable-vf-reachable-check=true | FileCheck %s --check-prefixes=CHECK,NOCHECK
// In-place reuse across a call of a vector function, both passes
// (GenerateInplaceList's isVFInplacePair, IsReuseVFCall and
// IsInplaceReuseReachable: PlanMemory.cpp:1403-1441, regbase/PlanMemory.cpp:
// 1274-1313). @copy_vf reads %r once and writes %w once, so at the call %w
// may take %k's memory, unless the call is in a loop and %w reaches a store
// (MTE3) while %k reaches a load (MTE2): then the next iteration's load
// would wait for this one's store. disable-vf-reachable-check skips the
// reachability test. Everything fits: shared addresses are in-place pairs.

// CHECK-LABEL: func.func @vf_outside_loop
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// CHECK-LABEL: func.func @vf_in_loop
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// REACH-NEXT: hivm.hir.pointer_cast(%c256_i64)
// NOCHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// A vector op between the call and the store: at the call %w does not
// reach the store yet (its in-place partner %v is paired later), so it
// reuses %k, and %v then reuses %w.
// CHECK-LABEL: func.func @vf_in_loop_no_dma
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @copy_vf(%r: memref<64xf32, #hivm.address_space<ub>>, %w: memref<64xf32, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.000000e+00 : f32
  %0 = vector.transfer_read %r[%c0], %z {in_bounds = [true]} : memref<64xf32, #hivm.address_space<ub>>, vector<64xf32>
  %1 = math.exp %0 : vector<64xf32>
  vector.transfer_write %1, %w[%c0] {in_bounds = [true]} : vector<64xf32>, memref<64xf32, #hivm.address_space<ub>>
  return
}
func.func @vf_outside_loop(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %k = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %w = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%k : memref<64xf32, #hivm.address_space<ub>>)
  call @copy_vf(%k, %w) {hivm.vector_function} : (memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) -> ()
  hivm.hir.store ins(%w : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
func.func @vf_in_loop(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    %w = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%k : memref<64xf32, #hivm.address_space<ub>>)
    func.call @copy_vf(%k, %w) {hivm.vector_function} : (memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) -> ()
    hivm.hir.store ins(%w : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  }
  return
}
func.func @vf_in_loop_no_dma(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    %w = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    %v = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%k : memref<64xf32, #hivm.address_space<ub>>)
    func.call @copy_vf(%k, %w) {hivm.vector_function} : (memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) -> ()
    hivm.hir.vexp ins(%w : memref<64xf32, #hivm.address_space<ub>>) outs(%v : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%v : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  }
  return
}
