// RUN: tilemem opt %s -hivm-align-alloc-size | FileCheck %s
// AlignAllocSizePattern (HIVMAlignAllocSize.cpp:72-117) rounds a marked dim
// up to alignBytes / elementBytes elements, with elementBytes the element's
// whole bytes: 0 for i1, where the reference divides by zero. tilemem
// counts such an element as one byte: 32 bytes of i1 are 32 elements.
// CHECK-LABEL: func.func @i1_alloc_with_size_attrs
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<32xi1, #hivm.address_space<ub>>
// CHECK-NEXT: memref.subview %[[A]][0] [5] [1] : memref<32xi1, #hivm.address_space<ub>> to memref<5xi1, strided<[1]>, #hivm.address_space<ub>>
func.func @i1_alloc_with_size_attrs(%g: memref<5xi1, #hivm.address_space<gm>>) {
  %a = memref.alloc() {hivm.alloc_align_dims = array<i32: 0>, hivm.alloc_align_value_in_byte = array<i32: 32>} : memref<5xi1, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<5xi1, #hivm.address_space<gm>>) outs(%a : memref<5xi1, #hivm.address_space<ub>>)
  return
}
