//! The pipeline over the functions of one program at once (rayon).
//!
//! Every pass plans each function on its own (no pass reads another
//! function), so each function runs the whole pipeline in its own thread,
//! in a one-function program with its own context. What the sequential
//! driver would produce is then reassembled exactly:
//! - the functions, in program order;
//! - diagnostics and DSA_RP reports in the sequential order (pass by pass,
//!   function by function within a pass; a failing pass hands back no
//!   reports);
//! - the error the sequential driver meets first: the least (pass, step,
//!   function), where DSA_RP's accumulator check of every function is the
//!   step before its planning of any function (as in `dsa_rp::run_with`).
//!
//! So the output is byte-identical to a sequential run.

use rayon::prelude::*;

use super::allocate_memory_addr::{check_windows, make_relative};
use super::dsa_rp::{self, SpaceReport};
use super::{run_pass, Diagnostic, PassContext, PassError, PassId, PlannerMode};
use crate::ir::{Function, Program};

/// What one function's pipeline left behind.
struct Trace {
    /// Diagnostics, per pass.
    diagnostics: Vec<Vec<Diagnostic>>,
    /// DSA_RP reports, per pass.
    reports: Vec<Vec<SpaceReport>>,
    /// The first failure: (pass index, step within the pass, error).
    error: Option<(usize, u8, PassError)>,
    /// The summary numbers the placement check recorded, when asked.
    summary: Vec<crate::report::SpaceSummary>,
}

fn run_one(f: Function, ctx: &PassContext, passes: &[PassId], relative: bool) -> (Function, Trace) {
    let mut cx = PassContext {
        soc: ctx.soc.clone(),
        planner: ctx.planner,
        policy: ctx.policy.clone(),
        diagnostics: Vec::new(),
        dsa: ctx.dsa.clone(),
        dsa_reports: Vec::new(),
        seed_rules: ctx.seed_rules,
        summary: ctx.summary.as_ref().map(|_| Vec::new()),
    };
    let mut program = Program {
        preamble: Vec::new(),
        name: "".into(),
        functions: vec![f],
        trailing: Vec::new(),
        final_newline: false,
    };
    let mut trace = Trace {
        diagnostics: vec![Vec::new(); passes.len()],
        reports: vec![Vec::new(); passes.len()],
        error: None,
        summary: Vec::new(),
    };
    if relative && program.functions[0].kind().is_kernel() {
        make_relative(&mut program.functions[0], cx.policy.as_ref());
        // The PYPTO planner plans relative offsets; DSA-RP places from the
        // lifetimes and reads no offset.
        let checked = match ctx.planner {
            PlannerMode::Pypto => check_windows(&program.functions[0]),
            _ => Ok(()),
        };
        if let Err(e) = checked {
            trace.error = Some((0, 0, e));
            let f = program.functions.pop().expect("one function in, one out");
            return (f, trace);
        }
    }
    let dsa_mode = matches!(ctx.planner, PlannerMode::DsaRp | PlannerMode::Optimal);
    for (k, &p) in passes.iter().enumerate() {
        if p == PassId::AllocateMemoryAddr && dsa_mode {
            if let Err(e) = dsa_rp::check_acc_phis(&program.functions[0]) {
                trace.error = Some((k, 0, e));
                break;
            }
        }
        let result = run_pass(p, &mut program, &mut cx);
        trace.diagnostics[k] = std::mem::take(&mut cx.diagnostics);
        trace.reports[k] = std::mem::take(&mut cx.dsa_reports);
        if let Err(e) = result {
            trace.error = Some((k, 1, e));
            break;
        }
    }
    trace.summary = cx.summary.take().unwrap_or_default();
    let f = program.functions.pop().expect("one function in, one out");
    (f, trace)
}

/// Runs `passes` over every function of `program` in parallel; see the
/// module docs for why the result equals a sequential run.
pub(super) fn run(
    program: &mut Program,
    ctx: &mut PassContext,
    passes: &[PassId],
    relative: bool,
) -> Result<(), PassError> {
    let functions = std::mem::take(&mut program.functions);
    let shared: &PassContext = ctx;
    let done: Vec<(Function, Trace)> = functions
        .into_par_iter()
        .map(|f| run_one(f, shared, passes, relative))
        .collect();
    let first_error = done
        .iter()
        .enumerate()
        .filter_map(|(i, (_, t))| t.error.as_ref().map(|(k, step, _)| (*k, *step, i)))
        .min();
    let mut traces = Vec::with_capacity(done.len());
    for (f, t) in done {
        program.functions.push(f);
        traces.push(t);
    }
    for k in 0..passes.len() {
        for (i, t) in traces.iter_mut().enumerate() {
            // The sequential driver stops at the first error: nothing after
            // it in (pass, function) order was emitted.
            // An accumulator check fails before any function is planned.
            if first_error.is_some_and(|(ek, step, ei)| (k, i) > (ek, ei) || (k == ek && step == 0))
            {
                continue;
            }
            ctx.diagnostics.append(&mut t.diagnostics[k]);
            // A failing pass hands back no reports at all.
            if first_error.is_none_or(|(ek, _, _)| k != ek) {
                ctx.dsa_reports.append(&mut t.reports[k]);
            }
        }
    }
    if let Some(out) = ctx.summary.as_mut() {
        for t in &mut traces {
            out.append(&mut t.summary);
        }
    }
    match first_error {
        Some((_, _, i)) => Err(traces[i].error.take().expect("recorded").2),
        None => Ok(()),
    }
}
