//! The best of several lower-bound rules, with where it came from.
//!
//! [`lower_bound`] is the co-live peak every solver uses. [`best_bound`]
//! adds rules that can pass it, each valid on its own, and reports the
//! highest with its source (a rule and a time) so a user knows why no
//! placement can be lower:
//!
//! - **aligned stack**: the buffers live at one instant are pairwise
//!   apart, so they form a stack, and each sits at a multiple of its own
//!   alignment. The lowest stack of such a set is found exactly for small
//!   sets (every order, by a subset recurrence: the lowest top of a subset
//!   is the best base for whatever comes next, as `align_up(t, a) + s`
//!   grows with `t`), and for larger ones rounded with the set's own
//!   alignment step (every offset in it is a multiple of the greatest
//!   common divisor `m` of its alignments, so each buffer but the topmost
//!   takes its size rounded up to `m`). The co-live bound rounds with the
//!   smallest alignment of the whole problem instead, so a buffer aligned
//!   to 1 anywhere makes it ignore alignment everywhere.
//! - **conflict clique**: with hard conflict pairs, the buffers live at an
//!   instant plus buffers outside it that must stay apart from all of
//!   them (a conflict with each, or co-live) form a larger stack.
//! - **grain**: every optimal height is a multiple of the
//!   [`grain`](super::grain()), so the best bound rounds up to it.
//!
//! Not a rule here, and why: the *energy* of a time window (summed size
//! times time over its length) never passes the co-live peak, because
//! lifetimes are fixed: a window's energy is at most its peak load times
//! its length. What a window can prove beyond the peak needs search:
//! [`refuted_bound`](super::refuted_bound).
//!
//! Problems with compatible pairs (co-live buffers that may share bytes)
//! keep [`lower_bound`], which already handles them.

use std::fmt;

use super::grain::{grain, round_to_grain};
use super::lower_bound;
use crate::problem::Problem;

/// Largest live set whose lowest stack is searched exactly (`2^n` subsets
/// times `n`).
const EXACT_STACK: usize = 12;

/// Work cap of the sweeps (buffer visits); past it, the instants not yet
/// visited are skipped and the bound stays valid, only weaker.
const SWEEP_WORK: u64 = 50_000_000;

/// Which rule gave a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The co-live peak ([`lower_bound`]): the largest total size of the
    /// buffers live at one instant.
    CoLive,
    /// A pinned buffer's top (its fixed offset plus its size), above the
    /// co-live peak.
    PinnedTop,
    /// The largest buffer alone, above the co-live peak (it is never live,
    /// or its instant is not the peak's).
    Largest,
    /// The lowest aligned stack of the buffers live at one instant.
    AlignedStack,
    /// The buffers live at one instant plus buffers in hard conflict with
    /// all of them.
    ConflictClique,
    /// A height refuted by the exact search on a time window
    /// ([`refuted_bound`](super::refuted_bound)).
    WindowRefuted,
    /// The exact search on the whole problem: no lower height fits (it
    /// refuted a capacity one grain below, or proved its placement
    /// optimal).
    SearchRefuted,
    /// The optimum of a time window proven by the exact search inside the
    /// peak-window repair of a solve (the window's problem drops
    /// constraints, so no placement of the whole problem is lower).
    RepairWindow,
}

impl Rule {
    /// The short name used in tables.
    pub fn name(self) -> &'static str {
        match self {
            Rule::CoLive => "co-live peak",
            Rule::PinnedTop => "pinned top",
            Rule::Largest => "largest buffer",
            Rule::AlignedStack => "aligned stack",
            Rule::ConflictClique => "buffers that can never share",
            Rule::WindowRefuted => "refuted on a window",
            Rule::SearchRefuted => "proven by the exact search",
            Rule::RepairWindow => "repair window proven",
        }
    }
}

/// A lower bound and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// No placement is lower.
    pub value: u64,
    /// The rule that gave it.
    pub rule: Rule,
    /// The time window `[a, b)` the rule looked at (an instant `t` is
    /// `[t, t + 1)`); `None` for the whole problem.
    pub window: Option<(u64, u64)>,
    /// Buffers the rule counted.
    pub buffers: usize,
    /// The rule's own value was below `value` and was rounded up to the
    /// grain, which every height is a multiple of.
    pub rounded_from: Option<u64>,
}

