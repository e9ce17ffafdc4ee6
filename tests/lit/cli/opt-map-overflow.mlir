// RUN: rm -f %t.html %t.out
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -map=%t.html -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: FileCheck %s --input-file=%t.html --check-prefix=MAP
// RUN: rm -f %t.html
// RUN: tilemem explain %s --map %t.html > /dev/null
// RUN: FileCheck %s --input-file=%t.html --check-prefix=MAP
// A run that overflows (exit 1) writes no module, but still its map: the
// plan made without capacity limits, against the real capacity (the
// overflow's diagnosis, as `explain --map` draws it too).
// CHECK: error: ub overflow, requires 2097152 bits while 1572864 bits available!
// MAP: "function":"over","space":"ub","capacity":196608
func.func @over(%g: memref<65536xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<65536xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<65536xf32, #hivm.address_space<gm>>) outs(%a : memref<65536xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<65536xf32, #hivm.address_space<ub>>) outs(%g : memref<65536xf32, #hivm.address_space<gm>>)
  return
}
