//! Minimum height: the smallest capacity a problem fits in, and whether
//! it is proven.
//!
//! A solver answers "does it fit in `C`?" or "how low can you place it?"
//! under a budget; [`minimize`] drives them to the smallest height:
//!
//! 0. **A fit at the bound**: the [`best_bound`] rounded up to the grain
//!    (within the capacity, if any) is asked as a fit question
//!    ([`Goal::Fit`]) with an eighth of the budget. A placement there is
//!    the minimum, proven; a proof that nothing fits raises the floor one
//!    grain above it; a fit left undecided proves nothing and the run goes
//!    on with the rest. The fit search is the one that places the 0-slack
//!    families: on the generated sliced-7 (no capacity) the lowest-placement
//!    search stopped 3 % above the bound in 2,000,000 units of work, while a
//!    fit at the bound places it in about 210,000.
//! 1. **Upper bound**: a solve for the lowest placement (within the
//!    problem's capacity, if it has one; three quarters of the budget) gives
//!    the first height `hi`.
//! 2. **Lower bound**: the [`best_bound`] of the problem, raised by
//!    refuting heights on time windows
//!    ([`refuted_bound_from`]), gives `lo`.
//! 3. **Targets**: while `lo < hi`, a capacity `T` on the
//!    [`grain`](crate::bound::grain()) (every height is a multiple of it)
//!    is solved, for the lowest placement within it. A placement lowers
//!    `hi` to its height; a proof that none fits raises `lo` to `T` plus
//!    one grain; an attempt cut by its budget proves nothing. The first
//!    target is `hi` minus one grain, whose refutation proves `hi`
//!    minimal; once a target is left undecided, the next lie below it,
//!    bisecting down towards `lo` (lower capacities are easier to
//!    refute, and a refutation raises the floor).
//!
//! The budget (time and work) is the whole run's: each step gets a share
//! of what is left. With only a work limit the result is the same on
//! every machine.

use std::time::{Duration, Instant};

use crate::bound::grain::{grain, round_to_grain};
use crate::bound::{best_bound, refuted_bound_from, Bound, Rule};
use crate::problem::{Problem, ProblemError};
use crate::solve::{solve, Budget, Goal, Objective, Outcome, SolverKind};

/// One capacity tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The capacity tried.
    pub target: u64,
    /// What the solve found.
    pub verdict: Verdict,
    /// Units of work it used.
    pub work: u64,
}

/// The answer of one [`Step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A placement this high (at most the target).
    Placed(u64),
    /// Proven: no placement fits the target.
    Refuted,
    /// The step's budget ran out first.
    Undecided,
}

/// Why [`minimize`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The height is proven minimal.
    Proven,
    /// No placement within the capacity was found (see the outcome's
    /// `proven_infeasible`).
    NoPlacement,
    /// The time or work budget (or a stop request) ended the run.
    Budget,
    /// Every target left below the height was tried and left undecided
    /// by the solver within its share (a heuristic solver proves
    /// nothing): a larger budget or a complete solver may do better.
    Undecided,
}

impl Stop {
    /// Why, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Stop::Proven => "the height is proven minimal",
            Stop::NoPlacement => "no placement within the capacity was found",
            Stop::Budget => "the time or work budget was spent (or the run was interrupted)",
            Stop::Undecided => {
                "every capacity left below the height was tried and left undecided; \
                 a larger budget or a complete solver may go lower"
            }
        }
    }
}

/// The result of [`minimize`].
#[derive(Clone, Debug)]
pub struct Minimum {
    /// The lowest placement found, as a solve reports it: `height`, the
    /// `solution`, `lower_bound` (the proven floor `lo`), the total
    /// `work`, `elapsed` and `cut_short` of the whole run, and
    /// `proven_optimal` when the height is proven minimal.
    pub outcome: Outcome,
    /// Where the floor came from.
    pub bound: Bound,
    /// The fit at the best bound tried first (`None` when none was: no
    /// budget, or a capacity below the bound).
    pub early: Option<Step>,
    /// The height of the first placement (the upper bound before targets;
    /// the placement of the fit at the bound when that one placed).
    pub first_height: u64,
    /// Every target tried, in order.
    pub steps: Vec<Step>,
    /// The grain every height is a multiple of.
    pub grain: u64,
    /// Why the run stopped.
    pub stop: Stop,
}

