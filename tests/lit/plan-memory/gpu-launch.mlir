// RUN: tilemem opt %s -allow-unregistered-dialect -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory | FileCheck %s
// RUN: tilemem opt %s -allow-unregistered-dialect -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase | FileCheck %s
// RecursionIR gpu.launch_func (PlanMemory.cpp:288-291,
// regbase/PlanMemory.cpp:263-266): like a call, a launch writes every
// operand, so a buffer only a launch writes is planned (not refused with
// "read before first write"). Generic form: the reader has no custom
// syntax for the gpu dialect.
// CHECK-LABEL: func.func @launch_gens
// CHECK: %[[X:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: "gpu.launch_func"({{.*}}, %[[X]])
func.func @launch_gens(%o: memref<64xf32, #hivm.address_space<gm>>) {
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %x) {kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0>} : (index, index, index, index, index, index, memref<64xf32, #hivm.address_space<ub>>) -> ()
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
