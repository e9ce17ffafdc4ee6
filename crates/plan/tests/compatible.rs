//! Compatible pairs: buffers that may share bytes although their lifetimes
//! intersect (two exclusive branches of one `if`).

use tilemem_plan::{
    csv, lower_bound, solve, validate, Budget, Buffer, BufferId, Problem, Separation, Solution,
    SolverKind, Violation,
};

/// `then` and `else` tiles of one `if`, both live over the whole `if`, plus
/// a tile live across it.
fn branches() -> (Problem, [BufferId; 3]) {
    let mut p = Problem::new();
    let a = p.push(Buffer::new(64, 0, 10).with_align(32).with_name("then"));
    let b = p.push(Buffer::new(96, 0, 10).with_align(32).with_name("else"));
    let c = p.push(Buffer::new(32, 0, 10).with_align(32).with_name("across"));
    p.allow_sharing(a, b);
    (p, [a, b, c])
}

#[test]
fn the_validator_accepts_shared_bytes_of_a_compatible_pair_only() {
    let (p, _) = branches();
    let shared = Solution {
        offsets: vec![0, 0, 96],
    };
    assert_eq!(validate(&p, &shared).unwrap().height, 128);
    // `across` overlapping `then` is still an error, even though `then`
    // overlaps `else` (the sweep must not stop at the nearest neighbour).
    let bad = Solution {
        offsets: vec![0, 0, 32],
    };
    let v = validate(&p, &bad).unwrap_err();
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v.iter().all(|v| matches!(
        v,
        Violation::Overlap {
            why: Separation::Lifetime,
            ..
        }
    )));
    assert_eq!(
        v[0].to_string(),
        "buffers then [0, 64) and across [32, 64) overlap but are live at the same time"
    );
}

#[test]
fn a_conflict_pair_wins_over_a_compatible_pair() {
    let (mut p, [a, b, _]) = branches();
    p.conflicts.push((b, a));
    let shared = Solution {
        offsets: vec![0, 0, 96],
    };
    assert!(validate(&p, &shared).is_err());
    assert_eq!(lower_bound(&p), 64 + 96 + 32);
}

#[test]
fn the_bound_counts_the_larger_branch_only() {
    let (p, _) = branches();
    // then (64) and else (96) may share: 96 + 32.
    assert_eq!(lower_bound(&p), 128);
    let mut plain = p.clone();
    plain.compatible.clear();
    assert_eq!(lower_bound(&plain), 192);
}

#[test]
fn the_bound_stays_valid_with_chains_of_pairs() {
    // a~b and b~c compatible, a and c not: a and c must stack.
    let mut p = Problem::new();
    let a = p.push(Buffer::new(10, 0, 4));
    let b = p.push(Buffer::new(30, 0, 4));
    let c = p.push(Buffer::new(20, 0, 4));
    p.allow_sharing(a, b);
    p.allow_sharing(b, c);
    // Greedy stack: b (30) alone, or a + c (30): both 30.
    assert_eq!(lower_bound(&p), 30);
    for kind in SolverKind::ALL {
        let out = solve(&p, kind, &Budget::default()).unwrap();
        let sol = out.solution.expect("placed");
        let stats = validate(&p, &sol).unwrap();
        assert!(stats.height >= 30, "{kind}");
        assert_eq!(out.height, stats.height, "{kind}");
    }
}

#[test]
fn every_reusing_solver_lets_the_branches_share() {
    let (p, [a, b, _]) = branches();
    for kind in SolverKind::ALL {
        if kind == SolverKind::Sequential {
            continue; // no reuse at all, by design
        }
        let out = solve(&p, kind, &Budget::default()).unwrap();
        let sol = out.solution.expect("placed");
        validate(&p, &sol).unwrap();
        assert_eq!(out.height, 128, "{kind}");
        assert_eq!(sol.offset(a), sol.offset(b), "{kind}");
    }
}

#[test]
fn the_exact_search_proves_the_shared_height() {
    let (mut p, _) = branches();
    p.capacity = Some(128);
    let out = solve(&p, SolverKind::Exact, &Budget::default()).unwrap();
    assert!(out.solution.is_some());
    assert!(out.proven_optimal);
    p.capacity = Some(127);
    let out = solve(&p, SolverKind::Exact, &Budget::default()).unwrap();
    assert!(out.solution.is_none());
    assert!(out.proven_infeasible);
}

#[test]
fn the_csv_format_carries_compatible_pairs() {
    let (p, _) = branches();
    let text = csv::write_problem(&p, None);
    assert_eq!(
        text,
        "id,lower,upper,size,alignment,compatible\n\
         then,0,10,64,32,else\n\
         else,0,10,96,32,\n\
         across,0,10,32,32,\n"
    );
    let back = csv::parse(&text, "x.csv").unwrap().problem;
    assert_eq!(back, p);
    let e = csv::parse("id,lower,upper,size,compatible\na,0,1,4,a\n", "x.csv").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.csv:2:9: buffer `a` lists itself as compatible"
    );
}

#[test]
fn random_problems_with_pairs_validate_and_stay_above_the_bound() {
    use tilemem_plan::gen::Rng;
    let mut rng = Rng(7);
    for _ in 0..200 {
        let mut p = Problem::new();
        let n = 2 + rng.below(7) as usize;
        for _ in 0..n {
            let lower = rng.below(6);
            let len = 1 + rng.below(5);
            p.push(Buffer::new(1 + rng.below(9), lower, lower + len).with_align(1 + rng.below(2)));
        }
        for _ in 0..rng.below(6) {
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            p.allow_sharing(BufferId(a), BufferId(b));
        }
        if rng.below(3) == 0 {
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            p.conflicts.push((BufferId(a), BufferId(b)));
        }
        let lb = lower_bound(&p);
        let exact = solve(&p, SolverKind::Exact, &Budget::default()).unwrap();
        assert!(exact.proven_optimal, "{p:?}");
        for kind in SolverKind::ALL {
            let out = solve(&p, kind, &Budget::default()).unwrap();
            let sol = out.solution.expect("no capacity: always placed");
            let stats = validate(&p, &sol).unwrap_or_else(|v| panic!("{kind}: {v:?}\n{p:?}"));
            assert!(stats.height >= exact.height, "{kind} beat the optimum");
            assert!(exact.height >= lb, "bound above the optimum: {p:?}");
        }
    }
}
