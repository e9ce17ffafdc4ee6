//! Every solver honours the budget on instances built to make its work
//! explode: all buffers co-live, 10^5 buffers, huge penalty weights. The
//! limits are work units or an injected clock, never the wall clock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tilemem_plan::{solve, validate, Budget, Buffer, BufferId, Problem, SolverKind};

const N: usize = 100_000;

/// 10^5 buffers live over one shared instant, with assorted sizes and
/// alignments: every pass of every solver is quadratic here.
fn all_co_live() -> Problem {
    let mut p = Problem::new();
    for i in 0..N as u64 {
        let size = 32 * (1 + (i * 7919) % 97);
        p.push(Buffer::new(size, i % 50, 1_000 + i % 50).with_align(32 << (i % 3)));
    }
    p
}

/// 10^4 co-live buffers chained by penalty pairs of near-maximal weight,
/// and a hard conflict pair per ten buffers (penalty sums must saturate,
/// not wrap).
fn huge_penalties() -> Problem {
    let n = 10_000u32;
    let mut p = Problem::new();
    for i in 0..n as u64 {
        p.push(Buffer::new(64 + (i % 13) * 32, i % 100, 200 + i % 100).with_align(32));
    }
    for i in 0..n - 1 {
        p.penalties
            .push((BufferId(i), BufferId(i + 1), u64::MAX / 3));
        if i % 10 == 0 {
            p.conflicts.push((BufferId(i), BufferId((i + 500) % n)));
        }
    }
    p
}

fn check(p: &Problem, kind: SolverKind, budget: &Budget) -> tilemem_plan::Outcome {
    let out = solve(p, kind, budget).unwrap();
    let sol = out
        .solution
        .as_ref()
        .unwrap_or_else(|| panic!("{kind}: no placement"));
    let stats = validate(p, sol).unwrap_or_else(|v| panic!("{kind}: {}", v[0]));
    assert_eq!(stats.height, out.height, "{kind}");
    // Saturated sums, never wrapped ones.
    assert_eq!(stats.penalty, out.penalty, "{kind}");
    out
}

#[test]
fn a_node_limit_cuts_every_solver_on_co_live_buffers_reproducibly() {
    let p = all_co_live();
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(20_000));
    for kind in SolverKind::ALL {
        let a = check(&p, kind, &budget);
        let b = check(&p, kind, &budget);
        assert_eq!(a.solution, b.solution, "{kind}: not reproducible");
        // Sequential is linear work and does not meter itself.
        assert_eq!(a.cut_short, kind != SolverKind::Sequential, "{kind}");
    }
}

#[test]
fn a_node_limit_cuts_every_solver_on_huge_penalties() {
    let p = huge_penalties();
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(5_000));
    for kind in SolverKind::ALL {
        let a = check(&p, kind, &budget);
        let b = check(&p, kind, &budget);
        assert_eq!(a.solution, b.solution, "{kind}: not reproducible");
        assert_eq!(a.cut_short, kind != SolverKind::Sequential, "{kind}");
    }
}

/// A clock that advances one millisecond each time it is read.
fn ticking() -> Duration {
    static READS: AtomicU64 = AtomicU64::new(0);
    Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed))
}

#[test]
fn an_injected_clock_cuts_every_solver() {
    let p = all_co_live();
    // 50 reads of the clock: a few thousand units of work at most.
    let budget = Budget::default()
        .with_time_limit(Some(Duration::from_millis(50)))
        .with_clock(ticking);
    for kind in SolverKind::ALL {
        let out = check(&p, kind, &budget);
        assert_eq!(out.cut_short, kind != SolverKind::Sequential, "{kind}");
    }
}

#[test]
fn a_large_enough_budget_is_not_reported_as_cut() {
    let mut p = Problem::new();
    for i in 0..40u64 {
        p.push(Buffer::new(32 + i, i, i + 3));
    }
    for kind in SolverKind::ALL {
        let out = check(&p, kind, &Budget::default().with_node_limit(Some(1 << 40)));
        assert!(!out.cut_short, "{kind}");
    }
}

#[test]
fn placements_never_pass_the_largest_number_files_hold() {
    // Alignments near 2^60 would stack offsets up to 2^61, which the CSV
    // reader refuses: the solver treats 2^60 as the capacity instead.
    let big = 1u64 << 59;
    let mut p = Problem::new();
    for _ in 0..3 {
        p.push(Buffer::new(1, 0, 1).with_align(big));
    }
    for kind in SolverKind::ALL {
        let out = solve(&p, kind, &Budget::default()).unwrap();
        if let Some(sol) = &out.solution {
            assert!(sol.height(&p) <= tilemem_plan::problem::MAX_BYTES, "{kind}");
            validate(&p, sol).unwrap();
        }
    }
    // Two such buffers fit below 2^60 (offsets 0 and 2^59).
    p.buffers.truncate(2);
    for kind in SolverKind::ALL {
        let out = solve(&p, kind, &Budget::default()).unwrap();
        let sol = out.solution.expect("fits below 2^60");
        assert_eq!(sol.height(&p), big + 1, "{kind}");
    }
}

#[test]
fn the_portfolio_gives_the_same_bytes_with_any_number_of_threads() {
    use tilemem_plan::gen::cut_packing;
    use tilemem_plan::Goal;
    for seed in [2004, 7, 11] {
        let p = cut_packing(seed, 200, 30, 512, 512, 1024);
        for goal in [Goal::Fit, Goal::Lowest] {
            let budget = Budget::default()
                .with_time_limit(None)
                .with_node_limit(Some(200_000))
                .with_goal(goal);
            let one = solve(&p, SolverKind::Portfolio, &budget.with_threads(Some(1))).unwrap();
            let two = solve(&p, SolverKind::Portfolio, &budget.with_threads(Some(2))).unwrap();
            let three = solve(&p, SolverKind::Portfolio, &budget.with_threads(Some(3))).unwrap();
            assert_eq!(one.solution, two.solution, "seed {seed} {goal:?}");
            assert_eq!(one.solution, three.solution, "seed {seed} {goal:?}");
            assert_eq!(one.solver, two.solver, "seed {seed} {goal:?}");
            if let Some(s) = &one.solution {
                validate(&p, s).unwrap();
            }
        }
    }
}
