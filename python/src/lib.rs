//! `tilemem._tilemem`: the native half of the Python module.
//!
//! As thin as the `tilemem` binary: each function makes the library calls
//! the matching CLI command makes (`crates/cli/src/*.rs`) and hands plain
//! values to the Python half (`python/tilemem/__init__.py`), which wraps
//! them in classes. Work runs with the GIL released. Failures become the
//! exceptions of `tilemem.errors`, carrying file, line and column.

use std::path::Path;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tilemem_mlir::ir::Severity;
use tilemem_mlir::parse::{parse_module, split_input, Chunk, ParseOptions};
use tilemem_plan::csv::{self, CsvError, CsvProblem};
use tilemem_plan::{validate as check, Budget, Goal, Objective, SolverKind};
use tilemem_pto::input_kind::{self, Front, InputKind};
use tilemem_pto::passes::{select_passes, ErrorKind, PassId, PlannerMode, SeedRules};
use tilemem_soc::Soc;

/// A failure on the Rust side, raised as a `tilemem.errors` class once the
/// GIL is held again.
enum Fail {
    /// A bad argument value (unknown target, negative budget): `ValueError`.
    Value(String),
    /// Bad input text: `tilemem.ParseError`.
    Parse(Where, String),
    /// Understood but cannot be met: `tilemem.PlanError`.
    Plan(Where, String),
    /// Does not fit the memory: `tilemem.CapacityError`.
    Capacity(Where, String),
    /// A check inside tilemem failed whatever the input (the command
    /// line's exit 3): `tilemem.InternalError`.
    Internal(Where, String),
}

/// `file`, `line`, `col` of a failure (line/col 0: unknown).
struct Where {
    file: String,
    line: u32,
    col: u32,
}

impl Where {
    fn at(file: &str, line: u32, col: u32) -> Where {
        Where {
            file: file.to_string(),
            line,
            col,
        }
    }
}

impl Fail {
    fn into_pyerr(self, py: Python<'_>) -> PyErr {
        let (class, at, message) = match self {
            Fail::Value(m) => return PyValueError::new_err(m),
            Fail::Parse(w, m) => ("ParseError", w, m),
            Fail::Plan(w, m) => ("PlanError", w, m),
            Fail::Capacity(w, m) => ("CapacityError", w, m),
            Fail::Internal(w, m) => ("InternalError", w, m),
        };
        let raise = || -> PyResult<PyErr> {
            let class = py.import("tilemem.errors")?.getattr(class)?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("file", at.file)?;
            kwargs.set_item("line", (at.line > 0).then_some(at.line))?;
            kwargs.set_item("col", (at.col > 0).then_some(at.col))?;
            let err = class.call((message,), Some(&kwargs))?;
            Ok(PyErr::from_value(err))
        };
        raise().unwrap_or_else(|e| e)
    }
}

fn csv_fail(e: CsvError) -> Fail {
    let line = u32::try_from(e.line).unwrap_or(u32::MAX);
    Fail::Parse(Where::at(&e.file, line, 0), e.message)
}

/// Runs `work` without the GIL and raises its failure with it.
fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T, Fail> + Send) -> PyResult<T> {
    py.allow_threads(work).map_err(|f| f.into_pyerr(py))
}

/// The program text after planning, the JSON report and the diagnostics.
type Planned = (String, String, Vec<String>);

/// Plans a PyPTO program (see `tilemem.plan`): what `tilemem plan` does.
#[pyfunction]
#[pyo3(signature = (text, target="910b", planner="pypto", passes=None, stop_after=None,
                    file="<string>", time_limit=None, node_limit=None, penalty_first=false,
                    compat="seed"))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    text: String,
    target: &str,
    planner: &str,
    passes: Option<Vec<String>>,
    stop_after: Option<String>,
    file: &str,
    time_limit: Option<f64>,
    node_limit: Option<u64>,
    penalty_first: bool,
    compat: &str,
) -> PyResult<Planned> {
    let setup = Setup::new(
        target,
        planner,
        passes,
        stop_after,
        time_limit,
        node_limit,
        penalty_first,
        compat,
    )?;
    detached(py, move || {
        let mut program = read_program(&text, file)?;
        let (report, diagnostics) = setup.run(&mut program, file)?;
        Ok((tilemem_pto::print::print(&program), report, diagnostics))
    })
}

