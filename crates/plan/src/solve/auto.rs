//! `auto`: greedy first, then repair and search only where greedy falls
//! short.
//!
//! Up to 10,000 buffers: first-fit and best-fit (`best_greedy`), the lower
//! kept. That placement is final when it reaches the lower bound (proven
//! optimal) or, with [`Goal::Fit`], when it fits the
//! capacity. Otherwise the peak-window repair ([`trace`](super::trace))
//! lowers it (within [`MID_REPAIR`], at most a quarter of the budget; not
//! for the fit question, which goes straight to the portfolio), and the
//! exact search continues from the result with the rest of the time budget
//! (from [`MID`] buffers on, the portfolio: the exact and the MiniMalloc
//! searches side by side, the lower kept).
//!
//! Above 10,000 buffers (beyond the MiniMalloc member's reach), and from
//! 1,000 on when the time limit holds fewer than four of the
//! whole-problem search's expected costs (see [`chain_first`]): first-fit,
//! then the repair chain, the exact search
//! taking the place of its other orders when the time left covers the
//! search's expected cost (see [`huge`](super::huge)).
//!
//! Problems with conflict, compatible or penalty pairs go to the
//! penalty-aware canonical greedy.

use std::time::{Duration, Instant};

use super::exact::{best_greedy, exact_from};
use super::geom::height_of;
use super::huge::{chain_first, solve_huge};
use super::portfolio::{portfolio_from, AUTO_MEMBERS};
use super::trace::repair;
use super::{co_live_of, fallback, outcome_from, Budget, Goal, Meter, Outcome, Solver};
use crate::problem::{Problem, Solution};

/// Above this many buffers `auto` takes the path of [`super::huge`]: the
/// portfolio's MiniMalloc member does not search problems larger than this
/// ([`super::mm::MAX_BUFFERS`]: its overlap lists grow with the pairs of
/// buffers live together), and the exact search alone runs there after
/// the repair chain, when the time left covers its expected cost.
pub(crate) const HUGE: usize = 10_000;

/// From this many buffers up to [`HUGE`], the search after the repair is
/// the portfolio (skyline and MiniMalloc searches side by side) rather than
/// the skyline search alone: the MiniMalloc search's bisection lowers random
/// interval instances of this size by about half the gap where the skyline
/// search stalls (and the reverse on others).
pub(crate) const MID: usize = 1_000;

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
        let meter = Meter::new(budget);
        let mut out = auto_run(problem, budget, &meter);
        out.cut_short = meter.spent();
        out.gave_up = meter.gave_up();
        out.work = meter.used();
        // What the repair proved on its windows, when above the bound.
        out.proof = meter.proof().filter(|b| b.value > out.lower_bound);
        out
    }
}

