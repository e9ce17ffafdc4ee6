//! `handoff`: a size-descending greedy with *handoff* penalties, derived
//! from PyPTO's reference outputs. It is not PyPTO's planner (the PyPTO
//! front end places with [`super::Canonical`], and `tilemem solve --solver
//! canonical --penalty-first` replays a problem `tilemem plan --planner
//! dsa-rp` exports); it was called `dsa-rp` before, a name now refused.
//!
//! It differs from [`super::Canonical`] in what a penalty pair costs: here
//! only the buffer a placement takes bytes over from, and the one that takes
//! over from it, count (the hand-offs the hardware must synchronise), not
//! every penalty partner sharing a byte.
//!
//! Pinned buffers keep their offsets; the others are placed one at a time
//! in a fixed order. For each buffer the
//! candidate offsets are the reserved end and the tops of the already
//! placed *neighbours* (buffers it has a hard pair or a soft pair with),
//! rounded up to the buffer's own alignment (data of the problem, as every
//! solver takes it); a candidate is feasible when it stays within the capacity
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

use super::geom::align_up;
use super::geom::TimeIndex;
use super::skyline;
use super::{fallback, outcome_from, Budget, Meter, Outcome, Solver};
use crate::problem::Problem;

/// The handoff greedy as a [`Solver`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Handoff;

