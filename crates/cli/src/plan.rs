//! `tilemem plan`: the PyPTO memory pipeline on one program file.
//!
//! Reads the program, runs the selected passes, checks the placement
//! independently, then prints the program (stdout or `-o`) and optionally a
//! JSON report. Diagnostics go to stderr in PyPTO's format. Nothing is
//! written unless every step succeeded: exit 1 on a planning error, 2 on bad
//! input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

/// Flags of `tilemem plan`.
#[derive(clap::Args)]
pub struct Args {
    /// Input program (PyPTO text, at any stage of the memory pipeline).
    pub file: PathBuf,
    /// Target chip: 910b (A2/A3), 950 (A5), 310b, or none (no backend:
    /// unlimited capacity, default policy).
    #[arg(long, default_value = "910b")]
    pub target: String,
    /// Who decides sharing and addresses: pypto (reuse, then sequential
    /// addresses), dsa-rp (joint placement, no reuse pass), ptoas (addresses
    /// left to the assembler), optimal (dsa-rp's problem, exact solver).
    #[arg(long, default_value = "pypto")]
    pub planner: String,
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
    /// Draw a memory map (address over time) of every kernel function and
    /// memory space into this folder, as FUNC.SPACE.svg.
    #[arg(long, value_name = "DIR")]
    pub map: Option<PathBuf>,
    /// dsa-rp/optimal: write each (function, space) placement problem into
    /// this folder as FUNC.SPACE.csv (replayable with `tilemem solve` /
    /// `tilemem validate`) plus a FUNC.SPACE.dsa.txt side file.
    #[arg(long, value_name = "DIR")]
    pub export_problems: Option<PathBuf>,
    /// optimal: time budget of the exact solver per (function, space), in
    /// seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
    /// optimal: work budget of the exact solver per (function, space), in
    /// search nodes (0: none). Unlike the time limit it stops a search at
    /// the same point on every machine, so the output is reproducible.
    #[arg(long, value_name = "NODES", default_value_t = tilemem_pto::passes::dsa_rp::DEFAULT_NODE_LIMIT)]
    pub node_limit: u64,
    /// optimal: minimize reuse penalties first, then bytes (default: bytes
    /// first).
    #[arg(long)]
    pub penalty_first: bool,
}

fn bad_input(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let Some(soc) = Soc::from_name(&args.target) else {
        return bad_input(format_args!(
            "unknown --target '{}'; use 910b, 950, 310b or none",
            args.target
        ));
    };
    let Some(planner) = PlannerMode::from_name(&args.planner) else {
        return bad_input(format_args!(
            "unknown --planner '{}'; use pypto, dsa-rp, ptoas or optimal",
            args.planner
        ));
    };
    let passes = match select_passes(&args, planner) {
        Ok(p) => p,
        Err(msg) => return bad_input(msg),
    };
    let file = args.file.display().to_string();
    let src = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return bad_input(format_args!("{file}: cannot read: {e}")),
    };
    let mut program = match tilemem_pto::parse::parse(&src) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{file}:{}:{}: error: {}", e.line, e.col, e.message);
            return ExitCode::from(2);
        }
    };
    let mut ctx = PassContext::new(soc, planner);
    ctx.dsa.export_dir = args.export_problems.clone();
    ctx.dsa.time_limit = (args.time_limit.is_finite() && args.time_limit >= 0.0)
        .then(|| std::time::Duration::from_secs_f64(args.time_limit));
    ctx.dsa.node_limit = (args.node_limit > 0).then_some(args.node_limit);
    if args.penalty_first {
        ctx.dsa.objective = tilemem_plan::Objective::PenaltyThenPeak;
    }
    let result = run_pipeline(&mut program, &mut ctx, &passes);
    for d in &ctx.diagnostics {
        eprintln!("{d}");
    }
    if planner == PlannerMode::Optimal {
        for r in &ctx.dsa_reports {
            eprintln!(
                "[note] optimal {}/{}: {} bytes (dsa-rp greedy {}), penalty {}, {} ({})",
                r.function,
                r.space,
                r.bytes,
                r.greedy_bytes,
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
    if let Err(e) = result {
        match e.loc {
            Some(l) => eprintln!("{file}:{}:{}: {e}", l.line, l.col),
            None => eprintln!("{file}: {e}"),
        }
        return match e.kind {
            ErrorKind::Input => ExitCode::from(2),
            ErrorKind::Planning | ErrorKind::Internal => ExitCode::from(1),
        };
    }
    let text = tilemem_pto::print::print(&program);
    let addressed = passes.contains(&PassId::AllocateMemoryAddr) && planner != PlannerMode::Ptoas;
    let report = (args.report.is_some() || args.map.is_some())
        .then(|| tilemem_pto::report::build(&program, &ctx.soc, addressed));
    let json = args
        .report
        .as_ref()
        .and(report.as_ref())
        .map(|r| r.to_json());
    // Write everything only after every step succeeded; each file goes
    // through a temporary sibling and a rename, so no partial file remains.
    if let (Some(dir), Some(report)) = (&args.map, &report) {
        if let Err(e) = write_maps(dir, report) {
            eprintln!("error: {}: cannot write memory maps: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    if let (Some(path), Some(json)) = (&args.report, &json) {
        if let Err(e) = write_atomic(path, json) {
            eprintln!("error: {}: cannot write report: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    match &args.output {
        Some(path) => {
            if let Err(e) = write_atomic(path, &text) {
                eprintln!("error: {}: cannot write: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}

/// The passes to run: `--passes` (comma-separated), `--stop-after`, or the
/// planner's pipeline (see [`tilemem_pto::passes::select_passes`]).
fn select_passes(args: &Args, planner: PlannerMode) -> Result<Vec<PassId>, String> {
    let list: Option<Vec<&str>> = args.passes.as_deref().map(|l| l.split(',').collect());
    tilemem_pto::passes::select_passes(planner, list.as_deref(), args.stop_after.as_deref())
}

/// Writes one SVG memory map per (function, space) of the report.
fn write_maps(dir: &Path, report: &tilemem_pto::report::Report) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for f in &report.functions {
        for s in &f.spaces {
            let (problem, solution) = s.placement();
            let title = format!("{} / {} ({})", f.name, s.space, report.target);
            let svg = tilemem_plan::map::render_svg(&problem, &solution, &title);
            write_atomic(&dir.join(format!("{}.{}.svg", f.name, s.space)), &svg)?;
        }
    }
    Ok(())
}

fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = path.with_file_name(format!(".{name}.tilemem-tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
