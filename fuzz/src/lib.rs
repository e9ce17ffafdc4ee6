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
            assert!(one.is_ok(), "rayon's pool was built before the smoke set it up");
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
/// - the report's placements pass the validator, and the independent
///   placement check ([`tilemem_pto::report::check_placement`]) accepts
///   the printed program;
/// - the printed program reads back, and read-then-print is a fixed point;
/// - planning the printed program again changes nothing, when the input
///   carries every fact the planner used: PyPTO consumes the
///   `pipeline_membership` stage tags and prints its result without them
///   (and so does tilemem), so a second run of a pipelined program may
///   share further (see docs/architecture.md, "Idempotence").
pub fn plan(data: &[u8]) {
    smoke();
    let Some(src) = text(data) else { return };
    if tilemem_pto::parse::parse(src).is_err() {
        return;
    }
    let target = TARGETS[data.len() % TARGETS.len()];
    let carries_facts = !src.contains("pipeline_membership");
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
        if !carries_facts {
            continue;
        }
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
                let (problem, solution) = s.placement();
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
