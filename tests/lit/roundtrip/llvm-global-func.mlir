// RUN: tilemem opt %s | FileCheck %s
// RUN: tilemem opt %s | tilemem opt - | FileCheck %s
// llvm.mlir.global and llvm.func in the custom forms of MLIR's LLVM dialect
// (GlobalOp, LLVMFuncOp), printed as mlir-opt prints them: a global's
// linkage always (external when none is written), a function's only when
// not external; visibility, thread_local, unnamed_addr, constant; the type
// of a string global implied; the calling convention unless ccc.

// CHECK-LABEL: module
// CHECK-NEXT: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: llvm.mlir.global external @no_linkage(5.000000e-01 : f32) : f32
llvm.mlir.global @no_linkage(0.5 : f32) : f32
// CHECK-NEXT: llvm.mlir.global private unnamed_addr constant @str("ab\00")
llvm.mlir.global private unnamed_addr constant @str("ab\00") : !llvm.array<3 x i8>
// CHECK-NEXT: llvm.mlir.global private @str_sized("ab") : !llvm.array<4 x i8>
llvm.mlir.global private @str_sized("ab") : !llvm.array<4 x i8>
// CHECK-NEXT: llvm.mlir.global internal thread_local local_unnamed_addr @tls(7 : i32) : i32
llvm.mlir.global internal local_unnamed_addr thread_local @tls(7 : i32) : i32
// CHECK-NEXT: llvm.mlir.global weak_odr protected constant @in_comdat(1 : i64) comdat(@c::@in_comdat) : i64
llvm.mlir.global weak_odr protected constant @in_comdat(1 : i64) comdat(@c::@in_comdat) : i64
// CHECK-NEXT: llvm.mlir.global linkonce_odr @"quoted name"(dense<[1, 2]> : vector<2xi32>) : vector<2xi32>
llvm.mlir.global linkonce_odr @"quoted name"(dense<[1, 2]> : vector<2xi32>) : vector<2xi32>
// CHECK-NEXT: llvm.func @decl(i32, !llvm.ptr<1>, ...) -> i32
llvm.func external @decl(i32, !llvm.ptr<1>, ...) -> i32
// CHECK-NEXT: llvm.func @varargs_only(...)
llvm.func ccc @varargs_only(...)
// CHECK-NEXT: llvm.func internal hidden fastcc @callconv(!llvm.ptr) -> !llvm.ptr
llvm.func internal hidden fastcc @callconv(!llvm.ptr) -> !llvm.ptr
// CHECK-NEXT: llvm.func @kernel(%arg0: !llvm.ptr<1> {llvm.noalias}, %arg1: i32) attributes {hacc.entry} {
// CHECK-NEXT: llvm.store %arg1, %arg0 : i32, !llvm.ptr<1>
// CHECK: llvm.func @kernel_decl() attributes {hacc.entry}
llvm.func @kernel(%p: !llvm.ptr<1> {llvm.noalias}, %v: i32) attributes {hacc.entry} {
  llvm.store %v, %p : i32, !llvm.ptr<1>
  "llvm.return"() : () -> ()
}
llvm.func @kernel_decl() attributes {hacc.entry}
