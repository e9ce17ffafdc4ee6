//! The whole memory pipeline on generated kernels.
//!
//! `cargo bench -p tilemem-pto --bench pipeline` generates kernels of 10,000
//! and 100,000 statements in the form PyPTO hands to InitMemRef (plain
//! tiles: vector chains, slice/reshape views, loops carrying tiles, ifs with
//! results, matmuls through Mat/Left/Right/Acc, stores), runs
//! init_memref -> materialize_semantic_aliases -> memory_reuse ->
//! allocate_memory_addr (with the placement check) on the 950 target, and
//! prints the median times of parsing, the passes and printing, the ratio
//! of the whole to reading plus printing alone (the floor), and how the
//! pass and whole times scale from 10k statements up (1.0 = linear). Then, for
//! the 100k kernel and for 100 kernels of 1k, each phase's time, share and
//! peak heap (a counting allocator: all that is live, as a multiple of the
//! input size), against the time and peak of reading plus printing alone.
//!
//! `-- --large` adds a kernel of 1M statements to the timing and scaling
//! runs. `-- --write DIR` only writes the generated inputs (10k, 100k and 1M
//! statements in one kernel, 100 kernels of 1k) as `DIR/pipeline_*.py`,
//! to measure the `tilemem plan` command itself (peak RSS with
//! `/usr/bin/time -v`); `-- --sizes` prints the model's struct sizes;
//! `-- --phases` prints only the per-phase tables.
//!
//! Printing streams into a sink, as `tilemem plan` prints into its output
//! file: the text is never held whole.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tilemem_pto::passes::sequential::make_relative;
use tilemem_pto::passes::{run_pass, run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::print::print_to;
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

mod counting;

use counting::{LIVE, PEAK};

/// A fixed origin for wall-clock phase times where on-CPU time is missing.
static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// The measured inputs: (name, functions, statements per function).
const INPUTS: [(&str, usize, usize); 4] = [
    ("10k", 1, 10_000),
    ("100k", 1, 100_000),
    ("1m", 1, 1_000_000),
    ("100x1k", 100, 1_000),
];

/// On-CPU time of the whole process: the sum over its threads (passes
/// run the functions of a program on several), where available.
fn cpu_process() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_nanos)
        .sum()
}

/// On-CPU time of the process where available, wall time elsewhere.
fn clock() -> Duration {
    let c = cpu_process();
    if c.is_zero() {
        Instant::now().duration_since(*START.get_or_init(Instant::now))
    } else {
        c
    }
}

/// Heap bytes live outside the measured pipeline: everything live now but
/// the input text of `len` bytes (which the pipeline, like `tilemem plan`,
/// drops once read). Starts a new peak.
fn baseline(len: usize) -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live.saturating_sub(len)
}

/// Peak heap since the last reset, above `base`, as a multiple of `len`;
/// starts a new peak.
fn peak_ratio(base: usize, len: usize) -> f64 {
    let peak = PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    peak.saturating_sub(base) as f64 / len as f64
}

