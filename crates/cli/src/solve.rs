//! `tilemem solve`: place the buffers of a problem file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

use tilemem_plan::bound::{best_from_co_live, proven_bound, proven_from, Bound, Rule};
use tilemem_plan::minimize::{minimize, Minimum, Verdict};
use tilemem_plan::{map, solve, validate, Objective, Outcome, Problem};

use std::fmt::Write as _;

use crate::output::{self, interrupt, Outputs};
use crate::plan::MapFormat;
use crate::problem_file;
use crate::search::SearchFlags;

/// Flags of `tilemem solve`.
#[derive(clap::Args)]
#[command(
    after_help = concat!(
        "The first Ctrl-C (SIGINT) stops the search: the best placement found by then is \
validated and written (all outputs or none) and the exit code is 130; without a placement \
nothing is written. A second Ctrl-C ends at once.\n\n",
        exit_table!()
    )
)]
pub struct Args {
    /// Problem file (MiniMalloc CSV: `id,lower,upper,size[,alignment]...`).
    pub file: PathBuf,
    /// Capacity in bytes: 16384, 16K, 16KiB, 0x4000 (overrides a
    /// `# capacity=` line of the file).
    #[arg(long, value_name = "BYTES", value_parser = crate::flags::byte_size)]
    pub capacity: Option<u64>,
    /// Solver and search budget.
    #[command(flatten)]
    pub search: SearchFlags,
    /// With penalty pairs: least penalty first, then lowest height.
    #[arg(long)]
    pub penalty_first: bool,
    /// Seed of the shuffled orders.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the solution here (the input columns plus `offset`).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Draw the placement into this file: FILE.html (interactive: hover,
    /// zoom, search) or FILE.svg (static), or a text map on stdout with `-`.
    #[arg(long, value_name = "FILE.html|FILE.svg|-")]
    pub map: Option<PathBuf>,
    /// After the solve, try to raise the lower bound by refuting heights
    /// with the exact search on time windows around the most crowded
    /// instants (and on the whole problem), within this many search nodes
    /// in total, and within what the solve left of --time-limit. When
    /// the search places the whole problem at the bound, that placement
    /// is the result (the gap was the placement's, not the bound's).
    /// Exponential in the worst case, hence opt-in.
    #[arg(long, value_name = "NODES")]
    pub prove_bound: Option<u64>,
    /// Print on standard error the time of each phase, wall and CPU (of
    /// all threads): reading the file, solving (with --minimize, the
    /// bounds and --prove-bound), validating the placement and writing
    /// the outputs.
    #[arg(long)]
    pub timings: bool,
    /// Search the smallest height that fits (within the capacity, if
    /// any): a fit at the best lower bound (an eighth of the budget; a
    /// placement there ends the run, proven), a first placement, then
    /// capacities between them solved one by one, bisecting, until the height is
    /// proven minimal or the time and work budgets (for the whole run)
    /// are spent. Writes the lowest placement found.
    #[arg(long, conflicts_with = "penalty_first")]
    pub minimize: bool,
}

