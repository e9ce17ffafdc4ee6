//! Inputs the fuzz target `solve` (fuzz/) found, reduced by hand. Ignored
//! ones are open findings; `cargo test -- --ignored` runs them.

use tilemem_plan::csv::parse;
use tilemem_plan::{solve, validate, Budget, SolverKind};

/// `# reserved=6-6` is an empty range: the reader accepts it and the
/// solvers treat it as reserving nothing (buffer `a` at [0, 8)); the
/// validator once reported "bytes [0, 8) use the reserved range [6, 6)".
/// Rule: an empty range reserves no byte, for reader, solvers and
/// validator alike.
#[test]
fn empty_reserved_range_reserves_nothing_for_solvers_and_validator_alike() {
    let file = parse("# reserved=6-6\nid,lower,upper,size\na,0,1,8\n", "r.csv").unwrap();
    assert_eq!(file.problem.reserved, vec![(6, 6)]);
    for kind in SolverKind::ALL {
        let out = solve(&file.problem, kind, &Budget::default()).unwrap();
        let sol = out
            .solution
            .unwrap_or_else(|| panic!("{kind:?} found no placement"));
        assert_eq!(sol.offsets, vec![0], "{kind:?}: `a` fits at 0");
        assert!(validate(&file.problem, &sol).is_ok(), "{kind:?}: {sol:?}");
    }
}

/// Two pinned buffers that overlap in bytes while both are live admit no
/// placement. `handoff` kept both where they were pinned and returned the
/// clash as its placement, which the validator then rejected (`tilemem
/// solve` called it an internal error); every other solver proved that no
/// placement exists. Rule: pinned buffers that clash are a proof of
/// infeasibility, for every solver.
#[test]
fn clashing_pinned_buffers_are_proven_infeasible_by_every_solver() {
    let file = parse(
        "id,lower,upper,size,fixed\na,0,2,100,0\nb,1,3,100,50\n",
        "pinned.csv",
    )
    .unwrap();
    for kind in SolverKind::ALL {
        let out = solve(&file.problem, kind, &Budget::default()).unwrap();
        assert_eq!(out.solution, None, "{kind:?}");
        assert!(out.proven_infeasible, "{kind:?}: {out:?}");
    }
}

/// A time limit no `Duration` holds (`--time-limit 1e20`: more than 2^64
/// seconds) once panicked in the conversion ("cannot convert float seconds
/// to Duration"). Rule: a limit too long to represent is cut to
/// `LONGEST_TIME_LIMIT`, which every solver's clock arithmetic takes, as
/// does the `Duration::MAX` a caller may set directly.
#[test]
fn time_limits_past_any_duration_are_cut_not_a_panic() {
    use std::time::Duration;
    use tilemem_plan::{time_limit_from_secs, LONGEST_TIME_LIMIT};
    assert_eq!(time_limit_from_secs(1e20), Some(LONGEST_TIME_LIMIT));
    assert_eq!(time_limit_from_secs(f64::MAX), Some(LONGEST_TIME_LIMIT));
    assert_eq!(time_limit_from_secs(1.5), Some(Duration::from_millis(1500)));
    assert_eq!(time_limit_from_secs(-1.0), None);
    assert_eq!(time_limit_from_secs(f64::NAN), None);
    assert_eq!(time_limit_from_secs(f64::INFINITY), None);
    let file = parse("id,lower,upper,size\na,0,2,8\nb,1,3,8\n", "t.csv").unwrap();
    let huge = Budget::default().with_time_limit(Some(Duration::MAX));
    assert_eq!(huge.time_limit, Some(LONGEST_TIME_LIMIT));
    let mut raw = Budget::default();
    raw.time_limit = Some(Duration::MAX);
    for budget in [huge, raw] {
        for kind in SolverKind::ALL {
            let out = solve(&file.problem, kind, &budget).unwrap();
            let sol = out.solution.expect("placed");
            assert!(validate(&file.problem, &sol).is_ok(), "{kind:?}");
        }
    }
}

