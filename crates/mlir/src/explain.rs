//! Why a HIVM function needs the local memory it needs, and what would
//! make it fit: `tilemem explain FILE.mlir`.
//!
//! For each (function, space) the facts of
//! [`crate::passes::plan_memory::explain`] (peak op, live allocations,
//! lower bound), what the planner used (or that it overflowed), and for a
//! space that does not fit, remedies, each found by re-planning a changed
//! copy of the module (never by a formula) and kept only when the
//! re-planned function fits, checked like any plan:
//! - use `planner=optimal`;
//! - drop the `hivm.multi_buffer` mark of a live allocation;
//! - shrink the first dimension of one of the three largest live
//!   allocations: the largest value, halving, with which the function fits.
//!
//! Assumes: the text reads as an MLIR module. Guarantees: deterministic;
//! the input is not changed.

use std::fmt::Write as _;

use serde_json::json;

use crate::ir::{Diagnostic, Module, OpId};
use crate::memplan::{plan_module, with_device_spec, PlanFailure, PlanRequest};
use crate::parse::{parse_module, ParseOptions};
use crate::pass::PassContext;
use crate::passes::plan_memory::explain::{space_facts, LiveBuffer, SpaceFacts};
use crate::passes::plan_memory::optimal::Planner;
use crate::passes::plan_memory::Variant;

/// A change that makes a space fit, found by re-planning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    /// What to change, in the user's terms.
    pub change: String,
    /// Bytes the space uses after the change.
    pub bytes_after: u64,
}

/// The explanation of one (function, space).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceExplain {
    /// Peak, live set, lower bound.
    pub facts: SpaceFacts,
    /// Bytes the planner's placement uses (`None`: not placed).
    pub planned: Option<u64>,
    /// Whether the planner placed the space within its capacity.
    pub fits: bool,
    /// Remedies (only for a space that does not fit).
    pub remedies: Vec<Remedy>,
}

/// The explanation of a module.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The chip planned for.
    pub chip: String,
    /// The planner's errors, when it failed.
    pub errors: Vec<Diagnostic>,
    /// Per (function, space).
    pub spaces: Vec<SpaceExplain>,
}

/// Bytes the plan of `module` uses in `space` of the function at `func`,
/// or `None` when it does not plan.
fn used_after(mut module: Module, req: &PlanRequest, func: OpId, space: &str) -> Option<u64> {
    plan_module(&mut module, req).ok()?;
    let name = module.func_name(func)?.to_string();
    crate::memplan::planned_functions(&module)
        .into_iter()
        .find(|f| f.name == name)?
        .spaces
        .into_iter()
        .find(|s| s.space == space)
        .map(|s| s.used)
}

/// A copy of `m` without the functions of `funcs` other than `keep`.
fn alone(m: &Module, keep: OpId, funcs: &[OpId]) -> Module {
    let mut m = m.clone();
    for &f in funcs {
        if f != keep {
            m.erase_op(f);
        }
    }
    m
}

/// Whether `errors` report an overflow of `space` at `func`.
fn overflows(m: &Module, errors: &[Diagnostic], func: OpId, space: &str) -> bool {
    let prefix = format!("{space} overflow, requires ");
    errors
        .iter()
        .any(|d| d.loc == m.op(func).loc && d.message.starts_with(&prefix))
}

/// The `annotation.mark`s that set a multi-buffer factor on `alloc`'s result.
fn multi_buffer_marks(m: &Module, alloc: OpId) -> Vec<OpId> {
    let Some(v) = m.op(alloc).result(0) else {
        return Vec::new();
    };
    m.users(v)
        .into_iter()
        .filter(|&u| m.op(u).is("annotation.mark") && m.op(u).attr("hivm.multi_buffer").is_some())
        .collect()
}

