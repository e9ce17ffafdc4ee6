// RUN: not tilemem plan %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: not tilemem fmt %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: not tilemem solve %s 2>&1 | FileCheck %s -DFILE=%s --check-prefix=SOLVE
// An MLIR file given to a command of another input (exit 2) is named for
// what it is, with every command that reads MLIR: planning its local
// memory, explaining it, stride alignment, and where the passes are listed.
// CHECK: [[FILE]]: error: this is an MLIR file, not a PyPTO program: use `tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory [[FILE]]` (plan its local memory), `tilemem explain [[FILE]]` (where the memory goes, what would make it fit), `tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align [[FILE]]` (stride alignment); `tilemem opt --help` lists every pass
// SOLVE: [[FILE]]: error: this is an MLIR file, not a placement problem (CSV): use `tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory [[FILE]]` (plan its local memory), `tilemem explain [[FILE]]`
func.func @f(%g: memref<64xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<64xf32, #hivm.address_space<gm>>) outs(%a : memref<64xf32, #hivm.address_space<ub>>)
  return
}
