//! The explanation as text: what `tilemem explain` prints, what `plan`
//! prints after an over-capacity error (the short form), what
//! `tilemem explain --all` prints, and what the Python module's `explain`
//! returns.

use std::fmt::Write as _;

use super::remedies::run_options;
use super::{replan_with, Explanation};
use crate::ir::{FunctionKind, Program};
use crate::passes::PlannerMode;
use crate::plan::PlanOptions;

fn cap_text(c: Option<u64>) -> String {
    c.map_or("unlimited".into(), |c| c.to_string())
}

/// The explanation as text. `short` lists at most five live tiles and
/// three remedies.
pub fn render(ex: &Explanation, planner: PlannerMode, short: bool) -> String {
    let mut o = String::new();
    let pname = planner.name();
    if ex.spaces.is_empty() {
        o.push_str("every space fits its capacity (use --all to explain each)\n");
    }
    for s in &ex.spaces {
        let head = match (s.fits, s.planned_bytes) {
            (true, Some(b)) => format!("fits: planner {pname} uses {b} bytes"),
            (true, None) => "fits".to_string(),
            (false, Some(b)) => format!("does not fit: planner {pname} needs {b} bytes"),
            (false, None) => format!("does not fit with planner {pname}"),
        };
        let _ = writeln!(
            o,
            "{}/{}: {head}, capacity {}",
            s.function,
            s.space,
            cap_text(s.capacity)
        );
        let _ = writeln!(o, "  peak: line {} ({})", s.peak_line, s.peak_stmt);
        let _ = writeln!(
            o,
            "  live at the peak: {}, {} bytes",
            count(s.live.len(), "tile"),
            s.live_total()
        );
        // Padded by hand: a `{:<width$}` width past 65535 (a tile name
        // that long) is a formatting error, which `writeln!` turns into a
        // panic.
        let width = s
            .live
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(0);
        let shown = if short { 5 } else { usize::MAX };
        for t in s.live.iter().take(shown) {
            let pad = " ".repeat(width - t.name.chars().count());
            let _ = writeln!(
                o,
                "    {}{pad}  {:>8} bytes  {} {}  line {}",
                t.name, t.bytes, t.shape, t.dtype, t.line
            );
        }
        if s.live.len() > shown {
            let _ = writeln!(o, "    ... {} more", s.live.len() - shown);
        }
        let lb = s.lower_bound();
        let verdict = match s.capacity {
            Some(c) if lb > c => format!(
                "> capacity {c}: no placement of these lifetimes fits ({} bytes short)",
                lb - c
            ),
            Some(c) if !s.fits => format!(
                "<= capacity {c}: a placement could fit; planner {pname}'s rules \
                 (which tiles may share, address order) refused it"
            ),
            Some(c) => format!("<= capacity {c}"),
            None => "(unlimited capacity)".to_string(),
        };
        let _ = writeln!(
            o,
            "  lower bound: {} co-live + {} reserved = {lb} bytes {verdict}",
            s.co_live, s.reserved
        );
        if !s.refused.is_empty() && !s.proven_over() {
            let _ = writeln!(o, "  sharings the lifetimes allow but a rule refuses:");
            let shown = if short { 3 } else { usize::MAX };
            for r in s.refused.iter().take(shown) {
                let apart = if r.never_together {
                    ", never live together"
                } else {
                    ""
                };
                let _ = writeln!(
                    o,
                    "    {} and {} ({} bytes{apart}): {}",
                    r.a, r.b, r.bytes, r.rule
                );
            }
            if s.refused.len() > shown {
                let _ = writeln!(o, "    ... {} more", s.refused.len() - shown);
            }
        }
        if !s.fits {
            // What was searched, and with how much work.
            let searched = format!(
                "{} re-plans{}",
                ex.replans,
                ex.budget
                    .map(|b| format!(" of a budget of {b}"))
                    .unwrap_or_default()
            );
            if s.remedies.is_empty() {
                let _ = writeln!(
                    o,
                    "  remedies: none found ({searched}: planners, reserves and pipe depths, tile \
                     sizes, every dimension of each live tile, one-statement moves); split the kernel"
                );
            } else {
                let _ = writeln!(o, "  remedies (each re-planned and checked; {searched}):");
                let shown = if short { 3 } else { usize::MAX };
                for r in s.remedies.iter().take(shown) {
                    let _ = writeln!(
                        o,
                        "    - {}: then {} bytes, saves {}",
                        r.change, r.bytes_after, r.saved
                    );
                }
                if short && s.remedies.len() > shown {
                    let _ = writeln!(o, "    ... run `tilemem explain` for all");
                }
            }
            if ex.budget_exhausted {
                let _ = writeln!(
                    o,
                    "  (the re-planning budget ran out: {})",
                    if short {
                        "`tilemem explain` tries more remedies"
                    } else {
                        "more remedies may exist"
                    }
                );
            }
            if ex.remedies_cut_short > 0 {
                let _ = writeln!(o, "  ({})", cut_short_text(ex));
            }
        }
    }
    o
}

