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
    // (a unit per placed buffer, plus one per 64 obstacles met).
    for (kind, half) in [
        (SolverKind::FirstFit, 2_000),
        (SolverKind::BestFit, 2_000),
        (SolverKind::Handoff, 2_000),
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
fn a_pass_cut_before_any_buffer_still_reuses_memory() {
    let p = large_trace(3, 500);
    let full = Budget::default().with_time_limit(None);
    let cut = solve(&p, SolverKind::FirstFit, &full.with_node_limit(Some(0))).unwrap();
    let sol = cut.solution.as_ref().expect("a placement");
    assert!(validate(&p, sol).is_ok());
    assert!(cut.cut_short);
    // Nothing placed: every buffer goes on the skyline of its lifetime,
    // which reuses memory across time as the stack of all cannot.
    let bump = bump_height(&full, &p);
    assert!(
        cut.height * 4 < bump,
        "skyline {} vs bump {bump}",
        cut.height
    );
}

/// A pass cut at a tenth of its work ends near the bound, not at the
/// height of a stack of the nine tenths left.
#[test]
fn a_pass_cut_early_stays_near_the_bound() {
    let p = large_trace(1, 20_000);
    let full = Budget::default().with_time_limit(None);
    for kind in [SolverKind::FirstFit, SolverKind::Handoff] {
        let cut = solve(&p, kind, &full.with_node_limit(Some(2_000))).unwrap();
        assert!(cut.cut_short, "{kind:?}");
        let sol = cut.solution.as_ref().expect("a placement");
        assert!(validate(&p, sol).is_ok(), "{kind:?}");
        eprintln!("{kind:?}: gap {:.2} %", cut.gap_percent());
        assert!(cut.gap_percent() < 25.0, "{kind:?}: {}", cut.gap_percent());
    }
}
