//! A lower bound proven by search: heights refuted on time windows.
//!
//! # Why it is valid
//! *Relaxation by a window.* Cut time to a window `[a, b)`: keep the
//! buffers live in it, each with its lifetime clipped to the window. Two
//! clipped buffers that share an instant share it in the full problem too,
//! sizes and alignments are unchanged, so any placement of the full
//! problem, restricted to the kept buffers, is a placement of the window
//! problem no higher than the full one. When the complete exact search
//! proves that the window problem has no placement of height `<= h`
//! (`proven_infeasible` at capacity `h`), the full problem has none
//! either: every placement is at least `h + 1` high, rounded up to the
//! [`grain`](super::grain()) (every height is a multiple of it). The whole
//! time range is the last window, the problem itself.
//!
//! *Why windows.* A window around the most crowded instant holds few
//! buffers, so its search is short, while its tight instants are exactly
//! where a target height fails; wider windows add the buffers that force
//! a conflict from further away. The search is exponential, so every
//! attempt runs under a work limit: an attempt that runs out proves
//! nothing, and the bound stays what was proven so far.
//!
//! # Scope
//! Plain problems (no pinned buffer, reserved range, conflict, compatible
//! or penalty pair), with alignments. Other problems get
//! [`lower_bound`] unchanged.

use std::time::Instant;

use super::grain::{grain, round_to_grain};
use super::lower_bound;
use crate::problem::{Buffer, Problem};
use crate::solve::{exact_counted, Budget, Goal};

/// The work limit of [`refuted_bound`] when the budget has none.
pub const DEFAULT_NODES: u64 = 1_000_000;

/// How many of the most crowded instants are tried as window centres.
const CENTRES: usize = 3;

/// One refuted height.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// No placement is at most this high.
    pub height: u64,
    /// The time window `[a, b)` whose clipped problem was refuted.
    pub window: (u64, u64),
    /// Buffers live in the window.
    pub buffers: usize,
}

/// The result of [`refuted_bound`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refutation {
    /// A proven lower bound on every placement's height, at least
    /// [`lower_bound`].
    pub bound: u64,
    /// The refuted heights, ascending: each raised the bound.
    pub proofs: Vec<Proof>,
    /// The work or time limit ended the attempts: a larger budget may
    /// prove more.
    pub cut_short: bool,
    /// Windows tried at the first height not refuted (`bound`), and how
    /// many of them the work or time limit cut short (the others have a
    /// placement that low).
    pub tried: usize,
    /// See `tried`.
    pub unsettled: usize,
    /// Units of work the attempts used (at most the node limit).
    pub work: u64,
    /// A placement of the whole problem at most `bound` high (offsets in
    /// buffer order), when the last attempt, on the whole time range,
    /// found one at the first height not refuted: the bound is then the
    /// optimum, and a gap above it was the placement's, not the bound's.
    pub placed: Option<Vec<u64>>,
}

/// Raises [`lower_bound`] by refuting heights (see the module doc): from
/// the bound up, while some window around one of the most crowded
/// instants (or the whole problem) has no placement that low. Stops below
/// `upper` (the height of a known placement: nothing at or above it can
/// be refuted) and when an attempt at a height proves nothing.
///
/// The budget's node limit ([`DEFAULT_NODES`] when it has none) is the
/// total work over all attempts, in the exact search's units (each
/// attempt gets at most a quarter of it), so the result depends only on
/// the problem, `upper` and that limit. Its time limit and stop request
/// are a safety net on top (a result they cut is reported as
/// `cut_short`).
pub fn refuted_bound(problem: &Problem, upper: Option<u64>, budget: &Budget) -> Refutation {
    refuted_bound_from(problem, lower_bound(problem), upper, budget)
}

