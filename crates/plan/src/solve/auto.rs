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
//! Above 10,000 buffers: first-fit, then the repair (within three quarters
//! of the time limit, or [`HUGE_REPAIR`] without one), then best-fit, and
//! under a time limit first-fit and the repair in other orders until the
//! limit, each only while the bound is not met; the lowest is kept, and the
//! exact search runs only when it is above the capacity (see `solve_huge`).
//!
//! Problems with conflict, compatible or penalty pairs go to the
//! penalty-aware canonical greedy.

use std::time::{Duration, Instant};

use super::exact::{best_greedy, exact_from, SplitMix};
use super::geom::height_of;
use super::greedy::{place_in_order, place_or_complete, size_order, Fit};
use super::portfolio::{portfolio_from, AUTO_MEMBERS};
use super::trace::repair;
use super::{co_live_of, fallback, outcome_from, Budget, Goal, Meter, Outcome, Solver};
use crate::bound::lower_bound;
use crate::problem::{Buffer, Problem, Solution};

/// Above this many buffers `auto` runs no exact search on a placement that
/// fits.
const HUGE: usize = 10_000;

/// Time the repair may take on problems above [`HUGE`] buffers without a
/// time limit, counted from the start of the solve: the exact search does
/// not run there, and such traces are expected to be placed within a couple
/// of seconds.
const HUGE_REPAIR: Duration = Duration::from_millis(1200);

