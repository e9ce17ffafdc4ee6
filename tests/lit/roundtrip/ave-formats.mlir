// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// ave ops print by their ODS formats; result types the format leaves out
// come from the op's AllTypesMatch trait (`ave.hir.vadd` returns the type
// of its operands).
// CHECK: module {
// CHECK-NEXT: func.func @ave(%arg0: memref<?xf16, #hivm.address_space<ub>>, %arg1: vector<64xf32>, %arg2: vector<64xf32>, %arg3: f32) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %0 = ave.hir.vload <NORM> %arg0[%c0] : memref<?xf16, #hivm.address_space<ub>> into vector<64xf16>
// CHECK-NEXT: %1 = ave.hir.pge <ALL> : vector<64xi1>
// CHECK-NEXT: %2 = ave.hir.vextf %0, <part_even>, %1 : vector<64xf16>, vector<64xf32>, vector<64xi1>
// CHECK-NEXT: %3 = ave.hir.vadd %arg1, %arg2, %1 {reductionOp} : vector<64xf32>, vector<64xi1>
// CHECK-NEXT: %4 = ave.hir.scalar_broadcast %arg3 : f32 -> vector<f32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @ave(%m: memref<?xf16, #hivm.address_space<ub>>, %x: vector<64xf32>, %y: vector<64xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %r = ave.hir.vload <NORM> %m[%c0] : memref<?xf16, #hivm.address_space<ub>> into vector<64xf16>
  %p = ave.hir.pge <ALL> : vector<64xi1>
  %e = ave.hir.vextf %r, <part_even>, %p : vector<64xf16>, vector<64xf32>, vector<64xi1>
  %s = ave.hir.vadd %x, %y, %p {reductionOp} : vector<64xf32>, vector<64xi1>
  %b = ave.hir.scalar_broadcast %f : f32 -> vector<f32>
  return
}
