//! The carried-buffer check over every loop form of the corpus: `scf.for`
//! with constant and with dynamic bounds (which may run no trip),
//! `scf.while`, loops nested in loops, `scf.forall`. A loop that may run
//! no trip adds the state of no trip to those of one or more: it never
//! hides a read of a value written in the loop. Each form carries `%x`
//! into the loop, which yields `%y`; the body stores `%x` itself (bad
//! from the second trip on, once `%y` wrote the shared bytes: planned
//! apart), or only the iteration argument (the in-place shape the
//! reference merges: one address; but when the loop is nested in another,
//! the next outer trip starts the inner loop from `%x` again, whose bytes
//! `%y` took: apart).

use tilemem_mlir::memplan::{plan_text, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;
use tilemem_mlir::plan_check::check_module;

const UB: &str = "memref<16xf32, #hivm.address_space<ub>>";
const GM: &str = "memref<16xf32, #hivm.address_space<gm>>";

/// `(name, open, close)`: a loop carrying `%x` as `%a` whose result is
/// `%r`; `close` yields `%y`.
fn forms() -> Vec<(&'static str, String, String)> {
    let for_loop = |lb: &str, ub: &str| {
        format!("%r = scf.for %i = {lb} to {ub} step %c1 iter_args(%a = %x) -> ({UB}) {{")
    };
    let yield_y = format!("scf.yield %y : {UB}\n}}");
    vec![
        ("constant", for_loop("%c0", "%c3"), yield_y.clone()),
        ("dynamic", for_loop("%c0", "%n"), yield_y.clone()),
        ("dynamic_lower", for_loop("%n", "%c3"), yield_y.clone()),
        (
            "while",
            format!(
                "%r = scf.while (%w = %x) : ({UB}) -> ({UB}) {{\n\
                 scf.condition(%c) %w : {UB}\n}} do {{\n^bb0(%a: {UB}):"
            ),
            yield_y.clone(),
        ),
        (
            "nested_in_dynamic",
            format!(
                "scf.for %k = %c0 to %n step %c1 {{\n{}",
                for_loop("%c0", "%n")
            ),
            format!("{yield_y}\n}}"),
        ),
        (
            "nested_in_while",
            format!(
                "scf.while () : () -> () {{\nscf.condition(%c)\n}} do {{\n{}",
                for_loop("%c0", "%n")
            ),
            format!("{yield_y}\nscf.yield\n}}"),
        ),
        (
            "nested_in_forall",
            format!("scf.forall (%k) in (2) {{\n{}", for_loop("%c0", "%n")),
            format!("{yield_y}\n}}"),
        ),
    ]
}

fn program(open: &str, close: &str, read_x: bool) -> String {
    let read = if read_x { "%x" } else { "%a" };
    format!(
        "func.func @f(%g: {GM}, %o: {GM}, %n: index, %c: i1) {{\n\
         %c0 = arith.constant 0 : index\n\
         %c1 = arith.constant 1 : index\n\
         %c3 = arith.constant 3 : index\n\
         %x = memref.alloc() : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%x : {UB})\n\
         %y = memref.alloc() : {UB}\n\
         {open}\n\
         hivm.hir.store ins({read} : {UB}) outs(%o : {GM})\n\
         hivm.hir.load ins(%g : {GM}) outs(%y : {UB})\n\
         {close}\n\
         return\n\
         }}\n"
    )
}

fn addrs(text: &str, planner: Planner) -> Vec<u64> {
    let req = PlanRequest {
        target: Some("Ascend910B1".into()),
        options: Options {
            planner,
            ..Options::default()
        },
    };
    let out = plan_text(text, &req).unwrap_or_else(|f| {
        panic!(
            "{planner:?}: {:?}\n{text}",
            f.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    });
    let again = parse_module(&out.text, &ParseOptions::default()).expect("reads back");
    assert_eq!(check_module(&again, &|_| None), Vec::new(), "{planner:?}");
    out.functions[0].spaces[0]
        .buffers
        .iter()
        .map(|b| b.offsets[0])
        .collect()
}

/// Every form: `%x` read in the body after a trip wrote `%y` is planned
/// apart; read only through the iteration argument, one address, unless
/// an outer loop runs the carrying loop again.
#[test]
fn every_loop_form_judges_the_reads_of_its_trips() {
    for (name, open, close) in forms() {
        for planner in [Planner::Bishengir, Planner::Optimal] {
            assert_eq!(
                addrs(&program(&open, &close, true), planner),
                [0, 64],
                "{name} {planner:?}"
            );
            let merged = if name.starts_with("nested") { 64 } else { 0 };
            assert_eq!(
                addrs(&program(&open, &close, false), planner),
                [0, merged],
                "{name} {planner:?}"
            );
        }
    }
}
