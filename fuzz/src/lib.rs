//! The properties the fuzz targets check, one function per target.
//!
//! Each function takes the raw fuzz input and panics only when tilemem
//! breaks one of its promises; inputs the readers reject with an error are
//! fine (that is what a reader is for). The same functions run the saved
//! crash inputs again (`cargo fuzz run TARGET FILE`), and every crash found
//! is kept as a regression test in the crate that owns the code.
//!
//! | target | promise |
//! |---|---|
//! | [`pto_reader`] | no panic; a read program prints, and the print reads back to the same text |
//! | [`mlir_reader`] | no panic; a module of registered dialects prints, and the print reads back to the same text, also after every pass pipeline of `opt` |
//! | [`csv_reader`] | no panic; errors name a line; a read file written back reads as the same problem |
//! | [`plan`] | every planner on every target (one per input): no internal error, the placement passes the validator and the independent check, the printed program reads back to a fixed point, planning it again changes nothing |
//! | [`solve`] | every placement passes the validator and survives a round trip through the CSV reader; the solvers agree on feasibility and proven optima |

pub mod bytes;

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_plan::{csv, validate, Budget, Solution, SolverKind};
use tilemem_pto::passes::{ErrorKind, PlannerMode};
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

/// Whether this is a smoke run (`fuzz/run.sh --smoke` sets
/// `TILEMEM_FUZZ_SMOKE`), which must try the same inputs on every run: the
/// work of a target then runs on the fuzzing thread alone. Threads racing
/// (rayon's workers waking, a portfolio's members sharing a bound) change
/// the coverage libFuzzer sees from run to run, and with it the inputs it
/// keeps and mutates. The long runs keep the threads, to look for races.
fn smoke() -> bool {
    static SMOKE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SMOKE.get_or_init(|| {
        let smoke = std::env::var_os("TILEMEM_FUZZ_SMOKE").is_some();
        if smoke {
            // One worker, the calling thread: parallel loops run inline.
            // (An error means the pool exists already, with its threads.)
            let one = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build_global();
            assert!(
                one.is_ok(),
                "rayon's pool was built before the smoke set it up"
            );
        }
        smoke
    })
}

/// Inputs larger than this are skipped: the targets look for wrong
/// behaviour, not for slow behaviour on huge inputs (the benchmarks do).
const MAX_INPUT: usize = 16 * 1024;

fn text(data: &[u8]) -> Option<&str> {
    if data.len() > MAX_INPUT {
        return None;
    }
    std::str::from_utf8(data).ok()
}

/// PyPTO reader and printer: reading never panics, errors carry a position,
/// and `print(parse(print(p))) == print(p)` (the printer's output is a
/// fixed point of read-then-print).
pub fn pto_reader(data: &[u8]) {
    let Some(src) = text(data) else { return };
    match tilemem_pto::parse::parse(src) {
        Ok(program) => {
            let once = tilemem_pto::print::print(&program);
            let again = tilemem_pto::parse::parse(&once)
                .unwrap_or_else(|e| panic!("printed program does not read back: {e}\n{once}"));
            let twice = tilemem_pto::print::print(&again);
            assert_eq!(once, twice, "print is not a fixed point of read-then-print");
        }
        Err(e) => assert!(e.line >= 1 && e.col >= 1, "error without a position: {e}"),
    }
}

