//! Branch exclusivity: when two allocation roots whose lifetime hulls
//! overlap are still never live at the same time, because one lives only
//! on a path through one branch of an `if` while the other is not live on
//! that path (seed 000: "tiles of different if branches can share";
//! MemoryReuse gets this from its phi families, the DSA_RP model's hulls do
//! not see it).
//!
//! A root's *occupancy* is the union of its members' lifetimes, where an
//! `if` result counts from the join of its `if` (before the join the value
//! sits in the bytes of the value the taken branch yields, which are
//! members with their own lifetimes). Occupancy may have gaps: a root that
//! holds the then-branch value and the phi is not occupied during the else
//! branch. Two roots whose occupancies are disjoint may share bytes
//! although their hulls overlap: during such a gap only the other branch
//! runs, and on that path the gapped root holds nothing yet.
//!
//! Loop-carried and loop-extended values need no special case: their
//! lifetimes already cover the whole loop, so they fill every gap.
//!
//! Read-only and deterministic.

use super::facts::Facts;
use super::order::Lifetime;
use crate::ir::VarId;

/// The occupancy of one root: sorted, merged half-open intervals in the
/// DSA_RP model's time scale ([`Lifetime::half_open`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy(Vec<(u64, u64)>);

impl Occupancy {
    /// The occupancy of a root with these members.
    pub fn of(facts: &Facts, members: &[VarId]) -> Occupancy {
        let mut spans: Vec<(u64, u64)> = members
            .iter()
            .filter_map(|&v| {
                let fx = facts.var(v);
                let from = fx.join.or(fx.def);
                let (d, l) = match (from, fx.last()) {
                    (Some(d), Some(l)) => (d.min(l), d.max(l)),
                    (Some(x), None) | (None, Some(x)) => (x, x),
                    (None, None) => return None,
                };
                Some(Lifetime { def: d, last: l }.half_open())
            })
            .collect();
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
