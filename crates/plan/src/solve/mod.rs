//! Solvers: every one turns a [`Problem`] into an [`Outcome`] behind the
//! [`Solver`] trait; [`solve`] picks one by [`SolverKind`].
//!
//! Guarantees shared by all solvers:
//! - a returned solution respects every hard rule of the problem (lifetimes,
//!   conflict pairs, alignment, pinned offsets, reserved ranges and, when the
//!   problem has one, the capacity);
//! - the output depends only on the problem and the [`Budget`] (seeded, no
//!   wall-clock dependent choices except where the time limit cuts a search
//!   short, which the outcome then reports as not proven);
//! - `height >= lower_bound` always.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::bound::lower_bound;
use crate::problem::{Problem, ProblemError, Solution, MAX_BYTES};

mod auto;
mod canonical;
mod exact;
mod geom;
mod greedy;
pub mod handoff;
mod huge;
mod meter;
mod mm;
pub mod mt;
mod occupancy;
mod pairs;
mod portfolio;
mod sequential;
mod skyline;
mod sweep;
mod trace;

pub use auto::Auto;
pub use canonical::Canonical;
pub use exact::Exact;
pub(crate) use geom::first_fit;
pub use greedy::{BestFit, FirstFit};
pub use handoff::Handoff;
pub use meter::Clock;
pub(crate) use meter::Meter;
pub use portfolio::{MiniMalloc, Portfolio};
pub use sequential::Sequential;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

/// Which solver to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolverKind {
    /// Bump allocation in buffer order, no reuse (the PyPTO address policy).
    Sequential,
    /// Size-descending, lowest fitting offset.
    FirstFit,
    /// Size-descending, smallest fitting gap (XLA/TFLite style).
    BestFit,
    /// Penalty-aware canonical greedy over several orders (the DSA_RP
    /// placement heuristic).
    Canonical,
    /// Size-descending greedy in which a penalty pair costs only at a
    /// handoff (the buffer taken over from, the one taking over). Not
    /// PyPTO's planner: `Canonical` with `Objective::PenaltyThenPeak`
    /// replays that.
    Handoff,
    /// Complete branch-and-bound search; anytime.
    Exact,
    /// A search faithful to MiniMalloc's algorithm (same branching order,
    /// inference and pruning), from the greedy incumbent.
    MiniMalloc,
    /// Greedy, the exact search and the MiniMalloc search side by side on
    /// all cores; the first to prove the goal wins.
    Portfolio,
    /// Greedy first, the portfolio only when greedy misses the capacity or
    /// the lower bound.
    Auto,
}

impl SolverKind {
    /// Every kind, in the order they are listed to users.
    pub const ALL: [SolverKind; 9] = [
        SolverKind::Auto,
        SolverKind::Portfolio,
        SolverKind::Exact,
        SolverKind::MiniMalloc,
        SolverKind::Canonical,
        SolverKind::Handoff,
        SolverKind::FirstFit,
        SolverKind::BestFit,
        SolverKind::Sequential,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Sequential => "sequential",
            SolverKind::FirstFit => "first-fit",
            SolverKind::BestFit => "best-fit",
            SolverKind::Canonical => "canonical",
            SolverKind::Handoff => "handoff",
            SolverKind::Exact => "exact",
            SolverKind::MiniMalloc => "minimalloc",
            SolverKind::Portfolio => "portfolio",
            SolverKind::Auto => "auto",
        }
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SolverKind {
    type Err = String;
    fn from_str(s: &str) -> Result<SolverKind, String> {
        if s == RETIRED_DSA_RP {
            return Err(format!(
                "solver `{s}` is retired: it no longer replays PyPTO's DSA_RP planner. \
                 To replay a problem exported by `tilemem plan --planner dsa-rp`, use \
                 `--solver canonical --penalty-first`; its handoff greedy is now \
                 `--solver handoff`"
            ));
        }
        SolverKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = SolverKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown solver `{s}`; expected one of {}", names.join(", "))
            })
    }
}

/// The old name of the handoff greedy, refused with a pointer to what to
/// use instead.
const RETIRED_DSA_RP: &str = "dsa-rp";

/// What "best" means when a problem has penalty pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Lowest height first, then least penalty.
    #[default]
    PeakThenPenalty,
    /// Least penalty first, then lowest height.
    PenaltyThenPeak,
}

