//! The pipeline driver: runs passes by name over a program, one function
//! after another or, for a program of several functions, all at once.
//! Only this module (and the front ends above it) imports the passes.
//!
//! # Many functions at once
//!
//! The pipeline over the functions of one program runs in parallel (rayon).
//!
//! Every pass plans each function on its own (no pass reads another
//! function), so each function runs the whole pipeline in its own thread,
//! in a one-function program with its own context. What the sequential
//! driver would produce is then reassembled exactly:
//! - the functions, in program order;
//! - diagnostics and DSA_RP reports in the sequential order (pass by pass,
//!   function by function within a pass; a failing pass hands back no
//!   reports);
//! - the error the sequential driver meets first: the least (pass,
//!   function).
//!
//! So the output is byte-identical to a sequential run.

use rayon::prelude::*;

use super::allocate_memory_addr;
use super::context::PlannerMode;
use super::context::{Diagnostic, InputPlacement, PassContext, PassError, PassId, SpaceReport};
use super::sequential::{check_windows, make_relative};
use super::{init_memref, input_spaces, materialize_semantic_aliases, memory_reuse, verify};
use crate::ir::{Expr, Function, Program, Type};

/// Runs one pass over the whole program.
pub fn run_pass(id: PassId, program: &mut Program, ctx: &mut PassContext) -> Result<(), PassError> {
    match id {
        PassId::InitMemref => init_memref::run(program, ctx),
        PassId::MaterializeSemanticAliases => materialize_semantic_aliases::run(program, ctx),
        PassId::MemoryReuse => memory_reuse::run(program, ctx),
        PassId::AllocateMemoryAddr => allocate_memory_addr::run(program, ctx),
    }
}

/// Runs `passes` in the given order, stopping at the first error. Each pass
/// sees the program the previous one produced.
pub fn run_pipeline(
    program: &mut Program,
    ctx: &mut PassContext,
    passes: &[PassId],
) -> Result<(), PassError> {
    // Abstract functions (a bare `...` body) are left as they are: set
    // aside while the passes run, put back in their places after.
    if program.functions.iter().any(|f| f.is_abstract()) {
        let all = std::mem::take(&mut program.functions);
        let (kept, set_aside): (Vec<_>, Vec<_>) = all
            .into_iter()
            .enumerate()
            .partition(|(_, f)| !f.is_abstract());
        let places: Vec<usize> = kept.iter().map(|&(i, _)| i).collect();
        program.functions = kept.into_iter().map(|(_, f)| f).collect();
        let result = run_concrete(program, ctx, passes);
        let mut merged: Vec<Option<Function>> =
            (0..places.len() + set_aside.len()).map(|_| None).collect();
        for (i, f) in places
            .into_iter()
            .zip(std::mem::take(&mut program.functions))
        {
            merged[i] = Some(f);
        }
        for (i, f) in set_aside {
            merged[i] = Some(f);
        }
        program.functions = merged.into_iter().flatten().collect();
        return result;
    }
    run_concrete(program, ctx, passes)
}

/// [`run_pipeline`] on a program without abstract functions.
fn run_concrete(
    program: &mut Program,
    ctx: &mut PassContext,
    passes: &[PassId],
) -> Result<(), PassError> {
    // A program printed after allocate_memory_addr carries absolute
    // addresses; the passes before it work on root-relative offsets.
    let relative = passes
        .iter()
        .any(|&p| p == PassId::MemoryReuse || p == PassId::AllocateMemoryAddr);
    let input = InputChecks {
        relative,
        init: passes.first() == Some(&PassId::InitMemref),
    };
    // The registry's input-space constraints, on the spaces the program
    // declares (no pass changes a tile's space).
    for w in input_spaces::check(program)? {
        ctx.warning(w);
    }
    if program.functions.len() > 1 {
        return run_parallel(program, ctx, passes, input);
    }
    for f in &mut program.functions {
        if f.kind().is_kernel() {
            check_input(f, ctx, input)?;
        }
    }
    for &p in passes {
        run_pass(p, program, ctx)?;
    }
    Ok(())
}

