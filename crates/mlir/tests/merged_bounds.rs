//! The carried-buffer check (`analysis::merged_reads`) at its bounds.
//!
//! Past `MAX_STATES` abstract states at one program point the run gives
//! up. It used to find nothing there, silently: PlanMemory, whose run
//! over a group of eight merged buffers gave up, kept the reference's
//! merge, and the placement check, whose run over two of them did not
//! give up, found a read of `%a` after `%b` wrote the shared bytes:
//! "internal error: the plan failed its independent check" (exit 3) on a
//! program that plans correctly with them apart. Now the run says
//! which bound it met, the planner plans apart what it could not prove
//! (a warning names the function and the bound), and the check asks the
//! planner's group before it refuses.

use tilemem_mlir::analysis::merged_reads::{bad_reads, GaveUp, MAX_STATES};
use tilemem_mlir::ir::{Module, OpId, ValueId};
use tilemem_mlir::memplan::{plan_text, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;
use tilemem_mlir::plan_check::check_module;

const UB: &str = "memref<16xf32, #hivm.address_space<ub>>";
const GM: &str = "memref<16xf32, #hivm.address_space<gm>>";
const GM1: &str = "memref<1xf32, #hivm.address_space<gm>>";

/// `%a` loaded; on the else path `%b` loaded and `n` more buffers `%cI`,
/// each written in part (its first element) by an `scf.if` of its own (2^n
/// orders of writers for a run that follows them all), and a chain of
/// `scf.if`s yielding `%b` or one of them: all are one carried memory to
/// PlanMemory; `%a` is stored after (line 11 + 10n).
fn program(n: usize) -> String {
    let p = "memref<1xf32, strided<[1]>, #hivm.address_space<ub>>";
    let mut allocs = String::new();
    let mut parts = String::new();
    let mut ys = String::new();
    let mut prev = "%b".to_string();
    for i in 0..n {
        allocs.push_str(&format!("%c{i} = memref.alloc() : {UB}\n"));
        parts.push_str(&format!(
            "scf.if %c {{\n%s{i} = memref.subview %c{i}[0] [1] [1] : {UB} to {p}\n\
             hivm.hir.load ins(%g1 : {GM1}) outs(%s{i} : {p})\n}}\n"
        ));
        ys.push_str(&format!(
            "%t{i} = scf.if %c -> ({UB}) {{\nscf.yield {prev} : {UB}\n}} else {{\n\
             scf.yield %c{i} : {UB}\n}}\n"
        ));
        prev = format!("%t{i}");
    }
    format!(
        "func.func @bound(%g: {GM}, %o: {GM}, %g1: {GM1}, %c: i1) {{\n\
         %a = memref.alloc() : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%a : {UB})\n\
         %r = scf.if %c -> ({UB}) {{\n\
         scf.yield %a : {UB}\n\
         }} else {{\n\
         %b = memref.alloc() : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%b : {UB})\n\
         {allocs}{parts}{ys}\
         scf.yield {prev} : {UB}\n\
         }}\n\
         hivm.hir.store ins(%a : {UB}) outs(%o : {GM})\n\
         hivm.hir.store ins(%r : {UB}) outs(%o : {GM})\n\
         return\n\
         }}\n"
    )
}

fn allocs(m: &Module) -> (OpId, Vec<ValueId>) {
    let func = m
        .walk(m.top())
        .into_iter()
        .find(|&o| m.op(o).is("func.func"))
        .unwrap();
    let allocs = m
        .walk(func)
        .into_iter()
        .filter(|&o| m.op(o).is("memref.alloc"))
        .map(|o| m.op(o).results()[0])
        .collect();
    (func, allocs)
}

/// With 6 part writers the group's run stays within the bound and finds
/// the read; with 7 it gives up naming the bound, while the run over
/// `{%a, %b}` finds the read either way.
#[test]
fn the_run_says_which_bound_it_met() {
    assert_eq!(MAX_STATES, 512);
    for (n, gives_up) in [(6, false), (7, true)] {
        let m = parse_module(&program(n), &ParseOptions::default()).expect("reads");
        let (func, v) = allocs(&m);
        let group = bad_reads(&m, func, &v);
        assert_eq!(group.gave_up, gives_up.then_some(GaveUp::States), "{n}");
        assert_eq!(group.across.is_some(), !gives_up, "{n}");
        let pair = bad_reads(&m, func, &v[..2]).across.expect("the read of %a");
        assert_eq!(
            (pair.wanted, pair.found, m.op(pair.op).loc.line),
            (v[0], v[1], 11 + 10 * n as u32)
        );
    }
}

/// Both planners place them all apart on either side of the bound (and
/// the independent check accepts it); past it a warning names the
/// function and the bound. Before (where the coarser run of then met the
/// bound already at 6), the merge was kept and the check refused it:
/// "internal error: the plan failed its independent check", exit 3.
#[test]
fn past_the_bound_the_planner_plans_apart_and_says_so() {
    for n in [6, 7] {
        for planner in [Planner::Bishengir, Planner::Optimal] {
            let req = PlanRequest {
                target: Some("Ascend910B1".into()),
                options: Options {
                    planner,
                    ..Options::default()
                },
            };
            let out = plan_text(&program(n), &req).unwrap_or_else(|f| {
                panic!(
                    "{n} {planner:?}: {:?}",
                    f.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
                )
            });
            let addrs: Vec<Vec<u64>> = out.functions[0].spaces[0]
                .buffers
                .iter()
                .map(|b| b.offsets.clone())
                .collect();
            let apart: Vec<Vec<u64>> = (0..n as u64 + 2).map(|k| vec![64 * k]).collect();
            assert_eq!(addrs, apart, "{n} {planner:?}");
            let warned: Vec<&str> = out
                .warnings
                .iter()
                .map(|d| d.message.as_str())
                .filter(|w| w.contains("gave up"))
                .collect();
            if n == 6 {
                assert_eq!(warned, Vec::<&str>::new(), "{planner:?}");
            } else {
                assert_eq!(
                    warned,
                    [
                        "@bound: the check that merged buffers keep every read gave up on the \
                      buffers allocated at 2:1, 7:1, 9:1, 10:1, 11:1, 12:1, 13:1, 14:1, 15:1: \
                      more than 512 abstract states at one \
                      program point (MAX_STATES); they are planned apart instead of at one \
                      address as PlanMemory merges them (more bytes, no read unproven)"
                    ],
                    "{planner:?}"
                );
            }
            let again = parse_module(&out.text, &ParseOptions::default()).expect("reads back");
            assert_eq!(check_module(&again, &|_| None), Vec::new(), "{planner:?}");
        }
    }
}
