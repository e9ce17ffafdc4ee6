//! First-fit placement for traces with thousands of buffers live at once.
//!
//! # Why
//! The time index of [`geom`](super::geom) hands first-fit every placed
//! buffer live together with the one being placed, so a pass costs the
//! number of buffers times the number live at once. Training traces keep
//! weights, optimizer state and saved activations live for most of the
//! step: with 7,000 of them live, a pass over 30,000 buffers examined 200
//! million obstacles. Here first-fit examines merged byte ranges instead:
//! buffers stacked against each other become one range, and a query meets
//! a few dozen ranges however many buffers lie under them.
//!
//! # How
//! Time is cut into sections (the elementary intervals between lifetime
//! ends) and a segment tree is built over them. A placed buffer covers a
//! run of sections, which splits into at most two nodes per level
//! (*canonical* nodes). Every node keeps two sets of byte ranges, each
//! kept sorted, disjoint and merged (touching ranges become one):
//! - `stored`: the buffers whose canonical nodes include this one (they
//!   are live over the node's whole time range);
//! - `below`: the union of `stored` over the node's subtree, plus buffers
//!   live somewhere in the node's range that were added on the way (see
//!   [`Occupancy::insert`]); every range in it belongs to a buffer live
//!   at some instant of the node's time range.
//!
//! The bytes taken at some instant of a run of sections are the union of
//! `below` of its canonical nodes and `stored` of the nodes on the two
//! paths from its end sections to the root: a buffer live at an instant
//! of the run is stored at an ancestor-or-self of that instant's leaf,
//! which is either inside a canonical node or one of its ancestors, all
//! of which lie on the two paths. Every range in those sets belongs to a
//! buffer live in the run, so the lowest free offset over their union is
//! exactly first-fit's (the same offset the time index gives).
//!
//! A query keeps one cursor per set and raises the candidate offset only
//! past the set whose next range starts lowest (a heap), so its work is
//! the ranges that really block it, not a round over every set after each
//! move: on 100,000-buffer training traces that cut the work of a pass
//! from 134 to 37 million steps, about half its time (same placement).
//!
//! # Merged unions near the root
//! Each set alone is sparse: weights stored near the root, saved
//! activations stored lower down and temporaries in the `below` sets take
//! turns up the address space, each set leaving gaps that the others
//! fill. Only their union is dense, so a query on a long lifetime stepped
//! over every range of every set below its answer (about 7,000 ranges for
//! a saved activation of a 100,000-buffer trace). The nodes of the
//! [`TOP`] levels nearest the root therefore keep the union itself:
//! - `full`: every buffer live at some instant of the node's time range
//!   (a canonical node there gives the whole union of its time range in
//!   one set: its `below` and the `stored` of all its ancestors);
//! - `cover` (nodes of level `top` only): every buffer live over the
//!   node's whole time range, i.e. `stored` of it and of all its
//!   ancestors, which stands for those ancestors on a query's paths;
//!
//! and keep no `stored` or `below`. A query takes `full` of its canonical
//! nodes up there, and `cover` of the level-`top` ancestors of its two end
//! sections in place of `stored` of the path nodes up there: a canonical
//! node further down has its ancestors up there on those paths (its
//! parent holds an end section), and every buffer in those `cover` sets is
//! live at an end section. The union is the same as above, so the offset
//! is the same. A buffer goes into `full` of every node of those levels
//! it is live in, so a buffer live over the whole trace costs about
//! `2^(TOP + 1)` insertions: the levels are few. On a 100,000-buffer
//! training trace this cut the ranges a pass steps over from 46 to 2.3
//! million and its CPU time by half; at a million buffers, from 117 to
//! 19 s.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::geom::align_up;

/// Sorted, disjoint, merged byte ranges `[start, end)`.
#[derive(Clone, Default)]
struct Ranges(Vec<(u64, u64)>);

impl Ranges {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds `[s, e)`, merging it with ranges it overlaps or touches.
    fn insert(&mut self, s: u64, e: u64) {
        let v = &mut self.0;
        // First range ending at or after `s` (it may touch or overlap);
        // a buffer stacked on top of the others lands past the last one,
        // which is checked first (no search through the set).
        let i = match v.last() {
            Some(r) if r.1 < s => v.len(),
            _ => v.partition_point(|r| r.1 < s),
        };
        // Ranges starting at or before `e` from there on merge.
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < v.len() && v[j].0 <= e {
            ns = ns.min(v[j].0);
            ne = ne.max(v[j].1);
            j += 1;
        }
        if i == j {
            v.insert(i, (s, e));
        } else {
            v[i] = (ns, ne);
            v.drain(i + 1..j);
        }
    }

