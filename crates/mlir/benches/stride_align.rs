//! Benchmark: `hivm-mark-stride-align` + `hivm-enable-stride-align` over one
//! generated function of 10,000 ops (loads, subviews, vector ops and allocs
//! whose rows need padding), on membase and regbase targets.
//!
//! Run with `cargo bench -p tilemem-mlir --bench stride_align`. Prints the
//! best and median wall time of the two passes (reading the input is not
//! timed), the best on-CPU time of the thread (Linux `schedstat`; it is not
//! inflated when other processes compete for the cores), and the number of
//! ops before and after.

mod common;

use std::time::{Duration, Instant};

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::pass::{run_pipeline, Pass};
use tilemem_mlir::passes::{enable::EnableStrideAlign, mark::MarkStrideAlign};
use tilemem_mlir::Module;

use common::generate;

/// Nanoseconds this thread has run on a CPU (Linux), if known.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn count_ops(m: &Module) -> usize {
    m.all_ops().len()
}

fn bench(label: &str, target: Option<&str>) {
    let text = generate(10_000, target);
    let module = match parse_module(&text, &ParseOptions::default()) {
        Ok(m) => m,
        Err(d) => {
            eprintln!(
                "{label}: cannot read the generated input: {}",
                d.render("gen")
            );
            return;
        }
    };
    let passes: Vec<Box<dyn Pass>> = vec![Box::new(MarkStrideAlign), Box::new(EnableStrideAlign)];
    let mut times: Vec<Duration> = Vec::new();
    let mut cpu: Vec<u64> = Vec::new();
    let mut after = 0;
    for _ in 0..15 {
        let mut m = module.clone();
        let cpu_start = cpu_ns();
        let start = Instant::now();
        let (diags, ok) = run_pipeline(&passes, &mut m);
        times.push(start.elapsed());
        if let (Some(a), Some(b)) = (cpu_start, cpu_ns()) {
            cpu.push(b.saturating_sub(a));
        }
        if !ok {
            eprintln!("{label}: passes failed: {diags:?}");
            return;
        }
        after = count_ops(&m);
    }
    times.sort();
    cpu.sort();
    let cpu_best = cpu
        .first()
        .map(|&ns| format!(", on-CPU best {:.1} ms", ns as f64 / 1e6))
        .unwrap_or_default();
    println!(
        "{label}: mark + enable over {} ops: wall best {:.1} ms, median {:.1} ms{cpu_best} ({} ops after)",
        count_ops(&module),
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
        after
    );
}

fn main() {
    bench("membase (910B)", None);
    bench("regbase (950)", Some("Ascend950PR_9589"));
}