/// Plans a PyPTO MessagePack document (`pypto.ir.serialize(program)`) and
/// returns the planned document, the JSON report and the diagnostics:
/// what `tilemem plan K.msgpack -o K.out.msgpack` does, GIL released
/// throughout.
#[pyfunction]
#[pyo3(signature = (data, target="910b", planner="pypto", passes=None, stop_after=None,
                    file="<document>", time_limit=None, node_limit=None, penalty_first=false,
                    compat="seed"))]
#[allow(clippy::too_many_arguments)]
fn plan_document<'py>(
    py: Python<'py>,
    data: Vec<u8>,
    target: &str,
    planner: &str,
    passes: Option<Vec<String>>,
    stop_after: Option<String>,
    file: &str,
    time_limit: Option<f64>,
    node_limit: Option<u64>,
    penalty_first: bool,
    compat: &str,
) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, String, Vec<String>)> {
    let setup = Setup::new(
        target,
        planner,
        passes,
        stop_after,
        time_limit,
        node_limit,
        penalty_first,
        compat,
    )?;
    let (out, report, diagnostics) = detached(py, move || {
        let (mut program, origin) = tilemem_pto::msgpack::read_with_origin(&data)
            .map_err(|e| Fail::Parse(Where::at(file, 0, 0), e.to_string()))?;
        let (report, diagnostics) = setup.run(&mut program, file)?;
        let out = tilemem_pto::msgpack::write_program(&program, &origin)
            .map_err(|e| Fail::Plan(Where::at(file, 0, 0), e.to_string()))?;
        Ok((out, report, diagnostics))
    })?;
    Ok((pyo3::types::PyBytes::new(py, &out), report, diagnostics))
}

/// What `plan` and `plan_document` share: the checked arguments and the
/// pipeline run.
struct Setup {
    soc: Soc,
    mode: PlannerMode,
    seed_rules: SeedRules,
    selected: Vec<PassId>,
    time_limit: Option<Duration>,
    node_limit: u64,
    penalty_first: bool,
}

impl Setup {
    #[allow(clippy::too_many_arguments)]
    fn new(
        target: &str,
        planner: &str,
        passes: Option<Vec<String>>,
        stop_after: Option<String>,
        time_limit: Option<f64>,
        node_limit: Option<u64>,
        penalty_first: bool,
        compat: &str,
    ) -> PyResult<Setup> {
        let soc = target_of(target)?;
        let seed_rules = compat_of(compat)?;
        let mode = PlannerMode::from_name(planner).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown planner '{planner}'; use pypto, dsa-rp, ptoas or optimal"
            ))
        })?;
        let names: Option<Vec<&str>> = passes
            .as_ref()
            .map(|v| v.iter().map(String::as_str).collect());
        let selected = select_passes(mode, names.as_deref(), stop_after.as_deref())
            .map_err(PyValueError::new_err)?;
        let time_limit = match time_limit {
            None => Some(Duration::from_secs(10)),
            Some(t) if t.is_finite() && t >= 0.0 => tilemem_plan::time_limit_from_secs(t),
            Some(_) => {
                return Err(PyValueError::new_err(
                    "time_limit must be a non-negative number of seconds",
                ))
            }
        };
        let node_limit = node_limit.unwrap_or(tilemem_pto::passes::dsa_rp::DEFAULT_NODE_LIMIT);
        Ok(Setup {
            soc,
            mode,
            seed_rules,
            selected,
            time_limit,
            node_limit,
            penalty_first,
        })
    }

    /// The options of the whole pipeline: chip, planner, rules, limits.
    fn options(&self) -> tilemem_pto::PlanOptions {
        let mut opts = tilemem_pto::PlanOptions::new(self.soc.clone(), self.mode);
        opts.seed_rules = self.seed_rules;
        opts.dsa.time_limit = self.time_limit;
        opts.dsa.node_limit = (self.node_limit > 0).then_some(self.node_limit);
        if self.penalty_first {
            opts.dsa.objective = Objective::PenaltyThenPeak;
        }
        opts
    }

    /// Runs the passes; returns the JSON report and the diagnostics.
    fn run(
        self,
        program: &mut tilemem_pto::ir::Program,
        file: &str,
    ) -> Result<(String, Vec<String>), Fail> {
        let mut opts = self.options();
        opts.passes = Some(self.selected);
        opts.report = true;
        // The JSON report does not carry the buffers' gaps.
        opts.report_gaps = false;
        let done = match tilemem_pto::plan(program, &opts) {
            Ok(done) => done,
            Err(failed) => {
                return Err(pass_fail(&failed.error, file));
            }
        };
        let diagnostics: Vec<String> = done.diagnostics.iter().map(|d| d.to_string()).collect();
        let report = done.report.map(|r| r.to_json()).unwrap_or_default();
        Ok((report, diagnostics))
    }
}