    /// The index of the first range ending after `at`, searched from
    /// index `from` on (every range before `from` must end at or before
    /// `at`): a few steps forward, then a binary search.
    fn first_ending_after(&self, from: usize, at: u64) -> usize {
        let v = &self.0;
        let mut k = from;
        for _ in 0..4 {
            if v.get(k).is_none_or(|r| r.1 > at) {
                return k;
            }
            k += 1;
        }
        k + v[k..].partition_point(|r| r.1 <= at)
    }

    /// Raises `cand` (aligned to `align`) past every range of this set
    /// that overlaps `[cand, cand + size)`, from `c` (the first range
    /// ending after `cand`) on, until the set leaves `size` bytes free
    /// there. Returns the new cursor and the ranges stepped over.
    fn climb(&self, mut c: usize, cand: &mut u64, size: u64, align: u64) -> (usize, usize) {
        let mut steps = 0usize;
        while let Some(&(s, e)) = self.0.get(c) {
            if e <= *cand {
                // Jumped over by an aligned candidate.
                c += 1;
                continue;
            }
            if s >= cand.saturating_add(size) {
                break;
            }
            steps += 1;
            *cand = align_up(e, align);
            c += 1;
        }
        (c, steps)
    }
}

/// The deepest level that keeps `full` and `cover` (the root is level 0):
/// a buffer live throughout costs `2^(TOP + 1)` insertions into `full`.
/// Measured on training-step traces: on 1,000,000 buffers levels up to 6
/// cut the CPU of a first-fit pass from 117 to 19 s, levels up to 10 made
/// it 152 s (the insertions dominate).
const TOP: u32 = 6;

