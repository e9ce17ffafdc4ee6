//! A greedy pass the budget cuts short keeps the buffers it placed and
//! stacks the rest, instead of falling back to bump allocation (every
//! buffer apart from every other). The cut is made by a node limit, so the
//! test does not depend on the machine's speed.

use tilemem_plan::gen::large_trace;
use tilemem_plan::{solve, validate, Budget, SolverKind};

/// Height of the bump placement: every buffer stacked, no reuse.
fn bump_height(kind_budget: &Budget, p: &tilemem_plan::Problem) -> u64 {
    solve(p, SolverKind::Sequential, kind_budget)
        .unwrap()
        .height
}

#[test]
fn a_greedy_pass_cut_half_way_keeps_its_work() {
    let p = large_trace(7, 4_000);
    let full = Budget::default().with_time_limit(None);
    let bump = bump_height(&full, &p);
    // About half of each pass's work units, so the pass stops midway
    // (dsa-rp charges for every placed buffer on every candidate).
    for (kind, half) in [
        (SolverKind::FirstFit, 2_000),
        (SolverKind::BestFit, 2_000),
        (SolverKind::DsaRp, 150_000),
        (SolverKind::Auto, 2_000),
    ] {
        let whole = solve(&p, kind, &full).unwrap();
        assert!(!whole.cut_short, "{kind:?}: the uncut pass completes");
        let cut = solve(&p, kind, &full.with_node_limit(Some(half))).unwrap();
        assert!(cut.cut_short, "{kind:?}: the node limit cuts the pass");
        let sol = cut.solution.as_ref().expect("a placement");
        assert!(
            validate(&p, sol).is_ok(),
            "{kind:?}: the completion is valid"
        );
        assert!(cut.height >= whole.height.min(cut.lower_bound));
        // The stacked rest are the smaller half, far below stacking all.
        assert!(
            cut.height * 4 < bump,
            "{kind:?}: cut height {} vs bump {bump} (uncut {})",
            cut.height,
            whole.height
        );
        eprintln!(
            "{kind:?}: lb {} uncut {} cut {} bump {bump}",
            cut.lower_bound, whole.height, cut.height
        );
        // Same budget, same bytes.
        let again = solve(&p, kind, &full.with_node_limit(Some(half))).unwrap();
        assert_eq!(again.solution.as_ref(), Some(sol));
    }
}

#[test]
fn a_pass_cut_before_any_buffer_is_the_stack_of_all() {
    let p = large_trace(3, 500);
    let full = Budget::default().with_time_limit(None);
    let cut = solve(&p, SolverKind::FirstFit, &full.with_node_limit(Some(0))).unwrap();
    let sol = cut.solution.as_ref().expect("a placement");
    assert!(validate(&p, sol).is_ok());
    assert!(cut.cut_short);
    // Nothing placed: the completion stacks every buffer in size order.
    assert_eq!(cut.height, bump_height(&full, &p));
}
