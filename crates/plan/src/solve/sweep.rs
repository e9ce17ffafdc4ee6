//! Sweep placement: a whole placement of a large trace in a few tenths of
//! a second, for time limits that hold no first-fit pass.
//!
//! # Why
//! At a million buffers the first-fit pass over merged ranges
//! ([`occupancy`](super::occupancy)) needs seconds of CPU time, and a pass
//! cut before it places anything left every buffer to the skyline
//! completion ([`skyline`](super::skyline)), which puts each above the
//! highest byte ever used during its lifetime: 1.6 to 1.8 times the lower
//! bound on the generated training steps. An allocator that walks time
//! forward, as the program itself does, reuses the bytes a buffer frees
//! for the buffers allocated after it, at a cost per buffer of a few
//! steps in an ordered map of the buffers live at that instant.
//!
//! # How
//! The long buffers that nest (a training step's weights, moments and
//! saved activations) are stacked first, each on the one it nests in
//! ([`nested_family`]): they take `[0, top)` at each instant. The other
//! long buffers are swept next, among themselves ([`place_long`]). The
//! rest go in order of start (the larger first on a tie), each at the
//! lowest offset, aligned, that is at or above the family's highest top
//! over its lifetime and free of the buffers live at its start (the long
//! ones among them) and of the long ones that start during its lifetime;
//! buffers are released as time passes their ends. The bytes taken are
//! kept as merged runs in blocks that know their widest gap ([`Runs`]),
//! so a query skips the gaps too narrow for it.
//!
//! # Guarantees
//! Two buffers whose lifetimes overlap are apart: the later one to start
//! met the earlier among the live ones (or, for a member of the family,
//! the family is a chain stacked from 0 and every other buffer starts
//! above its top over its lifetime; for a long buffer and a short one,
//! the short one met the long one either among the live ones or among
//! those starting during its lifetime). Plain problems only: no pins,
//! reserved ranges or pairs ([`sweep`] says `None` otherwise).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::geom::align_up;
use super::occupancy::{family_floor, nested_family, STACK_SPAN};
use crate::problem::Problem;

/// Buffers of the sweep between two readings of the clock.
const CHECK_EVERY: usize = 4096;

/// The sweep placement of `problem` (see the module doc); `None` when the
/// problem has pins, reserved ranges or pairs, or instants too sparse for
/// a table per instant (more than four per buffer).
///
/// `time_is_up` is read before every [`CHECK_EVERY`]th buffer; once it
/// answers true the buffers left are stacked, in the sweep's order, above
/// every byte placed so far (valid: each lies above every buffer placed
/// before it), so a limit the sweep does not fit in is overrun by
/// linear work only: on a machine whose cores are busy the sweep of a
/// million buffers took 1 to 1.2 s of wall time for 0.2 to 0.3 s of CPU.
pub(crate) fn sweep(problem: &Problem, time_is_up: &dyn Fn() -> bool) -> Option<Vec<u64>> {
    sweep_with(problem, time_is_up, true)
}

/// [`sweep`] with the long buffers outside the family placed by start
/// with the rest, not apart: beside a first-fit pass that finished, the
/// first placement stays what it was before the long buffers were swept
/// apart (the lower of the pass and this), and with it the start of the
/// repair of traces of 10,000 buffers. In one run at 2 s (load 8 to 9)
/// with the sweep apart there, `trace-501`, `-504` and `-513` ended
/// 0.018 to 0.046 % above the bound instead of at it; at that load the
/// repair's results vary from run to run by as much.
pub(crate) fn sweep_together(problem: &Problem, time_is_up: &dyn Fn() -> bool) -> Option<Vec<u64>> {
    sweep_with(problem, time_is_up, false)
}

