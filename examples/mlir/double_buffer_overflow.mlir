// A vector kernel as Triton-Ascend lowers it to HIVM, with its debug
// locations: two double-buffered 48 KiB inputs and a 16 KiB buffer in a
// loop need 208 KiB of UB at once, 16 KiB more than Ascend910B1 has.
//   tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory examples/mlir/double_buffer_overflow.mlir
//   tilemem explain examples/mlir/double_buffer_overflow.mlir --map out/hivm.html
module {
  func.func @add_kernel(%x: memref<12288xf32, #hivm.address_space<gm>> loc(#loc), %y: memref<12288xf32, #hivm.address_space<gm>> loc(#loc), %z: memref<4096xf32, #hivm.address_space<gm>> loc(#loc)) {
    %c0 = arith.constant 0 : index loc(#loc)
    %c4 = arith.constant 4 : index loc(#loc)
    %c1 = arith.constant 1 : index loc(#loc)
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>> loc(#loc2)
      annotation.mark %a {hivm.multi_buffer = 2 : i32} : memref<12288xf32, #hivm.address_space<ub>> loc(#loc2)
      %b = memref.alloc() : memref<12288xf32, #hivm.address_space<ub>> loc(#loc3)
      annotation.mark %b {hivm.multi_buffer = 2 : i32} : memref<12288xf32, #hivm.address_space<ub>> loc(#loc3)
      %c = memref.alloc() : memref<4096xf32, #hivm.address_space<ub>> loc(#loc4)
      hivm.hir.load ins(%x : memref<12288xf32, #hivm.address_space<gm>>) outs(%a : memref<12288xf32, #hivm.address_space<ub>>) loc(#loc2)
      hivm.hir.load ins(%y : memref<12288xf32, #hivm.address_space<gm>>) outs(%b : memref<12288xf32, #hivm.address_space<ub>>) loc(#loc3)
      hivm.hir.load ins(%z : memref<4096xf32, #hivm.address_space<gm>>) outs(%c : memref<4096xf32, #hivm.address_space<ub>>) loc(#loc4)
      hivm.hir.vadd ins(%a, %b : memref<12288xf32, #hivm.address_space<ub>>, memref<12288xf32, #hivm.address_space<ub>>) outs(%a : memref<12288xf32, #hivm.address_space<ub>>) loc(#loc5)
      hivm.hir.store ins(%a : memref<12288xf32, #hivm.address_space<ub>>) outs(%x : memref<12288xf32, #hivm.address_space<gm>>) loc(#loc6)
      hivm.hir.store ins(%c : memref<4096xf32, #hivm.address_space<ub>>) outs(%z : memref<4096xf32, #hivm.address_space<gm>>) loc(#loc7)
    } loc(#loc1)
    return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("add_kernel.py":8:0)
#loc1 = loc("add_kernel.py":12:4)
#loc2 = loc("x"("add_kernel.py":14:16))
#loc3 = loc("y"("add_kernel.py":15:16))
#loc4 = loc("z"("add_kernel.py":16:16))
#loc5 = loc("add_kernel.py":17:16)
#loc6 = loc("add_kernel.py":18:8)
#loc7 = loc("add_kernel.py":19:8)