/// The SoC of a `target=` name.
fn target_of(target: &str) -> PyResult<Soc> {
    Soc::from_name(target).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown target '{target}'; use 910b, 950, 310b or none"
        ))
    })
}

/// The rules of a `compat=` name.
fn compat_of(compat: &str) -> PyResult<SeedRules> {
    SeedRules::from_compat(compat).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown compat '{compat}'; use seed or pypto-e2d0f78"
        ))
    })
}

/// When `bytes` (named `file`) do not read as `want` and are recognisably
/// of another kind, the failure naming the function that reads them, as
/// the command line names its command.
fn kind_fail(file: &str, bytes: &[u8], want: InputKind) -> Option<Fail> {
    input_kind::mismatch_for(Front::Python, file, bytes, want)
        .map(|m| Fail::Parse(Where::at(file, 0, 0), m))
}

/// The `tilemem.errors.ParseError` message for `data` of another kind than
/// `want` (`pypto`, `mlir` or `csv`), or `None` when its kind is not told:
/// for the Python half, which reads files that are not UTF-8 text.
#[pyfunction]
fn kind_error(data: &[u8], file: &str, want: &str) -> PyResult<Option<String>> {
    let want = match want {
        "pypto" => InputKind::Pypto,
        "mlir" => InputKind::Mlir,
        "csv" => InputKind::ProblemCsv,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown input kind '{other}'"
            )))
        }
    };
    Ok(input_kind::mismatch_for(Front::Python, file, data, want))
}

/// Reads PyPTO program text named `file`.
fn read_program(text: &str, file: &str) -> Result<tilemem_pto::ir::Program, Fail> {
    tilemem_pto::parse::parse(text).map_err(|e| {
        if let Some(f) = kind_fail(file, text.as_bytes(), InputKind::Pypto) {
            return f;
        }
        let message = if e.label.is_empty() {
            e.message
        } else {
            format!("{} ({})", e.message, e.label)
        };
        Fail::Parse(Where::at(file, e.line, e.col), message)
    })
}

/// The exception of a failed pass, in the words of the command line
/// without its class-name prefix, at the place the pass gave, as the
/// command line reports it: a capacity error sits at the allocation that
/// alone exceeds its space (the one to shrink) or else at the function's
/// definition, the overflow being a property of the whole kernel's
/// lifetimes (the planners' one rule; `tilemem.explain` shows the peak).
fn pass_fail(e: &tilemem_pto::passes::PassError, file: &str) -> Fail {
    let at = match e.loc {
        Some(l) => Where::at(file, l.line, l.col),
        None => Where::at(file, 0, 0),
    };
    let message = e.message.clone();
    if e.is_capacity() {
        return Fail::Capacity(at, message);
    }
    match e.kind {
        ErrorKind::Input => Fail::Parse(at, message),
        ErrorKind::Planning => Fail::Plan(at, message),
        ErrorKind::Internal => Fail::Internal(at, message),
    }
}

/// Reads and prints a PyPTO program (see `tilemem.fmt`): what `tilemem
/// fmt` prints.
#[pyfunction]
#[pyo3(signature = (text, file="<string>"))]
fn fmt(py: Python<'_>, text: String, file: &str) -> PyResult<String> {
    detached(py, move || {
        let program = read_program(&text, file)?;
        Ok(tilemem_pto::print::print(&program))
    })
}

/// What `explain` hands to Python: the text `tilemem explain` prints,
/// whether every space fits, and the JSON `tilemem explain --report`
/// writes.
type Explained = (String, bool, String);

