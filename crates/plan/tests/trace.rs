//! The peak-window repair of `auto` (module `solve::trace`): on problems
//! where greedy misses the lower bound, `auto` must return a valid
//! placement no higher than either greedy one, the same bytes on every run,
//! and the optimum where the peak's neighbourhood decides it.

// A skip is written to stderr directly, past the harness's output capture.
use std::io::Write as _;
use tilemem_plan::gen::large_trace;
use tilemem_plan::{lower_bound, solve, validate, Budget, Buffer, Outcome, Problem, SolverKind};

/// Five buffers that greedy in size order stacks one unit too high.
///
/// Size order places C (4, live 1..4) at 0, then A (3, live 2..3) on top of
/// it at 4, E (3, live 5..6) at 0, B (2, live 3..7) at 4 (above C and E)
/// and D (2, live 5..9) at 6, above B: height 8. Best-fit does the same.
/// Putting B at 5 (above C, which dies at 4) leaves the bottom to E (at 2)
/// and D (at 0): height 7, the lower bound (live sizes 7 at instants 2 and
/// 5).
const GADGET: [(u64, u64, u64); 5] = [(3, 2, 3), (2, 3, 7), (4, 1, 4), (2, 5, 9), (3, 5, 6)];

/// The gadget with its sizes times `scale`, shifted to start at `at`.
fn push_gadget(p: &mut Problem, scale: u64, at: u64) {
    for (size, lower, upper) in GADGET {
        p.push(Buffer::new(size * scale, at + lower, at + upper));
    }
}

/// A work limit, not a clock: the repair then gives the same result on a
/// loaded machine and in unoptimised builds.
fn budget() -> Budget {
    Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(50_000_000))
}

fn run(p: &Problem, kind: SolverKind) -> Outcome {
    let out = solve(p, kind, &budget()).expect("well-formed");
    let sol = out.solution.as_ref().expect("no capacity: always placed");
    let stats = validate(p, sol).expect("valid placement");
    assert_eq!(stats.height, out.height);
    out
}

/// The gadget plus 200 unit buffers, one per instant from 100 on: the
/// first repair window (the 2 buffers live at the peak plus 32) holds the
/// gadget and 29 of them, so the repair, not the whole-problem search,
/// finds the optimum.
#[test]
fn repair_finds_the_optimum_greedy_misses() {
    let mut p = Problem::new();
    push_gadget(&mut p, 1, 0);
    for k in 0..200 {
        p.push(Buffer::new(1, 100 + k, 101 + k));
    }
    assert_eq!(lower_bound(&p), 7);
    assert_eq!(run(&p, SolverKind::FirstFit).height, 8);
    assert_eq!(run(&p, SolverKind::BestFit).height, 8);
    let out = run(&p, SolverKind::Auto);
    assert_eq!(out.height, 7);
    assert!(out.proven_optimal);
    assert_eq!(out.solver, "auto/repair");
    let offsets = &out.solution.as_ref().expect("placed").offsets;
    // The gadget as the doc above places it; every filler at 0.
    assert_eq!(&offsets[..5], &[4, 5, 0, 0, 2]);
    assert!(offsets[5..].iter().all(|&o| o == 0));
}

/// A window proven optimal above the lower bound proves the placement
/// optimal: no whole-problem search runs.
#[test]
fn a_proven_window_proves_the_placement_optimal() {
    // Two 1-byte buffers aligned to 4 live together: every placement is at
    // least 5 high; the bound is 2 (the unaligned fillers make the smallest
    // alignment 1).
    let mut p = Problem::new();
    p.push(Buffer::new(1, 0, 2).with_align(4));
    p.push(Buffer::new(1, 0, 2).with_align(4));
    for k in 0..200 {
        p.push(Buffer::new(1, 100 + k, 101 + k));
    }
    let out = run(&p, SolverKind::Auto);
    assert_eq!((out.lower_bound, out.height), (2, 5));
    assert!(out.proven_optimal);
    assert_eq!(out.solver, "auto/greedy");
}

/// A generated trace above 10,000 buffers (the size where `auto` runs no
/// exact search) with a scaled gadget in the middle that makes its peak.
fn trace_with_gadget(seed: u64, n: usize) -> Problem {
    let mut p = large_trace(seed, n);
    let mid = n as u64 / 2;
    push_gadget(&mut p, 1 << 22, mid);
    p
}

#[test]
fn large_traces_are_repaired_valid_and_deterministic() {
    let mut totals = (0u64, 0u64, 0u64);
    for seed in 1..=2 {
        let p = trace_with_gadget(seed, 12_000);
        let lb = lower_bound(&p);
        let ff = run(&p, SolverKind::FirstFit).height;
        let bf = run(&p, SolverKind::BestFit).height;
        let a = run(&p, SolverKind::Auto);
        let b = run(&p, SolverKind::Auto);
        assert_eq!(a.solution, b.solution, "seed {seed}: same bytes every run");
        assert!(a.height <= ff.min(bf), "seed {seed}: never above greedy");
        // Greedy stacks the gadget a scaled unit too high (tens of percent
        // above the bound); the repair solves the peak window at the bound.
        assert!(ff.min(bf) > lb + lb / 10, "seed {seed}: greedy misses");
        assert_eq!(a.height, lb, "seed {seed}");
        assert_eq!(a.solver, "auto/repair");
        totals.0 += lb;
        totals.1 += ff.min(bf);
        totals.2 += a.height;
    }
    println!("bound {} greedy {} auto {}", totals.0, totals.1, totals.2);
}