/// From this many buffers up to [`HUGE`], the search after the repair is
/// the portfolio (skyline and MiniMalloc searches side by side) rather than
/// the skyline search alone: the MiniMalloc search's bisection lowers random
/// interval instances of this size by about half the gap where the skyline
/// search stalls (and the reverse on others).
const MID: usize = 1_000;

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
        out.work = meter.used();
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
        if problem.len() > HUGE {
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

/// `auto` above [`HUGE`] buffers, where the exact search's work per node
/// (which grows with buffers and instants) rarely pays within seconds:
/// first-fit in size order (the lower bound computed beside it, on a second
/// thread); when that misses the bound, the repair from it (at most
/// three quarters of the time limit); when that misses too, best-fit in size order as a
/// second opinion. The lowest is kept (earlier on ties), so the result is
/// never above `best_greedy`'s (first-fit and best-fit in size order at
/// this size), and best-fit is skipped whenever an earlier step is final
/// (a million buffers take over a second per pass). Under a time limit,
/// the time left then goes to first-fit and the repair in
/// [`other_orders`]. A placement above the capacity still goes to the
/// exact search.
fn solve_huge(problem: &Problem, budget: &Budget, start: Instant, meter: &Meter) -> Outcome {
    let (first, lb) = std::thread::scope(|s| {
        let lb = s.spawn(|| co_live_of(problem, budget));
        let first = size_order(problem).and_then(|order| {
            Some((
                place_or_complete(problem, &order, Fit::First, meter)?,
                order,
            ))
        });
        // A panic in the bound is a bug; recompute rather than propagate.
        let lb = lb.join().unwrap_or_else(|_| lower_bound(problem));
        (first, lb)
    });
    let Some((greedy, order)) = first else {
        if meter.spent() {
            return finish_or_none(problem, fallback(problem), lb, "auto/fallback", start);
        }
        let mut out = outcome_from(problem, None, "auto/greedy", start);
        out.proven_infeasible = true;
        return out;
    };
    let fit_question = budget.goal == Goal::Fit && problem.capacity.is_some();
    let done = |h: u64| h <= lb || (fit_question && problem.capacity.is_some_and(|c| h <= c));
    let h = height_of(problem, &greedy);
    if done(h) {
        return finish(problem, greedy, lb, lb, "auto/greedy", start);
    }
    // Three quarters of a given time limit (the rest is for the best-fit
    // pass and the output), else `HUGE_REPAIR`: a round re-places only the
    // zone of its window, but a window search may take a quarter second.
    let limit = budget.time_limit.map_or(HUGE_REPAIR, |l| l / 4 * 3);
    let window = meter.sub(repair_time(meter, limit, start), None);
    let repaired = repair(problem, greedy.clone(), lb, &window);
    meter.charge(window.used());
    let mut floor = repaired.floor;
    let hr = height_of(problem, &repaired.offsets);
    let (mut best, mut best_h, mut name) = if hr < h {
        (repaired.offsets, hr, "auto/repair")
    } else {
        (greedy, h, "auto/greedy")
    };
    if !done(best_h) && best_h > floor && meter.alive() {
        if let Some(bf) = place_in_order(problem, &order, Fit::Best, meter) {
            let hb = height_of(problem, &bf);
            if hb < best_h {
                (best, best_h, name) = (bf, hb, "auto/greedy");
            }
        }
    }
    let mut stop = repaired.stop;
    // Under a time limit, the time the repair and best-fit left goes to
    // first-fit in other orders, each followed by the repair: the time
    // limit, not the repair's own rules, ends the run (unless every order
    // has been tried). Without one, the run stays within seconds as above.
    if budget.time_limit.is_some() {
        // The checks come before the next order is built (the iterator is
        // lazy): at a million buffers an order's sort alone takes a tenth
        // of a second, several times that on a loaded machine.
        let mut orders = other_orders(problem, budget.seed);
        while !done(best_h) && best_h > floor && meter.alive() {
            let Some(order) = orders.next() else {
                break;
            };
            let Some(placed) = place_or_complete(problem, &order, Fit::First, meter) else {
                break;
            };
            // Half of the time left for the repair of this order.
            let half = meter.time_left().map(|l| l / 2);
            let window = meter.sub(half, None);
            let r = repair(problem, placed, lb, &window);
            meter.charge(window.used());
            floor = floor.max(r.floor);
            let h = height_of(problem, &r.offsets);
            if h < best_h {
                (best, best_h, name) = (r.offsets, h, "auto/orders");
            }
        }
        stop = meter
            .alive()
            .then_some("first-fit and the repair ran in every order");
    }
    if problem.capacity.is_some_and(|c| best_h > c && floor <= c) {
        return exact_from(problem, best, budget, start, "auto/exact", meter);
    }
    let mut out = finish(problem, best, lb, floor, name, start);
    if !out.proven_optimal {
        out.stopped_by = stop;
    }
    out
}

/// Orders for first-fit beside [`size_order`], for the time a time limit
/// leaves above [`HUGE`] buffers: size descending with the longer lifetime
/// first, area (size times lifetime) descending, lifetime descending, birth
/// ascending (size descending within an instant), then [`JITTERED`] orders
/// of size descending with each size raised by up to a sixteenth at random
/// (from `seed`): first-fit's ties and near-ties broken another way. Ties
/// go to the lower id; pinned buffers come first, as in `size_order`.
fn other_orders(problem: &Problem, seed: u64) -> impl Iterator<Item = Vec<u32>> + '_ {
    let life = |b: &Buffer| u128::from(b.upper.saturating_sub(b.lower));
    let mut rng = SplitMix(seed ^ 0x6f72_6465_7273);
    (0..4 + JITTERED).map(move |k| {
        let mut keyed: Vec<(bool, u128, u128, u32)> = problem
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let size = u128::from(b.size);
                let (first, second) = match k {
                    0 => (u128::MAX - size, u128::MAX - life(b)),
                    1 => (u128::MAX - size * life(b), 0),
                    2 => (u128::MAX - life(b), u128::MAX - size),
                    3 => (u128::from(b.lower), u128::MAX - size),
                    _ => (
                        u128::MAX - size * u128::from(4096 + rng.next() % 257),
                        u128::from(b.lower),
                    ),
                };
                (b.fixed_offset.is_none(), first, second, i as u32)
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|k| k.3).collect()
    })
}

/// Jittered size orders [`other_orders`] gives after its four fixed ones.
const JITTERED: usize = 28;

/// [`finish`] of a placement that may be missing (pinned buffers clash).
fn finish_or_none(
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
fn repair_time(meter: &Meter, limit: Duration, start: Instant) -> Option<Duration> {
    (!meter.has_node_limit()).then(|| limit.saturating_sub(start.elapsed()))
}

/// The outcome of a placement that respects every hard rule except
/// possibly the capacity, for a problem without penalty pairs: what
/// `outcome_from` computes, with the known [`lower_bound`] `lb` rather than
/// a second computation (a fifth of a greedy pass at a million buffers).
/// `floor` is a proven
/// lower bound on every placement's height, at least the problem's
/// [`lower_bound`] (the repair may raise it): a placement at it is optimal,
/// a capacity below it infeasible. The outcome reports the problem's bound.
fn finish(
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
    }
}
