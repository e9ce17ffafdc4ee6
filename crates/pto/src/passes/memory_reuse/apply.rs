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

use super::packing::{defined_by_view, Packing, Placement};
use crate::ir::MemBase;
use crate::ir::{BinOp, Expr, Function, MemRef, MemRefParts, StmtKind, Type, VarDef, VarId};
use crate::passes::analysis::roots::AllocationLifetimes;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// A hashable stand-in for a [`MemBase`], to index phis by the base they name.
#[derive(Clone, PartialEq, Eq, Hash)]
enum BaseKey {
    Var(VarId),
    Named(std::sync::Arc<str>),
}

impl BaseKey {
    fn of(b: &MemBase) -> Self {
        match b {
            MemBase::Var(v) => BaseKey::Var(*v),
            MemBase::Named(n) => BaseKey::Named(n.clone()),
        }
    }
}

/// One moved root as [`moved_memref`] needs it: where it goes, its size,
/// and the whole-root MemRefs of it and of its arena, taken before any
/// member is rewritten.
pub struct Move<'a> {
    /// Where the root's bytes go.
    pub placement: Placement,
    /// Byte size of the moved root.
    pub size: u64,
    /// The MemRef naming the whole moved root.
    pub own: &'a MemRef,
    /// The MemRef naming the whole arena.
    pub arena: &'a MemRef,
}

/// The MemRef a member `v` of a moved root gets.
pub fn moved_memref(f: &Function, v: VarId, old: &MemRef, mv: &Move<'_>) -> MemRef {
    let p = mv.placement;
    let arena = mv.arena;
    if defined_by_view(f, v) {
        let offset = match (old.const_offset(), &old.offset()) {
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
        MemRef::from(MemRefParts {
            base: arena.base(),
            offset,
            size: old.size(),
            slots: old.slots(),
            slot_index: old.slot_index().cloned(),
        })
    } else if !crate::passes::rewrite::storage::same_window(old, mv.own)
        && !covers_root(old, mv.size)
    {
        // A window inside its root (placed there by an earlier sub-range
        // packing): keep it, shifted into the arena.
        let k = old
            .const_offset()
            .unwrap_or(0)
            .saturating_add(i64::try_from(p.offset).unwrap_or(i64::MAX));
        MemRef::from(MemRefParts {
            base: arena.base(),
            offset: Some(Expr::const_i64(k)),
            size: old.size(),
            slots: old.slots(),
            slot_index: old.slot_index().cloned(),
        })
    } else if p.offset == 0 && !p.sub_range {
        arena.clone()
    } else {
        MemRef::new(
            arena.base(),
            i64::try_from(p.offset).unwrap_or(i64::MAX),
            mv.size,
        )
    }
}

/// Whether `m` is the whole of a root of `size` bytes.
fn covers_root(m: &MemRef, size: u64) -> bool {
    m.const_offset() == Some(0) && m.size() == Some(size) && m.slot_index().is_none()
}

/// Rewrites the MemRefs of every assignment-defined member of a moved root,
/// and of every `if` result that names the root: in PyPTO a phi shares its
/// MemRef object with the root's members, so moving the root moves the phi
/// too (split-K accumulators: an `if` whose branches both write the moved
/// Acc buffer keeps naming it, and no copy is needed).
pub fn apply(f: &mut Function, lt: &AllocationLifetimes, placement: &Packing) {
    // `if` results grouped by the base their MemRef names now, in variable
    // order; kept current as MemRefs move, so each root finds its phis
    // without scanning every phi of the function.
    let mut phis: HashMap<BaseKey, BTreeSet<VarId>> = HashMap::default();
    let phi_ids: Vec<VarId> = f
        .vars
        .iter()
        .filter(
            |(_, d)| matches!(d.def, VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::If(_))),
        )
        .map(|(v, _)| v)
        .collect();
    let is_phi: BTreeSet<VarId> = phi_ids.iter().copied().collect();
    for &v in &phi_ids {
        if let Some(m) = f.vars[v].ty.as_ref().and_then(Type::memref) {
            phis.entry(BaseKey::of(&m.base())).or_default().insert(v);
        }
    }
    for (r, p) in placement.iter() {
        if p.arena == r && p.offset == 0 {
            continue;
        }
        let base = &lt.base(r);
        let moved_phis: Vec<VarId> = phis
            .get(&BaseKey::of(base))
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        let members: Vec<VarId> = lt.members(r).iter().copied().chain(moved_phis).collect();
        // The group's first-defined member takes the target's MemRef whole
        // (members are listed in definition order).
        let first = lt.members(r).first().copied();
        // Both whole-root MemRefs before the members change (the first
        // owning member names the root).
        let own = lt.canonical(f, r);
        let target = &lt.canonical(f, p.arena);
        let mv = Move {
            placement: p,
            size: lt.roots[r].size,
            own: &own,
            arena: target,
        };
        for m in members {
            let Some(old) = f.vars[m].ty.as_ref().and_then(Type::memref).cloned() else {
                continue;
            };
            let mut new = moved_memref(f, m, &old, &mv);
            // Every other member keeps its own size when it differs from the
            // target's: offset = target offset + its relative offset, an
            // INDEX constant that prints as a bare integer.
            if Some(m) != first
                && new == *target
                && !defined_by_view(f, m)
                && old.size().is_some()
                && old.size() != target.size()
            {
                let rel = old.const_offset().unwrap_or(0);
                let base_off = target.const_offset().unwrap_or(0);
                new = MemRef::from(MemRefParts {
                    base: target.base(),
                    offset: Some(Expr::Int(base_off.saturating_add(rel))),
                    size: old.size(),
                    slots: old.slots(),
                    slot_index: old.slot_index().cloned(),
                });
            }
            // A view at offset 0 of its root with the target's size takes
            // the target's MemRef object too (`pl.const(0, pl.INT64)`).
            if p.offset == 0
                && !p.sub_range
                && defined_by_view(f, m)
                && old.const_offset() == Some(0)
                && old.size() == target.size()
                && old.slots().is_none()
                && old.slot_index().is_none()
            {
                new = target.clone();
            }
            if is_phi.contains(&m) && new.base() != old.base() {
                if let Some(set) = phis.get_mut(&BaseKey::of(&old.base())) {
                    set.remove(&m);
                }
                phis.entry(BaseKey::of(&new.base())).or_default().insert(m);
            }
            // A MemRef with a plain-integer offset is one made for this
            // member alone (PyPTO's rebased views and members of another
            // size): an object of its own.
            if matches!(new.offset(), Some(Expr::Int(_))) {
                f.sharing.own_memrefs.insert(m);
            }
            if let Some(slot) = f.vars[m].ty.as_mut().and_then(Type::memref_mut) {
                *slot = Some(new);
            }
        }
    }
}
