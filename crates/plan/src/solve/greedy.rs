//! `first-fit` and `best-fit`: size-descending greedy placement.
//!
//! Buffers go in order of size (largest first; ties: earlier start, then
//! id), pinned buffers before all others. Each buffer looks at the already
//! placed buffers it interferes with (found through a [`TimeIndex`] in
//! `O(log T + k)`), its placed conflict partners and the reserved ranges, and
//! takes either the lowest offset where it fits (first-fit) or the smallest
//! gap that holds it (best-fit, XLA/TFLite style). Capacity is not a
//! constraint during placement; the outcome reports a placement above the
//! capacity as not found.

use std::cell::OnceCell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::geom::{
    align_up, best_fit, conflict_lists, first_fit, height_of, sorted_reserved, TimeIndex,
};
use super::occupancy::Occupancy;
use super::skyline;
use super::sweep::{sweep, sweep_together};
use super::{co_live_of, fallback, outcome_with_bound, Budget, Meter, Outcome, Solver};
use crate::problem::Problem;

/// How a greedy pass chooses among the gaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    First,
    Best,
}

/// Size-descending, lowest fitting offset.
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstFit;

/// Size-descending, smallest fitting gap.
#[derive(Clone, Copy, Debug, Default)]
pub struct BestFit;

impl Solver for FirstFit {
    fn name(&self) -> &'static str {
        "first-fit"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        run(problem, Fit::First, self.name(), budget)
    }
}

impl Solver for BestFit {
    fn name(&self) -> &'static str {
        "best-fit"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        run(problem, Fit::Best, self.name(), budget)
    }
}

/// Above this many buffers the lower bound is computed on a second thread
/// beside the placement (it costs a fifth of a pass at a million buffers).
const BOUND_BESIDE: usize = 100_000;

/// A greedy pass within the budget; a pass the budget cuts short keeps
/// what it placed and places the rest on the skyline ([`place_or_complete`]).
fn run(problem: &Problem, fit: Fit, name: &'static str, budget: &Budget) -> Outcome {
    let start = Instant::now();
    let meter = &Meter::new(budget);
    let place = || {
        let offsets =
            size_order(problem).and_then(|order| place_or_complete(problem, &order, fit, meter));
        if offsets.is_none() && meter.spent() {
            fallback(problem)
        } else {
            offsets
        }
    };
    let (offsets, lb) = if problem.len() > BOUND_BESIDE {
        std::thread::scope(|s| {
            let lb = s.spawn(|| co_live_of(problem, budget));
            let offsets = place();
            (
                offsets,
                lb.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            )
        })
    } else {
        (place(), co_live_of(problem, budget))
    };
    let mut out = outcome_with_bound(problem, offsets.clone(), name, start, lb);
    if offsets.is_none() {
        out.proven_infeasible = true;
    }
    out.cut_short = meter.spent();
    out.work = meter.used();
    out
}

/// Pinned buffers first, then size descending, earlier start, lower id.
pub(crate) fn size_order(problem: &Problem) -> Option<Vec<u32>> {
    let b = &problem.buffers;
    // One 128-bit key per buffer where the fields fit (no pins, starts
    // and ids below 2^32: traces), compared as integers: a sort of a
    // million (flag, size, start, id) tuples took a quarter second, a
    // tenth of a time limit of 0.5 s, before the first reading of the
    // clock.
    if b.len() < u32::MAX as usize
        && b.iter()
            .all(|x| x.fixed_offset.is_none() && x.lower <= u64::from(u32::MAX))
    {
        let mut keyed: Vec<u128> = b
            .iter()
            .enumerate()
            .map(|(i, x)| (u128::from(!x.size) << 64) | u128::from(x.lower << 32 | i as u64))
            .collect();
        keyed.sort_unstable();
        return Some(keyed.into_iter().map(|k| k as u32).collect());
    }
    // Keys gathered first: sorting a million ids by looking their buffers up
    // in every comparison would be dominated by cache misses.
    let mut keyed: Vec<(bool, std::cmp::Reverse<u64>, u64, u32)> = b
        .iter()
        .enumerate()
        .map(|(i, b)| {
            (
                b.fixed_offset.is_none(),
                std::cmp::Reverse(b.size),
                b.lower,
                i as u32,
            )
        })
        .collect();
    keyed.sort_unstable();
    Some(keyed.into_iter().map(|k| k.3).collect())
}

/// True when pinned buffers clash neither with each other nor with reserved
/// ranges (otherwise no placement exists).
pub(crate) fn pinned_are_consistent(problem: &Problem) -> bool {
    let order: Vec<u32> = (0..problem.buffers.len() as u32)
        .filter(|&i| problem.buffers[i as usize].fixed_offset.is_some())
        .collect();
    let pinned = Problem {
        capacity: None,
        penalties: Vec::new(),
        ..problem.clone()
    };
    place_in_order(&pinned, &order, Fit::First, &Meter::unlimited()).is_some()
}

/// Places buffers in `order` (pinned buffers must come first); buffers not in
/// `order` are treated as absent and get offset 0. `None` when a pinned
/// buffer clashes with another or with a reserved range, or when the
/// budget of `meter` runs out (then `meter.spent()`).
pub(crate) fn place_in_order(
    problem: &Problem,
    order: &[u32],
    fit: Fit,
    meter: &Meter,
) -> Option<Vec<u64>> {
    match pass(problem, order, fit, meter, false) {
        Pass::Done(offsets) => Some(offsets),
        Pass::Clash | Pass::Cut { .. } => None,
    }
}

