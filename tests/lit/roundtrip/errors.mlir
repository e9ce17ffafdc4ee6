// RUN: not tilemem opt -split-input-file %s 2>&1 | FileCheck %s
// Reading errors are reported as file:line:col: error: message, with line
// numbers of the whole file even with -split-input-file; other chunks are
// still processed.

func.func @undeclared() {
  // CHECK: errors.mlir:[[@LINE+1]]:18: error: use of undeclared SSA value name '%x'
  memref.dealloc %x : memref<4xf32>
  return
}

// -----

func.func @mismatch(%a: memref<4xf32>) {
  // CHECK: errors.mlir:[[@LINE+1]]:18: error: use of value '%a' expects different type than prior uses: 'memref<8xf32>' vs 'memref<4xf32>'
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

func.func @unregistered() {
  // CHECK: errors.mlir:[[@LINE+1]]:3: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
  "some_use"() : () -> ()
  return
}

// -----

func.func @custom_unknown() {
  // CHECK: errors.mlir:[[@LINE+1]]:3: error: Dialect `foo' not found for custom op 'foo.bar'
  foo.bar
  return
}

// -----

// CHECK: errors.mlir:[[@LINE+1]]:42: error: dimension operand count does not equal memref dynamic dimension count
func.func @dyn() { %a = memref.alloc() : memref<?xf32>
  return
}

// -----

// The last chunk is fine and is still printed.
// CHECK: func.func @fine()
func.func @fine() {
  return
}
