//! The benchmark table behind `tilemem bench` and `cargo bench -p
//! tilemem-plan`: every problem file of a folder, solved and checked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bound::{proven_bound, Bound};
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
    /// The co-live lower bound ([`lower_bound`]): what heights are
    /// compared with (idealloc's LOAD), the same for every solver.
    pub lower_bound: u64,
    /// The best lower bound the solve supports, and where it came from
    /// ([`proven_bound`]); `None` when the problem did not solve.
    pub bound: Option<Bound>,
    /// Height reached (within the capacity), if placed.
    pub height: Option<u64>,
    /// Proven optimal (or, with `--fit`, proven to fit).
    pub proven: bool,
    /// The time or work budget ended the solve before it finished: the
    /// height is the best found by then, and a larger budget may lower it
    /// (on large traces `auto` cut before its repair gives first-fit's
    /// height).
    pub cut_short: bool,
    /// Time of the solve.
    pub time: Duration,
    /// Height of plain first-fit on the same problem (the baseline).
    pub first_fit: u64,
    /// The independent validator accepted the placement.
    pub valid: bool,
    /// The solver (or portfolio member) that produced the placement.
    pub solver: &'static str,
    /// MiniMalloc on the same problem and capacity, when measured (it
    /// reports no height: a run that placed it fits the capacity).
    pub minimalloc: Option<PeerRun>,
    /// idealloc with each of [`IDEALLOC_LIVES`] tries, when measured.
    pub idealloc: Option<[PeerRun; 2]>,
}

/// The numbers of tries idealloc is run with (its `-l`).
pub const IDEALLOC_LIVES: [u32; 2] = [1, 10];

/// Under this time an instance meets the speed goal against MiniMalloc
/// whatever the ratio.
pub const GOAL_FAST: f64 = 0.05;

/// At most this fraction of MiniMalloc's time meets the speed goal.
pub const GOAL_RATIO: f64 = 0.2;

/// A peer's run on one instance, as its own process.
#[derive(Clone, Debug, PartialEq)]
pub enum PeerRun {
    /// It ended with a result: its wall time, and the height it reported
    /// (`None` for a peer that only says it fits the capacity).
    Done {
        /// Wall time of the process, in seconds.
        seconds: f64,
        /// Height of its placement, when it reports one.
        height: Option<u64>,
    },
    /// Still running at the time limit (in seconds): killed.
    Timeout(f64),
    /// It ended without a result (or could not be started): why.
    Failed(String),
    /// The problem has what the peer cannot read (alignments, conflicts,
    /// pinned offsets, no capacity for a fixed-capacity peer).
    NotApplicable,
}

impl PeerRun {
    /// Its time, a timeout counting as the limit; `None` when it failed
    /// or did not apply.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            PeerRun::Done { seconds, .. } => Some(*seconds),
            PeerRun::Timeout(limit) => Some(*limit),
            _ => None,
        }
    }

    /// The height it reported.
    pub fn height(&self) -> Option<u64> {
        match self {
            PeerRun::Done { height, .. } => *height,
            _ => None,
        }
    }

    /// It ran (ended or timed out), so it counts in the distributions.
    pub fn ran(&self) -> bool {
        matches!(self, PeerRun::Done { .. } | PeerRun::Timeout(_))
    }
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
    let cut_short = out.as_ref().is_ok_and(|o| o.cut_short);
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
        bound: out.as_ref().ok().map(|o| proven_bound(problem, o)),
        height,
        proven,
        cut_short,
        time,
        first_fit: ff,
        valid,
        solver,
        minimalloc: None,
        idealloc: None,
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

/// Height ÷ bound with five decimals (`-` without a height or bound).
fn ratio_cell(height: Option<u64>, bound: u64) -> String {
    match height {
        Some(h) if bound > 0 => format!("{:.5}", h as f64 / bound as f64),
        _ => "-".into(),
    }
}

/// A peer's time: seconds, `timeout`, why it failed, or `-`.
fn peer_time_cell(run: Option<&PeerRun>) -> String {
    match run {
        None | Some(PeerRun::NotApplicable) => "-".into(),
        Some(PeerRun::Done { seconds, .. }) => format!("{seconds:.3}"),
        Some(PeerRun::Timeout(_)) => "timeout".into(),
        Some(PeerRun::Failed(why)) => why.clone(),
    }
}

