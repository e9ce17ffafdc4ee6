//! The mistakes a first-time user most likely makes, each answered with
//! what to do instead (exact text; README's "Common mistakes" shows and
//! `tests/readme.rs` checks a few more): a planner or chip flag meant for
//! the other front end, a program with nothing the passes plan, HIVM that
//! is not yet bufferized, a misspelled or unknown flag.

mod common;

use common::{scratch, tilemem};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A PyPTO program whose one function has `header` as decorator.
fn program(header: &str) -> String {
    common::KERNEL.replace("@pl.function(type=pl.FunctionType.InCore)", header)
}

#[test]
fn a_program_without_a_kernel_is_planned_with_a_note() {
    let d = scratch("newcomer", "no-kernel");
    for (header, kind) in [
        ("@pl.function", "Opaque, the default without type="),
        (
            "@pl.function(type=pl.FunctionType.Orchestration)",
            "Orchestration",
        ),
    ] {
        let f = d.join("p.py");
        std::fs::write(&f, program(header)).unwrap();
        let f = f.to_str().unwrap();
        let o = tilemem(&["plan", f, "-o", "/dev/null"]);
        assert_eq!(o.status.code(), Some(0));
        let why = format!(
            "nothing planned: {f} has no kernel function; the memory passes plan only \
             `@pl.function(type=pl.FunctionType.InCore)` (or AIC, AIV), and it has main ({kind})"
        );
        assert_eq!(stderr(&o), format!("[note] {why}\n"));
        // `-q` keeps standard error empty.
        assert_eq!(stderr(&tilemem(&["plan", f, "-q", "-o", "/dev/null"])), "");
        // `explain` says the same instead of "every space fits".
        for all in [&[][..], &["--all"][..]] {
            let o = tilemem(&[&["explain", f][..], all].concat());
            assert_eq!(o.status.code(), Some(0));
            assert_eq!(stdout(&o), format!("{why}\n"));
        }
    }
    // A kernel whose tiles got no storage: `--passes` without init_memref.
    let f = d.join("k.py");
    std::fs::write(&f, common::KERNEL).unwrap();
    let k = f.to_str().unwrap();
    let o = tilemem(&["plan", k, "--passes", "memory_reuse", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stderr(&o),
        format!(
            "[note] nothing planned: no tile of the kernel functions of {k} (main) has storage \
             (a MemRef) in on-chip memory; init_memref, which gives tiles their storage, was not \
             among the passes run\n"
        )
    );
    // A kernel still gets its summary and no note.
    let f = d.join("k.py");
    std::fs::write(&f, common::KERNEL).unwrap();
    let o = tilemem(&["plan", f.to_str().unwrap(), "-o", "/dev/null"]);
    assert!(
        stderr(&o).starts_with("[summary] main/Vec: "),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("[note]"));
}

const TENSORS: &str = "func.func @add(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %0 = arith.addf %a, %b : tensor<16xf32>
  return %0 : tensor<16xf32>
}
";

const NO_SPACE: &str = "func.func @f(%arg0: memref<16xf32>) {
  %alloc = memref.alloc() : memref<16xf32>
  memref.copy %arg0, %alloc : memref<16xf32> to memref<16xf32>
  return
}
";

