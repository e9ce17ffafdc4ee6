//! The planner-neutral storage model of one function: what every planner
//! places and every rule that keeps two allocations apart, built once.
//!
//! - **roots and members** ([`super::roots`]): the allocations, the tiles
//!   living in each, and each root's half-open lifetime
//!   ([`Lifetime::half_open`] of the union of its members');
//! - **hard separations** ([`super::constraints`]): no-alias (tuples
//!   included), the split-AIV load + tpop hazard with provenance, written
//!   workspaces, A2/A3 operand pairs, declared allocations, each with its
//!   reason and the statement it is about;
//! - **pipeline stages**: the stage copies of each group and its requested
//!   depth (separations whose strength depends on the depth a planner can
//!   afford);
//! - **branch exclusivity** ([`super::exclusive`]): pairs whose hulls
//!   overlap but which are never live together.
//!
//! MemoryReuse packs on it; the DSA_RP model takes its roots, lifetimes
//! and separations and adds only its penalties; the optimal planner solves
//! the same problem; `explain` lists the separations. `verify` does not
//! use it: it rebuilds the rules from the planned program on its own.
//!
//! Assumes InitMemRef ran. Read-only and deterministic.

use tilemem_soc::{MemSpace, Soc};

use super::constraints::{self, AllocationConstraints, Separation};
use super::exclusive::{self, Occupancy};
use super::facts::Facts;
use super::order::{Lifetime, ProgramOrder};
use super::roots::{self, AllocationLifetimes, RootId};
use crate::ir::{EntityRef, Function};
use crate::passes::context::{PassError, SeedRules};

/// The model of one function.
pub struct Model {
    /// Roots, members and lifetimes.
    pub lt: AllocationLifetimes,
    /// Hard separations, isolated roots, stage tags and the written-
    /// workspace rule.
    pub cons: AllocationConstraints,
}

impl Model {
    /// Builds the model of `f` for `soc` under `rules`. Fails when two
    /// tiles bound to one slot of a declared allocation are live together
    /// (no planner can place that).
    pub fn build(f: &Function, soc: &Soc, rules: SeedRules) -> Result<Model, PassError> {
        let lt = roots::analyze(f);
        constraints::check_declared_slots(f, &lt)?;
        let cons = constraints::collect(f, &lt, soc, rules);
        Ok(Model { lt, cons })
    }

    /// The roots of `space` some variable refers to, in root order: what a
    /// planner places there.
    pub fn placed_roots(&self, space: MemSpace) -> Vec<RootId> {
        let mut out = self.lt.roots_in(space);
        out.retain(|&r| self.lt.roots[r].referenced);
        out
    }

    /// The half-open lifetime of root `r`: the hull of its members'
    /// lifetimes and of its occupancy `occ` (`[1, 2)` for a root without
    /// either: referenced only by values never read).
    pub fn half_open(&self, r: RootId, occ: &Occupancy) -> (u64, u64) {
        let (lo, hi) = self.lt.roots[r]
            .lifetime()
            .unwrap_or(Lifetime { def: 0, last: 0 })
            .half_open();
        match (self.lt.roots[r].lifetime(), occ.hull()) {
            (Some(_), Some((a, b))) => (lo.min(a), hi.max(b)),
            (None, Some(h)) => h,
            _ => (lo, hi),
        }
    }

    /// Every hard separation between roots of the function, one per pair
    /// (the first reason in reason order), `a < b`.
    pub fn separations(&self) -> Vec<Separation> {
        self.cons.all_separations(&self.lt)
    }

    /// The occupancy of every root (by [`RootId`] index), for branch
    /// exclusivity.
    pub fn occupancies(&self, f: &Function, facts: &Facts, order: &ProgramOrder) -> Vec<Occupancy> {
        exclusive::occupancies(f, &self.lt, facts, order)
    }

    /// Whether roots `a` and `b`, whose hulls overlap, may still share
    /// bytes: neither is declared, neither is a written workspace of a
    /// value defined after the other root's first tile, they share no
    /// pipeline group, one of them has a gap and their occupancies are
    /// disjoint. (A hard separation between them still wins.)
    pub fn exclusive(&self, occ: &[Occupancy], a: RootId, b: RootId) -> bool {
        let (ra, rb) = (&self.lt.roots[a], &self.lt.roots[b]);
        if ra.pinned || rb.pinned {
            return false;
        }
        // A workspace may not take the bytes of any tile defined before
        // it, live or not (seed 000's written-workspace rule: a read of
        // that tile may still be in flight). The rule's own test only
        // sees roots that died before the workspace, leaving the rest to
        // the lifetime overlap that exclusivity lifts.
        let defined_before = |w: RootId, o: RootId| {
            self.cons
                .workspace_def
                .get(&w)
                .is_some_and(|&d| self.lt.roots[o].lifetime().is_none_or(|l| l.def < d))
        };
        if defined_before(a, b) || defined_before(b, a) {
            return false;
        }
        let grouped = match (self.cons.stages.get(&a), self.cons.stages.get(&b)) {
            (Some(x), Some(y)) => x.iter().any(|p| y.iter().any(|q| p.0 == q.0)),
            _ => false,
        };
        !grouped && self.never_live_together(occ, a, b)
    }

    /// Whether roots `a` and `b` hold nothing still needed at the same
    /// instant although their hulls may overlap: one of them has a gap and
    /// their occupancies are disjoint (the lifetime part of
    /// [`exclusive`](Self::exclusive), without the rules that keep such
    /// roots apart all the same).
    pub fn never_live_together(&self, occ: &[Occupancy], a: RootId, b: RootId) -> bool {
        let (oa, ob) = (&occ[a.index()], &occ[b.index()]);
        (oa.has_gap() || ob.has_gap()) && oa.disjoint(ob)
    }
}