/// [`refuted_bound`] starting from a known lower bound `from` (such as
/// [`best_bound`](super::best_bound)) instead of [`lower_bound`]: heights
/// below it are not tried again.
pub fn refuted_bound_from(
    problem: &Problem,
    from: u64,
    upper: Option<u64>,
    budget: &Budget,
) -> Refutation {
    let nodes = budget.node_limit.unwrap_or(DEFAULT_NODES);
    let time_limit = budget.time_limit;
    let stopped = || {
        budget
            .stop
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    };
    let start = Instant::now();
    let lb = from.max(lower_bound(problem));
    let mut out = Refutation {
        bound: lb,
        proofs: Vec::new(),
        cut_short: false,
        tried: 0,
        unsettled: 0,
        work: 0,
        placed: None,
    };
    if !problem.is_plain() || problem.check().is_err() {
        return out;
    }
    let g = grain(problem);
    let windows = windows(problem);
    let whole = windows.last().copied().unwrap_or((0, 0));
    // One attempt may use a quarter of the whole: the small windows,
    // quickly placed or refuted, leave the rest to the wide ones.
    let per = (nodes / 4).max(1);
    let mut left = nodes;
    'heights: while upper.is_none_or(|u| out.bound < u) {
        let h = out.bound;
        out.tried = 0;
        out.unsettled = 0;
        for &(a, b) in &windows {
            let time_left = match time_limit {
                Some(l) => match l.checked_sub(start.elapsed()) {
                    Some(t) if !t.is_zero() => Some(t),
                    _ => {
                        out.cut_short = true;
                        break 'heights;
                    }
                },
                None => None,
            };
            if left == 0 || stopped() {
                out.cut_short = true;
                break 'heights;
            }
            let grant = per.min(left);
            let mut cut = false;
            let (sub, kept) = clip(problem, a, b);
            let buffers = sub.buffers.len();
            let (mut sub, below, order) = peel_universal(sub);
            let mut found = None;
            // Either the peeled buffers alone pass `h`, or the search
            // proves the rest does not fit in what they leave.
            let refuted = below > h || {
                sub.capacity = Some(h - below);
                let attempt = Budget {
                    node_limit: Some(grant),
                    time_limit: time_left,
                    goal: Goal::Fit,
                    threads: Some(1),
                    // A window problem: the whole problem's bound is not
                    // its own.
                    co_live: None,
                    ..*budget
                };
                let (res, used) = exact_counted(&sub, &attempt);
                left = left.saturating_sub(used.max(1));
                cut = res.cut_short;
                found = res.solution.map(|s| s.offsets);
                res.proven_infeasible && found.is_none()
            };
            if refuted {
                out.proofs.push(Proof {
                    height: h,
                    window: (a, b),
                    buffers,
                });
                out.bound = round_to_grain(h + 1, g);
                continue 'heights;
            }
            out.tried += 1;
            out.unsettled += usize::from(cut);
            // The whole time range keeps every buffer with bytes and a
            // lifetime, unclipped: its placement is one of the problem.
            if (a, b) == whole {
                out.placed = found.map(|f| unpeel(problem, &kept, &order, below, &f));
            }
        }
        // No window refutes `h`.
        out.cut_short = out.unsettled > 0;
        break;
    }
    out.work = nodes - left;
    if upper.is_some_and(|u| out.bound > u) {
        // Only a wrong proof could pass a known placement.
        debug_assert!(false, "refuted a height a placement reaches");
        out.bound = lb;
        out.proofs.clear();
    }
    out
}

/// The windows to try, in order: around each of the [`CENTRES`] most
/// crowded sections (the elementary intervals between lifetime end points;
/// ties by time), spans of 1, 2, 4, ... sections on each side, then the
/// whole time range. Repeats are dropped.
fn windows(problem: &Problem) -> Vec<(u64, u64)> {
    let live: Vec<&Buffer> = problem
        .buffers
        .iter()
        .filter(|b| b.size > 0 && b.lower < b.upper)
        .collect();
    let mut times: Vec<u64> = live.iter().flat_map(|b| [b.lower, b.upper]).collect();
    times.sort_unstable();
    times.dedup();
    if times.len() < 2 {
        return Vec::new();
    }
    let sections = times.len() - 1;
    // Load per section by a difference array.
    let mut diff = vec![0i128; sections + 1];
    for b in &live {
        let l = times.partition_point(|&t| t < b.lower);
        let u = times.partition_point(|&t| t < b.upper);
        diff[l] += b.size as i128;
        diff[u] -= b.size as i128;
    }
    let mut load = Vec::with_capacity(sections);
    let mut run = 0i128;
    for d in &diff[..sections] {
        run += d;
        load.push(run);
    }
    let mut order: Vec<usize> = (0..sections).collect();
    order.sort_by_key(|&s| (std::cmp::Reverse(load[s]), s));
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &c in order.iter().take(CENTRES) {
        let mut r = 1usize;
        loop {
            let lo = c.saturating_sub(r);
            let hi = (c + 1 + r).min(sections);
            if lo == 0 && hi == sections {
                break;
            }
            let w = (times[lo], times[hi]);
            if !out.contains(&w) {
                out.push(w);
            }
            r *= 2;
        }
    }
    out.push((times[0], times[sections]));
    out
}