impl Minimum {
    /// The height found is the smallest possible (the floor reached it).
    pub fn proven(&self) -> bool {
        self.outcome.solution.is_some() && self.outcome.lower_bound >= self.outcome.height
    }
}

/// What is left of a budget, split into shares.
struct Left {
    start: Instant,
    time: Option<Duration>,
    nodes: Option<u64>,
    used: u64,
}

impl Left {
    /// A budget of `1/parts` of what is left (`None` when nothing is).
    fn share(&self, budget: &Budget, parts: u32) -> Option<Budget> {
        let time = match self.time {
            Some(t) => {
                let left = t.checked_sub(self.start.elapsed())?;
                if left.is_zero() {
                    return None;
                }
                Some(left / parts)
            }
            None => None,
        };
        let nodes = match self.nodes {
            Some(n) => {
                let left = n.checked_sub(self.used).filter(|&l| l > 0)?;
                Some((left / parts as u64).max(1))
            }
            None => None,
        };
        if budget
            .stop
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        {
            return None;
        }
        Some(budget.with_time_limit(time).with_node_limit(nodes))
    }
}

/// Searches the smallest height `problem` fits in (see the module doc),
/// with solver `kind` for every step, within `budget` in total. A
/// capacity of the problem stays a limit: the result is the smallest
/// height within it. Height comes first: the budget's objective is
/// replaced by [`Objective::PeakThenPenalty`].
pub fn minimize(
    problem: &Problem,
    kind: SolverKind,
    budget: &Budget,
) -> Result<Minimum, ProblemError> {
    problem.check()?;
    let mut left = Left {
        start: Instant::now(),
        time: budget.time_limit,
        nodes: budget.node_limit,
        used: 0,
    };
    let g = grain(problem);
    let mut bound = best_bound(problem);
    let budget = &budget.with_objective(Objective::PeakThenPenalty);
    // 0. A fit at the bound, with an eighth of the budget.
    let at_bound = round_to_grain(bound.value, g);
    let mut early = None;
    let mut floor = bound.value;
    let mut placed_early = None;
    if problem.capacity.is_none_or(|c| at_bound <= c) {
        if let Some(b) = left.share(budget, 8) {
            let mut q = problem.clone();
            q.capacity = Some(at_bound);
            let out = solve(&q, kind, &b.with_goal(Goal::Fit))?;
            left.used += out.work;
            let verdict = match &out.solution {
                Some(_) => Verdict::Placed(out.height),
                None if out.proven_infeasible => Verdict::Refuted,
                None => Verdict::Undecided,
            };
            early = Some(Step {
                target: at_bound,
                verdict,
                work: out.work,
            });
            match verdict {
                Verdict::Placed(_) => placed_early = Some(out),
                Verdict::Refuted => {
                    floor = at_bound + g;
                    bound = search_proof(floor, problem.len());
                }
                Verdict::Undecided => {}
            }
        }
    }
    // 1. The first placement: the solver's own lowest (an anytime search
    // that bisects by itself) within three quarters: on challenging D
    // (10 s) the targets below it gained less than the search itself
    // would have in that time.
    let first_budget = left
        .share(budget, 4)
        .map(|b| b.with_time_limit(b.time_limit.map(|t| t * 3)))
        .map(|b| b.with_node_limit(b.node_limit.map(|n| n.saturating_mul(3))))
        .unwrap_or(budget.with_node_limit(Some(0)))
        .with_goal(Goal::Lowest);
    let mut best = match placed_early {
        // Within the problem's capacity (at most it), at the bound.
        Some(out) => out,
        None => {
            let out = solve(problem, kind, &first_budget)?;
            left.used += out.work;
            out
        }
    };
    let mut steps = Vec::new();
    let first_height = best.height;
    let mut out_of_budget = false;
    let mut lo = floor.max(best.lower_bound);
    // What the first solve proved on its way (a repair window's optimum;
    // it wins a tie with the fit's refutation at the bound, as in
    // `proven_bound`: it names the window that needs the height).
    let tie = |p: &Bound| p.value == lo && bound.rule == Rule::SearchRefuted;
    if let Some(p) = best.proof.clone().filter(|p| p.value > lo || tie(p)) {
        lo = p.value;
        bound = p;
    }
    if best.solution.is_some() {
        // Height first, so a proven optimum is the minimum height.
        if best.proven_optimal && best.height > lo {
            lo = best.height;
            bound = search_proof(best.height, problem.len());
        }
        // 2. Refuted heights on windows, within a quarter of the rest.
        if lo < best.height {
            if let Some(b) = left.share(budget, 4) {
                let r = refuted_bound_from(problem, lo, Some(best.height), &b);
                left.used += r.work;
                if r.bound > lo {
                    lo = r.bound;
                    if let Some(p) = r.proofs.last() {
                        bound = Bound {
                            value: r.bound,
                            rule: Rule::WindowRefuted,
                            window: Some(p.window),
                            buffers: p.buffers,
                            rounded_from: None,
                        };
                    }
                }
            }
        }
        // 3. Targets between the floor and the best height: just below
        // the height first (a placement there lowers it, a refutation
        // proves it minimal), then, below the lowest target left
        // undecided, midway down to the floor (a refutation there raises
        // the floor).
        let mut undecided: Option<u64> = None;
        while lo < best.height {
            // The highest target below the best height, on the grain.
            let top = (best.height - 1) / g * g;
            let target = match undecided {
                Some(u) if u <= top => {
                    let Some(below) = u.checked_sub(g).filter(|&b| b >= lo) else {
                        break;
                    };
                    round_to_grain(lo + (below - lo) / 2, g).min(below)
                }
                _ => top,
            };
            if target < lo {
                break;
            }
            let Some(b) = left.share(budget, 3) else {
                out_of_budget = true;
                break;
            };
            let mut q = problem.clone();
            q.capacity = Some(target);
            let out = solve(&q, kind, &b.with_goal(Goal::Lowest))?;
            left.used += out.work;
            // A window optimum the step's repair proved bounds every
            // placement, whatever the capacity it was asked for.
            if let Some(p) = out.proof.clone().filter(|p| p.value > lo) {
                lo = p.value;
                bound = p;
            }
            let verdict = match &out.solution {
                Some(_) => Verdict::Placed(out.height),
                None if out.proven_infeasible => Verdict::Refuted,
                None => Verdict::Undecided,
            };
            steps.push(Step {
                target,
                verdict,
                work: out.work,
            });
            match verdict {
                Verdict::Placed(_) => best = out,
                Verdict::Refuted if target + g > lo => {
                    lo = target + g;
                    bound = search_proof(lo, problem.len());
                }
                Verdict::Refuted => {}
                Verdict::Undecided => {
                    out_of_budget |= out.cut_short;
                    undecided = Some(undecided.map_or(target, |u| u.min(target)));
                }
            }
        }
    }
    let proven = best.solution.is_some() && lo >= best.height;
    let stop = if proven {
        Stop::Proven
    } else if best.solution.is_none() {
        Stop::NoPlacement
    } else if out_of_budget {
        Stop::Budget
    } else {
        Stop::Undecided
    };
    let cut_short = stop == Stop::Budget;
    best.lower_bound = if best.solution.is_some() {
        lo.min(best.height)
    } else {
        lo
    };
    if best.solution.is_none() && problem.capacity.is_some_and(|c| lo > c) {
        best.proven_infeasible = true;
    }
    // Height first: the minimum height with the least penalty the last
    // solve found; optimal only when no penalty is left to lower.
    best.proven_optimal = proven && best.penalty == 0;
    best.cut_short = cut_short;
    best.work = left.used;
    best.elapsed = left.start.elapsed();
    Ok(Minimum {
        outcome: best,
        bound,
        early,
        first_height,
        steps,
        grain: g,
        stop,
    })
}

/// The bound of a height proven by the exact search on the whole problem.
fn search_proof(value: u64, buffers: usize) -> Bound {
    Bound {
        value,
        rule: Rule::SearchRefuted,
        window: None,
        buffers,
        rounded_from: None,
    }
}