/// Runs the subcommand.
///
/// Exit codes ([`crate::exit`]): 0 placed, 1 no placement within the
/// capacity, 2 bad input or an output that cannot be written, 3 an
/// internal error (the validator rejected a solver's placement), 130
/// interrupted. The first `SIGINT` stops the search through the budget:
/// the best placement found by then is validated, written (all outputs or
/// none) and reported as interrupted, with exit code 130; without one,
/// nothing is written. A second `SIGINT` ends at once, writing nothing.
pub fn run(args: Args) -> ExitCode {
    let map_format = match args.map.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(p) => match MapFormat::of(p) {
            Ok(f) => Some(f),
            Err(msg) => {
                eprintln!("error: {msg}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    if let Err(msg) = output::distinct(&[
        ("-o", args.output.as_deref()),
        (
            "--map",
            args.map.as_deref().filter(|p| p.as_os_str() != "-"),
        ),
    ]) {
        eprintln!("error: {msg}");
        return ExitCode::from(2);
    }
    let (kind, budget) = match args.search.solver_and_budget() {
        Ok(kb) => kb,
        Err(code) => return code,
    };
    let mut phases = Phases::new(args.timings);
    let file = match problem_file::read(&args.file, args.capacity) {
        Ok(f) => f,
        Err(code) => return code,
    };
    phases.end("read");
    let problem = &file.problem;
    let budget = budget
        .with_objective(if args.penalty_first {
            Objective::PenaltyThenPeak
        } else {
            Objective::PeakThenPenalty
        })
        .with_seed(args.seed)
        .with_stop(interrupt::stop_flag())
        .with_co_live(&CO_LIVE);
    // The best bound (a sweep over every instant, about a second at a
    // million buffers) and the co-live bound the bound's line shows (the
    // best bound starts from it) are computed beside the solve, not after
    // it, so a run under a time limit ends near the limit. The co-live
    // bound is handed to the solver as soon as it is known (the solver
    // waits for it rather than computing it again). The minimum search
    // computes its own best bound.
    let both = || {
        let co_live = publish_co_live(problem);
        if args.minimize {
            (None, co_live)
        } else {
            (Some(best_from_co_live(problem, co_live)), co_live)
        }
    };
    let (solved, bound, co_live) = std::thread::scope(|s| {
        let bound = s.spawn(both);
        let solved = if args.minimize {
            minimize(problem, kind, &budget).map(|m| (m.outcome.clone(), Some(m)))
        } else {
            solve(problem, kind, &budget).map(|o| (o, None))
        };
        // A panic in the bound is a bug; recompute rather than propagate.
        let (bound, co_live) = bound.join().unwrap_or_else(|_| both());
        (solved, bound, co_live)
    });
    let (mut out, minimum) = match solved {
        Ok(o) => o,
        Err(e) => {
            let e = file.locate(&args.file.display().to_string(), &e);
            eprintln!("{}: error: {}", e.location(), e.message);
            return ExitCode::from(2);
        }
    };
    // The best bound and its source: the minimum search's own, else the
    // rules of `best_bound` and what the solve proved (a repair window, the
    // search's optimum), then refuted heights if asked for.
    let mut source = match (&minimum, bound) {
        (Some(m), _) => m.bound.clone(),
        (None, Some(b)) => proven_from(problem, b, &out),
        (None, None) => proven_bound(problem, &out),
    };
    raise_bound(problem, &mut out, source.value);
    let refuted = args
        .prove_bound
        .filter(|_| !interrupt::stopped())
        .map(|nodes| {
            // The bound search gets what the solve left of the time limit.
            let left = budget.time_limit.map(|l| l.saturating_sub(out.elapsed));
            let b = budget.with_node_limit(Some(nodes)).with_time_limit(left);
            let upper = out.solution.as_ref().map(|_| out.height);
            let r = tilemem_plan::bound::refuted_bound_from(problem, out.lower_bound, upper, &b);
            if let Some(p) = r.proofs.last().filter(|_| r.bound > out.lower_bound) {
                source = Bound {
                    value: r.bound,
                    rule: Rule::WindowRefuted,
                    window: Some(p.window),
                    buffers: p.buffers,
                    rounded_from: None,
                };
                raise_bound(problem, &mut out, r.bound);
            }
            // The search placed the whole problem at the bound: the gap
            // was the placement's. That placement is the result (checked
            // by the validator below, as every other).
            if let Some(offsets) = r.placed.clone() {
                let sol = tilemem_plan::Solution { offsets };
                let h = sol.height(problem);
                if out.solution.is_none() || h < out.height {
                    (out.solution, out.height, out.penalty) = (Some(sol), h, 0);
                    out.solver = "bound search/exact";
                    out.proven_optimal = h <= out.lower_bound;
                }
            }
            r
        });
    phases.end("solve");
    let interrupted = interrupt::stopped();
    let done = if interrupted {
        ExitCode::from(interrupt::EXIT as u8)
    } else {
        ExitCode::SUCCESS
    };
    // Standard output is collected and written once, checked, at the end.
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(t, "buffers:     {}", problem.len());
    match problem.capacity {
        Some(c) => _ = writeln!(t, "capacity:    {c}"),
        None => _ = writeln!(t, "capacity:    none"),
    }
    // Where the bound comes from, always: a user judges the height by it.
    if out.lower_bound > co_live {
        let _ = writeln!(
            t,
            "lower bound: {} ({source}; co-live {co_live})",
            out.lower_bound
        );
    } else {
        let _ = writeln!(t, "lower bound: {} ({source})", out.lower_bound);
    }
    if let Some(r) = &refuted {
        let met = out.solution.is_some() && out.height <= r.bound;
        if r.proofs.is_empty() && r.tried == 0 && met {
            let _ = writeln!(
                t,
                "bound search: nothing to refute, the height meets the lower bound"
            );
        } else {
            let _ = writeln!(
                t,
                "bound search: {} height(s) refuted; at {}: {} window(s) tried, {} cut by the budget{}",
                r.proofs.len(),
                r.bound,
                r.tried,
                r.unsettled,
                if r.placed.is_some() {
                    "; the whole problem placed at it"
                } else {
                    ""
                }
            );
        }
    }
    if let Some(m) = &minimum {
        write_minimum(t, m);
    }
    let _ = writeln!(t, "solver:      {}", out.solver);
    let _ = writeln!(t, "time:        {:.3} s", out.elapsed.as_secs_f64());
    if interrupted {
        let _ = writeln!(
            t,
            "budget:      interrupted; the result is the best found by then"
        );
    } else if out.gave_up.is_some() {
        let _ = writeln!(
            t,
            "budget:      given up (the next step needs more time than is left); the result is the best found by then"
        );
    } else if out.cut_short {
        let _ = writeln!(
            t,
            "budget:      spent; the result is the best found by then"
        );
    }
    let Some(sol) = &out.solution else {
        if out.height > 0 {
            let _ = writeln!(
                t,
                "height:      {} (best placement found, above the capacity)",
                out.height
            );
        }
        if out.proven_infeasible {
            let _ = writeln!(t, "result:      no placement exists (proven)");
        } else {
            let _ = writeln!(
                t,
                "result:      no placement found within the time limit (not a proof)"
            );
        }
        phases.report();
        if interrupted {
            eprintln!("interrupted: no placement found by then; nothing was written");
            return output::finish(&text, done);
        }
        return output::finish(&text, ExitCode::from(1));
    };
    // Never hand out a placement the independent validator rejects.
    if let Err(v) = validate(problem, sol) {
        eprintln!("internal error: the solver produced an invalid placement:");
        for v in v.iter().take(5) {
            eprintln!("  {v}");
        }
        return ExitCode::from(crate::exit::INTERNAL);
    }
    phases.end("validate");
    let _ = writeln!(t, "height:      {}", out.height);
    let _ = writeln!(t, "gap:         {:.3} %", out.gap_percent());
    if !problem.penalties.is_empty() {
        let _ = writeln!(t, "penalty:     {}", out.penalty);
    }
    if let Some(m) = &minimum {
        let _ = writeln!(
            t,
            "minimum:     {}",
            if m.proven() {
                "proven (no lower height exists)".to_string()
            } else {
                format!("not proven (floor {})", out.lower_bound)
            }
        );
    }
    let _ = writeln!(
        t,
        "optimal:     {}",
        if out.proven_optimal {
            "proven"
        } else {
            "not proven"
        }
    );
    // Write every output or none.
    let mut outputs = Outputs::new();
    if let Some(path) = &args.output {
        // Streamed into the file: a million-row placement is not built
        // whole in memory first.
        outputs.add_stream(path, |w| file.write_to(sol, w));
    }
    if let (Some(path), Some(format)) = (&args.map, map_format) {
        let title = args.file.display().to_string();
        let body = match format {
            MapFormat::Svg => map::render_svg(problem, sol, &title),
            MapFormat::Html => crate::html_map::render(&crate::map_model::solve_doc(
                &title, problem, sol, out.solver,
            )),
        };
        outputs.add(path, body);
    }
    if let Err(e) = outputs.commit() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    phases.end("write");
    phases.report();
    if interrupted {
        eprintln!(
            "interrupted: the placement written is the best found by then (validated), height {}",
            out.height
        );
    } else if let Some(why) = stop_reason(&out, &budget, minimum.as_ref(), problem.capacity) {
        eprintln!("stopped: {why}");
    }
    if args.map.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        text.push_str(&map::render_text(problem, sol, 16, 72));
    }
    output::finish(&text, done)
}

