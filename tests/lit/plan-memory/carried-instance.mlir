// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -verify-diagnostics
// RUN: rm -f %t.never
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -o %t.never 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not test -e %t.never
// EXIT: carried-instance.mlir:24:5: error: this op reads the buffer a loop carries
// A loop that yields a buffer allocated in its body carries it to the
// next iteration, which reads it through the iteration argument after
// writing the buffer's new instance: an allocation has one address (the
// reference's, and any planner's), so the read finds the new bytes. Not
// a placement question: the input is refused (exit 2), at the read,
// nothing written.
func.func @reads_the_previous_instance(%g: memref<16xf32, #hivm.address_space<gm>>, %o: memref<16xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%x : memref<16xf32, #hivm.address_space<ub>>)
  // expected-note@+1 {{the loop that carries it to the next iteration}}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (memref<16xf32, #hivm.address_space<ub>>) {
    // expected-note@+1 {{the buffer, allocated inside the loop}}
    %y = memref.alloc() : memref<16xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<16xf32, #hivm.address_space<gm>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    // expected-error@+1 {{this op reads the buffer a loop carries from its previous iteration after the iteration wrote the buffer's new instance: an allocation has one address, so both instances are the same bytes; read the carried value before the new instance is written, or allocate the new instance before the loop and alternate two buffers}}
    hivm.hir.vadd ins(%a, %y : memref<16xf32, #hivm.address_space<ub>>, memref<16xf32, #hivm.address_space<ub>>) outs(%y : memref<16xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<16xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<16xf32, #hivm.address_space<ub>>) outs(%o : memref<16xf32, #hivm.address_space<gm>>)
  return
}