/// MLIR reader and printer: reading never panics, with or without
/// `-allow-unregistered-dialect`; a module of registered dialects prints,
/// reads back and prints to the same text. Every pass pipeline of `opt`
/// (each pass alone, and all four in order) that succeeds on it gives a
/// module whose print reads back and is a fixed point of read-then-print.
///
/// Unregistered ops in custom form are read leniently (their syntax is
/// unknown), and their print does not always read back: that is recorded
/// in `crates/mlir/tests/fuzz_regressions.rs` and kept out of the round
/// trip here, so the target keeps looking for other failures.
pub fn mlir_reader(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let lenient = ParseOptions {
        allow_unregistered_dialect: true,
        ..ParseOptions::default()
    };
    let _ = parse_module(src, &lenient);
    let strict = ParseOptions::default();
    let Ok(module) = parse_module(src, &strict) else {
        return;
    };
    let once = mlir_fixed_point(&module, &strict, "input");
    let names: Vec<&'static str> = tilemem_mlir::passes::registry()
        .iter()
        .map(|p| p.name())
        .collect();
    let mut pipelines: Vec<Vec<&'static str>> = names.iter().map(|&n| vec![n]).collect();
    pipelines.push(names.clone());
    for pipeline in &pipelines {
        let Ok(mut m) = parse_module(&once, &strict) else {
            unreachable!("checked by mlir_fixed_point")
        };
        let passes: Vec<_> = pipeline
            .iter()
            .filter_map(|n| tilemem_mlir::passes::lookup(n))
            .collect();
        let (_, ok) = tilemem_mlir::pass::run_pipeline(&passes, &mut m);
        if ok {
            mlir_fixed_point(&m, &strict, &pipeline.join(","));
        }
    }
}

/// Prints `module`, reads the print back and prints it again: the two
/// prints must be equal. Returns the print.
fn mlir_fixed_point(module: &tilemem_mlir::ir::Module, opts: &ParseOptions, what: &str) -> String {
    let once = tilemem_mlir::print::print_module(module);
    let again = parse_module(&once, opts).unwrap_or_else(|d| {
        panic!(
            "{what}: printed module does not read back: {}:{}: {}\n{once}",
            d.loc.line, d.loc.col, d.message
        )
    });
    let twice = tilemem_mlir::print::print_module(&again);
    assert_eq!(
        once, twice,
        "{what}: print is not a fixed point of read-then-print"
    );
    once
}

/// CSV reader: never panics, errors name a line, and a file read and
/// written back (with an `offset` column) reads as the same problem.
pub fn csv_reader(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let Ok(file) = csv::parse(src, "fuzz.csv") else {
        return;
    };
    let zeros = Solution {
        offsets: vec![0; file.problem.len()],
    };
    let written = file.write_with(&zeros);
    let back = csv::parse(&written, "written.csv")
        .unwrap_or_else(|e| panic!("written file does not read back: {e}\n{written}"));
    assert_eq!(
        back.problem, file.problem,
        "problem changed by a round trip"
    );
    assert_eq!(back.solution().ok(), Some(zeros), "offsets changed");
}

/// The targets [`plan`] cycles through, one per input (by its length).
const TARGETS: [&str; 4] = ["910b", "950", "310b", "none"];

/// `plan` on programs the reader accepts, with every planner on one target
/// per input (all four over a run). For each planner:
/// - a planning error is fine, an internal error (the validator rejected
///   a placement) is not;
/// - the report's placements, each buffer drawn between its gaps, pass
///   the validator, and the independent
///   placement check ([`tilemem_pto::report::check_placement`]) accepts
///   the printed program;
/// - the printed program reads back, and read-then-print is a fixed point;
/// - planning the printed program again changes nothing, pipelined
///   programs included: the stage tags are consumed, and the planned
///   program's placement stands for them (see docs/architecture.md,
///   "Idempotence").
pub fn plan(data: &[u8]) {
    smoke();
    let Some(src) = text(data) else { return };
    if tilemem_pto::parse::parse(src).is_err() {
        return;
    }
    let target = TARGETS[data.len() % TARGETS.len()];
    for planner in [
        PlannerMode::Pypto,
        PlannerMode::DsaRp,
        PlannerMode::Optimal,
        PlannerMode::Ptoas,
    ] {
        let Some(first) = plan_once(src, planner, target) else {
            continue;
        };
        let reread = tilemem_pto::parse::parse(&first).unwrap_or_else(|e| {
            panic!("{planner:?} on {target}: planned program does not read back: {e}\n{first}")
        });
        assert_eq!(
            tilemem_pto::print::print(&reread),
            first,
            "{planner:?} on {target}: print is not a fixed point of read-then-print"
        );
        let second = plan_once(&first, planner, target).unwrap_or_else(|| {
            panic!("{planner:?} on {target}: planned program cannot be planned again\n{first}")
        });
        assert_eq!(
            first, second,
            "{planner:?} on {target}: planning is not idempotent (second run differs)"
        );
    }
}

