//! Properties every solver must have, on random problems.

use proptest::prelude::*;
use tilemem_plan::{
    lower_bound, solve, validate, Budget, Buffer, BufferId, Objective, Problem, Solution,
    SolverKind, Violation,
};

/// A work budget (no wall clock): the same result on any machine under
/// any load. Far more than these small problems need to be settled.
fn budget() -> Budget {
    Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(2_000_000))
}

/// Plain problems: sizes (zero allowed), alignments 1/2/4/8, lifetimes.
fn plain() -> impl Strategy<Value = Problem> {
    prop::collection::vec((0u64..40, 0u32..4, 0u64..12, 0u64..6), 1..14).prop_map(|v| {
        let mut p = Problem::new();
        for (size, a, lo, len) in v {
            p.push(Buffer::new(size, lo, lo + len).with_align(1 << a));
        }
        p
    })
}

/// Problems with conflict and penalty pairs, a reserved range and maybe a
/// pinned buffer.
fn paired() -> impl Strategy<Value = Problem> {
    (
        prop::collection::vec((1u64..8, 0u64..6, 1u64..4), 2..7),
        prop::collection::vec((0usize..7, 0usize..7), 0..4),
        prop::collection::vec((0usize..7, 0usize..7, 1u64..4), 0..5),
        0u64..3,
        any::<bool>(),
    )
        .prop_map(|(bufs, conf, pen, reserve, pin)| {
            let mut p = Problem::new();
            for (size, lo, len) in bufs {
                p.push(Buffer::new(size, lo, lo + len));
            }
            let n = p.len();
            for (a, b) in conf {
                if a % n != b % n {
                    p.conflicts
                        .push((BufferId((a % n) as u32), BufferId((b % n) as u32)));
                }
            }
            for (a, b, w) in pen {
                if a % n != b % n {
                    p.penalties
                        .push((BufferId((a % n) as u32), BufferId((b % n) as u32), w));
                }
            }
            if reserve > 0 {
                p.reserved.push((0, reserve));
            }
            if pin {
                p.buffers[0].fixed_offset = Some(reserve + 2);
            }
            p
        })
}

const KINDS: [SolverKind; 9] = SolverKind::ALL;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_solver_output_validates(p in plain()) {
        let lb = lower_bound(&p);
        let mut greedy_best = u64::MAX;
        let mut exact = None;
        for kind in KINDS {
            let out = solve(&p, kind, &budget()).unwrap();
            let sol = out.solution.clone().expect("no capacity: always placed");
            let stats = validate(&p, &sol).map_err(|v| TestCaseError::fail(format!("{kind}: {}", v[0])))?;
            prop_assert_eq!(stats.height, out.height);
            prop_assert!(out.height >= lb, "{kind}: height below the lower bound");
            match kind {
                SolverKind::FirstFit | SolverKind::BestFit => greedy_best = greedy_best.min(out.height),
                SolverKind::Exact => exact = Some(out),
                _ => {}
            }
        }
        let exact = exact.unwrap();
        prop_assert!(exact.height <= greedy_best, "exact worse than greedy");
        if exact.proven_optimal {
            // The optimum fits as a capacity; one byte less does not.
            let mut q = p.clone();
            q.capacity = Some(exact.height);
            prop_assert!(solve(&q, SolverKind::Exact, &budget()).unwrap().solution.is_some());
        }
    }

    #[test]
    fn corrupted_placements_are_rejected(p in plain(), pick in 0usize..100) {
        let out = solve(&p, SolverKind::FirstFit, &budget()).unwrap();
        let sol = out.solution.unwrap();
        // Move one buffer onto a co-live neighbour.
        let n = p.len();
        let a = pick % n;
        let other = (0..n).find(|&b| {
            b != a && p.buffers[a].size > 0 && p.buffers[b].size > 0
                && p.buffers[a].lifetime_overlaps(&p.buffers[b])
                && sol.offsets[b].is_multiple_of(p.buffers[a].align)
        });
        if let Some(b) = other {
            let mut bad = sol.clone();
            bad.offsets[a] = sol.offsets[b];
            let v = validate(&p, &bad).unwrap_err();
            let is_overlap = matches!(v[0], Violation::Overlap { .. });
            prop_assert!(is_overlap);
        }
        // A misaligned offset is named.
        if let Some(i) = (0..n).find(|&i| p.buffers[i].align > 1) {
            let mut bad = sol.clone();
            bad.offsets[i] += 1;
            let v = validate(&p, &bad).unwrap_err();
            let named = v.iter().any(|v| matches!(v, Violation::Misaligned { .. }));
            prop_assert!(named);
        }
        // Wrong length.
        let short = Solution { offsets: sol.offsets[..n - 1].to_vec() };
        prop_assert!(validate(&p, &short).is_err());
    }

    #[test]
    fn paired_problems_respect_hard_rules(p in paired()) {
        for kind in KINDS {
            let out = solve(&p, kind, &budget()).unwrap();
            if let Some(sol) = &out.solution {
                let stats = validate(&p, sol).map_err(|v| TestCaseError::fail(format!("{kind}: {}", v[0])))?;
                prop_assert_eq!(stats.penalty, out.penalty);
            }
        }
        // Exact is never worse than the canonical greedy, for both objectives.
        for objective in [Objective::PeakThenPenalty, Objective::PenaltyThenPeak] {
            let b = budget().with_objective(objective);
            let c = solve(&p, SolverKind::Canonical, &b).unwrap();
            let e = solve(&p, SolverKind::Exact, &b).unwrap();
            let key = |o: &tilemem_plan::Outcome| match objective {
                Objective::PeakThenPenalty => (o.height, o.penalty),
                Objective::PenaltyThenPeak => (o.penalty, o.height),
            };
            if c.solution.is_some() {
                prop_assert!(e.solution.is_some());
                prop_assert!(key(&e) <= key(&c), "exact {:?} canonical {:?}", key(&e), key(&c));
            }
        }
    }
}