/// Byte ranges taken over time, for first-fit queries (see the module
/// doc).
pub(crate) struct Occupancy {
    /// Section boundaries: section `k` is `[times[k], times[k + 1])`.
    times: Vec<u64>,
    /// Leaves (a power of two at least the number of sections).
    leaves: usize,
    /// Level of the leaves (`leaves == 1 << depth`).
    depth: u32,
    /// Levels `0..=top` keep `full` and `cover` instead of `stored` and
    /// `below`.
    top: u32,
    stored: Vec<Ranges>,
    below: Vec<Ranges>,
    /// Node `v` of a level up to `top`: every buffer live at some instant
    /// of its time range.
    full: Vec<Ranges>,
    /// Node `(1 << top) + j` of level `top`: every buffer live over its
    /// whole time range (stored at it or an ancestor).
    cover: Vec<Ranges>,
    /// Scratch: the sets a query examines, and a cursor into each.
    sets: Vec<u32>,
    cursors: Vec<usize>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Occupancy {
    /// The sorted distinct lifetime ends of `lifetimes` (`(lower, upper)`
    /// pairs; empty ones are ignored): the first step of a build, a sort,
    /// which [`Occupancy::over`] completes by allocating the tree.
    pub(crate) fn ends(lifetimes: impl Iterator<Item = (u64, u64)>) -> Vec<u64> {
        let mut times: Vec<u64> = lifetimes
            .filter(|&(l, u)| l < u)
            .flat_map(|(l, u)| [l, u])
            .collect();
        times.sort_unstable();
        times.dedup();
        times
    }

    /// An empty tree over `times` ([`Occupancy::ends`]).
    pub(crate) fn over(times: Vec<u64>) -> Occupancy {
        Occupancy::with_top(times, TOP)
    }

    /// [`Occupancy::over`] with `full` and `cover` at levels `0..=top` (at
    /// most the leaves' level).
    fn with_top(times: Vec<u64>, top: u32) -> Occupancy {
        let sections = times.len().saturating_sub(1).max(1);
        let leaves = sections.next_power_of_two();
        let depth = leaves.trailing_zeros();
        let top = top.min(depth);
        Occupancy {
            times,
            leaves,
            depth,
            top,
            stored: vec![Ranges::default(); 2 * leaves],
            below: vec![Ranges::default(); 2 * leaves],
            full: vec![Ranges::default(); 2 << top],
            cover: vec![Ranges::default(); 1 << top],
            sets: Vec::new(),
            cursors: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// Level of node `v`.
    fn level(v: usize) -> u32 {
        usize::BITS - 1 - v.leading_zeros()
    }

    /// The sections `[a, z)` of lifetime `[lower, upper)` (which must have
    /// been given to [`Occupancy::ends`]).
    fn run(&self, lower: u64, upper: u64) -> (usize, usize) {
        let a = self.times.partition_point(|&t| t < lower);
        let z = self.times.partition_point(|&t| t < upper);
        (a, z)
    }

    /// Calls `f(node, canonical)` for the canonical nodes of sections `[a,
    /// z)` (`true`) and for the nodes on the paths from sections `a` and
    /// `z - 1` to the root (`false`; a node may come twice).
    fn nodes(&self, a: usize, z: usize, mut f: impl FnMut(usize, bool)) {
        let (mut l, mut r) = (a + self.leaves, z + self.leaves);
        while l < r {
            if l & 1 == 1 {
                f(l, true);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                f(r, true);
            }
            l >>= 1;
            r >>= 1;
        }
        for leaf in [a + self.leaves, z - 1 + self.leaves] {
            let mut v = leaf;
            while v >= 1 {
                f(v, false);
                v >>= 1;
            }
        }
    }

    /// Records bytes `[start, end)` as taken over lifetime `[lower,
    /// upper)`.
    pub(crate) fn insert(&mut self, lower: u64, upper: u64, start: u64, end: u64) {
        if lower >= upper || start >= end {
            return;
        }
        let (a, z) = self.run(lower, upper);
        if a >= z {
            return;
        }
        let (top, depth) = (self.top, self.depth);
        let (stored, below) = (&mut self.stored, &mut self.below);
        let (mut l, mut r) = (a + self.leaves, z + self.leaves);
        while l < r {
            if l & 1 == 1 {
                if Self::level(l) > top {
                    stored[l].insert(start, end);
                    below[l].insert(start, end);
                }
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                if Self::level(r) > top {
                    stored[r].insert(start, end);
                    below[r].insert(start, end);
                }
            }
            l >>= 1;
            r >>= 1;
        }
        // Every node on the two paths holds section `a` or `z - 1`, where
        // the buffer is live: its range belongs in their `below`.
        for leaf in [a + self.leaves, z - 1 + self.leaves] {
            let mut v = leaf >> 1;
            // (A single section is the root itself: no path above it.)
            while v > 0 && Self::level(v) > top {
                below[v].insert(start, end);
                v >>= 1;
            }
        }
        for lvl in 0..=top {
            let shift = depth - lvl;
            for j in (a >> shift)..=((z - 1) >> shift) {
                self.full[(1 << lvl) + j].insert(start, end);
            }
        }
        let shift = depth - top;
        for j in a.div_ceil(1 << shift)..(z >> shift) {
            self.cover[j].insert(start, end);
        }
    }

    /// The lowest offset, aligned to `align`, where `size` bytes are free
    /// over lifetime `[lower, upper)`, and the number of sets examined
    /// (the work of the query).
    pub(crate) fn first_fit(
        &mut self,
        lower: u64,
        upper: u64,
        size: u64,
        align: u64,
    ) -> (u64, usize) {
        let mut cand = align_up(0, align);
        if lower >= upper || size == 0 {
            return (cand, 0);
        }
        let (a, z) = self.run(lower, upper);
        if a >= z {
            return (cand, 0);
        }
        let mut sets = std::mem::take(&mut self.sets);
        sets.clear();
        let top = self.top;
        let (stored, below) = (&self.stored, &self.below);
        let (full, cover) = (&self.full, &self.cover);
        // Sets are numbered 4v + kind: `below` 0, `stored` 1, `full` 2,
        // `cover` 3 (of the level-`top` node `v`).
        let mut push = |id: usize, set: &Ranges| {
            if !set.is_empty() {
                sets.push(id as u32);
            }
        };
        self.nodes(a, z, |v, canonical| {
            match (canonical, Self::level(v) > top) {
                (true, true) => push(4 * v, &below[v]),
                (true, false) => push(4 * v + 2, &full[v]),
                (false, true) => push(4 * v + 1, &stored[v]),
                (false, false) => {}
            }
        });
        let shift = self.depth - top;
        for sec in [a, z - 1] {
            let j = sec >> shift;
            push(4 * ((1 << top) + j) + 3, &cover[j]);
        }
        sets.sort_unstable();
        sets.dedup();
        let set = |id: u32| {
            let v = id as usize / 4;
            match id % 4 {
                0 => &below[v],
                1 => &stored[v],
                2 => &full[v],
                _ => &cover[v - (1 << top)],
            }
        };
        // Each set keeps a cursor on its first range ending above the
        // candidate (the only one that can overlap `[cand, cand + size)`:
        // the ranges are disjoint and sorted); the candidate only rises, so
        // cursors only move forward. The set whose cursor range starts
        // lowest is the only one that can block: a heap keyed by that start
        // visits a set only when it blocks, not every set after every move
        // (a round over all sets per move cost ten times the moves).
        let mut cursors = std::mem::take(&mut self.cursors);
        let mut heap = std::mem::take(&mut self.heap);
        cursors.clear();
        heap.clear();
        for (k, &id) in sets.iter().enumerate() {
            let c = set(id).first_ending_after(0, cand);
            cursors.push(c);
            if let Some(r) = set(id).0.get(c) {
                heap.push(Reverse((r.0, k as u32)));
            }
        }
        let mut examined = 0usize;
        while let Some(&Reverse((start, k))) = heap.peek() {
            if start >= cand.saturating_add(size) {
                break;
            }
            heap.pop();
            let k = k as usize;
            let ranges = set(sets[k]);
            let from = ranges.first_ending_after(cursors[k], cand);
            // Afterwards the set is clean at the candidate.
            let (c, steps) = ranges.climb(from, &mut cand, size, align);
            cursors[k] = c;
            examined += 1 + steps;
            if let Some(r) = ranges.0.get(c) {
                heap.push(Reverse((r.0, k as u32)));
            }
        }
        self.cursors = cursors;
        self.heap = heap;
        self.sets = sets;
        (cand, examined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_on_insert() {
        let mut r = Ranges::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.insert(20, 25);
        assert_eq!(r.0, [(10, 25), (30, 40)]);
        r.insert(5, 35);
        assert_eq!(r.0, [(5, 40)]);
        r.insert(50, 60);
        r.insert(0, 1);
        assert_eq!(r.0, [(0, 1), (5, 40), (50, 60)]);
        assert_eq!(r.first_ending_after(0, 0), 0);
        assert_eq!(r.first_ending_after(0, 1), 1);
        assert_eq!(r.first_ending_after(1, 39), 1);
        assert_eq!(r.first_ending_after(1, 40), 2);
        assert_eq!(r.first_ending_after(0, 60), 3);
        let mut cand = 2;
        assert_eq!(r.climb(1, &mut cand, 10, 1), (2, 1));
        assert_eq!(cand, 40);
        let mut cand = 38;
        assert_eq!(r.climb(1, &mut cand, 4, 32), (3, 1));
        assert_eq!(cand, 64);
    }

    #[test]
    fn one_section_stacks_the_buffers() {
        // One lifetime for all: the tree is a single leaf, the root.
        let mut occ = Occupancy::over(Occupancy::ends([(3, 9); 4].into_iter()));
        for (size, want) in [(5, 0), (2, 5), (4, 7)] {
            assert_eq!(occ.first_fit(3, 9, size, 1).0, want);
            occ.insert(3, 9, want, want + size);
        }
        assert_eq!(occ.first_fit(3, 9, 1, 8).0, 16);
    }

    /// Against a brute-force first fit over every placed buffer.
    #[test]
    fn matches_brute_force_first_fit() {
        let mut rng = crate::gen::Rng(7);
        for round in 0..48 {
            // Every fourth round crowded: up to a thousand buffers, many sets.
            let n = 20 + rng.below(if round % 4 == 3 { 1000 } else { 200 }) as usize;
            let bufs: Vec<(u64, u64, u64, u64)> = (0..n)
                .map(|_| {
                    let l = rng.below(100);
                    let u = l + 1 + rng.below(if round % 2 == 0 { 10 } else { 100 });
                    let size = 1 + rng.below(50);
                    let align = [1, 1, 2, 8][rng.below(4) as usize];
                    (l, u, size, align)
                })
                .collect();
            // Every depth of the merged levels: none (the root only), some,
            // and all the way to the leaves.
            let top = [0, 2, 4, 40][round / 4 % 4];
            let mut occ =
                Occupancy::with_top(Occupancy::ends(bufs.iter().map(|b| (b.0, b.1))), top);
            let mut placed: Vec<(u64, u64, u64, u64)> = Vec::new();
            for &(l, u, size, align) in &bufs {
                let mut obstacles: Vec<(u64, u64)> = placed
                    .iter()
                    .filter(|p| p.0 < u && l < p.1)
                    .map(|p| (p.2, p.3))
                    .collect();
                obstacles.sort_unstable();
                let want = super::super::geom::first_fit(&obstacles, 0, size, align);
                let (got, _) = occ.first_fit(l, u, size, align);
                assert_eq!(got, want, "round {round}");
                occ.insert(l, u, got, got + size);
                placed.push((l, u, got, got + size));
            }
        }
    }
}