/// One `tilemem plan --target T --planner P` run: the printed program,
/// or `None` when the input is rejected or cannot be planned.
fn plan_once(src: &str, planner: PlannerMode, target: &str) -> Option<String> {
    let mut program = tilemem_pto::parse::parse(src)
        .unwrap_or_else(|e| panic!("{planner:?}: input does not read: {e}\n{src}"));
    let soc = Soc::from_name(target).expect("a known target");
    // Planned as every front end plans (the façade).
    let mut opts = PlanOptions::new(soc.clone(), planner);
    // A work budget, no time limit: the same result on every run.
    opts.dsa.node_limit = Some(10_000);
    opts.dsa.time_limit = None;
    opts.report = planner != PlannerMode::Ptoas;
    let done = match tilemem_pto::plan(&mut program, &opts) {
        Ok(done) => done,
        Err(failed) => {
            assert!(
                !matches!(failed.error.kind, ErrorKind::Internal),
                "{planner:?} on {target}: internal error: {}",
                failed.error
            );
            return None;
        }
    };
    if let Some(report) = &done.report {
        for f in &report.functions {
            for s in &f.spaces {
                let (problem, solution) = s.placement_by_span();
                if let Err(v) = validate(&problem, &solution) {
                    panic!(
                        "{planner:?} on {target}: report placement of {}/{} rejected: {:?}",
                        f.name, s.space, v
                    );
                }
            }
        }
        let policy = tilemem_soc::DefaultPolicy;
        if let Err(e) =
            tilemem_pto::report::check_placement(&program, &soc, &policy, opts.seed_rules)
        {
            panic!("{planner:?} on {target}: placement check: {e}");
        }
    }
    Some(tilemem_pto::print::print(&program))
}

/// `solve` on problems the CSV reader accepts (up to 64 buffers), with
/// every solver under a node budget: each placement passes the validator,
/// and written as CSV it reads back as the same problem and placement.
pub fn solve(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let Ok(file) = csv::parse(src, "fuzz.csv") else {
        return;
    };
    if file.problem.len() > 64 || file.problem.check().is_err() {
        return;
    }
    // A smoke run bounds the work alone (the node limit cuts every solver
    // at the same point on every machine; a clock would not).
    let time_limit = (!smoke()).then_some(std::time::Duration::from_secs(2));
    let budget = Budget::default()
        .with_time_limit(time_limit)
        .with_node_limit(Some(20_000))
        .with_threads(smoke().then_some(1));
    let mut outcomes = Vec::new();
    for kind in [
        SolverKind::Sequential,
        SolverKind::FirstFit,
        SolverKind::BestFit,
        SolverKind::Canonical,
        SolverKind::Handoff,
        SolverKind::Exact,
        SolverKind::Auto,
    ] {
        let out = tilemem_plan::solve(&file.problem, kind, &budget)
            .unwrap_or_else(|e| panic!("{kind:?}: checked problem rejected: {e}"));
        outcomes.push((kind, out.clone()));
        let Some(sol) = out.solution else { continue };
        if let Err(v) = validate(&file.problem, &sol) {
            panic!("{kind:?}: invalid placement: {v:?}");
        }
        let written = file.write_with(&sol);
        let back = csv::parse(&written, "placed.csv")
            .unwrap_or_else(|e| panic!("{kind:?}: written placement does not read back: {e}"));
        assert_eq!(back.problem, file.problem, "{kind:?}: problem changed");
        assert_eq!(back.solution().ok(), Some(sol.clone()), "{kind:?}: offsets");
        if let Err(v) = validate(&back.problem, &sol) {
            panic!("{kind:?}: placement rejected after the round trip: {v:?}");
        }
    }
    crowded_copies(&file.problem, &budget);
    // The solvers agree: none proves "no placement" where another placed
    // every buffer within the capacity, and none finds a placement below
    // a height another proved optimal (penalties aside: plain problems).
    let plain = file.problem.penalties.is_empty();
    let placed = outcomes
        .iter()
        .filter_map(|(k, o)| o.solution.as_ref().map(|_| (*k, o.height)))
        .min_by_key(|&(_, h)| h);
    for (kind, o) in &outcomes {
        if let (true, Some((other, h))) = (o.proven_infeasible, placed) {
            panic!("{kind:?} proved no placement exists, {other:?} placed it at height {h}");
        }
        if let (true, true, Some((other, h))) = (plain, o.proven_optimal, placed) {
            assert!(
                h >= o.height,
                "{kind:?} proved height {} optimal, {other:?} placed it at {h}",
                o.height
            );
        }
    }
}

