//! The benchmark table behind `tilemem bench` and `cargo bench -p
//! tilemem-plan`: every problem file of a folder, solved and checked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::problem::Problem;
use crate::solve::{solve, Budget, SolverKind};
use crate::validate::validate;
use crate::{csv, lower_bound};

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Instance name (file stem).
    pub instance: String,
    /// Buffers.
    pub buffers: usize,
    /// Capacity, when the problem has one.
    pub capacity: Option<u64>,
    /// Lower bound.
    pub lower_bound: u64,
    /// Height reached (within the capacity), if placed.
    pub height: Option<u64>,
    /// Proven optimal (or, with `--fit`, proven to fit).
    pub proven: bool,
    /// Time of the solve.
    pub time: Duration,
    /// Height of plain first-fit on the same problem (the baseline).
    pub first_fit: u64,
    /// The independent validator accepted the placement.
    pub valid: bool,
    /// The solver (or portfolio member) that produced the placement.
    pub solver: &'static str,
    /// The time of MiniMalloc on the same problem and capacity, when
    /// measured: `Some(Ok(seconds))` when it placed it, `Some(Err(why))`
    /// when it failed or timed out.
    pub minimalloc: Option<Result<f64, String>>,
}

/// Capacity given by a file name such as `A.1048576.csv`.
pub fn capacity_from_name(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    let (_, last) = stem.rsplit_once('.')?;
    last.parse().ok()
}

/// The problem files (`*.csv`) of a folder and its sub-folders, sorted.
pub fn problem_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Solves one problem with `kind` and with first-fit, validating the result.
pub fn bench_problem(instance: &str, problem: &Problem, kind: SolverKind, budget: &Budget) -> Row {
    let t = Instant::now();
    let out = solve(problem, kind, budget);
    let time = t.elapsed();
    let ff = solve(problem, SolverKind::FirstFit, budget)
        .map(|o| o.height)
        .unwrap_or(0);
    let solver = out.as_ref().map_or("-", |o| o.solver);
    let (height, proven, valid) = match &out {
        Ok(o) => match &o.solution {
            Some(s) => (
                Some(o.height),
                o.proven_optimal || (budget.goal == crate::Goal::Fit && problem.capacity.is_some()),
                validate(problem, s).is_ok(),
            ),
            None => (None, o.proven_infeasible, true),
        },
        Err(_) => (None, false, false),
    };
    Row {
        instance: instance.to_string(),
        buffers: problem.len(),
        capacity: problem.capacity,
        lower_bound: lower_bound(problem),
        height,
        proven,
        time,
        first_fit: ff,
        valid,
        solver,
        minimalloc: None,
    }
}

/// Reads a problem file for benchmarking: a capacity in the file name
/// applies unless `capacity` overrides it.
pub fn load(path: &Path, capacity: Option<u64>) -> Result<Problem, csv::CsvError> {
    let mut p = csv::read(path)?.problem;
    if let Some(c) = capacity.or_else(|| capacity_from_name(path)) {
        p.capacity = Some(c);
    }
    Ok(p)
}

/// Renders the rows as one Markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| instance | buffers | capacity | lower bound | height | gap % | proven | time (s) | solver | MiniMalloc (s) | first-fit | first-fit / height | valid |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let cap = r.capacity.map_or("-".to_string(), |c| c.to_string());
        let (h, gap, ratio) = match r.height {
            Some(h) => (
                h.to_string(),
                if r.lower_bound > 0 {
                    format!(
                        "{:.3}",
                        (h as f64 - r.lower_bound as f64) * 100.0 / r.lower_bound as f64
                    )
                } else {
                    "0".into()
                },
                if h > 0 {
                    format!("{:.3}", r.first_fit as f64 / h as f64)
                } else {
                    "-".into()
                },
            ),
            None => ("none".into(), "-".into(), "-".into()),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {} | {} | {} | {} | {} |\n",
            r.instance,
            r.buffers,
            cap,
            r.lower_bound,
            h,
            gap,
            if r.proven { "yes" } else { "no" },
            r.time.as_secs_f64(),
            r.solver,
            minimalloc_cell(&r.minimalloc),
            r.first_fit,
            ratio,
            if r.valid { "ok" } else { "INVALID" }
        ));
    }
    s
}

