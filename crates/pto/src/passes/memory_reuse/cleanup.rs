//! Clean-up after sharing: strip the consumed `pipeline_membership`
//! attributes and remove `pl.tile.alloc` statements no variable refers to
//! any more (PyPTO's `UsedMemRefCollector` + `RemoveUnusedAllocStatements`).

use rustc_hash::FxHashSet as HashSet;

use crate::ir::{Block, Expr, Function, Type};

/// Removes `"pipeline_membership"` from every call's `attrs={...}`; an
/// `attrs` left empty is dropped.
pub fn strip_pipeline_membership(f: &mut Function) {
    let ids: Vec<_> = f.walk().into_iter().map(|(_, s)| s).collect();
    for s in ids {
        let Some(call) = f.stmts[s].call_mut() else {
            continue;
        };
        let Some(Expr::Dict(items)) = call.kwarg_mut("attrs") else {
            continue;
        };
        let before = items.len();
        let mut kept = std::mem::take(items).into_vec();
        kept.retain(|(k, _)| k.as_str() != Some("pipeline_membership"));
        *items = kept.into();
        if items.is_empty() && before > 0 {
            call.remove_kwarg("attrs");
        }
    }
}

/// Removes the top-level allocations whose root no variable's MemRef names.
/// Returns how many were removed.
pub fn remove_dead_allocs(f: &mut Function) -> usize {
    let mut used = HashSet::default();
    for d in f.vars.values() {
        let m = d.ty.as_ref().and_then(Type::memref);
        if let Some(v) = m.and_then(|m| m.base_var()) {
            used.insert(v);
        }
    }
    let dead: HashSet<_> = f
        .allocs()
        .into_iter()
        .filter(|a| !used.contains(&a.var))
        .map(|a| a.stmt)
        .collect();
    // Removing releases each statement's payload too.
    f.remove_where(Block::Body, |s| dead.contains(&s));
    dead.len()
}