/// The co-live bound of the problem solved, for the solver
/// ([`tilemem_plan::Budget::co_live`]): one problem per process.
static CO_LIVE: OnceLock<u64> = OnceLock::new();

/// Computes the co-live bound of `problem` and hands it to the solver
/// through [`CO_LIVE`]. Should the computation panic (a bug), the solver
/// gets 0, a valid bound, rather than waiting forever; the panic then
/// surfaces when the caller joins this thread.
fn publish_co_live(problem: &Problem) -> u64 {
    struct Unblock;
    impl Drop for Unblock {
        fn drop(&mut self) {
            let _ = CO_LIVE.set(0);
        }
    }
    let unblock = Unblock;
    let co_live = tilemem_plan::lower_bound(problem);
    let _ = CO_LIVE.set(co_live);
    drop(unblock);
    co_live
}

/// Wall and CPU time of the phases of a run, printed on standard error
/// with `--timings` (a million-buffer problem spends as long reading,
/// checking and writing as solving, so the solve's own time alone
/// misleads). The CPU time is the process's, over all its threads: on a
/// loaded machine it, not the wall time, tells what a phase costs.
struct Phases {
    on: bool,
    last: (std::time::Instant, Option<std::time::Duration>),
    done: Vec<(
        &'static str,
        std::time::Duration,
        Option<std::time::Duration>,
    )>,
}

