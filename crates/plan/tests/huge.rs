//! `auto` above 10,000 buffers where the peak-window repair cannot open
//! the peak (more buffers live there than a repair window may hold): the
//! whole-problem search runs after the repair chain when the time limit
//! covers its expected cost. Under a work budget that ends the run before
//! the clock does, its result is the same on every machine and with any
//! number of threads, valid, and never above greedy's.

use std::time::Duration;

use tilemem_plan::{lower_bound, solve, validate, Budget, Buffer, Problem, SolverKind};

/// Five buffers that first-fit and best-fit in size order stack one unit
/// too high (see `tests/trace.rs`): sizes times `scale`, lifetimes from
/// `at` on. Height 8 units where 7 suffice.
fn push_gadget(p: &mut Problem, scale: u64, at: u64) {
    for (size, lower, upper) in [(3, 2, 3), (2, 3, 7), (4, 1, 4), (2, 5, 9), (3, 5, 6)] {
        p.push(Buffer::new(size * scale, at + lower, at + upper));
    }
}

/// The gadget (unit 1,000 bytes) at instants 100..109, under 4,100
/// one-byte buffers live from 0 to 150 (too many for a repair window: it
/// may hold 4,000), and 6,000 one-byte buffers of one instant each after
/// them: 10,105 buffers.
fn crowded_gadget() -> Problem {
    let mut p = Problem::new();
    push_gadget(&mut p, 1_000, 100);
    for _ in 0..4_100 {
        p.push(Buffer::new(1, 0, 150));
    }
    for k in 0..6_000 {
        p.push(Buffer::new(1, 200 + k, 201 + k));
    }
    p
}

#[test]
fn the_search_after_the_chain_lowers_a_crowded_peak_on_a_work_budget() {
    let p = crowded_gadget();
    assert!(p.len() > 10_000);
    let lb = lower_bound(&p);
    assert_eq!(lb, 7_000 + 4_100);
    let ff = solve(&p, SolverKind::FirstFit, &Budget::default()).unwrap();
    let bf = solve(&p, SolverKind::BestFit, &Budget::default()).unwrap();
    assert_eq!(ff.height.min(bf.height), 8_000 + 4_100, "greedy misses");
    // A minute covers the search's expected cost at this size (3.5 s); the
    // clock never advances, so the work limit, not the machine, ends the
    // run.
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_secs(60)))
        .with_clock(frozen)
        .with_node_limit(Some(2_000_000));
    let one = solve(&p, SolverKind::Auto, &budget.with_threads(Some(1))).unwrap();
    let two = solve(&p, SolverKind::Auto, &budget.with_threads(Some(2))).unwrap();
    assert_eq!(one.solution, two.solution, "same bytes with any threads");
    assert_eq!(one.solver, two.solver);
    for out in [&one, &two] {
        let sol = out.solution.as_ref().expect("no capacity: always placed");
        assert_eq!(validate(&p, sol).expect("valid").height, out.height);
        assert!(out.height <= ff.height.min(bf.height));
    }
    eprintln!(
        "auto {} by {} (bound {lb}, greedy {}), {} units, proven {}",
        one.height,
        one.solver,
        ff.height.min(bf.height),
        one.work,
        one.proven_optimal
    );
    assert_eq!((one.height, one.solver), (lb, "auto/exact"));
    assert!(one.proven_optimal);
    // Without a time limit the chain runs alone, as before: the repair
    // cannot open the peak, and best-fit stacks the gadget as first-fit.
    let alone = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(2_000_000));
    let chain = solve(&p, SolverKind::Auto, &alone).unwrap();
    let sol = chain.solution.as_ref().expect("no capacity: always placed");
    assert_eq!(validate(&p, sol).expect("valid").height, chain.height);
    assert_eq!((chain.height, chain.solver), (8_000 + 4_100, "auto/greedy"));
    assert_eq!(
        chain.stopped_by,
        Some("the next repair window would hold too many buffers")
    );
}

/// A clock that never advances.
fn frozen() -> Duration {
    Duration::ZERO
}