/// A generated trace without a planted gadget: greedy misses the bound by a
/// little, the repair closes the gap.
#[test]
fn plain_large_trace_is_never_raised() {
    let p = large_trace(3, 12_000);
    let lb = lower_bound(&p);
    let ff = run(&p, SolverKind::FirstFit).height;
    let bf = run(&p, SolverKind::BestFit).height;
    let out = run(&p, SolverKind::Auto);
    assert!(ff.min(bf) > lb);
    assert_eq!(out.height, lb);
    assert_eq!(out.solver, "auto/repair");
    println!(
        "bound {lb} first-fit {ff} best-fit {bf} auto {} ({})",
        out.height, out.solver
    );
}

/// Traces greedy already places at the bound are returned as greedy placed
/// them: the repair never runs in front of a finished placement.
#[test]
fn traces_at_the_bound_skip_the_repair() {
    // 12,000 buffers, each live with its two neighbours only, sizes cycling
    // so that greedy stacks every pair at the bound.
    let mut p = Problem::new();
    for k in 0..12_000u64 {
        p.push(Buffer::new(1 + k % 7, k, k + 2));
    }
    let out = run(&p, SolverKind::Auto);
    assert_eq!(out.height, lower_bound(&p));
    assert_eq!(out.solver, "auto/greedy");
}

/// pangu_2.6B from the shared DSA traces, when present: `auto` places it
/// validly within 0.5 % of its lower bound (at the bound today). Release
/// builds only: unoptimised builds spend the repair's time budget on greedy.
#[test]
fn shared_pangu_within_half_a_percent() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/dsa/traces/pangu_2.6B.csv"
    );
    if cfg!(debug_assertions) {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (debug build): shared_pangu_within_half_a_percent: checked in release builds only"
        );
        return;
    }
    let Ok(p) = tilemem_plan::bench::load(std::path::Path::new(path), None) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_pangu_within_half_a_percent: {path} not found"
        );
        return;
    };
    let out = run(&p, SolverKind::Auto);
    println!(
        "pangu_2.6B: bound {} height {} ({:.3} %) by {}",
        out.lower_bound,
        out.height,
        out.gap_percent(),
        out.solver
    );
    assert!(out.height <= out.lower_bound + out.lower_bound / 200);
}

/// The traces the issue found stuck above their bound (62,000 buffers,
/// seeds 3 and 7): under a work budget, so the result does not depend on
/// the machine, `auto` reaches the bound and proves it.
#[test]
fn generated_traces_stuck_before_reach_their_bound() {
    for seed in [3, 7] {
        let p = large_trace(seed, 62_000);
        let out = run(&p, SolverKind::Auto);
        assert_eq!(out.height, out.lower_bound, "seed {seed}");
        assert!(out.proven_optimal, "seed {seed}");
        assert_eq!(out.solver, "auto/repair", "seed {seed}");
    }
}

/// A node limit cuts greedy, repair windows or zones at the same point
/// whatever the threads: the same bytes, always a valid placement.
#[test]
fn node_limited_repair_gives_the_same_bytes_with_any_threads() {
    let p = trace_with_gadget(1, 12_000);
    let lb = lower_bound(&p);
    let mut heights = Vec::new();
    for limit in [2_000, 14_000, 15_000, 15_500, 50_000_000] {
        let budget = Budget::default()
            .with_time_limit(None)
            .with_node_limit(Some(limit));
        let one = solve(&p, SolverKind::Auto, &budget.with_threads(Some(1))).unwrap();
        let two = solve(&p, SolverKind::Auto, &budget.with_threads(Some(2))).unwrap();
        assert_eq!(one.solution, two.solution, "limit {limit}");
        let sol = one.solution.as_ref().expect("no capacity: always placed");
        assert_eq!(validate(&p, sol).expect("valid").height, one.height);
        eprintln!(
            "limit {limit}: height {} (bound {lb}) cut {}",
            one.height, one.cut_short
        );
        // Only a budget that ends the work early leaves the bound unmet.
        assert!(one.cut_short || one.height == lb, "limit {limit}");
        heights.push((one.height, one.cut_short));
    }
    // The first budget cuts the greedy pass; the last suffices to repair
    // the gadget to the bound.
    assert!(heights[0].1 && heights[0].0 > lb, "{heights:?}");
    assert_eq!(heights[4], (lb, false), "{heights:?}");
}

