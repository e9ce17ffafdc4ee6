//! The height grain: a step every optimal height is a multiple of.
//!
//! # Why heights come in steps
//! Take any placement and push buffers down, lowest offset first, one
//! alignment step at a time while the placement stays valid. Pushing never
//! raises the height, and a buffer stops at `0`, or at `align_up(t, a)`
//! where `t` is the top of what blocks it: an interfering buffer (its
//! offset plus its size) or the end of a reserved range. Pinned buffers do
//! not move. Let `G` divide every size, every pinned offset and every
//! reserved range end, and let every alignment `a` divide `G` or be a
//! multiple of it. Then, by induction over the pushed buffers in offset
//! order, every offset is a multiple of `G`: `align_up(t, a)` of a multiple
//! `t` of `G` is `t` itself when `a` divides `G`, and a multiple of `a`
//! (so of `G`) when `G` divides `a`. Every top is then a multiple of `G`,
//! and so is the pushed height. Hence every placement has a height at
//! least the smallest multiple of `G` at or above any valid lower bound.

use crate::problem::Problem;

/// The largest `G` (see the module doc) for `problem`; 1 when nothing
/// larger holds, and 1 for a problem without bytes.
pub fn grain(problem: &Problem) -> u64 {
    let mut g = 0u64;
    for b in &problem.buffers {
        g = gcd(g, b.size);
        if let Some(o) = b.fixed_offset {
            g = gcd(g, o);
        }
    }
    for &(s, e) in &problem.reserved {
        if s < e {
            g = gcd(g, e);
        }
    }
    if g == 0 {
        return 1;
    }
    // Shrink until every alignment divides `g` or is a multiple of it;
    // `gcd(g, a)` divides `a`, and `g` only decreases, so this ends.
    loop {
        let before = g;
        for b in &problem.buffers {
            let a = b.align.max(1);
            if !g.is_multiple_of(a) && !a.is_multiple_of(g) {
                g = gcd(g, a);
            }
        }
        if g == before {
            return g;
        }
    }
}

/// `x` rounded up to a multiple of the [`grain`] `g`.
pub fn round_to_grain(x: u64, g: u64) -> u64 {
    if g <= 1 {
        x
    } else {
        x.div_ceil(g).saturating_mul(g)
    }
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
    fn grain_of_sizes_and_alignments() {
        let mut p = Problem::new();
        p.push(Buffer::new(3072, 0, 2));
        p.push(Buffer::new(2048, 1, 3));
        assert_eq!(grain(&p), 1024);
        // An alignment that is a multiple of the grain keeps it.
        p.push(Buffer::new(1024, 0, 1).with_align(4096));
        assert_eq!(grain(&p), 1024);
        // One that is neither a divisor nor a multiple shrinks it.
        p.push(Buffer::new(1024, 0, 1).with_align(768));
        assert_eq!(grain(&p), 256);
        // A reserved end off the grid shrinks it too.
        p.reserved.push((0, 100));
        assert_eq!(grain(&p), 4);
        assert_eq!(grain(&Problem::new()), 1);
    }

    #[test]
    fn rounding() {
        assert_eq!(round_to_grain(0, 8), 0);
        assert_eq!(round_to_grain(9, 8), 16);
        assert_eq!(round_to_grain(16, 8), 16);
        assert_eq!(round_to_grain(9, 1), 9);
    }
}
