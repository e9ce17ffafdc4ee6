//! Exact search on generated perfect packings: a placement at the lower
//! bound always exists, so the search must never claim infeasibility.

use tilemem_plan::gen::{cut_packing, perfect_packing};
use tilemem_plan::{solve, validate, Budget, Goal, SolverKind};

#[test]
fn exact_never_refutes_a_perfect_packing() {
    let cases: u64 = std::env::var("PERFECT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(200_000))
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

/// Cut packings with slack (the shape of the hard challenging instances):
/// the search must place each at its capacity, which is also the lower
/// bound. The work budget is generous; these need a small part of it.
#[test]
fn exact_places_cut_packings_with_slack_at_capacity() {
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(5_000_000))
        .with_goal(Goal::Fit);
    for seed in 0..12 {
        let p = cut_packing(seed, 120, 30, 256, 256, 64);
        let out = solve(&p, SolverKind::Exact, &budget).unwrap();
        let s = out
            .solution
            .unwrap_or_else(|| panic!("seed {seed}: no placement within the capacity"));
        assert!(validate(&p, &s).is_ok());
        assert_eq!(out.height, p.capacity.unwrap(), "seed {seed}");
        assert_eq!(out.lower_bound, p.capacity.unwrap(), "seed {seed}");
    }
}
