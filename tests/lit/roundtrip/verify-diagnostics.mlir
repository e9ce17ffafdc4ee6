// RUN: tilemem opt -split-input-file -verify-diagnostics %s | FileCheck %s
// RUN: printf 'func.func @f() {\n  memref.dealloc %%%%y : memref<4xf32> // expected-%%s {{something else}}\n  return\n}\n' error > %t.bad.mlir
// RUN: not tilemem opt -verify-diagnostics %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// -verify-diagnostics checks emitted diagnostics against expected-* comments
// (mlir-opt's convention); chunks that read fine are still printed.

func.func @undeclared() {
  // expected-error @+1 {{use of undeclared SSA value name '%x'}}
  memref.dealloc %x : memref<4xf32>
  return
}

// -----

func.func @mismatch(%a: memref<4xf32>) {
  memref.dealloc %a : memref<8xf32> // expected-error {{expects different type than prior uses}}
  return
}

// -----

// BAD: bad.mlir:2:18: error: unexpected error: use of undeclared SSA value name '%y'
// BAD: bad.mlir:2:40: error: expected error "something else" was not produced

// CHECK: func.func @fine()
func.func @fine() {
  return
}
