// RUN: tilemem opt -split-input-file %s | FileCheck %s
// RUN: tilemem opt -split-input-file %s | tilemem opt -split-input-file - | FileCheck %s
// hivm.hir.custom/custom_macro as bishengir-opt prints them (the CHECK
// lines of AscendNPU-IR's custom-op-bufferize-inplace.mlir): the attribute
// dictionary first, the callee string, then `ins(...)` whose types each
// carry their per-operand dictionary (kept as `arg_attrs`, one dictionary
// per input, empty ones not written), `outs(...)` and the result types.

// CHECK-LABEL: func.func @inplace
// CHECK: %[[T:.*]] = bufferization.to_tensor %arg0 restrict writable : memref<256xf32>
// CHECK-NEXT: %{{.*}} = hivm.hir.custom {hivm.pipe = #hivm.pipe<PIPE_V>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, symbol = "k_inplace"} "user.inplace" ins(%[[T]] : tensor<256xf32> {inplace_outs = 0 : i32}) outs(%[[T]] : tensor<256xf32>) -> tensor<256xf32>
func.func @inplace(%arg0 : memref<256xf32>) {
  %in = bufferization.to_tensor %arg0 restrict writable : memref<256xf32>
  %0 = hivm.hir.custom
      {hivm.tcore_type = #hivm.tcore_type<VECTOR>,
       hivm.pipe = #hivm.pipe<PIPE_V>,
       symbol = "k_inplace"}
      "user.inplace"
      ins(%in : tensor<256xf32> {inplace_outs = 0 : i32})
      outs(%in : tensor<256xf32>) -> tensor<256xf32>
  return
}

// -----

// Only the second input carries a dictionary; two results print `%0:2`.
// CHECK-LABEL: func.func @variadic
// CHECK: %{{.*}}:2 = hivm.hir.custom_macro {hivm.pipe_in = #hivm.pipe<PIPE_MTE2>, hivm.pipe_out = #hivm.pipe<PIPE_V>, symbol = "k_macro"} "user.macro" ins(%arg0, %arg1 : tensor<128xf32>, tensor<128xf32> {inplace_outs = 0 : i32, note = "x"}) outs(%arg1, %arg2 : tensor<128xf32>, tensor<128xf32>) -> (tensor<128xf32>, tensor<128xf32>)
func.func @variadic(%arg0: tensor<128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<128xf32>) {
  %0:2 = hivm.hir.custom_macro {symbol = "k_macro", hivm.pipe_in = #hivm.pipe<PIPE_MTE2>, hivm.pipe_out = #hivm.pipe<PIPE_V>}
      "user.macro"
      ins(%arg0, %arg1 : tensor<128xf32>, tensor<128xf32> {note = "x", inplace_outs = 0 : i32})
      outs(%arg1, %arg2 : tensor<128xf32>, tensor<128xf32>) -> (tensor<128xf32>, tensor<128xf32>)
  return
}

// -----

// A custom op without per-operand dictionaries has no `arg_attrs`.
// CHECK-LABEL: func.func @plain
// CHECK: hivm.hir.custom {symbol = "k"} "user.plain" ins(%arg0 : memref<16xf32>) outs(%arg0 : memref<16xf32>)
// CHECK-NOT: arg_attrs
func.func @plain(%arg0: memref<16xf32>) {
  hivm.hir.custom {symbol = "k"} "user.plain" ins(%arg0 : memref<16xf32>) outs(%arg0 : memref<16xf32>)
  return
}