/// [`place_in_order`], except that a pass the budget cuts short keeps the
/// buffers it placed and finishes the rest on the skyline
/// ([`complete_rest`], `O(n log n)` work), so a cut pass still yields a
/// valid placement close to the greedy's instead of nothing. `None` only
/// when pinned buffers clash.
pub(crate) fn place_or_complete(
    problem: &Problem,
    order: &[u32],
    fit: Fit,
    meter: &Meter,
) -> Option<Vec<u64>> {
    complete_pass(
        problem,
        order,
        pass(problem, order, fit, meter, false),
        meter,
    )
}

/// [`place_or_complete`] by first-fit, with the long buffers whose
/// lifetimes nest placed by the stack rule where the pass is crowded
/// (see [`first_fit_crowded`]): the first placement of large traces
/// ([`super::huge`]). The other passes keep plain first-fit, so orders
/// tried after it differ in every buffer.
///
/// Under a time limit a crowded plain problem is first placed by the
/// sweep ([`sweep`]), then the pass runs unless it cannot finish in the
/// time left ([`pass_cannot_finish`]); a pass that finishes is kept
/// unless the sweep with the long buffers among the rest
/// ([`sweep_together`]) is lower, and a pass the limit cuts is dropped, not
/// completed: its skyline completion was several percent above the bound
/// at a million buffers (4.6 to 47 % at limits of 1 and 2 s), the sweep
/// within a tenth of a percent. Trying the pass therefore costs only time
/// the limit grants, and the limit, not an estimate, ends a pass that
/// might finish. A skipped pass gives the budget up ([`Meter::give_up`])
/// with the time left and what the pass needs.
///
/// `order` is [`size_order`], sorted here only when a pass runs (a tenth
/// of a second at a million buffers) and kept for the caller.
///
/// `bound` is a lower bound of the problem that another thread may have
/// set by the time the sweep ends: a sweep placed at it is the answer,
/// and the pass does not run (at a million buffers the sweep met the
/// co-live bound of several generated training steps, and the pass then
/// only held the run until the limit).
pub(crate) fn place_stacked_or_complete(
    problem: &Problem,
    order: &OnceCell<Vec<u32>>,
    meter: &Meter,
    bound: &OnceLock<u64>,
) -> Option<Vec<u64>> {
    place_stacked_timed(problem, order, meter, bound, thread_cpu)
}

/// [`place_stacked_or_complete`] with the sweep's CPU time read from `cpu`
/// (tests give it a clock of their own).
fn place_stacked_timed(
    problem: &Problem,
    order: &OnceCell<Vec<u32>>,
    meter: &Meter,
    bound: &OnceLock<u64>,
    cpu: CpuClock,
) -> Option<Vec<u64>> {
    let swept = match meter.time_left() {
        Some(_) if crowded(problem) => {
            let before = cpu();
            sweep(problem, &|| meter.time_is_up()).map(|o| {
                let took = before.zip(cpu()).map(|(b, a)| a.saturating_sub(b));
                (o, took)
            })
        }
        _ => None,
    };
    let Some((swept, took)) = swept else {
        let order = order.get_or_init(|| size_order(problem).unwrap_or_default());
        return complete_pass(
            problem,
            order,
            pass(problem, order, Fit::First, meter, true),
            meter,
        );
    };
    if bound
        .get()
        .is_some_and(|&lb| height_of(problem, &swept) <= lb)
    {
        return Some(swept);
    }
    let left = meter.time_left().unwrap_or_default();
    if let Some((took, need)) = took.and_then(|t| pass_cannot_finish(left, t).map(|n| (t, n))) {
        // Every later step of the large traces' chain is a pass or more
        // (best-fit, first-fit in other orders, each completed when cut):
        // at a million buffers they only ran past the limit.
        meter.give_up(format!(
            "{:.3} s left before the deadline, a first-fit pass at {} buffers needs at \
             least {PASS_PER_SWEEP_AT_LEAST} sweeps of CPU time (~{:.3} s; the sweep took \
             {:.3} s of CPU)",
            left.as_secs_f64(),
            problem.len(),
            need.as_secs_f64(),
            took.as_secs_f64()
        ));
        return Some(swept);
    }
    let order = order.get_or_init(|| size_order(problem).unwrap_or_default());
    match first_fit_crowded(problem, order, meter, true, false) {
        Pass::Done(o) => {
            // Beside a whole pass, the sweep with the long buffers by
            // start among the rest (see [`sweep_together`]).
            let together =
                sweep_together(problem, &|| meter.time_is_up()).unwrap_or_else(|| o.clone());
            if height_of(problem, &o) <= height_of(problem, &together) {
                Some(o)
            } else {
                Some(together)
            }
        }
        _ => Some(swept),
    }
}

