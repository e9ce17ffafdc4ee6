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
//!   [`Occupancy::insert_run`]); every range in it belongs to a buffer live
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
//!
//! At a million buffers these sets hold ten thousand ranges and more, and
//! a long buffer enters nearly two hundred of them: they are kept in
//! blocks with the end of each block beside ([`Blocks`]), so a search
//! reads the ends and one block and an insertion moves at most a block.
//!
//! # Nested long buffers
//! Even so, a buffer live over most of a million-buffer trace enters a
//! hundred merged sets or more. Where most long buffers nest (a training
//! step's weights, moments and saved activations), the first pass of the
//! large traces keeps them out of the tree ([`Occupancy::stack_nested`]):
//! each goes on top of the one it nests in, their tops per section are
//! kept in `floor`, and a query starts above the highest top over its
//! lifetime. At a million buffers this halved the CPU of the pass with
//! heights as close to the bound as before.
//!
//! # Memory
//! What remains is mostly waiting for memory: a query or an insertion
//! visits a few dozen nodes spread over a tree of millions, and binary
//! searches large sets. So the sets of the lower levels live in one arena,
//! a node's two sets in one cache line with their first range inline
//! ([`Set`]); lifetimes map to sections through a table rather than a
//! binary search when instants are dense; the two paths of a lifetime are
//! walked side by side, so their shared part is visited once; insertions
//! skip the `below` and `full` sets no later query reads
//! ([`Occupancy::plan`]); and a pass asks for the nodes of the next
//! buffers ahead of time ([`Occupancy::prefetch`]). On a 1,000,000-buffer
//! training trace this took the CPU of a whole `first-fit` run (reading,
//! bound and check included) from 25.6 to 16 s on a loaded 2-core
//! machine, with the same offsets. An insertion enters each set the query
//! before it examined at the query's cursor instead of searching it again,
//! a cursor moves forward in steps doubling in length rather than by a
//! binary search over the rest of its set (the same offsets). Huge pages
//! for the nodes were tried and left out: faulting them in made the
//! tree's build slower, and under a time limit the pass, whose reserve
//! scales with that build, stopped earlier.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::geom::align_up;

/// A byte range `[start, end)`.
type Range = (u64, u64);