/// CPU time the process has used so far, where the system tells it.
fn process_cpu() -> Option<std::time::Duration> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec for the call to fill.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
        ok.then(|| std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

impl Phases {
    fn new(on: bool) -> Phases {
        Phases {
            on,
            last: (std::time::Instant::now(), process_cpu()),
            done: Vec::new(),
        }
    }

    /// Ends the phase `name`, begun when the last one ended.
    fn end(&mut self, name: &'static str) {
        let now = (std::time::Instant::now(), process_cpu());
        let cpu = now.1.zip(self.last.1).map(|(b, a)| b.saturating_sub(a));
        self.done.push((name, now.0 - self.last.0, cpu));
        self.last = now;
    }

    /// Prints the phases ended so far and their sum, when asked for:
    /// `read 0.780 s (cpu 0.750 s), ...; total 2.150 s (cpu 2.001 s)`.
    fn report(&self) {
        if !self.on {
            return;
        }
        let cpu = |c: Option<std::time::Duration>| {
            c.map_or(String::new(), |c| {
                format!(" (cpu {:.3} s)", c.as_secs_f64())
            })
        };
        let total: std::time::Duration = self.done.iter().map(|(_, d, _)| *d).sum();
        let total_cpu = self
            .done
            .iter()
            .map(|(_, _, c)| *c)
            .sum::<Option<std::time::Duration>>();
        let parts: Vec<String> = self
            .done
            .iter()
            .map(|(n, d, c)| format!("{n} {:.3} s{}", d.as_secs_f64(), cpu(*c)))
            .collect();
        eprintln!(
            "timings: {}; total {:.3} s{}",
            parts.join(", "),
            total.as_secs_f64(),
            cpu(total_cpu)
        );
    }
}

/// Raises `out.lower_bound` to `bound` (a proven lower bound), and with
/// it the proven flags.
fn raise_bound(problem: &Problem, out: &mut Outcome, bound: u64) {
    if bound <= out.lower_bound {
        return;
    }
    out.lower_bound = bound;
    if out.solution.is_some() && out.height <= bound && out.penalty == 0 {
        out.proven_optimal = true;
    }
    if out.solution.is_none() && problem.capacity.is_some_and(|c| bound > c) {
        out.proven_infeasible = true;
    }
}

/// Why a run that did not prove its result ended, for stderr: the time or
/// work limit, or the solver running out of moves before either (`None`
/// when the result is proven, or when `--fit` found a placement within
/// `capacity`: nothing to explain).
fn stop_reason(
    out: &Outcome,
    budget: &tilemem_plan::Budget,
    minimum: Option<&Minimum>,
    capacity: Option<u64>,
) -> Option<String> {
    if let Some(m) = minimum {
        return (!m.proven()).then(|| m.stop.describe().to_string());
    }
    if out.proven_optimal || out.proven_infeasible {
        return None;
    }
    // `--fit` asks whether the problem fits its capacity: a placement
    // within it answers the question, so the run stopped at its goal.
    let fits = out.solution.is_some() && capacity.is_some_and(|c| out.height <= c);
    if budget.goal == tilemem_plan::Goal::Fit && fits {
        return None;
    }
    let secs = out.elapsed.as_secs_f64();
    // A solver that gave its budget up ended before the clock reached
    // the limit: the limit is not the reason.
    if let Some(why) = &out.gave_up {
        let limit = budget.time_limit.map_or("no time limit".to_string(), |l| {
            format!("{:.3} s allowed", l.as_secs_f64())
        });
        return Some(format!(
            "ended after {secs:.3} s ({limit}): {why}; a longer time limit may lower the result"
        ));
    }
    if out.cut_short {
        return Some(match budget.node_limit {
            Some(n) if out.work >= n => format!("work limit reached ({n} units) after {secs:.3} s"),
            _ => match budget.time_limit {
                Some(l) => format!("time limit reached ({:.3} s)", l.as_secs_f64()),
                None => format!("budget spent after {secs:.3} s"),
            },
        });
    }
    let limit = budget.time_limit.map_or("no time limit".to_string(), |l| {
        format!("{:.3} s allowed", l.as_secs_f64())
    });
    let why = out.stopped_by.map_or(String::new(), |w| format!(" ({w})"));
    Some(format!(
        "no move found: {} ended its search after {secs:.3} s ({limit}, {} units of work) \
         with nothing left to try{why}; a longer time limit does not change this result",
        out.solver, out.work
    ))
}

/// The lines of a `--minimize` run: the fit at the bound, the first
/// height, then each capacity tried and its answer.
fn write_minimum(t: &mut String, m: &Minimum) {
    let answer = |s: &tilemem_plan::minimize::Step| match s.verdict {
        Verdict::Placed(h) => format!("{} placed {h}", s.target),
        Verdict::Refuted => format!("{} refuted", s.target),
        Verdict::Undecided => format!("{} undecided", s.target),
    };
    if let Some(s) = &m.early {
        let _ = writeln!(t, "bound fit:   {}", answer(s));
    }
    let _ = writeln!(t, "first:       {} (first placement)", m.first_height);
    let tried: Vec<String> = m.steps.iter().map(answer).collect();
    if tried.is_empty() {
        let _ = writeln!(t, "targets:     none");
    } else {
        let _ = writeln!(t, "targets:     {}", tried.join(", "));
    }
    let _ = writeln!(t, "grain:       {}", m.grain);
    let _ = writeln!(t, "stopped:     {}", m.stop.describe());
}
