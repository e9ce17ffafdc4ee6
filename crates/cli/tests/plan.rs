//! `tilemem plan` end to end: output, report, diagnostics, exit codes, and
//! that nothing is written when planning fails.

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::KERNEL;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> common::Scratch {
    common::scratch("plan", name)
}

/// A scratch directory holding `text` as `k.py`; returns both paths.
fn program(name: &str, text: &str) -> (common::Scratch, PathBuf) {
    let d = scratch(name);
    let input = d.join("k.py");
    std::fs::write(&input, text).unwrap();
    (d, input)
}

/// Asserts exit code 0, showing stderr otherwise.
fn assert_success(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn tilemem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn plans_a_kernel_and_writes_output_and_report() {
    let (d, input) = program("ok", KERNEL);
    let (out, rep) = (d.join("out.py"), d.join("r.json"));
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--target",
        "910b",
        "-o",
        out.to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
    ]);
    assert_success(&o);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)\n"),
        "{text}"
    );
    assert!(text.contains("a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec]"), "{text}");
    let json = std::fs::read_to_string(&rep).unwrap();
    assert!(json.contains("\"target\": \"910b\""), "{json}");
    assert!(json.contains("\"capacity\": 188416"), "{json}");
    // Planning the output again gives the same bytes (idempotent pipeline).
    let again = tilemem(&["plan", out.to_str().unwrap(), "--target", "910b"]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), text);
}

#[test]
fn stop_after_runs_a_prefix() {
    let (_d, input) = program("stop", KERNEL);
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--stop-after",
        "init_memref",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    // Two roots, not yet shared or addressed.
    assert!(
        text.contains("mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)"),
        "{text}"
    );
    assert!(
        text.contains("pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256)"),
        "{text}"
    );
}

#[test]
fn over_capacity_exits_1_and_writes_nothing() {
    let (d, input) = program("cap", &KERNEL.replace("[8, 8]", "[64, 752]"));
    let (out, rep) = (d.join("out.py"), d.join("r.json"));
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--target",
        "910b",
        "--passes",
        "init_memref,allocate_memory_addr",
        "-o",
        out.to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            ": ValueError: Vec buffer usage (385024 bytes) exceeds platform limit (188416 bytes)"
        ),
        "{err}"
    );
    assert!(!out.exists() && !rep.exists());
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        1,
        "only the input remains"
    );
}

#[test]
fn bad_input_exits_2_with_location() {
    let (d, input) = program("bad", &KERNEL.replace("pl.tile.exp(a)", "pl.tile.exp(a"));
    let o = tilemem(&["plan", input.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!("{}:10:9: error: ", input.display())),
        "{err}"
    );
    let o = tilemem(&["plan", input.to_str().unwrap(), "--target", "h100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown --target 'h100'"));
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--passes",
        "memory_reuse,init_memref",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("pipeline order"));
    let o = tilemem(&["plan", d.join("missing.py").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn map_takes_a_file_whose_extension_names_the_format() {
    let (d, input) = program("map", KERNEL);
    let svg_path = d.join("m.svg");
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--map",
        svg_path.to_str().unwrap(),
    ]);
    assert_success(&o);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains("main / Vec (910b)"), "{svg}");
    // `a` and its in-place successor `b` hold the same 256 bytes.
    assert!(svg.contains("<title>a@mem_vec_2: 256 at [0, 256)"), "{svg}");
    // One lane per (function, space), nested in one picture.
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"540\""),
        "{svg}"
    );
    assert_eq!(svg.matches("<svg y=\"0\" ").count(), 1, "{svg}");
    let html_path = d.join("m.html");
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--map",
        html_path.to_str().unwrap(),
    ]);
    assert_success(&o);
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(
        html.contains(r#""function":"main","space":"Vec""#),
        "{html}"
    );
    // The source pane holds the program; each tile knows its lines.
    assert!(html.contains(r#""source":["#), "{html}");
    assert!(
        html.contains(r#""line":"#) && html.contains(r#""uses":["#),
        "{html}"
    );
    // A folder (the old convention) or another extension is bad input.
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--map",
        d.join("maps").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("name a file ending in .html (interactive) or .svg (static)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn summary_goes_to_stderr_unless_quiet() {
    let (_d, input) = program("summary", KERNEL);
    let o = tilemem(&["plan", input.to_str().unwrap()]);
    assert_success(&o);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "[summary] main/Vec: 256 / 188416 bytes (0.1 %), lower bound 256, tiles 2 -> 1 buffers, reserved 0, planner pypto\n"
    );
    let o = tilemem(&["plan", input.to_str().unwrap(), "--quiet"]);
    assert_success(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn exported_dsa_rp_problem_replays_to_the_same_placement() {
    let (d, input) = program("replay", KERNEL);
    let exp = d.join("exp");
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--target",
        "950",
        "--planner",
        "dsa-rp",
        "--export-problems",
        exp.to_str().unwrap(),
    ]);
    assert_success(&o);
    let problem = exp.join("main.Vec.csv");
    let side = std::fs::read_to_string(exp.join("main.Vec.dsa.txt")).unwrap();
    assert!(
        side.contains("# replay: tilemem solve main.Vec.csv --solver canonical --penalty-first"),
        "{side}"
    );
    let replay = d.join("replay.csv");
    let o = tilemem(&[
        "solve",
        problem.to_str().unwrap(),
        "--solver",
        "canonical",
        "--penalty-first",
        "-o",
        replay.to_str().unwrap(),
    ]);
    assert_success(&o);
    let offsets = |p: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{}={}", f[0], f[f.len() - 1])
            })
            .collect()
    };
    let want = offsets(&problem);
    assert_eq!(want.len(), 3, "header + two roots: {want:?}");
    assert_eq!(offsets(&replay), want);
}