/// A clock that advances one millisecond each time it is read.
fn ticking() -> std::time::Duration {
    use std::sync::atomic::{AtomicU64, Ordering};
    static READS: AtomicU64 = AtomicU64::new(0);
    std::time::Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed))
}

/// The time limit holds inside the repair: with a clock that runs out
/// after a few hundred readings, `auto` on a large trace returns a valid
/// placement, reported as cut short.
#[test]
fn an_injected_clock_ends_the_repair() {
    let p = trace_with_gadget(2, 12_000);
    let budget = Budget::default()
        .with_time_limit(Some(std::time::Duration::from_millis(60)))
        .with_clock(ticking);
    let out = solve(&p, SolverKind::Auto, &budget).unwrap();
    let sol = out.solution.as_ref().expect("a placement");
    assert_eq!(validate(&p, sol).expect("valid").height, out.height);
    assert!(out.cut_short);
}

/// Under a time limit `auto` above 10,000 buffers spends what the repair
/// and best-fit leave on first-fit and the repair in other orders, so the
/// limit, not the repair's stall rules, ends the run. Without a time limit
/// the run stops where the repair stops (its window would hold too many
/// buffers here); with one shorter than the whole-problem search's
/// expected cost at this size (about 5 s, so the search does not run; a
/// clock that never advances and a work limit of 500,000 units more end
/// the run, so the result is the same on every machine) the same work
/// runs first and then the other orders: valid, never higher, all the work
/// used.
#[test]
fn time_left_goes_to_other_orders() {
    let p = tilemem_plan::gen::training_step(1, 12_000);
    let work = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(50_000_000));
    let plain = solve(&p, SolverKind::Auto, &work).expect("well-formed");
    let work = work.with_node_limit(Some(plain.work + 500_000));
    let timed = work
        .with_time_limit(Some(std::time::Duration::from_secs(4)))
        .with_clock(|| std::time::Duration::ZERO);
    let out = solve(&p, SolverKind::Auto, &timed).expect("well-formed");
    let sol = out.solution.as_ref().expect("no capacity: always placed");
    assert_eq!(
        validate(&p, sol).expect("valid placement").height,
        out.height
    );
    assert!(!plain.proven_optimal, "an unproven case");
    assert_eq!(
        plain.stopped_by,
        Some("the next repair window would hold too many buffers")
    );
    assert!(out.height <= plain.height);
    assert!(out.work > plain.work, "the work left was used");
    assert!(out.proven_optimal || out.cut_short);
    println!(
        "bound {} plain {} ({}, {} units) orders {} ({}, {} units)",
        out.lower_bound, plain.height, plain.solver, plain.work, out.height, out.solver, out.work
    );
}

/// Why pangu_2.6B was reported both 1.00758 x its bound and "at the
/// bound, proven": `auto` places a trace first-fit and then repairs its
/// crowded windows. A budget that ends between the two leaves first-fit's
/// height (5572042815 = 1.00758 x the co-live bound 5530099775) and says
/// the budget was spent; one that reaches the repair gives the bound,
/// proven. Both are the figures of a run, and a report of the first must
/// say it was cut (`cut_short`, "no (budget spent)" in `tilemem bench`).
/// On work budgets, so every machine agrees; the same on a generated
/// trace, so the rule is checked without ../shared.
#[test]
fn a_budget_spent_before_the_repair_leaves_first_fits_height() {
    let work = |n: u64| {
        Budget::default()
            .with_time_limit(None)
            .with_node_limit(Some(n))
    };
    let check = |name: &str, p: &Problem, between: u64, enough: u64| {
        let ff = run(p, SolverKind::FirstFit).height;
        let lb = lower_bound(p);
        assert!(ff > lb, "{name}: first-fit misses the bound");
        let cut = solve(p, SolverKind::Auto, &work(between)).unwrap();
        validate(p, cut.solution.as_ref().unwrap()).unwrap();
        assert_eq!(
            (cut.height, cut.solver, cut.cut_short, cut.proven_optimal),
            (ff, "auto/greedy", true, false),
            "{name}"
        );
        let full = solve(p, SolverKind::Auto, &work(enough)).unwrap();
        validate(p, full.solution.as_ref().unwrap()).unwrap();
        assert_eq!(
            (
                full.height,
                full.solver,
                full.cut_short,
                full.proven_optimal
            ),
            (lb, "auto/repair", false, true),
            "{name}"
        );
        (ff, lb)
    };
    // First-fit takes 13,291 units here; the repair ends before 16,000.
    check(
        "large_trace(3, 12000)",
        &large_trace(3, 12_000),
        14_500,
        100_000,
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/dsa/traces/pangu_2.6B.csv"
    );
    let Ok(p) = tilemem_plan::bench::load(std::path::Path::new(path), None) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): a_budget_spent_before_the_repair_leaves_first_fits_height: pangu_2.6B: {path} not found"
        );
        return;
    };
    assert_eq!(
        check("pangu_2.6B", &p, 300_000, 1_000_000),
        (5_572_042_815, 5_530_099_775)
    );
}
