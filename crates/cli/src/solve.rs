//! `tilemem solve`: place the buffers of a problem file.

use std::path::PathBuf;
use std::process::ExitCode;

use tilemem_plan::{map, solve, validate, Objective};

use crate::problem_file;
use crate::search::SearchFlags;

/// Flags of `tilemem solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Problem file (MiniMalloc CSV: id,lower,upper,size[,alignment]...).
    pub file: PathBuf,
    /// Capacity in bytes (overrides a `# capacity=` line of the file).
    #[arg(long)]
    pub capacity: Option<u64>,
    /// Solver and search budget.
    #[command(flatten)]
    pub search: SearchFlags,
    /// With penalty pairs: least penalty first, then lowest height.
    #[arg(long)]
    pub penalty_first: bool,
    /// Seed of the shuffled orders.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the solution here (the input columns plus `offset`).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Draw the placement: an SVG memory map into this file, or a text map
    /// on stdout with `-`.
    #[arg(long, value_name = "FILE.svg|-")]
    pub map: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let (kind, budget) = match args.search.solver_and_budget() {
        Ok(kb) => kb,
        Err(code) => return code,
    };
    let file = match problem_file::read(&args.file, args.capacity) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let problem = &file.problem;
    let budget = budget
        .with_objective(if args.penalty_first {
            Objective::PenaltyThenPeak
        } else {
            Objective::PeakThenPenalty
        })
        .with_seed(args.seed);
    let out = match solve(problem, kind, &budget) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {}: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    println!("buffers:     {}", problem.len());
    match problem.capacity {
        Some(c) => println!("capacity:    {c}"),
        None => println!("capacity:    none"),
    }
    println!("lower bound: {}", out.lower_bound);
    println!("solver:      {}", out.solver);
    println!("time:        {:.3} s", out.elapsed.as_secs_f64());
    if out.cut_short {
        println!("budget:      spent; the result is the best found by then");
    }
    let Some(sol) = &out.solution else {
        if out.height > 0 {
            println!(
                "height:      {} (best placement found, above the capacity)",
                out.height
            );
        }
        if out.proven_infeasible {
            println!("result:      no placement exists (proven)");
        } else {
            println!("result:      no placement found within the time limit (not a proof)");
        }
        return ExitCode::from(1);
    };
    // Never hand out a placement the independent validator rejects.
    if let Err(v) = validate(problem, sol) {
        eprintln!("internal error: the solver produced an invalid placement:");
        for v in v.iter().take(5) {
            eprintln!("  {v}");
        }
        return ExitCode::from(1);
    }
    println!("height:      {}", out.height);
    println!("gap:         {:.3} %", out.gap_percent());
    if !problem.penalties.is_empty() {
        println!("penalty:     {}", out.penalty);
    }
    println!(
        "optimal:     {}",
        if out.proven_optimal {
            "proven"
        } else {
            "not proven"
        }
    );
    let map = args.map.as_ref().map(|path| {
        if path.as_os_str() == "-" {
            print!("{}", map::render_text(problem, sol, 16, 72));
            None
        } else {
            let title = args.file.display().to_string();
            Some((path, map::render_svg(problem, sol, &title)))
        }
    });
    if let Some(path) = &args.output {
        if let Err(code) = write_atomic(path, &file.write_with(sol)) {
            return code;
        }
    }
    if let Some(Some((path, svg))) = map {
        if let Err(code) = write_atomic(path, &svg) {
            return code;
        }
    }
    ExitCode::SUCCESS
}

/// Writes through a temporary sibling and a rename: no partial output on
/// failure.
fn write_atomic(path: &std::path::Path, text: &str) -> Result<(), ExitCode> {
    let tmp = path.with_extension("tilemem-tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            eprintln!("error: cannot write {}: {e}", path.display());
            ExitCode::from(2)
        })
}