/// The optimal planner takes a work budget; the same budget gives the same
/// bytes, and without one the output is the same for this small kernel
/// (its search ends, proven, long before any limit).
#[test]
fn optimal_planner_takes_a_node_limit() {
    let (_d, input) = program("nodes", KERNEL);
    let run = |limit: &str| {
        let o = tilemem(&[
            "plan",
            input.to_str().unwrap(),
            "--target",
            "950",
            "--planner",
            "optimal",
            "--node-limit",
            limit,
        ]);
        assert_success(&o);
        o.stdout
    };
    let tight = run("1");
    assert_eq!(run("1"), tight);
    assert_eq!(run("0"), run("4000000"));
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--planner",
        "optimal",
        "--node-limit",
        "lots",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--node-limit"));
}

#[test]
fn planner_all_puts_every_planner_in_the_map_and_the_summary() {
    let (d, input) = program("all", KERNEL);
    let (out, map) = (d.join("out.py"), d.join("m.html"));
    let o = tilemem(&[
        "plan",
        input.to_str().unwrap(),
        "--planner",
        "all",
        "-o",
        out.to_str().unwrap(),
        "--map",
        map.to_str().unwrap(),
    ]);
    assert_success(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    let planners: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("[summary]"))
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(planners, ["pypto", "dsa-rp", "optimal"], "{err}");
    let html = std::fs::read_to_string(&map).unwrap();
    for p in ["pypto", "dsa-rp", "optimal"] {
        assert!(
            html.contains(&format!(
                r#"{{"planner":"{p}","lanes":[{{"function":"main","space":"Vec""#
            )),
            "{p}"
        );
    }
    // The program written is pypto's, as with the default planner.
    let single = tilemem(&["plan", input.to_str().unwrap(), "--quiet"]);
    assert_eq!(std::fs::read(&out).unwrap(), single.stdout);
}

/// The summary of the bundled example, as the README shows it.
#[test]
fn summary_of_the_bundled_example() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pto/vector_chain.py"
    );
    let o = tilemem(&["plan", example]);
    assert_success(&o);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "[summary] softmax_rows/Vec: 33024 / 188416 bytes (17.5 %), lower bound 32768, \
         tiles 8 -> 3 buffers, reserved 0, planner pypto\n"
    );
    let o = tilemem(&["plan", example, "--planner", "dsa-rp"]);
    assert_success(&o);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "[summary] softmax_rows/Vec: 33024 / 188416 bytes (17.5 %), lower bound 32768, \
         tiles 8 -> 3 buffers, reserved 0, planner dsa-rp\n"
    );
}

