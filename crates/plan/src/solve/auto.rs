//! `auto`: greedy first, the exact search only where greedy falls short.
//!
//! Runs first-fit and best-fit and keeps the lower (above 10,000 buffers,
//! best-fit only when first-fit falls short). That placement is final
//! when it reaches the lower bound (proven optimal) or, with
//! [`Goal::Fit`](super::Goal::Fit), when it fits the capacity. Otherwise the
//! peak-window repair ([`trace`](super::trace)) lowers it (within
//! [`MID_REPAIR`] or a quarter of the budget), and, up to 10,000 buffers,
//! the exact search continues from the result with the rest of the time
//! budget. Above 10,000 buffers the repair gets at most [`HUGE_REPAIR`] and
//! its result is kept. Problems with conflict or penalty
//! pairs go to the penalty-aware canonical greedy.

use std::time::{Duration, Instant};

use super::exact::{best_greedy, exact_from, height_of};
use super::greedy::{place_in_order, size_order, Fit};
use super::trace::repair;
use super::{outcome_from, Budget, Goal, Outcome, Solver};
use crate::bound::lower_bound;
use crate::problem::{Problem, Solution};

/// Above this many buffers `auto` keeps a fitting repaired greedy placement.
const HUGE: usize = 10_000;

/// Time the repair may take on problems above [`HUGE`] buffers, counted from
/// the start of the solve: the exact search does not run there, and such
/// traces are expected to be placed within a couple of seconds.
const HUGE_REPAIR: Duration = Duration::from_millis(1200);

/// Time the repair may take below [`HUGE`] buffers (at most a quarter of the
/// budget), counted from the start of the solve.
const MID_REPAIR: Duration = Duration::from_millis(500);

/// Greedy, then exact when needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Auto;

impl Solver for Auto {
    fn name(&self) -> &'static str {
        "auto"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let start = Instant::now();
        if !problem.penalties.is_empty() || !problem.conflicts.is_empty() {
            let mut out = super::Canonical.solve(problem, budget);
            out.solver = "auto/canonical";
            out.elapsed = start.elapsed();
            return out;
        }
        let (first, lb) = if problem.len() > HUGE {
            huge_greedy(problem, budget)
        } else {
            (best_greedy(problem), lower_bound(problem))
        };
        let Some(greedy) = first else {
            let mut out = outcome_from(problem, None, "auto/greedy", start);
            out.proven_infeasible = true;
            return out;
        };
        let h = height_of(problem, &greedy);
        let fits = problem.capacity.is_none_or(|c| h <= c);
        if h <= lb || (fits && budget.goal == Goal::Fit && problem.capacity.is_some()) {
            return finish(problem, greedy, lb, "auto/greedy", start);
        }
        // The search's work per node grows with the number of buffers and
        // instants; past this size it rarely beats greedy within a budget
        // of seconds, so only the repair runs.
        let huge = problem.len() > HUGE;
        let repair_limit = match (budget.time_limit, huge) {
            (Some(l), true) => l.min(HUGE_REPAIR),
            (None, true) => HUGE_REPAIR,
            // Below HUGE the exact search follows and needs most of the time.
            (Some(l), false) => (l / 4).min(MID_REPAIR),
            (None, false) => MID_REPAIR,
        };
        let deadline = start + repair_limit;
        let repaired = repair(problem, greedy, deadline);
        let h = height_of(problem, &repaired);
        let fits = problem.capacity.is_none_or(|c| h <= c);
        if h <= lb
            || (huge && fits)
            || (fits && budget.goal == Goal::Fit && problem.capacity.is_some())
        {
            return finish(problem, repaired, lb, "auto/repair", start);
        }
        exact_from(problem, repaired, budget, start, "auto/exact")
    }
}

/// The greedy placement of a problem above [`HUGE`] buffers, with the lower
/// bound: first-fit in size order, and best-fit only when first-fit misses
/// the bound (or, with [`Goal::Fit`], the capacity); the lower of the two,
/// first-fit on ties. The same placement as `best_greedy` at that size,
/// without the second pass where the first one is already final (a million
/// buffers take over a second per pass). The bound is computed on a second
/// thread meanwhile (a fifth of a pass at that size).
fn huge_greedy(problem: &Problem, budget: &Budget) -> (Option<Vec<u64>>, u64) {
    let (first, lb) = std::thread::scope(|s| {
        let lb = s.spawn(|| lower_bound(problem));
        let first = size_order(problem)
            .and_then(|order| Some((place_in_order(problem, &order, Fit::First)?, order)));
        // A panic in the bound is a bug; recompute rather than propagate.
        let lb = lb.join().unwrap_or_else(|_| lower_bound(problem));
        (first, lb)
    });
    let Some((first, order)) = first else {
        return (None, lb);
    };
    let h = height_of(problem, &first);
    let fits = problem.capacity.is_some_and(|c| h <= c);
    if h <= lb || (fits && budget.goal == Goal::Fit) {
        return (Some(first), lb);
    }
    let best = place_in_order(problem, &order, Fit::Best);
    let best = best.filter(|b| height_of(problem, b) < h).unwrap_or(first);
    (Some(best), lb)
}

/// The outcome of a placement that respects every hard rule except
/// possibly the capacity, for a problem without penalty pairs whose lower
/// bound `lb` is known: what `outcome_from` computes, without computing the
/// bound a second time (a fifth of a greedy pass at a million buffers).
fn finish(
    problem: &Problem,
    offsets: Vec<u64>,
    lb: u64,
    solver: &'static str,
    start: Instant,
) -> Outcome {
    debug_assert!(problem.penalties.is_empty());
    let solution = Solution { offsets };
    let height = solution.height(problem);
    let fits = problem.capacity.is_none_or(|c| height <= c);
    let infeasible = problem.capacity.is_some_and(|c| lb > c);
    let solution = (fits && !infeasible).then_some(solution);
    Outcome {
        proven_optimal: solution.is_some() && height == lb,
        solution,
        height,
        lower_bound: lb,
        penalty: 0,
        proven_infeasible: infeasible,
        solver,
        elapsed: start.elapsed(),
    }
}
