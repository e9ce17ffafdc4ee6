//! `tilemem bench`: solve every problem file of a folder and print one table.

use std::path::PathBuf;
use std::process::ExitCode;

use tilemem_plan::bench::{bench_problem, load, problem_files, table};

use crate::search::SearchFlags;

/// Flags of `tilemem bench`. The shared search flags keep help texts
/// worded for one run per problem.
#[derive(clap::Args)]
#[command(mut_arg("solver", |a| a.help("Solver to measure (first-fit is always run too, as the baseline)")))]
#[command(mut_arg("time_limit", |a| a.help("Time budget per problem, in seconds")))]
#[command(mut_arg("fit", |a| a.help("Stop at the first placement within the capacity")))]
pub struct Args {
    /// Folder of problem files (`*.csv`, searched recursively). A capacity in
    /// the file name (`NAME.CAPACITY.csv`) applies.
    pub dir: PathBuf,
    /// Solver and search budget.
    #[command(flatten)]
    pub search: SearchFlags,
    /// Capacity for every problem (overrides file names).
    #[arg(long)]
    pub capacity: Option<u64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let (kind, budget) = match args.search.solver_and_budget() {
        Ok(kb) => kb,
        Err(code) => return code,
    };
    let files = match problem_files(&args.dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e}", args.dir.display());
            return ExitCode::from(2);
        }
    };
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
