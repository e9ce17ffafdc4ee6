//! Geometry shared by the solvers (never by the validator): alignment,
//! gap search among obstacles, penalty sums and a time index of buffers.

use crate::problem::Problem;

/// Smallest multiple of `align` (>= 1) that is `>= x`.
pub(crate) fn align_up(x: u64, align: u64) -> u64 {
    if align <= 1 {
        x
    } else {
        x.div_ceil(align) * align
    }
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

/// Time index for placing buffers one by one in a fixed rank order: answers
/// "which already-placed buffers are live at some instant of `[l, u)`" in
/// `O(log T + answers)`.
///
/// Two segment trees over the compressed instants hold, per node, the buffers
/// sorted by rank: one by canonical cover of each lifetime (stabbing), one by
/// start instant (range). Because buffers are placed in rank order, the
/// placed ones of a node are always a prefix, tracked by one counter.
pub(crate) struct TimeIndex {
    times: Vec<u64>,
    size: usize,
    cover: RankLists,
    start: RankLists,
    /// Compressed `[l, u)` per buffer; `l == u` for buffers never live.
    span: Vec<(u32, u32)>,
}

struct RankLists {
    first: Vec<u32>,
    items: Vec<u32>,
    placed: Vec<u32>,
}

impl RankLists {
    /// Lists per node, each in rank order. `visit(b, f)` calls `f(node)` for
    /// every node buffer `b` belongs to; buffers come in rank order.
    fn build(
        nodes: usize,
        order: &[u32],
        visit: impl Fn(usize, &mut dyn FnMut(usize)),
    ) -> RankLists {
        let mut first = vec![0u32; nodes + 1];
        for &b in order {
            visit(b as usize, &mut |n| first[n + 1] += 1);
        }
        for i in 0..nodes {
            first[i + 1] += first[i];
        }
        let mut fill: Vec<u32> = first[..nodes].to_vec();
        let mut items = vec![0u32; first[nodes] as usize];
        for &b in order {
            visit(b as usize, &mut |n| {
                items[fill[n] as usize] = b;
                fill[n] += 1;
            });
        }
        RankLists {
            first,
            items,
            placed: vec![0; nodes],
        }
    }
    fn placed_of(&self, node: usize) -> &[u32] {
        let s = self.first[node] as usize;
        &self.items[s..s + self.placed[node] as usize]
    }
}

impl TimeIndex {
    /// Indexes the buffers; `rank[b]` is the position of `b` in the order in
    /// which they will be placed.
    pub(crate) fn new(problem: &Problem, rank: &[u32]) -> TimeIndex {
        let mut times: Vec<u64> = problem
            .buffers
            .iter()
            .filter(|b| b.lower < b.upper && b.size > 0)
            .flat_map(|b| [b.lower, b.upper])
            .collect();
        times.sort_unstable();
        times.dedup();
        let size = times.len().max(1).next_power_of_two();
        let pos = |t: u64| times.partition_point(|&x| x < t) as u32;
        let span: Vec<(u32, u32)> = problem
            .buffers
            .iter()
            .map(|b| {
                if b.lower < b.upper && b.size > 0 {
                    (pos(b.lower), pos(b.upper))
                } else {
                    (0, 0)
                }
            })
            .collect();
        let mut order: Vec<u32> = (0..span.len() as u32)
            .filter(|&b| span[b as usize].0 < span[b as usize].1)
            .collect();
        order.sort_unstable_by_key(|&b| rank[b as usize]);
        let cover = RankLists::build(2 * size, &order, |b, f| {
            let (l, u) = span[b];
            canonical(size, l as usize, u as usize, f);
        });
        let start = RankLists::build(2 * size, &order, |b, f| {
            let mut n = size + span[b].0 as usize;
            while n >= 1 {
                f(n);
                n /= 2;
            }
        });
        TimeIndex {
            cover,
            start,
            times,
            size,
            span,
        }
    }

    /// Marks `b` placed; must be called in rank order.
    pub(crate) fn place(&mut self, b: usize) {
        let (l, u) = self.span[b];
        if l == u {
            return;
        }
        let cover = &mut self.cover;
        canonical(self.size, l as usize, u as usize, &mut |n| {
            cover.placed[n] += 1
        });
        let mut n = self.size + l as usize;
        while n >= 1 {
            self.start.placed[n] += 1;
            n /= 2;
        }
    }

    /// Calls `f` once for every placed buffer live together with `b`.
    pub(crate) fn for_each_overlap(&self, b: usize, mut f: impl FnMut(u32)) {
        let (l, u) = self.span[b];
        if l == u {
            return;
        }
        // Live at instant l: covers containing leaf l.
        let mut n = self.size + l as usize;
        while n >= 1 {
            self.cover.placed_of(n).iter().for_each(|&x| f(x));
            n /= 2;
        }
        // Starting strictly inside (l, u).
        if l + 1 < u {
            canonical(self.size, l as usize + 1, u as usize, &mut |n| {
                self.start.placed_of(n).iter().for_each(|&x| f(x))
            });
        }
    }

    /// Number of distinct instants.
    #[allow(dead_code)]
    pub(crate) fn instants(&self) -> usize {
        self.times.len()
    }
}

/// Calls `f` on the canonical segment-tree nodes covering leaves `[l, u)`.
fn canonical(size: usize, l: usize, u: usize, f: &mut dyn FnMut(usize)) {
    let (mut l, mut u) = (l + size, u + size);
    while l < u {
        if l & 1 == 1 {
            f(l);
            l += 1;
        }
        if u & 1 == 1 {
            u -= 1;
            f(u);
        }
        l /= 2;
        u /= 2;
    }
}