/// [`sweep`], with the long buffers outside the family `apart` or not.
fn sweep_with(problem: &Problem, time_is_up: &dyn Fn() -> bool, apart: bool) -> Option<Vec<u64>> {
    if !problem.conflicts.is_empty()
        || !problem.compatible.is_empty()
        || !problem.reserved.is_empty()
    {
        return None;
    }
    let b = &problem.buffers;
    let live = |i: usize| b[i].size > 0 && b[i].lower < b[i].upper;
    let (mut t0, mut t1, mut count) = (u64::MAX, 0u64, 0u64);
    for x in b {
        if x.fixed_offset.is_some() {
            return None;
        }
        if x.size > 0 && x.lower < x.upper {
            t0 = t0.min(x.lower);
            t1 = t1.max(x.upper);
            count += 1;
        }
    }
    let mut offsets = vec![0u64; b.len()];
    if count == 0 {
        return Some(offsets);
    }
    let span = t1 - t0;
    if span > 4 * count + 64 {
        return None;
    }
    let span = span as usize;
    let (a_of, z_of) = (
        |i: usize| (b[i].lower - t0) as usize,
        |i: usize| (b[i].upper - t0) as usize,
    );
    // The nested family, stacked.
    let long = (span / STACK_SPAN).max(2);
    let family: Vec<(usize, Reverse<usize>, u32, u64, u64)> = (0..b.len())
        .filter(|&i| live(i) && z_of(i) - a_of(i) >= long)
        .map(|i| (a_of(i), Reverse(z_of(i)), i as u32, b[i].size, b[i].align))
        .collect();
    let mut member = vec![false; b.len()];
    let leaves = span.next_power_of_two();
    let mut floor = Vec::new();
    if let Some((out, kept)) = nested_family(family) {
        for (id, o) in out {
            member[id as usize] = true;
            offsets[id as usize] = o;
        }
        floor = family_floor(&kept, span, leaves);
    }
    // The highest top of the family over instants `[a, z)`.
    let floor_over = |a: usize, z: usize| -> u64 {
        if floor.is_empty() {
            return 0;
        }
        let (mut l, mut r, mut h) = (a + leaves, z + leaves, 0);
        while l < r {
            if l & 1 == 1 {
                h = h.max(floor[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                h = h.max(floor[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        h
    };
    // The top of every byte placed: where a buffer stacked after the
    // deadline goes.
    let mut top = floor.get(1).copied().unwrap_or(0);
    let mut stacking = false;
    // The long buffers outside the family, swept before the others (see
    // [`place_long`]), by start.
    let mut pre = vec![false; b.len()];
    let longs = if apart {
        place_long(
            problem,
            &member,
            long,
            t0,
            &floor_over,
            &mut offsets,
            &mut top,
            &mut stacking,
            time_is_up,
        )
    } else {
        Vec::new()
    };
    for &(_, j) in &longs {
        pre[j as usize] = true;
    }
    // The others by start, the larger first, then by id.
    let mut order: Vec<(u64, Reverse<u64>, u32)> = (0..b.len())
        .filter(|&i| live(i) && !member[i] && !pre[i])
        .map(|i| (b[i].lower, Reverse(b[i].size), i as u32))
        .collect();
    order.sort_unstable();
    let mut next_long = 0;
    // The bytes of the live buffers, as merged runs (start -> end: a
    // buffer placed against another joins its run, so a query steps over
    // a run of them at once), and the live buffers by end (end, offset).
    let mut taken = Runs::default();
    let mut ends: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
    for (k, &(lower, _, i)) in order.iter().enumerate() {
        let i = i as usize;
        let (size, align) = (b[i].size, b[i].align);
        if !stacking && k % CHECK_EVERY == CHECK_EVERY - 1 {
            stacking = time_is_up();
        }
        if stacking {
            offsets[i] = align_up(top, align);
            top = offsets[i] + size;
            continue;
        }
        while let Some(&Reverse((upper, o, size))) = ends.peek() {
            if upper > lower {
                break;
            }
            ends.pop();
            taken.release(o, o + size);
        }
        // The long buffers live at this start join the runs (one that
        // has ended already is skipped: its bytes may be taken again).
        while let Some(&(l, j)) = longs.get(next_long) {
            if l > lower {
                break;
            }
            next_long += 1;
            let j = j as usize;
            if b[j].upper > lower {
                taken.occupy(offsets[j], offsets[j] + b[j].size);
                ends.push(Reverse((b[j].upper, offsets[j], b[j].size)));
            }
        }
        let mut cand = taken.fit(floor_over(a_of(i), z_of(i)), size, align);
        // Those starting during this buffer's lifetime are not in the
        // runs yet: step above any of them the candidate meets, until
        // none does.
        let upcoming = || longs[next_long..].iter().take_while(|x| x.0 < b[i].upper);
        loop {
            let met = upcoming()
                .map(|&(_, j)| {
                    (
                        offsets[j as usize],
                        offsets[j as usize] + b[j as usize].size,
                    )
                })
                .find(|&(s, e)| s < cand.saturating_add(size) && cand < e);
            match met {
                Some((_, e)) => cand = taken.fit(e, size, align),
                None => break,
            }
        }
        offsets[i] = cand;
        top = top.max(cand + size);
        taken.occupy(cand, cand + size);
        ends.push(Reverse((b[i].upper, cand, size)));
    }
    Some(offsets)
}

/// Places the long buffers (`long` instants or more) outside the nested
/// family by a sweep of their own, above the family's tops over their
/// lifetimes (`floor_over`, in instants from `t0`): each, by start (the
/// larger first on a tie), at the lowest offset free of the long ones
/// live at its start. Returns them as `(start, id)` in order of start,
/// for the sweep of the others to place those around them.
///
/// # Why
/// The sweep placed these with the others at their start, at the lowest
/// offset free at that instant: a gradient or an activation kept past
/// the peak then sits on bytes that temporaries held a moment before,
/// and what is live at the peak goes above it. On generated
/// million-buffer training steps 870 of the 1,431 buffers above the
/// bound of `trace-609` (0.83 % above it) were such buffers (70,000 to
/// 80,000 of them, against 780,000 short ones living fewer than 250
/// instants). Swept among themselves they lie packed on the family, and
/// the short ones take the gaps above and between them.
///
/// Once `time_is_up` answers true the long buffers left are stacked
/// above everything placed (`top`), and `stacking` tells the sweep to do
/// the same with the others.
#[allow(clippy::too_many_arguments)]
fn place_long(
    problem: &Problem,
    member: &[bool],
    long: usize,
    t0: u64,
    floor_over: &dyn Fn(usize, usize) -> u64,
    offsets: &mut [u64],
    top: &mut u64,
    stacking: &mut bool,
    time_is_up: &dyn Fn() -> bool,
) -> Vec<(u64, u32)> {
    let b = &problem.buffers;
    let mut order: Vec<(u64, Reverse<u64>, u32)> = (0..b.len())
        .filter(|&i| {
            let x = &b[i];
            !member[i] && x.size > 0 && x.lower < x.upper && (x.upper - x.lower) as usize >= long
        })
        .map(|i| (b[i].lower, Reverse(b[i].size), i as u32))
        .collect();
    order.sort_unstable();
    let mut taken = Runs::default();
    let mut ends: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
    for (k, &(lower, _, i)) in order.iter().enumerate() {
        let x = &b[i as usize];
        if !*stacking && k % CHECK_EVERY == CHECK_EVERY - 1 {
            *stacking = time_is_up();
        }
        let o = if *stacking {
            align_up(*top, x.align)
        } else {
            while let Some(&Reverse((upper, o, size))) = ends.peek() {
                if upper > lower {
                    break;
                }
                ends.pop();
                taken.release(o, o + size);
            }
            let (a, z) = ((x.lower - t0) as usize, (x.upper - t0) as usize);
            let o = taken.fit(floor_over(a, z), x.size, x.align);
            taken.occupy(o, o + x.size);
            ends.push(Reverse((x.upper, o, x.size)));
            o
        };
        offsets[i as usize] = o;
        *top = (*top).max(o + x.size);
    }
    order.into_iter().map(|(l, _, i)| (l, i)).collect()
}

/// Runs of a block at most, before it is split in two halves.
const BLOCK: usize = 64;

/// The bytes taken by the live buffers of the sweep, as merged runs
/// (disjoint, sorted, touching runs joined), kept in blocks of at most
/// [`BLOCK`] runs with the widest gap after a run of each block beside.
///
/// # Why
/// The sweep's first-fit used to step over the runs above its floor one
/// by one until a gap held the buffer: at the peak of a million-buffer
/// training step, where tens of thousands of gaps too narrow for a large
/// activation lie below the first one that holds it, half of a whole
/// `solve`'s CPU time went there (1.4 to 2.0 s of a sweep, load 5, so a
/// 5 s limit cut the sweep itself and stacked the rest: 147 % above the
/// bound). A query now reads the widest gap of each block and steps
/// into a block only where a gap may hold the buffer; the offsets are
/// the same.
#[derive(Default)]
struct Runs {
    blocks: Vec<Vec<(u64, u64)>>,
    /// Start of the first run of each block.
    firsts: Vec<u64>,
    /// Widest gap after a run of each block (to the next run, in this
    /// block or the next; `u64::MAX` after the last run of all).
    widest: Vec<u64>,
}

impl Runs {
    /// The run `(block, index)` after `(k, i)`, if any.
    fn next(&self, k: usize, i: usize) -> Option<(usize, usize)> {
        if i + 1 < self.blocks[k].len() {
            Some((k, i + 1))
        } else {
            (k + 1 < self.blocks.len()).then_some((k + 1, 0))
        }
    }

    /// The last run starting at or before `x`.
    fn at_or_before(&self, x: u64) -> Option<(usize, usize)> {
        let k = self.firsts.partition_point(|&f| f <= x).checked_sub(1)?;
        let i = self.blocks[k].partition_point(|r| r.0 <= x) - 1;
        Some((k, i))
    }

    /// The gap after run `(k, i)`.
    fn gap_after(&self, k: usize, i: usize) -> u64 {
        let end = self.blocks[k][i].1;
        match self.next(k, i) {
            Some((k2, i2)) => self.blocks[k2][i2].0 - end,
            None => u64::MAX,
        }
    }

    /// Recomputes `firsts` and `widest` of blocks `lo..=hi` (clipped to
    /// the blocks there are); `firsts` first, since the last gap of a
    /// block ends at the next block's first run.
    fn refresh(&mut self, lo: usize, hi: usize) {
        let hi = hi.min(self.blocks.len().saturating_sub(1));
        if self.blocks.is_empty() || lo > hi {
            return;
        }
        for k in lo..=hi {
            self.firsts[k] = self.blocks[k][0].0;
        }
        for k in lo..=hi {
            let runs = &self.blocks[k];
            let inner = runs.windows(2).map(|w| w[1].0 - w[0].1).max().unwrap_or(0);
            let last = match self.firsts.get(k + 1) {
                Some(&f) => f - runs[runs.len() - 1].1,
                None => u64::MAX,
            };
            self.widest[k] = inner.max(last);
        }
    }

    /// After runs of block `k` changed: drops it when empty, splits it
    /// when full, and refreshes it and its neighbours.
    fn settle(&mut self, k: usize) {
        if self.blocks[k].is_empty() {
            self.blocks.remove(k);
            self.firsts.remove(k);
            self.widest.remove(k);
            self.refresh(k.saturating_sub(1), k);
            return;
        }
        if self.blocks[k].len() > BLOCK {
            let upper = self.blocks[k].split_off(BLOCK / 2);
            self.blocks.insert(k + 1, upper);
            self.firsts.insert(k + 1, 0);
            self.widest.insert(k + 1, 0);
            self.refresh(k.saturating_sub(1), k + 1);
            return;
        }
        // The block before needs a refresh only when this block's first
        // run moved (its last gap ends there).
        let first = self.firsts[k];
        self.refresh(k, k);
        if k > 0 && self.firsts[k] != first {
            self.refresh(k - 1, k - 1);
        }
    }

    /// Inserts run `r` before position `(k, i)` (`i` may be the block's
    /// length).
    fn insert_at(&mut self, k: usize, i: usize, r: (u64, u64)) {
        self.blocks[k].insert(i, r);
        self.settle(k);
    }

    /// The lowest offset at or above `from`, aligned to `align`, where
    /// `size` bytes are free: first-fit over the runs.
    fn fit(&self, from: u64, size: u64, align: u64) -> u64 {
        let mut cand = align_up(from, align);
        // The first run ending after the candidate: the runs before it
        // lie below.
        let mut at = match self.at_or_before(cand) {
            Some((k, i)) if self.blocks[k][i].1 > cand => Some((k, i)),
            Some((k, i)) => self.next(k, i),
            None => (!self.blocks.is_empty()).then_some((0, 0)),
        };
        while let Some((k, i)) = at {
            let (s, e) = self.blocks[k][i];
            if s >= cand.saturating_add(size) {
                return cand;
            }
            cand = cand.max(align_up(e, align));
            // The candidate now lies at or above this run's end: it fits
            // before the next run only if the gap after a run is at least
            // `size`. Runs whose gaps are narrower only raise it to their
            // ends, so go to the first run with a gap that wide (in this
            // block, else in the first block whose widest gap is).
            let mut found = (i..self.blocks[k].len()).find(|&j| self.gap_after(k, j) >= size);
            let mut kk = k;
            if found.is_none() {
                kk = match (k + 1..self.blocks.len()).find(|&b| self.widest[b] >= size) {
                    Some(b) => b,
                    None => return cand,
                };
                found = (0..self.blocks[kk].len()).find(|&j| self.gap_after(kk, j) >= size);
            }
            let Some(j) = found else {
                debug_assert!(false, "a block's widest gap is one of its gaps");
                return cand;
            };
            cand = cand.max(align_up(self.blocks[kk][j].1, align));
            at = self.next(kk, j);
        }
        cand
    }

    /// Adds the free bytes `[s, e)`, joining the runs it touches.
    fn occupy(&mut self, s: u64, e: u64) {
        if self.blocks.is_empty() {
            self.blocks.push(vec![(s, e)]);
            self.firsts.push(s);
            self.widest.push(u64::MAX);
            return;
        }
        let before = self.at_or_before(s);
        // The run starting where the new one ends joins it.
        let after = match before {
            Some((k, i)) => self.next(k, i),
            None => Some((0, 0)),
        }
        .filter(|&(k, i)| self.blocks[k][i].0 == e);
        let mut end = e;
        if let Some((k, i)) = after {
            end = self.blocks[k][i].1;
        }
        match before {
            Some((k, i)) if self.blocks[k][i].1 == s => {
                // Extend the run ending where the new one starts.
                self.blocks[k][i].1 = end;
                if let Some((k2, i2)) = after {
                    self.blocks[k2].remove(i2);
                    if k2 != k {
                        self.settle(k2);
                    }
                }
                self.settle(k);
            }
            _ => {
                if let Some((k2, i2)) = after {
                    // Lower the start of the run the new one touches.
                    self.blocks[k2][i2] = (s, end);
                    self.settle(k2);
                } else {
                    match before {
                        Some((k, i)) => self.insert_at(k, i + 1, (s, e)),
                        None => self.insert_at(0, 0, (s, e)),
                    }
                }
            }
        }
    }

    /// Frees the bytes `[s, e)` of a live buffer: the run holding them
    /// keeps what lies on either side.
    fn release(&mut self, s: u64, e: u64) {
        let Some((k, i)) = self.at_or_before(s) else {
            debug_assert!(false, "a live buffer's bytes are in a run");
            return;
        };
        let (rs, re) = self.blocks[k][i];
        debug_assert!(rs <= s && e <= re, "a live buffer's bytes are in a run");
        match (rs < s, e < re) {
            (true, true) => {
                self.blocks[k][i] = (rs, s);
                self.insert_at(k, i + 1, (e, re));
            }
            (true, false) => {
                self.blocks[k][i] = (rs, s);
                self.settle(k);
            }
            (false, true) => {
                self.blocks[k][i] = (e, re);
                self.settle(k);
            }
            (false, false) => {
                self.blocks[k].remove(i);
                self.settle(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, Solution};

    fn never() -> bool {
        false
    }

    fn problem(bufs: &[(u64, u64, u64)]) -> Problem {
        let mut p = Problem::new();
        for &(size, lower, upper) in bufs {
            p.push(Buffer::new(size, lower, upper));
        }
        p
    }

    /// Two weights over the whole of 64 instants and an activation nested
    /// in them (the long buffers) are stacked from 0; the short ones go by
    /// start, the larger first: 3 on the weights, 4 beside it, 5 into the
    /// bytes they freed, 6 there too (it ends as the activation starts),
    /// 7 above the activation, live with it, and 8 on the weights again
    /// once the activation has ended.
    #[test]
    fn the_sweep_stacks_the_family_and_reuses_freed_bytes() {
        let p = problem(&[
            (10, 0, 64), // 0: weight
            (6, 0, 64),  // 1: weight
            (5, 20, 50), // 2: activation
            (4, 1, 2),   // 3
            (3, 1, 2),   // 4
            (2, 2, 3),   // 5
            (7, 19, 20), // 6
            (7, 20, 21), // 7
            (9, 50, 51), // 8
        ]);
        let offsets = sweep(&p, &never).expect("plain, dense");
        assert_eq!(offsets, [0, 10, 16, 16, 20, 16, 16, 21, 16]);
        crate::validate::validate(&p, &Solution { offsets }).expect("valid");
        // Without a family (the long buffers cross: one of three would
        // join) the long buffers go first, swept among themselves: 0 at
        // 0, 2 on it, 1 on 2 (live with both); then the others by start
        // around them: 7 starts with 2 and goes above it, 8 under 1 once
        // 0 and 2 have ended.
        let mut q = p.clone();
        q.buffers[0].upper = 40;
        q.buffers[1].lower = 30;
        let offsets = sweep(&q, &never).expect("plain, dense");
        assert_eq!(offsets, [0, 15, 10, 10, 14, 10, 10, 15, 0]);
        crate::validate::validate(&q, &Solution { offsets }).expect("valid");
    }

    /// Once the clock says the time is up, the buffers left are stacked
    /// above everything placed, in the sweep's order: with 5,000 one-byte
    /// buffers of two instants each (no family), the first 4,095 reuse
    /// two bytes in turn, the rest stack from 2.
    #[test]
    fn the_sweep_stacks_the_rest_once_the_time_is_up() {
        let bufs: Vec<(u64, u64, u64)> = (0..5_000).map(|k| (1, k, k + 2)).collect();
        let p = problem(&bufs);
        let offsets = sweep(&p, &|| true).expect("plain, dense");
        for (k, &o) in offsets.iter().enumerate() {
            let want = if k < CHECK_EVERY - 1 {
                k as u64 % 2
            } else {
                2 + (k - (CHECK_EVERY - 1)) as u64
            };
            assert_eq!(o, want, "buffer {k}");
        }
        crate::validate::validate(&p, &Solution { offsets }).expect("valid");
        let unlimited = sweep(&p, &never).expect("plain, dense");
        assert!(unlimited.iter().all(|&o| o < 2));
    }

    /// Random problems, with alignments, with and without a nested
    /// family (generated training steps): every placement is valid.
    #[test]
    fn sweep_placements_are_valid() {
        let mut rng = crate::gen::Rng(17);
        for round in 0..40 {
            let mut p = Problem::new();
            let n = 150 + rng.below(300);
            for _ in 0..n {
                let l = rng.below(300);
                let u = l + 1 + rng.below(if round % 2 == 0 { 20 } else { 250 });
                let align = [1, 1, 8, 64][rng.below(4) as usize];
                p.push(Buffer::new(rng.below(100), l, u).with_align(align));
            }
            let offsets = sweep(&p, &never).expect("plain, dense");
            crate::validate::validate(&p, &Solution { offsets }).expect("valid");
        }
        for seed in 0..4 {
            let p = crate::gen::training_step(seed, 3_000);
            let offsets = sweep(&p, &never).expect("plain, dense");
            crate::validate::validate(&p, &Solution { offsets }).expect("valid");
        }
    }

    /// Pins, pairs, reserved ranges and sparse instants are not the
    /// sweep's: it answers `None`.
    #[test]
    fn the_sweep_declines_what_it_cannot_place() {
        let plain = problem(&[(4, 0, 3), (4, 1, 4)]);
        assert!(sweep(&plain, &never).is_some());
        let mut pinned = plain.clone();
        pinned.buffers[0].fixed_offset = Some(0);
        assert!(sweep(&pinned, &never).is_none());
        let mut reserved = plain.clone();
        reserved.reserved.push((0, 4));
        assert!(sweep(&reserved, &never).is_none());
        let sparse = problem(&[(4, 0, 3_000), (4, 1_000, 4_000)]);
        assert!(sweep(&sparse, &never).is_none());
    }

    /// A long buffer outside the family that starts during a short
    /// buffer's lifetime is not in the runs when the short one is placed:
    /// the short one steps above it. Buffers 0 (instants 0 to 3,200) and
    /// 1 (3,000 to 6,400) are long and cross: 0 is the family, at 0, and
    /// 1 goes on it, at 8. Buffer 2 (2,990 to 3,010, short) starts before
    /// 1: the lowest free bytes at its start are at 8, which 1 takes from
    /// 3,000, so it goes at 12.
    #[test]
    fn a_short_buffer_steps_above_a_long_one_starting_during_its_lifetime() {
        let mut bufs = vec![(8, 0, 3_200), (4, 3_000, 6_400), (3, 2_990, 3_010)];
        // One-byte fillers: dense enough instants for the sweep, and a
        // span that makes 0 and 1 long (a 64th of it: 100 instants) and
        // 2 short.
        bufs.extend((0..1_600).map(|t| (1, 4 * t, 4 * t + 1)));
        let p = problem(&bufs);
        let offsets = sweep(&p, &never).expect("plain, dense");
        assert_eq!(&offsets[..3], &[0, 8, 12]);
        crate::validate::validate(&p, &Solution { offsets }).expect("valid");
    }

    /// First-fit over a plain list of merged runs, stepping over every
    /// run: what [`Runs::fit`] must answer.
    fn fit_by_scan(
        runs: &std::collections::BTreeMap<u64, u64>,
        from: u64,
        size: u64,
        align: u64,
    ) -> u64 {
        let mut cand = align_up(from, align);
        for (&s, &e) in runs.iter() {
            if e <= cand {
                continue;
            }
            if s >= cand + size {
                break;
            }
            cand = cand.max(align_up(e, align));
        }
        cand
    }

    /// The blocks of [`Runs`] answer as a scan over every run does, and
    /// hold the same runs, through thousands of random placements and
    /// releases (enough runs to split and drop blocks), with alignments.
    #[test]
    fn runs_fit_as_a_scan_over_every_run() {
        let mut rng = crate::gen::Rng(5);
        let mut runs = Runs::default();
        let mut model: std::collections::BTreeMap<u64, u64> = Default::default();
        let mut live: Vec<(u64, u64)> = Vec::new();
        for step in 0..20_000 {
            let grow = step % 5000 < 3000;
            if live.is_empty() || (grow && rng.below(3) > 0) || rng.below(2) == 0 {
                let wide = rng.below(8) == 0;
                let size = 1 + rng.below(if wide { 400 } else { 20 });
                let align = [1, 1, 4, 16][rng.below(4) as usize];
                let from = rng.below(3000);
                let o = runs.fit(from, size, align);
                assert_eq!(o, fit_by_scan(&model, from, size, align), "step {step}");
                runs.occupy(o, o + size);
                // The model: merged runs, as the sweep kept them.
                let (mut s, mut e) = (o, o + size);
                if let Some((&ps, &pe)) = model.range(..s).next_back() {
                    if pe == s {
                        s = ps;
                    }
                }
                if let Some(ne) = model.remove(&e) {
                    e = ne;
                }
                model.insert(s, e);
                live.push((o, o + size));
            } else {
                let (s, e) = live.swap_remove(rng.below(live.len() as u64) as usize);
                runs.release(s, e);
                let (&rs, &re) = model.range(..=s).next_back().expect("held");
                if rs < s {
                    model.insert(rs, s);
                } else {
                    model.remove(&rs);
                }
                if e < re {
                    model.insert(e, re);
                }
            }
            let flat: Vec<(u64, u64)> = runs.blocks.iter().flatten().copied().collect();
            let want: Vec<(u64, u64)> = model.iter().map(|(&s, &e)| (s, e)).collect();
            assert_eq!(flat, want, "step {step}");
        }
        assert!(runs.blocks.len() > 1, "the runs filled several blocks");
    }
}
