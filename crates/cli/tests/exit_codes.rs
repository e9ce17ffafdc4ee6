//! The exit-code table of `src/exit.rs` (README, "Exit codes"), asserted
//! by running each kind of outcome through each command that can have it:
//! 0 success, 1 cannot be met, 2 bad input, 3 internal error (no input
//! reaches it; `src/exit.rs` asserts its mapping). Failures
//! also name `file:line:col` where the input has a place to point at.

mod common;

use std::path::Path;

use common::{scratch, tilemem, KERNEL};

/// PyPTO's `test_divergent_acc_phi_rejects_acc_to_acc_move` after
/// InitMemRef: an `if` whose Acc branches yield different buffers. PyPTO
/// raises `InternalError` for it (no Acc -> Acc move exists), and so does
/// tilemem with every planner, as bad input; its `else` yield is line 20.
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

/// PyPTO's `test_allocate_memory_addr_rejects_overlapping_reserve_buffer_ranges`:
/// an explicit `reserve_buffer` window (line 10) inside an AUTO one.
const RESERVES: &str = r#"import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8])
        b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        _a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='first', size=4096, base=-1)
        _b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='second', size=1024, base=2048)
        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)
        return r
"#;

/// Two loop carries (line 10) initialised from one tile: no order of
/// yield copies gives each its own value.
const CARRIES: &str = r#"import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        a0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        for i, (a, b) in pl.range(4, init_values=(a0, a0)):
            v: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            w: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(v, a)
            u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(w, b)
            ra, rb = pl.yield_(u, w)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(ra, [0, 0], y)
"#;

