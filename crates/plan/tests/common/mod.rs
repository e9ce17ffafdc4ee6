//! A brute-force optimum for the property tests of bounds and minimum
//! heights (small problems only: every buffer order is tried).

use proptest::prelude::*;
use tilemem_plan::{Buffer, Problem};

/// Lowest aligned offset where `b` clashes with no placed buffer it must
/// stay apart from (co-live or in a hard conflict).
fn lowest_fit(p: &Problem, placed: &[(usize, u64)], i: usize) -> u64 {
    let b = &p.buffers[i];
    let a = b.align.max(1);
    let mut o = 0u64;
    loop {
        let clash = placed.iter().find(|&&(j, oj)| {
            let c = &p.buffers[j];
            let conflict = p.conflicts.iter().any(|&(x, y)| {
                (x.index(), y.index()) == (i, j) || (x.index(), y.index()) == (j, i)
            });
            b.size > 0
                && c.size > 0
                && (b.lifetime_overlaps(c) || conflict)
                && o < oj + c.size
                && oj < o + b.size
        });
        match clash {
            Some(&(j, oj)) => o = (oj + p.buffers[j].size).div_ceil(a) * a,
            None => return o,
        }
    }
}

/// The optimum: the lowest first-fit height over every buffer order.
/// Complete because first-fit in the offset order of an optimal placement
/// puts every buffer at or below its optimal offset (everything placed
/// before it and co-live with it lies below its optimal offset there).
pub fn brute_force(p: &Problem) -> u64 {
    fn go(p: &Problem, used: &mut Vec<bool>, placed: &mut Vec<(usize, u64)>, best: &mut u64) {
        let h = placed
            .iter()
            .map(|&(j, o)| o + p.buffers[j].size)
            .max()
            .unwrap_or(0);
        if h >= *best {
            return;
        }
        if placed.len() == p.buffers.len() {
            *best = h;
            return;
        }
        for i in 0..p.buffers.len() {
            if !used[i] {
                used[i] = true;
                let o = lowest_fit(p, placed, i);
                placed.push((i, o));
                go(p, used, placed, best);
                placed.pop();
                used[i] = false;
            }
        }
    }
    let mut best = u64::MAX;
    go(p, &mut vec![false; p.len()], &mut Vec::new(), &mut best);
    best
}

/// Small problems: up to 6 buffers over 6 instants, sizes a multiple of a
/// common step, alignments 1, 2 or 4.
pub fn problems() -> impl Strategy<Value = Problem> {
    let buffer = (1u64..=6, 0u64..6, 1u64..=6, 0usize..3);
    (1u64..=3, prop::collection::vec(buffer, 1..=6)).prop_map(|(step, bs)| {
        let mut p = Problem::new();
        for (s, l, len, a) in bs {
            p.push(Buffer::new(s * step, l, l + len).with_align([1, 2, 4][a]));
        }
        p
    })
}