/// Which input checks a pass list needs (see [`check_input`]).
#[derive(Clone, Copy)]
struct InputChecks {
    /// The passes plan addresses (MemoryReuse or AllocateMemoryAddr).
    relative: bool,
    /// InitMemRef runs first.
    init: bool,
}

/// Prepares and checks a kernel function's own MemRefs before the passes
/// plan it. When the passes plan addresses (`relative`): its input
/// placement recorded and made relative, every tile's window inside its
/// allocation. Always: no two tiles the input puts in one allocation live
/// at once. A failure is an input error (the planners keep the input's
/// sharing, so the placement check after them would otherwise report it
/// as theirs, an internal error).
///
/// None of this applies to a function InitMemRef gives storage afresh (it
/// runs first and the function's tensor parameters have no MemRef): its
/// tiles get new allocations whatever MemRefs they carried, as PyPTO's
/// InitMemRef does (the reference case
/// `test_dsa_rp_ascend910b_split_aiv_physically_separates_load_buffer`
/// starts from tiles with MemRefs), so no planner reads those MemRefs and
/// seed 001 places only the allocations InitMemRef made. Checking them
/// refused, under one planner and not the others, a program every
/// planner plans.
fn check_input(
    f: &mut Function,
    ctx: &mut PassContext,
    input: InputChecks,
) -> Result<(), PassError> {
    if input.init && !init_memref::already_done(f) {
        return Ok(());
    }
    if input.relative {
        prepare_planned(f, ctx);
        if ctx.planner != PlannerMode::Ptoas {
            check_windows(f)?;
        }
    }
    verify::check_input_sharing(f, &ctx.soc, ctx.policy.as_ref(), ctx.seed_rules)
}

/// Records the placement a kernel function of the input carries (see
/// [`InputPlacement`]: the planners keep a planned program's decisions)
/// and makes its absolute addresses relative again, the same way for
/// every planner.
///
/// A MemRef's offset counts from its allocation's start in a program not
/// yet planned (seed 001: AllocateMemoryAddr places the allocations
/// InitMemRef made and puts each tile at `slot base + its offset`), and is
/// that address in a planned one, whose allocation then sits at its lowest
/// tile (the form AllocateMemoryAddr writes, whichever planner chose the
/// addresses). The PYPTO planner's own sequential layout is recognised
/// whole ([`make_relative`]); any other planned function is read from each
/// allocation's lowest tile ([`rebase_on_lowest`]). Read from 0, a layout
/// of DSA-RP or the optimal planner had windows past their allocations,
/// and the PYPTO planner refused it where the others planned it.
fn prepare_planned(f: &mut Function, ctx: &mut PassContext) {
    let addresses = input_addresses(f);
    let laid_out = make_relative(f, ctx.policy.as_ref());
    if let Some(addresses) = addresses {
        if !laid_out {
            rebase_on_lowest(f);
        }
        ctx.placed.insert(
            f.name.to_string(),
            InputPlacement {
                laid_out,
                addresses,
            },
        );
    }
}

/// Makes each constant tile offset of a planned function relative to its
/// allocation's lowest tile (the allocation's address), leaving
/// allocations whose lowest tile is at 0 as they are.
fn rebase_on_lowest(f: &mut Function) {
    let mut low: rustc_hash::FxHashMap<crate::ir::VarId, i64> = Default::default();
    for d in f.vars.values() {
        if let Some(Type::Tile(_, Some(m))) = &d.ty {
            if let (Some(r), Some(o)) = (m.base_var(), m.const_offset()) {
                let e = low.entry(r).or_insert(o);
                *e = (*e).min(o);
            }
        }
    }
    for (_, d) in f.vars.iter_mut() {
        if let Some(Type::Tile(_, Some(m))) = &mut d.ty {
            if let (Some(r), Some(o)) = (m.base_var(), m.const_offset()) {
                if let Some(&l) = low.get(&r).filter(|&&l| l != 0) {
                    m.set_offset(Some(Expr::const_i64(o - l)));
                }
            }
        }
    }
}

