//! `sequential`: bump allocation in buffer order, no reuse.
//!
//! The PyPTO address policy: `offset = align_up(cursor)`, `cursor = offset +
//! size`, buffers in id order (callers order the problem as their policy
//! wants). Assumes nothing about lifetimes; guarantees no two non-empty
//! buffers share a byte at all. Pinned buffers keep their offsets and the
//! cursor skips them and the reserved ranges.

use std::time::Instant;

use super::geom::{first_fit, sorted_reserved};
use super::{outcome_from, Budget, Outcome, Solver};
use crate::problem::Problem;

/// Bump allocator (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Solver for Sequential {
    fn name(&self) -> &'static str {
        "sequential"
    }

    fn solve(&self, problem: &Problem, _budget: &Budget) -> Outcome {
        let start = Instant::now();
        let offsets = bump(problem);
        let mut out = outcome_from(problem, offsets.clone(), self.name(), start);
        if offsets.is_none() {
            out.proven_infeasible = true;
        }
        out
    }
}

/// Bump allocation in buffer order (see the module doc); `None` when
/// pinned buffers clash with each other or with reserved ranges.
pub(crate) fn bump(problem: &Problem) -> Option<Vec<u64>> {
    {
        let mut taken = sorted_reserved(problem);
        for b in &problem.buffers {
            if let (Some(o), true) = (b.fixed_offset, b.size > 0) {
                taken.push((o, o + b.size));
            }
        }
        taken.sort_unstable();
        let mut cursor = 0u64;
        let mut offsets = Vec::with_capacity(problem.buffers.len());
        for b in &problem.buffers {
            if let Some(o) = b.fixed_offset {
                offsets.push(o);
                continue;
            }
            let o = if b.size == 0 {
                0
            } else {
                first_fit(&taken, cursor, b.size, b.align)
            };
            offsets.push(o);
            if b.size > 0 {
                cursor = o + b.size;
            }
        }
        super::greedy::pinned_are_consistent(problem).then_some(offsets)
    }
}
