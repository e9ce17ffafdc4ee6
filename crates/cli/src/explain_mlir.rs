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
use tilemem_pto::passes::PlannerMode;

use crate::exit::BAD_INPUT;
use crate::output::{self, Outputs};

/// What a module without any local buffer is told.
const NO_ALLOC: &str = "nothing to plan: no memref.alloc in an on-chip address space \
    (tilemem plans bufferized HIVM: `memref.alloc() : memref<..., #hivm.address_space<ub>>`)";

/// Why planning found nothing in `text`, when it computes on tensors
/// (HIVM before bufferization, which the planner cannot see buffers in);
/// `None` when it has allocations or no tensors.
pub fn nothing_to_plan(text: &str) -> Option<String> {
    (text.contains("tensor<") && !text.contains("memref.alloc")).then(|| {
        format!(
            "{NO_ALLOC}; this module computes on tensors: bufferize it first \
             (bishengir's pipeline does, before its own memory planning)"
        )
    })
}

/// What to change after a diagnostic whose words are the reference's
/// (kept verbatim, so they say what is wrong but not what to do).
pub fn help_for(message: &str) -> Option<&'static str> {
    message
        .starts_with("Alloc buffer not at UB space")
        .then_some(
            "  help: give each memref.alloc its on-chip address space, e.g. \
         `memref<16xf32, #hivm.address_space<ub>>`: tilemem plans HIVM after bishengir \
         has inferred the address spaces",
        )
}

/// Runs `explain` on an MLIR file: exit 0 once explained, 2 on bad input,
/// 3 when the plan drawn for `map` fails its independent check;
/// `map`: also draw the plan's memory map there (a function that does not
/// fit drawn beyond its capacity); `report`: also write the facts as JSON.
pub fn run(
    path: &Path,
    planner: &str,
    all: bool,
    map: Option<&Path>,
    report: Option<&Path>,
) -> ExitCode {
    let planner = match planner {
        // `pypto` is the flag's default for PyPTO programs.
        "bishengir" | "pypto" => Planner::Bishengir,
        "optimal" => Planner::Optimal,
        other => {
            let pypto = PlannerMode::from_name(other).is_some() || other == "all";
            let why = if pypto {
                format!(" ({other} is a PyPTO planner: `tilemem plan FILE.py`; bishengir is HIVM's own)")
            } else {
                String::new()
            };
            eprintln!("error: unknown --planner '{other}' for MLIR; use bishengir or optimal{why}");
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
                if let Some(help) = help_for(&d.message) {
                    eprintln!("{help}");
                }
            }
            return ExitCode::from(BAD_INPUT);
        }
    };
    let name = planner.name();
    // Nothing to explain at all reads differently from "everything fits".
    let nothing = if ex.spaces.is_empty()
        && (all || explain_text(&text, &req, true).is_ok_and(|e| e.spaces.is_empty()))
    {
        Some(nothing_to_plan(&text).unwrap_or_else(|| NO_ALLOC.to_string()))
    } else {
        None
    };
    let mut o = Outputs::new();
    if let Some(path) = report {
        let mut json = serde_json::to_string_pretty(&tilemem_mlir::explain::report_json(&ex, name))
            .unwrap_or_default();
        json.push('\n');
        o.add(path, json);
    }
    if let Some(path) = map {
        let mut cx = PassContext {
            placements: Some(Vec::new()),
            placements_beyond_capacity: true,
            ..PassContext::default()
        };
        // Planned as `opt` plans it; an overflow still leaves placements.
        let planned = match parse_module(&text, &ParseOptions::default()) {
            Ok(mut m) => match plan_module_in(&mut m, &req, &mut cx) {
                Err(f) if f.bad_input => {
                    Err(f.diagnostics.iter().map(|d| d.render(&file)).collect())
                }
                // The independent check refused the plan: no map of it
                // (a bug, exit 3, as `opt` ends), not an overflow to draw.
                Err(f) if cx.internal => {
                    for d in &f.diagnostics {
                        eprintln!("{}", d.render(&file));
                    }
                    return ExitCode::from(crate::exit::INTERNAL);
                }
                _ => Ok(()),
            },
            Err(d) => Err(d.render(&file)),
        };
        let placements = cx.placements.take().unwrap_or_default();
        let path = path.display().to_string();
        if let Err(msg) = planned.and_then(|()| {
            crate::opt::stage_map(&mut o, &path, &file, &text, &placements, Some(name))
        }) {
            eprintln!("error: {msg}");
            return ExitCode::from(BAD_INPUT);
        }
    }
    if let Err(e) = o.commit() {
        eprintln!("error: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    let text = match nothing {
        Some(why) => format!("{file}: {why}\n"),
        None => ex.render(name, &file),
    };
    if let Err(e) = output::stdout(text.as_bytes()) {
        eprintln!("error: cannot write standard output: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    ExitCode::SUCCESS
}
