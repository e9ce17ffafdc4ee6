//! `auto`: greedy first, the exact search only where greedy falls short.
//!
//! Runs first-fit and best-fit and keeps the lower. That placement is final
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
use super::trace::repair;
use super::{outcome_from, Budget, Goal, Outcome, Solver};
use crate::bound::lower_bound;
use crate::problem::Problem;

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
        let Some(greedy) = best_greedy(problem) else {
            let mut out = outcome_from(problem, None, "auto/greedy", start);
            out.proven_infeasible = true;
            return out;
        };
        let h = height_of(problem, &greedy);
        let lb = lower_bound(problem);
        let fits = problem.capacity.is_none_or(|c| h <= c);
        if h <= lb || (fits && budget.goal == Goal::Fit && problem.capacity.is_some()) {
            return outcome_from(problem, Some(greedy), "auto/greedy", start);
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
            return outcome_from(problem, Some(repaired), "auto/repair", start);
        }
        exact_from(problem, repaired, budget, start, "auto/exact")
    }
}