/// Six loads and stores whose lifetimes pack into exactly 188416 bytes of
/// 910B's Vec space, which DSA_RP's canonical greedy misses in every order
/// it tries (found by a random search over load/store programs).
const ONLY_EXACT_FITS: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(i0: pl.Tensor[[16, 128], pl.FP32], i1: pl.Tensor[[176, 128], pl.FP32], i2: pl.Tensor[[96, 128], pl.FP32], i3: pl.Tensor[[160, 128], pl.FP32], i4: pl.Tensor[[176, 128], pl.FP32], i5: pl.Tensor[[96, 128], pl.FP32], o0: pl.Out[pl.Tensor[[16, 128], pl.FP32]], o1: pl.Out[pl.Tensor[[176, 128], pl.FP32]], o2: pl.Out[pl.Tensor[[96, 128], pl.FP32]], o3: pl.Out[pl.Tensor[[160, 128], pl.FP32]], o4: pl.Out[pl.Tensor[[176, 128], pl.FP32]], o5: pl.Out[pl.Tensor[[96, 128], pl.FP32]]) -> pl.Tensor[[96, 128], pl.FP32]:
        t0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[176, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i1, [0, 0], [176, 128], [176, 128], target_memory=pl.Mem.Vec)
        t4: pl.Tile[[176, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i4, [0, 0], [176, 128], [176, 128], target_memory=pl.Mem.Vec)
        r1: pl.Tensor[[176, 128], pl.FP32] = pl.tile.store(t1, [0, 0], o1)
        t3: pl.Tile[[160, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i3, [0, 0], [160, 128], [160, 128], target_memory=pl.Mem.Vec)
        r0: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(t0, [0, 0], o0)
        r3: pl.Tensor[[160, 128], pl.FP32] = pl.tile.store(t3, [0, 0], o3)
        t5: pl.Tile[[96, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i5, [0, 0], [96, 128], [96, 128], target_memory=pl.Mem.Vec)
        t2: pl.Tile[[96, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i2, [0, 0], [96, 128], [96, 128], target_memory=pl.Mem.Vec)
        r4: pl.Tensor[[176, 128], pl.FP32] = pl.tile.store(t4, [0, 0], o4)
        r5: pl.Tensor[[96, 128], pl.FP32] = pl.tile.store(t5, [0, 0], o5)
        r2: pl.Tensor[[96, 128], pl.FP32] = pl.tile.store(t2, [0, 0], o2)
        return r2
"#;

#[test]
fn optimal_places_a_kernel_the_dsa_rp_greedy_cannot() {
    let (_d, input) = program("only-exact", ONLY_EXACT_FITS);
    let input = input.to_str().unwrap();
    let greedy = tilemem(&[
        "plan",
        input,
        "--target",
        "910b",
        "--planner",
        "dsa-rp",
        "-q",
    ]);
    assert_eq!(greedy.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&greedy.stderr)
        .contains("canonical greedy found no capacity-fitting placement"));
    // The optimal mode does not stop at the greedy: its exact search places
    // the kernel at the lower bound, the whole capacity.
    let o = tilemem(&["plan", input, "--target", "910b", "--planner", "optimal"]);
    assert_success(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("[note] optimal kern/Vec: 188416 bytes (dsa-rp greedy found none), penalty 6, proven optimal (exact)"),
        "{err}"
    );
}

/// A misspelt operand is bad input at its line and column, with the
/// defined name it probably meant; nothing is planned or written.
#[test]
fn a_misspelt_name_exits_2_naming_the_closest_defined_name() {
    let chain = include_str!("../../../examples/pto/vector_chain.py");
    let text = chain.replace(
        "row_expand_div(exp_shifted, row_sum)",
        "row_expand_div(exp_shifted, row_summ)",
    );
    let (d, input) = program("typo", &text);
    let out = d.join("out.py");
    let o = tilemem(&["plan", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        format!(
            "{}:15:94: error: undefined name `row_summ`: no parameter, assignment, loop \
             variable, loop or `if` result before this use defines it\n  help: did you mean \
             `row_sum` (line 14)?\n",
            input.display()
        )
    );
    assert!(!out.exists());
}

/// `-q` leaves only warnings and errors: no summary, no `[note]` lines
/// (the optimal planner's notes among them).
#[test]
fn quiet_silences_notes_too() {
    let (_d, input) = program("quiet", KERNEL);
    let o = tilemem(&["plan", input.to_str().unwrap(), "--planner", "all"]);
    assert_success(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[note] optimal"));
    let o = tilemem(&["plan", input.to_str().unwrap(), "--planner", "all", "-q"]);
    assert_success(&o);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// `--compat` says what each choice means in a user's words.
#[test]
fn compat_help_explains_its_terms() {
    let o = tilemem(&["plan", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("to match the output of PyPTO at commit e2d0f78 byte for byte"),
        "{help}"
    );
    for jargon in ["AsVarLike", "seed documents", "reference data"] {
        assert!(!help.contains(jargon), "{jargon}: {help}");
    }
}

/// A plan that does not fit still writes its map (and only its map), with
/// every planner: the plan without capacity limits, the overflow marked
/// (the map is the failure's diagnosis, not a partial result). The program
/// (-o), the report and the exported problems are not written.
#[test]
fn a_plan_that_does_not_fit_writes_its_map() {
    let over = include_str!("../../../examples/pto/over_capacity.py");
    let (d, input) = program("overmap", over);
    let (out, report, html, svg, problems) = (
        d.join("out.py"),
        d.join("r.json"),
        d.join("m.html"),
        d.join("m.svg"),
        d.join("problems"),
    );
    for planner in ["pypto", "dsa-rp", "optimal", "all"] {
        for map in [&html, &svg] {
            let _ = std::fs::remove_file(map);
            let o = tilemem(&[
                "plan",
                input.to_str().unwrap(),
                "--planner",
                planner,
                "-o",
                out.to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
                "--map",
                map.to_str().unwrap(),
                "--export-problems",
                problems.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(1), "{planner}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("[note] memory map of the plan without capacity limits"),
                "{planner}: {err}"
            );
            assert!(map.exists(), "{planner}: no map at {}", map.display());
            for f in [&out, &report, &problems] {
                assert!(!f.exists(), "{planner}: {} written", f.display());
            }
        }
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("does not fit; drawn as planned without capacity limits"),
        "{page}"
    );
    assert!(page.contains(r#""capacity":188416"#), "{page}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("does not fit, 8576 over"), "{picture}");
}
