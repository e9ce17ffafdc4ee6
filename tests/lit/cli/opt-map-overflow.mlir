// RUN: rm -f %t.html %t.out
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -map=%t.html -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.html
// RUN: not test -e %t.out
// RUN: tilemem explain %s --map %t.html > /dev/null
// RUN: FileCheck %s --input-file=%t.html --check-prefix=MAP
// A run that overflows (exit 1) writes no file, the map included: the map
// of the overflowing plan is explain's.
// CHECK: error: ub overflow, requires 2097152 bits while 1572864 bits available!
// CHECK: [note] no map written to {{.*}}.html: the run failed; `tilemem explain
// MAP: "function":"over","space":"ub","capacity":196608
func.func @over(%g: memref<65536xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<65536xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<65536xf32, #hivm.address_space<gm>>) outs(%a : memref<65536xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<65536xf32, #hivm.address_space<ub>>) outs(%g : memref<65536xf32, #hivm.address_space<gm>>)
  return
}
