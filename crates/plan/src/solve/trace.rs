//! Peak-window repair: lowers a greedy placement of a large trace by solving
//! the neighbourhood of its peak exactly and placing everything else around
//! it.
//!
//! # Why
//! On traces of thousands of buffers the greedy placement usually misses the
//! lower bound because of a few instants around the peak (the instant of
//! largest live size, which fixes the bound): there every byte counts, and a
//! size-ordered greedy leaves a hole that the buffers stacked above it pay
//! for over the rest of their lifetimes. Away from the peak the live size is
//! lower and greedy placement has room to spare. The exact search solves a
//! few hundred buffers around the peak in milliseconds, but not the whole
//! trace within a budget of seconds.
//!
//! # How
//! Each round works where the current placement stands highest:
//! 1. Take the busiest instant `t` of the top buffer's lifetime and a time
//!    window `[a, z)` around it, widened until it holds the buffers live at
//!    `t` and 32 more (or an eighth more).
//! 2. Build the window problem ([`WindowProblem`]): every buffer live in
//!    the window, its lifetime clipped to it. That only drops constraints,
//!    so its optimum is a lower bound for the whole problem (the *floor*).
//! 3. Solve it with the exact search (within a work cap, and within half
//!    of the time left). A window problem the search cannot prove optimal
//!    within them ends the repair: its placement would depend on the speed
//!    of the machine.
//! 4. Pin its buffers where its solution puts them (over their whole
//!    lifetimes) and re-place the rest of their *zone* (the buffers live
//!    during some window buffer's lifetime) first-fit in size order around
//!    them ([`place_zone`]); every buffer outside the zone keeps its
//!    offset, so a round costs work in proportion to the zone, not to the
//!    trace (a round that re-placed all 100,000 buffers of a trace took a
//!    quarter second, and the budget ran out after a few rounds).
//! 5. Keep the result when the zone's top is below the current height (the
//!    zone holds the top buffer, so the height drops or another place at
//!    the same height remains); stop at the floor (the placement is then
//!    optimal). When the placement stands highest inside a window tried
//!    before, that window wants twice as many extra buffers; elsewhere a
//!    new window opens. Repeat until the budget is spent, until a window
//!    would hold more than half of the buffers (or 4,000: the exact
//!    search's job, not the repair's), after 6 rounds in a row without a gain
//!    (neither lower nor a higher floor), or for at most 256 rounds.
//!
//! # Assumes
//! A plain problem (no conflict or penalty pairs, no pinned buffers, no
//! reserved ranges; alignments allowed) and a valid incumbent placement of
//! it. Other problems are returned unchanged.
//!
//! # Guarantees
//! The returned placement respects every hard rule (the window buffers keep
//! their exact-search offsets, which avoid each other over the window, and
//! every other buffer is placed against all buffers it is live with; two
//! window buffers live together anywhere are live together inside the
//! window, which [`place_zone`] checks again; a window buffer is live only
//! with zone buffers). It is never
//! higher than the incumbent. The result depends only on the problem and the
//! incumbent, except that a window search the time limit cuts short ends
//! the repair (on a slower machine fewer rounds may count). The floor it
//! reports is a lower bound on every placement of the problem; each rise
//! of it is recorded on the meter ([`Meter::prove`]) with its window, so
//! the solve's outcome can say where its bound came from.

use std::time::Duration;

use super::exact::exact_run;
use super::geom::height_of;
use super::geom::{first_fit, TimeIndex};
use super::{Budget, Meter};
use crate::bound::{Bound, Rule};
use crate::problem::{Buffer, Problem};

/// Work limit of one window search, in search nodes.
const WINDOW_NODES: u64 = 400_000;
/// Rounds of the repair at most (each solves one window problem).
const MAX_ROUNDS: u32 = 256;

