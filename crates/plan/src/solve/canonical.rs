//! `canonical`: the penalty-aware canonical greedy of the DSA_RP planner.
//!
//! Assumes a well-formed problem. For each of several buffer orders, buffers
//! are placed one by one (pinned buffers first, at their offsets). A buffer's
//! candidate offsets are 0, the ends of the reserved ranges and the tops of
//! the already placed buffers it interferes with or has a penalty with,
//! each rounded up to its alignment. Among the candidates where it fits (no
//! byte shared with a placed buffer it interferes with, no reserved byte,
//! below the capacity) it takes the one that adds the least penalty, then
//! the lowest. Orders: size descending, start ascending, summed penalty
//! weight descending, and four successive `mt19937_64` shuffles of the
//! last one (PyPTO's, see [`super::mt`]); a penalty-blind first-fit
//! placement is the incumbent. The best placement under the objective of the
//! [`Budget`] wins: `(penalty, height)` for
//! [`Objective::PenaltyThenPeak`] (what the DSA_RP planner asks for),
//! `(height, penalty)` for [`Objective::PeakThenPenalty`]; ties keep the
//! earlier order, so the result is deterministic.
//!
//! Guarantees: hard rules always hold; when no order fits the capacity the
//! outcome has no solution (and says so only as "not found", not as a proof,
//! unless the lower bound already exceeds the capacity).

use std::time::Instant;

use super::geom::{align_up, conflict_lists, height_of, penalty_of, sorted_reserved, TimeIndex};
use super::greedy::{place_in_order, size_order, Fit};
use super::mt::{shuffle, Mt19937_64};
use super::{fallback, outcome_from, Budget, Meter, Objective, Outcome, Solver};
use crate::problem::Problem;

/// Penalty-aware canonical greedy over several orders.
#[derive(Clone, Copy, Debug, Default)]
pub struct Canonical;

impl Solver for Canonical {
    fn name(&self) -> &'static str {
        "canonical"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let meter = Meter::new(budget);
        let mut out = canonical_run(problem, budget, &meter, self.name());
        out.cut_short = meter.spent();
        out.work = meter.used();
        out
    }
}

/// The canonical greedy within `meter`; a budget spent before any order
/// completed falls back to bump allocation.
pub(crate) fn canonical_run(
    problem: &Problem,
    budget: &Budget,
    meter: &Meter,
    name: &'static str,
) -> Outcome {
    let start = Instant::now();
    let mut best = canonical_best(problem, budget, meter);
    if best.is_none() && meter.spent() {
        best = fallback(problem);
    }
    let mut out = outcome_from(problem, best, name, start);
    if out.solution.is_none() && !meter.spent() && !super::greedy::pinned_are_consistent(problem) {
        out.proven_infeasible = true;
    }
    out
}

