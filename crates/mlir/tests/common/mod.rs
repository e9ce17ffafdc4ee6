//! Helpers shared by the HIVM planning tests (`merged_*`, `byte_run`):
//! the request they plan with, a plan that must succeed and pass the
//! independent check, its addresses, and the allocations of a function.
//! Each test file uses only some of them.
#![allow(dead_code)]

use tilemem_mlir::ir::{Module, OpId, ValueId};
use tilemem_mlir::memplan::{plan_text, PlanOutcome, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;
use tilemem_mlir::plan_check::check_module;

/// Planning on Ascend910B1 with `planner`, other options at default.
pub fn request(planner: Planner) -> PlanRequest {
    PlanRequest {
        target: Some("Ascend910B1".into()),
        options: Options {
            planner,
            ..Options::default()
        },
    }
}

/// `text` planned by [`request`]`(planner)`; panics with the diagnostics
/// (and the text) when refused.
pub fn plan(text: &str, planner: Planner) -> PlanOutcome {
    plan_text(text, &request(planner)).unwrap_or_else(|f| {
        panic!(
            "{planner:?}: {:?}\n{text}",
            f.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    })
}

/// [`plan`], whose output must read back and pass the placement check.
pub fn plan_checked(text: &str, planner: Planner) -> PlanOutcome {
    let out = plan(text, planner);
    let again = parse_module(&out.text, &ParseOptions::default()).expect("reads back");
    assert_eq!(check_module(&again, &|_| None), Vec::new(), "{planner:?}");
    out
}

/// The addresses of the buffers of the first function's first space, in
/// allocation order (one per multi-buffer slot).
pub fn offsets(out: &PlanOutcome) -> Vec<Vec<u64>> {
    out.functions[0].spaces[0]
        .buffers
        .iter()
        .map(|b| b.offsets.clone())
        .collect()
}

/// The first `func.func` of `m` and the results of its `memref.alloc`s, in
/// order.
pub fn func_and_allocs(m: &Module) -> (OpId, Vec<ValueId>) {
    let func = m
        .walk(m.top())
        .into_iter()
        .find(|&o| m.op(o).is("func.func"))
        .expect("a function");
    let allocs = m
        .walk(func)
        .into_iter()
        .filter(|&o| m.op(o).is("memref.alloc"))
        .map(|o| m.op(o).results()[0])
        .collect();
    (func, allocs)
}
