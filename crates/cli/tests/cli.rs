//! Flags every command shares: `--version` everywhere, `opt
//! --list-passes`, and `opt --help` naming how the chip is chosen.

mod common;

use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn every_command_has_version() {
    let v = env!("CARGO_PKG_VERSION");
    assert_eq!(run(&["--version"]), (Some(0), format!("tilemem {v}\n")));
    for c in [
        "plan", "explain", "fmt", "solve", "validate", "bench", "opt",
    ] {
        assert_eq!(
            run(&[c, "--version"]),
            (Some(0), format!("tilemem-{c} {v}\n")),
            "{c}"
        );
    }
}

#[test]
fn opt_lists_its_passes() {
    let (code, out) = run(&["opt", "--list-passes"]);
    assert_eq!(code, Some(0));
    let names: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "hacc-append-device-spec",
            "hivm-align-alloc-size",
            "hivm-pre-mark-stride-align",
            "hivm-mark-stride-align",
            "hivm-enable-stride-align",
            "hivm-plan-memory",
            "hivm-plan-memory-regbase"
        ]
    );
}

#[test]
fn opt_help_says_how_the_chip_is_chosen() {
    let (code, out) = run(&["opt", "--help"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("The chip is read from the module attribute hacc.target"),
        "{out}"
    );
    assert!(out.contains("selects the default: Ascend910B"), "{out}");
}

/// What an MLIR file given to a command of another input says: every
/// command that reads MLIR.
fn mlir_commands(file: &str) -> String {
    format!(
        "use `tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory {file}` \
         (plan its local memory), `tilemem explain {file}` (where the memory goes, what would \
         make it fit), `tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align {file}` \
         (stride alignment); `tilemem opt --help` lists every pass"
    )
}

/// A file given to a command that reads another kind of input is named
/// for what it is, with the command that reads it (exit 2, not a syntax
/// error at 1:1).
#[test]
fn a_file_of_another_kind_names_the_command_that_reads_it() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mlir = format!("{root}/examples/mlir/unaligned_rows.mlir");
    let pto = format!("{root}/examples/pto/vector_chain.py");
    let csv = format!("{root}/examples/dsa/staircase.csv");
    let doc_dir = common::scratch("cli", "kinds");
    // The first bytes of a PyPTO MessagePack document (a map).
    let doc_path = doc_dir.join("k.msgpack");
    std::fs::write(
        &doc_path,
        [0x83, 0xa1, b'v', 0x01, 0xa1, b'x', 0xc0, 0xa1, b'y', 0xc3],
    )
    .unwrap();
    let doc = doc_path.display().to_string();
    let doc_says = |not: &str| {
        format!("{doc}: error: this is a PyPTO MessagePack document, not {not}: use `tilemem plan {doc}` (or `tilemem fmt` for its program text)\n")
    };
    let cases: [(&[&str], &str, String); 8] = [
        (&["plan"], &mlir, format!("{mlir}: error: this is an MLIR file, not a PyPTO program: {}\n", mlir_commands(&mlir))),
        (&["fmt"], &csv, format!("{csv}: error: this is a placement problem (CSV), not a PyPTO program: use `tilemem solve {csv}` (or `tilemem validate` for a placed one)\n")),
        (&["opt", "-hivm-mark-stride-align"], &pto, format!("{pto}: error: this is a PyPTO program, not an MLIR file: use `tilemem plan {pto}` (or `tilemem explain`, `tilemem fmt`)\n")),
        (&["solve"], &pto, format!("{pto}: error: this is a PyPTO program, not a placement problem (CSV): use `tilemem plan {pto}` (or `tilemem explain`, `tilemem fmt`)\n")),
        (&["validate"], &mlir, format!("{mlir}: error: this is an MLIR file, not a placement problem (CSV): {}\n", mlir_commands(&mlir))),
        (&["explain"], &doc, doc_says("a PyPTO program")),
        (&["opt", "-hivm-mark-stride-align"], &doc, doc_says("an MLIR file")),
        (&["solve"], &doc, doc_says("a placement problem (CSV)")),
    ];
    for (cmd, file, want) in cases {
        let mut args = cmd.to_vec();
        args.push(file);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // `explain` reads MLIR too (PlanMemory's explanation).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["explain", &mlir])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("every space fits"));
    let _ = std::fs::remove_dir_all(&doc_dir);
}