/// Renders the rows as one Markdown table. Heights are compared with the
/// co-live lower bound, idealloc's LOAD.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from("| instance | buffers | capacity | lower bound | height | height ÷ bound | proven | best bound (source) | time (s) | solver | MiniMalloc (s) |");
    for l in IDEALLOC_LIVES {
        s.push_str(&format!(
            " idealloc -l {l} height ÷ bound | idealloc -l {l} (s) |"
        ));
    }
    s.push_str(" first-fit | first-fit / height | valid |\n");
    s.push_str(&"|---".repeat(14 + 2 * IDEALLOC_LIVES.len()));
    s.push_str("|\n");
    for r in rows {
        let cap = r.capacity.map_or("-".to_string(), |c| c.to_string());
        let (h, ratio) = match r.height {
            Some(h) if h > 0 => (
                h.to_string(),
                format!("{:.3}", r.first_fit as f64 / h as f64),
            ),
            Some(h) => (h.to_string(), "-".into()),
            None => ("none".into(), "-".into()),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} | {} | {} |",
            r.instance,
            r.buffers,
            cap,
            r.lower_bound,
            h,
            ratio_cell(r.height, r.lower_bound),
            match (r.proven, r.cut_short) {
                (true, _) => "yes",
                (false, true) => "no (budget spent)",
                (false, false) => "no",
            },
            r.bound
                .as_ref()
                .map_or("-".to_string(), |b| format!("{} ({b})", b.value)),
            r.time.as_secs_f64(),
            r.solver,
            peer_time_cell(r.minimalloc.as_ref()),
        ));
        for k in 0..IDEALLOC_LIVES.len() {
            let run = r.idealloc.as_ref().map(|i| &i[k]);
            s.push_str(&format!(
                " {} | {} |",
                ratio_cell(run.and_then(PeerRun::height), r.lower_bound),
                peer_time_cell(run)
            ));
        }
        s.push_str(&format!(
            " {} | {} | {} |\n",
            r.first_fit,
            ratio,
            if r.valid { "ok" } else { "INVALID" }
        ));
    }
    s
}

/// The value at quantile `q` (nearest rank) of sorted `v`.
fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

/// `median / p90 / worst` (or `median / worst`) of `v` with `digits`
/// decimals, `-` when empty.
fn spread(mut v: Vec<f64>, with_p90: bool, digits: usize) -> String {
    v.sort_by(f64::total_cmp);
    let Some(med) = quantile(&v, 0.5) else {
        return "-".into();
    };
    let worst = v[v.len() - 1];
    if with_p90 {
        let p90 = quantile(&v, 0.9).unwrap_or(worst);
        format!("{med:.digits$} / {p90:.digits$} / {worst:.digits$}")
    } else {
        format!("{med:.digits$} / {worst:.digits$}")
    }
}

/// Whether a row meets the speed goal against MiniMalloc: placed, and
/// under [`GOAL_FAST`] seconds or at most [`GOAL_RATIO`] of MiniMalloc's
/// time (a timeout counting as the limit). `None` when MiniMalloc did not
/// run.
pub fn meets_goal(r: &Row) -> Option<bool> {
    let mm = r.minimalloc.as_ref().filter(|m| m.ran())?.seconds()?;
    let t = r.time.as_secs_f64();
    Some(r.height.is_some() && r.valid && (t < GOAL_FAST || t <= GOAL_RATIO * mm))
}

