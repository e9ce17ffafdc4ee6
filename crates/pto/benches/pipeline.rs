//! The whole memory pipeline on generated kernels.
//!
//! `cargo bench -p tilemem-pto --bench pipeline` generates kernels of 10,000
//! and 100,000 statements in the form PyPTO hands to InitMemRef (plain
//! tiles: vector chains, slice/reshape views, loops carrying tiles, ifs with
//! results, matmuls through Mat/Left/Right/Acc, stores), runs
//! init_memref -> materialize_semantic_aliases -> memory_reuse ->
//! allocate_memory_addr (with the placement check) on the 950 target, and
//! prints the median times of parsing, the passes and printing, the ratio
//! of the whole to reading plus printing alone (the floor), each phase's
//! share on the large kernel, and how the pass time scales from 10k to
//! 100k statements (1.0 = linear).

use std::time::{Duration, Instant};

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// A program of `funcs` kernels of about `n` statements each (one kernel
/// is named `kernel`, several `kernel_0`, `kernel_1`, ...).
fn generate_program(funcs: usize, n: usize) -> String {
    let mut s = String::with_capacity(funcs * n * 160);
    s.push_str(
        "# pypto.program: Bench\nimport pypto.language as pl\n\n@pl.program\nclass Bench:\n",
    );
    for k in 0..funcs {
        let name = if funcs == 1 {
            "kernel".to_string()
        } else {
            format!("kernel_{k}")
        };
        kernel(&mut s, &name, n);
    }
    s
}

/// A kernel of about `n` statements.
fn generate(n: usize) -> String {
    generate_program(1, n)
}

/// Appends kernel `name` of about `n` statements to `s`.
fn kernel(s: &mut String, name: &str, n: usize) {
    s.push_str("    @pl.function(type=pl.FunctionType.InCore)\n");
    s.push_str("    def ");
    s.push_str(name);
    s.push_str("(x: pl.Tensor[[64, 64], pl.FP32], a: pl.Tensor[[64, 64], pl.FP16], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n");
    let v = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]";
    let row = "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]";
    s.push_str(&format!(
        "        t0: {v} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n"
    ));
    let mut count = 1;
    let mut last = "t0".to_string();
    let mut i = 1;
    while count + 2 < n {
        match i % 40 {
            0 => {
                // A loop carrying one tile: 4 statements.
                s.push_str(&format!(
                    "        for k{i}, (acc{i},) in pl.range(4, init_values=({last},)):\n"
                ));
                s.push_str(&format!(
                    "            u{i}: {v} = pl.tile.add(acc{i}, t0)\n"
                ));
                s.push_str(&format!(
                    "            w{i}: {v} = pl.tile.muls(u{i}, 0.5)\n"
                ));
                s.push_str(&format!("            r{i}: {v} = pl.yield_(w{i})\n"));
                last = format!("r{i}");
                count += 4;
            }
            10 => {
                // An if with one result: 5 statements.
                s.push_str(&format!("        if c < {i}:\n"));
                s.push_str(&format!("            p{i}: {v} = pl.tile.exp({last})\n"));
                s.push_str(&format!("            q{i}: {v} = pl.yield_(p{i})\n"));
                s.push_str("        else:\n");
                s.push_str(&format!(
                    "            o{i}: {v} = pl.tile.adds({last}, 1.0)\n"
                ));
                s.push_str(&format!("            q{i}: {v} = pl.yield_(o{i})\n"));
                last = format!("q{i}");
                count += 5;
            }
            20 => {
                // Views: a row slice, a reshape of it, a broadcast use.
                s.push_str(&format!(
                    "        s{i}: {row} = pl.tile.slice({last}, [1, 64], [{}, 0])\n",
                    i % 64
                ));
                s.push_str(&format!(
                    "        h{i}: {row} = pl.tile.reshape(s{i}, [1, 64])\n"
                ));
                s.push_str(&format!(
                    "        e{i}: {v} = pl.tile.col_expand_mul({last}, h{i})\n"
                ));
                last = format!("e{i}");
                count += 3;
            }
            30 => {
                // A matmul through the cube spaces, stored back.
                s.push_str(&format!("        am{i}: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)\n"));
                s.push_str(&format!("        al{i}: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(am{i}, target_memory=pl.Mem.Left)\n"));
                s.push_str(&format!("        ar{i}: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(am{i}, target_memory=pl.Mem.Right)\n"));
                s.push_str(&format!("        mc{i}: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al{i}, ar{i})\n"));
                s.push_str(&format!("        st{i}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(mc{i}, [0, 0], y)\n"));
                count += 5;
            }
            k => {
                let op = ["add", "mul", "sub", "maximum"][k % 4];
                s.push_str(&format!("        t{i}: {v} = pl.tile.{op}({last}, t0)\n"));
                last = format!("t{i}");
                count += 1;
            }
        }
        i += 1;
    }
    s.push_str(&format!(
        "        res: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({last}, [0, 0], y)\n"
    ));
    s.push_str("        return res\n");
}