/// Best placement over all orders (within capacity), if any; when the
/// budget runs out, the best over the orders completed.
pub(crate) fn canonical_best(
    problem: &Problem,
    budget: &Budget,
    meter: &Meter,
) -> Option<Vec<u64>> {
    let n = problem.buffers.len();
    let cap = problem.capacity.unwrap_or(u64::MAX);
    let key = |offs: &Vec<u64>| {
        let h = height_of(problem, offs);
        let p = penalty_of(problem, offs);
        match budget.objective {
            Objective::PenaltyThenPeak => (p, h),
            Objective::PeakThenPenalty => (h, p),
        }
    };
    let mut best: Option<(Vec<u64>, (u64, u64))> = None;
    let mut consider = |offs: Vec<u64>| {
        if height_of(problem, &offs) > cap {
            return;
        }
        let k = key(&offs);
        if best.as_ref().is_none_or(|(_, bk)| k < *bk) {
            best = Some((offs, k));
        }
    };
    // The penalty-blind incumbent.
    if let Some(order) = size_order(problem) {
        if let Some(offs) = place_in_order(problem, &order, Fit::First, meter) {
            consider(offs);
        }
    }
    if meter.spent() {
        return best.map(|(o, _)| o);
    }
    let ctx = Context::new(problem);
    let weight: Vec<u64> = {
        let mut w = vec![0u64; n];
        for &(a, b, x) in &problem.penalties {
            w[a.index()] = w[a.index()].saturating_add(x);
            w[b.index()] = w[b.index()].saturating_add(x);
        }
        w
    };
    let base: Vec<u32> = (0..n as u32).collect();
    let b = &problem.buffers;
    let mut orders: Vec<Vec<u32>> = Vec::new();
    let mut o = base.clone();
    o.sort_by_key(|&i| {
        (
            std::cmp::Reverse(b[i as usize].size),
            b[i as usize].lower,
            i,
        )
    });
    orders.push(o);
    let mut o = base.clone();
    o.sort_by_key(|&i| {
        (
            b[i as usize].lower,
            std::cmp::Reverse(b[i as usize].size),
            i,
        )
    });
    orders.push(o);
    let mut o = base.clone();
    o.sort_by_key(|&i| {
        (
            std::cmp::Reverse(weight[i as usize]),
            std::cmp::Reverse(b[i as usize].size),
            i,
        )
    });
    orders.push(o);
    // PyPTO's DSA_RP: four successive std::shuffles of the last order with
    // one std::mt19937_64 (seeded 0 there: the default budget seed), drawn
    // exactly as libstdc++ draws them; an order already tried is skipped.
    let mut rng = Mt19937_64::new(budget.seed);
    let mut o = orders.last().cloned().unwrap_or_default();
    for _ in 0..4 {
        shuffle(&mut o, &mut rng);
        if !orders.contains(&o) {
            orders.push(o.clone());
        }
    }
    for mut order in orders {
        // Pinned buffers first, keeping the order of the rest.
        order.sort_by_key(|&i| b[i as usize].fixed_offset.is_none());
        if let Some(offs) = ctx.place(problem, &order, cap, meter) {
            consider(offs);
        }
        if meter.spent() {
            break;
        }
    }
    best.map(|(o, _)| o)
}

/// Adjacency shared by every order.
struct Context {
    reserved: Vec<(u64, u64)>,
    conflicts: Vec<Vec<u32>>,
    /// Compatible partners (may share bytes although co-live).
    compatible: Vec<Vec<u32>>,
    /// Penalty partners with weights, sorted.
    partners: Vec<Vec<(u32, u64)>>,
}

impl Context {
    fn new(problem: &Problem) -> Context {
        let n = problem.buffers.len();
        // Exact capacities: a long pipeline gives single roots thousands
        // of partners, and doubling growth would waste up to half.
        let mut degree = vec![0usize; n];
        for &(a, b, _) in &problem.penalties {
            if a != b {
                degree[a.index()] += 1;
                degree[b.index()] += 1;
            }
        }
        let mut partners: Vec<Vec<(u32, u64)>> =
            degree.iter().map(|&d| Vec::with_capacity(d)).collect();
        for &(a, b, w) in &problem.penalties {
            if a != b {
                partners[a.index()].push((b.0, w));
                partners[b.index()].push((a.0, w));
            }
        }
        for l in &mut partners {
            l.sort_unstable();
        }
        Context {
            reserved: sorted_reserved(problem),
            conflicts: conflict_lists(problem),
            compatible: problem.compatible_lists(),
            partners,
        }
    }

