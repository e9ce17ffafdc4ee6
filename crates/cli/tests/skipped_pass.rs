//! `tilemem plan --passes` with a subset that skips a pass the input needs:
//! the later pass refuses the input (exit 2, the statement that breaks its
//! assumption, the rule, the pass to run) on entry, or for
//! allocate_memory_addr when its placement check fails, instead of
//! reporting the failed check as "a bug in tilemem" (exit 3). The inputs
//! are the repository's own test programs; the message is the same on
//! every target.

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
    refused_on(&["910b", "950", "310b", "none"], file, args, expected);
}

/// [`refused_everywhere`] on `targets`.
fn refused_on(targets: &[&str], file: &str, args: &[&str], expected: &str) {
    let d = common::scratch("skipped_pass", file.rsplit('/').next().unwrap());
    let out = d.join("out.py");
    for &target in targets {
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

const STALE_VIEW: &str = "../pto/tests/data/input_sharing/staged_stale_view.py";
const CARRY_FAMILY: &str = "../pto/tests/data/input_sharing/staged_carry_family.py";
/// A view of a plain tile whose MemRef names another allocation than its
/// source's (kept out of `crates/pto/tests/data`, whose every program the
/// report's peak check plans: see `a_view_of_a_plain_tile_on_another_buffer`).
const VIEW_OF_A_TILE: &str = r#"# pypto.program: StaleView
import pypto.language as pl

@pl.program
class StaleView:
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 8192), pl.Mem.Vec] = pl.tile.slice(t, [32, 64], [0, 0])
        u: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(s)
        o: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(u, [0, 0], y)
        return o
"#;

/// A program printed after MaterializeSemanticAliases for the PYPTO
/// planner, planned by DSA-RP's allocate_memory_addr alone: the view 's35'
/// of the `if` result 't25' already names the then branch's buffer, where
/// only MemoryReuse's yield fix-up (or MaterializeSemanticAliases under
/// DSA-RP) puts 't25'. The placement check failed on it (exit 3, "a bug in
/// the memory passes"); it is the input's, and names the pass to run.
#[test]
fn allocate_memory_addr_refuses_a_view_left_on_another_buffer() {
    refused_everywhere(
        STALE_VIEW,
        &["--planner", "dsa-rp", "--passes", "allocate_memory_addr"],
        "../pto/tests/data/input_sharing/staged_stale_view.py:77:9: ValueError: \
         allocate_memory_addr assumes every tile's MemRef already holds its value where it is \
         read (it places allocations and moves no tile to another), but 's35' is a view of \
         't25' and its MemRef names allocation 'mem_vec_21', not 'mem_vec_37' where 't25' is: \
         run materialize_semantic_aliases before allocate_memory_addr (under this planner it \
         puts each loop's and `if`'s result, and the views of it, where their readers find \
         them), e.g. `--passes init_memref,materialize_semantic_aliases,allocate_memory_addr`\n",
    );
}

