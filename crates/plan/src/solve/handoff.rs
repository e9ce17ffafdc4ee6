//! `dsa-rp`: the canonical greedy of PyPTO's DSA_RP planner, with *handoff*
//! penalties (derived from PyPTO's reference outputs; see the `dsa_rp` pass
//! of `tilemem-pto`). The PyPTO front end places every (function, space)
//! with it, and because it reads only the IR-free [`Problem`] (lifetimes,
//! conflicts, penalties, capacity, reserved prefix), a problem the planner
//! exports replays to the same placement with `tilemem solve --solver
//! dsa-rp`.
//!
//! It differs from [`super::Canonical`] in what a penalty pair costs: here
//! only the buffer a placement takes bytes over from, and the one that takes
//! over from it, count (the hand-offs the hardware must synchronise), not
//! every penalty partner sharing a byte.
//!
//! Pinned buffers keep their offsets; the others are placed one at a time
//! in a fixed order. For each buffer the
//! candidate offsets are the reserved end and the 32-byte aligned tops of
//! the already placed *neighbours* (buffers it has a hard pair or a soft
//! pair with); a candidate is feasible when it stays within the capacity
//! and overlaps no placed hard partner. Among feasible candidates the one
//! with the least added handoff penalty wins, then the lowest offset.
//!
//! The handoff penalty of putting buffer `i` at offset `c` looks only at the
//! placed buffers whose bytes `c` overlaps and whose lifetimes are disjoint
//! from `i`'s: the latest one that dies before `i` starts (the buffer `i`
//! takes over from) and the earliest one that starts after `i` dies (the
//! buffer that takes over from `i`). Each costs its soft weight.
//!
//! A penalty-blind first-fit run (same order, least offset) is the
//! incumbent; a penalty-aware run replaces it only when strictly better on
//! `(penalty, peak)`.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{fallback, outcome_from, Budget, Meter, Outcome, Solver};
use crate::problem::Problem;

/// PyPTO's address alignment: candidate tops are rounded up to it first
/// (as PyPTO does), then to the buffer's own alignment.
const ALIGN: u64 = 32;

fn align_up(x: u64, align: u64) -> u64 {
    super::geom::align_up(super::geom::align_up(x, ALIGN), align)
}

/// The DSA_RP handoff greedy as a [`Solver`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DsaRp;

impl Solver for DsaRp {
    fn name(&self) -> &'static str {
        "dsa-rp"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let start = Instant::now();
        let meter = Meter::new(budget);
        let mut offsets = canonical_within(problem, &meter).map(|p| p.offsets);
        if offsets.is_none() && meter.spent() {
            offsets = fallback(problem);
        }
        let mut out = outcome_from(problem, offsets, self.name(), start);
        out.cut_short = meter.spent();
        out
    }
}

/// A placement found by the greedy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Offset per buffer of the problem.
    pub offsets: Vec<u64>,
    /// Summed handoff penalty.
    pub penalty: u64,
    /// Highest end.
    pub peak: u64,
    /// Which run produced it (`first-fit` or `penalty-aware`).
    pub run: &'static str,
}

/// The facts of a problem the greedy reads. Hard pairs are not listed: two
/// buffers live together are a hard pair unless compatible, so listing them
/// takes memory quadratic in the buffers on traces where many are live at
/// once (100k co-live buffers: gigabytes, and seconds to build and free,
/// outside any budget). [`View::hard`] answers from lifetimes and the sparse
/// pair lists instead.
struct View {
    size: Vec<u64>,
    align: Vec<u64>,
    fixed: Vec<Option<u64>>,
    life: Vec<(u64, u64)>,
    /// Compatible partners per buffer, sorted (never a conflict partner).
    compatible: Vec<Vec<u32>>,
    /// Conflict partners per buffer, sorted.
    conflicts: Vec<Vec<usize>>,
    soft: Vec<BTreeMap<usize, u64>>,
    capacity: Option<u64>,
    reserved_end: u64,
}