    /// Places buffers in `order`; `None` when one cannot fit below `cap`
    /// or when `meter` runs out.
    ///
    /// The buffers a candidate must avoid are merged into disjoint byte
    /// ranges first, so each candidate is checked by one binary search;
    /// only the ends of the merged ranges (and penalty partners' tops) can
    /// be fitting candidates, since any other end lies inside a range.
    fn place(&self, problem: &Problem, order: &[u32], cap: u64, meter: &Meter) -> Option<Vec<u64>> {
        let bufs = &problem.buffers;
        let n = bufs.len();
        let mut offsets = vec![0u64; n];
        let mut placed_flag = vec![false; n];
        let mut index = TimeIndex::new(problem);
        let mut obstacles: Vec<(u64, u64)> = Vec::new();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        let mut candidates: Vec<u64> = Vec::new();
        let mut added: Vec<i128> = Vec::new();
        for &x in order {
            let xi = x as usize;
            let bx = &bufs[xi];
            // Hard obstacles: reserved ranges, placed co-live (unless
            // compatible) or conflicting.
            obstacles.clear();
            obstacles.extend_from_slice(&self.reserved);
            let compatible = &self.compatible[xi];
            index.for_each_overlap_id(bx.lower, bx.upper, |y, s, e| {
                if compatible.is_empty() || compatible.binary_search(&y).is_err() {
                    obstacles.push((s, e));
                }
            });
            for &y in &self.conflicts[xi] {
                let yi = y as usize;
                if placed_flag[yi] && bufs[yi].size > 0 && !bx.lifetime_overlaps(&bufs[yi]) {
                    obstacles.push((offsets[yi], offsets[yi] + bufs[yi].size));
                }
            }
            if !meter.charge_obstacles(obstacles.len() + self.partners[xi].len()) {
                return None;
            }
            obstacles.sort_unstable();
            merged.clear();
            for &(s, e) in &obstacles {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            let fits = |o: u64| {
                if bx.size == 0 {
                    return true;
                }
                let Some(e) = o.checked_add(bx.size).filter(|&e| e <= cap) else {
                    return false;
                };
                let k = merged.partition_point(|m| m.1 <= o);
                k == merged.len() || merged[k].0 >= e
            };
            let chosen = if let Some(f) = bx.fixed_offset {
                if !fits(f) {
                    return None;
                }
                f
            } else {
                candidates.clear();
                candidates.push(0);
                candidates.extend(merged.iter().map(|&(_, e)| e));
                for &(y, _) in &self.partners[xi] {
                    if placed_flag[y as usize] {
                        candidates.push(offsets[y as usize] + bufs[y as usize].size);
                    }
                }
                for c in &mut candidates {
                    *c = align_up(*c, bx.align);
                }
                candidates.sort_unstable();
                candidates.dedup();
                // Added penalty of every candidate at once: a placed
                // partner on `[oy, ey)` overlaps the candidates `c` with
                // `c + size > oy` and `c < ey`, a run of the ascending
                // list, so its weight goes into a difference array. Linear
                // in partners plus candidates, not their product (one
                // root with thousands of handoff partners is common).
                let partners = &self.partners[xi];
                added.clear();
                added.resize(candidates.len() + 1, 0);
                if bx.size > 0 {
                    for &(y, w) in partners {
                        let yi = y as usize;
                        if !placed_flag[yi] || bufs[yi].size == 0 {
                            continue;
                        }
                        let (oy, ey) = (offsets[yi], offsets[yi] + bufs[yi].size);
                        let lo = candidates.partition_point(|&c| c.saturating_add(bx.size) <= oy);
                        let hi = candidates.partition_point(|&c| c < ey);
                        if lo < hi {
                            added[lo] += i128::from(w);
                            added[hi] -= i128::from(w);
                        }
                    }
                }
                let mut best: Option<(u64, u64)> = None; // (added penalty, offset)
                let mut run = 0i128;
                for (k, &c) in candidates.iter().enumerate() {
                    run += added[k];
                    if !fits(c) {
                        continue;
                    }
                    // The work of scoring `c` partner by partner, as booked
                    // before the difference array: budgets cut at the
                    // same point.
                    if !partners.is_empty() && !meter.charge_obstacles(partners.len()) {
                        return None;
                    }
                    // Weights are not negative: the saturating sum is the
                    // exact sum capped at u64::MAX.
                    let added = u64::try_from(run).unwrap_or(u64::MAX);
                    if best.is_none_or(|(bp, _)| added < bp) {
                        best = Some((added, c));
                        if added == 0 {
                            // Candidates are ascending: nothing beats this.
                            break;
                        }
                    }
                }
                best?.1
            };
            offsets[xi] = chosen;
            placed_flag[xi] = true;
            index.place_id(x, bx, chosen);
        }
        Some(offsets)
    }
}
