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
//! as it always did above [`HUGE`]. Before the search, the repair is a
//! *probe*: its window searches get a measured amount of work per buffer,
//! and a repair that gains nothing because its first windows do not settle
//! within it (a peak too crowded to open) hands the rest of the time to
//! the search at once, which hands it on to the other orders when its
//! first window of work does not gain either ([`hand_over`]).
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

use std::cell::OnceCell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::auto::{finish, finish_or_none, repair_time};
use super::exact::{exact_from, searchable_base, SplitMix};
use super::geom::height_of;
use super::greedy::{
    place_in_order, place_or_complete, place_stacked_or_complete, size_order, Fit,
};
use super::trace::{repair, repair_within, UNSETTLED};
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
/// 1.6 s. Measured again directly (the exact search alone under node
/// limits, whole runs with reading and greedy, user plus system CPU, load
/// 6.3 to 10): `trace-8` first gains between 350,000 units (1.1 to 1.3 s,
/// no gain) and 362,500 (1.58 s, 0.036 % above the bound); `trace-21` and
/// `-46` reach their bounds within 300,000 and 250,000 units, 1.5 to
/// 1.9 s. The constant stands.
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
/// placement (or whether it fits without a capacity, the same question),
/// where the time limit is less than [`PORTFOLIO_COSTS`] times the
/// whole-problem search's expected cost.
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
    // Without a capacity `Goal::Fit` is `Goal::Lowest` (its contract):
    // `tilemem bench --family` asks every trace whether it fits, and
    // traces of up to 10,000 buffers went to the portfolio there while
    // `tilemem solve` took the chain.
    (budget.goal == Goal::Lowest || problem.capacity.is_none())
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
/// in size order, the nested long buffers of a training step stacked
/// ([`place_stacked_or_complete`]; on 20 generated steps of 10,000
/// buffers at 2 s, 16 ended lower and one higher, `trace-8` 0.800 % ->
/// 0.031 % above the bound; under a time limit after a sweep in time
/// order, which alone places a million buffers within 0.1 % of the bound
/// when the limit holds no pass), with the lower bound computed beside it
/// on a second thread;
/// when that misses the bound, the chain and, when [`search_planned`] allows,
/// the whole-problem search. A placement above the capacity still goes to
/// the exact search.
pub(crate) fn solve_huge(
    problem: &Problem,
    budget: &Budget,
    start: Instant,
    meter: &Meter,
) -> Outcome {
    solve_probed(problem, budget, start, meter, Probe::of(problem.len()))
}