/// When the exact search may stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Goal {
    /// Search for the best placement until proven or out of time.
    #[default]
    Lowest,
    /// Stop at the first placement within the capacity (the MiniMalloc
    /// question "does it fit?"). Without a capacity this is `Lowest`.
    Fit,
}

/// Limits and preferences for a solve. Build with [`Budget::default`] and the
/// `with_*` methods (fields may be added).
///
/// The limits hold for every solver and every step of it (greedy passes,
/// searches, window repair, the handoff greedy): a solve returns within the
/// time limit plus a small fraction, with the best placement completed so
/// far, and [`Outcome::cut_short`] says when the budget ended it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Budget {
    /// Wall-clock limit of the whole solve. `None`: no limit. Default: 10
    /// seconds.
    pub time_limit: Option<Duration>,
    /// Ordering of height and penalty. Default: height first.
    pub objective: Objective,
    /// Stop condition of the exact search. Default: [`Goal::Lowest`].
    pub goal: Goal,
    /// Seed for shuffled orders. Default: 0.
    pub seed: u64,
    /// Work limit of the whole solve, in units of work: a search node, a
    /// buffer placed by a greedy pass, or 64 obstacles examined. Unlike
    /// the time limit it cuts every solver at the same point on every
    /// machine and with any number of threads, so the placement is
    /// reproducible. `None`: no limit. Default: none.
    pub node_limit: Option<u64>,
    /// Threads a portfolio may use (`None`: all cores). With a node limit
    /// the result does not depend on it. Default: none.
    pub threads: Option<usize>,
    /// The clock the time limit is measured with (`None`: the real one).
    /// Tests inject a clock to spend time without waiting.
    pub clock: Option<Clock>,
    /// A stop request (`None`: none): once the flag is set, the budget
    /// counts as spent at the next check of the clock, and the solve
    /// returns the best placement completed by then, cut short. Set from a
    /// signal handler (`SIGINT`) or another thread.
    pub stop: Option<&'static AtomicBool>,
    /// The co-live bound ([`lower_bound`]) of the problem solved, when the
    /// caller computes it anyway (`None`: solvers compute it themselves).
    /// A solver that needs the bound waits until the cell is set instead
    /// of computing it again (at a million buffers, a second of CPU on a
    /// loaded machine, taken from the core the solve shares with the
    /// caller's bound): the caller must set it, and to this problem's
    /// bound (a smaller value is still a valid, weaker bound).
    pub co_live: Option<&'static OnceLock<u64>>,
}

impl PartialEq for Budget {
    fn eq(&self, other: &Budget) -> bool {
        // The clock is a means of measuring, not part of the request.
        (
            self.time_limit,
            self.objective,
            self.goal,
            self.seed,
            self.node_limit,
            self.threads,
        ) == (
            other.time_limit,
            other.objective,
            other.goal,
            other.seed,
            other.node_limit,
            other.threads,
        )
    }
}

impl Eq for Budget {}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            time_limit: Some(Duration::from_secs(10)),
            objective: Objective::default(),
            goal: Goal::default(),
            seed: 0,
            node_limit: None,
            threads: None,
            clock: None,
            stop: None,
            co_live: None,
        }
    }
}

/// The longest time limit a budget keeps: a century. A longer one (up to
/// `Duration::MAX`) is cut to it: no search runs that long, and the clock
/// arithmetic of the deadline stays within range.
pub const LONGEST_TIME_LIMIT: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The time limit of `secs` seconds, as a command-line flag gives it:
/// `None` unless it is a non-negative number; a limit past
/// [`LONGEST_TIME_LIMIT`] (say `1e20`, which no `Duration` holds) is cut to
/// it instead of failing.
pub fn time_limit_from_secs(secs: f64) -> Option<Duration> {
    if !(secs.is_finite() && secs >= 0.0) {
        return None;
    }
    Some(
        Duration::try_from_secs_f64(secs).map_or(LONGEST_TIME_LIMIT, |d| d.min(LONGEST_TIME_LIMIT)),
    )
}