/// The same stage of another program: the `if` result 't35' names the
/// buffer of 't26', which the loop after the `if` still takes as its
/// init. Same allocation, same offset: no address can keep them apart. On
/// 910B the program does not fit first (exit 1, unchanged).
#[test]
fn allocate_memory_addr_refuses_a_result_over_a_value_still_read() {
    refused_on(
        &["950", "310b", "none"],
        CARRY_FAMILY,
        &["--planner", "dsa-rp", "--passes", "allocate_memory_addr"],
        "../pto/tests/data/input_sharing/staged_carry_family.py:92:9: ValueError: \
         allocate_memory_addr assumes every tile's MemRef already holds its value where it is \
         read (it places allocations and moves no tile to another), but 't26' read here finds \
         its bytes of allocation 'mem_vec_17' holding 't35' (the result of the `if` at line \
         83), even with every allocation in bytes of its own: run \
         materialize_semantic_aliases before allocate_memory_addr (under this planner it puts \
         each loop's and `if`'s result, and the views of it, where their readers find them), \
         e.g. `--passes init_memref,materialize_semantic_aliases,allocate_memory_addr`\n",
    );
    let o = tilemem(&[
        "plan",
        CARRY_FAMILY,
        "--target",
        "910b",
        "--planner",
        "dsa-rp",
        "--passes",
        "allocate_memory_addr",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
}

/// The PYPTO planner names its own missing pass: MemoryReuse, whose yield
/// fix-up settles what the others leave to MaterializeSemanticAliases.
/// (Its sequential layout of 40 unshared buffers overflows every chip
/// first.)
#[test]
fn the_pypto_planner_names_memory_reuse() {
    refused_on(
        &["none"],
        CARRY_FAMILY,
        &["--passes", "allocate_memory_addr"],
        "../pto/tests/data/input_sharing/staged_carry_family.py:92:9: ValueError: \
         allocate_memory_addr assumes every tile's MemRef already holds its value where it is \
         read (it places allocations and moves no tile to another), but 't26' read here finds \
         its bytes of allocation 'mem_vec_17' holding 't35' (the result of the `if` at line \
         83), even with every allocation in bytes of its own: run memory_reuse before \
         allocate_memory_addr (it puts each view on its source's buffer and, by its yield \
         fix-up, each loop's and `if`'s result where its readers find it), e.g. `--passes \
         init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr`\n",
    );
}

/// The pass lists the refusals suggest plan both programs.
#[test]
fn the_suggested_pass_lists_plan_them() {
    for file in [STALE_VIEW, CARRY_FAMILY] {
        for (planner, passes) in [
            (
                "pypto",
                "init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr",
            ),
            (
                "dsa-rp",
                "init_memref,materialize_semantic_aliases,allocate_memory_addr",
            ),
        ] {
            let o = tilemem(&[
                "plan",
                file,
                "--target",
                "950",
                "--planner",
                planner,
                "--passes",
                passes,
                "-q",
            ]);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{file} {planner}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// A view of a plain tile left on another allocation breaks the same
/// assumption, but DSA-RP and the optimal planner place a view with its
/// source (seed 001's slot), so they plan it right, as before: the view
/// lands on its source's bytes. The PYPTO planner's sequential layout
/// cannot (it was exit 3), and names MemoryReuse.
#[test]
fn a_view_of_a_plain_tile_on_another_buffer() {
    let d = common::scratch("skipped_pass", "view_of_a_tile");
    let file = d.as_ref().join("stale_view_of_a_tile.py");
    std::fs::write(&file, VIEW_OF_A_TILE).unwrap();
    let file = file.to_str().unwrap();
    for planner in ["dsa-rp", "optimal"] {
        let o = tilemem(&[
            "plan",
            file,
            "--target",
            "950",
            "--planner",
            planner,
            "--passes",
            "allocate_memory_addr",
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(0), "{planner}");
        let out = String::from_utf8_lossy(&o.stdout);
        let line = |name: &str| {
            out.lines()
                .find(|l| l.trim_start().starts_with(&format!("{name}: pl.Tile")))
                .unwrap_or_default()
                .to_string()
        };
        // Both at address 0 of their own allocations: the same bytes.
        assert!(
            line("t").contains("pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384)"),
            "{planner}: {out}"
        );
        assert!(
            line("s").contains("pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 8192)"),
            "{planner}: {out}"
        );
    }
    refused_on(
        &["950", "none"],
        file,
        &["--passes", "allocate_memory_addr"],
        &format!(
            "{file}:13:9: ValueError: allocate_memory_addr assumes every tile's MemRef already \
             holds its value where it is read (it places allocations and moves no tile to \
             another), but 's' is a view of 't' and its MemRef names allocation 'mem_vec_1', \
             not 'mem_vec_0' where 't' is: run memory_reuse before allocate_memory_addr (it \
             puts each view on its source's buffer and, by its yield fix-up, each loop's and \
             `if`'s result where its readers find it), e.g. `--passes \
             init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr`\n"
        ),
    );
}