#[test]
fn minimalloc_example_is_twelve() {
    // MiniMalloc's 12-byte example: b5 lives throughout, b3 overlaps b1/b2.
    let mut p = Problem::new();
    for (lo, hi) in [(0, 3), (3, 9), (0, 9), (9, 21), (0, 21)] {
        p.push(Buffer::new(4, lo, hi));
    }
    p.capacity = Some(12);
    let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
    assert_eq!(out.height, 12);
    assert!(out.proven_optimal);
    p.capacity = Some(11);
    let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
    assert!(out.solution.is_none() && out.proven_infeasible);
}

#[test]
fn greedy_misses_what_exact_finds() {
    // Hand-checked: a 2x2 staircase. Height 3 is optimal: a (2 bytes, t 0..2)
    // and c (1 byte, t 1..3) stack, b (1 byte, t 0..1) sits above a? No: b
    // and a are co-live at t 0, so [a|b] = 3 at t 0 and [a|c] = 3 at t 1.
    let mut p = Problem::new();
    p.push(Buffer::new(2, 0, 2)); // a
    p.push(Buffer::new(1, 0, 1)); // b
    p.push(Buffer::new(1, 1, 3)); // c
    p.push(Buffer::new(2, 2, 3)); // d, co-live with c only
    let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
    assert_eq!(out.lower_bound, 3);
    assert_eq!(out.height, 3);
    assert!(out.proven_optimal);
}

#[test]
fn sequential_is_a_bump_allocator() {
    let mut p = Problem::new();
    p.push(Buffer::new(10, 0, 1).with_align(32));
    p.push(Buffer::new(40, 5, 6).with_align(32));
    p.push(Buffer::new(8, 9, 10).with_align(32));
    p.reserved.push((64, 96));
    let out = solve(&p, SolverKind::Sequential, &budget()).unwrap();
    // 0..10, then 32..72 would touch the reserved [64, 96): 96..136, then 160.
    assert_eq!(out.solution.unwrap().offsets, vec![0, 96, 160]);
}

