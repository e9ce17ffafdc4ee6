//! Bench binary: `cargo bench -p tilemem-plan --bench dsa -- [DIR] [SOLVER]
//! [SECS] [fit]` prints the table of `tilemem bench` for a folder of problems
//! (default: the shared DSA problems next to the repository). `DIR` may
//! also be `gen:N` (greedy on an `N`-buffer trace), `family:N` (`N`
//! generated perfect packings) or `cut:N` (`N` generated cut packings with
//! slack, the shape of challenging E and F).

use std::path::PathBuf;
use std::time::Duration;

use tilemem_plan::bench::{bench_problem, load, problem_files, table};
use tilemem_plan::{Budget, Goal, SolverKind};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let dir = args.first().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/dsa"
        ))
    });
    let kind: SolverKind = args
        .get(1)
        .map_or(SolverKind::Auto, |s| s.parse().expect("solver"));
    let secs: f64 = args.get(2).map_or(10.0, |s| s.parse().expect("seconds"));
    let fit = args.get(3).is_some_and(|s| s == "fit");
    if let Some(n) = dir.to_str().and_then(|d| d.strip_prefix("gen:")) {
        // Generated large trace: greedy throughput.
        let n: usize = n.parse().expect("buffer count");
        let t = std::time::Instant::now();
        let p = tilemem_plan::gen::large_trace(1, n);
        eprintln!(
            "generated {n} buffers in {:.3} s",
            t.elapsed().as_secs_f64()
        );
        let budget = Budget::default().with_time_limit(Some(Duration::from_secs_f64(secs)));
        let row = bench_problem(&format!("generated-{n}"), &p, kind, &budget);
        print!("{}", table(&[row]));
        return;
    }
    // Generated instance families, each with a placement at the lower bound
    // (= capacity): perfect packings filled skyline-first, and cut packings
    // with slack (the shape of challenging E and F).
    type Family = fn(u64) -> tilemem_plan::Problem;
    let families: [(&str, Family); 2] = [
        ("family", |seed| {
            tilemem_plan::gen::perfect_packing(1000 + seed, 48, 1024, 1024, 320)
        }),
        ("cut", |seed| {
            tilemem_plan::gen::cut_packing(2000 + seed, 300, 30, 1024, 1024, 1024)
        }),
    ];
    for (name, make) in families {
        let Some(n) = dir
            .to_str()
            .and_then(|d| d.strip_prefix(name)?.strip_prefix(':'))
        else {
            continue;
        };
        let n: u64 = n.parse().expect("instance count");
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_secs_f64(secs)))
            .with_goal(Goal::Fit);
        let rows: Vec<_> = (0..n)
            .map(|seed| bench_problem(&format!("{name}-{seed}"), &make(seed), kind, &budget))
            .collect();
        print!("{}", table(&rows));
        return;
    }
    let Ok(files) = problem_files(&dir) else {
        eprintln!("note: {} not found; nothing to bench", dir.display());
        return;
    };
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_secs_f64(secs)))
        .with_goal(if fit { Goal::Fit } else { Goal::Lowest });
    let mut rows = Vec::new();
    for f in files {
        let p = match load(&f, None) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        rows.push(bench_problem(&name, &p, kind, &budget));
        eprintln!("{}", table(&rows[rows.len() - 1..]).lines().last().unwrap());
    }
    print!("{}", table(&rows));
}