/// `auto` within `meter`.
pub(crate) fn auto_run(problem: &Problem, budget: &Budget, meter: &Meter) -> Outcome {
    {
        let start = Instant::now();
        if !problem.penalties.is_empty()
            || !problem.conflicts.is_empty()
            || !problem.compatible.is_empty()
        {
            let mut out = super::canonical::canonical_run(problem, budget, meter, "auto/canonical");
            out.elapsed = start.elapsed();
            return out;
        }
        if problem.len() > HUGE || (problem.len() >= MID && chain_first(problem, budget)) {
            return solve_huge(problem, budget, start, meter);
        }
        let Some(greedy) = best_greedy(problem, meter) else {
            if meter.spent() {
                return outcome_from(problem, fallback(problem), "auto/greedy", start);
            }
            let mut out = outcome_from(problem, None, "auto/greedy", start);
            out.proven_infeasible = true;
            return out;
        };
        let lb = co_live_of(problem, budget);
        let fit_question = budget.goal == Goal::Fit && problem.capacity.is_some();
        let done = |h: u64| h <= lb || (fit_question && problem.capacity.is_some_and(|c| h <= c));
        if done(height_of(problem, &greedy)) {
            return finish(problem, greedy, lb, lb, "auto/greedy", start);
        }
        // The question "does it fit?" goes straight to the search: the
        // repair aims at the lower bound of a marked peak, while such
        // problems (the challenging family: perfect packings) are tight
        // everywhere. Otherwise the repair gets a small part of the budget
        // and the search the rest.
        if fit_question {
            return portfolio_from(problem, greedy, budget, start, meter, AUTO_MEMBERS);
        }
        let limit = budget
            .time_limit
            .map_or(MID_REPAIR, |l| (l / 4).min(MID_REPAIR));
        let h = height_of(problem, &greedy);
        let window = meter.sub(repair_time(meter, limit, start), None);
        let repaired = repair(problem, greedy, lb, &window);
        meter.charge(window.used());
        let hr = height_of(problem, &repaired.offsets);
        if hr <= repaired.floor {
            let name = if hr < h { "auto/repair" } else { "auto/greedy" };
            return finish(problem, repaired.offsets, lb, repaired.floor, name, start);
        }
        if problem.len() >= MID {
            // Both searches from the repaired placement, the lower kept:
            // on random intervals of a few thousand buffers the skyline
            // search and the MiniMalloc search each win about half of the
            // instances, by several percent of the bound.
            let first = if hr < h { "auto/repair" } else { "auto/greedy" };
            let names = [first, AUTO_MEMBERS[1], AUTO_MEMBERS[2]];
            return portfolio_from(problem, repaired.offsets, budget, start, meter, names);
        }
        exact_from(
            problem,
            repaired.offsets,
            budget,
            start,
            "auto/exact",
            meter,
        )
    }
}

/// [`finish`] of a placement that may be missing (pinned buffers clash).
pub(super) fn finish_or_none(
    problem: &Problem,
    offsets: Option<Vec<u64>>,
    lb: u64,
    solver: &'static str,
    start: Instant,
) -> Outcome {
    match offsets {
        Some(o) => finish(problem, o, lb, lb, solver, start),
        None => outcome_from(problem, None, solver, start),
    }
}

/// The time the repair may take (counted from `start`): `limit`, unless
/// the budget has a node limit, which then bounds the repair instead (its
/// windows have work limits of their own), so the result is reproducible.
pub(super) fn repair_time(meter: &Meter, limit: Duration, start: Instant) -> Option<Duration> {
    (!meter.has_node_limit()).then(|| limit.saturating_sub(start.elapsed()))
}

/// The outcome of a placement that respects every hard rule except
/// possibly the capacity, for a problem without penalty pairs: what
/// `outcome_from` computes, with the known [`lower_bound`](crate::bound::lower_bound) `lb` rather than
/// a second computation (a fifth of a greedy pass at a million buffers).
/// `floor` is a proven
/// lower bound on every placement's height, at least the problem's
/// [`lower_bound`](crate::bound::lower_bound) (the repair may raise it): a placement at it is optimal,
/// a capacity below it infeasible. The outcome reports the problem's bound.
pub(super) fn finish(
    problem: &Problem,
    offsets: Vec<u64>,
    lb: u64,
    floor: u64,
    solver: &'static str,
    start: Instant,
) -> Outcome {
    debug_assert!(problem.penalties.is_empty());
    let solution = Solution { offsets };
    let height = solution.height(problem);
    let fits = problem.capacity.is_none_or(|c| height <= c);
    let infeasible = problem.capacity.is_some_and(|c| floor > c);
    let solution = (fits && !infeasible).then_some(solution);
    Outcome {
        proven_optimal: solution.is_some() && height <= floor,
        solution,
        height,
        lower_bound: lb,
        penalty: 0,
        proven_infeasible: infeasible,
        solver,
        cut_short: false,
        work: 0,
        elapsed: start.elapsed(),
        stopped_by: None,
        gave_up: None,
        proof: None,
    }
}