/// Explains where a program's memory goes (see `tilemem.explain`): what
/// `tilemem explain` prints, and its facts. `time_limit`, `node_limit` and
/// `compat` are those of `plan` (and of `tilemem explain`), and hold for
/// every part of the explanation.
#[pyfunction]
#[pyo3(signature = (text, target="910b", planner="pypto", all=false, file="<string>",
                    time_limit=None, node_limit=None, compat="seed"))]
#[allow(clippy::too_many_arguments)]
fn explain(
    py: Python<'_>,
    text: String,
    target: &str,
    planner: &str,
    all: bool,
    file: &str,
    time_limit: Option<f64>,
    node_limit: Option<u64>,
    compat: &str,
) -> PyResult<Explained> {
    let mode = match PlannerMode::from_name(planner) {
        Some(p) if p != PlannerMode::Ptoas => p,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown planner '{planner}'; use pypto, dsa-rp or optimal"
            )))
        }
    };
    // The checks and limits of `plan`; one set of options for every part
    // of the explanation (which runs the whole pipeline).
    let run = Setup::new(
        target, planner, None, None, time_limit, node_limit, false, compat,
    )?
    .options();
    detached(py, move || {
        let program = read_program(&text, file)?;
        let ex = tilemem_pto::explain::explain_with(&program, &run, all, Some(400), None)
            .map_err(|e| pass_fail(&e, file))?;
        let fits = ex.spaces.iter().all(|s| s.fits);
        // What `tilemem explain` prints (with `all`, `--all`) and its
        // `--report`, from the renderers both use.
        let rendered = tilemem_pto::explain::render_text(&ex, &program, &run, all, file);
        let report = tilemem_pto::explain::report_json(&ex, mode).to_string();
        Ok((rendered, fits, report))
    })
}

/// One row of `bench`: instance, buffers, capacity, lower bound, height
/// (`None`: not placed), proven, seconds, solver, valid.
type BenchRow = (
    String,
    usize,
    Option<u64>,
    u64,
    Option<u64>,
    bool,
    f64,
    String,
    bool,
    Option<u64>,
    String,
);

/// Solves every problem file of a folder (see `tilemem.bench`): the rows
/// and the table `tilemem bench DIR` prints.
#[pyfunction]
#[pyo3(name = "bench", signature = (dir, solver="auto", time_limit=10.0, capacity=None))]
fn bench_folder(
    py: Python<'_>,
    dir: String,
    solver: &str,
    time_limit: f64,
    capacity: Option<u64>,
) -> PyResult<(String, Vec<BenchRow>)> {
    let kind: SolverKind = solver.parse().map_err(PyValueError::new_err)?;
    if !(time_limit.is_finite() && time_limit >= 0.0) {
        return Err(PyValueError::new_err(
            "time_limit must be a non-negative number of seconds",
        ));
    }
    let budget = Budget::default().with_time_limit(Some(Duration::from_secs_f64(time_limit)));
    detached(py, move || {
        let files = tilemem_plan::bench::problem_files(Path::new(&dir)).map_err(|e| {
            Fail::Parse(
                Where::at(&dir, 0, 0),
                format!("cannot read the folder: {e}"),
            )
        })?;
        let mut rows = Vec::new();
        for f in &files {
            let p = tilemem_plan::bench::load(f, capacity).map_err(csv_fail)?;
            let name = f
                .file_stem()
                .map_or(String::new(), |s| s.to_string_lossy().into_owned());
            rows.push(tilemem_plan::bench::bench_problem(&name, &p, kind, &budget));
        }
        let table = tilemem_plan::bench::table(&rows);
        let out = rows
            .into_iter()
            .map(|r| {
                (
                    r.instance,
                    r.buffers,
                    r.capacity,
                    r.lower_bound,
                    r.height,
                    r.proven,
                    r.time.as_secs_f64(),
                    r.solver.to_string(),
                    r.valid,
                    r.bound.as_ref().map(|b| b.value),
                    r.bound.as_ref().map_or(String::new(), |b| b.to_string()),
                )
            })
            .collect();
        Ok((table, out))
    })
}

/// Runs HIVM passes over MLIR text (see `tilemem.opt`): what `tilemem opt`
/// does. Returns the output text and the warnings/remarks, rendered.
#[pyfunction]
#[pyo3(signature = (text, passes, file="<string>", split_input_file=false,
                    allow_unregistered_dialect=false))]
