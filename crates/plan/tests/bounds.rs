//! Lower bounds against the brute-force optimum on small random problems:
//! a bound may never exceed the lowest height of any placement.

mod common;

use common::{brute_force, problems};
use proptest::prelude::*;
use tilemem_plan::bound::{best_bound, grain, refuted_bound, Rule};
use tilemem_plan::{lower_bound, Budget, Buffer, BufferId, Problem};

/// A refutation budget of `nodes` units of work and no time limit.
fn work(nodes: u64) -> Budget {
    Budget::default()
        .with_node_limit(Some(nodes))
        .with_time_limit(None)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn bounds_never_pass_the_optimum(p in problems()) {
        let opt = brute_force(&p);
        prop_assert!(lower_bound(&p) <= opt, "co-live {} > optimum {opt}", lower_bound(&p));
        let best = best_bound(&p);
        prop_assert!(best.value <= opt, "{best} = {} > optimum {opt}", best.value);
        prop_assert!(best.value >= lower_bound(&p));
        prop_assert_eq!(opt % grain(&p), 0, "optimum off the grain");
        let r = refuted_bound(&p, None, &work(200_000));
        prop_assert!(r.bound <= opt, "refuted {} > optimum {opt}", r.bound);
        // Small enough to be settled: the whole problem is the last
        // window, so every height below the optimum is refuted.
        prop_assert!(!r.cut_short);
        prop_assert_eq!(r.bound, opt);
        // Below a known placement the search stops at it.
        let capped = refuted_bound(&p, Some(opt), &work(200_000));
        prop_assert_eq!(capped.bound, opt);
    }

    /// With hard conflict pairs (between any two buffers, co-live or not)
    /// the best bound, conflict cliques included, stays at or below the
    /// optimum.
    #[test]
    fn the_best_bound_never_passes_the_optimum_with_conflicts(
        p in problems(),
        pairs in prop::collection::vec((0u32..6, 0u32..6), 0..5),
    ) {
        let mut p = p;
        let n = p.len() as u32;
        for (a, b) in pairs {
            if a % n != b % n {
                p.conflicts.push((BufferId(a % n), BufferId(b % n)));
            }
        }
        let opt = brute_force(&p);
        let best = best_bound(&p);
        prop_assert!(best.value <= opt, "{best} = {} > optimum {opt}", best.value);
        prop_assert!(best.value >= lower_bound(&p));
    }
}

/// The constructed case of `refutation_raises_the_co_live_bound` needs no
/// search for the best bound: the three buffers live at instant 1 stack
/// no lower than 9 under their alignments, where the co-live peak says 7.
#[test]
fn the_aligned_stack_is_strictly_better_than_co_live() {
    let mut p = Problem::new();
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(3, 1, 3));
    // A 1-byte buffer aligned to 1 elsewhere keeps the co-live bound
    // from rounding anything.
    p.push(Buffer::new(1, 5, 6));
    let best = best_bound(&p);
    assert_eq!((lower_bound(&p), best.value, brute_force(&p)), (7, 9, 9));
    assert_eq!(best.rule, Rule::AlignedStack);
    assert_eq!(best.window, Some((1, 2)));
}

/// A problem whose optimum is above its co-live bound: two 2-byte buffers
/// aligned to 4 and a 3-byte one, all live together. The co-live bound
/// (7) cannot use the alignment, as the smallest alignment is 1; the
/// aligned pair leaves only 2-byte holes, so the 3-byte buffer goes on top
/// (9).
#[test]
fn refutation_raises_the_co_live_bound() {
    let mut p = Problem::new();
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(3, 1, 3));
    let opt = brute_force(&p);
    assert_eq!((lower_bound(&p), opt), (7, 9));
    let r = refuted_bound(&p, None, &work(100_000));
    assert_eq!(r.bound, 9);
    assert!(!r.cut_short);
    let refuted: Vec<u64> = r.proofs.iter().map(|x| x.height).collect();
    assert_eq!(refuted, [7, 8]);
    // A window short of the whole range already holds all three: the
    // one around the most crowded section spans everything, so the next
    // centre's (instants 0 to 2) comes first.
    assert_eq!(r.proofs[0].window, (0, 2));
    assert_eq!(r.proofs[0].buffers, 3);
    // With a placement of height 8 known (impossible, so only a wrong
    // proof would pass it) the bound stops below it.
    assert_eq!(refuted_bound(&p, Some(8), &work(100_000)).bound, 8);
    // Without work, nothing is proven.
    let none = refuted_bound(&p, None, &work(0));
    assert_eq!((none.bound, none.cut_short), (7, true));
}

