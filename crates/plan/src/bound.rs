//! Lower bounds on the height of any placement.
//!
//! [`lower_bound`] is the cheap co-live bound every solver reports (linear
//! after a sort). [`refuted_bound`] raises it by proving heights infeasible
//! with the exact search on time windows; it is exponential in the worst
//! case and runs under a work limit, so it is opt-in (`tilemem solve
//! --prove-bound`). [`grain()`] is the step every optimal height is a
//! multiple of, by which refuted heights advance. [`best_bound`] is the
//! best of the cheap rules with where it came from, and [`proven_bound`]
//! adds what a solve proved (the repair's windows, the search's proofs).

use std::collections::BTreeMap;

use crate::problem::Problem;

pub mod grain;
pub mod proven;
pub mod refute;
pub mod rules;

pub use grain::grain;
pub use proven::{proven_bound, proven_from};
pub use refute::{refuted_bound, refuted_bound_from, Refutation};
pub use rules::{best_and_co_live, best_bound, best_from_co_live, Bound, Rule};

/// The classic bound: the largest total size of buffers live at one instant,
/// refined for alignment, and never below the end of a pinned buffer.
///
/// With alignments that are all powers of two, let `m` be the smallest one.
/// Offsets are then multiples of `m`, so in any stack of co-live buffers each
/// buffer but the topmost occupies at least its size rounded up to `m`. The
/// bound at an instant is therefore `sum(round_up(size, m)) - max(padding)`.
/// With other alignments `m` is 1 (plain sizes).
///
/// With compatible pairs (buffers that may share bytes although co-live)
/// the bound at an instant is the total size of a set of live buffers that
/// must all stay apart pairwise: every live buffer without a compatible
/// partner, plus a greedy (largest first) selection among those with one.
/// Such a set has to be stacked, so the bound stays valid.
pub fn lower_bound(problem: &Problem) -> u64 {
    let mut best = if problem.compatible.is_empty() {
        co_live_bound(problem)
    } else {
        separated_bound(problem)
    };
    for b in &problem.buffers {
        if let Some(o) = b.fixed_offset {
            best = best.max(o + b.size);
        }
        // A buffer never live still needs its own bytes somewhere.
        best = best.max(b.size);
    }
    // Already a multiple of the `grain`: every term is a sum of sizes
    // (rounded to a common alignment) or a pinned top.
    best
}

/// The bound over stacks of pairwise separated live buffers (see
/// [`lower_bound`]), evaluated at every birth.
fn separated_bound(problem: &Problem) -> u64 {
    let compatible = problem.compatible_lists();
    let mut events: Vec<(u64, bool, usize)> = problem
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.size > 0 && b.lower < b.upper)
        .flat_map(|(i, b)| [(b.lower, true, i), (b.upper, false, i)])
        .collect();
    events.sort_unstable();
    let mut plain = 0u128;
    // Live buffers with a compatible partner, by (size desc, id).
    let mut shared: std::collections::BTreeSet<(std::cmp::Reverse<u64>, usize)> =
        Default::default();
    let mut best = 0u64;
    let mut chosen: Vec<usize> = Vec::new();
    for (_, birth, i) in events {
        let size = problem.buffers[i].size;
        let has = !compatible[i].is_empty();
        match (birth, has) {
            (true, false) => plain += size as u128,
            (false, false) => plain -= size as u128,
            (true, true) => {
                shared.insert((std::cmp::Reverse(size), i));
            }
            (false, true) => {
                shared.remove(&(std::cmp::Reverse(size), i));
            }
        }
        if !birth {
            continue;
        }
        chosen.clear();
        let mut sum = plain;
        for &(std::cmp::Reverse(s), j) in &shared {
            if chosen
                .iter()
                .all(|&c| compatible[j].binary_search(&(c as u32)).is_err())
            {
                chosen.push(j);
                sum += s as u128;
            }
        }
        best = best.max(sum.min(u64::MAX as u128) as u64);
    }
    best
}

/// [`lower_bound`] of a plain problem (alignment 1, nothing pinned, no
/// compatible pairs) given only each buffer's `(size, lower, upper)`: the
/// largest total size live at one instant, never below the largest buffer.
/// For callers that have the lifetimes but no [`Problem`] (a report of
/// tens of thousands of buffers need not build one).
pub fn plain_lower_bound(buffers: impl Iterator<Item = (u64, u64, u64)> + Clone) -> u64 {
    let largest = buffers.clone().map(|b| b.0).max().unwrap_or(0);
    dense_peak(buffers.clone())
        .unwrap_or_else(|| co_live_peak(&live_events(buffers)))
        .max(largest)
}

/// Birth and death events of the live buffers, sorted: deaths (`false`)
/// before births at the same instant. Sized once (no doubling slack).
fn live_events(buffers: impl Iterator<Item = (u64, u64, u64)> + Clone) -> Vec<(u64, bool, u64)> {
    let live = |&(size, lower, upper): &(u64, u64, u64)| size > 0 && lower < upper;
    let mut events = Vec::with_capacity(2 * buffers.clone().filter(live).count());
    for (size, lower, upper) in buffers.filter(live) {
        events.push((lower, true, size));
        events.push((upper, false, size));
    }
    events.sort_unstable();
    events
}