impl Budget {
    /// Sets the time limit (`None`: unlimited); one past
    /// [`LONGEST_TIME_LIMIT`] is cut to it.
    pub fn with_time_limit(mut self, limit: Option<Duration>) -> Budget {
        self.time_limit = limit.map(|l| l.min(LONGEST_TIME_LIMIT));
        self
    }
    /// Sets the objective.
    pub fn with_objective(mut self, objective: Objective) -> Budget {
        self.objective = objective;
        self
    }
    /// Sets the goal.
    pub fn with_goal(mut self, goal: Goal) -> Budget {
        self.goal = goal;
        self
    }
    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Budget {
        self.seed = seed;
        self
    }
    /// Sets the work limit in units of work (`None`: unlimited).
    pub fn with_node_limit(mut self, limit: Option<u64>) -> Budget {
        self.node_limit = limit;
        self
    }
    /// Sets the number of threads a portfolio may use (`None`: all cores).
    pub fn with_threads(mut self, threads: Option<usize>) -> Budget {
        self.threads = threads;
        self
    }
    /// Measures the time limit with `clock` instead of the real clock.
    pub fn with_clock(mut self, clock: Clock) -> Budget {
        self.clock = Some(clock);
        self
    }
    /// Takes the problem's co-live bound from `cell`, which the caller
    /// sets (see [`Budget::co_live`]).
    pub fn with_co_live(mut self, cell: &'static OnceLock<u64>) -> Budget {
        self.co_live = Some(cell);
        self
    }
    /// Ends the solve early, as a spent budget does, once `flag` is set.
    pub fn with_stop(mut self, flag: &'static AtomicBool) -> Budget {
        self.stop = Some(flag);
        self
    }
}

/// The result of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// A placement respecting every hard rule (capacity included), if found.
    pub solution: Option<Solution>,
    /// Height of `solution`; when there is none, the height of the best
    /// placement found that breaks only the capacity (0 if none).
    pub height: u64,
    /// [`lower_bound`] of the problem.
    pub lower_bound: u64,
    /// Summed penalty weight of `solution` (0 without one).
    pub penalty: u64,
    /// No placement is better under the objective.
    pub proven_optimal: bool,
    /// No placement within the capacity exists.
    pub proven_infeasible: bool,
    /// The solver that produced the placement (for `auto`: `auto/<inner>`;
    /// for `portfolio`: `portfolio/<winning member>`).
    pub solver: &'static str,
    /// The time or work budget ran out before the solver finished, or what
    /// was left of the time could not hold the solver's next step (then
    /// [`Outcome::gave_up`] says so): the placement is the best one
    /// completed by then.
    pub cut_short: bool,
    /// Units of work the solve used (see [`Budget::node_limit`]): unlike
    /// `elapsed`, the same on every machine and under any load.
    pub work: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// Why the solver ended before its budget without a proof, when a rule
    /// of its own ended it (such as the repair's stall rule); `None`
    /// otherwise.
    pub stopped_by: Option<&'static str>,
    /// Why the solver ended before its time limit because the time left
    /// could not hold its next step, with the figures measured in the run
    /// (such as a first-fit pass at a million buffers: see
    /// `greedy::place_stacked_or_complete`); `None` otherwise. The clock
    /// did not reach the limit then, but a longer limit may lower the
    /// result.
    pub gave_up: Option<String>,
    /// A lower bound above `lower_bound` the solve proved on its way, and
    /// where (the highest window optimum the peak-window repair proved);
    /// `None` when it proved none. See
    /// [`proven_bound`](crate::bound::proven_bound) for the best bound an
    /// outcome supports.
    pub proof: Option<crate::bound::Bound>,
}

impl Outcome {
    /// Gap of `height` over the lower bound, in percent (0 when both are 0).
    pub fn gap_percent(&self) -> f64 {
        if self.lower_bound == 0 {
            if self.height == 0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (self.height as f64 - self.lower_bound as f64) * 100.0 / self.lower_bound as f64
        }
    }
}

/// A placement algorithm.
pub trait Solver {
    /// Name used in reports.
    fn name(&self) -> &'static str;
    /// Solves a well-formed problem (see [`Problem::check`]).
    fn solve(&self, problem: &Problem, budget: &Budget) -> Outcome;
}

/// The solver of a kind.
pub fn solver(kind: SolverKind) -> Box<dyn Solver> {
    match kind {
        SolverKind::Sequential => Box::new(Sequential),
        SolverKind::FirstFit => Box::new(FirstFit),
        SolverKind::BestFit => Box::new(BestFit),
        SolverKind::Canonical => Box::new(Canonical),
        SolverKind::Handoff => Box::new(Handoff),
        SolverKind::Exact => Box::new(Exact),
        SolverKind::MiniMalloc => Box::new(MiniMalloc),
        SolverKind::Portfolio => Box::new(Portfolio),
        SolverKind::Auto => Box::new(Auto),
    }
}