/// PyPTO MessagePack reader and writer: reading never panics, an error
/// names a byte offset inside the input, and a document read and written
/// is a fixed point (writing what reading the output gives yields the same
/// bytes). A document that reads into the program model writes back
/// without a panic, and what it writes reads again.
pub fn pto_msgpack(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    match tilemem_pto::msgpack::read(data) {
        Ok(graph) => {
            let Ok(once) = tilemem_pto::msgpack::write(&graph) else {
                return;
            };
            let again = tilemem_pto::msgpack::read(&once)
                .unwrap_or_else(|e| panic!("written document does not read back: {e}"));
            let twice = tilemem_pto::msgpack::write(&again).expect("writes again");
            assert_eq!(once, twice, "write is not a fixed point of read-then-write");
            if let Ok((p, origin)) = tilemem_pto::msgpack::read_with_origin(data) {
                if let Ok(out) = tilemem_pto::msgpack::write_program(&p, &origin) {
                    tilemem_pto::msgpack::read_with_origin(&out)
                        .unwrap_or_else(|e| panic!("written program does not read back: {e}"));
                }
            }
        }
        Err(e) => assert!(e.offset <= data.len(), "error offset past the input: {e}"),
    }
}

/// Buffers at most in a crowded copy ([`crowded_copies`]).
const CROWDED_MAX: u64 = 4096;

/// The greedy solvers take another path on crowded problems (128 buffers
/// or more, 64 live at once on average: a tree over the lifetime ends,
/// with look-ahead fetches), which the 64-buffer inputs never reach. The
/// input's buffers, each repeated enough times to be crowded (up to
/// [`CROWDED_MAX`] buffers, without a capacity), go through them too:
/// every placement passes the validator.
fn crowded_copies(problem: &tilemem_plan::Problem, budget: &Budget) {
    let plain = problem.conflicts.is_empty()
        && problem.compatible.is_empty()
        && problem.reserved.is_empty()
        && problem.buffers.iter().all(|b| b.fixed_offset.is_none());
    let live = problem
        .buffers
        .iter()
        .filter(|b| b.size > 0 && b.lower < b.upper);
    let first = live.clone().map(|b| b.lower).min();
    let last = live.clone().map(|b| b.upper).max();
    let lives: u128 = live.map(|b| (b.upper - b.lower) as u128).sum();
    let (Some(first), Some(last), true) = (first, last, plain) else {
        return;
    };
    let n = problem.len() as u128;
    let copies = (128u128.div_ceil(n)).max((64 * (last - first) as u128).div_ceil(lives.max(1)));
    if n * copies > CROWDED_MAX as u128 {
        return;
    }
    let mut crowded = problem.clone();
    crowded.capacity = None;
    crowded.penalties.clear();
    crowded.buffers = problem
        .buffers
        .iter()
        .flat_map(|b| std::iter::repeat_n(b.clone(), copies as usize))
        .collect();
    for kind in [SolverKind::FirstFit, SolverKind::BestFit] {
        let out = tilemem_plan::solve(&crowded, kind, budget)
            .unwrap_or_else(|e| panic!("{kind:?} (crowded copy): checked problem rejected: {e}"));
        if let Some(sol) = out.solution {
            if let Err(v) = validate(&crowded, &sol) {
                panic!("{kind:?} (crowded copy, {copies} of each): invalid placement: {v:?}");
            }
        }
    }
}

