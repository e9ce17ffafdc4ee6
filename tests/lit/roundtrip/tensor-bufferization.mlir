// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// tensor, bufferization, memref_ext and annotation ops print by their
// upstream formats: result types the format omits are inferred
// (`to_tensor` from its memref, `extract` the element type, `dim` index),
// results get MLIR's names (%extracted_slice, %expanded, %dim, ...).
// CHECK: module {
// CHECK-NEXT: func.func @tensors(%arg0: memref<16x8xf16>, %arg1: index, %arg2: memref<?xi8>, %arg3: index, %arg4: f32) -> tensor<16x8xf16> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %0 = bufferization.to_tensor %arg0 restrict writable : memref<16x8xf16>
// CHECK-NEXT: %1 = tensor.empty(%arg1) : tensor<?x8xf16>
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %0[0, 0] [%arg1, 8] [1, 1] : tensor<16x8xf16> to tensor<?x8xf16>
// CHECK-NEXT: %inserted_slice = tensor.insert_slice %extracted_slice into %0[%arg3, 0] [%arg1, 8] [1, 1] : tensor<?x8xf16> into tensor<16x8xf16>
// CHECK-NEXT: %expanded = tensor.expand_shape %extracted_slice {{\[\[}}0], [1, 2]] output_shape [%arg1, 8, 1] : tensor<?x8xf16> into tensor<?x8x1xf16>
// CHECK-NEXT: %collapsed = tensor.collapse_shape %expanded {{\[\[}}0], [1, 2]] : tensor<?x8x1xf16> into tensor<?x8xf16>
// CHECK-NEXT: %dim = tensor.dim %collapsed, %c0 : tensor<?x8xf16>
// CHECK-NEXT: %extracted = tensor.extract %inserted_slice[%c0, %c0] : tensor<16x8xf16>
// CHECK-NEXT: %2 = memref_ext.alloc_workspace() from %arg2 offset = [%arg3] : from memref<?xi8> to memref<16x8xf16>
// CHECK-NEXT: %3 = memref_ext.alloc_workspace() : memref<2xf32>
// CHECK-NEXT: bufferization.materialize_in_destination %inserted_slice in writable %2 : (tensor<16x8xf16>, memref<16x8xf16>) -> ()
// CHECK-NEXT: %4 = bufferization.to_memref %inserted_slice : memref<16x8xf16>
// CHECK-NEXT: annotation.mark %3 keys = ["pad_const"] values = [%arg4 : f32] : memref<2xf32>
// CHECK-NEXT: return %inserted_slice : tensor<16x8xf16>
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @tensors(%m: memref<16x8xf16>, %n: index, %ws: memref<?xi8>, %off: index, %v: f32) -> tensor<16x8xf16> {
  %c0 = arith.constant 0 : index
  %t = bufferization.to_tensor %m restrict writable : memref<16x8xf16>
  %e = tensor.empty(%n) : tensor<?x8xf16>
  %s = tensor.extract_slice %t[0, 0] [%n, 8] [1, 1] : tensor<16x8xf16> to tensor<?x8xf16>
  %i = tensor.insert_slice %s into %t[%off, 0] [%n, 8] [1, 1] : tensor<?x8xf16> into tensor<16x8xf16>
  %x = tensor.expand_shape %s [[0], [1, 2]] output_shape [%n, 8, 1] : tensor<?x8xf16> into tensor<?x8x1xf16>
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<?x8x1xf16> into tensor<?x8xf16>
  %d = tensor.dim %c, %c0 : tensor<?x8xf16>
  %el = tensor.extract %i[%c0, %c0] : tensor<16x8xf16>
  %w = memref_ext.alloc_workspace() from %ws offset = [%off] : from memref<?xi8> to memref<16x8xf16>
  %l = memref_ext.alloc_workspace() : memref<2xf32>
  bufferization.materialize_in_destination %i in writable %w : (tensor<16x8xf16>, memref<16x8xf16>) -> ()
  %b = bufferization.to_memref %i : memref<16x8xf16>
  annotation.mark %l keys = ["pad_const"] values = [%v : f32] : memref<2xf32>
  return %i : tensor<16x8xf16>
}