/// Explains `text` planned under `req` (see the module docs); `all`
/// explains every space, not only those that do not fit.
pub fn explain_text(text: &str, req: &PlanRequest, all: bool) -> Result<Explanation, PlanFailure> {
    let module = parse_module(text, &ParseOptions::default()).map_err(|d| PlanFailure {
        diagnostics: vec![d],
        bad_input: true,
    })?;
    explain_module(&module, req, all, false)
}

/// Explains `original` (a module as read, or as the passes before
/// PlanMemory left it) planned under `req`; see [`explain_text`]. With
/// `first_remedy`, the search for remedies stops at the first found (the
/// short form after an overflow shows only that one).
pub fn explain_module(
    original: &Module,
    req: &PlanRequest,
    all: bool,
    first_remedy: bool,
) -> Result<Explanation, PlanFailure> {
    let mut module = original.clone();
    let chip = with_device_spec(&mut module, req, &mut PassContext::default())?;
    let variant = if chip.is_regbase() {
        Variant::Regbase
    } else {
        Variant::Membase
    };
    let facts = space_facts(&module, &req.options, variant).map_err(|d| PlanFailure {
        diagnostics: vec![d],
        bad_input: true,
    })?;
    // Each function is planned alone (the others erased), so that one
    // function's overflow does not hide another's, and remedies are
    // measured on the function they change.
    let funcs: Vec<OpId> = facts.iter().fold(Vec::new(), |mut v, f| {
        if !v.contains(&f.func) {
            v.push(f.func);
        }
        v
    });
    let mut errors = Vec::new();
    let mut spaces = Vec::new();
    for &func in &funcs {
        let alone = alone(original, func, &funcs);
        let mut planned = alone.clone();
        let (used, errs) = match plan_module(&mut planned, req) {
            Ok(_) => (crate::memplan::planned_functions(&planned), Vec::new()),
            Err(f) if f.bad_input => return Err(f),
            Err(f) => (Vec::new(), f.diagnostics),
        };
        for facts in facts.iter().filter(|f| f.func == func) {
            let bytes = used
                .iter()
                .find(|f| f.name == facts.function)
                .and_then(|f| f.spaces.iter().find(|s| s.space == facts.space))
                .map(|s| s.used);
            let fits = errs.is_empty() || !overflows(&alone, &errs, func, &facts.space);
            if fits && !all {
                continue;
            }
            let remedies = if fits {
                Vec::new()
            } else {
                remedies(&alone, req, facts, first_remedy)
            };
            spaces.push(SpaceExplain {
                facts: facts.clone(),
                planned: bytes,
                fits,
                remedies,
            });
        }
        errors.extend(errs);
    }
    Ok(Explanation {
        chip: chip.name.to_string(),
        errors,
        spaces,
    })
}

/// The remedies of a space that does not fit (see the module docs).
fn remedies(
    original: &Module,
    req: &PlanRequest,
    facts: &SpaceFacts,
    first_only: bool,
) -> Vec<Remedy> {
    let (func, space) = (facts.func, facts.space.as_str());
    let mut out = Vec::new();
    if req.options.planner != Planner::Optimal {
        let mut optimal = req.clone();
        optimal.options.planner = Planner::Optimal;
        if let Some(b) = used_after(original.clone(), &optimal, func, space) {
            out.push(Remedy {
                change: "use the optimal planner (-hivm-plan-memory=planner=optimal)".into(),
                bytes_after: b,
            });
            if first_only {
                return out;
            }
        }
    }
    for b in &facts.live {
        let marks = multi_buffer_marks(original, b.alloc);
        if marks.is_empty() {
            continue;
        }
        let mut m = original.clone();
        for &mark in &marks {
            m.remove_attr(mark, "hivm.multi_buffer");
        }
        if let Some(after) = used_after(m, req, func, space) {
            out.push(Remedy {
                change: format!(
                    "drop the hivm.multi_buffer mark of the allocation at line {} ({}){}",
                    b.loc.line,
                    b.ty,
                    at_source(&b.source)
                ),
                bytes_after: after,
            });
            if first_only {
                return out;
            }
        }
    }
    for b in facts.live.iter().take(3) {
        let Some(v) = original.op(b.alloc).result(0) else {
            continue;
        };
        let ty = original.value_type(v).clone();
        let Some(mt) = ty.as_memref() else { continue };
        let Some(d) = mt.shape.iter().position(|&n| n > 1) else {
            continue;
        };
        let full = mt.shape[d];
        let mut n = full / 2;
        while n >= 1 {
            let mut m = original.clone();
            let mut t = ty.clone();
            if let Some(mt) = t.as_memref_mut() {
                mt.shape[d] = n;
            }
            m.set_type(v, t);
            if let Some(after) = used_after(m, req, func, space) {
                out.push(Remedy {
                    change: format!(
                        "shrink dimension {d} of the allocation at line {} ({}){} from {full} to {n}",
                        b.loc.line,
                        b.ty,
                        at_source(&b.source)
                    ),
                    bytes_after: after,
                });
                if first_only {
                    return out;
                }
                break;
            }
            n /= 2;
        }
    }
    out
}

