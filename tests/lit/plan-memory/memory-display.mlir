// RUN: rm -rf %t && mkdir -p %t && cd %t && tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=enable-memory-display=true -o %t/out.mlir && FileCheck %s < %t/memory_info_aiv.json
// enable-memory-display writes the plan as JSON into the working directory
// (memory_info_aiv.json for a vector function): per memory space, each
// buffer's allocation, byte offsets, extent in bits, lifetime in op numbers
// and whether it is a temporary buffer.
// CHECK: "KernelName": "display"
// CHECK: "alloc_time_in_ir": 3,
// CHECK-NEXT: "buffer": "%alloc = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>",
// CHECK-NEXT: "extent": 2048,
// CHECK-NEXT: "is_tmpbuf": false,
// CHECK: "offset": [
// CHECK-NEXT: 0
// CHECK: "buffer": "%alloc_1 = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>",
// CHECK: "is_tmpbuf": true,
// CHECK: "offset": [
// CHECK-NEXT: 512
// CHECK: "scope": "ub",
// CHECK-NEXT: "status": "success"
func.func @display(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %t = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>) temp_buffer(%t : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  hivm.hir.store ins(%y : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