/// Rounds in a row that neither lower the placement nor raise the floor
/// after which the repair stops: on random interval instances the top
/// moves between windows that never gain, and the repair used its whole
/// share of the budget; on the shared traces every gain comes within a few
/// rounds of the previous one. Counted in rounds, so the stop does not
/// depend on the machine.
const STALL_ROUNDS: u32 = 6;

/// Buffers of a window problem at most: beyond, the exact search rarely
/// proves its optimum within the time of a window.
const MOST: usize = 4_000;

/// Buffers beyond those live at the peak in the first window.
const FIRST_EXTRA: usize = 32;

/// What the repair returns.
pub(crate) struct Repaired {
    /// The best placement found, never higher than the incumbent.
    pub(crate) offsets: Vec<u64>,
    /// A lower bound on the height of every placement, at least the
    /// problem's: the highest optimum of a window proven by the search (a
    /// window drops constraints, so no placement of the whole problem is
    /// lower). `offsets` at this height is optimal.
    pub(crate) floor: u64,
    /// Rounds run, and the last one that gained (lowered the placement or
    /// raised the floor; 0: none).
    pub(crate) rounds: u32,
    pub(crate) last_gain: u32,
    /// Why the rounds ended, when a rule of the repair ended them rather
    /// than the budget or the floor (`None`).
    pub(crate) stop: Option<&'static str>,
}

/// A place the repair has opened a window at.
struct Spot {
    /// The busiest instant where the placement stood highest.
    centre: u64,
    /// Buffers the window holds beyond those live at the centre (doubled
    /// each time the placement stands highest here again).
    extra: usize,
    /// The window last tried.
    window: (u64, u64),
}

/// Lowers `incumbent` (a valid placement of `problem`, whose
/// [`lower_bound`](crate::bound::lower_bound) is `lb`) by peak-window
/// repair. Work stops when `meter` (usually a part of the solve's
/// budget, see `Meter::sub`) is spent.
pub(crate) fn repair(problem: &Problem, incumbent: Vec<u64>, lb: u64, meter: &Meter) -> Repaired {
    repair_within(problem, incumbent, lb, meter, u64::MAX)
}

/// Why the repair stops at a window its search did not settle.
pub(crate) const UNSETTLED: &str = "a repair window was not settled by the exact search in time";