/// One live allocation: `line L:C  TYPE  N bytes[ xK (multi-buffer)]`.
fn live_line(b: &LiveBuffer) -> String {
    let slots = if b.slots > 1 {
        format!(" x{} (multi-buffer)", b.slots)
    } else {
        String::new()
    };
    format!(
        "line {}:{}  {}  {} bytes{slots}{}",
        b.loc.line,
        b.loc.col,
        b.ty,
        b.bytes,
        at_source(&b.source)
    )
}

/// `  (at kernel.py:12:24)` for a `loc(...)` that leads to a source line.
fn at_source(source: &Option<String>) -> String {
    source
        .as_ref()
        .map_or(String::new(), |s| format!("  (at {s})"))
}

/// Where the peak is: `file:line:col (op)`, then the source line the op's
/// `loc(...)` names when it has one (both renderings print it so).
fn peak_at(f: &SpaceFacts, file: &str) -> String {
    format!(
        "{file}:{}:{} ({}){}",
        f.peak_loc.line,
        f.peak_loc.col,
        f.peak_op,
        at_source(&f.peak_source)
    )
}

/// `lower bound: N bytes` and what it proves.
fn bound_line(s: &SpaceExplain) -> String {
    let f = &s.facts;
    let verdict = if f.proven_over() {
        format!(
            "> capacity {}: no placement fits ({} bytes short)",
            f.capacity,
            f.lower_bound - f.capacity
        )
    } else if !s.fits {
        format!(
            "<= capacity {}: a placement could fit; the planner's order refused it",
            f.capacity
        )
    } else {
        format!("<= capacity {}", f.capacity)
    };
    format!("lower bound: {} bytes {verdict}", f.lower_bound)
}

/// Live allocations the short form lists.
const SHORT_LIVE: usize = 3;

impl Explanation {
    /// The short form printed after an overflow error (`tilemem opt`), per
    /// space that does not fit: the peak op, the largest allocations live
    /// there, whether the lower bound proves nothing fits, and the best
    /// remedy found: the first in the order of `remedies`, which tries
    /// the changes that leave the kernel as written (the optimal planner)
    /// before those that change it, and each is re-planned and checked.
    /// `file` names the input.
    pub fn render_short(&self, file: &str) -> String {
        let mut o = String::new();
        for s in self.spaces.iter().filter(|s| !s.fits) {
            let f = &s.facts;
            let _ = writeln!(
                o,
                "explain: @{}/{} does not fit its {} bytes ({}); peak at {}",
                f.function,
                f.space,
                f.capacity,
                self.chip,
                peak_at(f, file)
            );
            let total: u64 = f.live.iter().map(|b| b.total()).sum();
            let _ = writeln!(
                o,
                "  live there: {} allocations, {total} bytes; the largest:",
                f.live.len()
            );
            for b in f.live.iter().take(SHORT_LIVE) {
                let _ = writeln!(o, "    {}", live_line(b));
            }
            if f.live.len() > SHORT_LIVE {
                let _ = writeln!(o, "    ... {} more", f.live.len() - SHORT_LIVE);
            }
            let _ = writeln!(o, "  {}", bound_line(s));
            match s.remedies.first() {
                Some(r) => {
                    let _ = writeln!(
                        o,
                        "  best remedy (re-planned and checked): {}: then {} bytes",
                        r.change, r.bytes_after
                    );
                }
                None => o.push_str("  remedies: none found by re-planning (split the kernel)\n"),
            }
        }
        if !o.is_empty() {
            let _ = writeln!(o, "  the whole story: tilemem explain {file}");
        }
        o
    }