/// The co-live bound of `problem`: the one the budget's caller computes
/// ([`Budget::co_live`]), else computed here.
pub(crate) fn co_live_of(problem: &Problem, budget: &Budget) -> u64 {
    budget
        .co_live
        .map_or_else(|| lower_bound(problem), |cell| *cell.wait())
}

/// Checks the problem, then runs the solver of `kind` on it.
///
/// Every byte of a returned placement lies below [`MAX_BYTES`] (2^60), the
/// largest number the problem files hold, so a placement can always be
/// written and read back: a problem whose buffers could be stacked past
/// it is solved with that as its capacity.
pub fn solve(
    problem: &Problem,
    kind: SolverKind,
    budget: &Budget,
) -> Result<Outcome, ProblemError> {
    problem.check()?;
    if may_pass_max_bytes(problem) {
        let mut capped = problem.clone();
        capped.capacity = Some(problem.capacity.map_or(MAX_BYTES, |c| c.min(MAX_BYTES)));
        let mut out = solver(kind).solve(&capped, budget);
        out.lower_bound = co_live_of(problem, budget);
        return Ok(out);
    }
    Ok(solver(kind).solve(problem, budget))
}

/// True when some placement a solver may build could end above
/// [`MAX_BYTES`]: the capacity (if any) is above it and a stack of every
/// buffer with its worst alignment padding, above every pinned buffer and
/// reserved range, could reach it.
fn may_pass_max_bytes(problem: &Problem) -> bool {
    if problem.capacity.is_some_and(|c| c <= MAX_BYTES) {
        return false;
    }
    let floor = problem
        .reserved
        .iter()
        .map(|&(_, e)| e as u128)
        .chain(
            problem
                .buffers
                .iter()
                .filter_map(|b| b.fixed_offset.map(|o| o as u128 + b.size as u128)),
        )
        .max()
        .unwrap_or(0);
    let stack: u128 = problem
        .buffers
        .iter()
        .map(|b| b.size as u128 + b.align as u128)
        .sum();
    floor + stack > MAX_BYTES as u128
}

/// The exact search under `budget`, and the units of work it used: for
/// bounds that spend one work limit over many searches
/// ([`refuted_bound`](crate::bound::refuted_bound)).
pub(crate) fn exact_counted(problem: &Problem, budget: &Budget) -> (Outcome, u64) {
    let meter = Meter::new(budget);
    let mut out = exact::exact_run(problem, budget, &meter, "exact");
    out.cut_short = meter.spent();
    out.work = meter.used();
    (out, meter.used())
}

/// A placement of last resort, for a budget spent before any pass
/// completed: bump allocation in buffer order (linear work, every buffer
/// apart from every other). `None` when pinned buffers clash.
pub(crate) fn fallback(problem: &Problem) -> Option<Vec<u64>> {
    sequential::bump(problem)
}

/// Builds an outcome from a placement that respects every hard rule except
/// possibly the capacity.
pub(crate) fn outcome_from(
    problem: &Problem,
    offsets: Option<Vec<u64>>,
    solver: &'static str,
    start: Instant,
) -> Outcome {
    outcome_with_bound(problem, offsets, solver, start, lower_bound(problem))
}

/// [`outcome_from`] with the problem's [`lower_bound`] `lb` already known.
pub(crate) fn outcome_with_bound(
    problem: &Problem,
    offsets: Option<Vec<u64>>,
    solver: &'static str,
    start: Instant,
    lb: u64,
) -> Outcome {
    let mut out = Outcome {
        solution: None,
        height: 0,
        lower_bound: lb,
        penalty: 0,
        proven_optimal: false,
        proven_infeasible: false,
        solver,
        cut_short: false,
        work: 0,
        elapsed: Duration::ZERO,
        stopped_by: None,
        gave_up: None,
        proof: None,
    };
    if let Some(offsets) = offsets {
        let sol = Solution { offsets };
        out.height = sol.height(problem);
        if problem.capacity.is_none_or(|c| out.height <= c) {
            out.penalty = geom::penalty_of(problem, &sol.offsets);
            out.proven_optimal = out.height == lb && out.penalty == 0;
            out.solution = Some(sol);
        }
    }
    if problem.capacity.is_some_and(|c| lb > c) {
        out.proven_infeasible = true;
        out.solution = None;
    }
    out.elapsed = start.elapsed();
    out
}
