//! The exit-code table of `src/exit.rs` (README, "Exit codes"), asserted
//! by running each kind of outcome through each command that can have it:
//! 0 success, 1 cannot be met, 2 bad input, 3 internal error. Failures
//! also name `file:line:col` where the input has a place to point at.

mod common;

use std::path::Path;

use common::{scratch, tilemem, KERNEL};

/// PyPTO's `test_divergent_acc_phi_rejects_acc_to_acc_move` after
/// InitMemRef: an `if` whose Acc branches yield different buffers. PyPTO
/// raises `InternalError` for it (no Acc -> Acc move exists), with every
/// planner; its `else` yield is line 20.
const ACC_PHI: &str = r#"# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, lhs: pl.Tensor[[16, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], rhs: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], cond: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        sa: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        sb: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        prev: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(sa, sb)
        pre: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(sa, sb)
        if cond < 1:
            phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(pre)
        else:
            acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(prev, sa, sb)
            phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc)
        result: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(phi, [0, 0], out)
        return result
"#;

/// Files of every kind, written once per test into its scratch folder.
struct Inputs {
    dir: std::path::PathBuf,
}

impl Inputs {
    fn new(name: &str) -> Inputs {
        let dir = scratch("exit", name);
        let files: &[(&str, String)] = &[
            ("ok.py", KERNEL.to_string()),
            // 256 KiB of Vec on 910B's 184 KiB.
            ("over.py", KERNEL.replace("[8, 8]", "[256, 256]")),
            ("syntax.py", KERNEL.replace("pl.tile.exp(a)", "pl.tile.exp(a")),
            // A Vec tile in an Acc allocation: rejected by the reader.
            (
                "inconsistent.py",
                KERNEL.replace(
                    "        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec]",
                    "        mem_0: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 256)\n        \
                     a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec]",
                ),
            ),
            ("noncanonical.py", KERNEL.replace("[0, 0], y)", "[0,0], y)")),
            ("acc.py", ACC_PHI.to_string()),
            ("ok.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\n".into()),
            ("over.csv", "# capacity=8\nid,lower,upper,size\na,0,2,8\nb,1,3,8\n".into()),
            ("syntax.csv", "id,lower,upper,size\na,0,x,8\n".into()),
            ("empty.csv", String::new()),
            ("placed.csv", "id,lower,upper,size,offset\na,0,2,8,0\nb,1,3,8,8\n".into()),
            ("clash.csv", "id,lower,upper,size,offset\na,0,2,8,0\nb,1,3,8,4\n".into()),
            (
                "ok.mlir",
                "func.func @f(%arg0: memref<16xf32>) {\n  return\n}\n".into(),
            ),
            ("syntax.mlir", "func.func @f( {\n".into()),
        ];
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        std::fs::create_dir_all(dir.join("bench")).unwrap();
        std::fs::write(dir.join("bench/ok.csv"), "id,lower,upper,size\na,0,2,8\n").unwrap();
        Inputs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }
}

/// Runs `tilemem ARGS` (`@name` stands for the input file `name`) and
/// checks the exit code and, when given, a piece of stderr.
fn expect(inputs: &Inputs, args: &[&str], code: i32, stderr_has: &str) {
    let args: Vec<String> = args
        .iter()
        .map(|a| match a.strip_prefix('@') {
            Some(name) => inputs.path(name),
            None => a.to_string(),
        })
        .collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = tilemem(&refs);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(code),
        "tilemem {}: expected exit {code}\n{err}",
        args.join(" ")
    );
    assert!(
        err.contains(stderr_has),
        "tilemem {}: stderr lacks {stderr_has:?}:\n{err}",
        args.join(" ")
    );
}

#[test]
fn success_is_0() {
    let i = Inputs::new("ok");
    expect(&i, &["plan", "@ok.py", "-q"], 0, "");
    expect(&i, &["explain", "@ok.py"], 0, "");
    // Explained whether or not the program fits.
    expect(&i, &["explain", "@over.py"], 0, "");
    expect(&i, &["fmt", "@ok.py"], 0, "");
    expect(&i, &["fmt", "--check", "@ok.py"], 0, "");
    expect(&i, &["opt", "-hivm-align-alloc-size", "@ok.mlir"], 0, "");
    expect(&i, &["solve", "@ok.csv"], 0, "");
    expect(&i, &["validate", "@placed.csv"], 0, "");
    expect(&i, &["bench", "@bench"], 0, "");
}

#[test]
fn cannot_be_met_is_1() {
    let i = Inputs::new("unmet");
    expect(&i, &["plan", "@over.py", "-q"], 1, "over.py:8:9: ");
    expect(
        &i,
        &["plan", "@over.py", "-q", "--planner", "dsa-rp"],
        1,
        "",
    );
    expect(
        &i,
        &["fmt", "--check", "@noncanonical.py"],
        1,
        "noncanonical.py:10:",
    );
    expect(&i, &["solve", "@over.csv"], 1, "");
    expect(&i, &["validate", "@clash.csv"], 1, "");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let failing = root.join("tests/lit/stride-align/enable-max-iterations-error.mlir");
    let failing = failing.to_str().unwrap();
    expect(
        &i,
        &["opt", "-hivm-enable-stride-align", failing],
        1,
        "error:",
    );
}