/// On-CPU time of this thread (Linux `schedstat`), so figures stay
/// meaningful on a loaded machine; falls back to zero elsewhere.
fn cpu_now() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// A fixed origin for wall-clock phase times where on-CPU time is missing.
static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// The measured inputs: (name, functions, statements per function).
const INPUTS: [(&str, usize, usize); 4] = [
    ("10k", 1, 10_000),
    ("100k", 1, 100_000),
    ("1m", 1, 1_000_000),
    ("100x1k", 100, 1_000),
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `-- --write DIR`: only write the generated inputs, for measuring the
    // `tilemem plan` command itself (peak RSS with `/usr/bin/time -v`).
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--sizes") {
        use std::mem::size_of;
        use tilemem_pto::ir::*;
        println!("Stmt {} StmtKind {} Expr {} Call {} Type {} TileType {} MemRef {} VarData {} DType {} MemSpace {} ForStmt {} IfStmt {}",
            size_of::<Stmt>(), size_of::<StmtKind>(), size_of::<Expr>(), size_of::<Call>(), size_of::<Type>(), size_of::<TileType>(), size_of::<MemRef>(), size_of::<VarData>(), size_of::<DType>(), size_of::<MemSpace>(), size_of::<ForStmt>(), size_of::<IfStmt>());
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let dir = std::path::PathBuf::from(args.get(i + 1).map_or("/tmp", String::as_str));
        for (name, funcs, n) in INPUTS {
            let path = dir.join(format!("pipeline_{name}.py"));
            std::fs::write(&path, generate_program(funcs, n)).expect("writes the input");
            println!("{}", path.display());
        }
        return;
    }
    let passes = PassId::ALL;
    let mut pass_times = Vec::new();
    for n in [10_000usize, 100_000] {
        let text = generate(n);
        let stmts = text.lines().count();
        let (mut tp, mut tr, mut tw, mut cr) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut cp, mut cw) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let (t, c) = (Instant::now(), cpu_now());
            let mut program = parse(&text).expect("generated program parses");
            tp.push(t.elapsed());
            cp.push(cpu_now().saturating_sub(c));
            let mut cx = PassContext::new(Soc::ascend950(), PlannerMode::Pypto);
            let (t, c) = (Instant::now(), cpu_now());
            run_pipeline(&mut program, &mut cx, &passes).expect("pipeline succeeds");
            tr.push(t.elapsed());
            cr.push(cpu_now().saturating_sub(c));
            let (t, c) = (Instant::now(), cpu_now());
            let out = print(&program);
            tw.push(t.elapsed());
            cw.push(cpu_now().saturating_sub(c));
            assert!(out.len() > text.len());
        }
        let (p, r, w, c) = (median(tp), median(tr), median(tw), median(cr));
        println!(
            "{stmts:>7} lines: parse {:>8.1} ms, passes {:>8.1} ms wall / {:>8.1} ms on-CPU, print {:>8.1} ms",
            p.as_secs_f64() * 1e3,
            r.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3,
            w.as_secs_f64() * 1e3,
        );
        // On-CPU when the platform has it: a loaded machine inflates wall
        // time unevenly.
        let (fp, fw) = (median(cp), median(cw));
        let (fp, fr, fw) = if c.is_zero() { (p, r, w) } else { (fp, c, fw) };
        println!(
            "{stmts:>7} lines: read + passes + print = {:.2}x read + print alone (the floor)",
            (fp + fr + fw).as_secs_f64() / (fp + fw).as_secs_f64()
        );
        pass_times.push((stmts, if c.is_zero() { r } else { c }));
    }
    // Where the time goes, per phase, on the large kernel: each phase's
    // share of the whole (read, the four passes, print).
    let text = generate(100_000);
    // On-CPU time of this thread where available, wall time elsewhere.
    let clock = || {
        let c = cpu_now();
        if c.is_zero() {
            Instant::now().duration_since(*START.get_or_init(Instant::now))
        } else {
            c
        }
    };
    let mut phases: Vec<(&str, Duration)> = Vec::new();
    let t = clock();
    let mut program = parse(&text).expect("generated program parses");
    phases.push(("read", clock().saturating_sub(t)));
    let mut cx = PassContext::new(Soc::ascend950(), PlannerMode::Pypto);
    for p in passes {
        let t = clock();
        run_pipeline(&mut program, &mut cx, &[p]).expect("pass succeeds");
        phases.push((p.name(), clock().saturating_sub(t)));
    }
    let t = clock();
    let out = print(&program);
    phases.push(("print", clock().saturating_sub(t)));
    assert!(!out.is_empty());
    let total: f64 = phases.iter().map(|(_, d)| d.as_secs_f64()).sum();
    for (name, d) in &phases {
        println!(
            "  {name:<30} {:>8.1} ms {:>5.1} %",
            d.as_secs_f64() * 1e3,
            100.0 * d.as_secs_f64() / total
        );
    }
    let (n0, t0) = pass_times[0];
    let (n1, t1) = pass_times[1];
    let ratio = (t1.as_secs_f64() / t0.as_secs_f64()) / (n1 as f64 / n0 as f64);
    println!("passes scaling 10k -> 100k (on-CPU): {ratio:.2}x linear");
}
