//! The explanation as JSON: what `tilemem explain --report` writes and
//! what Python's `tilemem.explain` returns, from this one function.

use serde_json::json;

use super::{Explanation, SpaceExplain};
use crate::passes::PlannerMode;

/// The explanation's facts: the planner, its error (if any), whether the
/// re-planning budget ran out, how many remedy re-plans the remedies'
/// search budget stopped without a fit, and one entry per space explained (see
/// [`space_json`] for its keys).
pub fn report_json(ex: &Explanation, planner: PlannerMode) -> serde_json::Value {
    json!({
        "planner": planner.name(),
        "error": ex.error.as_ref().map(|e| e.to_string()),
        "replan_budget_exhausted": ex.budget_exhausted,
        "remedy_searches_cut_short": ex.remedies_cut_short,
        "spaces": ex.spaces.iter().map(space_json).collect::<Vec<_>>(),
    })
}

/// One space: `function`, `space`, `capacity`, `fits`, `planned_bytes`,
/// `reserved`, `co_live`, `lower_bound`, `proven_over_capacity`, `peak`
/// (`statement`, `line`, `op`), `live` (each tile's `name`, `bytes`,
/// `shape`, `dtype`, `line`, `def`, `last`), `live_total`,
/// `refused_sharings` (the text's list of the sharings a rule refused:
/// `a`, `b`, `rule`, `line`, `bytes`, and `never_together`: live together
/// in program order but never on one path, listed under the optimal
/// planner only) and `remedies` (`change`, `bytes_after`, `saved`).
pub fn space_json(s: &SpaceExplain) -> serde_json::Value {
    json!({
        "function": s.function,
        "space": s.space,
        "capacity": s.capacity,
        "fits": s.fits,
        "planned_bytes": s.planned_bytes,
        "reserved": s.reserved,
        "co_live": s.co_live,
        "lower_bound": s.lower_bound(),
        "proven_over_capacity": s.proven_over(),
        "peak": {"statement": s.peak_at, "line": s.peak_line, "op": s.peak_stmt},
        "live": s.live.iter().map(|t| json!({
            "name": t.name, "bytes": t.bytes, "shape": t.shape, "dtype": t.dtype,
            "line": t.line, "def": t.def, "last": t.last,
        })).collect::<Vec<_>>(),
        "live_total": s.live_total(),
        "refused_sharings": s.refused.iter().map(|r| json!({
            "a": r.a, "b": r.b, "rule": r.rule, "line": r.line, "bytes": r.bytes,
            "never_together": r.never_together,
        })).collect::<Vec<_>>(),
        "remedies": s.remedies.iter().map(|r| json!({
            "change": r.change, "bytes_after": r.bytes_after, "saved": r.saved,
        })).collect::<Vec<_>>(),
    })
}