#[test]
fn hivm_before_bufferization_is_named() {
    let d = scratch("newcomer", "tensors");
    let f = d.join("t.mlir");
    std::fs::write(&f, TENSORS).unwrap();
    let f = f.to_str().unwrap();
    let why = format!(
        "{f}: nothing to plan: no memref.alloc in an on-chip address space (tilemem plans \
         bufferized HIVM: `memref.alloc() : memref<..., #hivm.address_space<ub>>`); this module \
         computes on tensors: bufferize it first (bishengir's pipeline does, before its own \
         memory planning)"
    );
    let o = tilemem(&["explain", f]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("{why}\n"));
    let o = tilemem(&[
        "opt",
        "-hacc-append-device-spec=target=Ascend910B1",
        "-hivm-plan-memory",
        f,
        "-o",
        "/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), format!("[note] {why}\n"));
    // An allocation without an address space: the reference's words, then
    // what to change.
    let f = d.join("n.mlir");
    std::fs::write(&f, NO_SPACE).unwrap();
    let f = f.to_str().unwrap();
    let help = "  help: give each memref.alloc its on-chip address space, e.g. \
                `memref<16xf32, #hivm.address_space<ub>>`: tilemem plans HIVM after bishengir \
                has inferred the address spaces\n";
    let o = tilemem(&["explain", f]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("{f}:2:3: error: Alloc buffer not at UB space! \n{help}")
    );
    let o = tilemem(&[
        "opt",
        "-hacc-append-device-spec=target=Ascend910B1",
        "-hivm-plan-memory",
        f,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).ends_with(&format!("^\n{help}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_planner_of_the_other_front_end_is_named() {
    let d = scratch("newcomer", "planner");
    let f = d.join("k.py");
    std::fs::write(&f, common::KERNEL).unwrap();
    let f = f.to_str().unwrap();
    for (planner, expected) in [
        (
            "ptoas",
            "error: unknown --planner 'ptoas'; use pypto, dsa-rp or optimal (ptoas leaves \
             addresses to the assembler: there is no placement to explain)\n",
        ),
        (
            "all",
            "error: unknown --planner 'all'; use pypto, dsa-rp or optimal (one at a time; \
             `tilemem plan --planner all FILE` compares the three)\n",
        ),
        (
            "bishengir",
            "error: unknown --planner 'bishengir'; use pypto, dsa-rp or optimal (bishengir plans \
             HIVM MLIR: `tilemem opt -hivm-plan-memory FILE.mlir` or `tilemem explain FILE.mlir`)\n",
        ),
    ] {
        let o = tilemem(&["explain", f, "--planner", planner]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(stderr(&o), expected);
    }
    let o = tilemem(&["opt", "--planner", "optimal", f]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "tilemem opt: Unknown command line argument '--planner'. Try: 'tilemem opt --help'\n\
         the planner is an option of the plan-memory pass: -hivm-plan-memory=planner=optimal\n"
    );
}

#[test]
fn the_chip_flag_of_each_front_end_is_named() {
    let d = scratch("newcomer", "chip");
    let f = d.join("k.py");
    std::fs::write(&f, common::KERNEL).unwrap();
    let f = f.to_str().unwrap();
    for (target, expected) in [
        (
            "Ascend950PR_9589",
            "error: unknown --target 'Ascend950PR_9589': --target names the chip family, and \
             Ascend950PR_9589 is a 950 chip: use --target 950\n",
        ),
        (
            "ascend310b1",
            "error: unknown --target 'ascend310b1': --target names the chip family, and \
             ascend310b1 is a 310b chip: use --target 310b\n",
        ),
        (
            "920",
            "error: unknown --target '920'; use 910b (A2/A3), 950 (A5), 310b, or none (no capacity limit)\n",
        ),
    ] {
        let o = tilemem(&["plan", f, "--target", target]);
        assert_eq!(o.status.code(), Some(2), "{target}");
        assert_eq!(stderr(&o), expected);
    }
    let o = tilemem(&["explain", f, "--chip", "910b"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: unexpected argument '--chip': the chip is chosen with --target 910b|950|310b|none\n"
    );
    // On HIVM the chip travels with the module; a --target was ignored.
    let m = d.join("t.mlir");
    std::fs::write(&m, TENSORS).unwrap();
    let o = tilemem(&["explain", m.to_str().unwrap(), "--target", "950"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: --target 950 does not apply to HIVM MLIR: the chip comes from the module's \
         hacc.target (write it with `tilemem opt -hacc-append-device-spec=target=CHIP`)\n"
    );
    let o = tilemem(&["opt", "--target", "910b", f]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "tilemem opt: Unknown command line argument '--target'. Try: 'tilemem opt --help'\n\
         the chip travels with the IR: add -hacc-append-device-spec=target=Ascend910B1 (or \
         another chip name) before the plan-memory pass, or set hacc.target on the module\n"
    );
}

#[test]
fn an_unknown_flag_points_to_the_help() {
    let o = tilemem(&["plan", "-O", "x.py"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: unexpected argument '-O' for `tilemem plan`; `tilemem plan --help` lists its flags\n"
    );
    // Before the command.
    let o = tilemem(&["--target", "950", "plan", "x.py"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: unexpected argument '--target': flags follow the command (`tilemem COMMAND --target \
         ...`); `tilemem --help` lists the commands\n"
    );
    // A near miss keeps clap's suggestion.
    let o = tilemem(&["solve", "x.csv", "--capcity", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("tip: a similar argument exists: '--capacity'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_help_says_which_command_reads_which_input() {
    let o = tilemem(&["--help"]);
    let help = stdout(&o);
    for line in [
        "  a PyPTO program (.py text, or PyPTO's MessagePack IR)    plan, explain, fmt",
        "  HIVM MLIR (bufferized: memref.alloc in ub, cbuf, ...)     opt, explain",
        "  a placement problem (MiniMalloc CSV: id,lower,upper,size) solve, validate, bench",
    ] {
        assert!(help.lines().any(|l| l == line), "{line:?} not in\n{help}");
    }
    assert!(help.contains("\nExit codes (the same for every command):\n  0    success"));
}

#[test]
fn validating_a_problem_not_yet_placed_says_to_solve_it() {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/dsa/staircase.csv"
    );
    let o = tilemem(&["validate", root]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "{root}:2:19: error: no offset; every row needs an `offset` to validate\n  help: this is \
             a problem, not a placement: place it with `tilemem solve {root} -o placed.csv`, then \
             validate placed.csv\n"
        )
    );
}

/// A byte size as an engineer types it (`16k`, `0x4000`) is read by every
/// byte-size flag; one that does not read says what does (it was clap's
/// "invalid digit found in string").
#[test]
fn byte_size_flags_take_units_and_hex_or_say_what_they_take() {
    let d = scratch("newcomer", "byte-size");
    let csv = d.join("p.csv");
    std::fs::write(&csv, "id,lower,upper,size\na,0,2,8192\nb,1,3,8192\n").unwrap();
    let placed = d.join("placed.csv");
    let (csv, placed_s) = (csv.to_str().unwrap(), placed.to_str().unwrap());
    let base = tilemem(&["solve", csv, "--capacity", "16384", "-o", placed_s]);
    assert_eq!(base.status.code(), Some(0), "{}", stderr(&base));
    for value in ["16k", "16K", "16KiB", "0x4000", "16_384"] {
        let o = tilemem(&["solve", csv, "--capacity", value]);
        assert_eq!(o.status.code(), Some(0), "{value}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("capacity:    16384\n"),
            "{value}: {}",
            stdout(&o)
        );
        let o = tilemem(&["validate", placed_s, "--capacity", value]);
        assert_eq!(o.status.code(), Some(0), "{value}: {}", stderr(&o));
    }
    let o = tilemem(&["validate", placed_s, "--capacity", "8K"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let forms = "give bytes as 16384, 0x4000, or with a binary unit: 16K, 16KiB, 16KB (each \
                 16384), 1M, 1MiB (1048576), 1G";
    for cmd in ["solve", "validate", "bench"] {
        let o = tilemem(&[cmd, csv, "--capacity", "16q"]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            stderr(&o),
            format!(
                "error: invalid value '16q' for '--capacity <BYTES>': unknown unit 'q': \
                 {forms}\n\nFor more information, try '--help'.\n"
            ),
            "{cmd}"
        );
    }
}