/// The buffers live in `[a, b)`, lifetimes clipped to it (see the module
/// doc: a relaxation of `problem`), and their ids in `problem`.
fn clip(problem: &Problem, a: u64, b: u64) -> (Problem, Vec<usize>) {
    let mut sub = Problem::new();
    let mut kept = Vec::new();
    for (i, x) in problem.buffers.iter().enumerate() {
        let (l, u) = (x.lower.max(a), x.upper.min(b));
        if x.size > 0 && l < u {
            let mut y = Buffer::new(x.size, l, u).with_align(x.align);
            y.name = x.name.clone();
            sub.push(y);
            kept.push(i);
        }
    }
    (sub, kept)
}

/// A placement of `problem` from one of its whole-range window problem
/// (buffers `kept`), whose universal buffers were peeled in `order`
/// ([`peel_universal`]) and the rest placed at `rest`: the peeled buffers
/// stacked from 0 in the order peeled, the rest `below` bytes up, and the
/// buffers without bytes or lifetime at 0 (they meet no other). Each
/// peeled buffer sits on the sizes of those peeled before it, multiples of
/// its alignment, and shifting the rest by `below` keeps theirs.
fn unpeel(
    problem: &Problem,
    kept: &[usize],
    order: &[usize],
    below: u64,
    rest: &[u64],
) -> Vec<u64> {
    let mut offsets = vec![0u64; problem.len()];
    let mut base = 0u64;
    let mut peeled = vec![false; kept.len()];
    for &k in order {
        offsets[kept[k]] = base;
        base += problem.buffers[kept[k]].size;
        peeled[k] = true;
    }
    let left = (0..kept.len()).filter(|&k| !peeled[k]);
    for (k, &o) in left.zip(rest) {
        offsets[kept[k]] = o + below;
    }
    offsets
}