/// The address of every allocation root of `f` (the lowest constant
/// offset among its tiles), when `f` reads as a planned program: no call
/// still carries a `pipeline_membership` tag (planning consumes them) and
/// some root sits at a nonzero address (in a program not yet planned
/// every root's own tile is at offset 0).
fn input_addresses(f: &Function) -> Option<rustc_hash::FxHashMap<Box<str>, u64>> {
    let mut low: rustc_hash::FxHashMap<crate::ir::VarId, i64> = Default::default();
    for d in f.vars.values() {
        if let Some(Type::Tile(_, Some(m))) = &d.ty {
            if let (Some(r), Some(o)) = (m.base_var(), m.const_offset()) {
                let e = low.entry(r).or_insert(o);
                *e = (*e).min(o);
            }
        }
    }
    if !low.values().any(|&o| o > 0) || low.values().any(|&o| o < 0) {
        return None;
    }
    let tagged = f.walk().into_iter().any(|(_, s)| {
        f.stmts[s]
            .call()
            .is_some_and(|c| !super::analysis::hazards::pipeline_membership(c).is_empty())
    });
    if tagged {
        return None;
    }
    Some(
        low.into_iter()
            .map(|(r, o)| (Box::from(f.vars[r].name.as_str()), o.unsigned_abs()))
            .collect(),
    )
}

/// What one function's pipeline left behind.
struct Trace {
    /// Diagnostics, per pass.
    diagnostics: Vec<Vec<Diagnostic>>,
    /// DSA_RP reports, per pass.
    reports: Vec<Vec<SpaceReport>>,
    /// The first failure: (pass index, error).
    error: Option<(usize, PassError)>,
}

fn run_one(
    f: Function,
    ctx: &PassContext,
    passes: &[PassId],
    input: InputChecks,
) -> (Function, Trace) {
    let mut cx = PassContext {
        soc: ctx.soc.clone(),
        planner: ctx.planner,
        policy: ctx.policy.clone(),
        diagnostics: Vec::new(),
        dsa: ctx.dsa.clone(),
        dsa_reports: Vec::new(),
        seed_rules: ctx.seed_rules,
        stage_claims: Default::default(),
        placed: Default::default(),
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
    };
    if program.functions[0].kind().is_kernel() {
        // As in the one-function driver: checked before the first pass.
        if let Err(e) = check_input(&mut program.functions[0], &mut cx, input) {
            trace.error = Some((0, e));
            let f = program.functions.pop().expect("one function in, one out");
            return (f, trace);
        }
    }
    for (k, &p) in passes.iter().enumerate() {
        let result = run_pass(p, &mut program, &mut cx);
        trace.diagnostics[k] = std::mem::take(&mut cx.diagnostics);
        trace.reports[k] = std::mem::take(&mut cx.dsa_reports);
        if let Err(e) = result {
            trace.error = Some((k, e));
            break;
        }
    }
    let f = program.functions.pop().expect("one function in, one out");
    (f, trace)
}

/// Runs `passes` over every function of `program` in parallel; see the
/// module docs for why the result equals a sequential run.
fn run_parallel(
    program: &mut Program,
    ctx: &mut PassContext,
    passes: &[PassId],
    input: InputChecks,
) -> Result<(), PassError> {
    let functions = std::mem::take(&mut program.functions);
    let shared: &PassContext = ctx;
    let done: Vec<(Function, Trace)> = functions
        .into_par_iter()
        .map(|f| run_one(f, shared, passes, input))
        .collect();
    let first_error = done
        .iter()
        .enumerate()
        .filter_map(|(i, (_, t))| t.error.as_ref().map(|(k, _)| (*k, i)))
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
            if first_error.is_some_and(|e| (k, i) > e) {
                continue;
            }
            ctx.diagnostics.append(&mut t.diagnostics[k]);
            // A failing pass hands back no reports at all.
            if first_error.is_none_or(|(ek, _)| k != ek) {
                ctx.dsa_reports.append(&mut t.reports[k]);
            }
        }
    }
    match first_error {
        Some((_, i)) => Err(traces[i].error.take().expect("recorded").1),
        None => Ok(()),
    }
}
