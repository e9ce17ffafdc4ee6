//! The canonical greedy of DSA_RP (see the module docs of `dsa_rp` for how
//! it was derived from PyPTO's outputs).
//!
//! Buffers are placed one at a time in a fixed order. For each buffer the
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

use super::model::{align_up, DsaModel};

/// A placement found by the greedy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    /// Offset per buffer of the model.
    pub offsets: Vec<u64>,
    /// Summed handoff penalty.
    pub penalty: u64,
    /// Highest end.
    pub peak: u64,
    /// Which run produced it (`first-fit` or `penalty-aware`).
    pub run: &'static str,
}

/// Pair weights of one run: hard pairs and soft weights (symmetric).
pub(crate) struct Pairs {
    hard: Vec<Vec<usize>>,
    soft: Vec<BTreeMap<usize, u64>>,
}

impl Pairs {
    /// Pairs of `m`; pipeline pairs are hard when `strict`, unit soft pairs
    /// otherwise.
    pub fn of(m: &DsaModel, strict: bool) -> Pairs {
        let n = m.buffers.len();
        let mut hard = vec![Vec::new(); n];
        let mut soft = vec![BTreeMap::new(); n];
        let mut add_hard = |i: usize, j: usize| {
            hard[i].push(j);
            hard[j].push(i);
        };
        for &(i, j) in m.hard.keys() {
            add_hard(i, j);
        }
        for &(i, j) in &m.pipeline {
            if strict {
                add_hard(i, j);
            }
        }
        for &(i, j) in &m.soft {
            *soft[i].entry(j).or_insert(0) += 1;
            *soft[j].entry(i).or_insert(0) += 1;
        }
        if !strict {
            for &(i, j) in &m.pipeline {
                *soft[i].entry(j).or_insert(0) += 1;
                *soft[j].entry(i).or_insert(0) += 1;
            }
        }
        Pairs { hard, soft }
    }
}

/// Size descending, then lifetime start, then alloc order.
pub(crate) fn size_order(m: &DsaModel) -> Vec<usize> {
    let mut o: Vec<usize> = (0..m.buffers.len()).collect();
    o.sort_by_key(|&i| {
        let b = &m.buffers[i];
        (std::cmp::Reverse(b.size), b.lifetime().0, b.ordinal)
    });
    o
}

/// One greedy run in `order`; `None` when some buffer fits nowhere.
pub(crate) fn run(
    m: &DsaModel,
    pairs: &Pairs,
    order: &[usize],
    blind: bool,
    name: &'static str,
) -> Option<Placement> {
    let n = m.buffers.len();
    let life: Vec<(u64, u64)> = m.buffers.iter().map(|b| b.lifetime()).collect();
    let mut off: Vec<Option<u64>> = vec![None; n];
    let mut penalty = 0u64;
    for &i in order {
        let size = m.buffers[i].size;
        let mut cands = vec![m.reserved_end];
        for j in 0..n {
            let Some(o) = off[j] else { continue };
            if pairs.hard[i].contains(&j) || pairs.soft[i].contains_key(&j) {
                cands.push(align_up(o + m.buffers[j].size));
            }
        }
        cands.sort_unstable();
        cands.dedup();
        let mut best: Option<(u64, u64, u64)> = None; // (key penalty, offset, real penalty)
        for c in cands {
            if c < m.reserved_end {
                continue;
            }
            if m.capacity.is_some_and(|cap| c.saturating_add(size) > cap) {
                continue;
            }
            let mut ok = true;
            let mut before: Option<(u64, u64)> = None; // (death, weight)
            let mut after: Option<(u64, u64)> = None; // (birth, weight)
            for j in 0..n {
                let Some(o) = off[j] else { continue };
                let sj = m.buffers[j].size;
                if !(c < o + sj && o < c + size) || size == 0 || sj == 0 {
                    continue;
                }
                if pairs.hard[i].contains(&j) {
                    ok = false;
                    break;
                }
                let w = pairs.soft[i].get(&j).copied().unwrap_or(0);
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
            }
        }
        let (_, c, p) = best?;
        off[i] = Some(c);
        penalty += p;
    }
    let offsets: Vec<u64> = off.into_iter().map(|o| o.unwrap_or(0)).collect();
    let peak = offsets
        .iter()
        .zip(&m.buffers)
        .map(|(o, b)| o + b.size)
        .max()
        .unwrap_or(0);
    Some(Placement {
        offsets,
        penalty,
        peak,
        run: name,
    })
}

/// The canonical greedy: first-fit incumbent, then the penalty-aware run;
/// the best `(penalty, peak)` wins, the incumbent on ties.
pub(crate) fn canonical(m: &DsaModel, strict: bool) -> Option<Placement> {
    let pairs = Pairs::of(m, strict);
    let order = size_order(m);
    let mut best = run(m, &pairs, &order, true, "first-fit");
    if let Some(p) = run(m, &pairs, &order, false, "penalty-aware") {
        if best
            .as_ref()
            .is_none_or(|b| (p.penalty, p.peak) < (b.penalty, b.peak))
        {
            best = Some(p);
        }
    }
    best
}
