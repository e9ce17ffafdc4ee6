//! `tilemem explain FILE.mlir`: the HIVM side of `explain` (see
//! [`tilemem_mlir::explain`] for the facts and how remedies are found).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use tilemem_mlir::explain::{explain_text, Explanation};
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
    if let Err(e) = output::stdout(render(&ex, name, &file).as_bytes()) {
        eprintln!("error: cannot write standard output: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    ExitCode::SUCCESS
}

/// The explanation as text.
pub fn render(ex: &Explanation, planner: &str, file: &str) -> String {
    let mut o = String::new();
    if ex.spaces.is_empty() {
        o.push_str("every space fits its capacity (use --all to explain each)\n");
    }
    for s in &ex.spaces {
        let f = &s.facts;
        let head = match (s.fits, s.planned) {
            (true, Some(b)) => format!("fits: planner {planner} uses {b} bytes"),
            (true, None) => "fits".to_string(),
            (false, _) => format!("does not fit: planner {planner} overflows"),
        };
        let _ = writeln!(
            o,
            "@{}/{}: {head}, capacity {} bytes ({})",
            f.function, f.space, f.capacity, ex.chip
        );
        let _ = writeln!(
            o,
            "  peak: {}:{}:{} ({})",
            file, f.peak_loc.line, f.peak_loc.col, f.peak_op
        );
        let total: u64 = f.live.iter().map(|b| b.total()).sum();
        let _ = writeln!(
            o,
            "  live at the peak: {} allocations, {total} bytes",
            f.live.len()
        );
        for b in &f.live {
            let slots = if b.slots > 1 {
                format!(" x{} (multi-buffer)", b.slots)
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "    line {}:{}  {}  {} bytes{slots}",
                b.loc.line, b.loc.col, b.ty, b.bytes
            );
        }
        let verdict = if f.proven_over() {
            format!(
                "> capacity {}: no placement fits ({} bytes short)",
                f.capacity,
                f.lower_bound - f.capacity
            )
        } else if !s.fits {
            format!(
                "<= capacity {}: a placement could fit; the planner's order refused it",
                f.capacity
            )
        } else {
            format!("<= capacity {}", f.capacity)
        };
        let _ = writeln!(o, "  lower bound: {} bytes {verdict}", f.lower_bound);
        if !s.fits {
            if s.remedies.is_empty() {
                o.push_str("  remedies: none found by re-planning (split the kernel)\n");
            } else {
                o.push_str("  remedies (each re-planned and checked):\n");
                for r in &s.remedies {
                    let _ = writeln!(o, "    - {}: then {} bytes", r.change, r.bytes_after);
                }
            }
        }
    }
    o
}