/// The least CPU time of a first-fit pass after the sweep ([`sweep`]), in
/// multiples of the sweep's own CPU time, both measured on the thread that
/// runs them (generated training steps, load 6 to 11): 6.1 to 8.4 at
/// 10,000 buffers (seeds 500 to 509), 6.5 to 12.7 at 100,000 (the same
/// seeds), 8 to 20 at 1,000,000. Two thirds of the least, so the pass is
/// skipped only where it cannot finish, not where it might. Those sweeps
/// stepped over every merged run below each answer; the sweep now skips
/// the gaps too narrow for a buffer (a third of the CPU time at a million
/// buffers, 1.43 -> 0.43 s on `trace-609`) and sweeps the long buffers
/// outside the family apart (0.45 to 0.97 s in all at load 6 to 9), so
/// at a million buffers the ratio only grew and four is still below the
/// least (not measured again at 10,000 and 100,000).
const PASS_PER_SWEEP_AT_LEAST: u32 = 4;

/// The CPU time a first-fit pass needs at least, when `left` (time to the
/// deadline) cannot hold it; `None` when the pass may finish.
///
/// CPU time, not wall time: the pass runs on this thread, so it needs at
/// least its CPU time of the clock, whatever the load; the sweep's wall
/// time grows with the load (a loaded machine made 0.2 s of a 100,000-
/// buffer sweep's wall time into an estimate of 2 s for a pass that took
/// 1.5 s), its CPU time much less. The pass is skipped only when even
/// the least it has taken cannot fit.
fn pass_cannot_finish(left: Duration, sweep_cpu: Duration) -> Option<Duration> {
    let need = sweep_cpu.saturating_mul(PASS_PER_SWEEP_AT_LEAST);
    (left < need).then_some(need)
}

/// A clock of the calling thread's CPU time (`None`: none on this
/// platform).
type CpuClock = fn() -> Option<Duration>;

/// CPU time used by the calling thread.
#[cfg(unix)]
fn thread_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the call only writes it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

/// Without a thread CPU clock the pass always runs: the limit cuts it.
#[cfg(not(unix))]
fn thread_cpu() -> Option<Duration> {
    None
}

/// The placement of a pass in `order`, a cut one completed on the
/// skyline ([`complete_rest`]).
fn complete_pass(problem: &Problem, order: &[u32], pass: Pass, meter: &Meter) -> Option<Vec<u64>> {
    match pass {
        Pass::Done(offsets) => Some(offsets),
        Pass::Clash => None,
        Pass::Cut {
            offsets,
            placed,
            stacked,
        } => complete_rest(problem, order, placed, &stacked, offsets, meter),
    }
}

/// How a greedy pass ended.
enum Pass {
    /// Every buffer of the order placed.
    Done(Vec<u64>),
    /// A pinned buffer clashes with another or with a reserved range.
    Clash,
    /// The budget ran out after the first `placed` buffers of the order;
    /// those marked in `stacked` (empty: none) are placed too.
    Cut {
        offsets: Vec<u64>,
        placed: usize,
        stacked: Vec<bool>,
    },
}

/// Buffers live at once, on average over time, from which first-fit takes
/// merged byte ranges ([`Occupancy`]) rather than every buffer met.
const CROWDED: u128 = 64;

/// True for a plain problem (no pairs, pins or reserved ranges) with
/// [`CROWDED`] buffers or more live at once on average over its time span
/// (summed lifetimes over the span: linear work, no sort).
fn crowded(problem: &Problem) -> bool {
    if !problem.conflicts.is_empty()
        || !problem.compatible.is_empty()
        || !problem.reserved.is_empty()
        || problem.len() < 2 * CROWDED as usize
    {
        return false;
    }
    let (mut first, mut last, mut lives) = (u64::MAX, 0u64, 0u128);
    for b in &problem.buffers {
        if b.fixed_offset.is_some() {
            return false;
        }
        if b.size > 0 && b.lower < b.upper {
            first = first.min(b.lower);
            last = last.max(b.upper);
            lives += (b.upper - b.lower) as u128;
        }
    }
    first < last && lives >= CROWDED * (last - first) as u128
}

/// Time a cut crowded pass leaves for its completion, in multiples of the
/// time its tree took to build. Measured on 1,000,000-buffer traces the
/// skyline completion once took 3 to 4 times as long as that build (1.55 s
/// against 0.40 to 0.50 s on a loaded 2-core machine); since it fetches
/// its buffers ahead it took 1.0 to 2.4 times as long (six runs at 5 s,
/// load 8.6: 0.71 to 1.18 s against builds of 0.38 to 0.70 s), and a
/// reserve of 4 left 0.8 to 1.0 s of the limit unused. Where the reserve
/// falls short the completion stacks the smallest buffers left (it reads
/// the clock as it goes), which adds their sizes to the height: little
/// at the tail of the size order.
const COMPLETION_RESERVE: u32 = 2;

/// Time a crowded pass needs before its tree is allocated, in multiples
/// of the sort of the lifetime ends that precedes the allocation (the same
/// `O(n log n)` kind of work, timed on the same thread under the same
/// load): the rest of the build plus the skyline completion of a pass cut
/// at once. Measured on 1,000,000-buffer traces (2 cores): idle, the sort
/// took 0.14 s, the rest of the build 0.12 s and the completion of nearly
/// every buffer 0.59 s (4.2 + 0.9 sorts); with two busy loops beside it,
/// 0.23 s, 0.25 s and 2.03 s (8.8 + 1.1 sorts). With less time left the
/// pass is cut before the tree exists: building it would only push the
/// completion past the limit, and a pass cut at once places nothing.
const BUILD_AND_COMPLETION_PER_SORT: u32 = 16;

/// How many buffers ahead a crowded pass asks for the nodes of a
/// buffer's queries, and for the first ranges of their sets (see
/// [`Occupancy::prefetch`]).
const PREFETCH_NODES: usize = 8;
const PREFETCH_SETS: usize = 4;

