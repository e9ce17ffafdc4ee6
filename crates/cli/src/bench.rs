//! `tilemem bench`: solve every problem file of a folder, or the generated
//! instances of a family, and print one table; beside MiniMalloc's time
//! per instance when the environment variable `MINIMALLOC` names its
//! binary, and idealloc's height and time when `IDEALLOC` names its binary
//! (see [`crate::peers`]); then the goals table
//! ([`tilemem_plan::bench::goals_table`]).

use std::path::PathBuf;
use std::process::ExitCode;

use tilemem_plan::bench::{
    bench_problem, family_table, goals_table, load, problem_files, table, Row,
};
use tilemem_plan::gen::{family_with, FAMILIES, TRACE_BUFFERS};
use tilemem_plan::{csv, Problem};

use crate::output::{self, Outputs};
use crate::peers::Peers;
use crate::search::SearchFlags;

/// Flags of `tilemem bench`. The shared search flags keep help texts
/// worded for one run per problem.
#[derive(clap::Args)]
#[command(mut_arg("solver", |a| a.help("Solver to measure (first-fit is always run too, as the baseline)")))]
#[command(mut_arg("time_limit", |a| a.help("Time budget per problem, in seconds")))]
#[command(mut_arg("fit", |a| a.help("Stop at the first placement within the capacity")))]
pub struct Args {
    /// Folder of problem files (`*.csv`, searched recursively). A capacity in
    /// the file name (`NAME.CAPACITY.csv`) applies. A last table judges the
    /// goals per folder (or family): time against MiniMalloc's, height
    /// against the best bound (instances without a capacity) and against
    /// idealloc's, naming every instance that misses one.
    #[arg(required_unless_present = "family")]
    pub dir: Option<PathBuf>,
    /// Generated family instead of a folder: challenging, guillotine,
    /// staircase, random, sliced, settled, trace or all (repeatable).
    /// Prints the distribution per family; instances with a capacity are
    /// always solved with --fit at it, those without (random, trace) for
    /// the lowest placement unless --slack gives them one. Peers run
    /// beside tilemem on every instance they can read, killed at the time
    /// limit: MiniMalloc (at the capacity) when the environment variable
    /// MINIMALLOC names its binary, idealloc (-l 1 and -l 10) when IDEALLOC
    /// does.
    #[arg(long, value_name = "NAME")]
    pub family: Vec<String>,
    /// Instances per family.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// Seed of each family's first instance: `--first-seed 140 --count 70`
    /// measures instances 140..209, unseen by a run over the first seeds
    /// (instance `FAMILY-N` is the same at any first seed).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub first_seed: u64,
    /// Buffers of each instance of the trace family (training steps:
    /// weights, saved activations, gradients, optimizer buffers; at least
    /// 1,000).
    #[arg(long, value_name = "N", default_value_t = TRACE_BUFFERS)]
    pub trace_buffers: usize,
    /// With --family: also print one row per instance.
    #[arg(long)]
    pub rows: bool,
    /// With --family: write every generated instance to this folder as
    /// `FAMILY-SEED.CAPACITY.csv` (`FAMILY-SEED.csv` without a capacity;
    /// replayable with `tilemem bench DIR`).
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
    /// Solver and search budget.
    #[command(flatten)]
    pub search: SearchFlags,
    /// Capacity in bytes for every problem: 16384, 16K, 16KiB, 0x4000
    /// (overrides file names).
    #[arg(long, value_name = "BYTES", value_parser = crate::flags::byte_size)]
    pub capacity: Option<u64>,
    /// With --family: give instances without a capacity (random) one this
    /// many percent above their lower bound, and solve them with --fit at
    /// it (and MiniMalloc too, when measured).
    #[arg(long, value_name = "PERCENT")]
    pub slack: Option<f64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let (kind, budget) = match args.search.solver_and_budget() {
        Ok(kb) => kb,
        Err(code) => return code,
    };
    // Checked by `solver_and_budget` above.
    let limit = args
        .search
        .time_limit()
        .unwrap_or(tilemem_plan::LONGEST_TIME_LIMIT);
    let peers = Peers::from_env(limit);
    let measure = |name: &str, p: &Problem, budget: &tilemem_plan::Budget| {
        let mut row = bench_problem(name, p, kind, budget);
        peers.measure(&mut row, p);
        row
    };
    if !args.family.is_empty() {
        let mut names: Vec<String> = Vec::new();
        for f in &args.family {
            if f == "all" {
                names.extend(FAMILIES.iter().map(|s| s.to_string()));
            } else if FAMILIES.contains(&f.as_str()) {
                names.push(f.clone());
            } else {
                eprintln!(
                    "error: unknown family `{f}`; expected one of {} or all",
                    FAMILIES.join(", ")
                );
                return ExitCode::from(2);
            }
        }
        let budget = budget.with_goal(tilemem_plan::Goal::Fit);
        let mut all = Vec::new();
        // Standard output is collected and written once, checked, at the
        // end.
        let mut text = String::new();
        // `--write`: every instance, written together at the end (the
        // folder created when missing, as `plan --export-problems` does;
        // nothing written when one cannot be).
        let mut instances = Outputs::new();
        if let Some(dir) = &args.write {
            instances.add_dir(dir);
        }
        for name in names {
            let seeds = args.first_seed..args.first_seed.saturating_add(args.count);
            let rows: Vec<Row> = seeds
                .map(|seed| {
                    let mut p = family_with(&name, seed, args.trace_buffers).expect("known family");
                    if let (None, Some(pct)) = (p.capacity, args.slack) {
                        let lb = tilemem_plan::lower_bound(&p);
                        p.capacity = Some(lb + (lb as f64 * pct / 100.0).ceil() as u64);
                    }
                    if let Some(dir) = &args.write {
                        let file = match p.capacity {
                            Some(cap) => format!("{name}-{seed}.{cap}.csv"),
                            None => format!("{name}-{seed}.csv"),
                        };
                        instances.add(dir.join(file), csv::write_problem(&p, None));
                    }
                    measure(&format!("{name}-{seed}"), &p, &budget)
                })
                .collect();
            if args.rows {
                text.push_str(&table(&rows));
                text.push('\n');
            }
            all.push((name, rows));
        }
        text.push_str(&family_table(&all));
        push_goals(&mut text, &all);
        if let Err(e) = instances.commit() {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        if all.iter().flat_map(|(_, r)| r).any(|r| !r.valid) {
            eprintln!("internal error: a solver produced an invalid placement");
            return output::finish(&text, ExitCode::from(crate::exit::INTERNAL));
        }
        return output::finish(&text, ExitCode::SUCCESS);
    }
    let dir = args.dir.expect("clap requires a folder without --family");
    let files = match problem_files(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let mut rows = Vec::new();
    // The goals are judged per folder holding the files (the shared set's
    // challenging instances and traces apart); the files come sorted, so
    // each folder's are together.
    let mut groups: Vec<(String, Vec<Row>)> = Vec::new();
    for f in &files {
        let problem = match load(f, args.capacity) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{}: error: {}", e.location(), e.message);
                return ExitCode::from(2);
            }
        };
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let row = measure(&name, &problem, &budget);
        let folder = f
            .parent()
            .and_then(|d| d.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match groups.last_mut() {
            Some((g, rows)) if *g == folder => rows.push(row.clone()),
            _ => groups.push((folder, vec![row.clone()])),
        }
        rows.push(row);
    }
    let mut text = table(&rows);
    push_goals(&mut text, &groups);
    if rows.iter().any(|r| !r.valid) {
        eprintln!("internal error: a solver produced an invalid placement");
        return output::finish(&text, ExitCode::from(crate::exit::INTERNAL));
    }
    output::finish(&text, ExitCode::SUCCESS)
}

/// Appends the goals table after a blank line, when a goal applies.
fn push_goals(text: &mut String, groups: &[(String, Vec<Row>)]) {
    let goals = goals_table(groups);
    if !goals.is_empty() {
        text.push('\n');
        text.push_str(&goals);
    }
}
