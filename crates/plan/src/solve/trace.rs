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
//! 1. Take the peak instant `t*` and a time window `[a, z)` around it,
//!    widened until it meets a target number of buffers.
//! 2. Build the window problem: every buffer live in the window, its
//!    lifetime clipped to the window. Clipping only drops constraints, so its
//!    optimum is at most the optimum of the whole problem, and its lower
//!    bound equals the whole problem's (it contains `t*`).
//! 3. Solve it with the exact search (short time limit). A window the search
//!    cannot prove optimal in time is skipped: its placement would depend on
//!    the speed of the machine.
//! 4. Pin those buffers where the window solution puts them (over their
//!    whole lifetimes) and place every other buffer around them, first-fit
//!    in size order.
//! 5. Keep the result when it is lower than the best so far; stop at the
//!    lower bound, otherwise retry with a window holding twice as many
//!    extra buffers (at most six windows, 0.25 s each), until the time limit
//!    or until the window would hold more than half of the buffers (nearly
//!    the whole problem: the exact search's job).
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
//! window, which [`place_around`] checks again). It is never
//! higher than the incumbent. The result depends only on the problem and the
//! incumbent, except that a window search the time limit cuts short is
//! dropped (on a slower machine fewer windows may count).

use std::time::{Duration, Instant};

use super::geom::{first_fit, TimeIndex};
use super::greedy::size_order;
use super::{Budget, Solver};
use crate::problem::{Buffer, Problem};

/// Number of windows tried at most (each holds twice the extra buffers of
/// the one before).
const MAX_WINDOWS: u32 = 6;

/// Buffers beyond those live at the peak in the first window.
const FIRST_EXTRA: usize = 32;

/// Time one window search may take at most. Windows the search settles at
/// all are settled within tens of milliseconds (pangu_2.6B: 565 buffers in
/// about 0.05 s); one that is not settled by then rarely is soon after.
const WINDOW_LIMIT: Duration = Duration::from_millis(250);

/// What the repair returns.
pub(crate) struct Repaired {
    /// The best placement found, never higher than the incumbent.
    pub(crate) offsets: Vec<u64>,
    /// A lower bound on the height of every placement, at least the
    /// problem's: the highest optimum of a window proven by the search (a
    /// window drops constraints, so no placement of the whole problem is
    /// lower). `offsets` at this height is optimal.
    pub(crate) floor: u64,
}

/// Lowers `incumbent` (a valid placement of `problem`, whose
/// [`lower_bound`](crate::bound::lower_bound) is `lb`) by peak-window
/// repair. Work stops at `deadline`.
pub(crate) fn repair(
    problem: &Problem,
    incumbent: Vec<u64>,
    lb: u64,
    deadline: Instant,
) -> Repaired {
    let mut best_h = height(problem, &incumbent);
    let mut out = Repaired {
        offsets: incumbent,
        floor: lb,
    };
    if !is_plain(problem) || best_h <= lb {
        return out;
    }
    let Some(peak) = peak_instant(problem) else {
        return out;
    };
    let ends = Ends::new(problem);
    let live_at_peak = ends.count(peak, peak + 1);
    let total = ends.lowers.len();
    let mut extra = FIRST_EXTRA.max(live_at_peak / 8);
    for w in 0..MAX_WINDOWS {
        let now = Instant::now();
        let (a, z) = ends.window(peak, live_at_peak + extra);
        // A window holding most of the buffers is nearly the whole problem:
        // that is the exact search's job, not the repair's.
        if now >= deadline || ends.count(a, z) > total / 2 {
            break;
        }
        // Each window may use half of what is left (the last one all of it).
        let left = deadline - now;
        let limit = if w + 1 == MAX_WINDOWS { left } else { left / 2 };
        let limit = limit.min(WINDOW_LIMIT);
        if let Some((optimum, placed)) = window_placement(problem, a, z, limit) {
            out.floor = out.floor.max(optimum);
            if let Some(offsets) = placed {
                let h = height(problem, &offsets);
                if h < best_h {
                    best_h = h;
                    out.offsets = offsets;
                }
            }
            if best_h <= out.floor {
                break;
            }
        }
        extra *= 2;
    }
    out
}

/// True when the problem has nothing but buffers (the window search and the
/// placement around it handle no pairs, pins or reserved ranges).
fn is_plain(problem: &Problem) -> bool {
    problem.conflicts.is_empty()
        && problem.penalties.is_empty()
        && problem.reserved.is_empty()
        && problem.buffers.iter().all(|b| b.fixed_offset.is_none())
}

fn height(problem: &Problem, offsets: &[u64]) -> u64 {
    offsets
        .iter()
        .zip(&problem.buffers)
        .map(|(&o, b)| o + b.size)
        .max()
        .unwrap_or(0)
}