/// First-fit in `order` over merged byte ranges: the placement of the
/// time-index pass, with work per buffer that grows with the ranges met,
/// not with the buffers live with it (see [`Occupancy`]). For problems
/// [`crowded`] accepts.
///
/// With `stack`, the long buffers whose lifetimes nest are placed first
/// by the stack rule, when they are most of the long ones
/// ([`Occupancy::stack_nested`]: a training step's weights, moments and
/// saved activations), and the pass places the rest above them: no
/// longer first-fit's placement of every buffer, but about half the work
/// at a million buffers, and as low on the generated training steps.
///
/// Under a time limit the pass does not start when the time left is
/// below [`BUILD_AND_COMPLETION_PER_SORT`] times the sort of the lifetime
/// ends, and it stops once no more than [`COMPLETION_RESERVE`] times the
/// time it took to build the tree is left, so the skyline completion of a
/// cut pass (the same order of work: a sort of the lifetime ends and a
/// tree over them) ends within the limit.
///
/// Without `complete` the pass neither checks for that time nor keeps a
/// reserve: it runs to the deadline (its caller drops a cut pass and has
/// decided whether it may finish, see [`place_stacked_or_complete`]).
fn first_fit_crowded(
    problem: &Problem,
    order: &[u32],
    meter: &Meter,
    stack: bool,
    complete: bool,
) -> Pass {
    let b = &problem.buffers;
    let mut offsets = vec![0u64; b.len()];
    let before = meter.time_left();
    let ends = Occupancy::ends(b.iter().filter(|x| x.size > 0).map(|x| (x.lower, x.upper)));
    let sorted = meter.time_left();
    if let Some((then, now)) = before.zip(sorted).filter(|_| complete) {
        let sort = then.saturating_sub(now);
        let need = sort.saturating_mul(BUILD_AND_COMPLETION_PER_SORT);
        if now <= need {
            if now.is_zero() {
                // The deadline passed during the sort: the limit, not a
                // give-up, ends the run.
                meter.mark_spent();
            } else {
                meter.give_up(format!(
                    "{:.3} s left before the deadline, a crowded first-fit pass at {} buffers \
                     needs ~{BUILD_AND_COMPLETION_PER_SORT} sorts of the lifetime ends for its \
                     tree and completion (~{:.3} s; the sort took {:.3} s)",
                    now.as_secs_f64(),
                    b.len(),
                    need.as_secs_f64(),
                    sort.as_secs_f64()
                ));
            }
            return Pass::Cut {
                offsets,
                placed: 0,
                stacked: Vec::new(),
            };
        }
    }
    let mut occupancy = Occupancy::over(ends);
    // The reserve scales with the sort and the allocation, the work the
    // completion repeats; the plan below is the pass's own.
    let reserve = before.zip(meter.time_left()).map(|(then, now)| {
        let factor = if complete { COMPLETION_RESERVE } else { 0 };
        then.saturating_sub(now).saturating_mul(factor)
    });
    let mut stacked = Vec::new();
    if stack {
        let members = occupancy.stack_nested(
            b.iter()
                .enumerate()
                .map(|(i, x)| (i as u32, x.lower, x.upper, x.size, x.align)),
        );
        if !members.is_empty() {
            stacked = vec![false; b.len()];
            for (i, o) in members {
                stacked[i as usize] = true;
                offsets[i as usize] = o;
            }
        }
    }
    let is_stacked = |i: u32| stacked.get(i as usize).copied().unwrap_or(false);
    occupancy.plan(
        order
            .iter()
            .filter(|&&i| !is_stacked(i))
            .map(|&i| &b[i as usize])
            .filter(|x| x.size > 0)
            .map(|x| (x.lower, x.upper)),
    );
    for (k, &i) in order.iter().enumerate() {
        let x = &b[i as usize];
        if x.size == 0 || is_stacked(i) {
            continue;
        }
        for (ahead, deep) in [(PREFETCH_NODES, true), (PREFETCH_SETS, false)] {
            occupancy.prefetch(ahead, deep);
        }
        // Read at every buffer: the largest buffers come first and one of
        // them may take milliseconds (a few hundred took over a second on
        // a loaded machine), while a reading costs nanoseconds.
        if reserve.is_some_and(|r| meter.time_left().is_some_and(|l| l <= r)) {
            // The time left is the completion's: the pass was cut by the
            // time limit, and what follows must not start new work.
            meter.mark_spent();
            // Freeing the tree's millions of small range lists took 0.2 to
            // 0.5 s at a million buffers: a thread of its own does it while
            // the completion runs (here, should no thread start).
            let _ = std::thread::Builder::new().spawn(move || drop(occupancy));
            return Pass::Cut {
                offsets,
                placed: k,
                stacked,
            };
        }
        let (o, examined) = occupancy.place(x.lower, x.upper, x.size, x.align);
        offsets[i as usize] = o;
        if !meter.charge_obstacles(examined) {
            return Pass::Cut {
                offsets,
                placed: k + 1,
                stacked,
            };
        }
    }
    Pass::Done(offsets)
}

