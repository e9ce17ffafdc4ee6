//! Geometry shared by the solvers (never by the validator): alignment,
//! heights, gap search among obstacles, penalty sums and a time index of
//! buffers.

use crate::problem::Problem;

/// Smallest multiple of `align` (>= 1) that is `>= x`.
pub(crate) fn align_up(x: u64, align: u64) -> u64 {
    if align <= 1 {
        x
    } else {
        x.div_ceil(align).saturating_mul(align)
    }
}

/// The height of a placement: the highest end of any buffer.
pub(crate) fn height_of(problem: &Problem, offsets: &[u64]) -> u64 {
    offsets
        .iter()
        .zip(&problem.buffers)
        .map(|(&o, b)| o + b.size)
        .max()
        .unwrap_or(0)
}

/// Sections of a set of buffers: time cut at every lifetime end point.
/// Returns each buffer's section range `[sl, su)` and the number of
/// sections.
pub(crate) fn sections(bufs: &[&crate::problem::Buffer]) -> (Vec<u32>, Vec<u32>, usize) {
    let mut times: Vec<u64> = bufs.iter().flat_map(|b| [b.lower, b.upper]).collect();
    times.sort_unstable();
    times.dedup();
    let pos = |t: u64| times.partition_point(|&x| x < t) as u32;
    let sl = bufs.iter().map(|b| pos(b.lower)).collect();
    let su = bufs.iter().map(|b| pos(b.upper)).collect();
    (sl, su, times.len().saturating_sub(1))
}

/// Summed weight of penalty pairs whose byte ranges intersect.
pub(crate) fn penalty_of(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .penalties
        .iter()
        .filter(|&&(a, b, _)| {
            let (a, b) = (a.index(), b.index());
            let (sa, sb) = (problem.buffers[a].size, problem.buffers[b].size);
            a != b
                && sa > 0
                && sb > 0
                && offsets[a] < offsets[b] + sb
                && offsets[b] < offsets[a] + sa
        })
        .map(|&(_, _, w)| w)
        .fold(0u64, u64::saturating_add)
}

/// Lowest aligned offset `>= from` where `[o, o + size)` meets no obstacle.
/// `obstacles` are byte ranges sorted by start (they may overlap).
pub(crate) fn first_fit(obstacles: &[(u64, u64)], from: u64, size: u64, align: u64) -> u64 {
    let mut cand = align_up(from, align);
    for &(s, e) in obstacles {
        if s >= cand + size {
            break;
        }
        if e > cand {
            cand = align_up(e, align);
        }
    }
    cand
}

/// Offset of the smallest gap among `obstacles` (sorted by start) that holds
/// an aligned block of `size`; ties go to the lowest gap; without a fitting
/// gap, the lowest offset above every obstacle.
pub(crate) fn best_fit(obstacles: &[(u64, u64)], size: u64, align: u64) -> u64 {
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    let mut top = 0u64; // highest end so far: the gap starts here
    for &(s, e) in obstacles {
        if s > top {
            let o = align_up(top, align);
            if o + size <= s {
                let gap = s - top;
                if best.is_none_or(|(g, _)| gap < g) {
                    best = Some((gap, o));
                }
            }
        }
        top = top.max(e);
    }
    match best {
        Some((_, o)) => o,
        None => align_up(top, align),
    }
}

/// Reserved ranges with bytes, sorted by start.
pub(crate) fn sorted_reserved(problem: &Problem) -> Vec<(u64, u64)> {
    let mut r: Vec<(u64, u64)> = problem
        .reserved
        .iter()
        .copied()
        .filter(|&(s, e)| s < e)
        .collect();
    r.sort_unstable();
    r
}

/// Hard conflict partners of every buffer (both directions, deduplicated).
pub(crate) fn conflict_lists(problem: &Problem) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); problem.buffers.len()];
    for &(a, b) in &problem.conflicts {
        if a != b {
            adj[a.index()].push(b.0);
            adj[b.index()].push(a.0);
        }
    }
    for l in &mut adj {
        l.sort_unstable();
        l.dedup();
    }
    adj
}