impl View {
    /// Linear in the buffers and pairs.
    fn of(p: &Problem) -> View {
        let n = p.buffers.len();
        let mut conflicts = vec![Vec::new(); n];
        let mut soft = vec![BTreeMap::new(); n];
        for &(a, b) in &p.conflicts {
            let (a, b) = (a.index(), b.index());
            if a != b {
                conflicts[a].push(b);
                conflicts[b].push(a);
            }
        }
        for l in &mut conflicts {
            l.sort_unstable();
            l.dedup();
        }
        for &(a, b, w) in &p.penalties {
            let (a, b) = (a.index(), b.index());
            if a != b {
                let e = soft[a].entry(b).or_insert(0);
                *e = (*e).max(w);
                let e = soft[b].entry(a).or_insert(0);
                *e = (*e).max(w);
            }
        }
        View {
            size: p.buffers.iter().map(|b| b.size).collect(),
            align: p.buffers.iter().map(|b| b.align).collect(),
            fixed: p.buffers.iter().map(|b| b.fixed_offset).collect(),
            life: p.buffers.iter().map(|b| (b.lower, b.upper)).collect(),
            compatible: p.compatible_lists(),
            conflicts,
            soft,
            capacity: p.capacity,
            reserved_end: p
                .reserved
                .iter()
                .filter(|&&(s, e)| s < e) // an empty range reserves nothing
                .map(|&(_, e)| e)
                .max()
                .unwrap_or(0),
        }
    }

    /// True when `i` and `j` (distinct) may not share a byte: a conflict
    /// pair, or live together and not compatible.
    fn hard(&self, i: usize, j: usize) -> bool {
        let ((li, ui), (lj, uj)) = (self.life[i], self.life[j]);
        let live_together = li < ui && lj < uj && li < uj && lj < ui;
        (live_together && self.compatible[i].binary_search(&(j as u32)).is_err())
            || self.conflicts[i].binary_search(&j).is_ok()
    }
}

/// Size descending, then lifetime start, then buffer order.
fn size_order(v: &View) -> Vec<usize> {
    let mut o: Vec<usize> = (0..v.size.len()).collect();
    o.sort_by_key(|&i| (std::cmp::Reverse(v.size[i]), v.life[i].0, i));
    o
}

/// One greedy run in `order`; `None` when some buffer fits nowhere.
/// When `meter` runs out: with `finish_cut`, the buffers placed so far
/// keep their offsets and the rest are stacked above them ([`stack_rest`]);
/// without, `None`.
fn run(
    v: &View,
    order: &[usize],
    blind: bool,
    name: &'static str,
    meter: &Meter,
    finish_cut: bool,
) -> Option<Placement> {
    let life = &v.life;
    // Pinned buffers sit where they were put; the greedy places the rest
    // around them (PyPTO's problems have none).
    let mut off: Vec<Option<u64>> = v.fixed.clone();
    let mut penalty = 0u64;
    for &i in order {
        if v.fixed[i].is_some() {
            continue;
        }
        let size = v.size[i];
        let mut cands = vec![align_up(v.reserved_end, v.align[i])];
        if !meter.charge_obstacles(off.len()) {
            return finish_cut.then(|| stack_rest(v, order, off, penalty, name));
        }
        for (j, o) in off.iter().enumerate() {
            let Some(o) = *o else { continue };
            if v.hard(i, j) || v.soft[i].contains_key(&j) {
                cands.push(align_up(o.saturating_add(v.size[j]), v.align[i]));
            }
        }
        cands.sort_unstable();
        cands.dedup();
        let mut best: Option<(u64, u64, u64)> = None; // (key penalty, offset, real penalty)
        for c in cands {
            if c < v.reserved_end {
                continue;
            }
            if v.capacity.is_some_and(|cap| c.saturating_add(size) > cap) {
                continue;
            }
            if !meter.charge_obstacles(off.len()) {
                return finish_cut.then(|| stack_rest(v, order, off, penalty, name));
            }
            let mut ok = true;
            let mut before: Option<(u64, u64)> = None; // (death, weight)
            let mut after: Option<(u64, u64)> = None; // (birth, weight)
            for (j, o) in off.iter().enumerate() {
                let Some(o) = *o else { continue };
                let sj = v.size[j];
                if !(c < o.saturating_add(sj) && o < c.saturating_add(size)) || size == 0 || sj == 0
                {
                    continue;
                }
                if v.hard(i, j) {
                    ok = false;
                    break;
                }
                let w = v.soft[i].get(&j).copied().unwrap_or(0);
                if life[j].1 <= life[i].0 {
                    match before {
                        Some((d, x)) if d > life[j].1 => {
                            let _ = x;
                        }
                        Some((d, x)) if d == life[j].1 => before = Some((d, x.max(w))),
                        _ => before = Some((life[j].1, w)),
                    }
                } else if life[j].0 >= life[i].1 {
                    match after {
                        Some((b, _)) if b < life[j].0 => {}
                        Some((b, x)) if b == life[j].0 => after = Some((b, x.max(w))),
                        _ => after = Some((life[j].0, w)),
                    }
                }
            }
            if !ok {
                continue;
            }
            let p = before.map_or(0, |x| x.1) + after.map_or(0, |x| x.1);
            let key = if blind { 0 } else { p };
            if best.is_none_or(|(bk, bc, _)| (key, c) < (bk, bc)) {
                best = Some((key, c, p));
                if key == 0 {
                    // Candidates ascend: no later one has a lower key.
                    break;
                }
            }
        }
        let (_, c, p) = best?;
        off[i] = Some(c);
        penalty += p;
    }
    Some(placement(v, off, penalty, name))
}

