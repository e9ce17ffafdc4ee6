//! `tilemem plan`: the PyPTO memory pipeline on one program file.
//!
//! Reads the program, runs the selected passes, checks the placement
//! independently, then prints the program (stdout or `-o`) and optionally a
//! JSON report and a memory map, then a summary line per (function, space)
//! on stderr. Diagnostics go to stderr in PyPTO's format; an over-capacity
//! error is followed by a short explanation (`tilemem explain`). Nothing is
//! written unless every step succeeded (one [`Outputs`] commit): exit 1 on
//! a planning error, 2 on bad input, 3 on an internal error ([`crate::exit`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::flags::ChipPlanner;
use crate::input_kind::{self, InputKind};
use crate::output::{self, Outputs};
use crate::planned::Planned;
use tilemem_pto::ir::Program;
use tilemem_pto::passes::{ErrorKind, PassId, PlannerMode, SeedRules};
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

/// Flags of `tilemem plan`.
#[derive(clap::Args)]
pub struct Args {
    /// Input program (PyPTO text or PyPTO's MessagePack IR, told apart by
    /// content; at any stage of the memory pipeline).
    pub file: PathBuf,
    #[command(flatten)]
    pub chip: ChipPlanner,
    /// Output form: `text` (PyPTO program text) or `msgpack` (PyPTO's
    /// MessagePack IR, for a MessagePack input: the document read, changed
    /// where the passes changed the program). Default: the input's form.
    #[arg(long, value_name = "FORM")]
    pub emit: Option<String>,
    /// Run exactly these passes (comma-separated, in pipeline order):
    /// init_memref, materialize_semantic_aliases, memory_reuse,
    /// allocate_memory_addr.
    #[arg(long, conflicts_with = "stop_after")]
    pub passes: Option<String>,
    /// Run the planner's pipeline up to and including this pass.
    #[arg(long)]
    pub stop_after: Option<String>,
    /// Write the program here instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Write a JSON report (per function and space: buffers, bytes used,
    /// capacity, lower bound, each buffer's address range and lifetime).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Draw a memory map of every kernel function and memory space into
    /// this file: FILE.html is an interactive page (hover, zoom, search;
    /// with --planner all, a switch between planners), FILE.svg a static
    /// picture with one lane per (function, space).
    #[arg(long, value_name = "FILE.html|FILE.svg")]
    pub map: Option<PathBuf>,
    /// dsa-rp/optimal: write each (function, space) placement problem into
    /// this folder as FUNC.SPACE.csv (replayable with `tilemem solve` /
    /// `tilemem validate`) plus a FUNC.SPACE.dsa.txt side file.
    #[arg(long, value_name = "DIR")]
    pub export_problems: Option<PathBuf>,
    /// Do not print the summary (one line per function and space) nor
    /// `[note]` lines on stderr (warnings and errors still print).
    #[arg(short, long)]
    pub quiet: bool,
    /// optimal: time budget of the exact solver per (function, space), in
    /// seconds (each re-plan of the remedies after an over-capacity error
    /// gets 1/10 of it).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
    /// optimal: work budget of the exact solver per (function, space), in
    /// search nodes (0: none; each re-plan of the remedies gets 1/10 of it).
    /// Unlike the time limit it stops a search at the same point on every
    /// machine, so the output is reproducible.
    #[arg(long, value_name = "NODES", default_value_t = tilemem_pto::passes::dsa_rp::DEFAULT_NODE_LIMIT)]
    pub node_limit: u64,
    /// optimal: minimize reuse penalties first, then bytes (default: bytes
    /// first).
    #[arg(long)]
    pub penalty_first: bool,
    /// Which memory rules to follow: `seed` (default: every rule of the
    /// specification tilemem implements) or `pypto-e2d0f78`, to match the
    /// output of PyPTO at commit e2d0f78 byte for byte. That PyPTO lacks
    /// five newer rules: a load and a cross-core pop on split vector
    /// cores may not share; the scratch operand of tile.sels and
    /// tile.gather is written; on 910B a narrowing tile.cast may not
    /// reuse its source; an if branch that yields a loop's carried value
    /// gets its own copy; and a space that overflows is packed again into
    /// aligned sub-ranges before failing. (docs/architecture.md explains
    /// the terms.)
    #[arg(long, value_name = "RULES", default_value = "seed")]
    pub compat: String,
}

