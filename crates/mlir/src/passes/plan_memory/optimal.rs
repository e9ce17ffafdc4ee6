//! `planner=optimal`: each memory space's storage entries lowered into a
//! `tilemem-plan` [`Problem`] and solved exactly under a work budget.
//!
//! The lowering keeps every separation PlanMemory enforces as a hard rule
//! and turns its preferences into soft penalties:
//! - an entry is one buffer of its aligned size (bytes), aligned to the
//!   space's alignment, live over the hull of its lifetimes; two entries
//!   whose hulls meet but whose lifetimes do not (an entry merged from
//!   in-place pairs, one slot of a loop) are a compatible pair;
//! - the level-0 rules are hard: overlapping lifetimes, and `mem_unique`
//!   buffers (tightly coupled buffers, ...) sharing nothing — on
//!   register-based chips unless the reference's CV-mix exception allows
//!   the pair. Two rules are taken stricter than the reference: the
//!   one-instant overlap it allows between recorded in-place candidates is
//!   a conflict here (sharing would need equal offsets, which the problem
//!   cannot say), and a buffer written but never read lives at its write
//!   (the reference gives it no lifetime at all);
//! - each slot of a multi-buffer is its own entry (they overlap in
//!   lifetime, so they stay apart). The level-1 upgrade (`MultiSpecPlan`
//!   at `LEVEL_1`: an entry placed over a multi-buffer of its loop takes
//!   as many slots, the others at that multi-buffer's other offsets) is a
//!   preference of the reference's speculation, tried before level 0 and
//!   dropped only by roll-back; an entry the reference's placement
//!   upgraded keeps its slots here, each extra slot one more entry of the
//!   problem live with it (so apart from it), so the optimal placement
//!   never takes the double buffer away and the reference's placement
//!   stays a solution of the problem (optimal <= bishengir bytes). The
//!   optimal planner makes no upgrade of its own;
//! - the level-3 and level-2 preferences become penalties: weight 2 when
//!   either entry holds a DMA buffer, 1 when both sit in the same loop.
//!
//! The objective is penalties first, then bytes, within the capacity and,
//! when the reference allocator placed the space, within the bytes its
//! placement uses: the result never uses more bytes than the reference,
//! and a space takes it only when it is strictly better on (penalty,
//! bytes) than the reference's placement measured on the same problem. A
//! space the reference overflows takes any placement found within
//! capacity. Spaces with more entries than [`MAX_ENTRIES`] are only
//! rescued (up to [`MAX_RESCUE_ENTRIES`]), never re-planned: the
//! reference's placement (or overflow) stands, and the summary line says
//! so. Every placement is checked with
//! `tilemem_plan::validate` here, and the rewritten function by
//! `crate::plan_check` after.

use std::time::Duration;

use tilemem_plan::{Budget, Buffer, BufferId, Objective, Problem, SolverKind};

use super::gen_kill::BufferLife;
use super::storage::{align_up, SeId};
use super::MemPlan;

/// Work budget of the exact search per space, in search nodes: it stops
/// an unfinished search at the same point on every machine, so the output
/// is reproducible.
pub const NODE_LIMIT: u64 = 1_000_000;
/// Time guard of the exact search per space (slow machines only).
const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Spaces with more storage entries are re-planned only when the
/// reference allocator overflows them (the pairwise lowering is quadratic).
pub const MAX_ENTRIES: usize = 2_000;
/// Spaces the reference allocator overflows are re-planned up to this
/// many entries (the lowering's pairs, at most about 8 million, bound its
/// time and memory); a larger one keeps the reference's error.
pub const MAX_RESCUE_ENTRIES: usize = 4_000;

/// Which allocator places a function's local memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Planner {
    /// The reference's allocator (levels and roll-back).
    #[default]
    Bishengir,
    /// The exact solver, never more bytes than the reference.
    Optimal,
}

