//! `tilemem plan --passes` with a subset that skips a pass the input needs:
//! the later pass refuses the input on entry (exit 2, the statement that
//! breaks its assumption, the rule, the pass to run), instead of planning
//! it and failing the placement check (exit 3, "a bug in tilemem"). The
//! inputs are the repository's own test programs; the message is the same
//! on every target.

use std::process::{Command, Output};

mod common;

fn tilemem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `plan FILE --target T ARGS -o OUT` on every target and asserts exit
/// 2, exactly `expected` on stderr, nothing on stdout and no output file.
fn refused_everywhere(file: &str, args: &[&str], expected: &str) {
    let d = common::scratch("skipped_pass", file.rsplit('/').next().unwrap());
    let out = d.join("out.py");
    for target in ["910b", "950", "310b", "none"] {
        let mut all = vec!["plan", file, "--target", target];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", out.to_str().unwrap()]);
        let o = tilemem(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{target}: {err}");
        assert_eq!(err, expected, "{target}");
        assert!(o.stdout.is_empty(), "{target}");
        assert!(!out.exists(), "{target}: no partial output");
    }
}

#[test]
fn memory_reuse_refuses_a_carry_init_read_after_its_loop() {
    refused_everywhere(
        "../pto/tests/data/property/stage_depth_later_round.py",
        &["--passes", "init_memref,memory_reuse,allocate_memory_addr"],
        "../pto/tests/data/property/stage_depth_later_round.py:29:9: ValueError: memory_reuse \
         assumes every loop carry starts from a buffer of its own, but 't1' starts the loop \
         carry at line 13 and is read here, after the loop took it (the loop writes its \
         carries into 't1''s buffer): run materialize_semantic_aliases before memory_reuse \
         (it starts such a carry from a copy), e.g. `--passes \
         init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr`\n",
    );
}

/// With the pass it skipped, the same input plans.
#[test]
fn the_full_pass_list_plans_it() {
    let o = tilemem(&[
        "plan",
        "../pto/tests/data/property/stage_depth_later_round.py",
        "--target",
        "950",
        "--passes",
        "init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