/// [`repair`] with each window search limited to `per_buffer` units of
/// work per buffer of its window (and to [`WINDOW_NODES`]): the repair
/// then ends at the first window that does not settle within that.
pub(crate) fn repair_within(
    problem: &Problem,
    incumbent: Vec<u64>,
    lb: u64,
    meter: &Meter,
    per_buffer: u64,
) -> Repaired {
    let mut out = Repaired {
        offsets: incumbent,
        floor: lb,
        rounds: 0,
        last_gain: 0,
        stop: None,
    };
    // The budget first: past a deadline the two passes over the buffers
    // below took 20 ms at a million buffers, time the limit no longer had.
    if !meter.alive() {
        return out;
    }
    let mut cur_h = height_of(problem, &out.offsets);
    if !is_plain(problem) || cur_h <= lb {
        return out;
    }
    let profile = Profile::new(problem);
    if profile.peak_in(0, u64::MAX).is_none() {
        return out;
    }
    let ends = Ends::new(problem);
    let total = ends.lowers.len();
    let lives = Lives::new(problem);
    let mut scratch = Scratch::new(problem.len());
    let first_extra = |t: u64| FIRST_EXTRA.max(ends.count(t, t + 1) / 8);
    let mut spots: Vec<Spot> = Vec::new();
    let mut rounds = 0;
    let mut stalled = 0;
    while rounds < MAX_ROUNDS && stalled < STALL_ROUNDS && meter.alive() {
        rounds += 1;
        out.rounds = rounds;
        stalled += 1;
        // Where does the placement stand highest? At the busiest instant
        // of its top buffer's lifetime: widen the window tried there, or
        // open one.
        let Some(top) = (0..problem.len()).max_by_key(|&i| {
            (
                out.offsets[i] + problem.buffers[i].size,
                std::cmp::Reverse(i),
            )
        }) else {
            break;
        };
        let b = &problem.buffers[top];
        let Some(t) = profile.peak_in(b.lower, b.upper) else {
            break;
        };
        let k = match spots.iter().position(|s| s.window.0 <= t && t < s.window.1) {
            Some(k) => {
                spots[k].extra *= 2;
                k
            }
            None => {
                spots.push(Spot {
                    centre: t,
                    extra: first_extra(t),
                    window: (t, t + 1),
                });
                spots.len() - 1
            }
        };
        let s = &mut spots[k];
        s.window = ends.window(s.centre, ends.count(s.centre, s.centre + 1) + s.extra);
        let window = s.window;
        // A window problem holding most of the buffers is nearly the whole
        // problem: that is the exact search's job, not the repair's.
        let Some(sub) = WindowProblem::new(problem, &[window], (total / 2).min(MOST)) else {
            out.stop = Some("the next repair window would hold too many buffers");
            break;
        };
        // The work cap ends a window that does not settle; the clock only
        // keeps a window to half of the time left. A fixed time limit
        // (0.25 s) cut windows short on a loaded machine: at 5 s and load
        // 7 to 10, on 15 of 20 generated training steps of 10,000 buffers,
        // and 7 of them ended higher than with the cap alone (`trace-19`
        // 0.315 % above the bound where the cap alone reached it), 2
        // lower. Under a node limit, work alone bounds the windows
        // (reproducible).
        let limit = meter
            .time_left()
            .filter(|_| !meter.has_node_limit())
            .map(|l| l / 2);
        let nodes = per_buffer
            .saturating_mul(sub.ids.len() as u64)
            .min(WINDOW_NODES);
        let Some((optimum, sol)) = sub.solve(limit, nodes, meter) else {
            // Not settled in time: a wider window will not be either.
            if meter.alive() {
                out.stop = Some(UNSETTLED);
            }
            break;
        };
        if optimum > out.floor {
            out.floor = optimum;
            stalled = 0;
            out.last_gain = rounds;
            // A bound of its own, reported with the solve's outcome.
            meter.prove(Bound {
                value: optimum,
                rule: Rule::RepairWindow,
                window: Some(window),
                buffers: sub.ids.len(),
                rounded_from: None,
            });
        }
        if cur_h <= out.floor {
            break;
        }
        let Some(next) = place_zone(
            problem,
            &out.offsets,
            &sub.ids,
            &sol,
            &lives,
            &mut scratch,
            meter,
        ) else {
            if meter.alive() {
                out.stop = Some("a repair round could not place the buffers around its window");
            }
            break;
        };
        // The zone holds the top buffer (it is live in the window), so
        // lowering the zone's top below the height keeps every other
        // buffer where it is and lowers or keeps the height.
        if next.top < cur_h {
            for &(i, o) in &next.moved {
                out.offsets[i] = o;
            }
            let h = height_of(problem, &out.offsets);
            if h < cur_h {
                stalled = 0;
                out.last_gain = rounds;
            }
            cur_h = h;
            if cur_h <= out.floor {
                break;
            }
        }
    }
    if cur_h > out.floor && meter.alive() && out.stop.is_none() {
        out.stop = Some(if stalled >= STALL_ROUNDS {
            "the peak-window repair went 6 rounds without a gain"
        } else if rounds >= MAX_ROUNDS {
            "the peak-window repair ran its 256 rounds"
        } else {
            "the peak-window repair found no window to work on"
        });
    }
    out
}

/// True when the problem has nothing but buffers (the window search and the
/// placement around it handle no pairs, pins or reserved ranges).
fn is_plain(problem: &Problem) -> bool {
    problem.conflicts.is_empty()
        && problem.compatible.is_empty()
        && problem.penalties.is_empty()
        && problem.reserved.is_empty()
        && problem.buffers.iter().all(|b| b.fixed_offset.is_none())
}

