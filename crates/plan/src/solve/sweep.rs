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
//! ([`nested_family`]): they take `[0, top)` at each instant. The others
//! go in order of start (the larger first on a tie), each at the lowest
//! offset, aligned, that is at or above the family's highest top over its
//! lifetime and free of the buffers live at its start, which are released
//! as time passes their ends.
//!
//! # Guarantees
//! Two buffers whose lifetimes overlap are apart: the later one to start
//! met the earlier among the live ones (or, for a member of the family,
//! the family is a chain stacked from 0 and every other buffer starts
//! above its top over its lifetime). Plain problems only: no pins,
//! reserved ranges or pairs ([`sweep`] says `None` otherwise).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

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
    // The others by start, the larger first, then by id.
    let mut order: Vec<(u64, Reverse<u64>, u32)> = (0..b.len())
        .filter(|&i| live(i) && !member[i])
        .map(|i| (b[i].lower, Reverse(b[i].size), i as u32))
        .collect();
    order.sort_unstable();
    // The bytes of the live buffers, as merged runs (start -> end: a
    // buffer placed against another joins its run, so a query steps over
    // a run of them at once), and the live buffers by end (end, offset).
    let mut taken: BTreeMap<u64, u64> = BTreeMap::new();
    let mut ends: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
    // The top of every byte placed: where a buffer stacked after the
    // deadline goes.
    let mut top = floor.get(1).copied().unwrap_or(0);
    let mut stacking = false;
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
            release(&mut taken, o, o + size);
        }
        let mut cand = align_up(floor_over(a_of(i), z_of(i)), align);
        if let Some((_, &e)) = taken.range(..cand).next_back() {
            if e > cand {
                cand = align_up(e, align);
            }
        }
        for (&s, &e) in taken.range(cand..) {
            if s >= cand.saturating_add(size) {
                break;
            }
            cand = cand.max(align_up(e, align));
        }
        offsets[i] = cand;
        top = top.max(cand + size);
        occupy(&mut taken, cand, cand + size);
        ends.push(Reverse((b[i].upper, cand, size)));
    }
    Some(offsets)
}

/// Adds the free bytes `[s, e)` to the merged runs `taken`, joining the
/// runs it touches.
fn occupy(taken: &mut BTreeMap<u64, u64>, s: u64, e: u64) {
    let (mut ns, mut ne) = (s, e);
    if let Some((&ps, &pe)) = taken.range(..s).next_back() {
        if pe == s {
            ns = ps;
        }
    }
    if let Some(next) = taken.remove(&e) {
        ne = next;
    }
    taken.insert(ns, ne);
}

/// Frees the bytes `[s, e)` of a live buffer: the merged run holding them
/// (the union of touching live buffers) keeps what lies on either side.
fn release(taken: &mut BTreeMap<u64, u64>, s: u64, e: u64) {
    let Some((&rs, &re)) = taken.range(..=s).next_back() else {
        debug_assert!(false, "a live buffer's bytes are in a run");
        return;
    };
    debug_assert!(rs <= s && e <= re, "a live buffer's bytes are in a run");
    if rs < s {
        taken.insert(rs, s);
    } else {
        taken.remove(&rs);
    }
    if e < re {
        taken.insert(e, re);
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
        // join) every buffer goes by start: 1 into the bytes 7 freed, 8
        // under 1.
        let mut q = p.clone();
        q.buffers[0].upper = 40;
        q.buffers[1].lower = 30;
        let offsets = sweep(&q, &never).expect("plain, dense");
        assert_eq!(offsets, [0, 10, 17, 10, 14, 10, 10, 10, 0]);
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
}