/// Files of every kind, written once per test into its scratch folder.
struct Inputs {
    dir: common::Scratch,
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
            ("reserve.py", RESERVES.to_string()),
            ("carries.py", CARRIES.to_string()),
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
    // An op whose allocation sizes have no rule is the module's fault
    // (the C++ fails the pass without a message): where, why, what to do.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lit/stride-align");
    for (file, why) in [
        (
            "align-alloc-size-errors.mlir",
            ":12:3: error: cannot align the allocation sizes this op needs: a transpose of \
             32-bit elements over more than two dims, none of them already a multiple of two \
             blocks, has no size rule; decompose it into transposes of two dims first",
        ),
        (
            "unaligned-size-space-error.mlir",
            ":9:3: error: cannot align the allocation sizes this op needs: an operand is in \
             `gm`, and only `ub` and `cbuf` have a hardware block to pad to; give the op's \
             operands an on-chip buffer space",
        ),
    ] {
        let path = root.join(file);
        let path = path.to_str().unwrap();
        expect(&i, &["opt", "-hivm-align-alloc-size", path], 2, why);
    }
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

/// A program PyPTO rejects with its own `InternalError` is still the
/// user's mistake: exit 2 with its position, PyPTO's class and words, and
/// what to change, from every command and planner; nothing is written.
/// (These were exit 3, which the table keeps for checks inside tilemem.)
#[test]
fn pypto_internal_errors_on_a_wrong_program_are_bad_input() {
    let i = Inputs::new("pypto-internal");
    let out = i.path("out.py");
    let acc =
        "acc.py:20:13: InternalError: Internal error: MemoryReuse cannot reconcile divergent \
               L0C accumulator buffers with tile.move; accumulator control-flow values must be \
               coalesced before YieldFixup. The accumulator 'acc' yielded here is in another Acc \
               buffer than the result it becomes, and no pipe moves one L0C buffer to another: \
               make every branch (or the loop's init and body) yield an accumulator in one \
               buffer, e.g. give 'acc' and the tiles it accumulates in place the result's \
               MemRef\n";
    let reserve = "reserve.py:10:9: InternalError: overlapping reserve_buffer ranges in function \
                   'main': [2048, 3072) overlaps with [0, 4096); reserve_buffer 'second' \
                   (base=2048, size=1024) overlaps 'first': give 'second' base=-1 (AUTO) to \
                   place it above the others, or a base of at least 4096\n";
    let carries = "carries.py:10:9: InternalError: MemoryReuse: loop carries 'a' and 'b' of \
                   function 'main' share one buffer, so no order of yield copies can give each \
                   its own value (both start from 'a0'); initialise them from different tiles\n";
    for planner in ["pypto", "dsa-rp", "optimal"] {
        for cmd in ["plan", "explain"] {
            let args = [cmd, "--target", "950", "--planner", planner];
            expect(&i, &[&args[..], &["@acc.py"]].concat(), 2, acc);
            expect(&i, &[&args[..], &["@reserve.py"]].concat(), 2, reserve);
        }
        expect(
            &i,
            &["plan", "@carries.py", "--planner", planner],
            2,
            carries,
        );
        expect(
            &i,
            &[
                "plan",
                "@acc.py",
                "--target",
                "950",
                "--planner",
                planner,
                "-o",
                &out,
            ],
            2,
            "",
        );
        assert!(
            !Path::new(&out).exists(),
            "{planner}: an output was written"
        );
    }
    // `--all` does not turn it into "every space fits".
    expect(
        &i,
        &["explain", "@acc.py", "--target", "950", "--all"],
        2,
        acc,
    );
}

/// A HIVM module the stride passes reject (not bufferized, a mark of 6
/// bytes on 32-bit elements) is bad input, at the op, with nothing
/// written; it was exit 1 ("a pass failed"), which stays for a
/// propagation that does not converge.
#[test]
fn hivm_the_stride_passes_reject_is_bad_input() {
    let i = Inputs::new("stride");
    let lit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lit/stride-align");
    for name in [
        "mark-errors.mlir",
        "enable-errors.mlir",
        "enable-max-iterations-error.mlir",
    ] {
        std::fs::copy(lit.join(name), i.dir.join(name)).unwrap();
    }
    let out = i.path("out.mlir");
    let split = "-split-input-file";
    expect(
        &i,
        &[
            "opt",
            "-hivm-mark-stride-align",
            split,
            "@mark-errors.mlir",
            "-o",
            &out,
        ],
        2,
        "mark-errors.mlir:9:3: error: Not bufferized.\n",
    );
    expect(
        &i,
        &[
            "opt",
            "-hivm-enable-stride-align",
            split,
            "@enable-errors.mlir",
            "-o",
            &out,
        ],
        2,
        "enable-errors.mlir:86:3: error: alignment of 6 bytes is not a whole number of 32-bit \
         elements\n",
    );
    assert!(!Path::new(&out).exists(), "an output was written");
    expect(
        &i,
        &[
            "opt",
            "-hivm-enable-stride-align",
            "@enable-max-iterations-error.mlir",
            "-o",
            &out,
        ],
        1,
        "error: propagate storage align failure and match the max iterations10\n",
    );
    assert!(!Path::new(&out).exists(), "an output was written");
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

/// The exit-code table `tilemem --help` prints, from its heading to the
/// line of 130.
fn table_of(help: &str) -> String {
    let start = help
        .find("Exit codes (the same for every command):")
        .unwrap_or_else(|| panic!("no exit-code table in\n{help}"));
    let rest = &help[start..];
    let last = rest.find("\n  130  ").unwrap() + 1;
    let end = last + rest[last..].find('\n').unwrap_or(rest.len() - last);
    rest[..end].to_string()
}

/// Every help lists the one table of `src/exit.rs`, word for word, with
/// each code a command can end with.
#[test]
fn every_help_lists_the_same_exit_code_table() {
    let main = String::from_utf8(tilemem(&["--help"]).stdout).unwrap();
    let table = table_of(&main);
    for code in [
        "\n  0    ",
        "\n  1    ",
        "\n  2    ",
        "\n  3    ",
        "\n  130  ",
    ] {
        assert!(table.contains(code), "{code:?} not in\n{table}");
    }
    for cmd in [
        "solve", "validate", "bench", "fmt", "plan", "explain", "opt",
    ] {
        let o = tilemem(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}");
        let help = String::from_utf8(o.stdout).unwrap();
        assert_eq!(table_of(&help), table, "tilemem {cmd} --help");
    }
}
