//! Exact search on generated perfect packings: a placement at the lower
//! bound always exists, so the search must never claim infeasibility.

use std::time::Duration;

use tilemem_plan::gen::perfect_packing;
use tilemem_plan::{solve, validate, Budget, Goal, SolverKind};

#[test]
fn exact_never_refutes_a_perfect_packing() {
    let cases: u64 = std::env::var("PERFECT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_secs(2)))
        .with_goal(Goal::Fit);
    let mut solved = 0;
    for seed in 0..cases {
        let p = perfect_packing(seed, 6 + seed % 10, 8 + seed % 8, 1, 5);
        let out = solve(&p, SolverKind::Exact, &budget).unwrap();
        assert!(
            !out.proven_infeasible,
            "seed {seed}: refuted a feasible problem\n{p:?}"
        );
        if let Some(s) = &out.solution {
            assert!(validate(&p, s).is_ok());
            solved += 1;
        }
    }
    println!("solved {solved} of {cases}");
}
