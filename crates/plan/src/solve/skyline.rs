//! Skyline completion: finishes a greedy pass the budget cut short.
//!
//! # Why
//! A pass cut by its budget has placed a prefix of its order (the larger
//! buffers, in size order). Stacking the rest one above another is valid
//! but ignores time: on a trace the stack grows with the number of buffers
//! left (a pass cut at a tenth of a 20,000-buffer trace ends twice as high
//! as the bound). Placing each remaining buffer on the *skyline* of its own
//! lifetime (the highest byte in use at any instant of it) reuses memory
//! across time the way first-fit does, without searching the gaps below.
//!
//! # How
//! Time is cut into sections (instants themselves when they are dense, as
//! in traces; else at every lifetime end), and a segment tree holds the
//! highest end in use per section (range "raise to at least" updates,
//! range maximum queries, `O(log sections)` each). Each
//! remaining buffer, in the pass's order, goes at the lowest offset at or
//! above the skyline of its lifetime that avoids the global obstacles
//! (reserved ranges, pinned buffers not yet placed) and the byte ranges of
//! its placed partners (conflict pairs, and for the handoff greedy its
//! penalty partners); then the skyline of its lifetime rises to its end.
//!
//! # Guarantees
//! Every completed buffer lies above every buffer live with it (placed or
//! completed earlier), apart from the given partners and obstacles: the
//! placement stays valid (capacity aside). Work is the buffers and pairs
//! times the logarithm of the sections (plus a sort of the lifetime ends
//! when instants are sparse) and not charged to the spent meter: it is a
//! bounded epilogue, cheaper per buffer than the pass it completes.

use std::time::Duration;

use super::occupancy::prefetch;
use crate::problem::Problem;

/// How instants map to sections.
enum Times {
    /// Section `k` is instant `t0 + k`.
    Dense(u64),
    /// Section `k` is `[times[k], times[k + 1])`.
    Cut(Vec<u64>),
}

/// Highest end in use per time section, with range updates and queries
/// in `O(log sections)` over a segment tree kept in flat arrays: a
/// trace's long-lived buffers span most of its sections, so work linear
/// in the span (or in the blocks of it) is quadratic over the trace.
struct Skyline {
    times: Times,
    /// Leaves (a power of two at least the number of sections).
    leaves: usize,
    /// Per node: a raise applied to all of its sections.
    tag: Vec<u64>,
    /// Per node: the maximum over its sections, its own tags included
    /// (not those of its ancestors).
    top: Vec<u64>,
}

impl Skyline {
    fn new(problem: &Problem) -> Skyline {
        let live = problem.buffers.iter().filter(|b| b.lower < b.upper);
        let (mut t0, mut t1, mut count) = (u64::MAX, 0u64, 0u64);
        for b in live.clone() {
            t0 = t0.min(b.lower);
            t1 = t1.max(b.upper);
            count += 1;
        }
        // Dense instants (traces: about one per buffer) are sections as
        // they are; sparse ones are cut at every lifetime end (a sort).
        let times = if count == 0 || t1 - t0 <= 4 * count + 64 {
            Times::Dense(t0.min(t1))
        } else {
            let mut times: Vec<u64> = live.flat_map(|b| [b.lower, b.upper]).collect();
            times.sort_unstable();
            times.dedup();
            Times::Cut(times)
        };
        let n = match &times {
            Times::Dense(t0) => (t1.saturating_sub(*t0)) as usize,
            Times::Cut(t) => t.len().saturating_sub(1),
        }
        .max(1);
        let leaves = n.next_power_of_two();
        Skyline {
            times,
            leaves,
            tag: vec![0; 2 * leaves],
            top: vec![0; 2 * leaves],
        }
    }

    /// Sections `[a, z)` covering the lifetime `[lower, upper)` (empty for
    /// an empty lifetime).
    fn span(&self, lower: u64, upper: u64) -> (usize, usize) {
        if lower >= upper {
            return (0, 0);
        }
        match &self.times {
            Times::Dense(t0) => ((lower - t0) as usize, (upper - t0) as usize),
            Times::Cut(times) => (
                times.partition_point(|&t| t < lower),
                times.partition_point(|&t| t < upper),
            ),
        }
    }