/// One line per family: the distribution of tilemem's solve times and of
/// its height ÷ the co-live bound over the instances placed, failures (no
/// placement within the capacity, or invalid), the unproven solves the
/// budget cut short (their height is the best found by then), the members
/// that won; then
/// the peers on the same instances when measured: MiniMalloc's times, its
/// timeouts and failures, tilemem's time ÷ MiniMalloc's (a timeout
/// counting as the limit) and how many instances meet the goal
/// ([`meets_goal`]); idealloc's height ÷ bound and times per number of
/// tries, its timeouts, and on how many instances tilemem's height is at
/// or below every height idealloc reported. Columns of a peer not
/// measured show `-`.
pub fn family_table(families: &[(String, Vec<Row>)]) -> String {
    let mut s = String::from(
        "| family | instances | buffers (median) | time (s) median / p90 / worst | worst instance | height ÷ bound median / worst | failures | budget spent | won by | MiniMalloc (s) median / worst | MiniMalloc timeouts / failures | time ÷ MiniMalloc median / p90 / worst | goal met |",
    );
    for l in IDEALLOC_LIVES {
        s.push_str(&format!(
            " idealloc -l {l} height ÷ bound median / worst | idealloc -l {l} (s) median / worst |"
        ));
    }
    s.push_str(" idealloc timeouts");
    for l in IDEALLOC_LIVES {
        s.push_str(&format!(" -l {l} /"));
    }
    s.pop();
    s.push_str("| at or below idealloc |\n");
    s.push_str(&"|---".repeat(15 + 2 * IDEALLOC_LIVES.len()));
    s.push_str("|\n");
    for (name, rows) in families {
        if rows.is_empty() {
            continue;
        }
        let times: Vec<f64> = rows.iter().map(|r| r.time.as_secs_f64()).collect();
        let heights: Vec<f64> = rows
            .iter()
            .filter(|r| r.lower_bound > 0)
            .filter_map(|r| Some(r.height? as f64 / r.lower_bound as f64))
            .collect();
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
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            name,
            rows.len(),
            sizes[(sizes.len() - 1) / 2],
            spread(times, true, 3),
            worst,
            spread(heights, false, 5),
            fails,
            rows.iter().filter(|r| r.cut_short && !r.proven).count(),
            won.join(", "),
            minimalloc_cells(rows),
        ));
        s.push_str(&idealloc_cells(rows));
        s.push('\n');
    }
    s
}

/// The MiniMalloc cells of a family line (see [`family_table`]).
fn minimalloc_cells(rows: &[Row]) -> String {
    let runs: Vec<(&Row, &PeerRun)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                r,
                r.minimalloc
                    .as_ref()
                    .filter(|m| **m != PeerRun::NotApplicable)?,
            ))
        })
        .collect();
    if runs.is_empty() {
        return "- | - | - | -".into();
    }
    let done: Vec<f64> = runs
        .iter()
        .filter_map(|(_, m)| match m {
            PeerRun::Done { seconds, .. } => Some(*seconds),
            _ => None,
        })
        .collect();
    let timeouts = runs
        .iter()
        .filter(|(_, m)| matches!(m, PeerRun::Timeout(_)))
        .count();
    let failures = runs.len() - done.len() - timeouts;
    let ratios: Vec<f64> = runs
        .iter()
        .filter_map(|(r, m)| Some(r.time.as_secs_f64() / m.seconds()?.max(1e-9)))
        .collect();
    let judged: Vec<bool> = rows.iter().filter_map(meets_goal).collect();
    format!(
        "{} | {timeouts} / {failures} | {} | {} / {}",
        spread(done, false, 3),
        spread(ratios, true, 3),
        judged.iter().filter(|&&m| m).count(),
        judged.len()
    )
}

/// The idealloc cells of a family line (see [`family_table`]).
fn idealloc_cells(rows: &[Row]) -> String {
    let runs: Vec<(&Row, &[PeerRun; 2])> = rows
        .iter()
        .filter_map(|r| Some((r, r.idealloc.as_ref()?)))
        .filter(|(_, i)| i.iter().any(|x| *x != PeerRun::NotApplicable))
        .collect();
    let mut s = String::new();
    if runs.is_empty() {
        s.push_str(&" - | - |".repeat(IDEALLOC_LIVES.len()));
        s.push_str(" - | - |");
        return s;
    }
    let mut timeouts = Vec::new();
    for k in 0..IDEALLOC_LIVES.len() {
        let heights: Vec<f64> = runs
            .iter()
            .filter(|(r, _)| r.lower_bound > 0)
            .filter_map(|(r, i)| Some(i[k].height()? as f64 / r.lower_bound as f64))
            .collect();
        let times: Vec<f64> = runs
            .iter()
            .filter_map(|(_, i)| match &i[k] {
                PeerRun::Done { seconds, .. } => Some(*seconds),
                _ => None,
            })
            .collect();
        timeouts.push(
            runs.iter()
                .filter(|(_, i)| matches!(i[k], PeerRun::Timeout(_)))
                .count()
                .to_string(),
        );
        s.push_str(&format!(
            " {} | {} |",
            spread(heights, false, 5),
            spread(times, false, 3)
        ));
    }
    // Instances where idealloc reported a height: tilemem at or below all.
    let compared: Vec<bool> = runs
        .iter()
        .filter(|(_, i)| i.iter().any(|x| x.height().is_some()))
        .map(|(r, i)| {
            r.valid
                && r.height
                    .is_some_and(|h| i.iter().filter_map(PeerRun::height).all(|x| h <= x))
        })
        .collect();
    s.push_str(&format!(
        " {} | {} / {} |",
        timeouts.join(" / "),
        compared.iter().filter(|&&b| b).count(),
        compared.len()
    ));
    s
}