/// Where the bound came from, in a sentence: the rule, the instant or
/// window it looked at and how many buffers it counted.
impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.buffers;
        let s = if n == 1 { "" } else { "s" };
        let at = |f: &mut fmt::Formatter<'_>| match self.window {
            Some((a, b)) if b == a + 1 => write!(f, " at t={a}"),
            Some((a, b)) => write!(f, " on [{a}, {b})"),
            None => Ok(()),
        };
        match self.rule {
            Rule::CoLive => {
                write!(f, "co-live peak")?;
                at(f)?;
                if n > 0 {
                    write!(f, ": {n} buffer{s} live together")?;
                }
            }
            Rule::PinnedTop => {
                write!(f, "the top of a pinned buffer")?;
                if let Some((a, b)) = self.window {
                    write!(f, " live on [{a}, {b})")?;
                }
            }
            Rule::Largest => write!(f, "the largest buffer alone")?,
            Rule::AlignedStack => {
                write!(f, "aligned stack")?;
                at(f)?;
                write!(f, ": {n} buffer{s} live, their alignments leave holes")?;
            }
            Rule::ConflictClique => {
                write!(f, "{n} buffer{s} that can never share")?;
                if let Some((a, _)) = self.window {
                    write!(f, ": live at t={a} or in conflict with all of those")?;
                }
            }
            Rule::WindowRefuted => {
                write!(f, "refuted by the exact search")?;
                if let Some((a, b)) = self.window {
                    write!(f, " on window [{a}, {b})")?;
                }
                write!(f, ": its {n} buffer{s} fit no lower")?;
            }
            Rule::SearchRefuted => {
                write!(f, "proven by the exact search: no lower height fits")?;
            }
            Rule::RepairWindow => {
                write!(f, "repair: window")?;
                if let Some((a, b)) = self.window {
                    write!(f, " [{a}, {b})")?;
                }
                write!(f, " proven, its {n} buffer{s} fit no lower")?;
            }
        }
        if let Some(r) = self.rounded_from {
            write!(f, ", {r} rounded up to the grain")?;
        }
        Ok(())
    }
}

impl Bound {
    /// Keeps the higher of `self` and `other` (`self` on a tie).
    pub fn max(self, other: Bound) -> Bound {
        if other.value > self.value {
            other
        } else {
            self
        }
    }
}

/// The best bound of every rule in the module doc, rounded up to the
/// grain. Never below [`lower_bound`]; never above the lowest placement.
pub fn best_bound(problem: &Problem) -> Bound {
    best_and_co_live(problem).0
}

/// [`best_bound`] and the co-live bound ([`lower_bound`]) it starts from,
/// for a caller that reports both (one sweep fewer at a million buffers).
pub fn best_and_co_live(problem: &Problem) -> (Bound, u64) {
    let co_live = lower_bound(problem);
    (best_from_co_live(problem, co_live), co_live)
}

/// [`best_bound`] from the problem's co-live bound `co_live`
/// ([`lower_bound`]), for a caller that has it already.
pub fn best_from_co_live(problem: &Problem, co_live: u64) -> Bound {
    let sweep = Sweep::of(problem);
    let mut best = co_live_source(problem, co_live, &sweep);
    if problem.compatible.is_empty() {
        best = best.max(sweep.stack);
        if !problem.conflicts.is_empty() {
            best = best.max(conflict_clique(problem));
        }
    }
    let g = grain(problem);
    let rounded = round_to_grain(best.value, g);
    if rounded > best.value {
        best.rounded_from = Some(best.value);
        best.value = rounded;
    }
    best
}

/// Where the co-live bound `co_live` ([`lower_bound`]) comes from: the
/// plain peak of `sweep` (its instant is named only when the bound is that
/// peak's load: with compatible pairs or alignment padding it is not), else
/// a pinned buffer's top or the largest buffer when one of them is it.
fn co_live_source(problem: &Problem, co_live: u64, sweep: &Sweep) -> Bound {
    let mut out = Bound {
        value: co_live,
        rule: Rule::CoLive,
        window: None,
        buffers: 0,
        rounded_from: None,
    };
    if co_live as u128 == sweep.load && problem.compatible.is_empty() {
        out.window = sweep.peak.map(|t| (t, t + 1));
        out.buffers = sweep.peak_count;
    } else if co_live as u128 > sweep.load {
        let pinned = problem.buffers.iter().find(|b| {
            b.fixed_offset
                .is_some_and(|o| o.saturating_add(b.size) == co_live)
        });
        if let Some(b) = pinned {
            (out.rule, out.window, out.buffers) = (Rule::PinnedTop, Some((b.lower, b.upper)), 1);
        } else if problem.buffers.iter().any(|b| b.size == co_live) {
            (out.rule, out.buffers) = (Rule::Largest, 1);
        }
    }
    out
}

/// The live sets of one sweep over time: the plain peak and the best
/// aligned stack.
struct Sweep {
    /// Instant of the largest plain load, how many buffers are live there,
    /// and that load.
    peak: Option<u64>,
    peak_count: usize,
    load: u128,
    /// The best [`Rule::AlignedStack`] bound.
    stack: Bound,
}