/// Found by the `solve` fuzz target's agreement oracle: `exact` reported
/// a height as proven optimal that `canonical` beat with a valid placement
/// (8192 proven, 8176 placed: acc at 0, load_a at 32, load_f at 4128;
/// second case 47280 proven, 47274 placed). The cause was not the
/// alignments but the search's cache of failed states: when it completed a
/// placement and lowered its target below it, the open frames whose
/// component did not hold the sections now too high were still recorded
/// as failed states, though they failed for a reason outside their
/// component, and the cache then pruned the branch that held the lower
/// placement. Rule: a proven height is the lowest one; frames doomed by
/// sections outside their component are never cached as failed.
#[test]
fn exact_proves_no_height_another_solver_beats() {
    let file = parse(
        "id,lower,upper,size,alignment\nload_a,0,4,4096,32\nload_f,1,5,4048,32\nacc,2,12,20,3482\nscratch,11,12,1024,32\n",
        "align.csv",
    )
    .unwrap();
    let canonical = solve(&file.problem, SolverKind::Canonical, &Budget::default()).unwrap();
    let sol = canonical.solution.expect("placed");
    assert!(validate(&file.problem, &sol).is_ok());
    assert_eq!(canonical.height, 8176);
    let exact = solve(&file.problem, SolverKind::Exact, &Budget::default()).unwrap();
    assert!(validate(&file.problem, exact.solution.as_ref().unwrap()).is_ok());
    assert_eq!((exact.height, exact.proven_optimal), (8176, true));
    let file = parse(
        "id,lower,upper,size,alignment
d_b,3,6,40963,2
acc,2,18,2192,512
tmp0,4,7,42,32
tmp,1,5,4048,32
out,12,93,1024,32
",
        "odd.csv",
    )
    .unwrap();
    let canonical = solve(&file.problem, SolverKind::Canonical, &Budget::default()).unwrap();
    let exact = solve(&file.problem, SolverKind::Exact, &Budget::default()).unwrap();
    assert!(validate(&file.problem, exact.solution.as_ref().unwrap()).is_ok());
    assert_eq!(canonical.height, 47274);
    assert_eq!((exact.height, exact.proven_optimal), (47274, true));
}

/// A crowded problem (128 buffers or more, 64 live at once on average)
/// takes the greedy solvers' tree pass, which asks for the tree nodes of
/// the buffers a few places ahead in its order. Zero-size buffers come
/// last in that order, and their lifetimes were never given to the tree:
/// one reaching past every sized buffer's end asked for a node past the
/// tree (`tilemem solve --solver first-fit`: index out of bounds, exit
/// 101). Rule: the look-ahead is a hint about sized buffers only; the
/// placement is the same with or without buffers it may look at, and
/// with the order's end anywhere within the look-ahead.
#[test]
fn the_crowded_pass_looks_ahead_at_sized_buffers_only() {
    // The sized buffers' ends split time into 1 or 8 sections: a power of
    // two, a tree with no leaf to spare past the last section.
    let csv = |sized: usize, zero: &[(u64, u64)]| {
        let mut s = String::from("id,lower,upper,size\n");
        for i in 0..sized {
            let (l, u) = if sized.is_multiple_of(2) {
                (0, 2)
            } else {
                (i % 5, 4 + i % 5)
            };
            s.push_str(&format!("b{i},{l},{u},{}\n", 64 * (1 + i % 7)));
        }
        for (i, (l, u)) in zero.iter().enumerate() {
            s.push_str(&format!("z{i},{l},{u},0\n"));
        }
        parse(&s, "crowded.csv").unwrap().problem
    };
    // Past the last end, inside, and before the first instant; as many
    // as the look-ahead and more.
    let tails: [&[(u64, u64)]; 4] = [
        &[(1, 1000)],
        &[(1, 1000), (2, 5000), (0, 1 << 40), (6, 7)],
        &[
            (7, 9),
            (8, 9),
            (9, 10),
            (10, 11),
            (11, 12),
            (12, 13),
            (13, 14),
            (14, 15),
            (15, 16),
        ],
        &[
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 6),
            (6, 7),
            (7, 8),
            (8, 9),
            (0, 100),
        ],
    ];
    for sized in [128, 129, 130, 135, 136, 137, 200, 201] {
        let alone = csv(sized, &[]);
        for kind in [SolverKind::FirstFit, SolverKind::BestFit, SolverKind::Auto] {
            let base = solve(&alone, kind, &Budget::default()).unwrap();
            let base = base.solution.expect("no capacity: placed");
            assert!(validate(&alone, &base).is_ok(), "{kind:?}, {sized} buffers");
            for tail in tails {
                let p = csv(sized, tail);
                let out = solve(&p, kind, &Budget::default()).unwrap();
                let sol = out.solution.expect("no capacity: placed");
                assert!(
                    validate(&p, &sol).is_ok(),
                    "{kind:?}, {sized} buffers, {tail:?}"
                );
                assert_eq!(
                    sol.offsets[..sized],
                    base.offsets[..],
                    "{kind:?}, {sized} buffers: the zero-size buffers {tail:?} moved the others"
                );
            }
        }
    }
}
