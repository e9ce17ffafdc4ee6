//! `pl.system.reserve_buffer` windows: resolve `base=-1` (AUTO) to explicit
//! bases and report where tiles may start.
//!
//! AIC functions reserve in Mat, AIV/InCore functions in Vec. AUTO windows
//! take consecutive 32-byte aligned bases from 0 in program order; explicit
//! bases are kept. Overlapping windows are PyPTO's internal error.

use std::collections::BTreeMap;

use super::model::align_up;
use crate::ir::{Expr, Function, MemSpace, StmtId};
use crate::passes::allocate_memory_addr::reserve_space;
use crate::passes::PassError;

/// One reserved window after resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub stmt: StmtId,
    pub base: u64,
    pub size: u64,
    /// Whether the base was AUTO and must be written back.
    pub auto: bool,
}

fn int_kwarg(call: &crate::ir::Call, name: &str) -> Option<i64> {
    call.kwarg(name).and_then(Expr::as_int)
}

/// Resolves the windows of `f`; returns them and the reserved end per space.
pub(crate) fn resolve(f: &Function) -> Result<(Vec<Window>, BTreeMap<MemSpace, u64>), PassError> {
    let mut windows = Vec::new();
    let mut cursor = 0u64;
    for (_, s) in f.walk() {
        let Some(call) = f.stmts[s].call() else {
            continue;
        };
        if call.op_name() != "system.reserve_buffer" {
            continue;
        }
        let size = int_kwarg(call, "size").unwrap_or(0).max(0) as u64;
        let base = int_kwarg(call, "base").unwrap_or(-1);
        let (base, auto) = if base < 0 {
            let b = cursor;
            cursor = align_up(b.saturating_add(size));
            (b, true)
        } else {
            (base as u64, false)
        };
        windows.push(Window {
            stmt: s,
            base,
            size,
            auto,
        });
    }
    let mut sorted: Vec<&Window> = windows.iter().collect();
    sorted.sort_by_key(|w| (w.base, w.size));
    for k in 1..sorted.len() {
        let (p, c) = (sorted[k - 1], sorted[k]);
        if c.base < p.base.saturating_add(p.size) && c.size > 0 && p.size > 0 {
            return Err(PassError::internal(format!(
                "overlapping reserve_buffer ranges in function '{}': [{}, {}) overlaps with [{}, {})",
                f.name,
                c.base,
                c.base.saturating_add(c.size),
                p.base,
                p.base.saturating_add(p.size)
            )));
        }
    }
    let mut ends = BTreeMap::new();
    if let Some(end) = windows
        .iter()
        .map(|w| align_up(w.base.saturating_add(w.size)))
        .max()
    {
        ends.insert(reserve_space(f), end);
    }
    Ok((windows, ends))
}

/// Writes resolved AUTO bases back (`base=-1` becomes `base=N`).
pub(crate) fn write_back(f: &mut Function, windows: &[Window]) {
    for w in windows {
        if let Some(call) = f.stmts[w.stmt].call_mut() {
            call.set_kwarg("base", Expr::Int(w.base as i64));
        }
    }
}
