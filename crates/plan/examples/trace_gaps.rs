//! Gap of `auto` to the co-live lower bound on generated large traces:
//! `cargo run --release -p tilemem-plan --example trace_gaps -- [LIMIT_S]
//! [SEEDS] [SIZES...]`. One row per trace, then the worst and median gap
//! per size. Environment: `SEED0` (first seed), `SOLVER` (`handoff`,
//! `portfolio`; default `auto`), `COLIVE` (make every buffer live at once),
//! `WRITE` (a folder: also write each trace there as `trace-SIZE-SEED.csv`,
//! for `tilemem solve`).
use std::time::{Duration, Instant};

use tilemem_plan::gen::large_trace;
use tilemem_plan::{solve, validate, Budget, SolverKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let limit: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(2.0);
    let seeds: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let sizes: Vec<usize> = if args.len() > 2 {
        args[2..].iter().filter_map(|a| a.parse().ok()).collect()
    } else {
        vec![10_000, 28_500, 62_000, 100_000]
    };
    let budget = Budget::default().with_time_limit(Some(Duration::from_secs_f64(limit)));
    println!("size\tseed\tgap%\tproven\ttime_s\tsolver");
    for &n in &sizes {
        let mut gaps = Vec::new();
        for seed in std::env::var("SEED0")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)..seeds
        {
            let mut p = large_trace(seed, n);
            if std::env::var_os("COLIVE").is_some() {
                // Every buffer live at once (the widest conflict graph).
                for b in &mut p.buffers {
                    (b.lower, b.upper) = (0, 1);
                }
            }
            if let Some(dir) = std::env::var_os("WRITE") {
                let path = std::path::Path::new(&dir).join(format!("trace-{n}-{seed}.csv"));
                std::fs::write(&path, tilemem_plan::csv::write_problem(&p, None))
                    .expect("write the trace");
            }
            let t = Instant::now();
            let kind = match std::env::var("SOLVER").as_deref() {
                Ok("handoff") => SolverKind::Handoff,
                Ok("portfolio") => SolverKind::Portfolio,
                _ => SolverKind::Auto,
            };
            let out = solve(&p, kind, &budget).expect("valid problem");
            let time = t.elapsed().as_secs_f64();
            let sol = out.solution.as_ref().expect("placed");
            validate(&p, sol).expect("valid placement");
            let gap = out.gap_percent();
            println!(
                "{n}\t{seed}\t{gap:.3}\t{}\t{time:.2}\t{}",
                out.proven_optimal, out.solver
            );
            gaps.push(gap);
        }
        gaps.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{n}\tworst {:.3}\tmedian {:.3}",
            gaps[gaps.len() - 1],
            gaps[gaps.len() / 2]
        );
    }
}