/// One local buffer or view the generated HIVM program can name.
struct Local {
    name: String,
    /// Rows, columns, element type (`f16`/`f32`).
    shape: (u64, u64, &'static str),
    /// The memref type as written.
    ty: String,
}

/// Inputs larger than this are skipped by [`hivm_plan`] (two bytes a step).
const HIVM_MAX_INPUT: usize = 128;

/// The chips [`hivm_program`] targets, one per input (by its length): a
/// memory-based one and a register-based one.
const HIVM_CHIPS: [&str; 2] = ["Ascend910B1", "Ascend950PR_9589"];

/// A HIVM kernel built from the fuzz input (see [`hivm_plan`]): one
/// function of allocations in `ub`, loads, stores, element-wise ops,
/// casts, views, multi-buffer marks, loops and `if`s (some yielding one of
/// two buffers), nested as the input says.
fn hivm_program(data: &[u8]) -> String {
    let chip = HIVM_CHIPS[data.len() % HIVM_CHIPS.len()];
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next();
    let ub = "#hivm.address_space<ub>";
    let gm = "#hivm.address_space<gm>";
    let mut body = String::new();
    let mut args: Vec<String> = vec!["%cond: i1".into(), "%n: index".into()];
    // Visible locals; a scope is the length of `locals` when it opened,
    // with the text closing it (and what to add after it closes).
    let mut locals: Vec<Local> = Vec::new();
    let mut scopes: Vec<(usize, &'static str)> = Vec::new();
    // Of each loop that carries a buffer (scope "carry"): its result and
    // the type it carries, to yield at its end and read after it.
    let mut carries: Vec<(String, (u64, u64, &'static str), String)> = Vec::new();
    let mut fresh = 0usize;
    let mut name = |p: &str| {
        fresh += 1;
        format!("%{p}{fresh}")
    };
    let indent = |depth: usize| "  ".repeat(depth + 1);
    let pick =
        |locals: &[Local], b: u8, shape: Option<(u64, u64, &'static str)>| -> Option<usize> {
            let fit: Vec<usize> = (0..locals.len())
                .filter(|&i| shape.is_none_or(|s| locals[i].shape == s))
                .collect();
            (!fit.is_empty()).then(|| fit[b as usize % fit.len()])
        };
    body.push_str(
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  \
         %c2 = arith.constant 2 : index\n",
    );
    let mut ops = 0;
    while let Some(op) = next() {
        ops += 1;
        if ops > 200 {
            break;
        }
        let d = indent(scopes.len());
        let arg = next().unwrap_or(0);
        match op % 12 {
            // An allocation.
            0 | 1 => {
                let rows = 1u64 << (arg % 5);
                let cols = 1 + u64::from(next().unwrap_or(0) % 64);
                let t = if arg & 0x80 != 0 { "f32" } else { "f16" };
                let n = name("a");
                let ty = format!("memref<{rows}x{cols}x{t}, {ub}>");
                body.push_str(&format!("{d}{n} = memref.alloc() : {ty}\n"));
                locals.push(Local {
                    name: n,
                    shape: (rows, cols, t),
                    ty,
                });
            }
            // A load into, or a store from, a local.
            2 | 3 => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let l = &locals[i];
                let (r, c, t) = l.shape;
                let g = format!("%g{}", args.len());
                let gty = format!("memref<{r}x{c}x{t}, {gm}>");
                args.push(format!("{g}: {gty}"));
                if op % 12 == 2 {
                    body.push_str(&format!(
                        "{d}hivm.hir.load ins({g} : {gty}) outs({} : {})\n",
                        l.name, l.ty
                    ));
                } else {
                    body.push_str(&format!(
                        "{d}hivm.hir.store ins({} : {}) outs({g} : {gty})\n",
                        l.name, l.ty
                    ));
                }
            }
            // Element-wise: two inputs or one, one output of the same shape.
            4 | 5 => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let s = locals[i].shape;
                let b = next().unwrap_or(0);
                let (Some(j), Some(k)) = (pick(&locals, b, Some(s)), pick(&locals, b / 3, Some(s)))
                else {
                    continue;
                };
                let (x, y, z) = (&locals[i], &locals[j], &locals[k]);
                if op % 12 == 4 {
                    body.push_str(&format!(
                        "{d}hivm.hir.vadd ins({}, {} : {}, {}) outs({} : {})\n",
                        x.name, y.name, x.ty, y.ty, z.name, z.ty
                    ));
                } else {
                    body.push_str(&format!(
                        "{d}hivm.hir.vexp ins({} : {}) outs({} : {})\n",
                        x.name, x.ty, z.name, z.ty
                    ));
                }
            }
            // A cast between f16 and f32 of one shape.
            6 => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let (r, c, t) = locals[i].shape;
                let other = if t == "f16" { "f32" } else { "f16" };
                let Some(k) = pick(&locals, next().unwrap_or(0), Some((r, c, other))) else {
                    continue;
                };
                let (x, z) = (&locals[i], &locals[k]);
                body.push_str(&format!(
                    "{d}hivm.hir.vcast ins({} : {}) outs({} : {})\n",
                    x.name, x.ty, z.name, z.ty
                ));
            }
            // A view: some columns of a whole allocation.
            7 => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let (r, c, t) = locals[i].shape;
                if !locals[i].ty.starts_with(&format!("memref<{r}x{c}x{t}, #")) {
                    continue;
                }
                let b = u64::from(next().unwrap_or(0));
                let off = b % c;
                let w = 1 + (b / 7) % (c - off);
                let n = name("v");
                let layout = if off == 0 {
                    format!("strided<[{c}, 1]>")
                } else {
                    format!("strided<[{c}, 1], offset: {off}>")
                };
                let ty = format!("memref<{r}x{w}x{t}, {layout}, {ub}>");
                body.push_str(&format!(
                    "{d}{n} = memref.subview {}[0, {off}] [{r}, {w}] [1, 1] : {} to {ty}\n",
                    locals[i].name, locals[i].ty
                ));
                locals.push(Local {
                    name: n,
                    shape: (r, w, t),
                    ty,
                });
            }
            // A multi-buffer mark on an allocation.
            8 => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let l = &locals[i];
                body.push_str(&format!(
                    "{d}annotation.mark {} {{hivm.multi_buffer = {} : i32}} : {}\n",
                    l.name,
                    1 + next().unwrap_or(0) % 3,
                    l.ty
                ));
            }
            // A loop, an `if`, its `else`, the end of the innermost; a
            // loop (`scf.for` with `iter_args`, or `scf.while`) carrying a
            // local, which yields at its end a buffer of the carried type
            // (the iteration argument, the init, or one of its own).
            9 => {
                if scopes.len() >= 4 {
                    continue;
                }
                match arg % 4 {
                    0 => {
                        let iv = name("i");
                        body.push_str(&format!("{d}scf.for {iv} = %c0 to %n step %c1 {{\n"));
                        scopes.push((locals.len(), "for"));
                    }
                    1 => {
                        body.push_str(&format!("{d}scf.if %cond {{\n"));
                        scopes.push((locals.len(), "then"));
                    }
                    k => {
                        let Some(i) = pick(&locals, next().unwrap_or(0), None) else {
                            continue;
                        };
                        let (x, shape, ty) = (
                            locals[i].name.clone(),
                            locals[i].shape,
                            locals[i].ty.clone(),
                        );
                        let r = name("r");
                        let a = name("c");
                        if k == 2 {
                            // Two trips, or %n (maybe none).
                            let iv = name("i");
                            let ub = if arg & 0x10 != 0 { "%c2" } else { "%n" };
                            body.push_str(&format!(
                                "{d}{r} = scf.for {iv} = %c0 to {ub} step %c1 iter_args({a} = {x}) -> ({ty}) {{\n"
                            ));
                        } else {
                            let w = name("w");
                            body.push_str(&format!(
                                "{d}{r} = scf.while ({w} = {x}) : ({ty}) -> ({ty}) {{\n\
                                 {d}  scf.condition(%cond) {w} : {ty}\n\
                                 {d}}} do {{\n\
                                 {d}^bb0({a}: {ty}):\n"
                            ));
                        }
                        scopes.push((locals.len(), "carry"));
                        carries.push((r, shape, ty.clone()));
                        locals.push(Local { name: a, shape, ty });
                    }
                }
            }
            10 => {
                let Some((len, kind)) = scopes.pop() else {
                    continue;
                };
                let d = indent(scopes.len());
                if kind == "carry" {
                    close_carry(&mut body, &mut locals, &mut carries, len, arg, &d);
                    continue;
                }
                locals.truncate(len);
                if kind == "then" && arg % 2 == 0 {
                    body.push_str(&format!("{d}}} else {{\n"));
                    scopes.push((len, "else"));
                } else {
                    body.push_str(&format!("{d}}}\n"));
                }
            }
            // An `if` yielding one of two locals of one type.
            _ => {
                let Some(i) = pick(&locals, arg, None) else {
                    continue;
                };
                let ty = locals[i].ty.clone();
                let same: Vec<usize> = (0..locals.len()).filter(|&j| locals[j].ty == ty).collect();
                let j = same[next().unwrap_or(0) as usize % same.len()];
                let n = name("s");
                body.push_str(&format!(
                    "{d}{n} = scf.if %cond -> ({ty}) {{\n{d}  scf.yield {} : {ty}\n{d}}} else {{\n{d}  scf.yield {} : {ty}\n{d}}}\n",
                    locals[i].name, locals[j].name
                ));
                let shape = locals[i].shape;
                locals.push(Local { name: n, shape, ty });
            }
        }
    }
    while let Some((len, kind)) = scopes.pop() {
        let d = indent(scopes.len());
        if kind == "carry" {
            close_carry(&mut body, &mut locals, &mut carries, len, 0, &d);
        } else {
            locals.truncate(len);
            body.push_str(&format!("{d}}}\n"));
        }
    }
    format!(
        "module attributes {{hacc.target = #hacc.target<\"{chip}\">}} {{\n\
         func.func @kernel({}) {{\n{body}  return\n}}\n}}\n",
        args.join(", ")
    )
}

