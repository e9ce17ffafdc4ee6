// RUN: not tilemem opt -split-input-file %s 2>&1 >/dev/null | FileCheck %s
// A location alias needs its parenthesised location; one defined twice is
// an error, as any attribute alias; an unclosed loc( is a reading error.

// CHECK: location-errors.mlir:[[@LINE+1]]:8: error: expected '(' in location
#loc = loc "k.py":1:2

// -----

// CHECK: location-errors.mlir:[[@LINE+2]]:1: error: redefinition of attribute alias id 'loc1'
#loc1 = loc("k.py":1:2)
#loc1 = loc("k.py":3:4)

// -----

// CHECK: location-errors.mlir:[[@LINE+3]]:1: error: unbalanced '}'
func.func @f() {
  return loc("k.py":1:2
}
