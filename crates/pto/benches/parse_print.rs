//! Reader + printer throughput on a generated program.
//!
//! `cargo bench -p tilemem-pto --bench parse_print` prints, for generated
//! programs of 10,000 and 100,000 statements in PyPTO's dump style (the
//! statement mix of the reference kernels, and a heavy variant where every
//! statement carries a full tile type): input size, parse and print wall
//! times and the on-CPU time of both (median and minimum of several runs:
//! on a shared machine the minimum is closest to the uncontended cost), and the
//! peak heap used while parsing and printing as a multiple of the input
//! size (flat across sizes = memory proportional to the input).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod counting;

use counting::{COUNT, LIVE, PEAK};

/// A kernel of about `n` statements in PyPTO's dump style: allocs, loads,
/// elementwise chains, scalar index arithmetic, stores, loops with iter
/// args and yields. With `heavy`, every tile type carries a MemRef and a
/// TileView (about 225 bytes a statement); otherwise the mix of the
/// reference kernels (about 160 bytes a statement, half the tiles with a
/// TileView).
fn generate(n: usize, heavy: bool) -> String {
    let mut s = String::with_capacity(n * 230);
    s.push_str(
        "# pypto.program: Bench\nimport pypto.language as pl\n\n@pl.program\nclass Bench:\n",
    );
    s.push_str(
        "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n",
    );
    s.push_str("    def kernel(x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:\n");
    let tile = |buf: usize, view: bool| {
        let view = if view {
            ", pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box, fractal=512)"
        } else {
            ""
        };
        format!("pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_{buf}, pl.const({}, pl.INT64), 16384), pl.Mem.Vec{view}]", buf * 16384)
    };
    for b in 0..8 {
        s.push_str(&format!(
            "        mem_vec_{b}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)\n"
        ));
    }
    s.push_str(&format!(
        "        t0: {} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n",
        tile(0, true)
    ));
    let mut count = 9;
    let mut last = "t0".to_string();
    let mut i = 1;
    while count + 2 < n {
        let view = heavy || i % 2 == 0;
        if i % 50 == 0 {
            // A loop of 4 statements carrying one tile.
            s.push_str(&format!(
                "        for k{i}, (acc{i},) in pl.range(0, 4, 1, init_values=({last},)):\n"
            ));
            s.push_str(&format!(
                "            u{i}: {} = pl.tile.add(acc{i}, t0)\n",
                tile(i % 8, view)
            ));
            s.push_str(&format!(
                "            w{i}: {} = pl.tile.muls(u{i}, 0.5)\n",
                tile((i + 1) % 8, view)
            ));
            s.push_str(&format!(
                "            r{i}: {} = pl.yield_(w{i})\n",
                tile((i + 1) % 8, view)
            ));
            last = format!("r{i}");
            count += 4;
        } else if !heavy && i % 10 == 3 {
            s.push_str(&format!(
                "        o{i}: pl.Scalar[pl.INDEX] = o{} * 64 + {i} % 4\n",
                i.saturating_sub(10)
            ));
            count += 1;
        } else if !heavy && i % 10 == 7 {
            s.push_str(&format!(
                "        pl.tile.store({last}, [o{} * 64, 0], y)\n",
                i.saturating_sub(4)
            ));
            count += 1;
        } else if i % 10 == 5 {
            s.push_str(&format!("        t{i}: {} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n", tile(i % 8, view)));
            last = format!("t{i}");
            count += 1;
        } else {
            let op = [
                "pl.tile.add({}, t0)",
                "pl.tile.exp({})",
                "pl.tile.muls({}, -1.0)",
            ][i % 3]
                .replace("{}", &last);
            s.push_str(&format!("        t{i}: {} = {op}\n", tile(i % 8, view)));
            last = format!("t{i}");
            count += 1;
        }
        i += 1;
    }
    s.push_str(&format!(
        "        pl.tile.store({last}, [0, 0], y)\n        return y\n"
    ));
    s
}

/// On-CPU time of this thread (Linux `schedstat`, nanosecond resolution),
/// so that the figures stay meaningful on a loaded machine.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Tokenizing alone, to tell lexing from parsing costs.
fn lex_only(src: &str) -> (usize, Duration) {
    let c0 = cpu_time().unwrap_or_default();
    let start = src.find("@pl.program").unwrap_or(0);
    let line = src[..start].matches('\n').count() as u32 + 1;
    let mut lx = tilemem_pto::parse::lexer::Lexer::new(src, start, line);
    let mut n = 0;
    while let Ok(t) = lx.next_token() {
        n += 1;
        if t.kind == tilemem_pto::parse::lexer::Tok::Eof {
            break;
        }
    }
    (n, cpu_time().unwrap_or_default().saturating_sub(c0))
}

fn main() {
    // `cargo test --benches` runs this binary with `--bench` absent: keep it short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 7 };
    println!(
        "{:>6} {:>10} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11}",
        "kind",
        "stmts",
        "input MB",
        "parse ms",
        "print ms",
        "total ms",
        "cpu med",
        "cpu min",
        "peak/input"
    );
    for (n, heavy) in [(10_000, false), (100_000, false), (100_000, true)] {
        let src = generate(n, heavy);
        if let Some(dir) = std::env::var_os("PTO_BENCH_DUMP") {
            // Keep the inputs for timing `tilemem fmt` on them.
            let kind = if heavy { "heavy" } else { "mixed" };
            let path = std::path::Path::new(&dir).join(format!("bench_{kind}_{n}.py"));
            std::fs::write(&path, &src).expect("write the generated program");
        }
        let stmts = src.lines().count() - 7;
        let (mut tp, mut tq, mut tt, mut tc) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut peak_ratio = 0.0;
        for _ in 0..runs {
            let base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let c0 = cpu_time();
            let t0 = Instant::now();
            let a0 = COUNT.load(Ordering::Relaxed);
            let p = tilemem_pto::parse(&src).expect("generated program parses");
            let t1 = Instant::now();
            if std::env::var_os("PTO_BENCH_LEX").is_some() {
                let a = COUNT.load(Ordering::Relaxed) - a0;
                println!(
                    "parse allocations: {a} ({:.1} per statement)",
                    a as f64 / n as f64
                );
            }
            let out = tilemem_pto::print(&p);
            let t2 = Instant::now();
            let c2 = cpu_time();
            assert_eq!(out.len(), src.len(), "round trip changed the program");
            peak_ratio = (PEAK.load(Ordering::Relaxed) - base) as f64 / src.len() as f64;
            drop((p, out));
            tp.push(t1 - t0);
            tq.push(t2 - t1);
            tt.push(t2 - t0);
            if let (Some(a), Some(b)) = (c0, c2) {
                tc.push(b.saturating_sub(a));
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if std::env::var_os("PTO_BENCH_LEX").is_some() {
            let (n, d) = lex_only(&src);
            println!("lex only: {n} tokens, {:.1} ms cpu", ms(d));
        }
        println!(
            "{:>6} {:>10} {:>9.1} {:>10.1} {:>10.1} {:>10.1} {:>10} {:>10} {:>10.1}x",
            if heavy { "heavy" } else { "mixed" },
            stmts,
            src.len() as f64 / 1e6,
            ms(median(tp)),
            ms(median(tq)),
            ms(median(tt)),
            if tc.is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.1}", ms(median(tc.clone())))
            },
            tc.iter()
                .min()
                .map_or("n/a".to_string(), |d| format!("{:.1}", ms(*d))),
            peak_ratio
        );
    }
}
