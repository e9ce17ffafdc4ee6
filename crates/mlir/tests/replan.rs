//! Planning planned IR is a fixed point: `-hivm-plan-memory` (and its
//! register-based variant and the optimal planner) on its own output
//! changes nothing, on every program of the repository's examples and
//! plan-memory lit tests that plans.
//!
//! The pass leaves a function it planned already (its buffers all
//! `hivm.hir.pointer_cast`s, no allocation left) as it is; the reference
//! never re-plans in bishengir's pipeline and would reject the first
//! pointer cast as an unknown op touching a local buffer.

use std::path::{Path, PathBuf};

use tilemem_mlir::parse::{parse_module, split_input, ParseOptions};
use tilemem_mlir::pass::{run_pipeline, Pass};
use tilemem_mlir::print::print_module;

fn pass(name: &str, options: &str) -> Box<dyn Pass> {
    let mut p = tilemem_mlir::passes::lookup(name).expect("a registered pass");
    if !options.is_empty() {
        p.set_options(options).expect("valid options");
    }
    p
}

/// The module printed after `passes`, or `None` when they fail.
fn run(text: &str, passes: &[Box<dyn Pass>]) -> Option<String> {
    let mut m = parse_module(text, &ParseOptions::default()).ok()?;
    let (_, ok) = run_pipeline(passes, &mut m);
    ok.then(|| print_module(&m))
}

fn mlir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn planning_planned_ir_again_changes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = mlir_files(&root.join("examples/mlir"));
    files.extend(mlir_files(&root.join("tests/lit/plan-memory")));
    let variants = [
        ("hivm-plan-memory", "", "Ascend910B1"),
        ("hivm-plan-memory", "planner=optimal", "Ascend910B1"),
        ("hivm-plan-memory-regbase", "", "Ascend950PR_950z"),
    ];
    let (mut planned, mut pointer_casts) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (k, chunk) in split_input(&text).iter().enumerate() {
            for (name, options, chip) in variants {
                let first = [
                    pass("hacc-append-device-spec", &format!("target={chip}")),
                    pass(name, options),
                ];
                let Some(once) = run(chunk.text, &first) else {
                    continue;
                };
                planned += 1;
                pointer_casts += usize::from(once.contains("hivm.hir.pointer_cast"));
                let twice = run(&once, &[pass(name, options)]).unwrap_or_else(|| {
                    panic!(
                        "{} chunk {k}, {name} {options}: planned IR does not plan again\n{once}",
                        file.display()
                    )
                });
                assert_eq!(
                    twice,
                    once,
                    "{} chunk {k}, {name} {options}: planning again changed the module",
                    file.display()
                );
            }
        }
    }
    // The programs plan, and most of them have buffers to place.
    assert!(planned > 40, "only {planned} plans");
    assert!(
        pointer_casts > 30,
        "only {pointer_casts} plans placed buffers"
    );
}