#[test]
fn penalties_steer_the_canonical_greedy() {
    // a and b never live together, so they could share bytes; the unit
    // penalty makes the canonical greedy put b above a when that costs no
    // height (c is live with both and is tall).
    let mut p = Problem::new();
    let a = p.push(Buffer::new(4, 0, 2));
    let b = p.push(Buffer::new(4, 2, 4));
    p.push(Buffer::new(4, 0, 4));
    p.push(Buffer::new(8, 1, 3));
    p.penalties.push((a, b, 1));
    let budget = budget().with_objective(Objective::PenaltyThenPeak);
    let out = solve(&p, SolverKind::Canonical, &budget).unwrap();
    assert_eq!(out.penalty, 0);
    // Hand-checked: at height 16 (the bound) c and d fill t 1..3 the same
    // way, so a and b must take the same bytes; avoiding that costs 4.
    let e = solve(&p, SolverKind::Exact, &budget).unwrap();
    assert_eq!((e.penalty, e.height), (0, 20));
    assert!(e.proven_optimal);
    let peak_first = budget.with_objective(Objective::PeakThenPenalty);
    let e = solve(&p, SolverKind::Exact, &peak_first).unwrap();
    assert_eq!((e.height, e.penalty), (16, 1));
    assert!(e.proven_optimal);
}

#[test]
fn conflicts_separate_buffers_that_never_meet() {
    let mut p = Problem::new();
    let a = p.push(Buffer::new(4, 0, 1));
    let b = p.push(Buffer::new(4, 1, 2));
    p.conflicts.push((a, b));
    for kind in KINDS {
        let out = solve(&p, kind, &budget()).unwrap();
        // Alignment is the problem's data: at alignment 1 every solver,
        // the handoff greedy included, stacks the two buffers tightly.
        assert_eq!(out.height, 8, "{kind}");
    }
    p.capacity = Some(7);
    let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
    assert!(out.solution.is_none() && out.proven_infeasible);
}

#[test]
fn validator_names_buffers() {
    let mut p = Problem::new();
    p.push(Buffer::new(4, 0, 2).with_name("x"));
    p.push(Buffer::new(4, 1, 3).with_name("y"));
    p.capacity = Some(6);
    let v = validate(
        &p,
        &Solution {
            offsets: vec![0, 2],
        },
    )
    .unwrap_err();
    let text: Vec<String> = v.iter().map(|v| v.to_string()).collect();
    assert_eq!(
        text,
        ["buffers x [0, 4) and y [2, 6) overlap but are live at the same time"]
    );
    let v = validate(
        &p,
        &Solution {
            offsets: vec![0, 5],
        },
    )
    .unwrap_err();
    assert_eq!(
        v[0].to_string(),
        "buffer y: ends at 9, above the capacity 6"
    );
}

#[test]
fn alignment_gaps_can_be_filled_first() {
    // b (align 4) sits at 12 only after a fills 9..10 below it; placing b
    // first would lift the floor over the gap. Height 30 is optimal and
    // must fit a capacity of 30.
    let mut p = Problem::new();
    p.push(Buffer::new(1, 5, 10));
    p.push(Buffer::new(18, 4, 9).with_align(4));
    p.push(Buffer::new(9, 5, 6).with_align(8));
    p.push(Buffer::new(30, 10, 11));
    p.capacity = Some(30);
    let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
    assert_eq!(out.solution.unwrap().offsets, vec![9, 12, 0, 0]);
}

/// The solver once called `dsa-rp` is refused by that name, with what to
/// use instead; its greedy answers to `handoff`.
#[test]
fn the_retired_dsa_rp_name_says_what_to_use() {
    let err = "dsa-rp".parse::<SolverKind>().unwrap_err();
    assert_eq!(
        err,
        "solver `dsa-rp` is retired: it no longer replays PyPTO's DSA_RP planner. To replay \
         a problem exported by `tilemem plan --planner dsa-rp`, use `--solver canonical \
         --penalty-first`; its handoff greedy is now `--solver handoff`"
    );
    assert_eq!("handoff".parse::<SolverKind>(), Ok(SolverKind::Handoff));
    assert_eq!(SolverKind::Handoff.name(), "handoff");
}
