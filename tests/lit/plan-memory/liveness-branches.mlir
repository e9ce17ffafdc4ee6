// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -hivm-plan-memory-regbase -split-input-file -verify-diagnostics | FileCheck %s
// Buffer lifetimes (MemLivenessAnalysis in plan-memory/PlanMemory.cpp and
// regbase/PlanMemory.cpp), branch by branch. Each chunk names the C++ lines
// it follows; the expected addresses are derived from them.
//
// Two kinds of chunks:
// - small buffers: everything fits, so PlanMemAddressOfWholeLocalBuffer
//   takes the no-reuse plan (PlanBuffersWithoutReuse: one storage entry
//   after another, 256 bytes each here); two allocations share an address
//   only when they were merged into one storage entry (an in-place pair);
// - 128 KiB buffers: two of them do not fit in UB (192 KiB membase, 248 KiB
//   regbase), so they must share address 0, which the plan finds exactly
//   when their lifetimes do not overlap; when they do, the plan fails with
//   the overflow error (EmitPlanMemoryFailureInfo).

// RecursiveIfOp + UpdateIfOpBufferAlias (PlanMemory.cpp:447-457): an if
// result aliases both yielded allocations without a condition, so
// InitializeInplacePairList (1092-1128) makes them an in-place pair: one
// storage entry, one address.
// CHECK-LABEL: func.func @if_yield_two_allocs
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// CHECK: } else {
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @if_yield_two_allocs(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %r = scf.if %c -> (memref<64xf32, #hivm.address_space<ub>>) {
    %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
    scf.yield %x : memref<64xf32, #hivm.address_space<ub>>
  } else {
    %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<64xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// InitializeInplacePairList (PlanMemory.cpp:1120): a mem_unique allocation
// is never part of an alias in-place pair, so the two yields keep apart.
// CHECK-LABEL: func.func @if_yield_mem_unique
// CHECK: %[[X:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @if_yield_mem_unique(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  annotation.mark %x {mem_unique} : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  %r = scf.if %c -> (memref<64xf32, #hivm.address_space<ub>>) {
    %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
    scf.yield %y : memref<64xf32, #hivm.address_space<ub>>
  } else {
    scf.yield %x : memref<64xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// RecursionIR arith.select (PlanMemory.cpp:267-272): the result aliases
// both arms with a condition and marks the arms ignoreInplace, so the
// output of the op reading the select never takes an arm's memory.
// Without the select (@no_select) the vadd output does (ISA in-place).
// CHECK-LABEL: func.func @select_arms
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c512_i64)
func.func @select_arms(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  %s = arith.select %c, %x, %y : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%s : memref<64xf32, #hivm.address_space<ub>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%z : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}
// CHECK-LABEL: func.func @no_select
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c{{0|256}}_i64)
func.func @no_select(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%x, %y : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%z : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// RecursionIR cf.cond_br / cf.br (PlanMemory.cpp:277-283) and
// UpdateBranchOpAlias: block arguments alias the branch operands with a
// condition, so InitializeInplacePairList (1114) does not pair %x and %y.
// CHECK-LABEL: func.func @cond_br_args
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @cond_br_args(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%y : memref<64xf32, #hivm.address_space<ub>>)
  cf.cond_br %c, ^bb1(%x : memref<64xf32, #hivm.address_space<ub>>), ^bb1(%y : memref<64xf32, #hivm.address_space<ub>>)
^bb1(%r: memref<64xf32, #hivm.address_space<ub>>):
  cf.br ^bb2(%r : memref<64xf32, #hivm.address_space<ub>>)
^bb2(%s: memref<64xf32, #hivm.address_space<ub>>):
  hivm.hir.store ins(%s : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// RecursionIR func.call (PlanMemory.cpp:284-287): every operand of a call
// is written there (gen), so a buffer only a call writes is planned (and
// not refused with "read before first write").
// CHECK-LABEL: func.func @call_gens
// CHECK: %[[X:.*]] = hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: call @ext(%[[X]])
func.func private @ext(memref<64xf32, #hivm.address_space<ub>>)
func.func @call_gens(%o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  func.call @ext(%x) : (memref<64xf32, #hivm.address_space<ub>>) -> ()
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// RecursionIR memref.store / memref.load (PlanMemory.cpp:254-258,
// UpdateStoreOpInfo 697): a scalar store writes %x, the scalar load that
// reads it last frees it, so %y (written after) shares address 0.
// CHECK-LABEL: func.func @store_gens_load_kills
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @store_gens_load_kills(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>, %f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  memref.store %f, %x[%c0] : memref<32768xf32, #hivm.address_space<ub>>
  %v = memref.load %x[%c0] : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return %v : f32
}

// -----
// RecursionIR hivm.hir.debug (PlanMemory.cpp:292-293): a debug print that
// reads %x last frees it, so %y shares address 0.
// CHECK-LABEL: func.func @debug_kills
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @debug_kills(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.debug {debugtype = "print", hex = false, prefix = "x", tcoretype = #hivm.tcore_type<CUBE_OR_VECTOR>} %x : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// ProcessMarkOp (PlanMemory.cpp:805; regbase/PlanMemory.cpp:632): a mark
// is a use, and the buffer dies at it. %x's last use is the mark after
// %y's load, so the two live together: overflow.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @mark_kills(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
  annotation.mark %x {hivm.multi_buffer = 1 : i32} : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// ProcessMarkOp (PlanMemory.cpp:784): a mark on a value that is not a
// memref is ignored (no multi-buffer slots).
// CHECK-LABEL: func.func @mark_on_tensor_ignored
// CHECK: hivm.hir.pointer_cast(%c0_i64) :
// CHECK-NEXT: annotation.mark %arg0 {hivm.multi_buffer = 2 : i32} : tensor<64xf32>
func.func @mark_on_tensor_ignored(%t: tensor<64xf32>, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  annotation.mark %t {hivm.multi_buffer = 2 : i32} : tensor<64xf32>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// RecursiveForOp + GetLiveBuffersInLoop (PlanMemory.cpp:349-365,
// 516-541): allocations made inside the loop body live from their first
// write to their last read, so the two share address 0 ...
// CHECK-LABEL: func.func @loop_inside
// CHECK: scf.for
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @loop_inside(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----
// ... while allocations made before the loop and live in it are written
// at the loop's start and freed at its end: they live together, overflow.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @loop_outside(%a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  scf.for %i = %c0 to %c4 step %c1 {
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----
// ... and so does an allocation made before the loop and read inside it
// only, even when the loop's last statement is its last read: the kill
// (UpdateOpKillInfo, PlanMemory.cpp:945-961) needs an op whose parent
// encloses the allocation's parent (isParentOpDominate, 963-969), which
// no op of the body is, so %a dies at the loop's end and the tile %t the
// statement writes cannot take its bytes in place (the next iteration
// reads %a again): overflow.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @loop_read_by_last_statement(%g: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf32, #hivm.address_space<gm>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>)
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%a : memref<32768xf32, #hivm.address_space<ub>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
  }
  return
}

// -----
// The same statement outside a loop is %a's last read: %t takes its bytes
// in place (GenerateInplaceList, 1443).
// CHECK-LABEL: func.func @last_read_no_loop
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.load
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @last_read_no_loop(%g: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf32, #hivm.address_space<gm>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>)
  %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%a : memref<32768xf32, #hivm.address_space<ub>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// The tile allocated before the loop, first written by its last
// statement: gen'd at the loop's start with %a (GetLiveBuffersInLoop),
// both live over the loop: overflow.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @loop_tile_before_loop(%g: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf32, #hivm.address_space<gm>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>)
  %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  scf.for %i = %c0 to %c4 step %c1 {
    hivm.hir.vexp ins(%a : memref<32768xf32, #hivm.address_space<ub>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
  }
  hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  return
}

// -----
// %a read only in a branch nested in the loop: no op inside the loop
// kills it, the tile the loop then writes does not take its bytes.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @loop_read_in_branch(%c: i1, %g: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<32768xf32, #hivm.address_space<gm>>) outs(%a : memref<32768xf32, #hivm.address_space<ub>>)
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %c {
      hivm.hir.store ins(%a : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
    }
    %t = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%g : memref<32768xf32, #hivm.address_space<gm>>) outs(%t : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%t : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}

// -----
// RecursiveWhileOp (PlanMemory.cpp:414-434): the init aliases the before
// argument (UpdateWhileOpInitArgsAlias), the condition operand the after
// argument (UpdateConditionOpBufferAlias, 400) and, since the while has
// results, the yielded %z the before argument (UpdateWhileOpBufferAlias,
// 379): %x and %z are an in-place pair, one address.
// CHECK-LABEL: func.func @while_results
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c0_i64)
func.func @while_results(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  %r = scf.while (%arg = %x) : (memref<64xf32, #hivm.address_space<ub>>) -> memref<64xf32, #hivm.address_space<ub>> {
    scf.condition(%c) %arg : memref<64xf32, #hivm.address_space<ub>>
  } do {
  ^bb0(%b: memref<64xf32, #hivm.address_space<ub>>):
    hivm.hir.vexp ins(%b : memref<64xf32, #hivm.address_space<ub>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
    scf.yield %z : memref<64xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// UpdateWhileOpBufferAlias (PlanMemory.cpp:380): a while without results
// links nothing to its yield, so %z stays its own entry.
// CHECK-LABEL: func.func @while_no_results
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @while_no_results(%c: i1, %a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  scf.while (%arg = %x) : (memref<64xf32, #hivm.address_space<ub>>) -> () {
    hivm.hir.store ins(%arg : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
    scf.condition(%c)
  } do {
    hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
    scf.yield %z : memref<64xf32, #hivm.address_space<ub>>
  }
  return
}

// -----
// RecursiveScopeOp (PlanMemory.cpp:504-514) and isParentOpDominate (968):
// %x, allocated outside the scope, is not freed by the vexp inside it (the
// vexp's parent does not enclose %x's), only at the scope's end; so the
// vexp output %z cannot take %x's memory in place.
// CHECK-LABEL: func.func @scope_result
// CHECK: hivm.hir.pointer_cast(%c0_i64)
// CHECK: scope.scope
// CHECK-NEXT: hivm.hir.pointer_cast(%c256_i64)
func.func @scope_result(%a: memref<64xf32, #hivm.address_space<gm>>, %o: memref<64xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<64xf32, #hivm.address_space<gm>>) outs(%x : memref<64xf32, #hivm.address_space<ub>>)
  %r = scope.scope : () -> memref<64xf32, #hivm.address_space<ub>> {
    %z = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
    hivm.hir.vexp ins(%x : memref<64xf32, #hivm.address_space<ub>>) outs(%z : memref<64xf32, #hivm.address_space<ub>>)
    scope.return %z : memref<64xf32, #hivm.address_space<ub>>
  }
  hivm.hir.store ins(%r : memref<64xf32, #hivm.address_space<ub>>) outs(%o : memref<64xf32, #hivm.address_space<gm>>)
  return
}

// -----
// IsDeadAfterOp (PlanMemory.cpp:1000-1043) with IsBlockAfter (971): %x's
// store in the then region is not its last use (the else region, a later
// region of the same if, reads it), so %x lives on to the if's end and
// overlaps %y, written in the then region: overflow.
// expected-error@+1 {{ub overflow, requires 2097152 bits while}}
func.func @if_then_else_kill(%c: i1, %a: memref<32768xf32, #hivm.address_space<gm>>, %o: memref<32768xf32, #hivm.address_space<gm>>) {
  %x = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%x : memref<32768xf32, #hivm.address_space<ub>>)
  scf.if %c {
    hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
    %y = memref.alloc() : memref<32768xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%a : memref<32768xf32, #hivm.address_space<gm>>) outs(%y : memref<32768xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%y : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  } else {
    hivm.hir.store ins(%x : memref<32768xf32, #hivm.address_space<ub>>) outs(%o : memref<32768xf32, #hivm.address_space<gm>>)
  }
  return
}