/// Live size over time: `load[k]` is the summed size of the buffers live on
/// `[times[k], times[k + 1])` (the last entry until the end of time).
struct Profile {
    times: Vec<u64>,
    load: Vec<u128>,
}

impl Profile {
    fn new(problem: &Problem) -> Profile {
        let mut ev: Vec<(u64, bool, u64)> = problem
            .buffers
            .iter()
            .filter(|b| b.size > 0 && b.lower < b.upper)
            .flat_map(|b| [(b.lower, true, b.size), (b.upper, false, b.size)])
            .collect();
        ev.sort_unstable();
        let (mut times, mut load) = (Vec::new(), Vec::new());
        let mut sum = 0u128;
        for (k, &(t, birth, s)) in ev.iter().enumerate() {
            if birth {
                sum += s as u128;
            } else {
                sum -= s as u128;
            }
            if ev.get(k + 1).is_none_or(|e| e.0 != t) {
                times.push(t);
                load.push(sum);
            }
        }
        Profile { times, load }
    }

    /// First instant of `[l, u)` where the live size is largest; `None`
    /// when nothing is ever live there.
    fn peak_in(&self, l: u64, u: u64) -> Option<u64> {
        let k0 = self.times.partition_point(|&t| t <= l).saturating_sub(1);
        let k1 = self.times.partition_point(|&t| t < u);
        let mut best: Option<(u128, u64)> = None;
        for k in k0..k1 {
            if self.load[k] > 0 && best.is_none_or(|(m, _)| self.load[k] > m) {
                best = Some((self.load[k], self.times[k].max(l)));
            }
        }
        best.map(|(_, t)| t)
    }
}

/// Sorted lifetime ends of the buffers with bytes and lifetime: counts the
/// buffers live in a window in `O(log n)`.
struct Ends {
    lowers: Vec<u64>,
    uppers: Vec<u64>,
}

impl Ends {
    fn new(problem: &Problem) -> Ends {
        let live = problem
            .buffers
            .iter()
            .filter(|b| b.size > 0 && b.lower < b.upper);
        let mut lowers: Vec<u64> = live.clone().map(|b| b.lower).collect();
        let mut uppers: Vec<u64> = live.map(|b| b.upper).collect();
        lowers.sort_unstable();
        uppers.sort_unstable();
        Ends { lowers, uppers }
    }

    /// Buffers live at some instant of `[a, z)`: those born before `z`
    /// minus those dead by `a` (all of which were born before `z`).
    fn count(&self, a: u64, z: u64) -> usize {
        let born = self.lowers.partition_point(|&l| l < z);
        let dead = self.uppers.partition_point(|&u| u <= a);
        born - dead
    }

    /// The narrowest window `[peak - r, peak + 1 + r)` holding at least
    /// `want` buffers (or all of them).
    fn window(&self, peak: u64, want: usize) -> (u64, u64) {
        let span = |r: u64| (peak.saturating_sub(r), peak.saturating_add(1 + r));
        let last = self.uppers.last().copied().unwrap_or(0);
        let first = self.lowers.first().copied().unwrap_or(0);
        let mut hi = last.saturating_sub(first).max(1);
        let mut lo = 0u64;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (a, z) = span(mid);
            if self.count(a, z) >= want {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        span(lo)
    }
}

/// The window problem of a set of time windows: every buffer live in some
/// window, its lifetime clipped to the hull of the windows (buffers live
/// only between windows are left out).
///
/// Dropping buffers and clipping lifetimes only drops constraints, so its
/// optimum is at most the whole problem's. Two kept buffers live together
/// anywhere are live together inside the hull (outside it they are both
/// live at its edge), so its placement pins them without clashes.
struct WindowProblem {
    sub: Problem,
    ids: Vec<usize>,
}

impl WindowProblem {
    /// `None` when it would hold more than `most` buffers.
    fn new(problem: &Problem, windows: &[(u64, u64)], most: usize) -> Option<WindowProblem> {
        let a = windows.iter().map(|w| w.0).min()?;
        let z = windows.iter().map(|w| w.1).max()?;
        let mut sub = Problem::new();
        let mut ids = Vec::new();
        for (i, b) in problem.buffers.iter().enumerate() {
            let in_window = windows.iter().any(|&(wa, wz)| b.lower < wz && wa < b.upper);
            if b.size > 0 && b.lower < b.upper && in_window {
                if ids.len() == most {
                    return None;
                }
                sub.push(Buffer::new(b.size, b.lower.max(a), b.upper.min(z)).with_align(b.align));
                ids.push(i);
            }
        }
        Some(WindowProblem { sub, ids })
    }

