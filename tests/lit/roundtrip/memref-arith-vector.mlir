// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// The custom forms of memref, arith, affine and vector ops print as
// mlir-opt prints them: result names from the op kind, constants named by
// value, maps as #map aliases, types from the values.

// CHECK: #map = affine_map<(d0)[s0] -> (d0 * 16 + s0)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (d0, 64)>
// CHECK-NEXT: module {
// CHECK-NEXT: memref.global "private" constant @table : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: func.func @forms(%arg0: memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>, %arg1: index, %arg2: memref<2048xi8, #hivm.address_space<ub>>, %arg3: memref<2xindex>, %arg4: vector<16xf16>) -> i1 {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: %0 = memref.get_global @table : memref<4xf32>
// CHECK-NEXT: %dim = memref.dim %arg0, %c0 : memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %reinterpret_cast = memref.reinterpret_cast %0 to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32, strided<[2, 1]>>
// CHECK-NEXT: %view = memref.view %arg2[%c0][%arg1] : memref<2048xi8, #hivm.address_space<ub>> to memref<?x4xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %reshape = memref.reshape %0(%arg3) : (memref<4xf32>, memref<2xindex>) -> memref<?x?xf32>
// CHECK-NEXT: %1 = memref.load %0[%c0] : memref<4xf32>
// CHECK-NEXT: memref.store %1, %0[%c0] : memref<4xf32>
// CHECK-NEXT: memref.copy %view, %arg0 : memref<?x4xf32, #hivm.address_space<ub>> to memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %2 = affine.apply #map(%arg1)[%dim]
// CHECK-NEXT: %3 = affine.min #map1(%2)
// CHECK-NEXT: %4 = arith.cmpi ult, %3, %arg1 : index
// CHECK-NEXT: %5 = arith.select %4, %3, %arg1 : index
// CHECK-NEXT: %6 = arith.index_cast %5 : index to i32
// CHECK-NEXT: %7 = arith.sitofp %6 : i32 to f16
// CHECK-NEXT: %8 = arith.addf %7, %cst fastmath<fast> : f16
// CHECK-NEXT: %9 = arith.cmpf oge, %8, %cst : f16
// CHECK-NEXT: %10 = vector.broadcast %8 : f16 to vector<16xf16>
// CHECK-NEXT: %11 = vector.create_mask %arg1 : vector<16xi1>
// CHECK-NEXT: %12 = vector.transfer_read %view[%c0, %c0], %cst, %11 {in_bounds = [true]} : memref<?x4xf32, #hivm.address_space<ub>>, vector<16xf16>
// CHECK-NEXT: vector.transfer_write %10, %view[%c0, %c0], %11 {in_bounds = [true]} : vector<16xf16>, memref<?x4xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %13 = builtin.unrealized_conversion_cast %view : memref<?x4xf32, #hivm.address_space<ub>> to memref<?x4xf32>
// CHECK-NEXT: return %9 : i1
// CHECK-NEXT: }
// CHECK-NEXT: }

#map = affine_map<(d0)[s0] -> (d0 * 16 + s0)>
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> {alignment = 64 : i64}
func.func @forms(%src: memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>, %n: index, %raw: memref<2048xi8, #hivm.address_space<ub>>, %shape: memref<2xindex>, %v: vector<16xf16>) -> i1 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f16
  %table = memref.get_global @table : memref<4xf32>
  %dim = memref.dim %src, %c0 : memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>
  %rc = memref.reinterpret_cast %table to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32, strided<[2, 1]>>
  %view = memref.view %raw[%c0][%n] : memref<2048xi8, #hivm.address_space<ub>> to memref<?x4xf32, #hivm.address_space<ub>>
  %re = memref.reshape %table(%shape) : (memref<4xf32>, memref<2xindex>) -> memref<?x?xf32>
  %x = memref.load %table[%c0] : memref<4xf32>
  memref.store %x, %table[%c0] : memref<4xf32>
  memref.copy %view, %src : memref<?x4xf32, #hivm.address_space<ub>> to memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>
  %i = affine.apply #map(%n)[%dim]
  %m = affine.min affine_map<(d0) -> (d0, 64)>(%i)
  %lt = arith.cmpi ult, %m, %n : index
  %s = arith.select %lt, %m, %n : index
  %i32 = arith.index_cast %s : index to i32
  %f = arith.sitofp %i32 : i32 to f16
  %sum = arith.addf %f, %cst fastmath<fast> : f16
  %ge = arith.cmpf oge, %sum, %cst : f16
  %b = vector.broadcast %sum : f16 to vector<16xf16>
  %mask = vector.create_mask %n : vector<16xi1>
  %r = vector.transfer_read %view[%c0, %c0], %cst, %mask {in_bounds = [true]} : memref<?x4xf32, #hivm.address_space<ub>>, vector<16xf16>
  vector.transfer_write %b, %view[%c0, %c0], %mask {in_bounds = [true]} : vector<16xf16>, memref<?x4xf32, #hivm.address_space<ub>>
  %u = builtin.unrealized_conversion_cast %view : memref<?x4xf32, #hivm.address_space<ub>> to memref<?x4xf32>
  return %ge : i1
}
