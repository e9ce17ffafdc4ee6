//! Flags every command shares: `--version` everywhere, `opt
//! --list-passes`, and `opt --help` naming how the chip is chosen.

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