/// `explain --all`: each space as [`render`] shows it, and for a space
/// that fits, what `plan` alone does not say: the sharings a rule refused
/// when the planner used more than the lower bound (why it did), and
/// which tiles went into which buffer (what was shared). `ex` is what
/// [`explain`](super::explain) with `all` found (the refused sharings of
/// every space are in it, as in the report). Spaces that do not fit list
/// no buffers: theirs are not final. The buffers are those of the plan
/// `ex` explains: `program` planned with `run`, the options `ex` was made
/// with (its rules, policy and exact-search limits).
pub fn render_all(ex: &Explanation, program: &Program, run: &PlanOptions) -> String {
    let planner = run.planner;
    let planned = replan_with(program, &run_options(run)).ok();
    let mut o = String::new();
    for s in &ex.spaces {
        let s = s.clone();
        let fits = s.fits;
        let (function, space) = (s.function.clone(), s.space.clone());
        let one = Explanation {
            spaces: vec![s],
            ..ex.clone()
        };
        o.push_str(&render(&one, planner, false));
        let report = planned.as_ref().filter(|_| fits).and_then(|r| {
            r.functions
                .iter()
                .find(|f| f.name == function)
                .and_then(|f| f.spaces.iter().find(|sp| sp.space == space))
        });
        if let Some(sr) = report {
            o.push_str(&buffers_text(&sr.buffers));
        }
    }
    o
}

/// The `buffers:` lines of one space: per buffer (root allocation), its
/// address range and the tiles in it in program order.
fn buffers_text(tiles: &[crate::report::BufferReport]) -> String {
    let mut roots: Vec<(&str, u64, u64, Vec<&crate::report::BufferReport>)> = Vec::new();
    for t in tiles {
        match roots.iter_mut().find(|r| r.0 == t.root) {
            Some(r) => {
                r.1 = r.1.min(t.start);
                r.2 = r.2.max(t.end);
                r.3.push(t);
            }
            None => roots.push((&t.root, t.start, t.end, vec![t])),
        }
    }
    roots.sort_by_key(|r| (r.1, r.0));
    let mut o = format!(
        "  buffers: {} for {}, each with its tiles in program order\n",
        roots.len(),
        count(tiles.len(), "tile")
    );
    let ranges: Vec<String> = roots
        .iter()
        .map(|r| format!("[{}, {})", r.1, r.2))
        .collect();
    let name_w = roots.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let range_w = ranges.iter().map(String::len).max().unwrap_or(0);
    for (r, range) in roots.iter_mut().zip(&ranges) {
        r.3.sort_by_key(|t| (t.def, t.last));
        let names: Vec<&str> = r.3.iter().map(|t| t.name.as_str()).collect();
        // Padded by hand, as the live list is: a width past 65535 is a
        // formatting error.
        let pad = " ".repeat(name_w - r.0.chars().count());
        let pad2 = " ".repeat(range_w - range.len());
        o.push_str(&format!(
            "    {}{pad}  {range}{pad2}  {}\n",
            r.0,
            names.join(", ")
        ));
    }
    o
}

