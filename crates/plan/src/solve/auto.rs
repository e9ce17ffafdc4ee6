//! `auto`: greedy first, the exact search only where greedy falls short.
//!
//! Runs first-fit and best-fit and keeps the lower. That placement is final
//! when it reaches the lower bound (proven optimal) or, with
//! [`Goal::Fit`](super::Goal::Fit), when it fits the capacity. Otherwise the
//! exact search starts from it with the rest of the time budget (except
//! above 10,000 buffers, where a fitting greedy placement is kept). Problems
//! with conflict or penalty pairs go to the penalty-aware canonical greedy.

use std::time::Instant;

use super::exact::{best_greedy, exact_from, height_of};
use super::{outcome_from, Budget, Goal, Outcome, Solver};
use crate::bound::lower_bound;
use crate::problem::Problem;

/// Above this many buffers `auto` keeps a fitting greedy placement.
const HUGE: usize = 10_000;

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
        let Some(greedy) = best_greedy(problem) else {
            let mut out = outcome_from(problem, None, "auto/greedy", start);
            out.proven_infeasible = true;
            return out;
        };
        let h = height_of(problem, &greedy);
        let fits = problem.capacity.is_none_or(|c| h <= c);
        // The search's work per node grows with the number of buffers and
        // instants; past this size it rarely beats greedy within a budget
        // of seconds, so a fitting greedy placement is kept.
        let huge = problem.len() > HUGE && fits;
        if huge
            || h <= lower_bound(problem)
            || (fits && budget.goal == Goal::Fit && problem.capacity.is_some())
        {
            return outcome_from(problem, Some(greedy), "auto/greedy", start);
        }
        exact_from(problem, greedy, budget, start, "auto/exact")
    }
}
