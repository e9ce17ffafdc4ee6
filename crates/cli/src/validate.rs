//! `tilemem validate`: check a placement independently of the solvers,
//! and report its height beside the best lower bound and its source.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use tilemem_plan::bound::best_bound;
use tilemem_plan::{lower_bound, validate};

use crate::output;
use crate::problem_file;

/// Flags of `tilemem validate`.
#[derive(clap::Args)]
pub struct Args {
    /// Problem file with an `offset` column (as written by `tilemem solve`).
    pub file: PathBuf,
    /// Capacity in bytes: 16384, 16K, 16KiB, 0x4000 (overrides a
    /// `# capacity=` line of the file).
    #[arg(long, value_name = "BYTES", value_parser = crate::flags::byte_size)]
    pub capacity: Option<u64>,
}

/// Runs the subcommand: exit 0 when valid, 1 with every violation named, 2
/// for a bad file.
pub fn run(args: Args) -> ExitCode {
    let file = match problem_file::read(&args.file, args.capacity) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let solution = match file.solution_or_error(&args.file.display().to_string()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: error: {}", e.location(), e.message);
            // A problem not placed yet (no `offset` column at all): the
            // likely mix-up of a first run.
            let header_has_offset = std::fs::read_to_string(&args.file).is_ok_and(|t| {
                t.lines()
                    .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
                    .is_some_and(|h| h.split(',').any(|c| c.trim() == "offset"))
            });
            if e.message.starts_with("no offset") && !header_has_offset {
                eprintln!(
                    "  help: this is a problem, not a placement: place it with `tilemem solve {} -o placed.csv`, then validate placed.csv",
                    args.file.display()
                );
            }
            return ExitCode::from(2);
        }
    };
    // Standard output is collected and written once, checked, at the end.
    let mut text = String::new();
    let code = match validate(&file.problem, &solution) {
        Ok(stats) => {
            // The best bound with the rule and instant it came from, as
            // `tilemem solve` reports it, so the height can be judged.
            let best = best_bound(&file.problem);
            let co_live = lower_bound(&file.problem);
            let source = if best.value > co_live {
                format!("{best}; co-live {co_live}")
            } else {
                best.to_string()
            };
            let _ = writeln!(
                text,
                "ok: {} buffers, height {}, lower bound {} ({source})",
                file.problem.len(),
                stats.height,
                best.value
            );
            if !file.problem.penalties.is_empty() {
                let _ = writeln!(text, "penalty: {}", stats.penalty);
            }
            ExitCode::SUCCESS
        }
        Err(violations) => {
            for v in &violations {
                let _ = writeln!(text, "{}: {v}", args.file.display());
            }
            let _ = writeln!(text, "invalid: {} violation(s)", violations.len());
            ExitCode::from(1)
        }
    };
    output::finish(&text, code)
}