/// Completes a run the budget cut short: the buffers of `order` not yet
/// placed go one above another, above every placed end and the reserved
/// prefix (linear work). They share no byte with any other buffer, so the
/// placement stays valid (capacity aside) and adds no handoff penalty.
fn stack_rest(
    v: &View,
    order: &[usize],
    mut off: Vec<Option<u64>>,
    penalty: u64,
    name: &'static str,
) -> Placement {
    let mut cursor = off
        .iter()
        .zip(&v.size)
        .filter_map(|(o, s)| o.map(|o| o.saturating_add(*s)))
        .fold(v.reserved_end, u64::max);
    for &i in order {
        if off[i].is_none() {
            let o = align_up(cursor, v.align[i]);
            off[i] = Some(o);
            cursor = o.saturating_add(v.size[i]);
        }
    }
    placement(v, off, penalty, name)
}

/// A run's result from its offsets (every buffer placed).
fn placement(v: &View, off: Vec<Option<u64>>, penalty: u64, name: &'static str) -> Placement {
    let offsets: Vec<u64> = off.into_iter().map(|o| o.unwrap_or(0)).collect();
    let peak = offsets
        .iter()
        .zip(&v.size)
        .map(|(o, s)| o.saturating_add(*s))
        .max()
        .unwrap_or(0);
    Placement {
        offsets,
        penalty,
        peak,
        run: name,
    }
}

/// The canonical greedy on an IR-free problem: first-fit incumbent, then the
/// penalty-aware run; the best `(penalty, peak)` wins, the incumbent on
/// ties. Reserved ranges are taken as one prefix `[0, max end)`. `None` when
/// no run fits the capacity.
pub fn canonical(p: &Problem) -> Option<Placement> {
    canonical_within(p, &Meter::unlimited())
}

/// [`canonical`] within the budget of `meter`: when it runs out, the
/// first-fit run, completed by stacking if the budget cut it short (see
/// [`stack_rest`]); `None` only when no run fits the capacity.
pub(crate) fn canonical_within(p: &Problem, meter: &Meter) -> Option<Placement> {
    let v = View::of(p);
    let order = size_order(&v);
    let mut best = run(&v, &order, true, "first-fit", meter, true);
    if meter.spent() {
        return best;
    }
    if let Some(p) = run(&v, &order, false, "penalty-aware", meter, false) {
        if best
            .as_ref()
            .is_none_or(|b| (p.penalty, p.peak) < (b.penalty, b.peak))
        {
            best = Some(p);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, BufferId};

    #[test]
    fn hard_pairs_are_co_live_incompatible_or_conflicting() {
        let mut p = Problem::new();
        p.push(Buffer::new(8, 0, 4)); // 0
        p.push(Buffer::new(8, 2, 6)); // 1: live with 0
        p.push(Buffer::new(8, 4, 8)); // 2: after 0, live with 1
        p.push(Buffer::new(8, 5, 5)); // 3: empty lifetime
        p.push(Buffer::new(8, 6, 9)); // 4: live with 2 only
        p.compatible.push((BufferId(1), BufferId(2)));
        p.conflicts.push((BufferId(0), BufferId(4)));
        // A conflict pair overrides compatibility.
        p.compatible.push((BufferId(2), BufferId(4)));
        p.conflicts.push((BufferId(2), BufferId(4)));
        let v = View::of(&p);
        let mut hard = Vec::new();
        for i in 0..p.len() {
            for j in 0..p.len() {
                if i != j && v.hard(i, j) {
                    hard.push((i, j));
                }
            }
        }
        assert_eq!(
            hard,
            [(0, 1), (0, 4), (1, 0), (2, 4), (4, 0), (4, 2)],
            "symmetric, and only the listed kinds of pair"
        );
    }
}