fn minimalloc_cell(m: &Option<Result<f64, String>>) -> String {
    match m {
        None => "-".into(),
        Some(Ok(t)) => format!("{t:.3}"),
        Some(Err(why)) => why.clone(),
    }
}

/// One line per family: the distribution of the solve times and of the
/// gaps to the lower bound over its instances (median and worst), failures (no placement within the
/// capacity, or invalid), the members that won, and MiniMalloc's figures
/// on the same instances when measured.
pub fn family_table(families: &[(String, Vec<Row>)]) -> String {
    let mut s = String::from(
        "| family | instances | buffers (median) | median (s) | worst (s) | worst instance | gap % median | gap % worst | failures | won by | MiniMalloc median (s) | MiniMalloc worst (s) | MiniMalloc failures | slower than MiniMalloc |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (name, rows) in families {
        if rows.is_empty() {
            continue;
        }
        let mut times: Vec<f64> = rows.iter().map(|r| r.time.as_secs_f64()).collect();
        times.sort_by(f64::total_cmp);
        // Gap of the placement to the lower bound; an instance without one
        // counts as infinitely far.
        let mut gaps: Vec<f64> = rows
            .iter()
            .map(|r| match r.height {
                Some(h) if r.lower_bound > 0 => {
                    100.0 * (h as f64 - r.lower_bound as f64) / r.lower_bound as f64
                }
                Some(_) => 0.0,
                None => f64::INFINITY,
            })
            .collect();
        gaps.sort_by(f64::total_cmp);
        let mut sizes: Vec<usize> = rows.iter().map(|r| r.buffers).collect();
        sizes.sort_unstable();
        let worst = rows
            .iter()
            .max_by(|a, b| a.time.cmp(&b.time))
            .map_or("-".to_string(), |r| r.instance.clone());
        let fails = rows
            .iter()
            .filter(|r| r.height.is_none() || !r.valid)
            .count();
        let mut won: Vec<(&str, usize)> = Vec::new();
        for r in rows {
            match won.iter_mut().find(|(n, _)| *n == r.solver) {
                Some(w) => w.1 += 1,
                None => won.push((r.solver, 1)),
            }
        }
        won.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let won: Vec<String> = won.iter().map(|(n, c)| format!("{n} {c}")).collect();
        let mm: Vec<&Result<f64, String>> =
            rows.iter().filter_map(|r| r.minimalloc.as_ref()).collect();
        let (mm_med, mm_worst, mm_fail, slower) = if mm.is_empty() {
            ("-".into(), "-".into(), "-".into(), "-".into())
        } else {
            let mut t: Vec<f64> = mm.iter().filter_map(|m| m.as_ref().ok().copied()).collect();
            t.sort_by(f64::total_cmp);
            let fail = mm.len() - t.len();
            let slower = rows
                .iter()
                .filter(|r| match &r.minimalloc {
                    Some(Ok(m)) => r.height.is_none() || r.time.as_secs_f64() > *m,
                    _ => false,
                })
                .count();
            (
                t.get(t.len() / 2).map_or("-".into(), |x| format!("{x:.3}")),
                if fail > 0 {
                    "timeout".into()
                } else {
                    t.last().map_or("-".into(), |x| format!("{x:.3}"))
                },
                fail.to_string(),
                slower.to_string(),
            )
        };
        s.push_str(&format!(
            "| {} | {} | {} | {:.3} | {:.3} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} |\n",
            name,
            rows.len(),
            sizes[sizes.len() / 2],
            times[times.len() / 2],
            times[times.len() - 1],
            worst,
            gaps[gaps.len() / 2],
            gaps[gaps.len() - 1],
            fails,
            won.join(", "),
            mm_med,
            mm_worst,
            mm_fail,
            slower
        ));
    }
    s
}
