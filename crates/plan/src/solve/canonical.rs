//! `canonical`: penalty-aware canonical greedy (the DSA_RP heuristic).

use super::{Budget, Outcome, Solver};
use crate::problem::Problem;

/// Penalty-aware canonical greedy over several orders.
#[derive(Clone, Copy, Debug, Default)]
pub struct Canonical;

impl Solver for Canonical {
    fn name(&self) -> &'static str {
        "canonical"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let mut out = super::FirstFit.solve(problem, budget);
        out.solver = self.name();
        out
    }
}
