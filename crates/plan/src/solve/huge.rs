//! `auto` on problems where the whole-problem search cannot be expected to
//! pay within the budget alone: above [`HUGE`] buffers (beyond the reach of
//! the MiniMalloc member of the portfolio), and from [`MID`] buffers on
//! when the time limit holds fewer than four of the search's expected
//! costs ([`chain_first`]).
//!
//! Two kinds of work lower a greedy placement there:
//! - the *chain*: the peak-window repair ([`repair`]), best-fit as a second
//!   opinion, and (under a time limit) first-fit and the repair in other
//!   orders. Its work per round grows with the repair window, not with the
//!   problem, so it pays at any size, but it cannot open a window around a
//!   peak where thousands of buffers are live at once;
//! - the *search*: the exact search over the whole problem
//!   ([`exact_from`]). Its work per node grows with the buffers and so does
//!   its depth: see [`search_cost`]. It is what lowers traces whose peak the
//!   repair cannot open, when it has the time.
//!
//! When the greedy pass misses the bound, the chain's repair and best-fit
//! run first with their whole share of the time; then, when the time left
//! covers the search's expected cost ([`search_planned`], [`after`]), the
//! search continues from the chain's placement in place of the other
//! orders, and the lower result is kept. Otherwise the chain runs alone,
//! as it always did above [`HUGE`].
//!
//! The two run one after the other, not side by side on two threads: on
//! a machine whose cores are busy (2 cores, several solves and builds at
//! once) a second thread takes its time from the first, and measured so
//! (generated training steps of 10,000 buffers, 5 s, load 7 to 9) the
//! search beside the chain reached neither the search's gain nor the
//! chain's (`trace-46` 0.98 % above the bound, against 0.51 % by the chain
//! alone; `trace-21` 1.30 % against 0.73 %), while the search alone
//! reaches the bound of `trace-21`, `-46` and `-6` within 2.0 to 2.5 s of
//! CPU time.
//!
//! Without a time limit the chain runs alone, within a couple of seconds
//! as before (deterministic under a node limit). Under a node limit the
//! search gets what the chain left of it, so with a time limit that only a
//! node limit reaches the result does not depend on the machine or the
//! threads.
//!
//! [`HUGE`]: super::auto::HUGE
//! [`MID`]: super::auto::MID

use std::time::{Duration, Instant};

use super::auto::{finish, finish_or_none, repair_time};
use super::exact::{exact_from, searchable_base, SplitMix};
use super::geom::height_of;
use super::greedy::{place_in_order, place_or_complete, size_order, Fit};
use super::trace::repair;
use super::{co_live_of, fallback, outcome_from, Budget, Goal, Meter, Outcome};
use crate::bound::lower_bound;
use crate::problem::{Buffer, Problem};

/// Time the repair may take without a time limit, counted from the start
/// of the solve: such traces are expected to be placed within a couple of
/// seconds.
const HUGE_REPAIR: Duration = Duration::from_millis(1200);

/// CPU time the exact search over a whole trace of 10,000 buffers takes
/// from first-fit's placement to its first lower placement, measured
/// (release build) on the generated training steps whose peak the repair
/// cannot open (one micro-batch: a quarter of the buffers live at the
/// peak): `trace-8` (10,029 buffers) reaches its first gain (0.036 % above
/// the bound) after 400,000 units of work, 3.7 s when a node sorted all
/// its candidates (3.5 s was the constant then); since nodes order their
/// candidates a chunk at a time the same 400,000 units take 0.44 times the
/// CPU time (2.9 s against 6.7 s, one after the other at load 10), so
/// 1.6 s.
const SEARCH_COST_10K: Duration = Duration::from_millis(1600);

/// The expected CPU time of the whole-problem search to its first gain on
/// a trace of `n` buffers: [`SEARCH_COST_10K`] scaled by `(n / 10,000)²`.
/// Each node scans the sections of its valley and the candidates covering
/// them (both grow with the buffers), and a dive places every buffer once;
/// measured, `trace-8` at 20,004 buffers reached its bound after 3,000,000
/// units and 12.6 s (1,200,000 units and 1.5 s brought no gain), four
/// times the cost at 10,000.
pub(crate) fn search_cost(n: usize) -> Duration {
    let scale = n as f64 / 10_000.0;
    SEARCH_COST_10K.mul_f64(scale * scale)
}

