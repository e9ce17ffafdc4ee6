//! The carried-buffer check (`analysis::merged_reads`) at its bounds.
//!
//! Past `MAX_STATES` abstract states at one program point the run gives
//! up. It used to find nothing there, silently: PlanMemory, whose run
//! over a group of three merged buffers gave up, kept the reference's
//! merge, and the placement check, whose run over two of them did not
//! give up, found a read of `%a` after `%b` wrote the shared bytes:
//! "internal error: the plan failed its independent check" (exit 3) on a
//! program that plans correctly with the three apart. Now the run says
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

/// `%a` loaded; on the else path `%b` loaded, then `n` `scf.if`s each
/// loading one element of `%cc` (2^n ways the bytes may be, for a run
/// that follows `%cc`), and `%b` or `%cc` yielded; all three are one
/// carried memory to PlanMemory; `%a` is stored after (line 17 + 4n).
fn program(n: usize) -> String {
    let mut parts = String::new();
    for i in 0..n {
        let p = format!("memref<1xf32, strided<[1], offset: {i}>, #hivm.address_space<ub>>");
        parts.push_str(&format!(
            "scf.if %c {{\n%s{i} = memref.subview %cc[{i}] [1] [1] : {UB} to {p}\n\
             hivm.hir.load ins(%g1 : {GM1}) outs(%s{i} : {p})\n}}\n"
        ));
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
         %cc = memref.alloc() : {UB}\n\
         {parts}\
         %r2 = scf.if %c -> ({UB}) {{\n\
         scf.yield %b : {UB}\n\
         }} else {{\n\
         scf.yield %cc : {UB}\n\
         }}\n\
         scf.yield %r2 : {UB}\n\
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

/// With 7 element writes the group's run stays within the bound (after
/// the outer `scf.if`, 2 * 2^7 + 1 = 257 states) and finds the read; with
/// 8 (513 states) it gives up naming the bound, while the run over
/// `{%a, %b}` finds the read either way.
#[test]
fn the_run_says_which_bound_it_met() {
    assert_eq!(MAX_STATES, 512);
    for (n, gives_up) in [(7, false), (8, true)] {
        let m = parse_module(&program(n), &ParseOptions::default()).expect("reads");
        let (func, v) = allocs(&m);
        let group = bad_reads(&m, func, &v);
        assert_eq!(group.gave_up, gives_up.then_some(GaveUp::States), "{n}");
        assert_eq!(group.across.is_some(), !gives_up, "{n}");
        let pair = bad_reads(&m, func, &v[..2]).across.expect("the read of %a");
        assert_eq!(
            (pair.wanted, pair.found, m.op(pair.op).loc.line),
            (v[0], v[1], 17 + 4 * n as u32)
        );
    }
}

/// Both planners place the three apart on either side of the bound (and
/// the independent check accepts it); past it a warning names the
/// function and the bound. Before: past the bound, the merge was kept and
/// the check refused it as an internal error.
#[test]
fn past_the_bound_the_planner_plans_apart_and_says_so() {
    for n in [7, 8] {
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
            assert_eq!(addrs, [vec![0], vec![64], vec![128]], "{n} {planner:?}");
            let warned: Vec<&str> = out
                .warnings
                .iter()
                .map(|d| d.message.as_str())
                .filter(|w| w.contains("gave up"))
                .collect();
            if n == 7 {
                assert_eq!(warned, Vec::<&str>::new(), "{planner:?}");
            } else {
                assert_eq!(
                    warned,
                    [
                        "@bound: the check that merged buffers keep every read gave up on the \
                      buffers allocated at 2:1, 7:1, 9:1: more than 512 abstract states at one \
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
