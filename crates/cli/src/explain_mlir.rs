//! `tilemem explain FILE.mlir`: the HIVM side of `explain` (see
//! [`tilemem_mlir::explain`] for the facts and how remedies are found).

use std::path::Path;
use std::process::ExitCode;

use tilemem_mlir::explain::explain_text;
use tilemem_mlir::memplan::{plan_module_in, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::pass::PassContext;
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;

use crate::exit::BAD_INPUT;
use crate::output;

/// Runs `explain` on an MLIR file: exit 0 once explained, 2 on bad input;
/// `map`: also draw the plan's memory map there (a function that does not
/// fit drawn beyond its capacity).
pub fn run(path: &Path, planner: &str, all: bool, map: Option<&Path>) -> ExitCode {
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
    let name = planner.name();
    if let Some(path) = map {
        let mut cx = PassContext {
            placements: Some(Vec::new()),
            ..PassContext::default()
        };
        let planned = parse_module(&text, &ParseOptions::default())
            .map_err(|d| d.render(&file))
            .and_then(|mut m| {
                plan_module_in(&mut m, &req, &mut cx)
                    .map(|chip| chip.name.to_string())
                    .or_else(|f| {
                        if f.bad_input {
                            Err(f.diagnostics.iter().map(|d| d.render(&file)).collect())
                        } else {
                            Ok(ex.chip.clone())
                        }
                    })
            });
        let placements = cx.placements.take().unwrap_or_default();
        if let Err(msg) = planned.and_then(|_| {
            crate::opt::write_map(
                &path.display().to_string(),
                &file,
                &text,
                &placements,
                Some(name),
            )
        }) {
            eprintln!("error: {msg}");
            return ExitCode::from(BAD_INPUT);
        }
    }
    if let Err(e) = output::stdout(ex.render(name, &file).as_bytes()) {
        eprintln!("error: cannot write standard output: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    ExitCode::SUCCESS
}