impl Sweep {
    fn of(problem: &Problem) -> Sweep {
        let mut out = Sweep {
            peak: None,
            peak_count: 0,
            load: 0,
            stack: Bound {
                value: 0,
                rule: Rule::AlignedStack,
                window: None,
                buffers: 0,
                rounded_from: None,
            },
        };
        // Alignment can only matter where some size is off some alignment:
        // sizes all multiples of the least common multiple of the
        // alignments (when it is small enough to compute) never are.
        let lcm = problem.buffers.iter().try_fold(1u64, |l, b| {
            let a = b.align.max(1);
            (l / gcd(l, a)).checked_mul(a)
        });
        let aligned = lcm.is_some_and(|l| problem.buffers.iter().all(|b| b.size.is_multiple_of(l)));
        let mut work = 0u64;
        let mut best_load = 0u128;
        for_each_instant(problem, |t, live, load| {
            if load > best_load || out.peak.is_none() {
                best_load = load;
                out.load = load;
                out.peak = Some(t);
                out.peak_count = live.len();
            }
            if !aligned && work < SWEEP_WORK {
                work += stack_work(live.len());
                let items: Vec<(u64, u64)> = live
                    .iter()
                    .map(|&i| (problem.buffers[i].size, problem.buffers[i].align.max(1)))
                    .collect();
                let v = lowest_stack(&items);
                if v > out.stack.value {
                    out.stack.value = v;
                    out.stack.window = Some((t, t + 1));
                    out.stack.buffers = live.len();
                }
            }
        });
        out
    }
}

/// Calls `f(t, live, load)` at every instant `t` where a buffer is born,
/// with the (sized) buffers live at `t` and their total size.
fn for_each_instant(problem: &Problem, mut f: impl FnMut(u64, &[usize], u128)) {
    let mut events: Vec<(u64, bool, usize)> = problem
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.size > 0 && b.lower < b.upper)
        .flat_map(|(i, b)| [(b.lower, true, i), (b.upper, false, i)])
        .collect();
    // Deaths before births at the same instant (half-open lifetimes).
    events.sort_unstable();
    let mut live: Vec<usize> = Vec::new();
    let mut slot = vec![usize::MAX; problem.buffers.len()];
    let mut load = 0u128;
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        let mut born = false;
        while k < events.len() && events[k].0 == t {
            let (_, birth, i) = events[k];
            if birth {
                load += problem.buffers[i].size as u128;
                slot[i] = live.len();
                live.push(i);
                born = true;
            } else {
                load -= problem.buffers[i].size as u128;
                let s = slot[i];
                live.swap_remove(s);
                if s < live.len() {
                    slot[live[s]] = s;
                }
            }
            k += 1;
        }
        if born {
            f(t, &live, load);
        }
    }
}

/// The work [`lowest_stack`] does on `n` items, in buffer visits.
fn stack_work(n: usize) -> u64 {
    if n <= EXACT_STACK {
        (n as u64) << n
    } else {
        n as u64
    }
}

/// The lowest height of a stack of `(size, alignment)` items that must be
/// pairwise apart, each at a multiple of its alignment: exact for up to
/// `EXACT_STACK` items, else a bound (sizes rounded to the greatest
/// common divisor of the alignments, the topmost unrounded).
pub fn lowest_stack(items: &[(u64, u64)]) -> u64 {
    let items: Vec<(u64, u64)> = items.iter().copied().filter(|&(s, _)| s > 0).collect();
    if items.is_empty() {
        return 0;
    }
    if items.len() <= EXACT_STACK {
        let n = items.len();
        let mut top = vec![u64::MAX; 1 << n];
        top[0] = 0;
        for mask in 1usize..1 << n {
            let mut best = u64::MAX;
            for (j, &(s, a)) in items.iter().enumerate() {
                if mask & (1 << j) != 0 {
                    let below = top[mask & !(1 << j)];
                    let t = below.div_ceil(a).saturating_mul(a).saturating_add(s);
                    best = best.min(t);
                }
            }
            top[mask] = best;
        }
        return top[(1 << n) - 1];
    }
    let m = items.iter().fold(0, |g, &(_, a)| gcd(g, a)).max(1);
    let mut sum = 0u128;
    let mut max_pad = 0u64;
    for &(s, _) in &items {
        let r = s.div_ceil(m).saturating_mul(m);
        sum += r as u128;
        max_pad = max_pad.max(r - s);
    }
    (sum - max_pad as u128).min(u64::MAX as u128) as u64
}