/// Where `[s, e)` goes in `v` (sorted, disjoint, merged ranges): the
/// ranges `i..j` it overlaps or touches, and their union with it.
///
/// `hint`, when known, is the index of the first range of `v` ending after
/// `s` (a query's cursor at its answer), which spares the search.
fn merge_span(v: &[Range], s: u64, e: u64, hint: Option<usize>) -> (usize, usize, Range) {
    // First range ending at or after `s` (it may touch or overlap); a
    // buffer stacked on top of the others lands past the last one, which
    // is checked first (no search through the set).
    let i = match (hint, v.last()) {
        // Only the range before the hint can end at `s` itself: merged
        // ranges do not touch, so the one before it ends below its start.
        (Some(c), _) => {
            debug_assert_eq!(c, v.partition_point(|r| r.1 <= s), "hint");
            if c > 0 && v[c - 1].1 == s {
                c - 1
            } else {
                c
            }
        }
        (None, Some(r)) if r.1 < s => v.len(),
        // The last range starts at or before `e`: every range from `i` on
        // merges, and `i` is near the end (a buffer placed on or into the
        // top of the set). A search back from the end finds it in a few
        // steps where a binary search over the set waited for a dozen
        // cache lines: on a million-buffer training trace the buffers live
        // over most of it land so in a hundred merged sets each, and that
        // search was a sixth of the pass.
        (None, Some(r)) if r.0 <= e => first_ending_from_back(v, s),
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
    (i, j, (ns, ne))
}

/// The index of the first range of `v` (sorted, disjoint) ending at or
/// after `s`, searched back from the end in steps doubling in length (the
/// answer is expected near the end), then by a binary search within the
/// last step.
fn first_ending_from_back(v: &[Range], s: u64) -> usize {
    first_from_back(v, |r| r.1 < s)
}

/// The index of the first element of `v` not `before` (`before` must
/// hold for a prefix of `v`), searched back from the end as
/// [`first_ending_from_back`].
fn first_from_back<T>(v: &[T], before: impl Fn(&T) -> bool) -> usize {
    // No element from `hi` on is `before`.
    let mut hi = v.len();
    let mut step = 1;
    loop {
        let Some(probe) = hi.checked_sub(step) else {
            return v[..hi].partition_point(&before);
        };
        if before(&v[probe]) {
            return probe + 1 + v[probe + 1..hi].partition_point(&before);
        }
        hi = probe;
        step *= 2;
    }
}

/// The index of the first range of `v` (sorted, disjoint) ending after
/// `at`, searched from index `from` on (every range before `from` must end
/// at or before `at`): a few steps forward, then steps doubling in length
/// and a binary search within the last one.
///
/// The answer is usually near `from` (a candidate rises by a buffer or a
/// gap at a time), and in a set of thousands of ranges a binary search
/// over the whole rest waited for a cache line far away at each of its
/// first steps; doubling steps stay near the cursor.
fn first_ending_after(v: &[Range], from: usize, at: u64) -> usize {
    let mut k = from;
    for _ in 0..4 {
        if v.get(k).is_none_or(|r| r.1 > at) {
            return k;
        }
        k += 1;
    }
    // Every range before `k` ends at or before `at`.
    let mut step = 4;
    loop {
        let probe = k + step;
        if probe >= v.len() || v[probe].1 > at {
            let hi = probe.min(v.len());
            return k + v[k..hi].partition_point(|r| r.1 <= at);
        }
        k = probe + 1;
        step *= 2;
    }
}

/// Raises `cand` (aligned to `align`) past every range of `v` that
/// overlaps `[cand, cand + size)`, from `c` (the first range ending after
/// `cand`) on, until `v` leaves `size` bytes free there. Returns the new
/// cursor and the ranges stepped over.
fn climb(v: &[Range], mut c: usize, cand: &mut u64, size: u64, align: u64) -> (usize, usize) {
    let mut steps = 0usize;
    while let Some(&(s, e)) = v.get(c) {
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

/// Sorted, disjoint, merged byte ranges in one vector: the reference the
/// tests check the sets of the tree against.
#[cfg(test)]
#[derive(Clone, Default)]
struct Ranges(Vec<Range>);

#[cfg(test)]
impl Ranges {
    /// Adds `[s, e)`, merging it with ranges it overlaps or touches.
    fn insert(&mut self, s: u64, e: u64, hint: Option<usize>) {
        let v = &mut self.0;
        let (i, j, merged) = merge_span(v, s, e, hint);
        if i == j {
            v.insert(i, (s, e));
        } else {
            v[i] = merged;
            v.drain(i + 1..j);
        }
    }
}

/// Ranges a block of [`Blocks`] holds at most; a block that grows past it
/// splits in two halves.
const BLOCK: usize = 128;

/// Bits of a cursor into [`Blocks`] that give the range within its block
/// (the rest give the block).
const IN_BLOCK: u32 = 8;

const _: () = assert!(BLOCK < 1 << IN_BLOCK);

/// The cursor of range `i` of block `b`.
fn cursor(b: usize, i: usize) -> usize {
    b << IN_BLOCK | i
}

/// The block and the range within it of cursor `c`.
fn split(c: usize) -> (usize, usize) {
    (c >> IN_BLOCK, c & ((1 << IN_BLOCK) - 1))
}

/// Sorted, disjoint, merged byte ranges in blocks of at most [`BLOCK`],
/// with the end of each block's last range beside: the sets of the levels
/// near the root, few and large (ten thousand ranges and more at a million
/// buffers).
///
/// # Why
/// In one vector, an insertion that fell inside a set moved every range
/// above it, and a search for a range (an insertion without the query's
/// cursor, or a cursor catching up with a candidate raised by other sets)
/// probed a dozen cache lines spread over the whole set. Here a search
/// reads the block ends (a hundred and fifty words) and one block, and an
/// insertion moves at most a block. The ranges, and so every offset, are
/// those of one sorted vector.
///
/// A cursor ([`cursor`]) names a block and a range within it; every cursor
/// handed out points at a range, or is the end (block `blocks.len()`).
#[derive(Clone, Default)]
struct Blocks {
    /// Blocks in order, none empty.
    blocks: Vec<Vec<Range>>,
    /// The end of the last range of each block.
    lasts: Vec<u64>,
}

impl Blocks {
    fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The cursor past the last range.
    fn end(&self) -> usize {
        cursor(self.blocks.len(), 0)
    }

    fn get(&self, c: usize) -> Option<Range> {
        let (b, i) = split(c);
        self.blocks.get(b).and_then(|v| v.get(i)).copied()
    }

    /// The first range ending after `at`, from cursor `from` on (every
    /// range before it must end at or before `at`).
    fn seek(&self, from: usize, at: u64) -> usize {
        let (mut b, mut i) = split(from);
        let Some(&last) = self.lasts.get(b) else {
            return self.end();
        };
        if last <= at {
            b += 1 + self.lasts[b + 1..].partition_point(|&l| l <= at);
            if b == self.blocks.len() {
                return self.end();
            }
            i = 0;
        }
        cursor(b, first_ending_after(&self.blocks[b], i, at))
    }

    /// [`climb`] over the blocks from cursor `c`.
    fn climb(&self, c: usize, cand: &mut u64, size: u64, align: u64) -> (usize, usize) {
        let (mut b, mut i) = split(c);
        let mut steps = 0;
        while let Some(v) = self.blocks.get(b) {
            let (k, more) = climb(v, i, cand, size, align);
            steps += more;
            if k < v.len() {
                return (cursor(b, k), steps);
            }
            b += 1;
            i = 0;
        }
        (self.end(), steps)
    }

    /// Adds `[s, e)`, merging it with ranges it overlaps or touches.
    /// `hint`, when known, is the cursor of the first range ending after
    /// `s` (as [`merge_span`]'s).
    fn insert(&mut self, s: u64, e: u64, hint: Option<usize>) {
        let n = self.blocks.len();
        if n == 0 {
            let mut v = Vec::with_capacity(BLOCK + 1);
            v.push((s, e));
            self.blocks.push(v);
            self.lasts.push(e);
            return;
        }
        // The block of the first range ending at or after `s` (the last
        // block when none does), and the range's place in it when known.
        let (b, hint) = match hint {
            Some(c) => {
                debug_assert_eq!(c, self.seek(0, s), "hint");
                // Only the range before the hint can end at `s` itself;
                // `merge_span` looks at it within the block.
                let (b, i) = split(c);
                if b == n {
                    (n - 1, Some(self.blocks[n - 1].len()))
                } else if i == 0 && b > 0 && self.lasts[b - 1] == s {
                    (b - 1, Some(self.blocks[b - 1].len()))
                } else {
                    (b, Some(i))
                }
            }
            // Searched back from the end, where an insertion mostly lands
            // (see `merge_span`).
            None => (first_from_back(&self.lasts, |&l| l < s).min(n - 1), None),
        };
        let v = &mut self.blocks[b];
        let len = v.len();
        let (i, k, (ns, mut ne)) = merge_span(v, s, e, hint);
        if k == i {
            v.insert(i, (s, e));
            if i == len {
                self.lasts[b] = e;
            }
            if v.len() > BLOCK {
                let mut tail = Vec::with_capacity(BLOCK + 1);
                tail.extend_from_slice(&v[BLOCK / 2..]);
                v.truncate(BLOCK / 2);
                self.lasts[b] = v[BLOCK / 2 - 1].1;
                let last = tail[tail.len() - 1].1;
                self.blocks.insert(b + 1, tail);
                self.lasts.insert(b + 1, last);
            }
            return;
        }
        v[i] = (ns, ne);
        v.drain(i + 1..k);
        if k < len {
            return;
        }
        // The merged range ends its block: ranges of the next blocks may
        // merge too.
        while let Some(next) = self.blocks.get_mut(b + 1) {
            if next[0].0 > e {
                break;
            }
            ne = ne.max(next.remove(0).1);
            if next.is_empty() {
                self.blocks.remove(b + 1);
                self.lasts.remove(b + 1);
            }
        }
        let v = &mut self.blocks[b];
        v[i].1 = ne;
        self.lasts[b] = ne;
    }
}

/// A set a query examines: one vector of ranges, or [`Blocks`].
#[derive(Clone, Copy)]
enum View<'a> {
    Flat(&'a [Range]),
    Blocks(&'a Blocks),
}

impl View<'_> {
    fn get(self, c: usize) -> Option<Range> {
        match self {
            View::Flat(v) => v.get(c).copied(),
            View::Blocks(v) => v.get(c),
        }
    }

    /// The first range ending after `at`, from cursor `from` on
    /// ([`first_ending_after`]).
    fn seek(self, from: usize, at: u64) -> usize {
        match self {
            View::Flat(v) => first_ending_after(v, from, at),
            View::Blocks(v) => v.seek(from, at),
        }
    }

    /// [`climb`] from cursor `c`.
    fn climb(self, c: usize, cand: &mut u64, size: u64, align: u64) -> (usize, usize) {
        match self {
            View::Flat(v) => climb(v, c, cand, size, align),
            View::Blocks(v) => v.climb(c, cand, size, align),
        }
    }
}

/// Sorted, disjoint, merged byte ranges of a node below the merged levels:
/// one range inline, more in the tree's arena (`arena[at..at + cap]`, of
/// which the first `len` are the set's).
///
/// The lower levels hold millions of nodes, most with a range or two: with
/// a vector per set, every node a pass touched cost a cache miss for the
/// vector and another for its ranges, millions of allocations, and 0.2 to
/// 0.5 s to free them at a million buffers. Inline, a node's two sets share
/// one cache line, and the arena is freed at once.
#[derive(Clone, Copy, Default)]
struct Set {
    one: Range,
    at: usize,
    len: u32,
    /// 0 while the set is inline (at most one range).
    cap: u32,
}

impl Set {
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slice<'a>(&'a self, arena: &'a [Range]) -> &'a [Range] {
        if self.cap == 0 {
            &std::slice::from_ref(&self.one)[..self.len as usize]
        } else {
            &arena[self.at..self.at + self.len as usize]
        }
    }

    fn slice_mut<'a>(&'a mut self, arena: &'a mut [Range]) -> &'a mut [Range] {
        if self.cap == 0 {
            &mut std::slice::from_mut(&mut self.one)[..self.len as usize]
        } else {
            &mut arena[self.at..self.at + self.len as usize]
        }
    }

    /// Adds `[s, e)`, merging it with ranges it overlaps or touches (as
    /// [`Blocks::insert`]).
    fn insert(&mut self, arena: &mut Vec<Range>, s: u64, e: u64, hint: Option<usize>) {
        let len = self.len as usize;
        let (i, j, merged) = merge_span(self.slice(arena), s, e, hint);
        if i < j {
            let v = self.slice_mut(arena);
            v[i] = merged;
            v.copy_within(j.., i + 1);
            self.len -= (j - i - 1) as u32;
            return;
        }
        if self.cap == 0 && len == 0 {
            self.one = (s, e);
            self.len = 1;
            return;
        }
        if self.cap == 0 || len == self.cap as usize {
            // Full (or inline): twice the room, at the arena's end (in
            // place when the set already ends the arena).
            let cap = (2 * len).max(4);
            if self.cap > 0 && self.at + len == arena.len() {
                arena.resize(self.at + cap, (0, 0));
            } else {
                let at = arena.len();
                if self.cap == 0 {
                    arena.push(self.one);
                } else {
                    arena.extend_from_within(self.at..self.at + len);
                }
                arena.resize(at + cap, (0, 0));
                self.at = at;
            }
            self.cap = u32::try_from(cap).expect("fewer than 2^32 ranges in a set");
        }
        let v = &mut arena[self.at..self.at + len + 1];
        v.copy_within(i..len, i + 1);
        v[i] = (s, e);
        self.len += 1;
    }
}

/// Asks the processor to bring the cache line of `x` in (a hint: no
/// effect on the results).
#[inline]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults;
    // the address comes from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The two sets of a node below the merged levels, in one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Node {
    stored: Set,
    below: Set,
}

/// The deepest level that keeps `full` and `cover` (the root is level 0):
/// a buffer live throughout costs `2^(TOP + 1)` insertions into `full`.
/// Measured on training-step traces: on 1,000,000 buffers levels up to 6
/// cut the CPU of a first-fit pass from 117 to 19 s, levels up to 10 made
/// it 152 s (the insertions dominate). With the sets in blocks an
/// insertion costs less: up to 7 took the whole run of a pass at a million
/// buffers from 44.8 to 41.7 s of CPU over six runs side by side with 6
/// (load 8-10, 5 of the 6 lower), up to 8 to 11.0 s against 7.0 s for 6;
/// at 100,000 buffers the pass is 0.3 to 0.4 s either way.
const TOP: u32 = 7;

/// The long buffers of [`Occupancy::stack_nested`] live over at least
/// this fraction of the sections: the saved activations, weights and
/// moments of a training step (a sixty-fourth of the step or more), not
/// its temporaries (a few dozen instants), which would break the chain
/// of the activations they cross (a temporary that joins it blocks every
/// longer buffer that starts under it and ends after it).
pub(super) const STACK_SPAN: usize = 64;

/// The members of a nested family with their offsets, and each member's
/// sections and top `(a, z, top)` in order of start ([`nested_family`]).
pub(super) type Family = (Vec<(u32, u64)>, Vec<(usize, usize, u64)>);

/// The nested family's floor as a max tree over `leaves` leaves: leaf `t`
/// holds the top of the chain live at instant `t < span` (`kept`: start,
/// end, top, sorted by start, as [`nested_family`] returns it), each inner
/// node the highest of its children, so a query over `[a, z)` finds the
/// highest stacked top during that stretch.
pub(super) fn family_floor(kept: &[(usize, usize, u64)], span: usize, leaves: usize) -> Vec<u64> {
    let mut floor = vec![0u64; 2 * leaves];
    let mut chain: Vec<(usize, u64)> = Vec::new();
    let mut next = 0;
    for t in 0..span {
        while chain.last().is_some_and(|c| c.0 <= t) {
            chain.pop();
        }
        while let Some(&(_, z, top)) = kept.get(next).filter(|k| k.0 == t) {
            chain.push((z, top));
            next += 1;
        }
        floor[leaves + t] = chain.last().map_or(0, |c| c.1);
    }
    for v in (1..leaves).rev() {
        floor[v] = floor[2 * v].max(floor[2 * v + 1]);
    }
    floor
}

/// The stack rule of [`Occupancy::stack_nested`] over the long buffers
/// `family` (`(a, Reverse(z), id, size, align)`: sections `[a, z)`, in
/// any order): each, by start (the longer first on a tie), joins when it
/// nests in the innermost member live at its start (or starts where none
/// is), on top of it. The members with their offsets, and each member's
/// `(a, z, top)` in order of start; `None` when fewer than half of the
/// long buffers join.
pub(super) fn nested_family(
    mut family: Vec<(usize, Reverse<usize>, u32, u64, u64)>,
) -> Option<Family> {
    family.sort_unstable();
    // The members live at the current start, outermost first: (end
    // section, top).
    let mut chain: Vec<(usize, u64)> = Vec::new();
    let mut out = Vec::new();
    let mut kept: Vec<(usize, usize, u64)> = Vec::new();
    for &(a, Reverse(z), id, size, align) in &family {
        while chain.last().is_some_and(|c| c.0 <= a) {
            chain.pop();
        }
        let base = match chain.last() {
            Some(&(end, _)) if end < z => continue,
            Some(&(_, top)) => top,
            None => 0,
        };
        let o = align_up(base, align);
        chain.push((z, o + size));
        out.push((id, o));
        kept.push((a, z, o + size));
    }
    (out.len() * 2 >= family.len()).then_some((out, kept))
}

/// Byte ranges taken over time, for first-fit queries (see the module
/// doc).
pub(crate) struct Occupancy {
    /// Section boundaries: section `k` is `[times[k], times[k + 1])`.
    times: Vec<u64>,
    /// When the boundaries are dense (traces: an instant per allocation),
    /// `section[t - times[0]]` is the first section starting at or after
    /// instant `t`: one look-up in place of a binary search through
    /// millions of boundaries, twice per query and insertion.
    section: Vec<u32>,
    /// Leaves (a power of two at least the number of sections).
    leaves: usize,
    /// Level of the leaves (`leaves == 1 << depth`).
    depth: u32,
    /// Levels `0..=top` keep `full` and `cover` instead of `stored` and
    /// `below`.
    top: u32,
    /// `stored` and `below` of node `v` (levels below `top`).
    nodes: Vec<Node>,
    /// Ranges of the sets of `nodes` that hold more than one.
    arena: Vec<Range>,
    /// Per node: 1 + the last position, among the insertions planned by
    /// [`Occupancy::plan`], of a query that reads its `below` or `full`
    /// (a query reads them only where the node is canonical); 0 when none
    /// does. Empty when nothing is planned: every set is kept.
    last: Vec<u32>,
    /// The sections `[a, z)` of the lifetimes planned by
    /// [`Occupancy::plan`], in order (empty without a plan).
    runs: Vec<(usize, usize)>,
    /// Buffers placed so far by [`Occupancy::place`].
    placed: u32,
    /// Node `v` of a level up to `top`: every buffer live at some instant
    /// of its time range.
    full: Vec<Blocks>,
    /// Node `(1 << top) + j` of level `top`: every buffer live over its
    /// whole time range (stored at it or an ancestor).
    cover: Vec<Blocks>,
    /// Scratch: the sets a query examines, and a cursor into each.
    sets: Vec<u32>,
    cursors: Vec<usize>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per node: the highest end of the stacked family
    /// ([`Occupancy::stack_nested`]) over the node's sections; empty
    /// without one.
    floor: Vec<u64>,
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
        let mut section = Vec::new();
        if let (Some(&first), Some(&last)) = (times.first(), times.last()) {
            let span = last - first;
            if span <= 4 * times.len() as u64 + 64 && times.len() < u32::MAX as usize {
                section.reserve_exact(span as usize + 1);
                let mut k = 0u32;
                for t in first..=last {
                    while times[k as usize] < t {
                        k += 1;
                    }
                    section.push(k);
                }
            }
        }
        Occupancy {
            times,
            section,
            leaves,
            depth,
            top,
            nodes: vec![Node::default(); 2 * leaves],
            arena: Vec::new(),
            last: Vec::new(),
            runs: Vec::new(),
            placed: 0,
            full: vec![Blocks::default(); 2 << top],
            cover: vec![Blocks::default(); 1 << top],
            sets: Vec::new(),
            cursors: Vec::new(),
            heap: BinaryHeap::new(),
            floor: Vec::new(),
        }
    }

    /// Level of node `v`.
    fn level(v: usize) -> u32 {
        usize::BITS - 1 - v.leading_zeros()
    }

    /// The first section starting at or after instant `t`.
    fn section_of(&self, t: u64) -> usize {
        let first = self.times.first().copied().unwrap_or(0);
        match self.section.get(t.wrapping_sub(first) as usize) {
            Some(&k) if t >= first => k as usize,
            _ => self.times.partition_point(|&x| x < t),
        }
    }

    /// The sections `[a, z)` of lifetime `[lower, upper)` (which must have
    /// been given to [`Occupancy::ends`]).
    fn run(&self, lower: u64, upper: u64) -> (usize, usize) {
        (self.section_of(lower), self.section_of(upper))
    }

    /// Asks the processor to fetch what the query and the insertion of the
    /// buffer planned `ahead` places after the next one
    /// ([`Occupancy::plan`]) will read: with `deep` the nodes of its walk,
    /// else (the nodes being cached by an earlier call) the first ranges of
    /// their sets in the arena. A pass calls it a few buffers ahead: the
    /// work of a query is mostly waiting for memory, node after node, and
    /// fetches started early overlap. Nothing without a plan.
    pub(crate) fn prefetch(&self, ahead: usize, deep: bool) {
        let Some(&(a, z)) = self.runs.get(self.placed as usize + ahead) else {
            return;
        };
        if a >= z {
            return;
        }
        let top = self.top;
        self.walk(a, z, |v, _| {
            if Self::level(v) <= top {
                return;
            }
            let n = &self.nodes[v];
            if deep {
                prefetch(n);
            } else {
                for s in [&n.stored, &n.below] {
                    if s.cap > 0 {
                        if let Some(r) = self.arena.get(s.at) {
                            prefetch(r);
                        }
                    }
                }
            }
        });
    }

    /// Calls `f(node, canonical)` for the canonical nodes of sections `[a,
    /// z)` (`true`) and once for each node on the paths from sections `a`
    /// and `z - 1` to the root (`false`).
    fn walk(&self, a: usize, z: usize, mut f: impl FnMut(usize, bool)) {
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
        // The two paths meet at the lowest common ancestor and share the
        // rest: walked side by side, each node comes once.
        let (mut u, mut w) = (a + self.leaves, z - 1 + self.leaves);
        while u >= 1 {
            f(u, false);
            if w != u {
                f(w, false);
            }
            u >>= 1;
            w >>= 1;
        }
    }

    /// Records bytes `[start, end)` as taken over lifetime `[lower,
    /// upper)`.
    #[cfg(test)]
    fn insert(&mut self, lower: u64, upper: u64, start: u64, end: u64) {
        if lower >= upper || start >= end {
            return;
        }
        let (a, z) = self.run(lower, upper);
        self.insert_run(a, z, start, end, false);
    }

    /// `Occupancy::insert` (a test helper) over sections `[a, z)`. With
    /// `queried`, the range starts at the answer of the last query
    /// ([`Occupancy::first_fit_run`]) over the same sections, and the sets
    /// that query examined are entered at its cursors instead of by a
    /// search.
    fn insert_run(&mut self, a: usize, z: usize, start: u64, end: u64, queried: bool) {
        if a >= z {
            return;
        }
        let (top, depth) = (self.top, self.depth);
        let (nodes, arena) = (&mut self.nodes, &mut self.arena);
        // A `below` or `full` set no later query reads is left as it is
        // (see `Occupancy::plan`).
        let (last, placed) = (&self.last, self.placed);
        let read_later = |v: usize| last.get(v).is_none_or(|&k| k > placed);
        // The query's cursor on set `id` (numbered as in `first_fit_run`):
        // the first range ending after the answer. Taken once: a set may
        // be met twice here (a canonical node on a path), and after the
        // first insertion the cursor is stale.
        let (sets, cursors) = (&self.sets, &mut self.cursors);
        let mut hint = |id: usize| -> Option<usize> {
            if !queried {
                return None;
            }
            let k = sets.binary_search(&(id as u32)).ok()?;
            let c = std::mem::replace(&mut cursors[k], usize::MAX);
            (c != usize::MAX).then_some(c)
        };
        let (mut l, mut r) = (a + self.leaves, z + self.leaves);
        while l < r {
            if l & 1 == 1 {
                if Self::level(l) > top {
                    let n = &mut nodes[l];
                    n.stored.insert(arena, start, end, hint(4 * l + 1));
                    if read_later(l) {
                        n.below.insert(arena, start, end, hint(4 * l));
                    }
                }
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                if Self::level(r) > top {
                    let n = &mut nodes[r];
                    n.stored.insert(arena, start, end, hint(4 * r + 1));
                    if read_later(r) {
                        n.below.insert(arena, start, end, hint(4 * r));
                    }
                }
            }
            l >>= 1;
            r >>= 1;
        }
        // Every node on the two paths holds section `a` or `z - 1`, where
        // the buffer is live: its range belongs in their `below`. (A
        // single section is the root itself: no path above it.) Above the
        // paths' meeting point one insertion per node.
        let (mut u, mut w) = ((a + self.leaves) >> 1, (z - 1 + self.leaves) >> 1);
        while u > 0 && Self::level(u) > top {
            if read_later(u) {
                nodes[u].below.insert(arena, start, end, hint(4 * u));
            }
            if w != u && read_later(w) {
                nodes[w].below.insert(arena, start, end, hint(4 * w));
            }
            u >>= 1;
            w >>= 1;
        }
        for lvl in 0..=top {
            let shift = depth - lvl;
            for j in (a >> shift)..=((z - 1) >> shift) {
                let v = (1 << lvl) + j;
                if read_later(v) {
                    self.full[v].insert(start, end, hint(4 * v + 2));
                }
            }
        }
        let shift = depth - top;
        for j in a.div_ceil(1 << shift)..(z >> shift) {
            self.cover[j].insert(start, end, hint(4 * ((1 << top) + j) + 3));
        }
    }

    /// First-fit of `size` bytes aligned to `align` over lifetime `[lower,
    /// upper)` (as the test helper `Occupancy::first_fit` finds it),
    /// recorded as taken there: the offset and the work of the query.
    ///
    /// After [`Occupancy::plan`] the calls must come in the planned order.
    pub(crate) fn place(&mut self, lower: u64, upper: u64, size: u64, align: u64) -> (u64, usize) {
        if lower >= upper || size == 0 {
            self.placed += 1;
            return (align_up(0, align), 0);
        }
        // Planned: the sections were found by the plan, in a pass over the
        // order (two look-ups in a table of millions, each a cache miss,
        // spared per buffer).
        let (a, z) = match self.runs.get(self.placed as usize) {
            Some(&run) => run,
            None => self.run(lower, upper),
        };
        debug_assert_eq!((a, z), self.run(lower, upper), "planned order");
        let (o, examined) = self.first_fit_run(a, z, size, align);
        // The position of this buffer is `placed`: sets read by queries
        // after it only (`last > placed + 1`) take its range.
        self.placed += 1;
        self.insert_run(a, z, o, o + size, true);
        (o, examined)
    }

    /// Places the members of a nested family by the stack rule and keeps
    /// them out of the tree, when they are most of the long buffers.
    ///
    /// Among the `buffers` (`(id, lower, upper, size, align)`) living over
    /// at least a [`STACK_SPAN`]th of the sections (the long ones), in
    /// order of start (the longer first on a tie), each one that nests in
    /// the innermost member live at its start (or starts where none is
    /// live) joins the family, on top of that member; one that crosses it
    /// is left out (it goes through the tree with the rest). When the
    /// family holds fewer than half of the long buffers nothing is placed
    /// (see below). The members placed, with their offsets, are returned;
    /// later queries start above the highest member live over their
    /// lifetime.
    ///
    /// # Why
    /// A training step pushes its saved activations in the forward pass
    /// and pops them in the backward one, inside the lifetime of the
    /// weights and moments: the long buffers nest, and those of a
    /// million-buffer step enter a hundred merged sets each, most of a
    /// pass's work. Stacked, each costs a few steps, and the family is
    /// what first-fit builds there anyway: on the generated training
    /// steps (82 to 89 % of their long buffers nest), first-fit's height
    /// at 1,000,000 buffers stayed within 0.001 % of the bound at half the
    /// CPU time, and the first placements at 10,000 buffers came out
    /// lower. Lifetimes that nest by chance (random intervals: 0.2 % of
    /// the long ones; the real `pangu_2.6B` and `resnet50` traces, 13 to
    /// 16 %) are left to the tree: there a few stacked long buffers
    /// raised the floor under everything live with them (a random
    /// 100,000-buffer instance 40 to 71 % above the bound).
    ///
    /// # Guarantees
    /// Members live at one instant all contain it, so (nesting or
    /// disjoint) they form one chain, stacked from 0 without overlap: at
    /// each instant the family takes `[0, top)`, and over a lifetime the
    /// highest of those tops, one range that every later query starts
    /// above. The offsets of the other buffers stay first-fit's given the
    /// family.
    pub(crate) fn stack_nested(
        &mut self,
        buffers: impl Iterator<Item = (u32, u64, u64, u64, u64)>,
    ) -> Vec<(u32, u64)> {
        let sections = self.times.len().saturating_sub(1).max(1);
        let long = (sections / STACK_SPAN).max(2);
        let family: Vec<(usize, Reverse<usize>, u32, u64, u64)> = buffers
            .filter(|&(_, l, u, size, _)| l < u && size > 0)
            .filter_map(|(id, l, u, size, align)| {
                let (a, z) = self.run(l, u);
                (z - a >= long).then_some((a, Reverse(z), id, size, align))
            })
            .collect();
        let Some((out, kept)) = nested_family(family) else {
            return Vec::new();
        };
        self.floor = family_floor(&kept, sections, self.leaves);
        out
    }

    /// Announces the lifetimes of the buffers [`Occupancy::place`] will be
    /// called with, in that order, so that insertions skip the `below` and
    /// `full` sets no later query reads.
    ///
    /// # Why
    /// A query reads `below` and `full` only of its canonical nodes, and
    /// in size order the buffers live long enough to have canonical nodes
    /// above the lowest levels (weights, saved activations, gradients) come
    /// early: past the last of them the large merged sets of the middle
    /// and upper levels, into which every later buffer was inserted at a
    /// cost of a binary search each, are never read again. The offsets do
    /// not change: only sets that no query reads any more are skipped.
    pub(crate) fn plan(&mut self, lifetimes: impl Iterator<Item = (u64, u64)>) {
        let mut last = vec![0u32; self.nodes.len()];
        let mut runs = Vec::new();
        for (k, (lower, upper)) in lifetimes.enumerate() {
            let k = u32::try_from(k + 1).expect("fewer than 2^32 buffers");
            if lower >= upper {
                runs.push((0, 0));
                continue;
            }
            let (a, z) = self.run(lower, upper);
            runs.push((a, z));
            let (mut l, mut r) = (a + self.leaves, z + self.leaves);
            while l < r {
                if l & 1 == 1 {
                    last[l] = k;
                    l += 1;
                }
                if r & 1 == 1 {
                    r -= 1;
                    last[r] = k;
                }
                l >>= 1;
                r >>= 1;
            }
        }
        self.last = last;
        self.runs = runs;
    }

    /// The lowest offset, aligned to `align`, where `size` bytes are free
    /// over lifetime `[lower, upper)`, and the number of sets examined
    /// (the work of the query).
    #[cfg(test)]
    fn first_fit(&mut self, lower: u64, upper: u64, size: u64, align: u64) -> (u64, usize) {
        if lower >= upper || size == 0 {
            return (align_up(0, align), 0);
        }
        let (a, z) = self.run(lower, upper);
        self.first_fit_run(a, z, size, align)
    }

    /// `Occupancy::first_fit` (a test helper) over sections `[a, z)`.
    fn first_fit_run(&mut self, a: usize, z: usize, size: u64, align: u64) -> (u64, usize) {
        if a >= z {
            return (align_up(0, align), 0);
        }
        let mut sets = std::mem::take(&mut self.sets);
        sets.clear();
        let top = self.top;
        let (nodes, arena) = (&self.nodes, &self.arena[..]);
        let (full, cover) = (&self.full, &self.cover);
        // The stacked family takes `[0, floor)` at each section (its live
        // members are a chain stacked from 0), so over the run it takes
        // `[0, highest floor)`: one range, below every candidate.
        let floor = &self.floor;
        let mut lowest = 0u64;
        // Sets are numbered 4v + kind: `below` 0, `stored` 1, `full` 2,
        // `cover` 3 (of the level-`top` node `v`).
        self.walk(a, z, |v, canonical| {
            if canonical {
                if let Some(&f) = floor.get(v) {
                    lowest = lowest.max(f);
                }
            }
            let deep = Self::level(v) > top;
            let (id, empty) = match (canonical, deep) {
                (true, true) => (4 * v, nodes[v].below.is_empty()),
                (true, false) => (4 * v + 2, full[v].is_empty()),
                (false, true) => (4 * v + 1, nodes[v].stored.is_empty()),
                (false, false) => return,
            };
            if !empty {
                sets.push(id as u32);
            }
        });
        let shift = self.depth - top;
        for sec in [a, z - 1] {
            let j = sec >> shift;
            if !cover[j].is_empty() {
                sets.push((4 * ((1 << top) + j) + 3) as u32);
            }
        }
        sets.sort_unstable();
        sets.dedup();
        let mut cand = align_up(lowest, align);
        let set = |id: u32| -> View {
            let v = id as usize / 4;
            match id % 4 {
                0 => View::Flat(nodes[v].below.slice(arena)),
                1 => View::Flat(nodes[v].stored.slice(arena)),
                2 => View::Blocks(&full[v]),
                _ => View::Blocks(&cover[v - (1 << top)]),
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
            let v = set(id);
            let c = v.seek(0, cand);
            cursors.push(c);
            if let Some(r) = v.get(c) {
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
            let from = ranges.seek(cursors[k], cand);
            // Afterwards the set is clean at the candidate.
            let (c, steps) = ranges.climb(from, &mut cand, size, align);
            cursors[k] = c;
            examined += 1 + steps;
            if let Some(r) = ranges.get(c) {
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
        r.insert(10, 20, None);
        r.insert(30, 40, None);
        r.insert(20, 25, None);
        assert_eq!(r.0, [(10, 25), (30, 40)]);
        r.insert(5, 35, None);
        assert_eq!(r.0, [(5, 40)]);
        r.insert(50, 60, None);
        r.insert(0, 1, None);
        assert_eq!(r.0, [(0, 1), (5, 40), (50, 60)]);
        let v = &r.0;
        assert_eq!(first_ending_after(v, 0, 0), 0);
        assert_eq!(first_ending_after(v, 0, 1), 1);
        assert_eq!(first_ending_after(v, 1, 39), 1);
        assert_eq!(first_ending_after(v, 1, 40), 2);
        assert_eq!(first_ending_after(v, 0, 60), 3);
        let mut cand = 2;
        assert_eq!(climb(v, 1, &mut cand, 10, 1), (2, 1));
        assert_eq!(cand, 40);
        let mut cand = 38;
        assert_eq!(climb(v, 1, &mut cand, 4, 32), (3, 1));
        assert_eq!(cand, 64);
    }

    /// The doubling search finds what a binary search over the whole set
    /// finds, from every valid start, in sets of every size.
    #[test]
    fn doubling_search_matches_a_binary_search() {
        let mut rng = crate::gen::Rng(5);
        for n in [0usize, 1, 3, 5, 9, 17, 40, 100, 1_000] {
            let mut v: Vec<Range> = Vec::new();
            let mut at = rng.below(3);
            for _ in 0..n {
                let s = at + 1 + rng.below(5);
                let e = s + 1 + rng.below(5);
                v.push((s, e));
                at = e;
            }
            for _ in 0..200 {
                let x = rng.below(at + 10);
                let want = v.partition_point(|r| r.1 <= x);
                for from in [0, want / 2, want.saturating_sub(1), want] {
                    assert_eq!(
                        first_ending_after(&v, from, x),
                        want,
                        "n {n} x {x} from {from}"
                    );
                }
            }
        }
    }

    /// The search back from the end finds what a binary search finds, and
    /// insertions that merge into the top of a set (the case it serves)
    /// give the same sets as insertions searched from the front.
    #[test]
    fn search_from_the_back_matches_a_binary_search() {
        let mut rng = crate::gen::Rng(9);
        for n in [1usize, 2, 3, 6, 17, 100, 1_000] {
            let mut v: Vec<Range> = Vec::new();
            let mut at = rng.below(3);
            for _ in 0..n {
                let s = at + 1 + rng.below(5);
                let e = s + 1 + rng.below(5);
                v.push((s, e));
                at = e;
            }
            for s in 0..=at + 2 {
                let want = v.partition_point(|r| r.1 < s);
                if want < v.len() {
                    assert_eq!(first_ending_from_back(&v, s), want, "n {n} s {s}");
                }
                // Through `merge_span`: a range from `s` up to the last
                // range's start, or beyond the end.
                for e in [s.max(v[n - 1].0), at + 3] {
                    let (i, j, _) = merge_span(&v, s, e.max(s + 1), None);
                    let wi = v.partition_point(|r| r.1 < s);
                    let wj = v.partition_point(|r| r.0 <= e.max(s + 1));
                    assert_eq!((i, j), (wi, wj.max(wi)), "n {n} s {s} e {e}");
                }
            }
        }
    }

    /// The ranges of a blocked set, in order, after checking its shape:
    /// no empty or overfull block, and each block's last end beside it.
    fn flatten(b: &Blocks) -> Vec<Range> {
        assert_eq!(b.blocks.len(), b.lasts.len());
        for (v, &l) in b.blocks.iter().zip(&b.lasts) {
            assert!(!v.is_empty() && v.len() <= BLOCK, "block of {}", v.len());
            assert_eq!(v[v.len() - 1].1, l);
        }
        b.blocks.concat()
    }

    /// Blocked sets against one vector, under random insertions (with and
    /// without the cursor of the range they land at) that split full
    /// blocks and merge ranges across blocks; their searches and climbs
    /// against the vector's.
    #[test]
    fn blocked_sets_match_one_vector() {
        let mut rng = crate::gen::Rng(13);
        for round in 0..6 {
            let mut b = Blocks::default();
            let mut want = Ranges::default();
            let span = [2_000u64, 20_000, 200_000][round % 3];
            for step in 0..6_000 {
                let s = rng.below(span);
                let wide = step % 97 == 0;
                let e = s + 1 + rng.below(if wide { span / 20 } else { 4 });
                let hint = (step % 2 == 0).then(|| b.seek(0, s));
                b.insert(s, e, hint);
                want.insert(s, e, None);
                if step % 50 != 0 && step < 5_950 {
                    continue;
                }
                let v = &want.0;
                assert_eq!(flatten(&b), *v, "round {round} step {step}");
                for _ in 0..20 {
                    let at = rng.below(span + 10);
                    let k = v.partition_point(|r| r.1 <= at);
                    // From the start, and from a cursor part of the way.
                    let part = b.seek(0, rng.below(at + 1));
                    for from in [0, part] {
                        assert_eq!(b.get(b.seek(from, at)), v.get(k).copied(), "at {at}");
                    }
                    let size = 1 + rng.below(30);
                    let align = [1, 1, 4, 64][rng.below(4) as usize];
                    let (mut want_cand, mut cand) = (at, at);
                    let (wc, ws) = climb(v, k, &mut want_cand, size, align);
                    let (c, steps) = b.climb(b.seek(0, at), &mut cand, size, align);
                    assert_eq!((cand, steps), (want_cand, ws), "climb at {at}");
                    assert_eq!(b.get(c), v.get(wc).copied());
                }
            }
            assert!(b.blocks.len() > 1 || round % 3 == 0, "round {round}");
        }
    }

    /// The inline-or-arena sets against vector sets, under random
    /// insertions into many sets sharing one arena (each grows, moves to
    /// the arena's end, or grows in place there).
    #[test]
    fn arena_sets_match_vector_sets() {
        let mut rng = crate::gen::Rng(11);
        let mut arena = Vec::new();
        let mut sets = vec![Set::default(); 8];
        let mut want = vec![Ranges::default(); 8];
        for step in 0..4_000 {
            let k = rng.below(8) as usize;
            let s = rng.below(2_000);
            let e = s + 1 + rng.below(if step % 3 == 0 { 60 } else { 6 });
            // Every other insertion enters at a known position (as after
            // a query), the others search.
            let hint = (step % 2 == 0).then(|| want[k].0.partition_point(|r| r.1 <= s));
            sets[k].insert(&mut arena, s, e, hint);
            want[k].insert(s, e, None);
            assert_eq!(sets[k].slice(&arena), &want[k].0[..], "step {step}");
        }
        assert!(
            sets.iter().all(|s| s.cap > 0),
            "every set moved to the arena"
        );
        // Merging a whole set into one range, then one more.
        sets[0].insert(&mut arena, 0, 3_000, None);
        assert_eq!(sets[0].slice(&arena), [(0, 3_000)]);
        sets[0].insert(&mut arena, 4_000, 4_001, Some(1));
        assert_eq!(sets[0].slice(&arena), [(0, 3_000), (4_000, 4_001)]);
        let mut inline = Set::default();
        inline.insert(&mut arena, 5, 9, None);
        inline.insert(&mut arena, 1, 5, Some(0));
        assert_eq!((inline.slice(&arena), inline.cap), (&[(1, 9)][..], 0));
    }

    /// Sections of lifetimes through the dense table and through a binary
    /// search (sparse instants) agree.
    #[test]
    fn dense_and_sparse_sections_agree() {
        let dense = Occupancy::over(Occupancy::ends([(0, 5), (2, 9), (9, 12)].into_iter()));
        assert!(!dense.section.is_empty());
        let sparse = Occupancy::over(Occupancy::ends([(0, 5_000), (2, 9_000)].into_iter()));
        assert!(sparse.section.is_empty());
        for occ in [&dense, &sparse] {
            for &t in &occ.times {
                let want = occ.times.partition_point(|&x| x < t);
                assert_eq!(occ.section_of(t), want);
            }
        }
        assert_eq!(dense.run(2, 9), (1, 3));
        assert_eq!(dense.section_of(100), 5);
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

    /// A step in miniature over 128 instants: two weights over the
    /// whole of it, three activations pushed and popped inside them, a
    /// gradient that crosses the activations, a second micro-batch's
    /// activation after the first's, and temporaries. The nested long
    /// buffers go on top of the one they nest in; the crossing gradient
    /// and the short buffers are left to the tree, whose queries start
    /// above the family's top over their lifetime.
    #[test]
    fn the_stack_rule_places_a_nested_family_on_top_of_its_parents() {
        // (lower, upper, size, align)
        let bufs: [(u64, u64, u64, u64); 10] = [
            (0, 128, 10, 1),  // 0: weight
            (0, 128, 6, 4),   // 1: weight, aligned: 12
            (2, 60, 5, 1),    // 2: activation, outermost
            (4, 50, 7, 1),    // 3: nested in 2
            (6, 40, 3, 1),    // 4: nested in 3
            (45, 100, 4, 1),  // 5: gradient: crosses 3 and 2
            (70, 110, 8, 1),  // 6: next activation, after 2 ended
            (10, 12, 50, 1),  // 7: temporaries
            (55, 58, 9, 1),   // 8
            (111, 113, 1, 1), // 9
        ];
        let mut occ = Occupancy::over(Occupancy::ends(bufs.iter().map(|b| (b.0, b.1))));
        let members = occ.stack_nested(
            bufs.iter()
                .enumerate()
                .map(|(i, b)| (i as u32, b.0, b.1, b.2, b.3)),
        );
        let mut members = members;
        members.sort_unstable();
        assert_eq!(
            members,
            [(0, 0), (1, 12), (2, 18), (3, 23), (4, 30), (6, 18)]
        );
        // Each left to the tree starts above the highest member live
        // with it: 33 under the temporary at 10..12 (activation 4's top),
        // 30 under the gradient (3's top at 45..50); 8 starts above 23
        // (2's top) and is raised past the gradient; 9 starts at 18, the
        // weights' top (6 ended at 110).
        for (i, want) in [(7, 33), (5, 30), (8, 34), (9, 18)] {
            let (l, u, size, align) = bufs[i];
            assert_eq!(occ.place(l, u, size, align).0, want, "buffer {i}");
        }
    }

    /// Lifetimes that nest by chance only (here a staircase: every long
    /// one crosses its neighbours) leave the stack rule out: nothing is
    /// placed and the queries are plain first-fit.
    #[test]
    fn the_stack_rule_stays_out_where_few_long_buffers_nest() {
        let bufs: Vec<(u64, u64)> = (0..200u64).map(|k| (k, k + 50)).collect();
        let mut occ = Occupancy::over(Occupancy::ends(bufs.iter().copied()));
        let members = occ.stack_nested(
            bufs.iter()
                .enumerate()
                .map(|(i, b)| (i as u32, b.0, b.1, 8, 1)),
        );
        assert!(members.is_empty());
        assert!(occ.floor.is_empty());
        assert_eq!(occ.place(0, 50, 8, 1).0, 0);
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
                    // Every third round sparse instants (no dense table).
                    let scale = if round % 3 == 0 { 1_000 } else { 1 };
                    let l = rng.below(100);
                    let u = l + 1 + rng.below(if round % 2 == 0 { 10 } else { 100 });
                    let (l, u) = (l * scale, u * scale);
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
            // Odd rounds place through `place`, with the insertions
            // planned (sets no later query reads are skipped).
            if round % 2 == 1 {
                occ.plan(bufs.iter().map(|b| (b.0, b.1)));
            }
            let mut placed: Vec<(u64, u64, u64, u64)> = Vec::new();
            for &(l, u, size, align) in &bufs {
                let mut obstacles: Vec<(u64, u64)> = placed
                    .iter()
                    .filter(|p| p.0 < u && l < p.1)
                    .map(|p| (p.2, p.3))
                    .collect();
                obstacles.sort_unstable();
                let want = super::super::geom::first_fit(&obstacles, 0, size, align);
                let got = if round % 2 == 0 {
                    let (got, _) = occ.first_fit(l, u, size, align);
                    occ.insert(l, u, got, got + size);
                    got
                } else {
                    occ.place(l, u, size, align).0
                };
                assert_eq!(got, want, "round {round}");
                placed.push((l, u, got, got + size));
            }
        }
    }
}