/// What `tilemem explain` prints for a PyPTO program, and what Python's
/// `explain` returns, from the explanation `ex` (made with `all`): the
/// spaces that do not fit; when every space fits, one line for each
/// (without `all`) or each with its buffers ([`render_all`]); and, when no
/// tile is planned at all, why ([`nothing_planned`]), which reads
/// differently from "everything fits". `run` is what `ex` was made with
/// ([`explain_with`](super::explain_with)): whatever this plans again is
/// planned as the run was. `file` names the program.
pub fn render_text(
    ex: &Explanation,
    program: &Program,
    run: &PlanOptions,
    all: bool,
    file: &str,
) -> String {
    let planner = run.planner;
    // Everything fits: the spaces that do, in one line each (without
    // remedies to search, explaining them costs one plan).
    let fitting = (ex.spaces.is_empty() && !all)
        .then(|| super::explain_with(program, run, true, Some(0), None).ok())
        .flatten();
    let nothing =
        ex.spaces.is_empty() && (all || fitting.as_ref().is_some_and(|e| e.spaces.is_empty()));
    if nothing {
        return format!("{}\n", nothing_planned(program, file));
    }
    if all {
        return render_all(ex, program, run);
    }
    let mut text = render(ex, planner, false);
    for s in fitting.iter().flat_map(|e| &e.spaces) {
        let used = s.planned_bytes.map_or("-".to_string(), |b| b.to_string());
        let of = s
            .capacity
            .map_or(" bytes (unlimited capacity)".to_string(), |c| {
                format!(" of {c} bytes")
            });
        let _ = writeln!(
            text,
            "  {}/{}: planner {} uses {used}{of}, lower bound {}",
            s.function,
            s.space,
            planner.name(),
            s.lower_bound()
        );
    }
    text
}

/// Why a PyPTO program got no summary line: no kernel function (the
/// passes plan only InCore, AIC and AIV functions; a bare `@pl.function`
/// is Opaque), or kernels without a tile in on-chip memory. A newcomer's
/// hand-written program often lacks the `type=`.
pub fn nothing_planned(program: &Program, file: &str) -> String {
    let kernels: Vec<&str> = program
        .functions
        .iter()
        .filter(|f| f.kind().is_kernel())
        .map(|f| &*f.name)
        .collect();
    if !kernels.is_empty() {
        return format!(
            "nothing planned: no tile of the kernel functions of {file} ({}) has storage \
             (a MemRef) in on-chip memory",
            kernels.join(", ")
        );
    }
    let others: Vec<String> = program
        .functions
        .iter()
        .map(|f| {
            let kind = match f.kind() {
                FunctionKind::Opaque => "Opaque, the default without type=".to_string(),
                FunctionKind::Orchestration => "Orchestration".to_string(),
                FunctionKind::Other(t) => t.to_string(),
                k => format!("{k:?}"),
            };
            format!("{} ({kind})", f.name)
        })
        .collect();
    format!(
        "nothing planned: {file} has no kernel function; the memory passes plan only \
         `@pl.function(type=pl.FunctionType.InCore)` (or AIC, AIV), and it has {}",
        others.join(", ")
    )
}

/// `n` and the noun, plural unless `n` is 1 ("1 tile", "3 tiles").
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What the remedies' own search budget cut short: how many re-plans
/// stopped at it, the budget (a share of the run's limits) and what to
/// raise.
fn cut_short_text(ex: &Explanation) -> String {
    let share = format!("1/{} of the run's limits", super::REMEDY_SHARE);
    let mut limits = Vec::new();
    if let Some(n) = ex.remedy_node_limit {
        limits.push(format!("{n} nodes"));
    }
    if let Some(t) = ex.remedy_time_limit {
        limits.push(format!("{:.3} s", t.as_secs_f64()));
    }
    format!(
        "the exact search of {} stopped at the remedies' budget without a fit: each re-plan \
         gets {share}, {} per space; a larger --node-limit or --time-limit may find more remedies",
        if ex.remedies_cut_short == 1 {
            "1 re-plan".to_string()
        } else {
            format!("{} re-plans", ex.remedies_cut_short)
        },
        if limits.is_empty() {
            "no limit".to_string()
        } else {
            limits.join(" or ")
        }
    )
}