/// Problems off the plain model keep the co-live bound.
#[test]
fn pinned_problems_keep_the_co_live_bound() {
    let mut p = Problem::new();
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(2, 0, 2).with_align(4));
    p.push(Buffer::new(3, 1, 3).with_fixed_offset(0));
    let r = refuted_bound(&p, None, &work(100_000));
    assert_eq!(r.bound, lower_bound(&p));
    assert!(r.proofs.is_empty());
}

/// Refuted heights step by the grain: with sizes in KiB, refuting 7 KiB
/// proves 8 KiB at once, not 7 KiB plus one byte.
#[test]
fn refuted_heights_step_by_the_grain() {
    let k = 1024;
    let mut p = Problem::new();
    p.push(Buffer::new(2 * k, 0, 2).with_align(4 * k));
    p.push(Buffer::new(2 * k, 0, 2).with_align(4 * k));
    p.push(Buffer::new(3 * k, 1, 3));
    assert_eq!(grain(&p), k);
    let r = refuted_bound(&p, None, &work(100_000));
    let refuted: Vec<u64> = r.proofs.iter().map(|x| x.height).collect();
    assert_eq!(refuted, [7 * k, 8 * k]);
    assert_eq!(r.bound, 9 * k);
}

/// The exact search proves a capacity infeasible when one independent
/// part's own bound passes it: here the part live at instant 4 has
/// alignments 4 and 2 (3 bytes at least) while the whole problem's
/// smallest alignment is 1 (co-live bound 2).
#[test]
fn a_part_bound_above_the_capacity_is_a_proof() {
    let mut p = Problem::new();
    p.push(Buffer::new(1, 5, 6));
    p.push(Buffer::new(1, 4, 5).with_align(4));
    p.push(Buffer::new(1, 4, 5).with_align(2));
    assert_eq!((lower_bound(&p), brute_force(&p)), (2, 3));
    let mut q = p.clone();
    q.capacity = Some(2);
    let budget = tilemem_plan::Budget::default().with_goal(tilemem_plan::Goal::Fit);
    let out = tilemem_plan::solve(&q, tilemem_plan::SolverKind::Exact, &budget).unwrap();
    assert!(out.solution.is_none() && out.proven_infeasible);
    assert_eq!(refuted_bound(&p, None, &work(10_000)).bound, 3);
}

/// The best placement known for challenging D (967 KiB against a co-live
/// bound of 963 KiB), kept as offsets by buffer id: it must stay valid,
/// and no bound may pass it.
#[test]
fn shared_d_best_known_placement() {
    use std::io::Write as _;
    let path = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/dsa/challenging/D.1048576.csv"
    ));
    let Ok(p) = tilemem_plan::bench::load(&path, None) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_d_best_known_placement: {} not found",
            path.display()
        );
        return;
    };
    let by_id: std::collections::HashMap<&str, u64> = include_str!("data/D.990208.offsets")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (id, off) = l.split_once(',').expect("id,offset");
            (id, off.parse().expect("offset"))
        })
        .collect();
    let offsets = p
        .buffers
        .iter()
        .map(|b| by_id[b.name.as_deref().expect("named")])
        .collect();
    let sol = tilemem_plan::Solution { offsets };
    let stats = tilemem_plan::validate(&p, &sol).expect("valid");
    assert_eq!(stats.height, 990_208);
    assert_eq!(lower_bound(&p), 986_112);
    let r = refuted_bound(&p, Some(stats.height), &work(20_000));
    assert!(r.bound <= stats.height);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without a `Problem`, the plain bound is the bound of the plain
    /// problem with the same buffers (empty and never-live ones included).
    #[test]
    fn plain_lower_bound_is_lower_bound_of_the_plain_problem(
        bs in prop::collection::vec((0u64..=9, 0u64..8, 0u64..=5), 0..=12)
    ) {
        let mut p = Problem::new();
        for &(s, l, len) in &bs {
            p.push(Buffer::new(s, l, l + len));
        }
        let plain = tilemem_plan::bound::plain_lower_bound(
            bs.iter().map(|&(s, l, len)| (s, l, l + len)),
        );
        prop_assert_eq!(plain, lower_bound(&p));
    }
}