#[test]
fn bad_input_is_2() {
    let i = Inputs::new("bad");
    for cmd in [&["plan"][..], &["explain"], &["fmt"]] {
        let with = |f: &'static str| [cmd, &[f]].concat();
        expect(&i, &with("@syntax.py"), 2, "syntax.py:10:9");
        expect(&i, &with("@inconsistent.py"), 2, "inconsistent.py:9:9");
        expect(&i, &with("@missing.py"), 2, "missing.py");
    }
    expect(&i, &["plan", "@ok.py", "--no-such-flag"], 2, "");
    expect(
        &i,
        &["plan", "@ok.py", "--target", "nope"],
        2,
        "unknown --target",
    );
    expect(
        &i,
        &["opt", "-hivm-align-alloc-size", "@syntax.mlir"],
        2,
        "syntax.mlir:1:15: error",
    );
    expect(&i, &["opt", "-no-such-pass", "@ok.mlir"], 2, "");
    for cmd in ["solve", "validate"] {
        expect(&i, &[cmd, "@syntax.csv"], 2, "syntax.csv:2:");
        expect(&i, &[cmd, "@empty.csv"], 2, "empty.csv:1:1: ");
    }
    expect(
        &i,
        &["solve", "@ok.csv", "--time-limit=-1"],
        2,
        "--time-limit",
    );
    expect(&i, &["bench", "@no-such-folder"], 2, "");
}

/// An input whose co-live tiles already share one MemRef (as text and as
/// MessagePack) is bad input for every planner, at the second tile, with
/// nothing written; it once surfaced as an internal error (exit 3) from
/// the placement check after planning.
#[test]
fn co_live_tiles_sharing_a_memref_are_bad_input_and_write_nothing() {
    let i = Inputs::new("sharing");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pto/tests/data/input_sharing");
    for name in ["co_live.py", "co_live.msgpack"] {
        std::fs::copy(data.join(name), i.dir.join(name)).unwrap();
    }
    let out = i.path("out");
    for planner in ["pypto", "dsa-rp", "optimal", "ptoas"] {
        expect(
            &i,
            &["plan", "@co_live.py", "--planner", planner, "-o", &out],
            2,
            "co_live.py:11:9: ValueError: tiles 'tile_a' and 'tile_b' share MemRef 'mem_vec_3' \
             (bytes [0, 16384) of its Vec allocation) while both are live: 'tile_b' is written \
             here over 'tile_a', which is still read at line 12; give 'tile_b' a MemRef of its \
             own (its own allocation), or drop the MemRefs and let the planner decide what \
             shares\n",
        );
        expect(
            &i,
            &["plan", "@co_live.msgpack", "--planner", planner, "-o", &out],
            2,
            "co_live.msgpack:14:9: ValueError: tiles 'tile_x__ssa_v0' and 'tile_gamma__ssa_v0' \
             share MemRef 'mem_vec_3'",
        );
        assert!(
            !Path::new(&out).exists(),
            "{planner}: an output was written"
        );
    }
    expect(
        &i,
        &["explain", "@co_live.py"],
        2,
        "co_live.py:11:9: ValueError: tiles",
    );
}

#[test]
fn two_outputs_in_one_file_are_bad_input_and_write_nothing() {
    let i = Inputs::new("same");
    let same = i.path("same.out");
    expect(
        &i,
        &["plan", "@ok.py", "-q", "-o", &same, "--report", &same],
        2,
        "-o and --report both name",
    );
    let svg = i.path("o.svg");
    expect(
        &i,
        &["solve", "@ok.csv", "-o", &svg, "--map", &svg],
        2,
        "-o and --map both name",
    );
    // The same file spelled through its folder's `.` is the same file.
    let dotted = format!("{}/./same.out", i.dir.display());
    expect(
        &i,
        &["plan", "@ok.py", "-q", "-o", &same, "--report", &dotted],
        2,
        "both name",
    );
    assert!(!Path::new(&same).exists() && !Path::new(&svg).exists());
}

#[test]
fn internal_error_is_3_with_its_position_from_every_command_and_planner() {
    let i = Inputs::new("internal");
    for planner in ["pypto", "dsa-rp", "optimal"] {
        for cmd in ["plan", "explain"] {
            expect(
                &i,
                &[cmd, "@acc.py", "--target", "950", "--planner", planner],
                3,
                "acc.py:20:13: InternalError: Internal error: MemoryReuse cannot reconcile",
            );
        }
    }
    // `--all` does not turn it into "every space fits".
    expect(
        &i,
        &["explain", "@acc.py", "--target", "950", "--all"],
        3,
        "",
    );
}

/// Inputs that once panicked (exit 101) now run or are refused with a
/// code of the table.
#[test]
fn former_panics_exit_by_the_table() {
    let i = Inputs::new("panics");
    expect(&i, &["solve", "@ok.csv", "--time-limit", "1e20"], 0, "");
    expect(&i, &["plan", "@ok.py", "-q", "--time-limit", "1e20"], 0, "");
    expect(
        &i,
        &[
            "plan",
            "@ok.py",
            "-q",
            "--planner",
            "optimal",
            "--time-limit",
            "1e300",
        ],
        0,
        "",
    );
    expect(&i, &["bench", "@bench", "--time-limit", "1e20"], 0, "");
}