/// Removes *universal* buffers (live together with every other one) while
/// their sizes are multiples of every alignment left, and returns the rest
/// with the peeled bytes. Valid for refutation: in any placement of the
/// problem, deleting a universal buffer and moving everything above it
/// down by its size keeps every pair apart (order is kept and no distance
/// between two remaining buffers shrinks below the lower one's size) and
/// every alignment (each move is a multiple of it), so the rest fits in
/// the height minus the peeled bytes. The search then has fewer buffers.
fn peel_universal(mut p: Problem) -> (Problem, u64, Vec<usize>) {
    let mut below = 0u64;
    // Positions in the problem given of the buffers left, and of those
    // peeled in order.
    let mut ids: Vec<usize> = (0..p.buffers.len()).collect();
    let mut order = Vec::new();
    while p.buffers.len() > 1 {
        // The two earliest deaths and the two latest births: the others'
        // extremes for any one buffer.
        let mut up = [(u64::MAX, usize::MAX); 2];
        let mut low = [(0u64, usize::MAX); 2];
        for (i, b) in p.buffers.iter().enumerate() {
            if up[0].1 == usize::MAX || b.upper < up[0].0 {
                up = [(b.upper, i), up[0]];
            } else if up[1].1 == usize::MAX || b.upper < up[1].0 {
                up[1] = (b.upper, i);
            }
            if low[0].1 == usize::MAX || b.lower > low[0].0 {
                low = [(b.lower, i), low[0]];
            } else if low[1].1 == usize::MAX || b.lower > low[1].0 {
                low[1] = (b.lower, i);
            }
        }
        let aligned = |s: u64| p.buffers.iter().all(|b| s.is_multiple_of(b.align.max(1)));
        let universal = p.buffers.iter().enumerate().position(|(i, b)| {
            let first_death = if up[0].1 == i { up[1].0 } else { up[0].0 };
            let last_birth = if low[0].1 == i { low[1].0 } else { low[0].0 };
            b.lower < first_death && last_birth < b.upper && aligned(b.size)
        });
        let Some(k) = universal else { break };
        below += p.buffers.remove(k).size;
        order.push(ids.remove(k));
    }
    (p, below, order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_grow_around_the_peak() {
        let mut p = Problem::new();
        for t in 0..8u64 {
            p.push(Buffer::new(1 + (t == 5) as u64, t, t + 1));
        }
        let w = windows(&p);
        // Around section 5 first, doubling, then the whole range.
        assert_eq!(&w[..3], &[(4, 7), (3, 8), (1, 8)]);
        assert_eq!(*w.last().unwrap(), (0, 8));
    }

    #[test]
    fn peels_buffers_live_with_all_others() {
        let mut p = Problem::new();
        p.push(Buffer::new(4, 0, 10)); // live with everyone
        p.push(Buffer::new(2, 2, 5));
        p.push(Buffer::new(3, 4, 9)); // live with everyone once 0 is gone
        p.push(Buffer::new(5, 6, 8));
        let (rest, below, order) = peel_universal(p.clone());
        // 0 goes, then 2 (live with 1 and 3); 1 and 3 never meet.
        assert_eq!((below, order), (7, vec![0, 2]));
        assert_eq!(
            rest.buffers,
            vec![p.buffers[1].clone(), p.buffers[3].clone()]
        );
        // Sizes off another buffer's alignment stay: moving it down by
        // 4 or 3 bytes would misalign it.
        p.buffers[1].align = 8;
        let (rest, below, _) = peel_universal(p);
        assert_eq!((rest.len(), below), (4, 0));
    }

    /// When the whole problem is placed at the first height not refuted,
    /// the placement comes back, valid and at the bound: with universal
    /// buffers peeled (stacked back from 0) and buffers without bytes or
    /// lifetime, over random small problems with alignments.
    #[test]
    fn the_whole_problem_placed_at_the_bound_comes_back() {
        let mut rng = crate::gen::Rng(5);
        let mut placed = 0;
        for round in 0..60 {
            let mut p = Problem::new();
            // Live with everything: peeled when its size suits every
            // alignment.
            p.push(Buffer::new(8 * (1 + rng.below(3)), 0, 40));
            for _ in 0..3 + rng.below(8) {
                let l = rng.below(30);
                let size = 1 + rng.below(12);
                let align = [1, 2, 4][rng.below(3) as usize];
                p.push(Buffer::new(size, l, l + 1 + rng.below(10)).with_align(align));
            }
            p.push(Buffer::new(0, 3, 9));
            p.push(Buffer::new(5, 7, 7));
            let budget = Budget::default()
                .with_time_limit(None)
                .with_node_limit(Some(200_000));
            let r = refuted_bound(&p, None, &budget);
            if let Some(offsets) = &r.placed {
                let sol = crate::problem::Solution {
                    offsets: offsets.clone(),
                };
                let h = crate::validate::validate(&p, &sol)
                    .unwrap_or_else(|v| panic!("round {round}: {v:?}"))
                    .height;
                assert!(h <= r.bound, "round {round}: {h} > {}", r.bound);
                placed += 1;
            }
        }
        assert!(placed > 40, "{placed}");
    }

    #[test]
    fn clip_keeps_only_the_window() {
        let mut p = Problem::new();
        p.push(Buffer::new(4, 0, 10));
        p.push(Buffer::new(2, 5, 6));
        p.push(Buffer::new(3, 8, 9));
        let (c, kept) = clip(&p, 4, 7);
        assert_eq!(kept, [0, 1]);
        assert_eq!((c.buffers[0].lower, c.buffers[0].upper), (4, 7));
        assert_eq!((c.buffers[1].lower, c.buffers[1].upper), (5, 6));
    }
}
