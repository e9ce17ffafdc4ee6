// RUN: tilemem opt -allow-unregistered-dialect -hivm-enable-stride-align -split-input-file %s | FileCheck %s
// EnableStrideAlign.cpp, branch by branch (membase unless a regbase
// hacc.target is given).

// runOnOperation: host functions are skipped (no padding, no
// hivm.storage_aligned).
// CHECK-LABEL: func.func @host(
// CHECK-SAME: ) attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[ALLOC]] : memref<4x15xf16, #hivm.address_space<ub>>) outs(%[[ALLOC]] : memref<4x15xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @host() attributes {hacc.function_kind = #hacc.function_kind<HOST>} {
  %a = memref.alloc() : memref<4x15xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<4x15xf16, #hivm.address_space<ub>>) outs(%a : memref<4x15xf16, #hivm.address_space<ub>>)
  return
}

// -----

// AddAlignAnnotationMarkForAlloc: an all-unit allocation gets no mark back
// for the down propagation, so the other operand of its vexp is not
// aligned with it; EnableAlignAllocation still pads it from its
// attributes.
// CHECK-LABEL: func.func @all_unit_alloc(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<1x16x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [1, 1, 1] [1, 1, 1] : memref<1x16x1xf16, #hivm.address_space<ub>> to memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<1x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vexp ins(%[[SUBVIEW]] : memref<1x1xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%[[ALLOC_0]] : memref<1x1xf16, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @all_unit_alloc() {
  %a = memref.alloc() : memref<1x1xf16, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<1x1xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<1x1xf16, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<1x1xf16, #hivm.address_space<ub>>) outs(%b : memref<1x1xf16, #hivm.address_space<ub>>)
  return
}

// -----

// AddStrideAlignInfoForAiv runs on Ascend950 only: on membase the AIV side
// of a tightly coupled buffer is not given the AIC side's requirement.
// CHECK-LABEL: func.func @aic_mb(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<cc>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>, hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x32x1xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [16, 30, 1] [1, 1, 1] : memref<16x32x1xf32, #hivm.address_space<ub>> to memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x30xf32, #hivm.address_space<cc>>) outs(%[[SUBVIEW]] : memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @aic_mb(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
  hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
  return
}
// CHECK-LABEL: func.func @aiv_mb(
// CHECK-SAME: ) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @aiv_mb() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
  annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
  return
}

// -----

// AddStrideAlignInfoForAiv: an AIV vector function (hivm.vector_function)
// is left alone; so is a tightly coupled allocation that already carries
// stride attributes.
// CHECK-LABEL: func.func @aic(
// CHECK-SAME: %arg0: memref<16x30xf32, #hivm.address_space<cc>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x32x1xf32, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0] [16, 30, 1] [1, 1, 1] : memref<16x32x1xf32, #hivm.address_space<ub>> to memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[SUBVIEW]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.fixpipe ins(%arg0 : memref<16x30xf32, #hivm.address_space<cc>>) outs(%[[SUBVIEW]] : memref<16x30xf32, strided<[32, 1]>, #hivm.address_space<ub>>)
// CHECK-NEXT: return
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @aic(%l0c: memref<16x30xf32, #hivm.address_space<cc>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
    hivm.hir.fixpipe ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%a : memref<16x30xf32, #hivm.address_space<ub>>)
    return
  }
// CHECK-LABEL: func.func @aiv_vf(
// CHECK-SAME: ) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.vector_function} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @aiv_vf() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.vector_function} {
    %a = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
    return
  }
// CHECK-LABEL: func.func @aiv_attrs(
// CHECK-SAME: ) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: annotation.mark %[[ALLOC]] {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
// CHECK-NEXT: return
// CHECK-NEXT: }
  func.func @aiv_attrs() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
    %a = memref.alloc() {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<16x30xf32, #hivm.address_space<ub>>
    annotation.mark %a {hivm.tightly_coupled_buffer = #hivm.tightly_coupled_buffer<1>} : memref<16x30xf32, #hivm.address_space<ub>>
    return
  }
}

// -----

// adjustAlignInfo: two requirements that adjust to the same dim are merged
// with the lcm of their bytes. Among the broadcast's operands, dim 0 (32
// bytes) stays dim 0 for the source; dim 1 (30 bytes, which the
// destination's 15-element rows already meet, so the last two flattened
// dims stay contiguous) moves to the previous uncontiguous dim, 0
// (adjustBrcAlignDim): the source is asked for lcm(32, 30) = 480 bytes on
// dim 0.
// CHECK-LABEL: func.func @merge_lcm(
// CHECK-SAME: ) attributes {hivm.storage_aligned} {
// CHECK-NEXT: %[[ALLOC:[^ ]+]] = memref.alloc() : memref<2x240x1x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW:[^ ]+]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [2, 4, 1, 1] [1, 1, 1, 1] : memref<2x240x1x1xf16, #hivm.address_space<ub>> to memref<2x4x1xf16, strided<[240, 1, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: %[[ALLOC_0:[^ ]+]] = memref.alloc() : memref<2x16x15x1xf16, #hivm.address_space<ub>>
// CHECK-NEXT: %[[SUBVIEW_1:[^ ]+]] = memref.subview %[[ALLOC_0]][0, 0, 0, 0] [2, 4, 15, 1] [1, 1, 1, 1] : memref<2x16x15x1xf16, #hivm.address_space<ub>> to memref<2x4x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.vbrc ins(%[[SUBVIEW]] : memref<2x4x1xf16, strided<[240, 1, 1]>, #hivm.address_space<ub>>) outs(%[[SUBVIEW_1]] : memref<2x4x15xf16, strided<[240, 15, 1]>, #hivm.address_space<ub>>) broadcast_dims = [2]
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @merge_lcm() {
  %src = memref.alloc() : memref<2x4x1xf16, #hivm.address_space<ub>>
  %s = memref.subview %src[0, 0, 0] [2, 4, 1] [1, 1, 1] : memref<2x4x1xf16, #hivm.address_space<ub>> to memref<2x4x1xf16, strided<[4, 1, 1]>, #hivm.address_space<ub>>
  %dst = memref.alloc() : memref<2x4x15xf16, #hivm.address_space<ub>>
  annotation.mark %dst {hivm.stride_align_dims = array<i32: 0, 1>, hivm.stride_align_value_in_byte = array<i32: 32, 30>} : memref<2x4x15xf16, #hivm.address_space<ub>>
  hivm.hir.vbrc ins(%s : memref<2x4x1xf16, strided<[4, 1, 1]>, #hivm.address_space<ub>>) outs(%dst : memref<2x4x15xf16, #hivm.address_space<ub>>) broadcast_dims = [2]
  return
}