fn opt(
    py: Python<'_>,
    text: String,
    passes: Vec<String>,
    file: &str,
    split_input_file: bool,
    allow_unregistered_dialect: bool,
) -> PyResult<(String, Vec<String>)> {
    // `name`, `name=options` or `name{options}` (MLIR's option lists).
    let mut flags: Vec<(String, String)> = Vec::new();
    for flag in &passes {
        let flag = flag.trim_start_matches('-');
        let (n, options) = match flag.find(['=', '{']) {
            Some(i) if flag.as_bytes()[i] == b'{' => (
                &flag[..i],
                flag[i + 1..].strip_suffix('}').unwrap_or(&flag[i + 1..]),
            ),
            Some(i) => (&flag[..i], &flag[i + 1..]),
            None => (flag, ""),
        };
        let Some(mut pass) = tilemem_mlir::passes::lookup(n) else {
            let known: Vec<&str> = tilemem_mlir::passes::registry()
                .iter()
                .map(|p| p.name())
                .collect();
            return Err(PyValueError::new_err(format!(
                "unknown pass '{n}'; known passes: {}",
                known.join(", ")
            )));
        };
        pass.set_options(options).map_err(PyValueError::new_err)?;
        flags.push((n.to_string(), options.to_string()));
    }
    detached(py, move || {
        // Passes are not `Send`: configured again here, as checked above.
        let pipeline: Vec<_> = flags
            .iter()
            .filter_map(|(n, o)| {
                let mut p = tilemem_mlir::passes::lookup(n)?;
                p.set_options(o).ok()?;
                Some(p)
            })
            .collect();
        let chunks = if split_input_file {
            split_input(&text)
        } else {
            vec![Chunk {
                text: &text,
                line_offset: 0,
            }]
        };
        let mut outputs = Vec::new();
        let mut notes = Vec::new();
        for chunk in chunks {
            let options = ParseOptions {
                allow_unregistered_dialect,
                line_offset: chunk.line_offset,
            };
            // The exception carries the first error's place; its message
            // is that error's text, then every other diagnostic rendered
            // with its own place (each place said once).
            let mut module = parse_module(chunk.text, &options).map_err(|d| {
                kind_fail(file, chunk.text.as_bytes(), InputKind::Mlir).unwrap_or_else(|| {
                    Fail::Parse(Where::at(file, d.loc.line, d.loc.col), d.message.clone())
                })
            })?;
            let mut cx = tilemem_mlir::pass::PassContext::default();
            let ok = tilemem_mlir::pass::run_pipeline_in(&pipeline, &mut module, &mut cx);
            // A pass that rejects its input is bad input, as the command
            // line's exit 2 (see `PassContext::bad_input`).
            let bad_input = !ok && cx.bad_input;
            // A plan the independent check refused is a bug in tilemem, as
            // the command line's exit 3 (see `PassContext::internal`).
            let internal = !ok && cx.internal;
            let diags = cx.diags;
            let first_error = diags.iter().position(|d| d.severity == Severity::Error);
            if !ok || first_error.is_some() {
                let (line, col, mut message) = match first_error {
                    Some(k) => (
                        diags[k].loc.line,
                        diags[k].loc.col,
                        diags[k].message.clone(),
                    ),
                    None => (0, 0, "a pass failed".to_string()),
                };
                for (k, d) in diags.iter().enumerate() {
                    if Some(k) != first_error {
                        message.push('\n');
                        message.push_str(&d.render(file));
                    }
                }
                let at = Where::at(file, line, col);
                return Err(if internal {
                    Fail::Internal(at, message)
                } else if bad_input {
                    Fail::Parse(at, message)
                } else {
                    Fail::Plan(at, message)
                });
            }
            notes.extend(diags.iter().map(|d| d.render(file)));
            outputs.push(tilemem_mlir::print::print_module(&module));
        }
        Ok((outputs.join("// -----\n"), notes))
    })
}