/// Prints, for program `text`, each phase's time, share and peak heap
/// (input text, program, the pass's own tables, printed text: all that is
/// live, as a multiple of the input size), then the whole against reading
/// plus printing alone.
fn phase_table(name: &str, text: &str) {
    let len = text.len();
    // The floor: read and print alone.
    let input = text.to_string();
    let base = baseline(len);
    let t = clock();
    let program = parse(&input).expect("generated program parses");
    drop(input);
    print_to(&program, &mut std::io::sink()).expect("a sink takes everything");
    let floor_time = clock().saturating_sub(t);
    let floor_peak = peak_ratio(base, len);
    drop(program);
    // The whole pipeline, phase by phase.
    let input = text.to_string();
    let base = baseline(len);
    let mut phases: Vec<(&str, Duration, f64)> = Vec::new();
    let t = clock();
    let mut program = parse(&input).expect("generated program parses");
    drop(input);
    phases.push(("read", clock().saturating_sub(t), peak_ratio(base, len)));
    let cx = &mut PassContext::new(Soc::ascend950(), PlannerMode::Pypto);
    // What `run_pipeline` does before the passes, measured on its own:
    // run with a single pass, it would rebase the input inside that
    // pass's phase, on the grown model.
    let t = clock();
    for f in &mut program.functions {
        if f.kind().is_kernel() {
            make_relative(f, cx.policy.as_ref());
        }
    }
    phases.push((
        "make_relative",
        clock().saturating_sub(t),
        peak_ratio(base, len),
    ));
    for p in PassId::ALL {
        let t = clock();
        run_pass(p, &mut program, cx).expect("pass succeeds");
        phases.push((p.name(), clock().saturating_sub(t), peak_ratio(base, len)));
    }
    let t = clock();
    let mut out = Counted(0);
    print_to(&program, &mut out).expect("counting takes everything");
    phases.push(("print", clock().saturating_sub(t), peak_ratio(base, len)));
    assert!(out.0 > len);
    // The summary lines `tilemem plan` prints by default (the façade's
    // analysis of the planned program).
    let t = clock();
    let lines: Vec<String> = tilemem_pto::report::summary(&program, &cx.soc, true)
        .iter()
        .map(|s| format!("{s:?}"))
        .collect();
    phases.push((
        "summary lines (default)",
        clock().saturating_sub(t),
        peak_ratio(base, len),
    ));
    assert!(!lines.is_empty());
    drop(lines);
    // The full report, built only for --report and --map: not a phase of
    // the default run, shown beside it; the map's with the buffers' gaps,
    // --report's without.
    let t = clock();
    let report = tilemem_pto::report::build(&program, &cx.soc, true);
    let report_time = clock().saturating_sub(t);
    let report_peak = peak_ratio(base, len);
    drop(report);
    let t = clock();
    let report = tilemem_pto::report::build_with(&program, &cx.soc, true, false);
    let lean_time = clock().saturating_sub(t);
    let lean_peak = peak_ratio(base, len);
    drop(report);
    let total: Duration = phases.iter().map(|p| p.1).sum();
    let peak = phases.iter().map(|p| p.2).fold(0.0, f64::max);
    println!("{name} ({len} bytes), per phase: time, share, peak heap / input size");
    for (phase, d, m) in &phases {
        println!(
            "  {phase:<30} {:>8.1} ms {:>5.1} % {m:>6.2}x",
            d.as_secs_f64() * 1e3,
            100.0 * d.as_secs_f64() / total.as_secs_f64()
        );
    }
    println!(
        "  whole: {:.1} ms = {:.2}x read + print alone; peak heap {peak:.2}x input (read + print alone: {floor_peak:.2}x)",
        total.as_secs_f64() * 1e3,
        total.as_secs_f64() / floor_time.as_secs_f64(),
    );
    println!(
        "  (the full report of --map, with gaps: {:.1} ms = {:.1} % of the whole, peak heap {report_peak:.2}x input)",
        report_time.as_secs_f64() * 1e3,
        100.0 * report_time.as_secs_f64() / total.as_secs_f64(),
    );
    println!(
        "  (the report of --report, no gaps: {:.1} ms = {:.1} % of the whole, peak heap {lean_peak:.2}x input)",
        lean_time.as_secs_f64() * 1e3,
        100.0 * lean_time.as_secs_f64() / total.as_secs_f64(),
    );
}

/// A writer that only counts the bytes it is given.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Prints the size of each part of the program model (what a statement or
/// a variable costs before its heap parts).
fn print_sizes() {
    use std::mem::size_of;
    use tilemem_pto::ir::{Call, Expr, MemRef, Stmt, StmtKind, TileType, Type, VarData};
    let sizes = [
        ("Stmt", size_of::<Stmt>()),
        ("StmtKind", size_of::<StmtKind>()),
        ("Expr", size_of::<Expr>()),
        ("Call", size_of::<Call>()),
        ("VarData", size_of::<VarData>()),
        ("Type", size_of::<Type>()),
        ("TileType", size_of::<TileType>()),
        ("MemRef", size_of::<MemRef>()),
    ];
    for (name, size) in sizes {
        println!("{name:<10} {size:>4} bytes");
    }
}

fn main() {
    // `-- --write DIR`: only write the generated inputs, for measuring the
    // `tilemem plan` command itself (peak RSS with `/usr/bin/time -v`).
    let args: Vec<String> = std::env::args().collect();
    // `-- --sizes`: the in-memory size of the program model's parts.
    if args.iter().any(|a| a == "--sizes") {
        print_sizes();
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
    if args.iter().any(|a| a == "--phases") {
        for (name, funcs, n) in [INPUTS[1], INPUTS[3]] {
            phase_table(name, &generate_program(funcs, n));
        }
        return;
    }
    let passes = PassId::ALL;
    let mut pass_times = Vec::new();
    // `-- --large` adds the 1M-statement kernel (about 10 s a run, 1.3 GB).
    let large = args.iter().any(|a| a == "--large");
    let sizes: &[usize] = if large {
        &[10_000, 100_000, 1_000_000]
    } else {
        &[10_000, 100_000]
    };
    for &n in sizes {
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
        let whole = if c.is_zero() { p + r + w } else { fp + fr + fw };
        pass_times.push((stmts, if c.is_zero() { r } else { c }, whole));
    }
    // Where the time and the memory go, per phase, on the large kernel
    // and on a program of many small ones.
    for (name, funcs, n) in [INPUTS[1], INPUTS[3]] {
        phase_table(name, &generate_program(funcs, n));
    }
    // Growth against linear from the smallest kernel (1.00 = linear).
    let (n0, p0, w0) = pass_times[0];
    for &(n, p, w) in &pass_times[1..] {
        let linear = n as f64 / n0 as f64;
        println!(
            "scaling {n0} -> {n} lines (on-CPU): passes {:.2}x linear, read + passes + print {:.2}x linear",
            (p.as_secs_f64() / p0.as_secs_f64()) / linear,
            (w.as_secs_f64() / w0.as_secs_f64()) / linear,
        );
    }
}
