//! The shared DSA problems, when present next to the repository: every
//! placement validates, and the known-good cases keep reaching their figures.

// A skip is written to stderr directly (`writeln!`), not with `eprintln!`,
// which the test harness captures: `cargo test` shows it in every run.
use std::io::Write as _;
use std::path::PathBuf;

use tilemem_plan::bench::{load, problem_files};
use tilemem_plan::{solve, validate, Budget, Goal, SolverKind};

/// Cases that fit their capacity (or reach the lower bound) within
/// [`WORK`].
const KNOWN_GOOD: [&str; 8] = [
    "A.1048576",
    "B.1048576",
    "C.1048576",
    "D.1048576",
    "E.1048576",
    "F.1048576",
    "example.12",
    "G_1",
];

/// Units of work per problem (search nodes, placements, obstacles; see
/// `Budget::node_limit`): a budget that stops every solve at the same
/// point on every machine, under any load and in unoptimised builds, so
/// the figures below do not depend on the clock. The hardest known-good
/// cases (B, E, F) fit with under 100,000.
const WORK: u64 = 1_000_000;

#[test]
fn shared_problems() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/dsa"
    ));
    let Ok(files) = problem_files(&dir) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_problems: {} not found",
            dir.display()
        );
        return;
    };
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(WORK))
        .with_goal(Goal::Fit);
    let (mut placed, mut total) = (0, 0);
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        if name.starts_with("pangu") {
            continue; // large; measured by the bench, not here
        }
        let p = load(&f, None).unwrap();
        total += 1;
        let out = solve(&p, SolverKind::Auto, &budget).unwrap();
        if let Some(s) = &out.solution {
            assert!(validate(&p, s).is_ok(), "{name}: invalid placement");
            placed += 1;
        }
        if KNOWN_GOOD.contains(&name.as_str()) {
            assert!(out.solution.is_some(), "{name}: no longer placed");
            if p.capacity.is_none() {
                assert_eq!(out.height, out.lower_bound, "{name}");
            }
        }
    }
    println!("shared DSA problems placed: {placed} of {total}");
}