/// The [`Rule::ConflictClique`] bound: at each instant, the live buffers
/// plus, greedily (largest first), buffers in hard conflict with one of
/// them that are apart from every buffer chosen so far.
fn conflict_clique(problem: &Problem) -> Bound {
    let n = problem.buffers.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &problem.conflicts {
        if a != b {
            adj[a.index()].push(b.index());
            adj[b.index()].push(a.index());
        }
    }
    for l in &mut adj {
        l.sort_unstable();
        l.dedup();
    }
    let apart = |i: usize, j: usize| {
        let (x, y) = (&problem.buffers[i], &problem.buffers[j]);
        x.lifetime_overlaps(y) || adj[i].binary_search(&j).is_ok()
    };
    let mut best = Bound {
        value: 0,
        rule: Rule::ConflictClique,
        window: None,
        buffers: 0,
        rounded_from: None,
    };
    let mut work = 0u64;
    for_each_instant(problem, |t, live, _| {
        if work >= SWEEP_WORK {
            return;
        }
        let mut extra: Vec<usize> = live.iter().flat_map(|&i| adj[i].iter().copied()).collect();
        extra.sort_unstable();
        extra.dedup();
        extra.retain(|&c| {
            let x = &problem.buffers[c];
            x.size > 0 && !(x.lower <= t && t < x.upper)
        });
        work += live.len() as u64 * (1 + extra.len() as u64);
        if extra.is_empty() {
            return;
        }
        extra.sort_by_key(|&c| (std::cmp::Reverse(problem.buffers[c].size), c));
        let mut chosen: Vec<usize> = live.to_vec();
        for c in extra {
            work += chosen.len() as u64;
            if chosen.iter().all(|&j| apart(c, j)) {
                chosen.push(c);
            }
        }
        let items: Vec<(u64, u64)> = chosen
            .iter()
            .map(|&i| (problem.buffers[i].size, problem.buffers[i].align.max(1)))
            .collect();
        work += stack_work(items.len());
        let v = lowest_stack(&items);
        if v > best.value {
            best.value = v;
            best.window = Some((t, t + 1));
            best.buffers = chosen.len();
        }
    });
    best
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    #[test]
    fn lowest_stack_tries_every_order() {
        // Two 2-byte buffers aligned to 4 and a 3-byte one: 0..2, 4..6,
        // 6..9 is lowest.
        assert_eq!(lowest_stack(&[(2, 4), (2, 4), (3, 1)]), 9);
        // Sizes on every alignment: the plain sum.
        assert_eq!(lowest_stack(&[(4, 4), (8, 2), (2, 1)]), 14);
        assert_eq!(lowest_stack(&[]), 0);
        // Past the exact size: sizes rounded to the common step 4 but the
        // topmost: 13 * 4 + 3 = 55.
        let many = vec![(3, 4); 14];
        assert_eq!(lowest_stack(&many), 55);
    }

    #[test]
    fn an_aligned_stack_passes_the_co_live_peak() {
        let mut p = Problem::new();
        p.push(Buffer::new(2, 0, 2).with_align(4));
        p.push(Buffer::new(2, 0, 2).with_align(4));
        p.push(Buffer::new(3, 1, 3));
        assert_eq!(lower_bound(&p), 7);
        let b = best_bound(&p);
        assert_eq!(
            (b.value, b.rule, b.window),
            (9, Rule::AlignedStack, Some((1, 2)))
        );
        assert_eq!(
            b.to_string(),
            "aligned stack at t=1: 3 buffers live, their alignments leave holes"
        );
    }

    #[test]
    fn a_conflict_clique_adds_buffers_from_other_times() {
        let mut p = Problem::new();
        let a = p.push(Buffer::new(5, 0, 2));
        let b = p.push(Buffer::new(4, 1, 3));
        let c = p.push(Buffer::new(6, 5, 6));
        p.conflicts.push((a, c));
        p.conflicts.push((b, c));
        // Peak 9 at t=1; c is apart from both: 15.
        assert_eq!(lower_bound(&p), 9);
        let bound = best_bound(&p);
        assert_eq!(
            (bound.value, bound.rule, bound.window, bound.buffers),
            (15, Rule::ConflictClique, Some((1, 2)), 3)
        );
        // Without the second conflict, c may share b's bytes: 11 (a + c).
        assert_eq!(p.conflicts.pop(), Some((b, c)));
        assert_eq!(best_bound(&p).value, 11);
    }

    #[test]
    fn a_plain_peak_is_reported_as_co_live() {
        let mut p = Problem::new();
        p.push(Buffer::new(8, 0, 2).with_align(8));
        p.push(Buffer::new(8, 0, 2).with_align(8));
        p.push(Buffer::new(8, 1, 3).with_align(8));
        let b = best_bound(&p);
        assert_eq!((b.value, b.rule, b.rounded_from), (24, Rule::CoLive, None));
        assert_eq!(
            b.to_string(),
            "co-live peak at t=1: 3 buffers live together"
        );
    }
}