/// Reads a problem file (`path`) or problem text (`text`, named `file`),
/// as `tilemem solve`/`validate` do; `capacity` overrides the file's.
fn read_problem(
    path: Option<&str>,
    text: Option<&str>,
    file: &str,
    capacity: Option<u64>,
) -> Result<CsvProblem, Fail> {
    let mut read = match (path, text) {
        (Some(p), _) => csv::read(Path::new(p)).map_err(|e| {
            std::fs::read(p)
                .ok()
                .and_then(|b| kind_fail(p, &b, InputKind::ProblemCsv))
                .unwrap_or_else(|| csv_fail(e))
        }),
        (None, Some(t)) => csv::parse(t, file).map_err(|e| {
            kind_fail(file, t.as_bytes(), InputKind::ProblemCsv).unwrap_or_else(|| csv_fail(e))
        }),
        (None, None) => return Err(Fail::Value("give a problem file or problem text".into())),
    }?;
    if capacity.is_some() {
        read.problem.capacity = capacity;
    }
    Ok(read)
}

/// What `solve` hands to Python: names, offsets, sizes, height, lower bound,
/// penalty, proven optimal, solver, capacity, and the solution as CSV.
type Placed = (
    Vec<String>,
    Vec<u64>,
    Vec<u64>,
    u64,
    u64,
    u64,
    bool,
    String,
    Option<u64>,
    String,
    String,
);

/// Places a buffer problem (see `tilemem.solve`): what `tilemem solve`
/// does, including the independent check of the placement.
#[pyfunction]
#[pyo3(signature = (path=None, text=None, file="<problem>", capacity=None, solver="auto",
                    time_limit=10.0, node_limit=None, fit=false, penalty_first=false, seed=0))]
#[allow(clippy::too_many_arguments)]
fn solve(
    py: Python<'_>,
    path: Option<String>,
    text: Option<String>,
    file: &str,
    capacity: Option<u64>,
    solver: &str,
    time_limit: f64,
    node_limit: Option<u64>,
    fit: bool,
    penalty_first: bool,
    seed: u64,
) -> PyResult<Placed> {
    let kind: SolverKind = solver.parse().map_err(PyValueError::new_err)?;
    if !(time_limit.is_finite() && time_limit >= 0.0) {
        return Err(PyValueError::new_err(
            "time_limit must be a non-negative number of seconds",
        ));
    }
    let budget = Budget::default()
        .with_time_limit(tilemem_plan::time_limit_from_secs(time_limit))
        .with_node_limit(node_limit)
        .with_goal(if fit { Goal::Fit } else { Goal::Lowest })
        .with_objective(if penalty_first {
            Objective::PenaltyThenPeak
        } else {
            Objective::PeakThenPenalty
        })
        .with_seed(seed);
    detached(py, move || {
        let read = read_problem(path.as_deref(), text.as_deref(), file, capacity)?;
        let name = path.as_deref().unwrap_or(file);
        let problem = &read.problem;
        let out = tilemem_plan::solve(problem, kind, &budget)
            .map_err(|e| Fail::Parse(Where::at(name, 0, 0), e.to_string()))?;
        // The best bound the solve supports and where it came from, as
        // `tilemem solve` prints it.
        let bound = tilemem_plan::bound::proven_bound(problem, &out);
        let Some(sol) = out.solution else {
            let why = if out.proven_infeasible {
                "no placement exists (proven)".to_string()
            } else {
                "no placement found within the time limit (not a proof)".to_string()
            };
            let cap = problem
                .capacity
                .map_or("no capacity".to_string(), |c| format!("capacity {c}"));
            return Err(Fail::Capacity(
                Where::at(name, 0, 0),
                format!(
                    "{why}: {} buffers, {cap}, lower bound {} ({bound})",
                    problem.len(),
                    bound.value.max(out.lower_bound)
                ),
            ));
        };
        // Never hand out a placement the independent validator rejects.
        if let Err(v) = check(problem, &sol) {
            let first: Vec<String> = v.iter().take(5).map(|v| v.to_string()).collect();
            return Err(Fail::Internal(
                Where::at(name, 0, 0),
                format!(
                    "internal error: the solver produced an invalid placement: {}",
                    first.join("; ")
                ),
            ));
        }
        let names = (0..problem.len())
            .map(|i| {
                problem.buffers[i]
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("b{i}"))
            })
            .collect();
        let sizes = problem.buffers.iter().map(|b| b.size).collect();
        let written = read.write_with(&sol);
        Ok((
            names,
            sol.offsets,
            sizes,
            out.height,
            bound.value.max(out.lower_bound),
            out.penalty,
            out.proven_optimal || (out.height <= bound.value && out.penalty == 0),
            out.solver.to_string(),
            problem.capacity,
            written,
            bound.to_string(),
        ))
    })
}

