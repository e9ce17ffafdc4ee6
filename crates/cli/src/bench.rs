//! `tilemem bench`: solve every problem file of a folder and print one table.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tilemem_plan::bench::{bench_problem, load, problem_files, table};
use tilemem_plan::{Budget, Goal, SolverKind};

/// Flags of `tilemem bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Folder of problem files (`*.csv`, searched recursively). A capacity in
    /// the file name (`NAME.CAPACITY.csv`) applies.
    pub dir: PathBuf,
    /// Solver to measure (first-fit is always run too, as the baseline).
    #[arg(long, default_value = "auto")]
    pub solver: String,
    /// Time budget per problem, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub time_limit: f64,
    /// Work budget of the search, in search nodes. Unlike the time limit it
    /// stops a search at the same point on every machine, so the result is
    /// reproducible.
    #[arg(long, value_name = "NODES")]
    pub node_limit: Option<u64>,
    /// Stop at the first placement within the capacity.
    #[arg(long)]
    pub fit: bool,
    /// Capacity for every problem (overrides file names).
    #[arg(long)]
    pub capacity: Option<u64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let kind: SolverKind = match args.solver.parse() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if !(args.time_limit.is_finite() && args.time_limit >= 0.0) {
        eprintln!("error: --time-limit must be a non-negative number of seconds");
        return ExitCode::from(2);
    }
    let files = match problem_files(&args.dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e}", args.dir.display());
            return ExitCode::from(2);
        }
    };
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_secs_f64(args.time_limit)))
        .with_node_limit(args.node_limit)
        .with_goal(if args.fit { Goal::Fit } else { Goal::Lowest });
    let mut rows = Vec::new();
    for f in &files {
        let problem = match load(f, args.capacity) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        rows.push(bench_problem(&name, &problem, kind, &budget));
    }
    print!("{}", table(&rows));
    if rows.iter().any(|r| !r.valid) {
        eprintln!("error: a solver produced an invalid placement");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