impl Planner {
    /// The option value naming it (`planner=bishengir|optimal`).
    pub fn name(self) -> &'static str {
        match self {
            Planner::Bishengir => "bishengir",
            Planner::Optimal => "optimal",
        }
    }
}

/// One memory space lowered into a placement problem.
pub struct SpaceProblem {
    /// The space (`ub`, `cbuf`, `cc`).
    pub scope: String,
    /// The storage entries, in problem buffer order.
    pub entries: Vec<SeId>,
    /// The problem, in bytes.
    pub problem: Problem,
}

/// What the optimal planner decided for one space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceChoice {
    /// The space.
    pub scope: String,
    /// Bytes of the reference allocator's placement (`None`: it overflowed
    /// or did not reach this space).
    pub bishengir: Option<u64>,
    /// Reuse penalty of the reference's placement on the same problem
    /// (`None`: not placed, or it breaks a rule the problem takes stricter).
    pub bishengir_penalty: Option<u64>,
    /// Bytes of the exact solver's placement within capacity, if found.
    pub optimal: Option<u64>,
    /// Its reuse penalty.
    pub optimal_penalty: u64,
    /// The optimal placement is used.
    pub chosen: bool,
    /// The exact search proved no placement uses fewer bytes.
    pub proven_optimal: bool,
    /// The exact search proved no placement fits the capacity.
    pub proven_infeasible: bool,
    /// The space has more entries than the optimal planner lowers
    /// ([`MAX_ENTRIES`] when the reference placed it, else
    /// [`MAX_RESCUE_ENTRIES`]): not re-planned, the reference's placement
    /// (or its overflow) stands.
    pub too_large: Option<usize>,
}

/// A lifetime with "never killed" read as "live at its write".
fn closed(l: &BufferLife) -> (i64, i64) {
    (l.alloc, l.free.max(l.alloc))
}

/// Whether two sorted lifetime lists share an instant.
fn lifes_meet(a: &[BufferLife], b: &[BufferLife]) -> bool {
    a.iter().any(|x| {
        let (xa, xf) = closed(x);
        b.iter().any(|y| {
            let (ya, yf) = closed(y);
            xa.max(ya) <= xf.min(yf)
        })
    })
}

