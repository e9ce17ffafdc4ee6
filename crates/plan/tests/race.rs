//! The portfolio's race on the fit question: pacing the exact member
//! behind a MiniMalloc member close to a fit changes when work happens,
//! never what is found.

use tilemem_plan::gen::random_intervals;
use tilemem_plan::{lower_bound, solve, validate, Budget, Goal, SolverKind};

/// Random intervals at 4 % slack (where the MiniMalloc member takes the
/// lead) give the same bytes and the same winner on one and two threads
/// under a node limit, for the portfolio and for `auto`.
#[test]
fn paced_fit_gives_the_same_bytes_with_any_number_of_threads() {
    // Seed 3: 1,173 buffers, small enough for a debug build.
    let mut p = random_intervals(3);
    let lb = lower_bound(&p);
    p.capacity = Some(lb + lb / 25);
    for kind in [SolverKind::Portfolio, SolverKind::Auto] {
        let budget = Budget::default()
            .with_time_limit(None)
            .with_node_limit(Some(400_000))
            .with_goal(Goal::Fit);
        let one = solve(&p, kind, &budget.with_threads(Some(1))).unwrap();
        let two = solve(&p, kind, &budget.with_threads(Some(2))).unwrap();
        assert_eq!(one.solution, two.solution, "{kind}");
        assert_eq!(one.solver, two.solver, "{kind}");
        assert_eq!(one.proven_infeasible, two.proven_infeasible, "{kind}");
        if let Some(s) = &one.solution {
            validate(&p, s).unwrap();
            assert!(s.height(&p) <= lb + lb / 25, "{kind}: above the capacity");
        }
        eprintln!("{kind}: {} by {}", one.height, one.solver);
    }
}