/// First instant where the summed size of live buffers is largest; `None`
/// when no buffer with bytes is ever live.
fn peak_instant(problem: &Problem) -> Option<u64> {
    let mut ev: Vec<(u64, bool, u64)> = problem
        .buffers
        .iter()
        .filter(|b| b.size > 0 && b.lower < b.upper)
        .flat_map(|b| [(b.lower, true, b.size), (b.upper, false, b.size)])
        .collect();
    // Deaths (false) before births at the same instant: lifetimes are
    // half-open.
    ev.sort_unstable();
    let (mut sum, mut best, mut at) = (0u128, 0u128, None);
    for (t, birth, s) in ev {
        if birth {
            sum += s as u128;
            if sum > best {
                best = sum;
                at = Some(t);
            }
        } else {
            sum -= s as u128;
        }
    }
    at
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

/// Solves the window `[a, z)` exactly and places every other buffer around
/// it: the window's optimum height and the placement (`None` when the
/// window buffers overlap outside the window, which cannot happen). `None`
/// when the window search does not prove its placement optimal within
/// `limit`: a placement cut short by the clock would make the result depend
/// on the machine's speed, and an optimal window is what the repair relies
/// on anyway.
fn window_placement(
    problem: &Problem,
    a: u64,
    z: u64,
    limit: Duration,
) -> Option<(u64, Option<Vec<u64>>)> {
    let mut sub = Problem::new();
    let mut ids = Vec::new();
    for (i, b) in problem.buffers.iter().enumerate() {
        let (l, u) = (b.lower.max(a), b.upper.min(z));
        if l < u && b.size > 0 {
            sub.push(Buffer::new(b.size, l, u).with_align(b.align));
            ids.push(i);
        }
    }
    let budget = Budget::default().with_time_limit(Some(limit));
    let out = super::Exact.solve(&sub, &budget);
    if !out.proven_optimal {
        return None;
    }
    let sol = out.solution?;
    let optimum = out.height;
    let mut offsets = vec![0u64; problem.len()];
    let mut pinned = vec![false; problem.len()];
    for (k, &i) in ids.iter().enumerate() {
        offsets[i] = sol.offsets[k];
        pinned[i] = true;
    }
    Some((
        optimum,
        place_around(problem, &mut offsets, &pinned).then_some(offsets),
    ))
}

/// Places the buffers not `pinned` first-fit in size order around the
/// pinned ones (which keep `offsets`). Returns false when two pinned buffers
/// overlap somewhere outside the window they were placed in (then the
/// placement is unusable).
fn place_around(problem: &Problem, offsets: &mut [u64], pinned: &[bool]) -> bool {
    let b = &problem.buffers;
    let mut index = TimeIndex::new(problem);
    let mut obstacles: Vec<(u64, u64)> = Vec::new();
    // Pinned buffers were placed against each other inside the window only.
    // That suffices (two buffers live in the window and together after it
    // are both live at its last instant; likewise before it), but the check
    // costs little and keeps the guarantee local to this function.
    for i in 0..b.len() {
        if !pinned[i] {
            continue;
        }
        obstacles.clear();
        index.for_each_overlap(b[i].lower, b[i].upper, |s, e| obstacles.push((s, e)));
        let (o, e) = (offsets[i], offsets[i] + b[i].size);
        if b[i].size > 0 && obstacles.iter().any(|&(s, t)| s < e && o < t) {
            return false;
        }
        index.place(&b[i], offsets[i]);
    }
    let Some(order) = size_order(problem) else {
        return false;
    };
    for i in order {
        let i = i as usize;
        if pinned[i] {
            continue;
        }
        if b[i].size == 0 {
            offsets[i] = 0;
            continue;
        }
        obstacles.clear();
        index.for_each_overlap(b[i].lower, b[i].upper, |s, e| obstacles.push((s, e)));
        obstacles.sort_unstable_by_key(|o| o.0);
        offsets[i] = first_fit(&obstacles, 0, b[i].size, b[i].align);
        index.place(&b[i], offsets[i]);
    }
    true
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
        assert_eq!(peak_instant(&p), Some(2));
        assert_eq!(peak_instant(&Problem::new()), None);
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

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
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
        let greedy = best_greedy(&p).expect("plain");
        assert_eq!(height(&p, &greedy), 8);
        let repaired = repair(&p, greedy, lower_bound(&p), later());
        assert_eq!(checked(&p, &repaired.offsets), 7);
        assert_eq!(repaired.floor, 7);
    }

    #[test]
    fn whole_problem_windows_are_left_to_the_exact_search() {
        // Five buffers: every window holds all of them, so the repair keeps
        // the greedy placement.
        let mut p = Problem::new();
        gadget(&mut p, 1, 0);
        let greedy = best_greedy(&p).expect("plain");
        assert_eq!(
            repair(&p, greedy.clone(), lower_bound(&p), later()).offsets,
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
            let greedy = best_greedy(&p).expect("plain");
            let g = checked(&p, &greedy);
            let a = repair(&p, greedy.clone(), lower_bound(&p), later()).offsets;
            let b = repair(&p, greedy, lower_bound(&p), later()).offsets;
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
        let greedy = best_greedy(&p).expect("plain");
        assert_ne!(
            repair(&p, greedy.clone(), lower_bound(&p), later()).offsets,
            greedy
        );
        let mut pinned = p.clone();
        pinned.buffers[10].fixed_offset = Some(greedy[10]);
        assert_eq!(
            repair(&pinned, greedy.clone(), lower_bound(&p), later()).offsets,
            greedy
        );
        let mut reserved = p.clone();
        reserved.reserved.push((100, 200));
        assert_eq!(
            repair(&reserved, greedy.clone(), lower_bound(&p), later()).offsets,
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
        let greedy = best_greedy(&p).expect("plain");
        assert_eq!(height(&p, &greedy), 5);
        let repaired = repair(&p, greedy.clone(), lb, later());
        assert_eq!(repaired.floor, 5);
        assert_eq!(repaired.offsets, greedy);
    }
}
