//! The exact solver against brute force on small random problems.

use tilemem_plan::{lower_bound, solve, validate, Budget, Buffer, Problem, SolverKind};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random problem: `n` buffers, lifetimes within `[0, t)`, sizes 1..=`smax`.
fn random_problem(rng: &mut Rng, n: usize, t: u64, smax: u64) -> Problem {
    let mut p = Problem::new();
    for _ in 0..n {
        let l = rng.below(t);
        let u = l + 1 + rng.below(t - l);
        p.push(Buffer::new(1 + rng.below(smax), l, u));
    }
    p
}

/// Lowest height by trying every offset (a multiple of the buffer's
/// alignment) of every buffer.
fn brute_force(p: &Problem) -> u64 {
    fn go(p: &Problem, i: usize, offs: &mut Vec<u64>, h: u64, best: &mut u64) {
        if h >= *best {
            return;
        }
        if i == p.buffers.len() {
            *best = h;
            return;
        }
        let b = &p.buffers[i];
        for o in (0..*best).step_by(b.align.max(1) as usize) {
            if o + b.size >= *best {
                break;
            }
            let clash = (0..i).any(|j| {
                let c = &p.buffers[j];
                b.lifetime_overlaps(c) && o < offs[j] + c.size && offs[j] < o + b.size
            });
            if !clash {
                offs.push(o);
                go(p, i + 1, offs, h.max(o + b.size), best);
                offs.pop();
            }
        }
    }
    // Stacking every buffer, each padded to its alignment, is a placement.
    let mut best: u64 = p.buffers.iter().map(|b| b.size + b.align).sum::<u64>() + 1;
    go(p, 0, &mut Vec::new(), 0, &mut best);
    best
}

#[test]
fn exact_matches_brute_force() {
    let mut rng = Rng(7);
    // A work budget: the same verdict on any machine under any load.
    let budget = Budget::default()
        .with_time_limit(None)
        .with_node_limit(Some(2_000_000));
    let cases: usize = std::env::var("EXACT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 60 } else { 300 });
    let nmax: usize = std::env::var("EXACT_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    for case in 0..cases {
        let n = 2 + (case % (nmax - 1));
        let p = random_problem(&mut rng, n, 2 + n as u64, 6);
        let want = brute_force(&p);
        // Every complete search agrees with the brute force (the
        // MiniMalloc search and the portfolio alone as well).
        for kind in [SolverKind::MiniMalloc, SolverKind::Portfolio] {
            let out = solve(&p, kind, &budget).unwrap();
            validate(&p, out.solution.as_ref().expect("placed")).unwrap();
            assert_eq!(out.height, want, "{kind} case {case}: {p:?}");
            assert!(out.proven_optimal, "{kind} case {case}");
            let mut q = p.clone();
            if want > 0 {
                q.capacity = Some(want - 1);
                let no = solve(&q, kind, &budget.with_goal(tilemem_plan::Goal::Fit)).unwrap();
                assert!(
                    no.solution.is_none() && no.proven_infeasible,
                    "{kind} case {case}"
                );
            }
        }
        let out = solve(&p, SolverKind::Exact, &budget).unwrap();
        let sol = out.solution.clone().expect("placed");
        let stats = validate(&p, &sol).unwrap();
        assert_eq!(stats.height, out.height);
        assert_eq!(out.height, want, "case {case}: {p:?}");
        assert!(out.proven_optimal, "case {case}");
        assert!(out.height >= lower_bound(&p));
        // With the optimum as capacity it fits; one byte less is infeasible.
        let mut q = p.clone();
        q.capacity = Some(want);
        let fit = solve(&q, SolverKind::Exact, &budget).unwrap();
        assert!(fit.solution.is_some(), "case {case}: fits at {want}");
        if want > 0 {
            q.capacity = Some(want - 1);
            let no = solve(&q, SolverKind::Exact, &budget).unwrap();
            assert!(no.solution.is_none() && no.proven_infeasible, "case {case}");
        }
    }
}

/// The proof of optimality under alignments that are not powers of two,
/// or that sizes are not multiples of: a search that leaves a gap under a
/// padded buffer must still find every placement, and a proven height must
/// be the lowest one.
#[test]
fn exact_matches_brute_force_under_alignment() {
    let mut rng = Rng(11);
    let budget = Budget::default().with_node_limit(Some(1_000_000));
    let cases = if cfg!(debug_assertions) { 150 } else { 600 };
    for case in 0..cases {
        let n = 2 + case % 6;
        let mut p = random_problem(&mut rng, n, 2 + n as u64, 7);
        for b in &mut p.buffers {
            b.align = [1, 1, 2, 3, 4, 5, 6][rng.below(7) as usize];
        }
        let want = brute_force(&p);
        for kind in [
            SolverKind::Exact,
            SolverKind::MiniMalloc,
            SolverKind::Portfolio,
        ] {
            let out = solve(&p, kind, &budget).unwrap();
            validate(&p, out.solution.as_ref().expect("placed")).unwrap();
            assert!(out.height >= want, "{kind} case {case}: {p:?}");
            if out.proven_optimal {
                assert_eq!(out.height, want, "{kind} case {case}: {p:?}");
            }
        }
    }
}