/// Completes a cut pass: `order[..placed]` keep their offsets, the rest
/// go in order on the skyline of their lifetimes ([`skyline::complete`]),
/// avoiding reserved ranges, pinned buffers not yet placed and their placed
/// conflict partners. `None` when pinned buffers clash (only possible if
/// the cut came before all pinned buffers were placed).
fn complete_rest(
    problem: &Problem,
    order: &[u32],
    placed: usize,
    stacked: &[bool],
    mut offsets: Vec<u64>,
    meter: &Meter,
) -> Option<Vec<u64>> {
    let b = &problem.buffers;
    let mut done = stacked.to_vec();
    done.resize(b.len(), false);
    for &i in &order[..placed] {
        done[i as usize] = true;
    }
    let is_stacked = |i: u32| stacked.get(i as usize).copied().unwrap_or(false);
    let mut taken = sorted_reserved(problem);
    let mut pinned_left = false;
    // Looked up buffer by buffer only when the problem pins any: in size
    // order each look-up is a cache miss of its own, a million of them
    // in a completion that may have only the time left before a limit.
    let pins = b.iter().any(|x| x.fixed_offset.is_some());
    for &i in order[placed..].iter().filter(|_| pins) {
        if let Some(o) = b[i as usize].fixed_offset {
            pinned_left = true;
            if b[i as usize].size > 0 {
                taken.push((o, o + b[i as usize].size));
            }
        }
    }
    taken.sort_unstable();
    let conflicts = if problem.conflicts.is_empty() {
        Vec::new()
    } else {
        conflict_lists(problem)
    };
    skyline::complete_within(
        problem,
        &mut offsets,
        &mut done,
        order[placed..]
            .iter()
            .filter(|&&i| !is_stacked(i))
            .map(|&i| i as usize),
        &taken,
        &|i| {
            conflicts
                .get(i)
                .map_or_else(Vec::new, |c| c.iter().map(|&j| j as usize).collect())
        },
        &|x, i| align_up(x, b[i].align),
        // The deadline only: a pass cut by its work budget, or stopped
        // by a race, completes on the skyline as before.
        &|| meter.time_left(),
    );
    (!pinned_left || pinned_are_consistent(problem)).then_some(offsets)
}