/// At most this fraction above the best lower bound meets the height goal
/// on instances solved for the lowest placement (0.5 %).
pub const GOAL_BOUND: f64 = 0.005;

/// The header of the goals table ([`goals_table`]).
const GOALS_HEADER: &str =
    "| goal | family or folder | met | worst (instance) | not met (why) |\n|---|---|---|---|---|\n";

/// One goal judged over one group of rows.
struct Judged {
    /// Rows the goal applies to.
    judged: usize,
    /// Rows that meet it.
    met: usize,
    /// The worst figure and its instance, when any row has one.
    worst: Option<(f64, String)>,
    /// Every row that misses, with its figures.
    misses: Vec<String>,
}

impl Judged {
    fn new() -> Judged {
        Judged {
            judged: 0,
            met: 0,
            worst: None,
            misses: Vec::new(),
        }
    }

    /// Counts one row: whether it meets the goal, the figure it
    /// competes with for the worst (if any), and why it misses.
    fn count(
        &mut self,
        instance: &str,
        met: bool,
        figure: Option<f64>,
        why: impl FnOnce() -> String,
    ) {
        self.judged += 1;
        if met {
            self.met += 1;
        } else {
            self.misses.push(format!("{instance}: {}", why()));
        }
        if let Some(f) = figure {
            if self.worst.as_ref().is_none_or(|(w, _)| f > *w) {
                self.worst = Some((f, instance.to_string()));
            }
        }
    }

    /// Adds another group's counts (for the line over every family).
    fn add(&mut self, other: &Judged) {
        self.judged += other.judged;
        self.met += other.met;
        if let Some((f, name)) = &other.worst {
            if self.worst.as_ref().is_none_or(|(w, _)| f > w) {
                self.worst = Some((*f, name.clone()));
            }
        }
        self.misses.extend(other.misses.iter().cloned());
    }
}

/// A peer's time in words, for a miss: `MiniMalloc 1.200 s` or
/// `MiniMalloc timeout (5.000 s)`.
fn minimalloc_words(m: &PeerRun) -> String {
    match m {
        PeerRun::Timeout(limit) => format!("MiniMalloc timeout ({limit:.3} s)"),
        _ => format!("MiniMalloc {:.3} s", m.seconds().unwrap_or(0.0)),
    }
}

/// The speed goal ([`meets_goal`]) over `rows`; the worst is the largest
/// time ÷ MiniMalloc's among the placed instances that took at least
/// [`GOAL_FAST`] seconds (the ones the ratio decides).
fn judge_speed(rows: &[Row]) -> Judged {
    let mut j = Judged::new();
    for r in rows {
        let Some(met) = meets_goal(r) else { continue };
        let Some(m) = r.minimalloc.as_ref() else {
            continue;
        };
        let mm = m.seconds().unwrap_or(0.0);
        let t = r.time.as_secs_f64();
        let ratio = t / mm.max(1e-9);
        let figure = (r.height.is_some() && r.valid && t >= GOAL_FAST).then_some(ratio);
        j.count(&r.instance, met, figure, || {
            if r.height.is_none() {
                format!("unplaced in {t:.3} s, {}", minimalloc_words(m))
            } else if !r.valid {
                "INVALID placement".to_string()
            } else {
                format!("{t:.3} s = {ratio:.3} × {}", minimalloc_words(m))
            }
        });
    }
    j
}

