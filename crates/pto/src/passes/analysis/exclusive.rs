//! Branch exclusivity: when two allocation roots whose lifetime hulls
//! overlap are still never live at the same time, because one lives only
//! on a path through one branch of an `if` while the other is not live on
//! that path (seed 000: "tiles of different if branches can share"; the
//! hulls of [`super::roots`] do not see it, as an `if` result's reads are
//! charged to the value of each branch).
//!
//! A root's *occupancy* is the union, in program order, of the spans in
//! which some value it holds is live:
//! - a member (an assignment-defined tile whose MemRef names the root):
//!   from its definition to its last (loop-extended) read;
//! - a value without a definition of its own, charged to its own root and
//!   to the roots of every value it carries (`carried_from`, followed
//!   through phis of phis): a loop iter arg over its whole loop (the next
//!   iteration reads it again), a loop result and an `if` result from where
//!   their statement ends (an `if` result before the join sits in the bytes
//!   of the value the taken branch yields, which are members with spans of
//!   their own) to their last read, a parameter or free variable from the
//!   start.
//!
//! Occupancy may have gaps: a root that holds the then-branch value and
//! the phi is not occupied during the else branch. Two roots whose
//! occupancies are disjoint may share bytes although their hulls overlap:
//! during such a gap only the other branch runs, and on that path the
//! gapped root holds nothing yet. Program-order disjointness is enough
//! inside loops too, as any value live across an iteration covers its
//! whole loop.
//!
//! Read-only and deterministic.

use super::facts::Facts;
use super::order::{is_assigned, Lifetime, ProgramOrder};
use super::roots::{AllocationLifetimes, RootId};
use crate::ir::{EntityRef, Function, StmtKind, VarDef};

/// The occupancy of one root: sorted, merged half-open intervals in the
/// DSA_RP model's time scale ([`Lifetime::half_open`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy(Vec<(u64, u64)>);

impl Occupancy {
    /// The occupancy made of `spans` (closed program-order spans).
    fn of_spans(mut spans: Vec<(u64, u64)>) -> Occupancy {
        spans.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (lo, hi) in spans {
            match merged.last_mut() {
                Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        Occupancy(merged)
    }

    /// Whether the occupancy has a gap (more than one interval); two roots
    /// without gaps are disjoint exactly when their hulls are.
    pub fn has_gap(&self) -> bool {
        self.0.len() > 1
    }

    /// The half-open hull of the occupancy (`None` when empty).
    pub fn hull(&self) -> Option<(u64, u64)> {
        Some((self.0.first()?.0, self.0.last()?.1))
    }

    /// Whether the two occupancies share no instant.
    pub fn disjoint(&self, other: &Occupancy) -> bool {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].0 < b[j].1 && b[j].0 < a[i].1 {
                return false;
            }
            if a[i].1 <= b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        true
    }
}

/// The occupancy of every root of `lt`, indexed by [`RootId`].
pub fn occupancies(
    f: &Function,
    lt: &AllocationLifetimes,
    facts: &Facts,
    order: &ProgramOrder,
) -> Vec<Occupancy> {
    let mut spans: Vec<Vec<(u64, u64)>> = vec![Vec::new(); lt.roots.len()];
    let mut push = |r: RootId, def: u32, last: u32| {
        let l = Lifetime {
            def: def.min(last),
            last: def.max(last),
        };
        spans[r.index()].push(l.half_open());
    };
    for v in f.vars.keys() {
        let fx = facts.var(v);
        if is_assigned(f, v).is_some() {
            if let (Some(r), Some(d)) = (lt.root_of(v), fx.def) {
                push(r, d, fx.last().unwrap_or(d));
            }
            continue;
        }
        let last = fx.last_read;
        let (from, to) = match f.vars[v].def {
            VarDef::IterArg(s) => (order.index[s], order.end[s].max(last.unwrap_or(0))),
            VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) => {
                let at = order.end[s];
                (at, last.unwrap_or(at).max(at))
            }
            VarDef::Param(_) | VarDef::Free => match last {
                Some(l) => (0, l),
                None => continue,
            },
            _ => continue,
        };
        for r in lt.carrying_roots(f, v) {
            push(r, from, to);
        }
    }
    spans.into_iter().map(Occupancy::of_spans).collect()
}
