// RUN: not tilemem opt -no-such-pass %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: tilemem opt --help | FileCheck %s --check-prefix=HELP
// RUN: not tilemem opt 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: not tilemem opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tilemem opt %s -allow-unregistered-dialect | FileCheck %s --check-prefix=UNREG
// RUN: rm -f %t.never && not tilemem opt %s -o %t.never 2>/dev/null && not test -e %t.never
// Driver conventions: unknown flags list the known passes, --help lists
// them with descriptions, a failing run writes no output file.

// FLAG: tilemem opt: Unknown command line argument '-no-such-pass'. Try: 'tilemem opt --help'
// FLAG-NEXT: known passes: -hacc-append-device-spec, -hivm-align-alloc-size, -hivm-pre-mark-stride-align, -hivm-mark-stride-align, -hivm-enable-stride-align, -hivm-plan-memory, -hivm-plan-memory-regbase

// HELP: USAGE: tilemem opt [options] [pass flags] <input file|->
// HELP: -split-input-file
// HELP: -allow-unregistered-dialect
// HELP: -hivm-mark-stride-align
// HELP: -hivm-enable-stride-align

// NOINPUT: tilemem opt: no input file

// MISSING: tilemem opt: cannot read '{{.*}}driver.mlir.missing'

// Unknown ops are kept and printed back in generic form.
// UNREG: "some_use"(%arg0) {note = "kept"} : (memref<4xf32>) -> ()
func.func @keep(%a: memref<4xf32>) {
  "some_use"(%a) {note = "kept"} : (memref<4xf32>) -> ()
  return
}

// RUN: tilemem opt '-pass-pipeline=builtin.module(func.func(hivm-mark-stride-align),hivm-enable-stride-align)' -allow-unregistered-dialect %s | FileCheck %s --check-prefix=PIPE
// RUN: not tilemem opt '-pass-pipeline=builtin.module(no-such-pass)' %s 2>&1 | FileCheck %s --check-prefix=PIPEBAD
// PIPE: func.func @keep(%arg0: memref<4xf32>) attributes {hivm.storage_aligned}
// PIPEBAD: tilemem opt: unknown pass 'no-such-pass' in -pass-pipeline