fn bad_input(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// The format of a `--map` file, from its extension.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MapFormat {
    /// Interactive HTML page.
    Html,
    /// Static SVG picture.
    Svg,
}

impl MapFormat {
    /// `.html`/`.htm` or `.svg`; anything else is bad input.
    pub fn of(path: &Path) -> Result<MapFormat, String> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("html" | "htm") => Ok(MapFormat::Html),
            Some("svg") => Ok(MapFormat::Svg),
            _ => Err(format!(
                "--map {}: name a file ending in .html (interactive) or .svg (static)",
                path.display()
            )),
        }
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let soc = match args.chip.soc() {
        Ok(s) => s,
        Err(msg) => return bad_input(msg),
    };
    if let Some(e) = args
        .emit
        .as_deref()
        .filter(|e| !matches!(*e, "text" | "msgpack"))
    {
        return bad_input(format_args!("unknown --emit '{e}'; use text or msgpack"));
    }
    let modes = match args.chip.planners(true) {
        Ok(m) => m,
        Err(msg) => return bad_input(msg),
    };
    let seed_rules = match crate::flags::seed_rules(&args.compat) {
        Ok(r) => r,
        Err(msg) => return bad_input(msg),
    };
    let map_format = match args.map.as_deref().map(MapFormat::of).transpose() {
        Ok(f) => f,
        Err(msg) => return bad_input(msg),
    };
    if let Err(msg) = output::distinct(&[
        ("-o", args.output.as_deref()),
        ("--report", args.report.as_deref()),
        ("--map", args.map.as_deref()),
        ("--export-problems", args.export_problems.as_deref()),
    ]) {
        return bad_input(msg);
    }
    let mut pass_lists = Vec::new();
    for &m in &modes {
        match select_passes(&args, m) {
            Ok(p) => pass_lists.push(p),
            Err(msg) => return bad_input(msg),
        }
    }
    let file = args.file.display().to_string();
    // The text is dropped once read: the program owns everything it needs.
    let (parsed, origin) = match read_input(&args.file, &file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let emit_msgpack = match (args.emit.as_deref(), &origin) {
        (Some("msgpack"), None) => {
            return bad_input(format_args!(
                "--emit msgpack: {file} is program text; MessagePack is written for a MessagePack input"
            ))
        }
        (Some("text"), _) => false,
        (_, o) => o.is_some(),
    };
    // The program as read is kept only when something needs it after
    // planning (another planner, the HTML map); otherwise the last planner
    // plans it in place instead of a copy (a copy doubles peak memory).
    let keep_input = map_format == Some(MapFormat::Html);
    let mut input = Some(parsed);
    // Exported problems go to a private folder first and join the other
    // outputs only when everything succeeded.
    let staging = args
        .export_problems
        .as_ref()
        .map(|_| std::env::temp_dir().join(format!("tilemem-export-{}", std::process::id())));
    let _cleanup = staging.as_ref().map(|d| RemoveOnDrop(d.clone()));
    // The report feeds `--report` and `--map` only; the summary takes the
    // lean per-space numbers.
    let needs_report = args.report.is_some() || args.map.is_some();
    let mut done: Vec<Planned> = Vec::new();
    let mut summary: Vec<String> = Vec::new();
    let mut summarised = false;
    for (i, (&mode, passes)) in modes.iter().zip(&pass_lists).enumerate() {
        let last = i + 1 == modes.len();
        let taken = if last && !keep_input {
            input.take()
        } else {
            input.clone()
        };
        // Only the last planner takes the program, so it is always there.
        let Some(mut program) = taken else { break };
        let mut opts = options(&args, &soc, mode, seed_rules);
        opts.passes = Some(passes.clone());
        opts.report = needs_report;
        // Only the map draws by span.
        opts.report_gaps = args.map.is_some();
        if i == 0 {
            opts.dsa.export_dir = staging.clone();
        }
        opts.summary = !args.quiet;
        let (result, diagnostics, dsa_reports) = match tilemem_pto::plan(&mut program, &opts) {
            Ok(done) => (
                Ok((done.report, done.summary)),
                done.diagnostics,
                done.dsa_reports,
            ),
            Err(failed) => (Err(failed.error), failed.diagnostics, failed.dsa_reports),
        };
        if i == 0 {
            for d in &diagnostics {
                eprintln!("{d}");
            }
        }
        if mode == PlannerMode::Optimal && !args.quiet {
            for r in &dsa_reports {
                eprintln!(
                    "[note] optimal {}/{}: {} bytes (dsa-rp greedy {}), penalty {}, {} ({})",
                    r.function,
                    r.space,
                    r.bytes,
                    r.greedy_bytes
                        .map_or_else(|| "found none".to_string(), |b| b.to_string()),
                    r.penalty,
                    if r.proven_optimal {
                        "proven optimal"
                    } else {
                        "not proven optimal"
                    },
                    r.chosen
                );
            }
        }
        let (report, spaces) = match result {
            Ok(done) => done,
            Err(e) => {
                if i > 0 {
                    if !args.quiet {
                        eprintln!("[note] planner {}: {e}", mode.name());
                    }
                    continue;
                }
                match e.loc {
                    Some(l) => eprintln!("{file}:{}:{}: {e}", l.line, l.col),
                    None => eprintln!("{file}: {e}"),
                }
                if let (ErrorKind::Planning, Some(path), Some(format)) =
                    (e.kind, &args.map, map_format)
                {
                    // The map still shows the plan, overflowing.
                    if let Ok(p) = read_program(&args.file, &file) {
                        let opts_of = |on: &Soc| {
                            let mut o = options(&args, on, mode, seed_rules);
                            o.passes = Some(passes.clone());
                            o
                        };
                        if let Ok((planned, Some(err))) =
                            crate::map_file::plan_for_map(&p, &soc, &opts_of)
                        {
                            let title = format!("{} ({})", file, soc.name());
                            let source = std::fs::read_to_string(&args.file).unwrap_or_default();
                            let results = [planned];
                            let mut outputs = Outputs::new();
                            crate::map_file::add(
                                &mut outputs,
                                path,
                                format,
                                &title,
                                &results,
                                &p,
                                &soc,
                                seed_rules,
                                &source,
                                Some(crate::map_file::overflow_note(&err)),
                            );
                            match outputs.commit() {
                                Ok(()) if args.quiet => {}
                                Ok(()) => eprintln!(
                                    "[note] memory map of the plan without capacity limits, \
                                     overflow marked: {}",
                                    path.display()
                                ),
                                Err(e) => eprintln!("error: {e}"),
                            }
                        }
                    }
                }
                if e.kind == ErrorKind::Planning && !args.quiet {
                    // Planned in place: read the file again for the explanation.
                    let reread = match input.take() {
                        Some(p) => Some(p),
                        None => read_program(&args.file, &file).ok(),
                    };
                    if let Some(p) = reread {
                        let run = options(&args, &soc, mode, seed_rules);
                        // The explanation plans the whole pipeline: the
                        // run's error is its answer only when the run
                        // planned the whole pipeline too.
                        let whole = *passes == PassId::default_pipeline(mode);
                        crate::explain::print_short(&p, &run, whole.then_some(&e));
                    }
                }
                return crate::exit::of_pass_error(e.kind);
            }
        };
        if let Some(spaces) = spaces {
            summarised = true;
            summary.extend(crate::summary::plan_lines(&spaces, mode.name()));
        }
        done.push(Planned {
            planner: mode,
            program,
            report,
        });
    }
    let primary = &done[0];
    // The document is built before anything is written: a program the
    // writer cannot express fails the command with nothing written.
    let document = match (&origin, emit_msgpack) {
        (Some(o), true) => match tilemem_pto::msgpack::write_program(&primary.program, o) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("{file}: error: {e}");
                return ExitCode::from(1);
            }
        },
        _ => None,
    };
    // Everything is computed; write it all or nothing.
    let mut outputs = Outputs::new();
    if let (Some(path), Some(report)) = (&args.report, &primary.report) {
        outputs.add_stream(path, |w: &mut dyn std::io::Write| report.write_json(w));
    }
    if let (Some(path), Some(format)) = (&args.map, map_format) {
        let title = format!("{} ({})", file, soc.name());
        // The program as read: kept for the HTML map (`keep_input`); the
        // SVG does not need it.
        let input = input.as_ref().unwrap_or(&primary.program);
        let source = if format == MapFormat::Html {
            std::fs::read_to_string(&args.file).unwrap_or_default()
        } else {
            String::new()
        };
        crate::map_file::add(
            &mut outputs,
            path,
            format,
            &title,
            &done,
            input,
            &soc,
            seed_rules,
            &source,
            None,
        );
    }
    if let (Some(dest), Some(staging)) = (&args.export_problems, &staging) {
        if staging.is_dir() {
            if let Err(e) = outputs.add_dir_contents(staging, dest) {
                eprintln!(
                    "error: {}: cannot stage exported problems: {e}",
                    dest.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    // The program text is printed straight into the file during the commit
    // or, after it, to stdout: never held whole (it is larger than the
    // program it prints).
    let print = |w: &mut dyn std::io::Write| match &document {
        Some(b) => w.write_all(b),
        None => tilemem_pto::print::print_to(&primary.program, w),
    };
    if let Some(path) = &args.output {
        outputs.add_stream(path, print);
    }
    if let Err(e) = outputs.commit() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    for line in &summary {
        eprintln!("{line}");
    }
    if summarised && summary.is_empty() {
        // `--passes memory_reuse` on a program without MemRefs: the usual
        // cause when the program has kernels.
        let without_init = pass_lists
            .first()
            .is_some_and(|p| !p.contains(&PassId::InitMemref));
        let has_kernel = primary
            .program
            .functions
            .iter()
            .any(|f| f.kind().is_kernel());
        let hint = if without_init && has_kernel {
            "; init_memref, which gives tiles their storage, was not among the passes run"
        } else {
            ""
        };
        eprintln!(
            "[note] {}{hint}",
            crate::summary::nothing_planned(&primary.program, &file)
        );
    }
    if args.output.is_none() {
        if let Err(e) = output::stdout_stream(print) {
            eprintln!("error: cannot write standard output: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// The plan options of `planner` on `soc` with the flags' rules and
/// solver budgets.
fn options(args: &Args, soc: &Soc, planner: PlannerMode, seed_rules: SeedRules) -> PlanOptions {
    let mut opts = PlanOptions::new(soc.clone(), planner);
    opts.seed_rules = seed_rules;
    opts.dsa.time_limit = tilemem_plan::time_limit_from_secs(args.time_limit);
    opts.dsa.node_limit = (args.node_limit > 0).then_some(args.node_limit);
    if args.penalty_first {
        opts.dsa.objective = tilemem_plan::Objective::PenaltyThenPeak;
    }
    opts
}

/// Reads the program at `path`, text or a MessagePack document (told apart
/// by content; a document comes with what writing it back needs). On
/// failure prints the diagnostic and returns exit code 2.
fn read_input(
    path: &Path,
    file: &str,
) -> Result<(Program, Option<tilemem_pto::msgpack::Origin>), ExitCode> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Err(bad_input(format_args!("{file}: cannot read: {e}"))),
    };
    if tilemem_pto::msgpack::looks_like_msgpack(&bytes) {
        return match tilemem_pto::msgpack::read_with_origin(&bytes) {
            Ok((p, o)) => Ok((p, Some(o))),
            Err(e) => {
                eprintln!("{file}: error: {e}");
                Err(ExitCode::from(2))
            }
        };
    }
    let parsed = tilemem_pto::decode(&bytes).and_then(tilemem_pto::parse::parse);
    match parsed {
        Ok(p) => Ok((p, None)),
        Err(e) => {
            match input_kind::mismatch(file, &bytes, InputKind::Pypto) {
                Some(msg) => eprintln!("{msg}"),
                None => eprint!("{}", e.line_form(file)),
            }
            Err(ExitCode::from(2))
        }
    }
}

/// Reads and parses the program at `path` (`file` is its name in
/// diagnostics); on failure prints the diagnostic and returns exit code 2.
pub fn read_program(path: &Path, file: &str) -> Result<Program, ExitCode> {
    read_input(path, file).map(|(p, _)| p)
}

/// Removes a private staging folder when the command ends.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The passes to run: `--passes` (comma-separated), `--stop-after`, or the
/// planner's pipeline (see [`tilemem_pto::passes::select_passes`]).
fn select_passes(args: &Args, planner: PlannerMode) -> Result<Vec<PassId>, String> {
    let list: Option<Vec<&str>> = args.passes.as_deref().map(|l| l.split(',').collect());
    tilemem_pto::passes::select_passes(planner, list.as_deref(), args.stop_after.as_deref())
}