impl Solver for Handoff {
    fn name(&self) -> &'static str {
        "handoff"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let start = Instant::now();
        // The greedy keeps pinned buffers where they are without checking
        // them against each other: pinned buffers that clash admit no
        // placement at all, which is the answer (not an invalid placement
        // for the validator to catch).
        if !super::greedy::pinned_are_consistent(problem) {
            let mut out = outcome_from(problem, None, self.name(), start);
            out.proven_infeasible = true;
            return out;
        }
        let meter = Meter::new(budget);
        let mut offsets = canonical_within(problem, &meter).map(|p| p.offsets);
        if offsets.is_none() && meter.spent() {
            offsets = fallback(problem);
        }
        let mut out = outcome_from(problem, offsets, self.name(), start);
        out.cut_short = meter.spent();
        out.work = meter.used();
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

/// Where one buffer goes, or why it goes nowhere.
enum Step {
    /// At this offset, adding this handoff penalty.
    At(u64, u64),
    /// No candidate fits the capacity.
    Nowhere,
    /// The budget ran out.
    Cut,
}

/// One greedy run in `order`; `None` when some buffer fits nowhere.
/// When `meter` runs out: with `finish_cut`, the buffers placed so far
/// keep their offsets and the rest are completed on the skyline
/// ([`complete_rest`]); without, `None`.
///
/// A buffer without penalty partners adds no handoff penalty wherever it
/// goes, so its lowest feasible candidate wins: that is first-fit among the
/// placed buffers it may not share a byte with, found through a time index
/// ([`place_plain`], work proportional to the buffers live with it). Only
/// buffers with penalty partners look at every placed buffer
/// ([`place_soft`]).
fn run(
    p: &Problem,
    v: &View,
    order: &[usize],
    blind: bool,
    name: &'static str,
    meter: &Meter,
    finish_cut: bool,
) -> Option<Placement> {
    // Pinned buffers sit where they were put; the greedy places the rest
    // around them (PyPTO's problems have none).
    let mut off: Vec<Option<u64>> = v.fixed.clone();
    let mut index = TimeIndex::new(p);
    for (j, o) in off.iter().enumerate() {
        if let Some(o) = *o {
            index.place_id(j as u32, &p.buffers[j], o);
        }
    }
    let mut obstacles = Vec::new();
    let mut penalty = 0u64;
    for &i in order {
        if v.fixed[i].is_some() {
            continue;
        }
        let step = if v.soft[i].is_empty() {
            place_plain(v, i, &index, &off, &mut obstacles, meter)
        } else {
            place_soft(v, i, &off, blind, meter)
        };
        match step {
            Step::At(c, pen) => {
                off[i] = Some(c);
                penalty += pen;
                index.place_id(i as u32, &p.buffers[i], c);
            }
            Step::Nowhere => return None,
            Step::Cut => {
                return finish_cut.then(|| complete_rest(p, v, order, off, penalty, name));
            }
        }
    }
    Some(placement(v, off, penalty, name))
}

/// [`Step`] of a buffer without penalty partners: the lowest candidate
/// (the reserved end or an aligned top of a placed hard partner) that
/// overlaps no placed hard partner, which is first-fit among them.
fn place_plain(
    v: &View,
    i: usize,
    index: &TimeIndex,
    off: &[Option<u64>],
    obstacles: &mut Vec<(u64, u64)>,
    meter: &Meter,
) -> Step {
    let size = v.size[i];
    obstacles.clear();
    if size > 0 {
        let (lower, upper) = v.life[i];
        let mine = &v.compatible[i];
        index.for_each_overlap_id(lower, upper, |id, s, e| {
            if mine.binary_search(&id).is_err() {
                obstacles.push((s, e));
            }
        });
        for &j in &v.conflicts[i] {
            if let Some(o) = off[j] {
                if v.size[j] > 0 {
                    obstacles.push((o, o.saturating_add(v.size[j])));
                }
            }
        }
    }
    if !meter.charge_obstacles(obstacles.len()) {
        return Step::Cut;
    }
    obstacles.sort_unstable_by_key(|o| o.0);
    let mut c = align_up(v.reserved_end, v.align[i]);
    for &(s, e) in obstacles.iter() {
        if s >= c.saturating_add(size) {
            break;
        }
        if e > c {
            c = align_up(e, v.align[i]);
        }
    }
    if v.capacity.is_some_and(|cap| c.saturating_add(size) > cap) {
        return Step::Nowhere;
    }
    Step::At(c, 0)
}

/// [`Step`] of a buffer with penalty partners: every candidate is checked
/// against every placed buffer, for hard overlaps and for the handoffs.
fn place_soft(v: &View, i: usize, off: &[Option<u64>], blind: bool, meter: &Meter) -> Step {
    let life = &v.life;
    let size = v.size[i];
    let mut cands = vec![align_up(v.reserved_end, v.align[i])];
    if !meter.charge_obstacles(off.len()) {
        return Step::Cut;
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
            return Step::Cut;
        }
        let mut ok = true;
        let mut before: Option<(u64, u64)> = None; // (death, weight)
        let mut after: Option<(u64, u64)> = None; // (birth, weight)
        for (j, o) in off.iter().enumerate() {
            let Some(o) = *o else { continue };
            let sj = v.size[j];
            if !(c < o.saturating_add(sj) && o < c.saturating_add(size)) || size == 0 || sj == 0 {
                continue;
            }
            if v.hard(i, j) {
                ok = false;
                break;
            }
            let w = v.soft[i].get(&j).copied().unwrap_or(0);
            if life[j].1 <= life[i].0 {
                match before {
                    Some((d, _)) if d > life[j].1 => {}
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
    match best {
        Some((_, c, p)) => Step::At(c, p),
        None => Step::Nowhere,
    }
}

/// Completes a run the budget cut short: the buffers of `order` not yet
/// placed go on the skyline of their lifetimes ([`skyline::complete`]),
/// above the reserved prefix and apart from their placed conflict and
/// penalty partners. They share no byte with a buffer live with them, so
/// the placement stays valid (capacity aside), nor with a penalty partner,
/// so they add no handoff penalty.
fn complete_rest(
    p: &Problem,
    v: &View,
    order: &[usize],
    mut off: Vec<Option<u64>>,
    penalty: u64,
    name: &'static str,
) -> Placement {
    let mut done: Vec<bool> = off.iter().map(Option::is_some).collect();
    let mut offsets: Vec<u64> = off.iter().map(|o| o.unwrap_or(0)).collect();
    let taken = if v.reserved_end > 0 {
        vec![(0, v.reserved_end)]
    } else {
        Vec::new()
    };
    let rest: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| off[i].is_none())
        .collect();
    skyline::complete(
        p,
        &mut offsets,
        &mut done,
        rest,
        &taken,
        &|i| {
            let mut apart = v.conflicts[i].clone();
            apart.extend(v.soft[i].keys().copied());
            apart
        },
        &|x, i| align_up(x, v.align[i]),
        &|| false,
    );
    for (o, x) in off.iter_mut().zip(offsets) {
        *o = Some(x);
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
/// [`complete_rest`]); `None` only when no run fits the capacity.
pub(crate) fn canonical_within(p: &Problem, meter: &Meter) -> Option<Placement> {
    let v = View::of(p);
    let order = size_order(&v);
    let mut best = run(p, &v, &order, true, "first-fit", meter, true);
    if meter.spent() {
        return best;
    }
    if let Some(r) = run(p, &v, &order, false, "penalty-aware", meter, false) {
        if best
            .as_ref()
            .is_none_or(|b| (r.penalty, r.peak) < (b.penalty, b.peak))
        {
            best = Some(r);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, BufferId};

    /// Without penalty pairs, first-fit through the time index places every
    /// buffer where the scan over all placed buffers and candidates does.
    #[test]
    fn indexed_steps_match_the_full_scan_without_penalty_partners() {
        for seed in 0..60 {
            let mut rng = crate::gen::Rng(seed);
            let mut p = Problem::new();
            let n = 5 + rng.below(40) as u32;
            for _ in 0..n {
                let l = rng.below(20);
                let align = [1, 8, 32, 64][rng.below(4) as usize];
                p.push(Buffer::new(1 + rng.below(100), l, l + rng.below(8)).with_align(align));
            }
            let pair = |rng: &mut crate::gen::Rng| {
                (
                    BufferId(rng.below(n as u64) as u32),
                    BufferId(rng.below(n as u64) as u32),
                )
            };
            for _ in 0..rng.below(8) {
                let (a, b) = pair(&mut rng);
                p.conflicts.push((a, b));
            }
            for _ in 0..rng.below(8) {
                let (a, b) = pair(&mut rng);
                p.compatible.push((a, b));
            }
            if seed % 3 == 0 {
                p.reserved.push((0, 1 + rng.below(50)));
            }
            if seed % 4 == 0 {
                p.buffers[0].fixed_offset = Some(64 * rng.below(4));
            }
            if seed % 5 == 0 {
                p.capacity = Some(100 + rng.below(300));
            }
            let v = View::of(&p);
            let order = size_order(&v);
            let meter = Meter::unlimited();
            let indexed = run(&p, &v, &order, true, "first-fit", &meter, false);
            let mut off = v.fixed.clone();
            let mut scanned = Some(());
            for &i in &order {
                if v.fixed[i].is_some() {
                    continue;
                }
                match place_soft(&v, i, &off, true, &meter) {
                    Step::At(c, _) => off[i] = Some(c),
                    _ => {
                        scanned = None;
                        break;
                    }
                }
            }
            let scanned = scanned.map(|()| off.iter().map(|o| o.unwrap_or(0)).collect());
            assert_eq!(indexed.map(|r| r.offsets), scanned, "seed {seed}");
        }
    }

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