/// The height goal over the rows solved for the lowest placement (no
/// capacity): height at most [`GOAL_BOUND`] above the best bound the
/// solve supports (the co-live bound when it names none).
fn judge_bound(rows: &[Row]) -> Judged {
    let mut j = Judged::new();
    for r in rows.iter().filter(|r| r.capacity.is_none()) {
        let bound = r.bound.as_ref().map_or(r.lower_bound, |b| b.value);
        let ratio = match r.height {
            Some(h) if bound > 0 && r.valid => Some(h as f64 / bound as f64),
            _ => None,
        };
        let met = match (r.height, r.valid) {
            // In parts per million, exactly: 1.005 has no exact float.
            (Some(h), true) => {
                let ppm = (GOAL_BOUND * 1e6).round() as u128;
                h as u128 * 1_000_000 <= bound as u128 * (1_000_000 + ppm)
            }
            _ => false,
        };
        j.count(&r.instance, met, ratio, || match (ratio, r.valid) {
            (Some(x), _) => format!("{x:.5} of the bound"),
            (None, false) => "INVALID placement".to_string(),
            (None, true) => "no placement".to_string(),
        });
    }
    j
}

/// The idealloc goal over the rows where idealloc reported a height:
/// tilemem's height at or below every height it reported; the worst is
/// the largest height ÷ idealloc's lowest.
fn judge_idealloc(rows: &[Row]) -> Judged {
    let mut j = Judged::new();
    for r in rows {
        let Some(runs) = r.idealloc.as_ref() else {
            continue;
        };
        let Some(best) = runs.iter().filter_map(PeerRun::height).min() else {
            continue;
        };
        let met = r.valid && r.height.is_some_and(|h| h <= best);
        let ratio = r
            .height
            .filter(|_| r.valid)
            .map(|h| h as f64 / best.max(1) as f64);
        j.count(&r.instance, met, ratio, || match ratio {
            Some(x) => format!(
                "{} = {x:.5} × idealloc's lowest {best}",
                r.height.unwrap_or(0)
            ),
            None if !r.valid => "INVALID placement".to_string(),
            None => "no placement".to_string(),
        });
    }
    j
}

/// The goals of the placement core, one line per goal and group of rows
/// where it applies (and one over every group when more than one does),
/// each with how many instances meet it, the worst instance, and every
/// instance that does not, with its figures:
/// - time: at most [`GOAL_RATIO`] of MiniMalloc's time or under
///   [`GOAL_FAST`] seconds ([`meets_goal`]); worst: time ÷ MiniMalloc's
///   among the placed instances the ratio decides;
/// - height: at most [`GOAL_BOUND`] above the best bound, on instances
///   solved for the lowest placement; worst: height ÷ bound;
/// - idealloc: at or below every height idealloc reported; worst: height
///   ÷ idealloc's lowest.
///
/// Empty when no goal applies to any row.
pub fn goals_table(groups: &[(String, Vec<Row>)]) -> String {
    type Judge = fn(&[Row]) -> Judged;
    // Each goal: its words, its judge, and how its worst figure is shown.
    let goals: [(String, Judge, Worst); 3] = [
        (
            format!("time ≤ {GOAL_RATIO} × MiniMalloc's or < {GOAL_FAST} s"),
            judge_speed,
            (3, " × MiniMalloc"),
        ),
        (
            format!("height ≤ {:.3} × best bound", 1.0 + GOAL_BOUND),
            judge_bound,
            (5, ""),
        ),
        (
            "height ≤ idealloc's".to_string(),
            judge_idealloc,
            (5, " × idealloc"),
        ),
    ];
    let mut s = String::new();
    for (goal, judge, unit) in goals {
        let mut all = Judged::new();
        let mut lines = 0;
        for (name, rows) in groups {
            let j = judge(rows);
            if j.judged == 0 {
                continue;
            }
            s.push_str(&goal_line(&goal, name, &j, unit));
            all.add(&j);
            lines += 1;
        }
        if lines > 1 {
            s.push_str(&goal_line(&goal, "all", &all, unit));
        }
    }
    if s.is_empty() {
        return s;
    }
    format!("{GOALS_HEADER}{s}")
}

