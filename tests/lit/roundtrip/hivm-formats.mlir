// RUN: tilemem opt -allow-unregistered-dialect %s | FileCheck %s
// RUN: tilemem opt -allow-unregistered-dialect %s | tilemem opt -allow-unregistered-dialect - | FileCheck %s
// hivm ops print by their ODS formats, as the AscendNPU-IR tests' CHECK
// lines show bishengir-opt printing them: enums inside the format without
// their #hivm prefix (`round_mode = <round>`, `[<PIPE_MTE1>, ...]`), the
// format's order of clauses and spacing (`ctrl[6]`, `<add>[type = f32]`),
// attributes set to their default still printed when written
// (`unsigned_src = false`), and a bare op ending at its line.
// CHECK: module {
// CHECK-NEXT: func.func @vector(%arg0: memref<2x16xf32>, %arg1: memref<2x16xf16>, %arg2: memref<2x16xi1>, %arg3: tensor<1x1xf32>, %arg4: tensor<2x2xf32>, %arg5: tensor<32x32xf16>, %arg6: tensor<32x1xf16>, %arg7: tensor<32x1xi32>) {
// CHECK-NEXT: hivm.hir.vcast ins(%arg0 : memref<2x16xf32>) outs(%arg1 : memref<2x16xf16>) round_mode = <round>
// CHECK-NEXT: hivm.hir.vcmp {tag} ins(%arg1, %arg1 : memref<2x16xf16>, memref<2x16xf16>) outs(%arg2 : memref<2x16xi1>) compare_mode = <ne>
// CHECK-NEXT: %0 = hivm.hir.vbrc ins(%arg3 : tensor<1x1xf32>) outs(%arg4 : tensor<2x2xf32>) broadcast_dims = [0, 1] -> tensor<2x2xf32>
// CHECK-NEXT: %1:2 = hivm.hir.vreduce <min_with_index_left> ins(%arg5 : tensor<32x32xf16>) outs(%arg6, %arg7 : tensor<32x1xf16>, tensor<32x1xi32>) unsigned_src = false tie_break_left = true reduce_dims = [1] -> tensor<32x1xf16>, tensor<32x1xi32>
// CHECK-NEXT: hivm.hir.vsort ins(%arg0 : memref<2x16xf32>) outs(%arg0 : memref<2x16xf32>) descending = true sort_axis = 1
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: func.func @sync() {
// CHECK-NEXT: hivm.hir.set_mask_norm
// CHECK-NEXT: hivm.hir.set_ctrl true at ctrl[6]
// CHECK-NEXT: hivm.hir.set_atomic kind = <add>[type = f32]
// CHECK-NEXT: hivm.hir.set_flag[<PIPE_MTE1>, <PIPE_MTE3>, <EVENT_ID0>]
// CHECK-NEXT: hivm.hir.wait_flag[<PIPE_MTE1>, <PIPE_MTE3>, <EVENT_ID0>]
// CHECK-NEXT: %0 = hivm.hir.multi_buffer_counter -> i64
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: func.func @concat(%arg0: tensor<2x16xi1>, %arg1: tensor<2x16xi1>, %arg2: tensor<2x32xi1>) -> tensor<2x32xi1> {
// CHECK-NEXT: %0 = hivm.hir.vconcat dim(1) ins(%arg0, %arg1 : tensor<2x16xi1>, tensor<2x16xi1>) outs(%arg2 : tensor<2x32xi1>) -> tensor<2x32xi1>
// CHECK-NEXT: return %0 : tensor<2x32xi1>
// CHECK-NEXT: }
// CHECK-NEXT: }

func.func @vector(%a: memref<2x16xf32>, %b: memref<2x16xf16>, %m: memref<2x16xi1>, %t: tensor<1x1xf32>, %u: tensor<2x2xf32>, %s: tensor<32x32xf16>, %r: tensor<32x1xf16>, %i: tensor<32x1xi32>) {
  hivm.hir.vcast ins(%a : memref<2x16xf32>) outs(%b : memref<2x16xf16>) round_mode = #hivm.round_mode<round>
  hivm.hir.vcmp {tag} ins(%b, %b : memref<2x16xf16>, memref<2x16xf16>) outs(%m : memref<2x16xi1>) compare_mode = #hivm.compare_mode<ne>
  %0 = hivm.hir.vbrc ins(%t : tensor<1x1xf32>) outs(%u : tensor<2x2xf32>) broadcast_dims = [0, 1] -> tensor<2x2xf32>
  %1:2 = hivm.hir.vreduce <min_with_index_left> ins(%s : tensor<32x32xf16>) outs(%r, %i : tensor<32x1xf16>, tensor<32x1xi32>) unsigned_src = false tie_break_left = true reduce_dims = [1] -> tensor<32x1xf16>, tensor<32x1xi32>
  hivm.hir.vsort ins(%a : memref<2x16xf32>) outs(%a : memref<2x16xf32>) descending = true sort_axis = 1
  return
}
func.func @sync() {
  hivm.hir.set_mask_norm
  hivm.hir.set_ctrl true at ctrl [6]
  hivm.hir.set_atomic kind = #hivm.atomic_kind<add> [type = f32]
  hivm.hir.set_flag [#hivm.pipe<PIPE_MTE1>, #hivm.pipe<PIPE_MTE3>, #hivm.event<EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_MTE1>, <PIPE_MTE3>, <EVENT_ID0>]
  %c = hivm.hir.multi_buffer_counter -> i64
  return
}
func.func @concat(%x: tensor<2x16xi1>, %y: tensor<2x16xi1>, %d: tensor<2x32xi1>) -> tensor<2x32xi1> {
  %0 = hivm.hir.vconcat dim(1) ins(%x, %y: tensor<2x16xi1>, tensor<2x16xi1>) outs(%d : tensor<2x32xi1>) -> tensor<2x32xi1>
  return %0 : tensor<2x32xi1>
}
