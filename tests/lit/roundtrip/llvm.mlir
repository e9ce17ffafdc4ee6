// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// The llvm ops the AscendNPU-IR corpus writes next to HIVM code, as MLIR's
// LLVM dialect prints them (convert-hivmave-to-ave-intrin-4.mlir,
// tile-and-bind-sub-block.mlir).

// CHECK-LABEL: func.func @llvm_ops
// CHECK: %[[N:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %{{.*}} = llvm.alloca %[[N]] x !llvm.struct<"vector_2xvl_s64", (array<2 x vector<64xi32>>)> : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[V:.*]] = llvm.load volatile %arg0 : !llvm.ptr<11> -> i32
// CHECK-NEXT: llvm.store volatile %[[V]], %arg0 : i32, !llvm.ptr<11>
// CHECK-NEXT: %{{.*}} = llvm.load %arg0 {alignment = 4 : i64} : !llvm.ptr<11> -> i32
func.func @llvm_ops(%p: !llvm.ptr<11>) {
  %0 = llvm.mlir.constant(1 : i64) : i64
  %1 = llvm.alloca %0 x !llvm.struct<"vector_2xvl_s64", (array<2 x vector<64xi32>>)> : (i64) -> !llvm.ptr
  %2 = llvm.load volatile %p : !llvm.ptr<11> -> i32
  llvm.store volatile %2, %p : i32, !llvm.ptr<11>
  %3 = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<11> -> i32
  return
}