/// True when the whole-problem search runs after the chain: a plain
/// problem (whose greedy placement missed the bound) whose expected
/// [`search_cost`] fits within the time limit. Without a time limit the
/// chain runs alone, as it always did: such solves are expected within a
/// couple of seconds ([`HUGE_REPAIR`]).
fn search_planned(problem: &Problem, budget: &Budget, meter: &Meter) -> bool {
    searchable_base(problem).is_some()
        && meter.alive()
        && budget
            .time_limit
            .is_some_and(|l| search_cost(problem.len()) <= l)
}

/// True when a problem of at least `MID` buffers should take the chain
/// rather than the portfolio: a plain problem, asked for its lowest
/// placement, where the time limit is less than [`PORTFOLIO_COSTS`] times
/// the whole-problem search's expected cost.
///
/// The two paths spend a time limit differently. The portfolio gives the
/// repair at most a quarter of it (half a second) and the rest to two
/// searches side by side; the chain gives the repair three quarters, and
/// the search ([`after`]) only what the repair leaves when that covers one
/// search cost. Comparing only one search cost with the limit sent traces
/// of exactly 10,000 buffers at 5 s (cost 3.5 s then) to the portfolio,
/// which stayed at greedy's height (`trace-34` 0.015 % above the bound),
/// while the chain's repair proved the bound in 0.9 s.
pub(crate) fn chain_first(problem: &Problem, budget: &Budget) -> bool {
    budget.goal == Goal::Lowest
        && searchable_base(problem).is_some()
        && budget
            .time_limit
            .is_some_and(|l| search_cost(problem.len()) * PORTFOLIO_COSTS > l)
}

/// The wall time a search takes for each second of its CPU time
/// ([`search_cost`] is CPU time, the time limit wall time): a solve shares
/// the two cores with others; measured on the generated traces of 10,000
/// buffers at 5 s and load 9 to 14, a solve got 1.5 to 2.4 s of CPU time.
/// [`after`] gives the search the time left only when it holds this many
/// costs: with one, at 5 s, the search took the place of the other orders
/// on 7 of 70 traces, where the orders had reached or nearly reached the
/// bound and the search did not gain (`trace-63` 1.00001 by the orders,
/// 1.00034 after the search), and won on none.
const SHARED_CORE: u32 = 2;

/// How many expected search costs ([`search_cost`]) a time limit must hold
/// for the portfolio to be chosen over the chain ([`chain_first`]): its two
/// searches run side by side on cores that are shared (two cores, other
/// solves beside), so each reaches its first gain after about twice the
/// cost; and a search is worth the repair time it takes from the chain
/// only if it can expect more than that first gain, at least a second one
/// (gains come from many short restarts, not one long run): 2 x 2. At the
/// measured cost this keeps the portfolio up to about 8,900 buffers at
/// 5 s and 5,600 at 2 s (the random-interval family, 1,000 to 5,000
/// buffers, where the portfolio's two searches win, stays there).
const PORTFOLIO_COSTS: u32 = 4;

/// `auto` on the problems of this module (see the module doc): first-fit
/// in size order (the lower bound computed beside it, on a second thread);
/// when that misses the bound, the chain and, when [`search_planned`] allows,
/// the whole-problem search. A placement above the capacity still goes to
/// the exact search.
pub(crate) fn solve_huge(
    problem: &Problem,
    budget: &Budget,
    start: Instant,
    meter: &Meter,
) -> Outcome {
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
    if done(height_of(problem, &greedy)) {
        return finish(problem, greedy, lb, lb, "auto/greedy", start);
    }
    let chain_in = Chain {
        problem,
        budget,
        order: &order,
        lb,
        done: &done,
        start,
    };
    let (best, search) = if search_planned(problem, budget, meter) {
        after(&chain_in, greedy, meter)
    } else {
        (chain_in.run(greedy, meter), None)
    };
    let Reached {
        mut offsets,
        mut height,
        mut floor,
        mut name,
        stop,
    } = best;
    if let Some(out) = search {
        if out.proven_infeasible {
            let mut out = out;
            out.elapsed = start.elapsed();
            return out;
        }
        if out.proven_optimal {
            floor = floor.max(out.height);
        }
        if let Some(sol) = out.solution.filter(|_| out.height < height) {
            (offsets, height, name) = (sol.offsets, out.height, "auto/exact");
        }
    }
    if problem.capacity.is_some_and(|c| height > c && floor <= c) {
        return exact_from(problem, offsets, budget, start, "auto/exact", meter);
    }
    let mut out = finish(problem, offsets, lb, floor, name, start);
    if !out.proven_optimal {
        out.stopped_by = stop;
    }
    out
}