    /// Highest end in use at some instant of sections `[a, z)`: the tops
    /// of the range's canonical nodes and the tags of their ancestors,
    /// which all lie on the paths from sections `a` and `z - 1` to the
    /// root.
    fn height(&self, (a, z): (usize, usize)) -> u64 {
        if a >= z {
            return 0;
        }
        let mut h = 0;
        let (mut l, mut r) = (a + self.leaves, z + self.leaves);
        while l < r {
            if l & 1 == 1 {
                h = h.max(self.top[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                h = h.max(self.top[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        for leaf in [a + self.leaves, z - 1 + self.leaves] {
            let mut v = leaf >> 1;
            while v >= 1 {
                h = h.max(self.tag[v]);
                v >>= 1;
            }
        }
        h
    }

    /// Raises the skyline of sections `[a, z)` to at least `to`: tags on
    /// the canonical nodes, tops on them and on every node holding
    /// section `a` or `z - 1`.
    fn raise(&mut self, (a, z): (usize, usize), to: u64) {
        if a >= z {
            return;
        }
        let (mut l, mut r) = (a + self.leaves, z + self.leaves);
        while l < r {
            if l & 1 == 1 {
                self.tag[l] = self.tag[l].max(to);
                self.top[l] = self.top[l].max(to);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.tag[r] = self.tag[r].max(to);
                self.top[r] = self.top[r].max(to);
            }
            l >>= 1;
            r >>= 1;
        }
        for leaf in [a + self.leaves, z - 1 + self.leaves] {
            let mut v = leaf >> 1;
            while v >= 1 {
                self.top[v] = self.top[v].max(to);
                v >>= 1;
            }
        }
    }
}

/// Buffers of a completion between two readings of the clock.
const CHECK_EVERY: usize = 1024;

/// Completes a cut pass on the skyline (see the module doc).
///
/// `offsets[i]` is final where `done[i]`; the buffers of `rest` (none of
/// them done) are placed in that order. `taken` are byte ranges no
/// completed buffer may use at any instant, sorted by start; `apart[i]`
/// lists the buffers whose bytes `i` must avoid whatever their lifetimes;
/// `up(x, i)` rounds `x` up to an offset buffer `i` may take. Buffers
/// without bytes go at offset 0; pinned buffers keep their offset (the
/// caller checks them against each other).
///
/// `time_is_up` is read before every [`CHECK_EVERY`]th buffer of `rest`:
/// once it answers true, the buffers left are stacked above everything
/// placed (linear work, each apart from all others), so a completion
/// under a time limit ends with it rather than after the whole skyline
/// pass (1.7 to 1.9 s at a million buffers on a loaded 2-core machine).
/// It is also read before the skyline is built: a completion that starts
/// with the time up stacks every buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn complete(
    problem: &Problem,
    offsets: &mut [u64],
    done: &mut [bool],
    rest: impl IntoIterator<Item = usize>,
    taken: &[(u64, u64)],
    apart: &dyn Fn(usize) -> Vec<usize>,
    up: &dyn Fn(u64, usize) -> u64,
    time_is_up: &dyn Fn() -> bool,
) {
    let time_left = || time_is_up().then_some(Duration::ZERO);
    complete_within(problem, offsets, done, rest, taken, apart, up, &time_left);
}

/// Time a buffer takes on the skyline over the time it takes stacked, at
/// least: measured on 1,000,000-buffer traces under a 0.5 s limit (load
/// 12), 1.3 to 1.7 us against 0.10 us, 14 to 17 times. Counted as 8, the
/// reserve for stacking holds twice the measured time.
const SKYLINE_OVER_STACK: f64 = 8.0;

/// Time on the skyline from which its cost per buffer is trusted: on a
/// loaded machine a thread loses a few milliseconds at a time, and a
/// reading over the first thousand buffers (under 2 ms) was several times
/// too high, which stacked nearly every buffer of a million.
const MEASURED: Duration = Duration::from_millis(20);

/// [`complete`] with the time left (`None`: no limit) in place of
/// `time_is_up`, read at the same points: the buffers left are also
/// stacked, before the deadline, once the time left would not hold their
/// stacking. At a million buffers stacking those left after a deadline
/// took 0.08 to 0.09 s (load 12), which overran a limit of 0.5 s by that.
/// Stacking a buffer costs about a fifteenth of placing it on the skyline
/// ([`SKYLINE_OVER_STACK`]), and the skyline's cost per buffer is read off
/// the clock between the checks (from the first one on: the time before
/// it includes the skyline's build), once it covers [`MEASURED`]. Without a limit the clock is never
/// asked for more than before, and the placement does not depend on it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn complete_within(
    problem: &Problem,
    offsets: &mut [u64],
    done: &mut [bool],
    rest: impl IntoIterator<Item = usize>,
    taken: &[(u64, u64)],
    apart: &dyn Fn(usize) -> Vec<usize>,
    up: &dyn Fn(u64, usize) -> u64,
    time_left: &dyn Fn() -> Option<Duration>,
) {
    let b = &problem.buffers;
    // With the time already up the skyline is not built at all (at a
    // million buffers its allocation and first touches took 0.1 s).
    let mut stacking = time_left().is_some_and(|l| l.is_zero());
    let mut sky = (!stacking).then(|| Skyline::new(problem));
    // The top of every placed byte: where a stacked buffer may start.
    let mut top = 0u64;
    for (i, x) in b.iter().enumerate() {
        if done[i] && x.size > 0 {
            if let Some(sky) = &mut sky {
                sky.raise(sky.span(x.lower, x.upper), offsets[i] + x.size);
            }
            top = top.max(offsets[i] + x.size);
        }
    }
    // The buffers of `rest` come in an order of their own (size order),
    // each read and written at a place of its own in memory: the buffers
    // a few ahead are fetched early: stacking a million buffers past a
    // deadline took 0.28 to 0.32 s without, 0.09 to 0.18 s with (wall
    // time on a 2-core machine at load 6 to 13).
    let rest: Vec<usize> = rest.into_iter().collect();
    let mut obstacles: Vec<(u64, u64)> = Vec::new();
    // The first check's position and time left.
    let mut first: Option<(usize, Duration)> = None;
    for (k, &i) in rest.iter().enumerate() {
        if let Some(&j) = rest.get(k + PREFETCH) {
            prefetch(&b[j]);
            prefetch(&offsets[j]);
            prefetch(&done[j]);
        }
        if !stacking && k > 0 && k % CHECK_EVERY == 0 {
            if let Some(left) = time_left() {
                // The skyline's time per buffer since the first check,
                // times the buffers left, over what stacking saves.
                let reserve = first.map_or(0.0, |(k0, l0): (usize, Duration)| {
                    let spent = l0.saturating_sub(left);
                    if spent < MEASURED {
                        return 0.0;
                    }
                    spent.as_secs_f64() / (k - k0) as f64 * (rest.len() - k) as f64
                        / SKYLINE_OVER_STACK
                });
                stacking = left.is_zero() || left.as_secs_f64() <= reserve;
                first = first.or(Some((k, left)));
            }
        }
        let x = &b[i];
        offsets[i] = match x.fixed_offset {
            Some(o) => o,
            None if x.size == 0 => 0,
            None => {
                obstacles.clear();
                obstacles.extend_from_slice(taken);
                for j in apart(i) {
                    if done[j] && b[j].size > 0 {
                        obstacles.push((offsets[j], offsets[j] + b[j].size));
                    }
                }
                if obstacles.len() > taken.len() {
                    obstacles.sort_unstable();
                }
                let sky = sky.as_mut().filter(|_| !stacking);
                let span = sky.as_ref().map(|sky| sky.span(x.lower, x.upper));
                let mut o = up(
                    span.zip(sky.as_ref())
                        .map_or(top, |(span, sky)| sky.height(span)),
                    i,
                );
                for &(s, e) in &obstacles {
                    if s >= o + x.size {
                        break;
                    }
                    if e > o {
                        o = up(e, i);
                    }
                }
                if let Some((span, sky)) = span.zip(sky) {
                    sky.raise(span, o + x.size);
                }
                o
            }
        };
        if x.size > 0 {
            top = top.max(offsets[i] + x.size);
        }
        done[i] = true;
    }
}

/// Buffers of a completion ahead of the one placed whose data is fetched
/// early.
const PREFETCH: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    #[test]
    fn skyline_answers_range_maxima() {
        let mut p = Problem::new();
        for (l, u) in [(0, 10), (2, 4), (6, 8)] {
            p.push(Buffer::new(1, l, u));
        }
        // Dense instants, and the same instants spread far apart (cut at
        // lifetime ends), answer alike.
        for scale in [1, 1 << 20] {
            let mut q = p.clone();
            for b in &mut q.buffers {
                (b.lower, b.upper) = (b.lower * scale, b.upper * scale);
            }
            let mut s = Skyline::new(&q);
            let at = |s: &Skyline, l: u64, u: u64| s.span(l * scale, u * scale);
            s.raise(at(&s, 2, 4), 5);
            s.raise(at(&s, 6, 8), 3);
            assert_eq!(s.height(at(&s, 0, 2)), 0);
            assert_eq!(s.height(at(&s, 0, 3)), 5);
            assert_eq!(s.height(at(&s, 4, 6)), 0);
            assert_eq!(s.height(at(&s, 4, 7)), 3);
            assert_eq!(s.height(at(&s, 0, 10)), 5);
            s.raise(at(&s, 0, 10), 4);
            assert_eq!(s.height(at(&s, 4, 6)), 4);
            assert_eq!(s.height(at(&s, 2, 3)), 5);
            assert_eq!(s.height(at(&s, 8, 10)), 4);
            assert_eq!(s.height(at(&s, 5, 5)), 0);
        }
    }

    /// Random raises and queries against a plain array per section.
    #[test]
    fn skyline_matches_a_plain_array() {
        let mut rng = crate::gen::Rng(3);
        for n in [1u64, 2, 3, 7, 64, 100, 1000] {
            // One buffer per instant: the instants are the sections.
            let mut p = Problem::new();
            for t in 0..n {
                p.push(Buffer::new(1, t, t + 1));
            }
            let mut s = Skyline::new(&p);
            let mut plain = vec![0u64; n as usize];
            for _ in 0..300 {
                let a = rng.below(n);
                let z = a + 1 + rng.below(n - a);
                let span = s.span(a, z);
                let want = plain[a as usize..z as usize].iter().copied().max().unwrap();
                assert_eq!(s.height(span), want, "n {n} [{a}, {z})");
                if rng.below(2) == 0 {
                    let to = rng.below(1000);
                    s.raise(span, to);
                    for x in &mut plain[a as usize..z as usize] {
                        *x = (*x).max(to);
                    }
                }
            }
        }
    }

    #[test]
    fn completion_reuses_memory_across_time() {
        // Buffer 0 placed at [0, 4) on [0, 2); the rest go on the skyline:
        // 1 (live with 0) above it, 2 and 3 (after it) at 0 and on top of 2.
        let mut p = Problem::new();
        p.push(Buffer::new(4, 0, 2));
        p.push(Buffer::new(2, 1, 3));
        p.push(Buffer::new(2, 3, 5));
        p.push(Buffer::new(2, 4, 6));
        let mut offsets = vec![0; 4];
        let mut done = vec![true, false, false, false];
        complete(
            &p,
            &mut offsets,
            &mut done,
            [1, 2, 3],
            &[],
            &|_| Vec::new(),
            &|x, _| x,
            &|| false,
        );
        assert_eq!(offsets, [0, 4, 0, 2]);
        assert!(done.iter().all(|&d| d));
    }

    #[test]
    fn completion_avoids_partners_and_taken_ranges() {
        let mut p = Problem::new();
        p.push(Buffer::new(4, 0, 2));
        p.push(Buffer::new(4, 5, 6).with_align(8));
        let mut offsets = vec![0; 2];
        let mut done = vec![true, false];
        // Apart from buffer 0 although not live with it, and [8, 10) is
        // taken: the aligned offset above both is 16.
        complete(
            &p,
            &mut offsets,
            &mut done,
            [1],
            &[(8, 10)],
            &|i| if i == 1 { vec![0] } else { Vec::new() },
            &|x, i| crate::solve::geom::align_up(x, p.buffers[i].align),
            &|| false,
        );
        assert_eq!(offsets, [0, 16]);
    }

    /// Before the deadline the completion stacks the buffers left once the
    /// time left would not hold their stacking: with a clock that loses 10
    /// ms between checks from 100 ms, at the ninth check (buffer 9,216:
    /// 10 ms left against a reserve of 80 ms / 8,192 buffers x 10,784
    /// buffers / 8 = 13.2 ms) rather than at the deadline (buffer 10,240);
    /// the checks before measure less than [`MEASURED`] or leave more
    /// time than the reserve.
    /// The buffers before it are placed as without a limit.
    #[test]
    fn completion_stacks_before_the_deadline_when_the_rest_would_not_fit() {
        let mut p = Problem::new();
        for i in 0..20_000u64 {
            let lower = (i * 37) % 10_000;
            p.push(Buffer::new(
                32 * (1 + (i * 7919) % 97),
                lower,
                lower + 100 + i % 50,
            ));
        }
        let complete_with = |time_left: &dyn Fn() -> Option<Duration>| {
            let mut offsets = vec![0u64; p.len()];
            let mut done = vec![false; p.len()];
            complete_within(
                &p,
                &mut offsets,
                &mut done,
                0..p.len(),
                &[],
                &|_| Vec::new(),
                &|x, _| x,
                time_left,
            );
            offsets
        };
        let unlimited = complete_with(&|| None);
        let reads = std::cell::Cell::new(0u64);
        let offsets = complete_with(&|| {
            let r = reads.replace(reads.get() + 1);
            Some(Duration::from_millis(100).saturating_sub(Duration::from_millis(10 * r)))
        });
        // The start and the checks at buffers 1,024 to 9,216.
        assert_eq!(reads.get(), 10);
        assert_eq!(offsets[..9_216], unlimited[..9_216]);
        let mut next = (0..9_216).map(|i| offsets[i] + p.buffers[i].size).max();
        for (i, (&o, x)) in offsets.iter().zip(&p.buffers).enumerate().skip(9_216) {
            assert_eq!(Some(o), next, "buffer {i}");
            next = next.map(|n| n + x.size);
        }
        assert_ne!(offsets[9_216..], unlimited[9_216..]);
    }
}
