//! Exact search for problems the skyline search does not model: hard
//! conflict pairs, soft penalty pairs, pinned buffers, reserved ranges
//! anywhere. Lexicographic objective from the [`Budget`]: `(height,
//! penalty)` or `(penalty, height)`.
//!
//! # Why it is complete
//! Take any placement and lower each buffer until it touches 0, a reserved
//! end, or the top of a buffer it must stay apart from or has a penalty with
//! (rounded up to its alignment). Lowering never adds an overlap: it stops
//! before entering a hard neighbour, and it meets a penalty partner only by
//! passing that partner's top, where it stops. So some optimal placement has
//! every free buffer resting on such a support. Listed by offset, each
//! buffer's support comes earlier (or is pinned). The search therefore
//! places free buffers in order of offset (ties by id), each at a support
//! offset of what is already placed, and bounds with the height and penalty
//! reached so far.
//!
//! # Scope
//! Exponential; meant for the small problems of one function's memory space
//! (up to 64 free buffers). Larger problems, or a search cut by the time
//! limit, return the penalty-aware canonical greedy's placement (or a better
//! one found), reported as not proven.

use std::time::Instant;

use super::canonical::canonical_best;
use super::geom::{align_up, height_of, penalty_of, sorted_reserved};
use super::{fallback, outcome_from, Budget, Meter, Objective, Outcome};
use crate::bound::lower_bound;
use crate::problem::Problem;

/// Largest number of free (unpinned) buffers searched exactly.
const MAX_FREE: usize = 64;

pub(crate) fn solve_pairs(
    problem: &Problem,
    budget: &Budget,
    start: Instant,
    name: &'static str,
    meter: &Meter,
) -> Outcome {
    let mut incumbent = canonical_best(problem, budget, meter);
    if incumbent.is_none() && meter.spent() {
        incumbent = fallback(problem);
        return outcome_from(problem, incumbent, name, start);
    }
    let free = problem
        .buffers
        .iter()
        .filter(|b| b.fixed_offset.is_none())
        .count();
    if free > MAX_FREE || !super::greedy::pinned_are_consistent(problem) {
        let mut out = outcome_from(problem, incumbent, name, start);
        if !super::greedy::pinned_are_consistent(problem) {
            out.proven_infeasible = true;
        }
        return out;
    }
    let mut s = Search::new(problem, budget, meter);
    if let Some(inc) = &incumbent {
        s.best_key = Some(s.key(inc));
        s.best = Some(inc.clone());
    }
    let complete = s.run();
    let best = s.best.take();
    let mut out = outcome_from(problem, best.clone(), name, start);
    if complete {
        if best.is_some() {
            out.proven_optimal = true;
        } else {
            out.proven_infeasible = true;
        }
    }
    out
}

struct Search<'a, 'm> {
    p: &'a Problem,
    objective: Objective,
    meter: &'m Meter<'m>,
    cap: u64,
    lb: u64,
    reserved: Vec<(u64, u64)>,
    /// Buffers that must not share a byte with each one.
    hard: Vec<Vec<u32>>,
    /// Penalty partners (summed weights).
    partners: Vec<Vec<(u32, u64)>>,
    offsets: Vec<u64>,
    placed: Vec<bool>,
    best: Option<Vec<u64>>,
    best_key: Option<(u64, u64)>,
    nodes: u64,
    cut_short: bool,
}

impl<'a, 'm> Search<'a, 'm> {
    fn new(p: &'a Problem, budget: &Budget, meter: &'m Meter<'m>) -> Search<'a, 'm> {
        let n = p.buffers.len();
        let compatible = p.compatible_lists();
        let mut hard: Vec<Vec<u32>> = p
            .buffers
            .iter()
            .enumerate()
            .map(|(x, bx)| {
                (0..n)
                    .filter(|&y| {
                        let by = &p.buffers[y];
                        x != y
                            && bx.size > 0
                            && by.size > 0
                            && bx.lifetime_overlaps(by)
                            && compatible[x].binary_search(&(y as u32)).is_err()
                    })
                    .map(|y| y as u32)
                    .collect()
            })
            .collect();
        for &(a, b) in &p.conflicts {
            if a != b {
                hard[a.index()].push(b.0);
                hard[b.index()].push(a.0);
            }
        }
        for l in &mut hard {
            l.sort_unstable();
            l.dedup();
        }
        let mut partners: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
        for &(a, b, w) in &p.penalties {
            if a != b {
                partners[a.index()].push((b.0, w));
                partners[b.index()].push((a.0, w));
            }
        }
        let placed: Vec<bool> = p.buffers.iter().map(|b| b.fixed_offset.is_some()).collect();
        let offsets: Vec<u64> = p
            .buffers
            .iter()
            .map(|b| b.fixed_offset.unwrap_or(0))
            .collect();
        Search {
            p,
            objective: budget.objective,
            meter,
            cap: p.capacity.unwrap_or(u64::MAX),
            lb: lower_bound(p),
            reserved: sorted_reserved(p),
            hard,
            partners,
            offsets,
            placed,
            best: None,
            best_key: None,
            nodes: 0,
            cut_short: false,
        }
    }

