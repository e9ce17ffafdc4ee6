//! `tilemem explain FILE.mlir`: the HIVM side of `explain` (see
//! [`tilemem_mlir::explain`] for the facts and how remedies are found).

use std::path::Path;
use std::process::ExitCode;

use tilemem_mlir::explain::explain_text;
use tilemem_mlir::memplan::PlanRequest;
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;

use crate::exit::BAD_INPUT;
use crate::output;

/// Runs `explain` on an MLIR file: exit 0 once explained, 2 on bad input.
pub fn run(path: &Path, planner: &str, all: bool) -> ExitCode {
    let planner = match planner {
        // `pypto` is the flag's default for PyPTO programs.
        "bishengir" | "pypto" => Planner::Bishengir,
        "optimal" => Planner::Optimal,
        other => {
            eprintln!("error: unknown --planner '{other}' for MLIR; use bishengir or optimal");
            return ExitCode::from(BAD_INPUT);
        }
    };
    let file = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {file}: cannot read: {e}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    let req = PlanRequest {
        target: None,
        options: Options {
            planner,
            ..Options::default()
        },
    };
    let ex = match explain_text(&text, &req, all) {
        Ok(ex) => ex,
        Err(f) => {
            for d in &f.diagnostics {
                eprintln!("{}", d.render(&file));
            }
            return ExitCode::from(BAD_INPUT);
        }
    };
    let name = match planner {
        Planner::Bishengir => "bishengir",
        Planner::Optimal => "optimal",
    };
    if let Err(e) = output::stdout(ex.render(name, &file).as_bytes()) {
        eprintln!("error: cannot write standard output: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    ExitCode::SUCCESS
}
