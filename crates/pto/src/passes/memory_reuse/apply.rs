//! Applies a packing to the program (PyPTO's `ApplyMemRefSharing`).
//!
//! Only assignment-defined variables are rewritten here; loop iter args,
//! loop results and `if` results keep their MemRefs until the yield fix-up
//! realigns them. A variable whose root moved into arena `P` at offset `o`:
//! - owns its root (not a view): takes `P`'s whole MemRef in whole-buffer
//!   sharing (so it prints the representative's size); placed by the
//!   sub-range fallback it keeps its own extent,
//!   `pl.MemRef(P, pl.const(o), size of its root)`;
//! - is a view (or a bare alias of one): keeps its own window, rebased:
//!   base `P`, offset `o + its offset` (an integer), same size and slots.

use super::lifetime::{AllocationLifetimes, RootId};
use super::packing::{defined_by_view, Placement};
use crate::ir::{BinOp, Expr, Function, MemRef, Type, VarId};
use std::collections::BTreeMap;

/// The MemRef a member of a moved root gets.
pub fn moved_memref(
    f: &Function,
    lt: &AllocationLifetimes,
    v: VarId,
    old: &MemRef,
    root: RootId,
    p: Placement,
) -> MemRef {
    let arena = &lt.roots[p.arena];
    if defined_by_view(f, v) {
        let offset = match (old.const_offset(), &old.offset) {
            (Some(k), _) => Some(Expr::Int(
                k.saturating_add(i64::try_from(p.offset).unwrap_or(i64::MAX)),
            )),
            (None, Some(e)) if p.offset == 0 => Some(e.clone()),
            (None, Some(e)) => Some(Expr::Binary(
                BinOp::Add,
                Box::new(Expr::Int(i64::try_from(p.offset).unwrap_or(i64::MAX))),
                Box::new(e.clone()),
            )),
            (None, None) => None,
        };
        MemRef {
            base: arena.base.clone(),
            offset,
            size: old.size,
            slots: old.slots,
            slot_index: old.slot_index.clone(),
        }
    } else if !super::storage::same_window(old, &lt.roots[root].canonical)
        && !covers_root(old, lt.roots[root].size)
    {
        // A window inside its root (placed there by an earlier sub-range
        // packing): keep it, shifted into the arena.
        let k = old
            .const_offset()
            .unwrap_or(0)
            .saturating_add(i64::try_from(p.offset).unwrap_or(i64::MAX));
        MemRef {
            base: arena.base.clone(),
            offset: Some(Expr::const_i64(k)),
            size: old.size,
            slots: old.slots,
            slot_index: old.slot_index.clone(),
        }
    } else if p.offset == 0 && !p.sub_range {
        arena.canonical.clone()
    } else {
        MemRef::new(
            arena.base.clone(),
            i64::try_from(p.offset).unwrap_or(i64::MAX),
            lt.roots[root].size,
        )
    }
}

/// Whether `m` is the whole of a root of `size` bytes.
fn covers_root(m: &MemRef, size: u64) -> bool {
    m.const_offset() == Some(0) && m.size == Some(size) && m.slot_index.is_none()
}

/// Rewrites the MemRefs of every assignment-defined member of a moved root.
pub fn apply(f: &mut Function, lt: &AllocationLifetimes, placement: &BTreeMap<RootId, Placement>) {
    for (&r, &p) in placement {
        if p.arena == r && p.offset == 0 {
            continue;
        }
        for &m in &lt.roots[r].members {
            let Some(old) = f.vars[m].ty.as_ref().and_then(Type::memref).cloned() else {
                continue;
            };
            let new = moved_memref(f, lt, m, &old, r, p);
            if let Some(slot) = f.vars[m].ty.as_mut().and_then(Type::memref_mut) {
                *slot = Some(new);
            }
        }
    }
}
