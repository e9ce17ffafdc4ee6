//! The best lower bound a solve supports, and where it came from.
//!
//! A solve knows more than the rules of [`best_bound`]:
//! - the peak-window repair proves the optimum of time windows (a window's
//!   problem drops constraints, so its optimum is a lower bound of the
//!   whole problem), and the highest it proved is the outcome's
//!   [`proof`](crate::Outcome::proof);
//! - a placement the search proved optimal is itself the lowest height
//!   (no lower height fits), and a capacity the search proved too small
//!   bounds every placement from below by one grain more.
//!
//! [`proven_bound`] takes the highest of these and says which it is, so
//! the height a solve reports can be judged: how far from optimal it can
//! be, and why.

use super::grain::{grain, round_to_grain};
use super::rules::{best_bound, Bound, Rule};
use crate::problem::Problem;
use crate::solve::Outcome;

/// The best lower bound of `problem` that `out` (an outcome of a solve
/// of it) supports: [`best_bound`] and [`proven_from`].
pub fn proven_bound(problem: &Problem, out: &Outcome) -> Bound {
    proven_from(problem, best_bound(problem), out)
}

/// The highest of `best` (a lower bound of `problem`, such as its
/// [`best_bound`]), the outcome's own proof, and what the search proved:
/// the height of a placement proven optimal (problems without penalty
/// pairs: with them an optimum may trade height for penalty), or one
/// grain above a capacity proven too small. `best` on a tie.
pub fn proven_from(problem: &Problem, best: Bound, out: &Outcome) -> Bound {
    let mut b = best;
    if let Some(p) = &out.proof {
        b = b.max(p.clone());
    }
    let whole = |value| Bound {
        value,
        rule: Rule::SearchRefuted,
        window: None,
        buffers: problem.len(),
        rounded_from: None,
    };
    if out.solution.is_some() && out.proven_optimal && problem.penalties.is_empty() {
        b = b.max(whole(out.height));
    }
    if out.solution.is_none() && out.proven_infeasible {
        if let Some(c) = problem.capacity {
            b = b.max(whole(round_to_grain(c.saturating_add(1), grain(problem))));
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;
    use crate::solve::{solve, Budget, SolverKind};

    /// Three buffers aligned to 3, 6 and 12 in a chain (`a` and `c` live
    /// with `b`, never with each other): 33 bytes at least, where the
    /// co-live peak says 30 and no instant holds all three; then `far`
    /// buffers of 3 bytes one after the other, so that a window around
    /// the chain holds less than half of the problem (the repair's rule).
    pub(crate) fn chain(far: u64) -> Problem {
        let mut p = Problem::new();
        p.push(Buffer::new(15, 3, 7).with_align(3));
        p.push(Buffer::new(15, 0, 5).with_align(6));
        p.push(Buffer::new(9, 2, 3).with_align(12));
        for i in 0..far {
            p.push(Buffer::new(3, 100 + i, 101 + i));
        }
        p
    }

    fn budget() -> Budget {
        Budget::default()
            .with_time_limit(None)
            .with_node_limit(Some(1_000_000))
    }

    #[test]
    fn the_search_proof_of_an_optimum_is_a_bound() {
        let p = chain(0);
        let out = solve(&p, SolverKind::Auto, &budget()).unwrap();
        assert_eq!((out.height, out.lower_bound), (33, 30));
        assert!(out.proven_optimal);
        let b = proven_bound(&p, &out);
        assert_eq!((b.value, b.rule, b.window), (33, Rule::SearchRefuted, None));
        assert_eq!(
            b.to_string(),
            "proven by the exact search: no lower height fits"
        );
    }

    #[test]
    fn a_window_the_repair_proved_is_a_bound() {
        let p = chain(80);
        let out = solve(&p, SolverKind::Auto, &budget()).unwrap();
        assert_eq!(out.height, 33);
        let b = proven_bound(&p, &out);
        // The repair's proof wins the tie with the search's.
        assert_eq!(
            (b.value, b.rule, b.window, b.buffers),
            (33, Rule::RepairWindow, Some((0, 131)), 34)
        );
        assert_eq!(
            b.to_string(),
            "repair: window [0, 131) proven, its 34 buffers fit no lower"
        );
        assert_eq!(out.proof, Some(b));
    }

    #[test]
    fn the_minimum_search_keeps_the_repair_proof() {
        let m = crate::minimize::minimize(&chain(80), SolverKind::Auto, &budget()).unwrap();
        assert!(m.proven());
        assert_eq!((m.bound.value, m.bound.rule), (33, Rule::RepairWindow));
        assert!(m.steps.is_empty());
    }

    #[test]
    fn a_refuted_capacity_bounds_by_one_grain_more() {
        let mut p = chain(0);
        p.capacity = Some(31);
        let out = solve(&p, SolverKind::Exact, &budget()).unwrap();
        assert!(out.solution.is_none() && out.proven_infeasible);
        // Grain 3: nothing fits in 31, so nothing below 33.
        let b = proven_bound(&p, &out);
        assert_eq!((b.value, b.rule), (33, Rule::SearchRefuted));
    }

    #[test]
    fn with_penalty_pairs_an_optimum_is_not_a_height_bound() {
        // Under the penalty-first objective an optimum may be higher than
        // the lowest placement: its height proves nothing.
        let mut p = chain(0);
        let (a, c) = (crate::problem::BufferId(0), crate::problem::BufferId(2));
        p.penalties.push((a, c, 1));
        let out = solve(&p, SolverKind::Auto, &budget()).unwrap();
        let b = proven_bound(&p, &out);
        assert_eq!((b.value, b.rule), (30, Rule::CoLive));
    }
}