impl MemPlan<'_> {
    /// The entries of the space rooted at `root`, root first.
    fn space_entries(&self, root: SeId) -> Vec<SeId> {
        let mut v = vec![root];
        v.extend(self.se[root].children.iter().copied());
        v
    }

    /// The entries of the space rooted at `root` as the optimal planner
    /// places them: [`Self::space_entries`], then, when the reference
    /// placed the space, the extra slots of the entries it upgraded at
    /// level 1 (see the module docs).
    fn problem_entries(&self, scope: &str, root: SeId) -> Vec<SeId> {
        let mut v = self.space_entries(root);
        if self.planned.iter().any(|p| p == scope) {
            let upgraded: Vec<SeId> = v
                .iter()
                .filter_map(|e| self.relation_others.get(e))
                .flatten()
                .copied()
                .collect();
            v.extend(upgraded);
        }
        v
    }

    /// Whether entry `e` holds a buffer no other may share with.
    pub(super) fn entry_unique(&self, e: SeId) -> bool {
        self.se[e]
            .inplace
            .iter()
            .any(|&b| self.lt.info(b).is_some_and(|i| i.memory_unique))
    }

    /// The level-0 rule between two entries: true when they may never
    /// share a byte (see the module docs).
    fn entries_conflict(&self, a: SeId, b: SeId) -> bool {
        let (ua, ub) = (self.entry_unique(a), self.entry_unique(b));
        if ua || ub {
            if !self.regbase() {
                return true;
            }
            let cv = |e: SeId| {
                self.se[e]
                    .lifes
                    .first()
                    .and_then(|l| l.buffer)
                    .and_then(|v| self.lt.info(v))
                    .map_or(-1, |i| i.cv_mix_id)
            };
            let (x, y) = (cv(a), cv(b));
            let safe = x >= 0 && y >= 0 && x != y && self.cv_allowed.contains(&(x, y));
            if !safe {
                return true;
            }
        }
        lifes_meet(&self.se[a].lifes, &self.se[b].lifes)
    }

    /// Lowers the space `scope` rooted at `root` (see the module docs).
    pub fn space_problem(&mut self, scope: &str, root: SeId) -> Option<SpaceProblem> {
        let (align, max_bits) = self.space_info(scope).ok()?;
        let entries = self.problem_entries(scope, root);
        let mut p = Problem::new();
        let align_bytes = (align / 8).max(1);
        let mut hulls = Vec::with_capacity(entries.len());
        for &e in &entries {
            let bytes = align_up(self.bits(e), align).div_ceil(8);
            let (lo, hi) = self.se[e]
                .lifes
                .iter()
                .map(closed)
                .fold((i64::MAX, i64::MIN), |(lo, hi), (a, f)| {
                    (lo.min(a), hi.max(f))
                });
            let (lower, upper) = if lo > hi {
                (0, 0)
            } else {
                (lo.max(0) as u64, hi.max(0) as u64 + 1)
            };
            hulls.push((lower, upper));
            p.push(
                Buffer::new(bytes, lower, upper)
                    .with_align(align_bytes)
                    .with_name(format!("se{e}")),
            );
        }
        p.capacity = Some(max_bits / 8);
        let dma: Vec<bool> = entries.iter().map(|&e| self.entry_is_dma(e)).collect();
        let loops: Vec<_> = entries.iter().map(|&e| self.entry_loop(e)).collect();
        for i in 0..entries.len() {
            for j in i + 1..entries.len() {
                let (a, b) = (entries[i], entries[j]);
                let meet = hulls[i].0 < hulls[j].1 && hulls[j].0 < hulls[i].1;
                let conflict = self.entries_conflict(a, b);
                let (bi, bj) = (BufferId(i as u32), BufferId(j as u32));
                match (meet, conflict) {
                    (true, false) => p.compatible.push((bi, bj)),
                    (false, true) => p.conflicts.push((bi, bj)),
                    _ => {}
                }
                if conflict {
                    continue;
                }
                let w = 2 * u64::from(dma[i] || dma[j]) + u64::from(loops[i] == loops[j]);
                if w > 0 {
                    p.penalties.push((bi, bj, w));
                }
            }
        }
        Some(SpaceProblem {
            scope: scope.to_string(),
            entries,
            problem: p,
        })
    }

    /// Bytes the reference allocator's placement of `root`'s space uses.
    fn bishengir_bytes(&self, scope: &str, root: SeId) -> u64 {
        let align = self.space_info(scope).map_or(1, |s| s.0);
        let mut bits = 0u64;
        for e in self.space_entries(root) {
            let mut slots = vec![e];
            slots.extend(self.relation_others.get(&e).into_iter().flatten().copied());
            for s in slots {
                let end = self.se[s]
                    .offset
                    .saturating_add(align_up(self.bits(s), align));
                bits = bits.max(end);
            }
        }
        bits.div_ceil(8)
    }

    /// The reference allocator's placement of `sp`'s entries (bytes).
    fn bishengir_solution(&self, sp: &SpaceProblem) -> tilemem_plan::Solution {
        tilemem_plan::Solution {
            offsets: sp.entries.iter().map(|&e| self.se[e].offset / 8).collect(),
        }
    }

    /// Runs the optimal planner over every local space (see the module
    /// docs). Returns the choices and whether every space is placed.
    pub fn plan_optimal(&mut self) -> (Vec<SpaceChoice>, bool) {
        let mut choices = Vec::new();
        let mut all_placed = true;
        for (scope, root) in self.roots.clone() {
            let placed = self.planned.contains(&scope);
            let size = 1 + self.se[root].children.len();
            let limit = if placed {
                MAX_ENTRIES
            } else {
                MAX_RESCUE_ENTRIES
            };
            if size > limit {
                // The pairwise lowering is quadratic in the entries: the
                // reference's placement (or its overflow) stands, and the
                // summary says so.
                all_placed &= placed;
                choices.push(SpaceChoice {
                    scope: scope.clone(),
                    bishengir: placed.then(|| self.bishengir_bytes(&scope, root)),
                    bishengir_penalty: None,
                    optimal: None,
                    optimal_penalty: 0,
                    chosen: false,
                    proven_optimal: false,
                    proven_infeasible: false,
                    too_large: Some(size),
                });
                continue;
            }
            let Some(mut sp) = self.space_problem(&scope, root) else {
                all_placed &= placed;
                continue;
            };
            let bishengir = placed.then(|| self.bishengir_bytes(&scope, root));
            let bishengir_penalty = if placed {
                let sol = self.bishengir_solution(&sp);
                tilemem_plan::validate(&sp.problem, &sol)
                    .ok()
                    .map(|s| s.penalty)
            } else {
                None
            };
            if let (Some(b), Some(cap)) = (bishengir, sp.problem.capacity) {
                sp.problem.capacity = Some(cap.min(b));
            }
            let budget = Budget::default()
                .with_time_limit(Some(TIME_LIMIT))
                .with_node_limit(Some(NODE_LIMIT))
                .with_objective(Objective::PenaltyThenPeak)
                .with_threads(Some(1));
            let out = tilemem_plan::solve(&sp.problem, SolverKind::Exact, &budget).ok();
            let checked = out.as_ref().and_then(|o| {
                let sol = o.solution.clone()?;
                let stats = tilemem_plan::validate(&sp.problem, &sol).ok()?;
                Some((sol, stats))
            });
            let chosen = match (&checked, bishengir, bishengir_penalty) {
                (Some((_, st)), Some(b), Some(bp)) => (st.penalty, st.height) < (bp, b),
                (Some((_, st)), Some(b), None) => st.height < b,
                (Some(_), None, _) => true,
                (None, ..) => false,
            };
            if chosen {
                let (sol, _) = checked.as_ref().expect("chosen only with a placement");
                for (i, &e) in sp.entries.iter().enumerate() {
                    self.se[e].offset = sol.offsets[i] * 8;
                    self.se[e].aligned = sp.problem.buffers[i].size * 8;
                    // The upgrades of a placed space are entries of the
                    // problem, placed with it; those of a failed attempt
                    // are stale.
                    if !placed {
                        self.relation_others.remove(&e);
                    }
                }
                let tag = format!("in {scope} address space");
                self.stdout = self
                    .stdout
                    .lines()
                    .filter(|l| !l.contains(&tag))
                    .map(|l| format!("{l}\n"))
                    .collect();
            }
            all_placed &= placed || chosen;
            choices.push(SpaceChoice {
                scope,
                bishengir,
                bishengir_penalty,
                optimal: checked.as_ref().map(|c| c.1.height),
                optimal_penalty: checked.as_ref().map_or(0, |c| c.1.penalty),
                chosen,
                proven_optimal: out.as_ref().is_some_and(|o| o.proven_optimal),
                proven_infeasible: out.as_ref().is_some_and(|o| o.proven_infeasible),
                too_large: None,
            });
        }
        (choices, all_placed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(a: i64, f: i64) -> BufferLife {
        BufferLife {
            buffer: None,
            alloc: a,
            free: f,
        }
    }

    #[test]
    fn lifetimes_meet_on_a_shared_instant_and_never_killed_lives_at_its_write() {
        assert!(lifes_meet(&[life(0, 3)], &[life(3, 5)]));
        assert!(!lifes_meet(&[life(0, 2)], &[life(3, 5)]));
        assert!(!lifes_meet(&[life(0, 1), life(6, 7)], &[life(2, 5)]));
        // Written at 4, never read: live at 4 only.
        assert!(lifes_meet(&[life(4, -1)], &[life(2, 5)]));
        assert!(!lifes_meet(&[life(6, -1)], &[life(2, 5)]));
    }
}
