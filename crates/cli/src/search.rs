//! The search-budget flags `tilemem solve` and `tilemem bench` share, and
//! their translation into a solver and a [`Budget`].

use std::process::ExitCode;
use std::time::Duration;

use tilemem_plan::{Budget, Goal, SolverKind};

/// Which solver runs and how long it may search. `tilemem bench` words
/// some help texts for its per-problem runs (see its `Args`).
#[derive(clap::Args)]
pub struct SearchFlags {
    /// Solver: auto, portfolio, exact, minimalloc, canonical, handoff,
    /// first-fit, best-fit or sequential.
    #[arg(long, default_value = "auto")]
    pub solver: String,
    /// Time budget of the search, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub time_limit: f64,
    /// Work budget of the search, in search nodes. Unlike the time limit it
    /// stops a search at the same point on every machine, so the result is
    /// reproducible.
    #[arg(long, value_name = "NODES")]
    pub node_limit: Option<u64>,
    /// Stop at the first placement within the capacity instead of
    /// searching for the lowest one.
    #[arg(long)]
    pub fit: bool,
    /// Threads the portfolio may use (default: all cores). With
    /// --node-limit the result is the same for any number.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

impl SearchFlags {
    /// `--time-limit` as a duration (`None` when it is not a non-negative
    /// number; one too long for a `Duration` is cut to a century).
    pub fn time_limit(&self) -> Option<Duration> {
        tilemem_plan::time_limit_from_secs(self.time_limit)
    }

    /// The solver and the budget (time, nodes, goal) the flags ask for. A
    /// bad value is reported on stderr and gives exit code 2.
    pub fn solver_and_budget(&self) -> Result<(SolverKind, Budget), ExitCode> {
        let kind: SolverKind = match self.solver.parse() {
            Ok(k) => k,
            Err(e) => {
                eprintln!("error: {e}");
                return Err(ExitCode::from(2));
            }
        };
        let Some(limit) = self.time_limit() else {
            eprintln!("error: --time-limit must be a non-negative number of seconds");
            return Err(ExitCode::from(2));
        };
        let budget = Budget::default()
            .with_time_limit(Some(limit))
            .with_node_limit(self.node_limit)
            .with_threads(self.threads.map(|t| t.max(1)))
            .with_goal(if self.fit { Goal::Fit } else { Goal::Lowest });
        Ok((kind, budget))
    }
}