/// The greedy pass behind [`place_in_order`] and [`place_or_complete`].
fn pass(problem: &Problem, order: &[u32], fit: Fit, meter: &Meter, stack: bool) -> Pass {
    if fit == Fit::First && crowded(problem) {
        return first_fit_crowded(problem, order, meter, stack, true);
    }
    let n = problem.buffers.len();
    let mut index = TimeIndex::new(problem);
    let reserved = sorted_reserved(problem);
    let conflicts = conflict_lists(problem);
    let compatible = problem.compatible_lists();
    let mut offsets = vec![0u64; n];
    let mut placed = vec![false; n];
    let mut obstacles: Vec<(u64, u64)> = Vec::new();
    for (k, &b) in order.iter().enumerate() {
        let b = b as usize;
        let buf = &problem.buffers[b];
        if buf.size == 0 {
            offsets[b] = buf.fixed_offset.unwrap_or(0);
        } else {
            obstacles.clear();
            obstacles.extend_from_slice(&reserved);
            if compatible[b].is_empty() {
                index.for_each_overlap(buf.lower, buf.upper, |s, e| obstacles.push((s, e)));
            } else {
                let mine = &compatible[b];
                index.for_each_overlap_id(buf.lower, buf.upper, |id, s, e| {
                    if mine.binary_search(&id).is_err() {
                        obstacles.push((s, e));
                    }
                });
            }
            for &x in &conflicts[b] {
                let x = x as usize;
                if placed[x] {
                    obstacles.push((offsets[x], offsets[x] + problem.buffers[x].size));
                }
            }
            if !meter.charge_obstacles(obstacles.len()) {
                return Pass::Cut {
                    offsets,
                    placed: k,
                    stacked: Vec::new(),
                };
            }
            obstacles.sort_unstable_by_key(|o| o.0);
            let o = match (buf.fixed_offset, fit) {
                (Some(o), _) => {
                    if first_fit(&obstacles, o, buf.size, 1) != o {
                        return Pass::Clash;
                    }
                    o
                }
                (None, Fit::First) => first_fit(&obstacles, 0, buf.size, buf.align),
                (None, Fit::Best) => best_fit(&obstacles, buf.size, buf.align),
            };
            offsets[b] = o;
        }
        placed[b] = true;
        index.place_id(b as u32, buf, offsets[b]);
    }
    Pass::Done(offsets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, Solution};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// The packed keys give the order of the (pinned, size, start, id)
    /// tuples, and problems they cannot hold (pins, late starts) take
    /// the tuples.
    #[test]
    fn size_order_packed_and_tuple_keys_agree() {
        let tuples = |p: &Problem| -> Vec<u32> {
            let mut k: Vec<_> = (0..p.len())
                .map(|i| {
                    let b = &p.buffers[i];
                    (
                        b.fixed_offset.is_none(),
                        std::cmp::Reverse(b.size),
                        b.lower,
                        i as u32,
                    )
                })
                .collect();
            k.sort();
            k.into_iter().map(|k| k.3).collect()
        };
        let mut rng = crate::gen::Rng(3);
        for round in 0..30 {
            let mut p = Problem::new();
            for _ in 0..200 {
                // Few distinct sizes and starts: ties on both are common.
                let size = [0, 1, 32, 33, u64::MAX / 2][rng.below(5) as usize];
                let lower = match round % 3 {
                    0 => rng.below(4),
                    1 => u64::from(u32::MAX) - rng.below(3),
                    _ => rng.below(4) << 33,
                };
                let mut b = Buffer::new(size, lower, lower + 1 + rng.below(5));
                if round % 5 == 4 && rng.below(10) == 0 {
                    b = b.with_fixed_offset(rng.below(100));
                }
                p.push(b);
            }
            assert_eq!(size_order(&p).expect("order"), tuples(&p), "round {round}");
        }
    }

    /// The first placement of a generated training step stacks its
    /// weights and moments (first in the trace, the whole step each) from
    /// 0 in the order of the trace, and is valid; a pass cut at once by
    /// the clock keeps the stacked family and completes the rest around
    /// it, valid too. On a problem whose lifetimes do not nest (random
    /// intervals) the placement is plain first-fit's.
    #[test]
    fn the_first_pass_stacks_a_training_steps_nested_buffers() {
        let p = crate::gen::training_step(1, 4_000);
        assert!(crowded(&p));
        let order = size_order(&p).expect("no pins");
        let offsets = place_stacked_or_complete(
            &p,
            &OnceCell::from(order.clone()),
            &Meter::unlimited(),
            &OnceLock::new(),
        )
        .expect("no pins");
        let whole = p.buffers.iter().filter(|b| b.lower == p.buffers[0].lower);
        let mut top = 0;
        for (i, b) in whole.enumerate() {
            assert_eq!(offsets[i], top, "weight or moment {i}");
            top += b.size;
        }
        assert!(top > 0);
        crate::validate::validate(&p, &Solution { offsets }).expect("valid");
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_millis(500)))
            .with_clock(ticking);
        let cut = place_stacked_or_complete(
            &p,
            &OnceCell::from(order.clone()),
            &Meter::new(&budget),
            &OnceLock::new(),
        )
        .expect("no pins");
        crate::validate::validate(&p, &Solution { offsets: cut }).expect("valid when cut");

        let mut rng = crate::gen::Rng(21);
        let mut q = Problem::new();
        for _ in 0..3_000 {
            let l = rng.below(2_000);
            q.push(Buffer::new(
                32 * (1 + rng.below(64)),
                l,
                l + 2 + rng.below(1_500),
            ));
        }
        assert!(crowded(&q));
        let order = size_order(&q).expect("no pins");
        assert_eq!(
            place_stacked_or_complete(
                &q,
                &OnceCell::from(order.clone()),
                &Meter::unlimited(),
                &OnceLock::new()
            ),
            place_or_complete(&q, &order, Fit::First, &Meter::unlimited())
        );
    }

    /// A clock that advances a millisecond each time it is read (its own
    /// count: tests run side by side).
    fn stepping() -> Duration {
        static READS: AtomicU64 = AtomicU64::new(0);
        Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed))
    }

    /// A CPU clock that advances a millisecond each time it is read (its
    /// own count): the sweep takes a millisecond of CPU time.
    fn cpu_stepping() -> Option<Duration> {
        static READS: AtomicU64 = AtomicU64::new(0);
        Some(Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed)))
    }

    /// A CPU clock that does not move: the sweep takes no CPU time.
    fn cpu_frozen() -> Option<Duration> {
        Some(Duration::ZERO)
    }

    /// Under a time limit the first placement of a crowded trace is the
    /// sweep's when the time left after it holds fewer than
    /// [`PASS_PER_SWEEP_AT_LEAST`] sweeps of CPU time (the sweep took a
    /// millisecond of it), and the budget is then given up; with time for
    /// the pass, the lower of the pass and the sweep with the long buffers
    /// among the rest (the pass on a tie): the pass on generated training
    /// steps, the sweep on a random problem. Without a time limit there is
    /// no sweep.
    #[test]
    fn under_a_time_limit_the_sweep_comes_first() {
        let sweep_wins = |p: &Problem| {
            assert!(crowded(p));
            let order = size_order(p).expect("no pins");
            let swept = sweep(p, &|| false).expect("dense");
            let together = sweep_together(p, &|| false).expect("dense");
            let passed = match pass(p, &order, Fit::First, &Meter::unlimited(), true) {
                Pass::Done(o) => o,
                _ => unreachable!("no limit"),
            };
            let unlimited = place_stacked_or_complete(
                p,
                &OnceCell::from(order.clone()),
                &Meter::unlimited(),
                &OnceLock::new(),
            );
            assert_eq!(unlimited.as_ref(), Some(&passed));
            let limited = |ms: u64| {
                let budget = Budget::default()
                    .with_time_limit(Some(Duration::from_millis(ms)))
                    .with_clock(stepping);
                let meter = Meter::new(&budget);
                let o = place_stacked_timed(
                    p,
                    &OnceCell::new(),
                    &meter,
                    &OnceLock::new(),
                    cpu_stepping,
                )
                .expect("no pins");
                (o, meter.spent(), meter.gave_up())
            };
            // 5 ms: 4.75 to the deadline, 2.75 left after the sweep (two
            // readings of the clock), less than 4 sweeps of CPU time; the
            // budget is given up, not reached, and the reason says so.
            let why = format!(
                "0.003 s left before the deadline, a first-fit pass at {} buffers needs at \
                 least 4 sweeps of CPU time (~0.004 s; the sweep took 0.001 s of CPU)",
                p.len()
            );
            assert_eq!(limited(5), (swept.clone(), true, Some(why)));
            let won = height_of(p, &together) < height_of(p, &passed);
            let lower = if won { together } else { passed };
            assert_eq!(limited(3_600_000), (lower, false, None));
            won
        };
        for seed in 0..4 {
            let p = crate::gen::training_step(seed, 1_500);
            assert!(!sweep_wins(&p), "seed {seed}");
        }
        // 387 buffers over 24 instants: the sweep is 2,503 high, the pass
        // 2,516.
        let mut rng = crate::gen::Rng(7);
        let mut p = Problem::new();
        let n = 300 + rng.below(300);
        let span = 20 + rng.below(100);
        for _ in 0..n {
            let l = rng.below(span);
            let u = l + 1 + rng.below(span / 2 + 1);
            p.push(Buffer::new(1 + rng.below(8) * (1 + rng.below(8)), l, u));
        }
        assert_eq!((p.len(), span), (387, 24));
        assert!(sweep_wins(&p));
    }

    /// A sweep placed at a lower bound that another thread has set by
    /// the time the sweep ends is the answer, and the pass does not run:
    /// on this training step the pass is lower than the sweep, so a bound
    /// set at the sweep's height (standing in for a co-live bound the
    /// sweep met) keeps the sweep, a bound below it or none the pass.
    #[test]
    fn a_sweep_at_the_bound_set_beside_it_skips_the_pass() {
        let p = crate::gen::training_step(0, 1_500);
        let swept = sweep(&p, &|| false).expect("dense");
        let h = height_of(&p, &swept);
        let run = |bound: Option<u64>| {
            let budget = Budget::default()
                .with_time_limit(Some(Duration::from_secs(3600)))
                .with_clock(stepping);
            let meter = Meter::new(&budget);
            let cell = OnceLock::new();
            if let Some(b) = bound {
                cell.set(b).expect("empty");
            }
            let o = place_stacked_timed(&p, &OnceCell::new(), &meter, &cell, cpu_stepping)
                .expect("no pins");
            (o, meter.gave_up())
        };
        assert_eq!(run(Some(h)), (swept, None));
        let (passed, _) = run(None);
        assert!(height_of(&p, &passed) < h);
        assert_eq!(run(Some(h - 1)), (passed, None));
    }

    /// A wall clock that advances a millisecond each time it is read (its
    /// own count).
    fn loaded() -> Duration {
        static READS: AtomicU64 = AtomicU64::new(0);
        Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed))
    }

    /// On a loaded machine the sweep's wall time says little about the
    /// pass: here the sweep takes a millisecond of the clock and none of
    /// CPU time, and 9.4 ms are left after it. Fewer than ten sweeps of
    /// wall time (the rule this replaced gave the budget up there, with
    /// most of the limit unused), but the pass may finish, so it runs: the
    /// limit cuts it (the crowded pass reads the clock at every buffer),
    /// the sweep's placement is kept, and the limit, not a give-up, ends
    /// the run.
    #[test]
    fn a_pass_that_may_finish_runs_until_the_limit_whatever_the_sweep_took_on_the_clock() {
        let mut p = Problem::new();
        for i in 0..256u64 {
            p.push(Buffer::new(32 * (1 + (i * 37) % 11), i % 8, 100 + i % 8));
        }
        assert!(crowded(&p));
        let swept = sweep(&p, &|| false).expect("dense");
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_millis(12)))
            .with_clock(loaded);
        let meter = Meter::new(&budget);
        let o = place_stacked_timed(&p, &OnceCell::new(), &meter, &OnceLock::new(), cpu_frozen)
            .expect("no pins");
        assert_eq!((o, meter.spent(), meter.gave_up()), (swept, true, None));
        assert_eq!(meter.time_left(), Some(Duration::ZERO));
    }

    /// The pass is skipped only when the time left is below
    /// [`PASS_PER_SWEEP_AT_LEAST`] sweeps of CPU time.
    #[test]
    fn a_pass_cannot_finish_below_its_least_cpu_time() {
        let ms = Duration::from_millis;
        assert_eq!(pass_cannot_finish(ms(399), ms(100)), Some(ms(400)));
        assert_eq!(pass_cannot_finish(ms(400), ms(100)), None);
        assert_eq!(pass_cannot_finish(ms(0), ms(0)), None);
    }

    fn ticking() -> Duration {
        static READS: AtomicU64 = AtomicU64::new(0);
        Duration::from_millis(READS.fetch_add(1, Ordering::Relaxed))
    }

    /// With the ticking clock the sort of the lifetime ends takes one
    /// millisecond: a crowded pass with less than
    /// [`BUILD_AND_COMPLETION_PER_SORT`] of them left is cut before it
    /// places anything; with more it places buffers until the reserve for
    /// its completion is reached (every buffer reads the clock). Either
    /// way the completion yields a valid placement.
    #[test]
    fn a_crowded_pass_starts_only_with_time_for_its_tree_and_completion() {
        let mut p = Problem::new();
        for i in 0..2_000u64 {
            p.push(Buffer::new(
                32 * (1 + (i * 7919) % 97),
                i % 50,
                1_000 + i % 50,
            ));
        }
        assert!(crowded(&p));
        let order = size_order(&p).expect("no pins");
        let placed_within = |ms: u64| {
            let budget = Budget::default()
                .with_time_limit(Some(Duration::from_millis(ms)))
                .with_clock(ticking);
            let meter = Meter::new(&budget);
            let placed = match first_fit_crowded(&p, &order, &meter, false, true) {
                Pass::Cut { placed, .. } => placed,
                Pass::Done(_) => order.len(),
                Pass::Clash => unreachable!("no pins"),
            };
            assert!(placed == order.len() || meter.spent(), "{ms} ms");
            let meter = Meter::new(&budget);
            let offsets = place_or_complete(&p, &order, Fit::First, &meter).expect("no pins");
            crate::validate::validate(&p, &Solution { offsets }).expect("valid");
            placed
        };
        // 18 ms: 17.1 to the deadline, 15.1 left after the sort, below 16
        // sorts (without the check the tree would be built and a few
        // buffers placed before the reserve of 4 ms).
        assert_eq!(placed_within(18), 0);
        // 2 ms: the deadline (1.9 ms) passes during the sort: the limit,
        // not a give-up, ends the run.
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_millis(2)))
            .with_clock(ticking);
        let meter = Meter::new(&budget);
        let cut = first_fit_crowded(&p, &order, &meter, false, true);
        assert!(matches!(cut, Pass::Cut { placed: 0, .. }));
        assert_eq!((meter.spent(), meter.gave_up()), (true, None));
        // 200 ms: the pass runs until the reserve (twice the build time of
        // 2 readings) is reached, one reading per buffer.
        let placed = placed_within(200);
        assert!(placed > 100 && placed < 200, "{placed}");
    }

    /// 3,000 buffers of staggered lifetimes (about 170 live at once).
    fn staggered() -> Problem {
        let mut p = Problem::new();
        for i in 0..3_000u64 {
            let lower = (i * 37) % 2_000;
            p.push(Buffer::new(
                32 * (1 + (i * 7919) % 97),
                lower,
                lower + 100 + i % 50,
            ));
        }
        p
    }

    /// A clock that advances ten milliseconds each time it is read.
    fn leaping() -> Duration {
        static READS: AtomicU64 = AtomicU64::new(0);
        Duration::from_millis(10 * READS.fetch_add(1, Ordering::Relaxed))
    }

    /// A pass cut at once leaves its completion to the skyline; past the
    /// deadline the completion stops raising it and stacks the buffers
    /// left above everything placed, and the placement stays valid. The
    /// leaping clock puts the deadline (38 ms) behind the fourth reading:
    /// the pass is cut before its tree (second reading, 18 ms left), the
    /// completion finds time left at its start (third), places its first
    /// 1,024 buffers as it would without a limit (the clock is read only
    /// between chunks) and stacks the rest. A completion that starts
    /// with the time up stacks every buffer (no skyline is built).
    #[test]
    fn a_completion_past_the_deadline_stacks_the_buffers_left() {
        // The skyline reuses bytes that stacking cannot.
        let p = staggered();
        assert!(crowded(&p));
        let order = size_order(&p).expect("no pins");
        let unlimited =
            place_or_complete(&p, &order, Fit::First, &Meter::unlimited()).expect("no pins");
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_millis(38)))
            .with_clock(leaping);
        let meter = Meter::new(&budget);
        let offsets = match first_fit_crowded(&p, &order, &meter, false, true) {
            Pass::Cut {
                offsets, placed, ..
            } => {
                assert_eq!(placed, 0);
                complete_rest(&p, &order, 0, &[], offsets, &meter).expect("no pins")
            }
            _ => panic!("the pass should be cut before its tree"),
        };
        crate::validate::validate(
            &p,
            &Solution {
                offsets: offsets.clone(),
            },
        )
        .expect("valid");
        // The first chunk goes on the skyline alone: the placement a
        // completion of the whole order from nothing gives it.
        let mut alone = vec![0u64; p.len()];
        let mut done = vec![false; p.len()];
        skyline::complete(
            &p,
            &mut alone,
            &mut done,
            order[..1024].iter().map(|&i| i as usize),
            &[],
            &|_| Vec::new(),
            &|x, i| align_up(x, p.buffers[i].align),
            &|| false,
        );
        let top = order[..1024]
            .iter()
            .map(|&i| {
                let i = i as usize;
                assert_eq!(offsets[i], alone[i], "buffer {i}");
                offsets[i] + p.buffers[i].size
            })
            .max()
            .expect("buffers");
        // The rest one above the other, in order, from that top.
        let mut next = top;
        for &i in &order[1024..] {
            let i = i as usize;
            assert_eq!(offsets[i], next, "buffer {i}");
            next += p.buffers[i].size;
        }
        // Without a limit the same completion keeps the skyline to the end.
        let lowest = |o: &[u64]| (0..p.len()).map(|i| o[i] + p.buffers[i].size).max();
        assert!(lowest(&unlimited) < lowest(&offsets));
        // With the time up from the start: every buffer stacked, in order,
        // from 0.
        let mut stacked = vec![0u64; p.len()];
        let mut done = vec![false; p.len()];
        skyline::complete(
            &p,
            &mut stacked,
            &mut done,
            order.iter().map(|&i| i as usize),
            &[],
            &|_| Vec::new(),
            &|x, i| align_up(x, p.buffers[i].align),
            &|| true,
        );
        let mut next = 0;
        for &i in &order {
            assert_eq!(stacked[i as usize], next, "buffer {i}");
            next += p.buffers[i as usize].size;
        }
        assert!(done.iter().all(|&d| d));
    }
}