/// How a goal's worst figure is shown: decimals, and the words after it.
type Worst = (usize, &'static str);

/// One line of [`goals_table`].
fn goal_line(goal: &str, group: &str, j: &Judged, (digits, unit): Worst) -> String {
    let worst = j.worst.as_ref().map_or("-".to_string(), |(f, name)| {
        format!("{f:.digits$}{unit} ({name})")
    });
    let misses = if j.misses.is_empty() {
        "-".to_string()
    } else {
        j.misses.join("; ")
    };
    format!(
        "| {goal} | {group} | {} / {} | {worst} | {misses} |\n",
        j.met, j.judged
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, time: f64, height: Option<u64>, solver: &'static str) -> Row {
        Row {
            instance: name.into(),
            buffers: 10,
            capacity: None,
            lower_bound: 100,
            bound: Some(Bound {
                value: 100,
                rule: crate::bound::Rule::CoLive,
                window: Some((3, 4)),
                buffers: 4,
                rounded_from: None,
            }),
            height,
            proven: false,
            cut_short: false,
            time: Duration::from_secs_f64(time),
            first_fit: 120,
            valid: true,
            solver,
            minimalloc: None,
            idealloc: None,
        }
    }

    fn done(seconds: f64, height: Option<u64>) -> PeerRun {
        PeerRun::Done { seconds, height }
    }

    /// The family line's distributions, counted by hand: nearest-rank
    /// median and p90, timeouts counted as the limit in the time ratio,
    /// the goal met under 50 ms or at 0.2x MiniMalloc's time (never
    /// without a placement), and tilemem at or below idealloc only where
    /// idealloc reported a height. A family without peers shows `-`.
    #[test]
    fn family_lines_count_the_peers() {
        let mut a = row("x-0", 0.010, Some(100), "auto/exact");
        a.minimalloc = Some(done(0.5, None));
        a.idealloc = Some([done(0.2, Some(110)), done(1.0, Some(105))]);
        let mut b = row("x-1", 0.200, Some(102), "auto/exact");
        b.minimalloc = Some(PeerRun::Timeout(2.0));
        b.idealloc = Some([done(0.3, Some(101)), PeerRun::Timeout(2.0)]);
        let mut c = row("x-2", 0.300, None, "auto/greedy");
        c.minimalloc = Some(done(1.0, None));
        c.idealloc = Some([
            PeerRun::Failed("failed".into()),
            PeerRun::Failed("failed".into()),
        ]);
        assert_eq!(meets_goal(&a), Some(true));
        assert_eq!(meets_goal(&b), Some(true));
        assert_eq!(meets_goal(&c), Some(false));
        let mut plain = row("y-0", 1.5, Some(103), "auto/repair");
        plain.cut_short = true;
        assert_eq!(meets_goal(&plain), None);
        let t = family_table(&[("x".into(), vec![a, b, c]), ("y".into(), vec![plain])]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert_eq!(
            lines[2],
            "| x | 3 | 10 | 0.200 / 0.300 / 0.300 | x-2 | 1.00000 / 1.02000 | 1 | 0 | auto/exact 2, auto/greedy 1 \
             | 0.500 / 1.000 | 1 / 0 | 0.100 / 0.300 / 0.300 | 2 / 3 \
             | 1.01000 / 1.10000 | 0.200 / 0.300 | 1.05000 / 1.05000 | 1.000 / 1.000 | 0 / 1 | 1 / 2 |"
        );
        assert_eq!(
            lines[3],
            "| y | 1 | 10 | 1.500 / 1.500 / 1.500 | y-0 | 1.03000 / 1.03000 | 0 | 1 | auto/repair 1 \
             | - | - | - | - | - | - | - | - | - | - |"
        );
        assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
        assert_eq!(lines[1].matches('|').count(), lines[2].matches('|').count());
    }

    /// The goals table, counted by hand: the speed goal where MiniMalloc
    /// ran (under 50 ms, or at most 0.2x its time, a timeout counting as
    /// the limit; the worst among the placed instances at or above 50 ms),
    /// the height goal on instances without a capacity against the best
    /// bound (1.005 exactly meets it), the idealloc goal where idealloc
    /// reported a height; a line over every group only where more than
    /// one group is judged; every miss named with its figures.
    #[test]
    fn goals_name_every_miss() {
        let fit = |name: &str, time: f64, height: Option<u64>, mm: PeerRun| {
            let mut r = row(name, time, height, "auto/exact");
            r.capacity = Some(100);
            r.minimalloc = Some(mm);
            r
        };
        let x = vec![
            fit("x-0", 0.010, Some(100), done(0.5, None)),
            fit("x-1", 0.200, Some(100), PeerRun::Timeout(2.0)),
            fit("x-2", 0.300, None, done(1.0, None)),
            fit("x-3", 0.600, Some(100), done(1.5, None)),
        ];
        let z = vec![fit("z-0", 0.100, Some(100), done(1.0, None))];
        let lowest = |name: &str, height: u64, idealloc: Option<[PeerRun; 2]>| {
            let mut r = row(name, 0.5, Some(height), "auto/repair");
            r.idealloc = idealloc;
            r
        };
        let failed = || PeerRun::Failed("failed".into());
        let mut y = vec![
            lowest(
                "y-0",
                100,
                Some([done(0.2, Some(103)), done(1.0, Some(102))]),
            ),
            lowest(
                "y-1",
                101,
                Some([done(0.2, Some(103)), PeerRun::Timeout(1.0)]),
            ),
            lowest("y-2", 101, Some([failed(), failed()])),
            lowest(
                "y-3",
                105,
                Some([done(0.2, Some(104)), done(1.0, Some(106))]),
            ),
            lowest("y-4", 1005, None),
            lowest("y-5", 1006, None),
        ];
        // y-2: a bound above the co-live one (101), met; y-4, y-5: no
        // bound named, the co-live one (1000) judges.
        y[2].bound.as_mut().unwrap().value = 101;
        for r in &mut y[4..] {
            r.bound = None;
            r.lower_bound = 1000;
        }
        let t = goals_table(&[("x".into(), x), ("y".into(), y), ("z".into(), z)]);
        assert_eq!(
            t,
            "| goal | family or folder | met | worst (instance) | not met (why) |\n\
             |---|---|---|---|---|\n\
             | time ≤ 0.2 × MiniMalloc's or < 0.05 s | x | 2 / 4 | 0.400 × MiniMalloc (x-3) \
             | x-2: unplaced in 0.300 s, MiniMalloc 1.000 s; x-3: 0.600 s = 0.400 × MiniMalloc 1.500 s |\n\
             | time ≤ 0.2 × MiniMalloc's or < 0.05 s | z | 1 / 1 | 0.100 × MiniMalloc (z-0) | - |\n\
             | time ≤ 0.2 × MiniMalloc's or < 0.05 s | all | 3 / 5 | 0.400 × MiniMalloc (x-3) \
             | x-2: unplaced in 0.300 s, MiniMalloc 1.000 s; x-3: 0.600 s = 0.400 × MiniMalloc 1.500 s |\n\
             | height ≤ 1.005 × best bound | y | 3 / 6 | 1.05000 (y-3) \
             | y-1: 1.01000 of the bound; y-3: 1.05000 of the bound; y-5: 1.00600 of the bound |\n\
             | height ≤ idealloc's | y | 2 / 3 | 1.00962 × idealloc (y-3) \
             | y-3: 105 = 1.00962 × idealloc's lowest 104 |\n"
        );
        // No peer and no instance without a capacity: no goal applies.
        let mut plain = row("p", 0.1, Some(100), "auto/exact");
        plain.capacity = Some(100);
        assert_eq!(goals_table(&[("p".into(), vec![plain])]), "");
    }

    /// A row's peers: a timeout and a failure say so, a peer that does not
    /// apply (or was not measured) shows `-`.
    #[test]
    fn rows_show_each_peer() {
        let mut a = row("p", 0.001, Some(100), "auto/greedy");
        a.cut_short = true;
        a.minimalloc = Some(PeerRun::NotApplicable);
        a.idealloc = Some([done(0.25, Some(103)), PeerRun::Timeout(1.0)]);
        let t = table(&[a]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[2],
            "| p | 10 | - | 100 | 100 | 1.00000 | no (budget spent) | 100 (co-live peak at t=3: 4 buffers live together) | 0.001 | auto/greedy | - | 1.03000 | 0.250 | - | timeout | 120 | 1.200 | ok |"
        );
        assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
        assert_eq!(lines[1].matches('|').count(), lines[2].matches('|').count());
    }
}