    /// Solves the window problem exactly: its optimum and the offsets of
    /// its buffers (in the order of `ids`). `None` when the search does
    /// not prove its placement optimal within `limit`: a placement cut
    /// short by the clock would make the result depend on the machine's
    /// speed, and an optimal window is what the repair relies on. The work
    /// limit ends hopeless windows at the same point on every machine; the
    /// clock only guards slow ones. `nodes` is that work limit.
    fn solve(&self, limit: Option<Duration>, nodes: u64, meter: &Meter) -> Option<(u64, Vec<u64>)> {
        let window = meter.sub(limit, Some(nodes));
        let out = exact_run(&self.sub, &Budget::default(), &window, "exact");
        meter.charge(window.used());
        if !out.proven_optimal {
            return None;
        }
        Some((out.height, out.solution?.offsets))
    }
}

/// Every buffer with bytes and a lifetime, indexed by lifetime: the
/// buffers live in a time range in time proportional to their number.
struct Lives(TimeIndex);

impl Lives {
    fn new(problem: &Problem) -> Lives {
        let mut index = TimeIndex::new(problem);
        for (i, b) in problem.buffers.iter().enumerate() {
            index.place_id(i as u32, b, 0);
        }
        Lives(index)
    }

    /// Calls `f(id)` for every buffer live at some instant of `[l, u)`.
    fn each(&self, l: u64, u: u64, mut f: impl FnMut(usize)) {
        self.0.for_each_overlap_id(l, u, |id, _, _| f(id as usize));
    }
}

/// A re-placed zone: new offsets and the zone's highest end.
struct Zone {
    moved: Vec<(usize, u64)>,
    top: u64,
}

/// What a buffer is in the round being placed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Outside the zone: keeps its offset.
    Fixed,
    /// In the window: pinned at the search's offset.
    Window,
    /// In the zone, not placed yet.
    Zone,
    /// In the zone, placed.
    Placed,
}

/// Per-buffer scratch of [`place_zone`], reused across rounds (a round
/// touches only its zone, and resets what it touched).
struct Scratch {
    role: Vec<Role>,
    offset: Vec<u64>,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch {
            role: vec![Role::Fixed; n],
            offset: vec![0; n],
        }
    }
}

/// Pins the window buffers `ids` at `sol` and re-places the rest of their
/// *zone* (every other buffer live during some window buffer's lifetime)
/// first-fit in size order around them and around every buffer outside the
/// zone, which keeps its offset in `offsets` (a valid placement).
///
/// Valid: a window buffer is live only inside the zone's span, so only
/// zone buffers are live with it; window buffers avoid each other (two of
/// them live together anywhere are live together inside the window, where
/// the search placed them apart, which is checked again here); every zone
/// buffer is placed against all buffers it is live with. The work is
/// proportional to the zone and the buffers live with it, not to the
/// trace. `None` when the check fails or `meter` runs out.
fn place_zone(
    problem: &Problem,
    offsets: &[u64],
    ids: &[usize],
    sol: &[u64],
    lives: &Lives,
    scratch: &mut Scratch,
    meter: &Meter,
) -> Option<Zone> {
    let b = &problem.buffers;
    let (mut a, mut z) = (u64::MAX, 0u64);
    for (&i, &o) in ids.iter().zip(sol) {
        a = a.min(b[i].lower);
        z = z.max(b[i].upper);
        scratch.role[i] = Role::Window;
        scratch.offset[i] = o;
    }
    let mut zone = Vec::new();
    lives.each(a, z, |j| {
        if scratch.role[j] == Role::Fixed {
            scratch.role[j] = Role::Zone;
            zone.push(j);
        }
    });
    let placed = place_zone_in(problem, offsets, ids, &mut zone, lives, scratch, meter);
    let out = placed.map(|top| {
        let moved = ids
            .iter()
            .chain(&zone)
            .map(|&i| (i, scratch.offset[i]))
            .collect();
        Zone { moved, top }
    });
    for &i in ids.iter().chain(&zone) {
        scratch.role[i] = Role::Fixed;
    }
    out
}