    fn key(&self, offs: &[u64]) -> (u64, u64) {
        let h = height_of(self.p, offs);
        let pen = penalty_of(self.p, offs);
        self.order(h, pen)
    }

    fn order(&self, height: u64, penalty: u64) -> (u64, u64) {
        match self.objective {
            Objective::PeakThenPenalty => (height, penalty),
            Objective::PenaltyThenPeak => (penalty, height),
        }
    }

    /// True when the search ran to completion.
    fn run(&mut self) -> bool {
        let placed_height = (0..self.p.buffers.len())
            .filter(|&i| self.placed[i])
            .map(|i| self.offsets[i] + self.p.buffers[i].size)
            .max()
            .unwrap_or(0);
        // Penalty already due among pinned buffers.
        let bufs = &self.p.buffers;
        let pen = self
            .p
            .penalties
            .iter()
            .filter(|&&(a, b, _)| {
                let (a, b) = (a.index(), b.index());
                a != b
                    && self.placed[a]
                    && self.placed[b]
                    && bufs[a].size > 0
                    && bufs[b].size > 0
                    && self.offsets[a] < self.offsets[b] + bufs[b].size
                    && self.offsets[b] < self.offsets[a] + bufs[a].size
            })
            .map(|&(_, _, w)| w)
            .fold(0u64, u64::saturating_add);
        self.dfs(0, 0, placed_height, pen);
        !self.cut_short
    }

    fn dfs(&mut self, level: u64, level_id: u32, height: u64, penalty: u64) {
        self.nodes += 1;
        if !self.meter.charge(1) {
            self.cut_short = true;
        }
        if self.cut_short {
            return;
        }
        let bufs = &self.p.buffers;
        let n = bufs.len();
        let mut max_rest = 0u64;
        let mut any = false;
        for (b, &placed) in bufs.iter().zip(&self.placed) {
            if !placed {
                any = true;
                max_rest = max_rest.max(b.size);
            }
        }
        if !any {
            let k = self.order(height, penalty);
            if self.best_key.is_none_or(|b| k < b) {
                self.best_key = Some(k);
                self.best = Some(self.offsets.clone());
            }
            return;
        }
        let h_lb = height.max(level + max_rest).max(self.lb);
        if let Some(b) = self.best_key {
            if self.order(h_lb, penalty) >= b {
                return;
            }
        }
        if h_lb > self.cap {
            return;
        }
        for x in 0..n {
            if self.placed[x] {
                continue;
            }
            let bx = &bufs[x];
            let mut cands: Vec<u64> = vec![0];
            cands.extend(self.reserved.iter().map(|&(_, e)| e));
            for &y in &self.hard[x] {
                if self.placed[y as usize] {
                    cands.push(self.offsets[y as usize] + bufs[y as usize].size);
                }
            }
            for &(y, _) in &self.partners[x] {
                if self.placed[y as usize] {
                    cands.push(self.offsets[y as usize] + bufs[y as usize].size);
                }
            }
            for c in &mut cands {
                *c = align_up(*c, bx.align);
            }
            cands.sort_unstable();
            cands.dedup();
            for c in cands {
                // Offsets go up; equal offsets in id order.
                if c < level || (c == level && (x as u32) < level_id) {
                    continue;
                }
                if !self.fits(x, c) {
                    continue;
                }
                let added: u64 = self.partners[x]
                    .iter()
                    .filter(|&&(y, _)| {
                        let yi = y as usize;
                        self.placed[yi]
                            && bx.size > 0
                            && bufs[yi].size > 0
                            && c < self.offsets[yi] + bufs[yi].size
                            && self.offsets[yi] < c + bx.size
                    })
                    .map(|&(_, w)| w)
                    .fold(0u64, u64::saturating_add);
                self.placed[x] = true;
                self.offsets[x] = c;
                self.dfs(
                    c,
                    x as u32,
                    height.max(c + bx.size),
                    penalty.saturating_add(added),
                );
                self.placed[x] = false;
                if self.cut_short {
                    return;
                }
            }
        }
    }

    fn fits(&self, x: usize, c: u64) -> bool {
        let bx = &self.p.buffers[x];
        if bx.size == 0 {
            return true;
        }
        let e = c + bx.size;
        if e > self.cap {
            return false;
        }
        if self.reserved.iter().any(|&(s, re)| s < e && c < re) {
            return false;
        }
        self.hard[x].iter().all(|&y| {
            let yi = y as usize;
            !self.placed[yi]
                || self.offsets[yi] + self.p.buffers[yi].size <= c
                || e <= self.offsets[yi]
        })
    }
}
