//! `tilemem explain`: why a program needs the memory it needs, and what
//! would make it fit (see [`tilemem_pto::explain`] for the facts and how
//! remedies are computed). `plan` prints the short form after an
//! over-capacity error.

use std::path::PathBuf;
use std::process::ExitCode;

use tilemem_pto::explain::{explain_with, render, render_text};
use tilemem_pto::ir::Program;
use tilemem_pto::passes::{PassError, PlannerMode};
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

use crate::flags::ChipPlanner;
use crate::input_kind::{self, InputKind};
use crate::output::{self, Outputs};
use crate::plan::MapFormat;

/// Flags of `tilemem explain`.
#[derive(clap::Args)]
pub struct Args {
    /// Input program (PyPTO text, or HIVM MLIR: a `.mlir` file).
    pub file: PathBuf,
    /// The chip and the planner whose result is explained: pypto, dsa-rp
    /// or optimal (MLIR: bishengir or optimal; a --target is refused).
    #[command(flatten)]
    pub chip: ChipPlanner,
    /// Explain every (function, space), not only those that do not fit; a
    /// space that fits also lists its buffers with the tiles in each, and
    /// the sharings a rule refused when it uses more than its lower bound.
    #[arg(long)]
    pub all: bool,
    /// Also write the facts as JSON to this file (PyPTO and MLIR).
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Also draw the memory map of the plan into this file (FILE.html
    /// interactive, FILE.svg static). A program that does not fit is drawn
    /// as planned without capacity limits, against the real capacities,
    /// the overflow marked.
    #[arg(long, value_name = "FILE.html|FILE.svg")]
    pub map: Option<PathBuf>,
    /// PyPTO, optimal: time budget of the exact solver per (function,
    /// space) of the plan explained, in seconds; each remedy re-plan gets
    /// 1/10 of it.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
    /// PyPTO, optimal: work budget of the exact solver per (function,
    /// space) of the plan explained, in search nodes (0: none); each remedy
    /// re-plan gets 1/10 of it. Unlike the time limit it stops a search at
    /// the same point on every machine, so the explanation is reproducible.
    #[arg(long, value_name = "NODES", default_value_t = tilemem_pto::passes::dsa_rp::DEFAULT_NODE_LIMIT)]
    pub node_limit: u64,
    /// PyPTO: which memory rules the plan explained follows, as for `plan`:
    /// `seed` (default: every rule of the specification) or
    /// `pypto-e2d0f78` (PyPTO at that commit, without five newer rules).
    /// Every part of the explanation follows them: the plan, the sharings
    /// a rule refused, the remedies, the buffers of --all and the map.
    #[arg(long, value_name = "RULES", default_value = "seed")]
    pub compat: String,
}

/// Runs the subcommand: exit 0 once explained (whether or not the program
/// fits), 2 on bad input, 3 on an internal error ([`crate::exit`]).
pub fn run(args: Args) -> ExitCode {
    // HIVM MLIR by extension or by content (`input_kind`).
    let mlir = args.file.extension().is_some_and(|e| e == "mlir")
        || std::fs::read(&args.file)
            .ok()
            .is_some_and(|b| matches!(input_kind::recognise(&b), Some(InputKind::Mlir)));
    if mlir {
        // The chip of HIVM travels with the module: a --target here would
        // be ignored, so the run would explain another chip than asked.
        if let Some(t) = &args.chip.target {
            eprintln!(
                "error: --target {t} does not apply to HIVM MLIR: the chip comes from the module's \
                 hacc.target (write it with `tilemem opt -hacc-append-device-spec=target=CHIP`)"
            );
            return ExitCode::from(2);
        }
        if args.compat != "seed" {
            eprintln!(
                "error: --compat {} does not apply to HIVM MLIR: it selects the rules of the \
                 PyPTO planners",
                args.compat
            );
            return ExitCode::from(2);
        }
        return crate::explain_mlir::run(
            &args.file,
            &args.chip.planner,
            args.all,
            args.map.as_deref(),
            args.report.as_deref(),
        );
    }
    let soc = match args.chip.soc() {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    };
    let planner = match args.chip.planners(false).as_deref() {
        Ok([p]) if *p != PlannerMode::Ptoas => *p,
        _ => {
            eprintln!(
                "error: {}",
                crate::flags::unknown_planner(&args.chip.planner, "pypto, dsa-rp or optimal")
            );
            return ExitCode::from(2);
        }
    };
    let map_format = match args.map.as_deref().map(MapFormat::of).transpose() {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    };
    let seed_rules = match crate::flags::seed_rules(&args.compat) {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    };
    let file = args.file.display().to_string();
    let src = match input_kind::read_text(&args.file, &file, InputKind::Pypto) {
        Ok(s) => s,
        Err(input_kind::TextError::Kind(msg)) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
        Err(input_kind::TextError::Io(e)) => {
            eprintln!("error: {file}: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match tilemem_pto::parse::parse(&src) {
        Ok(p) => p,
        Err(e) => {
            match input_kind::mismatch(&file, src.as_bytes(), InputKind::Pypto) {
                Some(msg) => eprintln!("{msg}"),
                None => eprint!("{}", e.line_form(&file)),
            }
            return ExitCode::from(2);
        }
    };
    // One set of options for every part of the explanation: the plan, the
    // remedies, the buffers of --all and the map.
    let mut run = PlanOptions::new(soc.clone(), planner);
    run.seed_rules = seed_rules;
    run.dsa.time_limit = tilemem_plan::time_limit_from_secs(args.time_limit);
    run.dsa.node_limit = (args.node_limit > 0).then_some(args.node_limit);
    let ex = match explain_with(&program, &run, args.all, Some(FULL_REPLANS), None) {
        Ok(ex) => ex,
        Err(e) => {
            match e.loc {
                Some(l) => eprintln!("{file}:{}:{}: {e}", l.line, l.col),
                None => eprintln!("{file}: {e}"),
            }
            return crate::exit::of_pass_error(e.kind);
        }
    };
    let text = render_text(&ex, &program, &run, args.all, &file);
    let mapped;
    let mut o = Outputs::new();
    if let Some(path) = &args.report {
        let mut json =
            serde_json::to_string_pretty(&tilemem_pto::explain::report_json(&ex, planner))
                .unwrap_or_default();
        json.push('\n');
        o.add(path, json);
    }
    if let (Some(path), Some(format)) = (&args.map, map_format) {
        let opts_of = |on: &Soc| {
            let mut o = run.clone();
            o.soc = on.clone();
            o
        };
        match crate::map_file::plan_for_map(&program, &soc, &opts_of) {
            Ok((planned, error)) => {
                mapped = [planned];
                let title = format!("{} ({})", file, soc.name());
                crate::map_file::add(
                    &mut o,
                    path,
                    format,
                    &title,
                    &mapped,
                    &program,
                    &soc,
                    seed_rules,
                    &src,
                    error.as_ref().map(crate::map_file::overflow_note),
                );
            }
            Err(e) => eprintln!("[note] no memory map: {e}"),
        }
    }
    if let Err(e) = o.commit() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
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

/// Prints the short explanation of a plan run with `run` that failed on
/// stderr; `error` is the run's error when it planned the whole pipeline
/// (else the explanation plans it again).
pub fn print_short(program: &Program, run: &PlanOptions, error: Option<&PassError>) {
    if let Ok(ex) = explain_with(program, run, false, Some(SHORT_REPLANS), error) {
        if !ex.spaces.is_empty() {
            eprint!("{}", render(&ex, run.planner, true));
        }
    }
}