/// What the chain works on.
struct Chain<'p> {
    problem: &'p Problem,
    budget: &'p Budget,
    /// First-fit's order (size descending).
    order: &'p [u32],
    lb: u64,
    /// True at a height that ends the solve.
    done: &'p dyn Fn(u64) -> bool,
    start: Instant,
}

/// The lowest placement a member reached.
struct Reached {
    offsets: Vec<u64>,
    height: u64,
    /// A proven lower bound on every placement (the repair's windows may
    /// raise it above the problem's bound).
    floor: u64,
    name: &'static str,
    /// Why the chain stopped before its budget, if a rule of its own ended
    /// it.
    stop: Option<&'static str>,
}

impl Chain<'_> {
    /// The chain from first-fit's placement `greedy`: [`Chain::first`],
    /// then [`Chain::orders`].
    fn run(&self, greedy: Vec<u64>, meter: &Meter) -> Reached {
        let reached = self.first(greedy, meter);
        self.orders(reached, meter)
    }

    /// The repair (within three quarters of the time limit from the start
    /// of the solve, or [`HUGE_REPAIR`] without one), then best-fit in size
    /// order as a second opinion, each only while the bound is not met; the
    /// lowest is kept (earlier on ties), so the result is never above
    /// first-fit's or best-fit's in size order, and best-fit is skipped
    /// whenever an earlier step is final (a million buffers take over a
    /// second per pass).
    ///
    fn first(&self, greedy: Vec<u64>, meter: &Meter) -> Reached {
        let (problem, budget, lb, done) = (self.problem, self.budget, self.lb, self.done);
        let h = height_of(problem, &greedy);
        // Three quarters of a given time limit (the rest is for the best-fit
        // pass and the output), else `HUGE_REPAIR`: a round re-places only the
        // zone of its window, but a window search may take a quarter second.
        let limit = budget.time_limit.map_or(HUGE_REPAIR, |l| l / 4 * 3);
        let window = meter.sub(repair_time(meter, limit, self.start), None);
        let repaired = repair(problem, greedy.clone(), lb, &window);
        meter.charge(window.used());
        let floor = repaired.floor;
        let hr = height_of(problem, &repaired.offsets);
        let (mut best, mut best_h, mut name) = if hr < h {
            (repaired.offsets, hr, "auto/repair")
        } else {
            (greedy, h, "auto/greedy")
        };
        let stop = repaired.stop;
        if !done(best_h) && best_h > floor && meter.alive() {
            if let Some(bf) = place_in_order(problem, self.order, Fit::Best, meter) {
                let hb = height_of(problem, &bf);
                if hb < best_h {
                    (best, best_h, name) = (bf, hb, "auto/greedy");
                }
            }
        }
        Reached {
            offsets: best,
            height: best_h,
            floor,
            name,
            stop,
        }
    }

    /// Under a time limit, the time left goes to first-fit in
    /// [`other_orders`], each followed by the repair: the time limit, not
    /// the repair's own rules, ends the run (unless every order has been
    /// tried). Without one, the run stays within seconds: `reached` as it
    /// is.
    fn orders(&self, reached: Reached, meter: &Meter) -> Reached {
        let (problem, budget, lb, done) = (self.problem, self.budget, self.lb, self.done);
        if budget.time_limit.is_none() {
            return reached;
        }
        let Reached {
            offsets: mut best,
            height: mut best_h,
            mut floor,
            mut name,
            ..
        } = reached;
        // The checks come before the next order is built (the iterator is
        // lazy): at a million buffers an order's sort alone takes a tenth
        // of a second, several times that on a loaded machine.
        let mut next = other_orders(problem, budget.seed);
        while !done(best_h) && best_h > floor && meter.alive() {
            let Some(order) = next.next() else {
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
        Reached {
            offsets: best,
            height: best_h,
            floor,
            name,
            stop: meter
                .alive()
                .then_some("first-fit and the repair ran in every order"),
        }
    }
}

/// The repair and best-fit ([`Chain::first`], the repair with its whole
/// share of the time, as alone), then, when the time left covers the
/// search's expected cost in wall time ([`SHARED_CORE`]), the search from
/// the chain's placement with the
/// rest, in place of the other orders; else the other orders, as the chain
/// alone has them.
///
/// The repair keeps its share because it settles most traces within a
/// second or two (at the bound, proven), and cutting it to leave the
/// search its cost lost more than the search won: measured on 37 training
/// steps of 10,000 buffers at 5 s, one after the other on a loaded
/// machine (load 5 to 9, about 2.3 s of CPU time per solve), a repair cut
/// to 1.5 s left 15 placements higher (13 of them at the bound before,
/// up to 0.3 % above it after) and the search lowered 2. So the search
/// takes only time the chain would have spent on other orders, which on
/// the traces the repair cannot open stalled 0.3 to 0.8 % above the bound
/// where the search alone reached it within 2 to 4 s of CPU time.
fn after(chain: &Chain<'_>, greedy: Vec<u64>, meter: &Meter) -> (Reached, Option<Outcome>) {
    let reached = chain.first(greedy, meter);
    if (chain.done)(reached.height) || reached.height <= reached.floor || !meter.alive() {
        return (reached, None);
    }
    let cost = search_cost(chain.problem.len()) * SHARED_CORE;
    if meter.time_left().is_some_and(|l| l < cost) {
        return (chain.orders(reached, meter), None);
    }
    let out = exact_from(
        chain.problem,
        reached.offsets.clone(),
        chain.budget,
        chain.start,
        "auto/exact",
        meter,
    );
    (reached, Some(out))
}

/// Orders for first-fit beside [`size_order`], for the time a time limit
/// leaves: size descending with the longer lifetime first, area (size
/// times lifetime) descending, lifetime descending, birth ascending (size
/// descending within an instant), then [`JITTERED`] orders of size
/// descending with each size raised by up to a sixteenth at random (from
/// `seed`): first-fit's ties and near-ties broken another way. Ties go to
/// the lower id; pinned buffers come first, as in `size_order`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    fn intervals(n: u64) -> Problem {
        let mut p = Problem::new();
        for k in 0..n {
            p.push(Buffer::new(1 + k % 7, k, k + 3));
        }
        p
    }

    fn limited(secs: f64) -> Budget {
        Budget::default().with_time_limit(Some(Duration::from_secs_f64(secs)))
    }

    /// The expected search cost grows with the square of the buffers.
    #[test]
    fn search_cost_scales_with_the_square() {
        assert_eq!(search_cost(10_000), SEARCH_COST_10K);
        assert_eq!(search_cost(20_000), SEARCH_COST_10K * 4);
        assert_eq!(search_cost(5_000), SEARCH_COST_10K / 4);
    }

    /// The chain takes the problems whose time limit holds fewer than
    /// `PORTFOLIO_COSTS` search costs: 10,000 buffers at 5 s (one cost
    /// fits, four do not) and at 2 s; the portfolio keeps 10,000 buffers
    /// with a minute, 4,000 at 2 s, and every problem without a time limit
    /// or asked only whether it fits.
    #[test]
    fn the_chain_takes_a_limit_of_fewer_than_four_search_costs() {
        let p10 = intervals(10_000);
        let p4 = intervals(4_000);
        assert!(search_cost(10_000) < Duration::from_secs(5));
        assert!(chain_first(&p10, &limited(5.0)));
        assert!(chain_first(&p10, &limited(2.0)));
        assert!(!chain_first(&p10, &limited(60.0)));
        assert!(!chain_first(&p4, &limited(2.0)));
        assert!(chain_first(&p4, &limited(0.2)));
        assert!(!chain_first(&p10, &Budget::default().with_time_limit(None)));
        assert!(!chain_first(&p10, &limited(5.0).with_goal(Goal::Fit)));
        // At exactly four costs the portfolio still runs.
        let edge = Budget::default().with_time_limit(Some(search_cost(10_000) * 4));
        assert!(!chain_first(&p10, &edge));
    }
}