/// Ends the innermost loop that carries a local (its scope started at
/// `len` locals): yields a visible local of the carried type (picked by
/// `b`: the iteration argument, a buffer from outside, or one the body
/// allocated), then makes the loop's result a local.
fn close_carry(
    body: &mut String,
    locals: &mut Vec<Local>,
    carries: &mut Vec<(String, (u64, u64, &'static str), String)>,
    len: usize,
    b: u8,
    d: &str,
) {
    let (r, shape, ty) = carries.pop().expect("a carry per carrying scope");
    let same: Vec<usize> = (0..locals.len()).filter(|&j| locals[j].ty == ty).collect();
    // The iteration argument (the scope's first local) is always there.
    let j = same[b as usize % same.len()];
    body.push_str(&format!(
        "{d}  scf.yield {} : {ty}\n{d}}}\n",
        locals[j].name
    ));
    locals.truncate(len);
    locals.push(Local { name: r, shape, ty });
}

/// HIVM's passes on generated kernels ([`hivm_program`]): the kernel
/// reads; every pass alone and the whole pipeline either fail with a
/// diagnostic that is not an internal error (the planner's own check
/// refusing its plan) or give a module whose print reads back and prints
/// the same, and whose planned addresses the independent check
/// ([`tilemem_mlir::plan_check`]) accepts as read back, and that, run over
/// its bytes ([`bytes::run`], which knows nothing of lifetimes or merges),
/// reads in every read what an unplanned run reads; planning it again
/// changes nothing.
pub fn hivm_plan(data: &[u8]) {
    // Kernels of up to 64 steps: larger ones cost the optimal planner
    // seconds (its time limit is 10 s) and find nothing smaller ones miss.
    if data.len() > HIVM_MAX_INPUT {
        return;
    }
    let src = hivm_program(data);
    // `TILEMEM_FUZZ_SHOW=1 cargo fuzz run hivm_plan FILE` shows the kernel
    // of a reproducer and what each pipeline made of it.
    let show = std::env::var_os("TILEMEM_FUZZ_SHOW").is_some();
    if show {
        eprintln!("{src}");
    }
    let strict = ParseOptions::default();
    let module = parse_module(&src, &strict).unwrap_or_else(|d| {
        panic!(
            "generated kernel does not read: {}:{}: {}\n{src}",
            d.loc.line, d.loc.col, d.message
        )
    });
    let once = mlir_fixed_point(&module, &strict, "kernel");
    let names: Vec<&'static str> = tilemem_mlir::passes::registry()
        .iter()
        .map(|p| p.name())
        .collect();
    // Each pass alone after the device spec, the whole pipeline, and the
    // planners with their options (the chip's own planner: the other
    // fails at once).
    let spec = "hacc-append-device-spec";
    let mut pipelines: Vec<Vec<&'static str>> = names.iter().map(|&n| vec![spec, n]).collect();
    pipelines.push(names.clone());
    for planner in ["hivm-plan-memory", "hivm-plan-memory-regbase"] {
        for options in [
            "",
            "planner=optimal",
            "restrict-inplace-as-isa=true",
            "plan-memory-strategy=largest-first",
        ] {
            let mut p = names.clone();
            p.retain(|n| !n.starts_with("hivm-plan-memory"));
            p.push(planner);
            p.push(options);
            pipelines.push(p);
        }
    }
    for pipeline in &pipelines {
        let mut m = parse_module(&once, &strict).expect("checked by mlir_fixed_point");
        // A pass name followed by its options (an entry with '=', or empty).
        let mut passes: Vec<Box<dyn tilemem_mlir::pass::Pass>> = Vec::new();
        for n in pipeline {
            if n.is_empty() {
                continue;
            }
            if n.contains('=') {
                let last = passes.last_mut().expect("options follow a pass");
                last.set_options(n)
                    .unwrap_or_else(|e| panic!("option {n}: {e}"));
            } else {
                passes.push(tilemem_mlir::passes::lookup(n).expect("a registered pass"));
            }
        }
        let what = pipeline.join(",");
        let (diags, ok) = tilemem_mlir::pass::run_pipeline(&passes, &mut m);
        if show {
            let first = diags.first().map(|d| d.message.as_str()).unwrap_or("");
            eprintln!("{what}: ok={ok} {first}");
        }
        for d in &diags {
            assert!(
                !d.message.contains("internal error"),
                "{what}: {}:{}: {}\n{once}",
                d.loc.line,
                d.loc.col,
                d.message
            );
        }
        if !ok {
            continue;
        }
        let printed = mlir_fixed_point(&m, &strict, &what);
        if pipeline.iter().any(|n| n.starts_with("hivm-plan-memory")) {
            let back = parse_module(&printed, &strict).expect("checked by mlir_fixed_point");
            let bad = tilemem_mlir::plan_check::check_module(&back, &|_| None);
            assert!(
                bad.is_empty(),
                "{what}: the planned kernel fails the independent check: {}\n{printed}",
                bad.iter()
                    .map(|d| format!("{}:{}: {}", d.loc.line, d.loc.col, d.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            // The planned kernel run over its bytes: every read finds what
            // the same run without a plan finds (no other write's bytes).
            let run = bytes::run(&back, 6);
            if show && !run.unmodelled.is_empty() {
                eprintln!("{what}: not run over bytes: {:?}", run.unmodelled);
            }
            assert!(
                run.errors.is_empty(),
                "{what}: a read of the planned kernel finds another write's bytes: {}\n{printed}",
                run.errors.join("\n")
            );
            // Planning the planned kernel again changes nothing: the
            // planner alone, with its options, on the printed module.
            let at = pipeline
                .iter()
                .rposition(|n| n.starts_with("hivm-plan-memory"))
                .expect("a planner in the pipeline");
            let mut planner = tilemem_mlir::passes::lookup(pipeline[at]).expect("registered");
            if let Some(o) = pipeline.get(at + 1).filter(|o| o.contains('=')) {
                planner.set_options(o).expect("checked above");
            }
            let mut again = back;
            let (diags, ok) = tilemem_mlir::pass::run_pipeline(&[planner], &mut again);
            assert!(
                ok,
                "{what}: the planned kernel does not plan again: {:?}\n{printed}",
                diags.first().map(|d| &d.message)
            );
            assert_eq!(
                tilemem_mlir::print::print_module(&again),
                printed,
                "{what}: planning the planned kernel again changed it"
            );
        }
    }
}