/// The placement of [`place_zone`] once the roles are set: the zone's top,
/// `None` when window buffers clash or `meter` runs out.
fn place_zone_in(
    problem: &Problem,
    offsets: &[u64],
    ids: &[usize],
    zone: &mut [usize],
    lives: &Lives,
    scratch: &mut Scratch,
    meter: &Meter,
) -> Option<u64> {
    let b = &problem.buffers;
    zone.sort_unstable_by_key(|&j| (std::cmp::Reverse(b[j].size), b[j].lower, j));
    let mut obstacles: Vec<(u64, u64)> = Vec::new();
    let mut top = 0u64;
    for &i in ids {
        let (o, e) = (scratch.offset[i], scratch.offset[i] + b[i].size);
        let mut clash = false;
        let mut seen = 0usize;
        lives.each(b[i].lower, b[i].upper, |j| {
            seen += 1;
            if j != i && scratch.role[j] == Role::Window {
                let s = scratch.offset[j];
                clash |= s < e && o < s + b[j].size;
            }
        });
        if clash || !meter.charge_obstacles(seen) {
            return None;
        }
        top = top.max(e);
    }
    // The zone is placed against a time index of what is placed: the
    // window, then every buffer outside the zone live with some zone buffer
    // (found once), then each zone buffer as it is placed.
    let mut index = TimeIndex::new(problem);
    for &i in ids {
        index.place_id(i as u32, &b[i], scratch.offset[i]);
    }
    let (mut a, mut z) = (u64::MAX, 0u64);
    for &i in zone.iter() {
        a = a.min(b[i].lower);
        z = z.max(b[i].upper);
    }
    let mut seen = 0usize;
    lives.each(a, z, |j| {
        seen += 1;
        if scratch.role[j] == Role::Fixed {
            index.place_id(j as u32, &b[j], offsets[j]);
        }
    });
    if !meter.charge_obstacles(seen) {
        return None;
    }
    for &i in zone.iter() {
        obstacles.clear();
        index.for_each_overlap(b[i].lower, b[i].upper, |s, e| obstacles.push((s, e)));
        if !meter.charge_obstacles(obstacles.len()) {
            return None;
        }
        obstacles.sort_unstable_by_key(|o| o.0);
        let o = first_fit(&obstacles, 0, b[i].size, b[i].align);
        scratch.role[i] = Role::Placed;
        scratch.offset[i] = o;
        index.place_id(i as u32, &b[i], o);
        top = top.max(o + b[i].size);
    }
    Some(top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bound::lower_bound;
    use crate::solve::exact::best_greedy;

    #[test]
    fn peak_is_first_instant_of_largest_live_size() {
        let mut p = Problem::new();
        p.push(Buffer::new(4, 0, 3));
        p.push(Buffer::new(5, 2, 6));
        p.push(Buffer::new(4, 5, 8));
        p.push(Buffer::new(0, 0, 9));
        // Live sizes: 4, 4, 9, 5, 5, 9, 4, 4: first 9 at instant 2.
        let profile = Profile::new(&p);
        assert_eq!(profile.peak_in(0, u64::MAX), Some(2));
        assert_eq!(profile.peak_in(3, 8), Some(5));
        assert_eq!(profile.peak_in(3, 5), Some(3));
        assert_eq!(profile.peak_in(8, 20), None);
        assert_eq!(Profile::new(&Problem::new()).peak_in(0, u64::MAX), None);
    }

    #[test]
    fn window_counts_buffers_live_in_it() {
        let mut p = Problem::new();
        for (l, u) in [(0, 10), (2, 3), (4, 6), (6, 7), (9, 12)] {
            p.push(Buffer::new(1, l, u));
        }
        let ends = Ends::new(&p);
        assert_eq!(ends.count(5, 6), 2);
        assert_eq!(ends.count(6, 7), 2);
        assert_eq!(ends.count(0, 12), 5);
        assert_eq!(ends.window(5, 2), (5, 6));
        assert_eq!(ends.window(5, 3), (4, 7));
        assert_eq!(ends.window(5, 5), (1, 10));
    }

    /// The gadget of `tests/trace.rs`: greedy height 8, optimum 7.
    fn gadget(p: &mut Problem, scale: u64, at: u64) {
        for (size, lower, upper) in [(3, 2, 3), (2, 3, 7), (4, 1, 4), (2, 5, 9), (3, 5, 6)] {
            p.push(Buffer::new(size * scale, at + lower, at + upper));
        }
    }

    /// A budget the tests do not exhaust, measured in work rather than
    /// time: under a work limit the windows are bounded by work too, so
    /// two runs give the same placement however loaded the machine is.
    fn later() -> Meter<'static> {
        Meter::new(
            &Budget::default()
                .with_time_limit(None)
                .with_node_limit(Some(1 << 40)),
        )
    }

    fn checked(p: &Problem, offsets: &[u64]) -> u64 {
        let sol = crate::problem::Solution {
            offsets: offsets.to_vec(),
        };
        crate::validate::validate(p, &sol).expect("valid").height
    }

    #[test]
    fn repair_lowers_the_gadget_to_its_optimum() {
        let mut p = Problem::new();
        gadget(&mut p, 1, 0);
        for k in 0..200 {
            p.push(Buffer::new(1, 100 + k, 101 + k));
        }
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        assert_eq!(height_of(&p, &greedy), 8);
        let repaired = repair(&p, greedy, lower_bound(&p), &later());
        assert_eq!(checked(&p, &repaired.offsets), 7);
        assert_eq!(repaired.floor, 7);
    }

    #[test]
    fn the_repair_stops_after_rounds_without_a_gain() {
        // Random intervals: the top moves between windows that do not
        // bring the placement down; without the stall rule the repair ran
        // until its budget was spent (seed 0: six rounds, none gaining;
        // seeds 1-7 end after five on a window that is not settled).
        let p = crate::gen::random_intervals(0);
        let lb = lower_bound(&p);
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        let h = height_of(&p, &greedy);
        let meter = Meter::new(
            &Budget::default()
                .with_time_limit(None)
                .with_node_limit(Some(u64::MAX / 2)),
        );
        let repaired = repair(&p, greedy, lb, &meter);
        assert!(checked(&p, &repaired.offsets) <= h);
        assert!(meter.alive(), "the budget ran out first");
        assert_eq!(repaired.rounds, repaired.last_gain + STALL_ROUNDS);
    }

    #[test]
    fn a_round_moves_only_the_zone_of_its_window() {
        // The gadget at instants 0..9 is repaired; the buffers live from
        // instant 100 on share no instant with any window buffer, so they
        // keep the incumbent's offsets.
        let mut p = Problem::new();
        gadget(&mut p, 1, 0);
        for k in 0..200 {
            p.push(Buffer::new(1 + k % 3, 100 + k, 103 + k));
        }
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        let repaired = repair(&p, greedy.clone(), lower_bound(&p), &later());
        assert_eq!(checked(&p, &repaired.offsets), 7);
        assert_ne!(repaired.offsets[..5], greedy[..5]);
        assert_eq!(repaired.offsets[5..], greedy[5..]);
    }

    #[test]
    fn a_second_peak_gets_its_own_window() {
        // Two gadgets far apart in a generated trace: after the window at
        // the first peak, the top of the placement stands over the other
        // gadget, which gets a window of its own.
        let mut p = crate::gen::large_trace(5, 3_000);
        gadget(&mut p, 1 << 20, 1_000);
        gadget(&mut p, 1 << 20, 2_000);
        let lb = lower_bound(&p);
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        assert!(checked(&p, &greedy) > lb + (1 << 19));
        let repaired = repair(&p, greedy, lb, &later());
        assert_eq!(checked(&p, &repaired.offsets), lb);
    }

    #[test]
    fn whole_problem_windows_are_left_to_the_exact_search() {
        // Five buffers: every window holds all of them, so the repair keeps
        // the greedy placement.
        let mut p = Problem::new();
        gadget(&mut p, 1, 0);
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        assert_eq!(
            repair(&p, greedy.clone(), lower_bound(&p), &later()).offsets,
            greedy
        );
    }

    #[test]
    fn generated_traces_valid_never_higher_deterministic() {
        for seed in 0..4 {
            let mut p = crate::gen::large_trace(seed, 3_000);
            if seed % 2 == 1 {
                gadget(&mut p, 1 << 20, 1_500);
            }
            let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
            let g = checked(&p, &greedy);
            let a = repair(&p, greedy.clone(), lower_bound(&p), &later()).offsets;
            let b = repair(&p, greedy, lower_bound(&p), &later()).offsets;
            assert_eq!(a, b, "seed {seed}");
            let h = checked(&p, &a);
            assert!(h <= g && h >= lower_bound(&p), "seed {seed}");
            if seed % 2 == 1 {
                // The planted gadget makes greedy miss by a scaled unit.
                assert!(g > lower_bound(&p) + (1 << 19), "seed {seed}");
                assert_eq!(h, lower_bound(&p), "seed {seed}");
            }
        }
    }

    #[test]
    fn problems_with_pairs_or_pins_are_returned_unchanged() {
        let mut p = Problem::new();
        gadget(&mut p, 1, 0);
        for k in 0..200 {
            p.push(Buffer::new(1, 100 + k, 101 + k));
        }
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        assert_ne!(
            repair(&p, greedy.clone(), lower_bound(&p), &later()).offsets,
            greedy
        );
        let mut pinned = p.clone();
        pinned.buffers[10].fixed_offset = Some(greedy[10]);
        assert_eq!(
            repair(&pinned, greedy.clone(), lower_bound(&p), &later()).offsets,
            greedy
        );
        let mut reserved = p.clone();
        reserved.reserved.push((100, 200));
        assert_eq!(
            repair(&reserved, greedy.clone(), lower_bound(&p), &later()).offsets,
            greedy
        );
    }

    #[test]
    fn a_proven_window_raises_the_floor_above_the_bound() {
        // Two 1-byte buffers aligned to 4 live together: one of them starts
        // at 4 or above, so every placement is at least 5 high, while the
        // bound (the unaligned fillers make the smallest alignment 1) is 2.
        let mut p = Problem::new();
        p.push(Buffer::new(1, 0, 2).with_align(4));
        p.push(Buffer::new(1, 0, 2).with_align(4));
        for k in 0..200 {
            p.push(Buffer::new(1, 100 + k, 101 + k));
        }
        let lb = lower_bound(&p);
        assert_eq!(lb, 2);
        let greedy = best_greedy(&p, &Meter::unlimited()).expect("plain");
        assert_eq!(height_of(&p, &greedy), 5);
        let repaired = repair(&p, greedy.clone(), lb, &later());
        assert_eq!(repaired.floor, 5);
        assert_eq!(repaired.offsets, greedy);
    }
}
