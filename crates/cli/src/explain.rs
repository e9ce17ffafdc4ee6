//! `tilemem explain`: why a program needs the memory it needs, and what
//! would make it fit (see [`tilemem_pto::explain`] for the facts and how
//! remedies are computed). `plan` prints the short form after an
//! over-capacity error.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use tilemem_pto::explain::{explain, Explanation, SpaceExplain};
use tilemem_pto::ir::Program;
use tilemem_pto::passes::PlannerMode;
use tilemem_soc::Soc;

use crate::output::{self, Outputs};

/// Flags of `tilemem explain`.
#[derive(clap::Args)]
pub struct Args {
    /// Input program (PyPTO text, or HIVM MLIR: a `.mlir` file).
    pub file: PathBuf,
    /// Target chip: 910b, 950, 310b or none.
    #[arg(long, default_value = "910b")]
    pub target: String,
    /// The planner whose result is explained: pypto, dsa-rp or optimal
    /// (MLIR: bishengir or optimal).
    #[arg(long, default_value = "pypto")]
    pub planner: String,
    /// Explain every (function, space), not only those that do not fit.
    #[arg(long)]
    pub all: bool,
    /// Also write the facts as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
}

/// Runs the subcommand: exit 0 once explained (whether or not the program
/// fits), 2 on bad input, 3 on an internal error ([`crate::exit`]).
pub fn run(args: Args) -> ExitCode {
    if args.file.extension().is_some_and(|e| e == "mlir") {
        return crate::explain_mlir::run(&args.file, &args.planner, args.all);
    }
    let Some(soc) = Soc::from_name(&args.target) else {
        eprintln!(
            "error: unknown --target '{}'; use 910b, 950, 310b or none",
            args.target
        );
        return ExitCode::from(2);
    };
    let planner = match PlannerMode::from_name(&args.planner) {
        Some(p) if p != PlannerMode::Ptoas => p,
        _ => {
            eprintln!(
                "error: unknown --planner '{}'; use pypto, dsa-rp or optimal",
                args.planner
            );
            return ExitCode::from(2);
        }
    };
    let file = args.file.display().to_string();
    let src = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {file}: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match tilemem_pto::parse::parse(&src) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{file}:{}:{}: error: {}", e.line, e.col, e.message);
            return ExitCode::from(2);
        }
    };
    let ex = match explain(&program, &soc, planner, args.all, Some(FULL_REPLANS)) {
        Ok(ex) => ex,
        Err(e) => {
            match e.loc {
                Some(l) => eprintln!("{file}:{}:{}: {e}", l.line, l.col),
                None => eprintln!("{file}: {e}"),
            }
            return crate::exit::of_pass_error(e.kind);
        }
    };
    let text = render(&ex, planner, false);
    if let Some(path) = &args.report {
        let mut o = Outputs::new();
        let mut json = serde_json::to_string_pretty(&to_json(&ex, planner)).unwrap_or_default();
        json.push('\n');
        o.add(path, json);
        if let Err(e) = o.commit() {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    if let Err(e) = output::stdout(text.as_bytes()) {
        eprintln!("error: cannot write standard output: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Re-plans the short explanation after a failed `plan` may run.
const SHORT_REPLANS: usize = 10;
/// Re-plans `tilemem explain` may run.
const FULL_REPLANS: usize = 400;

/// Prints the short explanation of a failed plan on stderr.
pub fn print_short(program: &Program, soc: &Soc, planner: PlannerMode) {
    if let Ok(ex) = explain(program, soc, planner, false, Some(SHORT_REPLANS)) {
        if !ex.spaces.is_empty() {
            eprint!("{}", render(&ex, planner, true));
        }
    }
}

fn cap_text(c: Option<u64>) -> String {
    c.map_or("unlimited".into(), |c| c.to_string())
}

/// The explanation as text. `short` lists at most five live tiles and
/// three remedies.
pub fn render(ex: &Explanation, planner: PlannerMode, short: bool) -> String {
    let mut o = String::new();
    let pname = planner.name();
    if ex.spaces.is_empty() {
        o.push_str("every space fits its capacity (use --all to explain each)\n");
    }
    for s in &ex.spaces {
        let head = match (s.fits, s.planned_bytes) {
            (true, Some(b)) => format!("fits: planner {pname} uses {b} bytes"),
            (true, None) => "fits".to_string(),
            (false, Some(b)) => format!("does not fit: planner {pname} needs {b} bytes"),
            (false, None) => format!("does not fit with planner {pname}"),
        };
        let _ = writeln!(
            o,
            "{}/{}: {head}, capacity {}",
            s.function,
            s.space,
            cap_text(s.capacity)
        );
        let _ = writeln!(o, "  peak: line {} ({})", s.peak_line, s.peak_stmt);
        let _ = writeln!(
            o,
            "  live at the peak: {} tiles, {} bytes",
            s.live.len(),
            s.live_total()
        );
        // Padded by hand: a `{:<width$}` width past 65535 (a tile name
        // that long) is a formatting error, which `writeln!` turns into a
        // panic.
        let width = s
            .live
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(0);
        let shown = if short { 5 } else { usize::MAX };
        for t in s.live.iter().take(shown) {
            let pad = " ".repeat(width - t.name.chars().count());
            let _ = writeln!(
                o,
                "    {}{pad}  {:>8} bytes  {} {}  line {}",
                t.name, t.bytes, t.shape, t.dtype, t.line
            );
        }
        if s.live.len() > shown {
            let _ = writeln!(o, "    ... {} more", s.live.len() - shown);
        }
        let lb = s.lower_bound();
        let verdict = match s.capacity {
            Some(c) if lb > c => format!(
                "> capacity {c}: no placement of these lifetimes fits ({} bytes short)",
                lb - c
            ),
            Some(c) if !s.fits => format!(
                "<= capacity {c}: a placement could fit; planner {pname}'s rules \
                 (which tiles may share, address order) refused it"
            ),
            Some(c) => format!("<= capacity {c}"),
            None => "(unlimited capacity)".to_string(),
        };
        let _ = writeln!(
            o,
            "  lower bound: {} co-live + {} reserved = {lb} bytes {verdict}",
            s.co_live, s.reserved
        );
        if !s.refused.is_empty() && !s.proven_over() {
            let _ = writeln!(o, "  sharings the lifetimes allow but a rule refuses:");
            let shown = if short { 3 } else { usize::MAX };
            for r in s.refused.iter().take(shown) {
                let _ = writeln!(o, "    {} and {} ({} bytes): {}", r.a, r.b, r.bytes, r.rule);
            }
            if s.refused.len() > shown {
                let _ = writeln!(o, "    ... {} more", s.refused.len() - shown);
            }
        }
        if !s.fits {
            if s.remedies.is_empty() {
                o.push_str("  remedies: none found by re-planning (split the kernel)\n");
            } else {
                o.push_str("  remedies (each re-planned and checked):\n");
                let shown = if short { 3 } else { usize::MAX };
                for r in s.remedies.iter().take(shown) {
                    let _ = writeln!(
                        o,
                        "    - {}: then {} bytes, saves {}",
                        r.change, r.bytes_after, r.saved
                    );
                }
                if short && s.remedies.len() > shown {
                    let _ = writeln!(o, "    ... run `tilemem explain` for all");
                }
            }
            if ex.budget_exhausted {
                let _ = writeln!(
                    o,
                    "  (the re-planning budget ran out: {})",
                    if short {
                        "`tilemem explain` tries more remedies"
                    } else {
                        "more remedies may exist"
                    }
                );
            }
        }
    }
    o
}

fn space_json(s: &SpaceExplain) -> serde_json::Value {
    json!({
        "function": s.function,
        "space": s.space,
        "capacity": s.capacity,
        "fits": s.fits,
        "planned_bytes": s.planned_bytes,
        "reserved": s.reserved,
        "co_live": s.co_live,
        "lower_bound": s.lower_bound(),
        "proven_over_capacity": s.proven_over(),
        "peak": {"statement": s.peak_at, "line": s.peak_line, "op": s.peak_stmt},
        "live": s.live.iter().map(|t| json!({
            "name": t.name, "bytes": t.bytes, "shape": t.shape, "dtype": t.dtype,
            "line": t.line, "def": t.def, "last": t.last,
        })).collect::<Vec<_>>(),
        "live_total": s.live_total(),
        "refused_sharings": s.refused.iter().map(|r| json!({
            "a": r.a, "b": r.b, "rule": r.rule, "line": r.line, "bytes": r.bytes,
        })).collect::<Vec<_>>(),
        "remedies": s.remedies.iter().map(|r| json!({
            "change": r.change, "bytes_after": r.bytes_after, "saved": r.saved,
        })).collect::<Vec<_>>(),
    })
}

/// The explanation as JSON (the same facts as the text).
pub fn to_json(ex: &Explanation, planner: PlannerMode) -> serde_json::Value {
    json!({
        "planner": planner.name(),
        "error": ex.error.as_ref().map(|e| e.to_string()),
        "replan_budget_exhausted": ex.budget_exhausted,
        "spaces": ex.spaces.iter().map(space_json).collect::<Vec<_>>(),
    })
}