/// The largest total size live at one instant when the instants are
/// dense (a span of at most 4 per live buffer, as in traces: one
/// allocation per instant), from the change of the live size at each
/// instant: linear work with no sort. `None` for sparse instants.
///
/// A million-buffer trace's events took 0.3 to 0.5 s to sort on a loaded
/// 2-core machine, on the thread beside the first-fit pass (which waits
/// for the bound at its end); the pass of a 0.5 s limit ended late.
fn dense_peak(buffers: impl Iterator<Item = (u64, u64, u64)> + Clone) -> Option<u64> {
    let live = |&(size, lower, upper): &(u64, u64, u64)| size > 0 && lower < upper;
    let (mut t0, mut t1, mut count) = (u64::MAX, 0u64, 0u64);
    for (_, lower, upper) in buffers.clone().filter(live) {
        t0 = t0.min(lower);
        t1 = t1.max(upper);
        count += 1;
    }
    if count == 0 {
        return Some(0);
    }
    if t1 - t0 > 4 * count + 64 {
        return None;
    }
    // Births add, deaths subtract; a buffer is live over [lower, upper).
    let mut delta = vec![0i128; (t1 - t0) as usize + 1];
    for (size, lower, upper) in buffers.filter(live) {
        delta[(lower - t0) as usize] += i128::from(size);
        delta[(upper - t0) as usize] -= i128::from(size);
    }
    let mut sum = 0i128;
    let mut best = 0i128;
    for d in delta {
        sum += d;
        best = best.max(sum);
    }
    Some(best.min(i128::from(u64::MAX)) as u64)
}

/// The largest total size live at one instant, over sorted events.
fn co_live_peak(events: &[(u64, bool, u64)]) -> u64 {
    // u128: a thousand buffers of 2^60 bytes must not overflow.
    let mut sum = 0u128;
    let mut best = 0u64;
    for &(_, birth, size) in events {
        if birth {
            sum += size as u128;
            best = best.max(sum.min(u64::MAX as u128) as u64);
        } else {
            sum -= size as u128;
        }
    }
    best
}

/// The classic co-live bound with the alignment refinement.
fn co_live_bound(problem: &Problem) -> u64 {
    let sized = problem.buffers.iter().filter(|b| b.size > 0);
    let pow2 = sized.clone().all(|b| b.align.is_power_of_two());
    let m = if pow2 {
        sized.map(|b| b.align).min().unwrap_or(1)
    } else {
        1
    };
    let round = |s: u64| s.div_ceil(m) * m;
    // Common case (sizes already multiples of the alignment): no padding,
    // so a plain running sum without the padding multiset.
    let padded = problem
        .buffers
        .iter()
        .any(|b| b.size > 0 && round(b.size) != b.size);
    let lifetimes = problem.buffers.iter().map(|b| (b.size, b.lower, b.upper));
    if !padded {
        if let Some(peak) = dense_peak(lifetimes.clone()) {
            return peak;
        }
    }
    let events = live_events(lifetimes);
    if !padded {
        return co_live_peak(&events);
    }
    // u128: a thousand buffers of 2^60 bytes must not overflow.
    let mut sum = 0u128;
    let mut pads: BTreeMap<u64, u32> = BTreeMap::new();
    let mut best = 0u64;
    for (_, birth, size) in events {
        let pad = round(size) - size;
        if birth {
            sum += round(size) as u128;
            *pads.entry(pad).or_default() += 1;
            let max_pad = pads.keys().next_back().copied().unwrap_or(0);
            best = best.max((sum - max_pad as u128).min(u64::MAX as u128) as u64);
        } else {
            sum -= round(size) as u128;
            if let Some(c) = pads.get_mut(&pad) {
                *c -= 1;
                if *c == 0 {
                    pads.remove(&pad);
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peak from per-instant changes equals the peak over sorted
    /// events, on dense lifetimes with shared ends, empty lifetimes,
    /// zero sizes and sizes near 2^60; sparse instants take the events.
    #[test]
    fn dense_peak_matches_the_sorted_events() {
        let mut rng = crate::gen::Rng(17);
        for round in 0..60 {
            let n = 1 + rng.below(300);
            let bufs: Vec<(u64, u64, u64)> = (0..n)
                .map(|_| {
                    let lower = 1_000 + rng.below(n);
                    let upper = lower + rng.below(if round % 2 == 0 { 4 } else { n });
                    let size = match rng.below(6) {
                        0 => 0,
                        1 => 1 << 60,
                        _ => 1 + rng.below(100),
                    };
                    (size, lower, upper)
                })
                .collect();
            let sorted = co_live_peak(&live_events(bufs.iter().copied()));
            assert_eq!(
                dense_peak(bufs.iter().copied()),
                Some(sorted),
                "round {round}"
            );
        }
        let sparse = [(5, 0, 1_000), (7, 500, 2_000)];
        assert_eq!(dense_peak(sparse.iter().copied()), None);
        assert_eq!(plain_lower_bound(sparse.iter().copied()), 12);
        assert_eq!(dense_peak([(3, 4, 4)].iter().copied()), Some(0));
    }
}
