//! `tilemem opt -hivm-plan-memory`'s exit codes and outputs: a program
//! the pass rejects (a dynamic shape, a scope it does not plan) or an
//! unknown option value is bad input (exit 2); an overflow is a request
//! understood but not met (exit 1); neither writes the output file.

mod common;

use std::process::{Command, Output};

fn scratch(name: &str) -> common::Scratch {
    common::scratch("optpm", name)
}

/// Runs `tilemem opt` on `program` with `args`, writing to `-o out.mlir`
/// in a scratch folder; returns the output and whether the file exists.
fn opt(name: &str, program: &str, args: &[&str]) -> (Output, bool) {
    let d = scratch(name);
    let input = d.join("in.mlir");
    let out = d.join("out.mlir");
    std::fs::write(&input, program).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .arg("opt")
        .args(args)
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let written = out.exists();
    let _ = std::fs::remove_dir_all(&d);
    (o, written)
}

const SPEC: &str = "-hacc-append-device-spec=target=Ascend910B1";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_dynamic_shaped_alloc_is_bad_input() {
    let program = "func.func @f(%g: memref<?xf32, #hivm.address_space<gm>>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<?xf32, #hivm.address_space<gm>>) outs(%a : memref<?xf32, #hivm.address_space<ub>>)
  return
}
";
    let (o, written) = opt("dyn", program, &[SPEC, "-hivm-plan-memory"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!written);
    assert!(
        stderr(&o).contains(
            "in.mlir:2:3: error: Failed to obtain op buffer shape size which should be static."
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_alloc_outside_the_planned_scopes_is_bad_input() {
    let program = "func.func @f() {
  %a = memref.alloc() : memref<16xf32, #hivm.address_space<gm>>
  return
}
";
    let (o, written) = opt("scope", program, &[SPEC, "-hivm-plan-memory"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!written);
    assert!(stderr(&o).contains("in.mlir:2:3: error: Alloc buffer not at UB space!"));
}

#[test]
fn an_unknown_option_value_is_bad_input() {
    let (o, written) = opt(
        "opt",
        "func.func @f() {\n  return\n}\n",
        &[SPEC, "-hivm-plan-memory=plan-memory-strategy=smallest"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!written);
}

#[test]
fn an_overflow_is_a_request_not_met() {
    // 65536 f32 = 256 KiB, more than the 192 KiB of UB.
    let program = "func.func @f(%g: memref<65536xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<65536xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<65536xf32, #hivm.address_space<gm>>) outs(%a : memref<65536xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<65536xf32, #hivm.address_space<ub>>) outs(%g : memref<65536xf32, #hivm.address_space<gm>>)
  return
}
";
    let (o, written) = opt("overflow", program, &[SPEC, "-hivm-plan-memory"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!written);
    assert!(
        stderr(&o).contains(
            "in.mlir:1:1: error: ub overflow, requires 2097152 bits while 1572864 bits available!"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_plan_that_fits_is_written() {
    let program = "func.func @f(%g: memref<64xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<64xf32, #hivm.address_space<gm>>) outs(%a : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<64xf32, #hivm.address_space<ub>>) outs(%g : memref<64xf32, #hivm.address_space<gm>>)
  return
}
";
    let (o, written) = opt("fits", program, &[SPEC, "-hivm-plan-memory"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(written);
}
