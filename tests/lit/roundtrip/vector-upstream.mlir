// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Upstream vector ops in their LLVM 19 assembly formats
// (VectorOps.td): multi_reduction's attribute dictionary comes before the
// reduction dims; extractelement/insertelement with and without a
// position; extract/insert with static and dynamic positions; the
// transfers elide a minor identity permutation map and an all-false
// in_bounds (printTransferAttrs).

// CHECK: module {
// CHECK-NEXT: func.func @v(%arg0: vector<4x8xf32>, %arg1: vector<4xf32>, %arg2: index, %arg3: i32, %arg4: vector<16xf32>, %arg5: vector<f32>, %arg6: memref<4x8xf32>, %arg7: f32, %arg8: vector<4x8xi1>) {
// CHECK-NEXT: %0 = vector.multi_reduction <add>, %arg0, %arg1 [1] : vector<4x8xf32> to vector<4xf32>
// CHECK-NEXT: %1 = vector.multi_reduction <maximumf>, %arg0, %arg1 {fastmath = #arith.fastmath<fast>} [1] : vector<4x8xf32> to vector<4xf32>
// CHECK-NEXT: %2 = vector.extractelement %arg4[%arg3 : i32] : vector<16xf32>
// CHECK-NEXT: %3 = vector.extractelement %arg5[] : vector<f32>
// CHECK-NEXT: %4 = vector.insertelement %arg7, %arg4[%arg2 : index] : vector<16xf32>
// CHECK-NEXT: %5 = vector.extract %arg0[0, %arg2] : f32 from vector<4x8xf32>
// CHECK-NEXT: %6 = vector.insert %arg7, %arg0 [1, 2] : f32 into vector<4x8xf32>
// CHECK-NEXT: %7 = vector.reduction <add>, %arg4 : vector<16xf32> into f32
// CHECK-NEXT: %8 = vector.reduction <add>, %arg4, %arg7 : vector<16xf32> into f32
// CHECK-NEXT: %9 = vector.shape_cast %arg0 : vector<4x8xf32> to vector<32xf32>
// CHECK-NEXT: %10 = vector.broadcast %arg7 : f32 to vector<16xf32>
// CHECK-NEXT: %11 = vector.transpose %arg0, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
// CHECK-NEXT: %12 = vector.splat %arg7 : vector<16xf32>
// CHECK-NEXT: %13 = vector.fma %arg4, %arg4, %arg4 : vector<16xf32>
// CHECK-NEXT: %14 = vector.constant_mask [2, 3] : vector<4x8xi1>
// CHECK-NEXT: %15 = vector.create_mask %arg2, %arg2 : vector<4x8xi1>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %16 = vector.transfer_read %arg6[%c0, %c0], %arg7 {in_bounds = [true, false]} : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NEXT: %17 = vector.transfer_read %arg6[%c0, %c0], %arg7, %arg8 : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NEXT: vector.transfer_write %arg0, %arg6[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
// CHECK-NEXT: %18 = vector.load %arg6[%c0, %c0] : memref<4x8xf32>, vector<8xf32>
// CHECK-NEXT: vector.store %arg4, %arg6[%c0, %c0] : memref<4x8xf32>, vector<16xf32>
// CHECK-NEXT: vector.mask %arg8 {
// CHECK-NEXT: vector.transfer_write %arg0, %arg6[%c0, %c0] : vector<4x8xf32>, memref<4x8xf32>
// CHECK-NEXT: } : vector<4x8xi1>
// CHECK-NEXT: %19 = vector.bitcast %arg4 : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: %20 = vector.from_elements %arg7, %arg7 : vector<2xf32>
// CHECK-NEXT: %21 = vector.maskedload %arg6[%c0, %c0], %14, %arg0 : memref<4x8xf32>, vector<4x8xi1>, vector<4x8xf32> into vector<4x8xf32>
// CHECK-NEXT: %22 = vector.step : vector<4xindex>
// CHECK-NEXT: %23 = vector.interleave %arg4, %arg4 : vector<16xf32> -> vector<32xf32>
// CHECK-NEXT: %24:2 = vector.deinterleave %arg4 : vector<16xf32> -> vector<8xf32>
// CHECK-NEXT: %25 = vector.shuffle %arg4, %arg4 [0, 17] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @v(%v: vector<4x8xf32>, %acc: vector<4xf32>, %i: index, %j: i32, %s: vector<16xf32>, %z: vector<f32>, %m: memref<4x8xf32>, %f: f32, %mask: vector<4x8xi1>) {
  %0 = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  %1 = vector.multi_reduction <maximumf>, %v, %acc {fastmath = #arith.fastmath<fast>} [1] : vector<4x8xf32> to vector<4xf32>
  %2 = vector.extractelement %s[%j : i32] : vector<16xf32>
  %3 = vector.extractelement %z[] : vector<f32>
  %4 = vector.insertelement %f, %s[%i : index] : vector<16xf32>
  %5 = vector.extract %v[0, %i] : f32 from vector<4x8xf32>
  %6 = vector.insert %f, %v[1, 2] : f32 into vector<4x8xf32>
  %7 = vector.reduction <add>, %s : vector<16xf32> into f32
  %8 = vector.reduction <add>, %s, %f : vector<16xf32> into f32
  %9 = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>
  %10 = vector.broadcast %f : f32 to vector<16xf32>
  %11 = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %12 = vector.splat %f : vector<16xf32>
  %13 = vector.fma %s, %s, %s : vector<16xf32>
  %14 = vector.constant_mask [2, 3] : vector<4x8xi1>
  %15 = vector.create_mask %i, %i : vector<4x8xi1>
  %c0 = arith.constant 0 : index
  %16 = vector.transfer_read %m[%c0, %c0], %f {in_bounds = [true, false]} : memref<4x8xf32>, vector<4x8xf32>
  %17 = vector.transfer_read %m[%c0, %c0], %f, %mask {permutation_map = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x8xf32>, vector<4x8xf32>
  vector.transfer_write %v, %m[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  %18 = vector.load %m[%c0, %c0] : memref<4x8xf32>, vector<8xf32>
  vector.store %s, %m[%c0, %c0] : memref<4x8xf32>, vector<16xf32>
  vector.mask %mask { vector.transfer_write %v, %m[%c0, %c0] : vector<4x8xf32>, memref<4x8xf32> } : vector<4x8xi1>
  %20 = vector.bitcast %s : vector<16xf32> to vector<16xi32>
  %21 = vector.from_elements %f, %f : vector<2xf32>
  %22 = vector.maskedload %m[%c0, %c0], %14, %v : memref<4x8xf32>, vector<4x8xi1>, vector<4x8xf32> into vector<4x8xf32>
  %23 = vector.step : vector<4xindex>
  %24 = vector.interleave %s, %s : vector<16xf32> -> vector<32xf32>
  %25, %26 = vector.deinterleave %s : vector<16xf32> -> vector<8xf32>
  %27 = vector.shuffle %s, %s [0, 17] : vector<16xf32>, vector<16xf32>
  return
}
