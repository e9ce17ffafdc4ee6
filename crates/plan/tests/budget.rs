//! Work limits: a search cut by its node budget ends at the same point on
//! every run, so its placement is reproducible.

use tilemem_plan::gen::cut_packing;
use tilemem_plan::{solve, validate, Budget, SolverKind};

#[test]
fn a_node_limit_makes_an_unfinished_search_reproducible() {
    // One of the generated cut packings whose bound is hard to reach.
    let mut p = cut_packing(2004, 300, 30, 1024, 1024, 1024);
    p.capacity = None;
    let greedy = solve(&p, SolverKind::FirstFit, &Budget::default()).unwrap();
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(3_000));
    let a = solve(&p, SolverKind::Exact, &budget).unwrap();
    let b = solve(&p, SolverKind::Exact, &budget).unwrap();
    let sa = a.solution.expect("a placement");
    assert!(validate(&p, &sa).is_ok());
    assert_eq!(Some(&sa), b.solution.as_ref());
    assert!(a.height <= greedy.height);
    // 3,000 nodes do not settle this problem; a larger budget does no worse.
    assert!(!a.proven_optimal);
    let more = solve(
        &p,
        SolverKind::Exact,
        &budget.with_node_limit(Some(300_000)),
    )
    .unwrap();
    assert!(more.height <= a.height);
}

#[test]
fn a_spent_node_budget_keeps_the_incumbent_unproven() {
    let mut p = cut_packing(3, 150, 30, 256, 256, 64);
    p.capacity = None;
    let budget = Budget::default().with_node_limit(Some(0));
    let out = solve(&p, SolverKind::Exact, &budget).unwrap();
    assert!(validate(&p, out.solution.as_ref().expect("greedy placement")).is_ok());
    if out.height > out.lower_bound {
        assert!(!out.proven_optimal);
    }
}
