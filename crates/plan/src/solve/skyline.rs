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
//! Time is cut at every lifetime end; a segment tree over the sections
//! holds the highest end in use per section (range "raise to at least"
//! updates, range maximum queries: `O(log T)` each). Each remaining buffer,
//! in the pass's order, goes at the lowest offset at or above the skyline
//! of its lifetime that avoids the global obstacles (reserved ranges,
//! pinned buffers not yet placed) and the byte ranges of its placed
//! partners (conflict pairs, and for the handoff greedy its penalty
//! partners); then the skyline of its lifetime rises to its end.
//!
//! # Guarantees
//! Every completed buffer lies above every buffer live with it (placed or
//! completed earlier), apart from the given partners and obstacles: the
//! placement stays valid (capacity aside). Work is `O((n + pairs) log n)`
//! and not charged to the spent meter: it is a bounded epilogue, a few
//! milliseconds per hundred thousand buffers.

use crate::problem::Problem;

/// Highest end in use per time section, with range updates and queries.
struct Skyline {
    times: Vec<u64>,
    /// `top[v]`: the maximum over node `v`'s sections, its own raises
    /// included.
    top: Vec<u64>,
    /// `raise[v]`: a raise applied to all of node `v`'s sections.
    raise: Vec<u64>,
}

impl Skyline {
    fn new(problem: &Problem) -> Skyline {
        let mut times: Vec<u64> = problem
            .buffers
            .iter()
            .filter(|b| b.lower < b.upper)
            .flat_map(|b| [b.lower, b.upper])
            .collect();
        times.sort_unstable();
        times.dedup();
        let n = times.len().saturating_sub(1).max(1);
        Skyline {
            times,
            top: vec![0; 4 * n],
            raise: vec![0; 4 * n],
        }
    }

    fn sections(&self) -> usize {
        self.times.len().saturating_sub(1).max(1)
    }

    /// Sections `[a, z)` covering the lifetime `[lower, upper)`.
    fn span(&self, lower: u64, upper: u64) -> (usize, usize) {
        let a = self.times.partition_point(|&t| t < lower);
        let z = self.times.partition_point(|&t| t < upper);
        (a, z)
    }

    /// Highest end in use at some instant of `[lower, upper)`.
    fn height(&self, lower: u64, upper: u64) -> u64 {
        let (a, z) = self.span(lower, upper);
        if a >= z {
            return 0;
        }
        self.query(1, 0, self.sections(), a, z)
    }

    /// Raises the skyline of `[lower, upper)` to at least `to`.
    fn raise(&mut self, lower: u64, upper: u64, to: u64) {
        let (a, z) = self.span(lower, upper);
        if a < z {
            self.update(1, 0, self.sections(), a, z, to);
        }
    }

    fn query(&self, v: usize, l: usize, r: usize, a: usize, z: usize) -> u64 {
        if a <= l && r <= z {
            return self.top[v];
        }
        let m = (l + r) / 2;
        let mut h = self.raise[v];
        if a < m {
            h = h.max(self.query(2 * v, l, m, a, z));
        }
        if m < z {
            h = h.max(self.query(2 * v + 1, m, r, a, z));
        }
        h
    }

    fn update(&mut self, v: usize, l: usize, r: usize, a: usize, z: usize, to: u64) {
        self.top[v] = self.top[v].max(to);
        if a <= l && r <= z {
            self.raise[v] = self.raise[v].max(to);
            return;
        }
        let m = (l + r) / 2;
        if a < m {
            self.update(2 * v, l, m, a, z, to);
        }
        if m < z {
            self.update(2 * v + 1, m, r, a, z, to);
        }
    }
}

/// Completes a cut pass on the skyline (see the module doc).
///
/// `offsets[i]` is final where `done[i]`; the buffers of `rest` (none of
/// them done) are placed in that order. `taken` are byte ranges no
/// completed buffer may use at any instant, sorted by start; `apart[i]`
/// lists the buffers whose bytes `i` must avoid whatever their lifetimes;
/// `up(x, i)` rounds `x` up to an offset buffer `i` may take. Buffers
/// without bytes go at offset 0; pinned buffers keep their offset (the
/// caller checks them against each other).
pub(crate) fn complete(
    problem: &Problem,
    offsets: &mut [u64],
    done: &mut [bool],
    rest: impl IntoIterator<Item = usize>,
    taken: &[(u64, u64)],
    apart: &dyn Fn(usize) -> Vec<usize>,
    up: &dyn Fn(u64, usize) -> u64,
) {
    let b = &problem.buffers;
    let mut sky = Skyline::new(problem);
    for (i, x) in b.iter().enumerate() {
        if done[i] && x.size > 0 {
            sky.raise(x.lower, x.upper, offsets[i] + x.size);
        }
    }
    let mut obstacles: Vec<(u64, u64)> = Vec::new();
    for i in rest {
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
                let mut o = up(sky.height(x.lower, x.upper), i);
                for &(s, e) in &obstacles {
                    if s >= o + x.size {
                        break;
                    }
                    if e > o {
                        o = up(e, i);
                    }
                }
                sky.raise(x.lower, x.upper, o + x.size);
                o
            }
        };
        done[i] = true;
    }
}

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
        let mut s = Skyline::new(&p);
        s.raise(2, 4, 5);
        s.raise(6, 8, 3);
        assert_eq!(s.height(0, 2), 0);
        assert_eq!(s.height(0, 3), 5);
        assert_eq!(s.height(4, 6), 0);
        assert_eq!(s.height(4, 7), 3);
        assert_eq!(s.height(0, 10), 5);
        s.raise(0, 10, 4);
        assert_eq!(s.height(4, 6), 4);
        assert_eq!(s.height(2, 3), 5);
        assert_eq!(s.height(8, 10), 4);
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
        );
        assert_eq!(offsets, [0, 16]);
    }
}