/// [`solve_huge`] with the work limits of [`after`] given.
fn solve_probed(
    problem: &Problem,
    budget: &Budget,
    start: Instant,
    meter: &Meter,
    probe: Probe,
) -> Outcome {
    let cpu0 = thread_cpu();
    let bound = OnceLock::new();
    let (first, lb) = std::thread::scope(|s| {
        let lb = s.spawn(|| *bound.get_or_init(|| co_live_of(problem, budget)));
        let order = OnceCell::new();
        let first = place_stacked_or_complete(problem, &order, meter, &bound).map(|o| (o, order));
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
        cpu0,
    };
    let (best, search) = if search_planned(problem, budget, meter) {
        after(&chain_in, greedy, meter, probe)
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
    /// First-fit's order (size descending), sorted when first needed.
    order: &'p OnceCell<Vec<u32>>,
    lb: u64,
    /// True at a height that ends the solve.
    done: &'p dyn Fn(u64) -> bool,
    start: Instant,
    /// This thread's CPU time when the solve began ([`thread_cpu`]).
    cpu0: Option<Duration>,
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
    /// The share of a core this solve has had since it began: its
    /// thread's CPU time over the wall time. 1 under a node limit (the
    /// result must not depend on the machine's load), before a fifth of
    /// a second has passed, or where the CPU time cannot be read.
    fn core_share(&self, meter: &Meter) -> f64 {
        let wall = self.start.elapsed();
        match (self.cpu0, thread_cpu()) {
            (Some(a), Some(b)) if !meter.has_node_limit() && wall >= Duration::from_millis(200) => {
                (b.saturating_sub(a).as_secs_f64() / wall.as_secs_f64()).clamp(0.05, 1.0)
            }
            _ => 1.0,
        }
    }

    /// The chain from first-fit's placement `greedy`: [`Chain::first`],
    /// then [`Chain::orders`].
    fn run(&self, greedy: Vec<u64>, meter: &Meter) -> Reached {
        let reached = self.first(greedy, meter);
        self.orders(reached, meter)
    }

    /// The repair (within three quarters of the time limit from the start
    /// of the solve, or [`HUGE_REPAIR`] without one), then best-fit in size
    /// order as a second opinion ([`Chain::second_opinion`]).
    fn first(&self, greedy: Vec<u64>, meter: &Meter) -> Reached {
        let reached = self.repaired(greedy, u64::MAX, meter);
        self.second_opinion(reached, meter)
    }

    /// The peak-window repair from `from` within three quarters of a given
    /// time limit from the start of the solve (the rest is for the
    /// best-fit pass and the output), else [`HUGE_REPAIR`] (a round
    /// re-places only the zone of its window, but a window search may take
    /// half of the time left), each window search within `per_buffer` units of
    /// work per buffer of its window (see [`repair_within`]). The lower of
    /// `from` and the repair's result is kept.
    fn repaired(&self, from: Vec<u64>, per_buffer: u64, meter: &Meter) -> Reached {
        let (problem, budget, lb) = (self.problem, self.budget, self.lb);
        let h = height_of(problem, &from);
        let limit = budget.time_limit.map_or(HUGE_REPAIR, |l| l / 4 * 3);
        let window = meter.sub(repair_time(meter, limit, self.start), None);
        let repaired = repair_within(problem, from.clone(), lb, &window, per_buffer);
        meter.charge(window.used());
        let hr = height_of(problem, &repaired.offsets);
        let (offsets, height, name) = if hr < h {
            (repaired.offsets, hr, "auto/repair")
        } else {
            (from, h, "auto/greedy")
        };
        Reached {
            offsets,
            height,
            floor: repaired.floor,
            name,
            stop: repaired.stop,
        }
    }

    /// Best-fit in size order as a second opinion on `reached`, only while
    /// the bound is not met; the lowest is kept (earlier on ties), so the
    /// result is never above first-fit's or best-fit's in size order, and
    /// best-fit is skipped whenever an earlier step is final (a million
    /// buffers take over a second per pass).
    fn second_opinion(&self, reached: Reached, meter: &Meter) -> Reached {
        let Reached {
            offsets: mut best,
            height: mut best_h,
            floor,
            mut name,
            stop,
        } = reached;
        if !(self.done)(best_h) && best_h > floor && meter.alive() {
            let order = self
                .order
                .get_or_init(|| size_order(self.problem).unwrap_or_default());
            if let Some(bf) = place_in_order(self.problem, order, Fit::Best, meter) {
                let hb = height_of(self.problem, &bf);
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

/// The repair as a probe: each window search within [`PROBE_PER_BUFFER`]
/// units of work per buffer of its window. Then best-fit gives its second
/// opinion, and:
/// - when the repair gained nothing and ended at a window it could not
///   settle within that (the window around the peak holds the whole
///   crowded peak, and the repair cannot open it), the time left goes to
///   the whole-problem search when it holds one search cost, with the
///   other orders as the fallback ([`hand_over`]);
/// - otherwise, as before the probe, the search takes the time the other
///   orders would have had when the time left holds [`SHARED_CORE`]
///   search costs ([`search_cost`]); with less, the search gets its first
///   window on the same terms as above ([`hand_over`]: one cost at this
///   share of a core, the other orders when the window does not gain).
///   Measured one after the other at 5 s on 20 generated training steps
///   of 10,000 buffers (load 1.6 to 2.9), against the other orders
///   directly: `trace-46` 0.464 % above the bound -> at the bound (the
///   probe had settled a window without reaching the floor, and the
///   search's first dive lowered it), `trace-23` 0.012 % -> at the bound,
///   18 the same; at load 11 to 13 the window is not affordable and the
///   orders run as before.
///
/// The repair keeps its share where it settles its windows because it
/// settles most traces within a second or two (at the bound, proven), and
/// cutting it to leave the search its cost lost more than the search won:
/// measured on 37 training steps of 10,000 buffers at 5 s, one after the
/// other on a loaded machine (load 5 to 9, about 2.3 s of CPU time per
/// solve), a repair cut to 1.5 s left 15 placements higher (13 of them at
/// the bound before, up to 0.3 % above it after) and the search lowered
/// 2. Where the first window does not settle, the repair used to spend
/// its whole share on it (up to 400,000 units, 3.5 s at load 9 on
/// `trace-8`) and leave the search less than its cost, while the search
/// from the same placement reaches the bound of `trace-8`, `-21` and
/// `-46` within about its cost.
fn after(
    chain: &Chain<'_>,
    greedy: Vec<u64>,
    meter: &Meter,
    limits: Probe,
) -> (Reached, Option<Outcome>) {
    let h0 = height_of(chain.problem, &greedy);
    let probe = chain.repaired(greedy, limits.per_buffer, meter);
    let gained = probe.height < h0 || probe.floor > chain.lb;
    let unsettled = probe.stop == Some(UNSETTLED);
    let reached = chain.second_opinion(probe, meter);
    if (chain.done)(reached.height) || reached.height <= reached.floor || !meter.alive() {
        return (reached, None);
    }
    let cost = search_cost(chain.problem.len()) * SHARED_CORE;
    if (!gained && unsettled) || meter.time_left().is_some_and(|l| l < cost) {
        return hand_over(chain, reached, meter, limits.search);
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

/// Units of work per buffer of a repair window within which the probe's
/// window searches ([`after`]) must settle it: on 70 training steps of
/// 10,000 buffers, the 187 window searches that settled (1,028 to 3,872
/// buffers) took at most 52.3 units per buffer, and those that had not
/// settled by 400,000 units or by the repair's time had taken 75 to 89 on
/// the windows of the crowded peaks (`trace-8`, `-21`, `-40`); 64 leaves a
/// fifth over the most measured. Work, not time: the probe ends at the
/// same window on every machine.
const PROBE_PER_BUFFER: u64 = 64;

/// CPU time the calling thread has run (user and system), from
/// `/proc/thread-self/stat` in clock ticks of 10 ms; `None` where that
/// cannot be read.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    Some(Duration::from_millis(cpu_ticks(&stat)? * 10))
}

/// User and system clock ticks of a `/proc/.../stat` line: the fields
/// after the command name (which may hold spaces and parentheses, so the
/// last `)` ends it) are the state, then ten others, then utime and
/// stime.
fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The work limits of [`after`].
#[derive(Clone, Copy, Debug)]
struct Probe {
    /// Units per buffer of a repair window ([`PROBE_PER_BUFFER`]).
    per_buffer: u64,
    /// Units of the search's first window ([`search_units`]).
    search: u64,
}

impl Probe {
    /// The measured limits for a problem of `n` buffers.
    fn of(n: usize) -> Probe {
        Probe {
            per_buffer: PROBE_PER_BUFFER,
            search: search_units(n),
        }
    }
}

/// The whole-problem search from `reached` (the probe's placement, above
/// the floor, with fewer than [`SHARED_CORE`] search costs left or a
/// window the repair could not settle), when the time left holds one
/// [`search_cost`] at the share
/// of a core the solve has had so far ([`Chain::core_share`]; the cost is
/// CPU time, the time left wall time: at load 8 to 12 on two cores a
/// solve gets a fifth to a half of a core, and measured so, 70 traces at
/// 5 s, `trace-21` handed over at one cost of wall time ended at greedy's
/// height, 1.295 % above the bound, where the other orders had reached
/// 0.733 %): its first
/// `units` of work ([`search_units`]) are a window that must lower the placement;
/// when it does, the search goes on with the rest of the time, and when it
/// does not, the other orders get the rest. One cost, not [`SHARED_CORE`]
/// of them: the window hands the time back to the orders when the search
/// does not gain.
fn hand_over(
    chain: &Chain<'_>,
    reached: Reached,
    meter: &Meter,
    units: u64,
) -> (Reached, Option<Outcome>) {
    let share = chain.core_share(meter);
    if meter
        .time_left()
        .is_some_and(|l| l.mul_f64(share) < search_cost(chain.problem.len()))
    {
        return (chain.orders(reached, meter), None);
    }
    let window = meter.sub(None, Some(units));
    let first = exact_from(
        chain.problem,
        reached.offsets.clone(),
        chain.budget,
        chain.start,
        "auto/exact",
        &window,
    );
    meter.charge(window.used());
    if first.proven_optimal || first.proven_infeasible || !meter.alive() {
        return (reached, Some(first));
    }
    match first.solution.filter(|_| first.height < reached.height) {
        Some(sol) => {
            let out = exact_from(
                chain.problem,
                sol.offsets,
                chain.budget,
                chain.start,
                "auto/exact",
                meter,
            );
            (reached, Some(out))
        }
        None => (chain.orders(reached, meter), None),
    }
}

/// Work units per buffer of the whole-problem search's first window
/// ([`hand_over`]): its first gain comes from its first dive (the skyline
/// heuristic, one node per buffer placed or valley raised), measured from
/// the repair's placement on the generated training steps of 10,000
/// buffers whose peaks the repair cannot open: `trace-8`, `-21` and `-46`
/// gained in the dive, after 22,300, 22,860 and 23,045 units (2.2 to 2.3
/// per buffer), and `trace-21` and `-46` reached their bound in the first
/// restart after it (3 units per buffer) at 45,833 and 46,236. Eight per
/// buffer covers the dive and that restart with a margin; the 400,000
/// units at 10,000 buffers used before (40 per buffer) counted the greedy
/// passes of a search started from scratch, and a window without a gain
/// kept the other orders waiting for all of them.
const SEARCH_UNITS_PER_BUFFER: u64 = 8;

/// The units of the search's first window on `n` buffers
/// ([`SEARCH_UNITS_PER_BUFFER`] each).
fn search_units(n: usize) -> u64 {
    SEARCH_UNITS_PER_BUFFER.saturating_mul(n as u64)
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

    /// Five buffers that first-fit and best-fit in size order stack one
    /// unit too high (8 where 7 suffice: see `tests/trace.rs`), then 200
    /// one-byte buffers of one instant each.
    fn gadget() -> Problem {
        let mut p = Problem::new();
        for (size, lower, upper) in [(3, 2, 3), (2, 3, 7), (4, 1, 4), (2, 5, 9), (3, 5, 6)] {
            p.push(Buffer::new(size, lower, upper));
        }
        for k in 0..200 {
            p.push(Buffer::new(1, 100 + k, 101 + k));
        }
        p
    }

    /// A clock that never advances: the work limit ends every run.
    fn frozen() -> Duration {
        Duration::ZERO
    }

    /// `solve_probed` on `p` with a time limit that never passes and a
    /// work limit, its placement validated. The time left after the
    /// repair (95 % of the limit) holds one and a half search costs: one
    /// for the search's first window ([`hand_over`]), not two for the
    /// whole search.
    fn probed(p: &Problem, probe: Probe) -> Outcome {
        let limit = search_cost(p.len()).mul_f64(1.5 / 0.95);
        let budget = Budget::default()
            .with_time_limit(Some(limit))
            .with_clock(frozen)
            .with_node_limit(Some(5_000_000));
        let meter = Meter::new(&budget);
        let out = solve_probed(p, &budget, Instant::now(), &meter, probe);
        let sol = out.solution.as_ref().expect("no capacity: always placed");
        let stats = crate::validate::validate(p, sol).expect("valid placement");
        assert_eq!(stats.height, out.height);
        out
    }

    /// The repair's first window settles within the measured work per
    /// buffer and the repair lowers the placement to the bound: no search.
    #[test]
    fn a_probe_that_settles_its_window_keeps_the_repair() {
        let p = gadget();
        assert_eq!(lower_bound(&p), 7);
        let out = probed(&p, Probe::of(p.len()));
        assert_eq!((out.height, out.solver), (7, "auto/repair"));
        assert!(out.proven_optimal);
    }

    /// A window the probe cannot settle (no work per buffer) ends the
    /// repair without a gain: the time goes to the whole-problem search
    /// (one search cost is left, not two), which places at the bound
    /// within its first window.
    #[test]
    fn a_probe_that_cannot_settle_its_window_hands_over_to_the_search() {
        let p = gadget();
        let out = probed(
            &p,
            Probe {
                per_buffer: 0,
                search: search_units(p.len()).max(1_000),
            },
        );
        assert_eq!((out.height, out.solver), (7, "auto/exact"));
        assert!(out.proven_optimal);
    }

    /// A search whose first window does not lower the placement (no work
    /// at all) hands the time back: the other orders, each followed by
    /// the repair with its full window budget, reach the bound.
    #[test]
    fn a_search_window_without_a_gain_hands_back_to_the_orders() {
        let p = gadget();
        let out = probed(
            &p,
            Probe {
                per_buffer: 0,
                search: 0,
            },
        );
        assert_eq!((out.height, out.solver), (7, "auto/orders"));
        assert!(out.proven_optimal);
    }

    /// utime and stime are read after the command name, whatever it
    /// holds; a short line reads as nothing.
    #[test]
    fn cpu_ticks_are_read_after_the_command_name() {
        let line = "4242 (a (b) c) R 1 4242 4242 0 -1 4194560 900 0 0 0 317 25 0 0 20 0 3 0";
        assert_eq!(cpu_ticks(line), Some(317 + 25));
        assert_eq!(cpu_ticks("4242 (x) R 1 2 3"), None);
        assert_eq!(cpu_ticks("no parenthesis"), None);
    }

    /// Under a node limit the share of a core is 1, whatever the load:
    /// the hand-over does not depend on the machine.
    #[test]
    fn the_core_share_is_one_under_a_node_limit() {
        let p = gadget();
        let order = OnceCell::from(size_order(&p).expect("no pins"));
        let done = |_: u64| false;
        let budget = limited(60.0).with_node_limit(Some(1_000));
        let chain = Chain {
            problem: &p,
            budget: &budget,
            order: &order,
            lb: 7,
            done: &done,
            start: Instant::now() - Duration::from_secs(10),
            cpu0: Some(Duration::ZERO),
        };
        assert_eq!(chain.core_share(&Meter::new(&budget)), 1.0);
        let timed = limited(60.0);
        let share = chain.core_share(&Meter::new(&timed));
        assert!(share > 0.0 && share <= 1.0, "{share}");
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
        let mut capped = p10.clone();
        capped.capacity = Some(lower_bound(&p10));
        assert!(!chain_first(&capped, &limited(5.0).with_goal(Goal::Fit)));
        assert!(chain_first(&p10, &limited(5.0).with_goal(Goal::Fit)));
        // At exactly four costs the portfolio still runs.
        let edge = Budget::default().with_time_limit(Some(search_cost(10_000) * 4));
        assert!(!chain_first(&p10, &edge));
    }
}