/// What `validate` hands to Python: violations (empty when valid), height,
/// penalty, lower bound, buffer count.
type Checked = (Vec<String>, u64, u64, u64, usize, String);

/// Checks a placement independently of the solvers (see
/// `tilemem.validate`): what `tilemem validate` does. `offsets`, when
/// given, replace the file's `offset` column.
#[pyfunction]
#[pyo3(signature = (path=None, text=None, file="<problem>", capacity=None, offsets=None))]
fn validate(
    py: Python<'_>,
    path: Option<String>,
    text: Option<String>,
    file: &str,
    capacity: Option<u64>,
    offsets: Option<Vec<u64>>,
) -> PyResult<Checked> {
    detached(py, move || {
        let read = read_problem(path.as_deref(), text.as_deref(), file, capacity)?;
        let name = path.as_deref().unwrap_or(file);
        let solution = match offsets {
            Some(offsets) => tilemem_plan::Solution { offsets },
            None => read.solution().map_err(|line| {
                Fail::Parse(
                    Where::at(name, u32::try_from(line).unwrap_or(u32::MAX), 0),
                    "no offset; every row needs an `offset` to validate".to_string(),
                )
            })?,
        };
        // The best bound and where it came from, as `tilemem validate`
        // prints it.
        let best = tilemem_plan::bound::best_bound(&read.problem);
        let (lb, why) = (best.value, best.to_string());
        let n = read.problem.len();
        Ok(match check(&read.problem, &solution) {
            Ok(stats) => (Vec::new(), stats.height, stats.penalty, lb, n, why),
            Err(v) => (v.iter().map(|v| v.to_string()).collect(), 0, 0, lb, n, why),
        })
    })
}

/// Explains the local memory of HIVM MLIR text (see `tilemem.explain`):
/// what `tilemem explain FILE.mlir` prints, and its `--report`.
#[pyfunction]
#[pyo3(signature = (text, file="<string>", planner="bishengir", all=false))]
fn explain_mlir(
    py: Python<'_>,
    text: String,
    file: &str,
    planner: &str,
    all: bool,
) -> PyResult<Explained> {
    use tilemem_mlir::passes::plan_memory::optimal::Planner;
    let planner = match planner {
        "bishengir" => Planner::Bishengir,
        "optimal" => Planner::Optimal,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown planner '{other}'; use bishengir or optimal"
            )))
        }
    };
    let file = file.to_string();
    detached(py, move || {
        let req = tilemem_mlir::memplan::PlanRequest {
            target: None,
            options: tilemem_mlir::passes::plan_memory::Options {
                planner,
                ..Default::default()
            },
        };
        let name = if planner == Planner::Optimal {
            "optimal"
        } else {
            "bishengir"
        };
        match tilemem_mlir::explain::explain_text(&text, &req, all) {
            Ok(ex) => Ok((
                ex.render(name, &file),
                ex.spaces.iter().all(|s| s.fits),
                tilemem_mlir::explain::report_json(&ex, name).to_string(),
            )),
            Err(f) => {
                let first = f.diagnostics.first();
                let (line, col) = first.map_or((0, 0), |d| (d.loc.line, d.loc.col));
                let rendered: Vec<String> = f.diagnostics.iter().map(|d| d.render(&file)).collect();
                Err(Fail::Parse(
                    Where::at(&file, line, col),
                    rendered.join("\n"),
                ))
            }
        }
    })
}

/// The HIVM MLIR passes `opt` accepts, as (name, description).
#[pyfunction]
fn mlir_passes() -> Vec<(String, String)> {
    tilemem_mlir::passes::registry()
        .iter()
        .map(|p| (p.name().to_string(), p.description().to_string()))
        .collect()
}

/// The native module.
#[pymodule]
fn _tilemem(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan_document, m)?)?;
    m.add_function(wrap_pyfunction!(fmt, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(bench_folder, m)?)?;
    m.add_function(wrap_pyfunction!(opt, m)?)?;
    m.add_function(wrap_pyfunction!(explain_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(mlir_passes, m)?)?;
    m.add_function(wrap_pyfunction!(kind_error, m)?)?;
    Ok(())
}
