// RUN: tilemem opt -hivm-align-alloc-size %s 2>&1 >/dev/null | FileCheck %s
// RUN: tilemem opt -hivm-align-alloc-size -quiet %s 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: tilemem opt -list-passes | FileCheck %s --check-prefix=LIST
// RUN: tilemem opt --version | FileCheck %s --check-prefix=VERSION
// RUN: tilemem opt --help | FileCheck %s --check-prefix=HELP
// The summary on stderr lists each allocation a pass padded, by source
// line, with its bytes before and after, then the total; -quiet drops it.

// CHECK: [summary] line [[@LINE+3]]: memref<2x16xi32, #hivm.address_space<ub>> -> memref<32x16xi32, #hivm.address_space<ub>>: 128 -> 2048 bytes
// CHECK-NEXT: [summary] line [[@LINE+3]]: memref<2x16xi8, #hivm.address_space<ub>> -> memref<32x32xi8, #hivm.address_space<ub>>: 32 -> 1024 bytes
func.func @cast_i32_to_i8() {
  %a = memref.alloc() : memref<2x16xi32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<2x16xi8, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<32x16xi32, #hivm.address_space<ub>>
  hivm.hir.vcast ins(%a : memref<2x16xi32, #hivm.address_space<ub>>) outs(%b : memref<2x16xi8, #hivm.address_space<ub>>)
  return
}
// CHECK-NEXT: [summary] 2 allocation(s) padded: 160 -> 3072 bytes
// CHECK-NOT: summary

// QUIET-NOT: summary

// LIST: hivm-align-alloc-size
// LIST: hivm-pre-mark-stride-align
// LIST: hivm-mark-stride-align
// LIST: hivm-enable-stride-align

// VERSION: tilemem-opt {{[0-9]+\.[0-9]+\.[0-9]+}}

// HELP: TARGET:
// HELP: hacc.target
// HELP: selects the default: Ascend910B