    /// The explanation as text (`tilemem explain`): `planner` names the
    /// planner explained, `file` the input in locations.
    pub fn render(&self, planner: &str, file: &str) -> String {
        let ex = self;
        let mut o = String::new();
        if ex.spaces.is_empty() {
            o.push_str("every space fits its capacity (use --all to explain each)\n");
        }
        for s in &ex.spaces {
            let f = &s.facts;
            let head = match (s.fits, s.planned) {
                (true, Some(b)) => format!("fits: planner {planner} uses {b} bytes"),
                (true, None) => "fits".to_string(),
                (false, _) => format!("does not fit: planner {planner} overflows"),
            };
            let _ = writeln!(
                o,
                "@{}/{}: {head}, capacity {} bytes ({})",
                f.function, f.space, f.capacity, ex.chip
            );
            let _ = writeln!(o, "  peak: {}", peak_at(f, file));
            let total: u64 = f.live.iter().map(|b| b.total()).sum();
            let _ = writeln!(
                o,
                "  live at the peak: {} allocations, {total} bytes",
                f.live.len()
            );
            for b in &f.live {
                let _ = writeln!(o, "    {}", live_line(b));
            }
            let _ = writeln!(o, "  {}", bound_line(s));
            if !s.fits {
                if s.remedies.is_empty() {
                    o.push_str("  remedies: none found by re-planning (split the kernel)\n");
                } else {
                    o.push_str("  remedies (each re-planned and checked):\n");
                    for r in &s.remedies {
                        let _ = writeln!(o, "    - {}: then {} bytes", r.change, r.bytes_after);
                    }
                }
            }
        }
        o
    }
}

/// The explanation as JSON (the same facts as the text): what `tilemem
/// explain FILE.mlir --report` writes and Python's `tilemem.explain`
/// returns. Per (function, space) the capacity, whether and in how many
/// bytes the planner placed it, the peak op and its locations, the live
/// allocations, the lower bound and the remedies.
pub fn report_json(ex: &Explanation, planner: &str) -> serde_json::Value {
    let at = |l: &crate::ir::Location| json!({"line": l.line, "col": l.col});
    json!({
        "planner": planner,
        "chip": ex.chip,
        "errors": ex.errors.iter().map(|d| d.message.clone()).collect::<Vec<_>>(),
        "spaces": ex.spaces.iter().map(|s| {
            let f = &s.facts;
            json!({
                "function": f.function,
                "space": f.space,
                "capacity": f.capacity,
                "fits": s.fits,
                "planned_bytes": s.planned,
                "peak": {"op": f.peak_op, "at": at(&f.peak_loc), "source": f.peak_source},
                "live": f.live.iter().map(|b| json!({
                    "type": b.ty, "bytes": b.bytes, "slots": b.slots,
                    "at": at(&b.loc), "source": b.source,
                })).collect::<Vec<_>>(),
                "lower_bound": f.lower_bound,
                "proven_over_capacity": f.proven_over(),
                "remedies": s.remedies.iter().map(|r| json!({
                    "change": r.change, "bytes_after": r.bytes_after,
                })).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
    })
}
