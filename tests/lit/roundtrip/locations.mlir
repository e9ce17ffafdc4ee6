// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// Source locations as Triton-Ascend writes them with debug info: op
// locations (file:line:col, ranges, names, call sites, fused, unknown,
// #loc references), function and block argument locations, and #loc
// aliases before the module and after it. Each is kept and printed back
// as written, in place; passes give the ops they make the location of the
// op they replace.
// CHECK: #loc = loc("/home/u/kernel.py":10:0)
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @k(%arg0: memref<1024xf32, #hivm.address_space<gm>> loc("/home/u/kernel.py":10:0), %arg1: memref<1024xf32, #hivm.address_space<gm>> loc(unknown)) {
// CHECK-NEXT:     %alloc = memref.alloc() : memref<1024xf32, #hivm.address_space<ub>> loc(#loc2)
// CHECK-NEXT:     hivm.hir.load ins(%arg0 : memref<1024xf32, #hivm.address_space<gm>>) outs(%alloc : memref<1024xf32, #hivm.address_space<ub>>) loc(#loc3)
// CHECK-NEXT:     %alloc_0 = memref.alloc() : memref<1024xf32, #hivm.address_space<ub>> loc(#loc4)
// CHECK-NEXT:     hivm.hir.vexp ins(%alloc : memref<1024xf32, #hivm.address_space<ub>>) outs(%alloc_0 : memref<1024xf32, #hivm.address_space<ub>>) loc(fused[#loc5, "other.py":3:4])
// CHECK-NEXT:     hivm.hir.store ins(%alloc_0 : memref<1024xf32, #hivm.address_space<ub>>) outs(%arg1 : memref<1024xf32, #hivm.address_space<gm>>) loc(callsite(#loc6 at "/home/u/kernel.py":30:2))
// CHECK-NEXT:     cf.br ^bb1(%alloc : memref<1024xf32, #hivm.address_space<ub>>) loc(#loc3)
// CHECK-NEXT:   ^bb1(%0: memref<1024xf32, #hivm.address_space<ub>> loc("/home/u/kernel.py":31:1)):
// CHECK-NEXT:     return loc(#loc7)
// CHECK-NEXT:   } loc(#loc)
// CHECK-NEXT: } loc(#loc)
// CHECK-NEXT: #loc1 = loc("/home/u/kernel.py":12:24)
// CHECK-NEXT: #loc2 = loc("x"(#loc1))
// CHECK-NEXT: #loc3 = loc("/home/u/kernel.py":13:16)
// CHECK-NEXT: #loc4 = loc("/home/u/kernel.py":14:20 to 14:30)
// CHECK-NEXT: #loc5 = loc(fused<#hivm.pipe<PIPE_V>>["/home/u/kernel.py":15:12, unknown])
// CHECK-NEXT: #loc6 = loc("/home/u/helper.py":5:8)
// CHECK-NEXT: #loc7 = loc(unknown)
// CHECK-NOT: {{.}}
#loc = loc("/home/u/kernel.py":10:0)
module {
  func.func @k(%arg0: memref<1024xf32, #hivm.address_space<gm>> loc("/home/u/kernel.py":10:0), %arg1: memref<1024xf32, #hivm.address_space<gm>> loc(unknown)) {
    %alloc = memref.alloc() : memref<1024xf32, #hivm.address_space<ub>> loc(#loc2)
    hivm.hir.load ins(%arg0 : memref<1024xf32, #hivm.address_space<gm>>) outs(%alloc : memref<1024xf32, #hivm.address_space<ub>>) loc(#loc3)
    %alloc_0 = memref.alloc() : memref<1024xf32, #hivm.address_space<ub>> loc(#loc4)
    hivm.hir.vexp ins(%alloc : memref<1024xf32, #hivm.address_space<ub>>) outs(%alloc_0 : memref<1024xf32, #hivm.address_space<ub>>) loc(fused[#loc5, "other.py":3:4])
    hivm.hir.store ins(%alloc_0 : memref<1024xf32, #hivm.address_space<ub>>) outs(%arg1 : memref<1024xf32, #hivm.address_space<gm>>) loc(callsite(#loc6 at "/home/u/kernel.py":30:2))
    cf.br ^bb1(%alloc : memref<1024xf32, #hivm.address_space<ub>>) loc(#loc3)
  ^bb1(%x: memref<1024xf32, #hivm.address_space<ub>> loc("/home/u/kernel.py":31:1)):
    return loc(#loc7)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("/home/u/kernel.py":12:24)
#loc2 = loc("x"(#loc1))
#loc3 = loc("/home/u/kernel.py":13:16)
#loc4 = loc("/home/u/kernel.py":14:20 to 14:30)
#loc5 = loc(fused<#hivm.pipe<PIPE_V>>["/home/u/kernel.py":15:12, unknown])
#loc6 = loc("/home/u/helper.py":5:8)
#loc7 = loc(unknown)
