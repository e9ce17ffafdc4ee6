// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// MLIR's lexer skips whitespace between a type or attribute keyword and its
// `<...>` body (`strided <[16, 1]>`, `memref <...>`, `dense <...>`,
// `array <...>`, `#dialect.attr <...>`, `!dialect.type <...>`); the printer
// writes them without it.

// CHECK: #map = affine_map<(d0) -> (d0)>
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @whitespace(%arg0: memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, %arg1: memref<4x15xf16>, %arg2: vector<4xf32>, %arg3: tensor<4x?xf32>, %arg4: !foo.bar<1>) {
// CHECK-NEXT: %cst = arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK-NEXT: annotation.mark %arg1 {x = array<i32: 1, 2>, y = #hivm.address_space<ub>, z = #map} : memref<4x15xf16>
// CHECK-NEXT: %alloc = memref.alloc() : memref<4x15xf16, strided<[16, 1]>>
// CHECK-NEXT: "some.use"(%alloc) : (memref<4x15xf16, strided<[16, 1]>>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @whitespace(%a: memref<4x15xf16, strided <[16, 1]>, #hivm.address_space <ub>>, %b: memref <4x15xf16>, %c: vector <4xf32>, %d: tensor <4x?xf32>, %e: !foo.bar <1>) {
  %0 = arith.constant dense <1.0> : vector <4xf32>
  annotation.mark %b {x = array <i32: 1, 2>, y = #hivm.address_space <ub>, z = affine_map <(d0) -> (d0)>} : memref <4x15xf16>
  %e2 = memref.alloc() : memref<4x15xf16, strided< [16, 1] , offset : 0>>
  "some.use"(%e2) : (memref<4x15xf16, strided<[16, 1]>>) -> ()
  return
}
