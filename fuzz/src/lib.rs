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
//! | [`mlir_reader`] | no panic; a module of registered dialects prints, and the print reads back to the same text |
//! | [`csv_reader`] | no panic; errors name a line; a read file written back reads as the same problem |
//! | [`plan`] | the planned program passes the independent validator, and planning it again changes nothing |
//! | [`solve`] | every placement passes the validator and survives a round trip through the CSV reader |

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_plan::{csv, validate, Budget, Solution, SolverKind};
use tilemem_pto::passes::{ErrorKind, PlannerMode};
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

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
/// reads back and prints to the same text.
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
    if let Ok(module) = parse_module(src, &strict) {
        let once = tilemem_mlir::print::print_module(&module);
        let again = parse_module(&once, &strict).unwrap_or_else(|d| {
            panic!(
                "printed module does not read back: {}:{}: {}\n{once}",
                d.loc.line, d.loc.col, d.message
            )
        });
        let twice = tilemem_mlir::print::print_module(&again);
        assert_eq!(once, twice, "print is not a fixed point of read-then-print");
    }
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

/// `plan` on programs the reader accepts, with the `pypto`, `dsa-rp` and
/// `optimal` planners on 910B (through [`tilemem_pto::plan()`], as every
/// front end): a planning error is fine, an internal error (the
/// validator rejected a placement) is not; the report's placements pass the
/// validator; planning the printed result again gives the same text.
pub fn plan(data: &[u8]) {
    let Some(src) = text(data) else { return };
    if tilemem_pto::parse::parse(src).is_err() {
        return;
    }
    for planner in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
        let Some(first) = plan_once(src, planner) else {
            continue;
        };
        let second = plan_once(&first, planner)
            .unwrap_or_else(|| panic!("{planner:?}: planned program cannot be planned again"));
        assert_eq!(
            first, second,
            "{planner:?}: planning is not idempotent (second run differs)"
        );
    }
}

/// One `tilemem plan --target 910b --planner P` run: the printed program,
/// or `None` when the input is rejected or cannot be planned.
fn plan_once(src: &str, planner: PlannerMode) -> Option<String> {
    let mut program = tilemem_pto::parse::parse(src)
        .unwrap_or_else(|e| panic!("{planner:?}: input does not read: {e}\n{src}"));
    let soc = Soc::from_name("910b").expect("910b is a known target");
    let mut opts = PlanOptions::new(soc, planner);
    opts.dsa.node_limit = Some(10_000);
    opts.report = true;
    let done = match tilemem_pto::plan(&mut program, &opts) {
        Ok(done) => done,
        Err(failed) => {
            assert!(
                !matches!(failed.error.kind, ErrorKind::Internal),
                "{planner:?}: internal error: {}",
                failed.error
            );
            return None;
        }
    };
    let report = done.report.expect("the report was asked for");
    for f in &report.functions {
        for s in &f.spaces {
            let (problem, solution) = s.placement();
            if let Err(v) = validate(&problem, &solution) {
                panic!(
                    "{planner:?}: report placement of {}/{} rejected: {:?}",
                    f.name, s.space, v
                );
            }
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
    let budget = Budget::default()
        .with_time_limit(Some(std::time::Duration::from_secs(2)))
        .with_node_limit(Some(20_000));
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
}