/// Time index of placed buffers: answers "which placed buffers are live at
/// some instant of this lifetime" for greedy placement.
///
/// Time is cut into buckets about one mean lifetime wide; a placed buffer is
/// stored (with its lifetime and byte range, so queries need no other
/// lookup) in every bucket its lifetime touches. A query scans the buckets of
/// its own lifetime and reports each overlapping buffer once, in the first
/// bucket both share. Work is proportional to the buffers actually met, and
/// memory access is sequential, which matters at a million buffers.
pub(crate) struct TimeIndex {
    t0: u64,
    width: u64,
    buckets: Vec<Vec<Entry>>,
}

#[derive(Clone, Copy)]
struct Entry {
    id: u32,
    lower: u64,
    upper: u64,
    start: u64,
    end: u64,
}

impl TimeIndex {
    /// An empty index sized for the lifetimes of `problem`.
    pub(crate) fn new(problem: &Problem) -> TimeIndex {
        let live = problem
            .buffers
            .iter()
            .filter(|b| b.lower < b.upper && b.size > 0);
        let (mut t0, mut t1, mut total, mut count) = (u64::MAX, 0u64, 0u128, 0u64);
        for b in live {
            t0 = t0.min(b.lower);
            t1 = t1.max(b.upper);
            total += (b.upper - b.lower) as u128;
            count += 1;
        }
        if count == 0 {
            return TimeIndex {
                t0: 0,
                width: 1,
                buckets: Vec::new(),
            };
        }
        let mean = (total / count as u128).max(1) as u64;
        // At most about 4 buckets per buffer.
        let span = t1 - t0;
        let width = mean.max(span / (4 * count).max(1)).max(1);
        let n = (span / width + 1) as usize;
        TimeIndex {
            t0,
            width,
            buckets: vec![Vec::new(); n],
        }
    }

    fn range(&self, lower: u64, upper: u64) -> (usize, usize) {
        let a = ((lower - self.t0) / self.width) as usize;
        let z = ((upper - 1 - self.t0) / self.width) as usize;
        (a, z)
    }

    /// Records placed buffer `id` with byte range `[start, end)`; the id is
    /// reported by [`TimeIndex::for_each_overlap_id`].
    pub(crate) fn place_id(&mut self, id: u32, b: &crate::problem::Buffer, start: u64) {
        if b.lower >= b.upper || b.size == 0 {
            return;
        }
        let e = Entry {
            id,
            lower: b.lower,
            upper: b.upper,
            start,
            end: start + b.size,
        };
        let (a, z) = self.range(b.lower, b.upper);
        for bucket in &mut self.buckets[a..=z] {
            bucket.push(e);
        }
    }

    /// Calls `f(start, end)` once for every placed buffer live together with
    /// a buffer live on `[lower, upper)`.
    pub(crate) fn for_each_overlap(&self, lower: u64, upper: u64, mut f: impl FnMut(u64, u64)) {
        self.for_each_overlap_id(lower, upper, |_, s, e| f(s, e));
    }

    /// [`TimeIndex::for_each_overlap`] that also passes the id given to
    /// [`TimeIndex::place_id`].
    pub(crate) fn for_each_overlap_id(
        &self,
        lower: u64,
        upper: u64,
        mut f: impl FnMut(u32, u64, u64),
    ) {
        if lower >= upper || self.buckets.is_empty() {
            return;
        }
        // Queries may reach outside the indexed span (a buffer without
        // bytes, which the index does not cover): clip them to it.
        let end = self.t0 + self.width * self.buckets.len() as u64;
        let (lower, upper) = (lower.max(self.t0), upper.min(end));
        if lower >= upper {
            return;
        }
        let (a, z) = self.range(lower, upper);
        for (k, bucket) in self.buckets[a..=z].iter().enumerate() {
            // Report in the first bucket both share: the query's first
            // bucket, or the one where the entry starts.
            let from = if k == 0 {
                0
            } else {
                self.t0 + (a + k) as u64 * self.width
            };
            for e in bucket {
                if e.lower < upper && lower < e.upper && e.lower >= from {
                    f(e.id, e.start, e.end);
                }
            }
        }
    }
}
