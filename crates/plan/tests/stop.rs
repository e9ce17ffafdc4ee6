//! A stop request (`Budget::with_stop`, set by the CLI on `SIGINT`) ends
//! every solver like a spent budget: at once, with a valid placement.

use std::sync::atomic::{AtomicBool, Ordering};

use tilemem_plan::{solve, validate, Budget, Buffer, Problem, SolverKind};

/// 2,000 buffers with one shared lifetime: far too many for any search to
/// finish without a budget.
fn all_colive() -> Problem {
    let mut p = Problem::new();
    for i in 0..2000u64 {
        p.push(Buffer::new(32 + (i * 7919) % 4096, 0, 10).with_align(32));
    }
    p
}

#[test]
fn a_stop_request_ends_every_solver_with_a_valid_placement() {
    static STOP: AtomicBool = AtomicBool::new(false);
    STOP.store(true, Ordering::Relaxed);
    let p = all_colive();
    // No time or node limit: only the stop request can end these.
    let budget = Budget::default().with_time_limit(None).with_stop(&STOP);
    for kind in SolverKind::ALL {
        let out = solve(&p, kind, &budget).unwrap();
        let sol = out
            .solution
            .unwrap_or_else(|| panic!("{kind:?}: no placement"));
        assert!(validate(&p, &sol).is_ok(), "{kind:?}");
        // `sequential` is one linear bump pass with no search to cut: it
        // completes; every other solver reports the stop as a cut.
        assert_eq!(out.cut_short, kind != SolverKind::Sequential, "{kind:?}");
    }
}
