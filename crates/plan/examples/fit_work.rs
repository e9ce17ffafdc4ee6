//! Work each problem file of a folder takes to be placed within its
//! capacity (from the file name): a figure that does not depend on the
//! machine or its load.
//! `cargo run --release -p tilemem-plan --example fit_work -- DIR [SOLVER] [NODES]`
use std::time::{Duration, Instant};

use tilemem_plan::bench::{load, problem_files};
use tilemem_plan::{solve, validate, Budget, Goal, SolverKind};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("a folder");
    let kind: SolverKind = args
        .next()
        .map_or(SolverKind::Exact, |s| s.parse().expect("a solver"));
    let nodes: u64 = args
        .next()
        .map_or(10_000_000, |s| s.parse().expect("a number"));
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_secs(600)))
        .with_node_limit(Some(nodes))
        .with_threads(Some(1))
        .with_goal(Goal::Fit);
    let (mut placed, mut total_work) = (0, 0u64);
    let files = problem_files(std::path::Path::new(&dir)).expect("readable folder");
    for f in &files {
        let p = load(f, None).expect("readable problem");
        let (t, c) = (Instant::now(), cpu());
        let out = solve(&p, kind, &budget).expect("well-formed");
        let secs = t.elapsed().as_secs_f64();
        let cpu_secs = cpu() - c;
        let ok = out
            .solution
            .as_ref()
            .is_some_and(|s| validate(&p, s).is_ok());
        placed += ok as usize;
        total_work += out.work;
        println!(
            "{} {} {} {} {:.3} {:.2} {}",
            f.file_name().unwrap().to_string_lossy(),
            p.len(),
            if ok { "placed" } else { "FAIL" },
            out.work,
            secs,
            cpu_secs,
            out.solver
        );
    }
    println!("placed {placed} of {} total work {total_work}", files.len());
}

/// CPU seconds of this process so far (user and system), from
/// `/proc/self/stat` (0 where it cannot be read).
fn cpu() -> f64 {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses.
    let rest = text.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}
