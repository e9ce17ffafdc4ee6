//! Writing a DSA_RP placement back into the program in PyPTO's format.
//!
//! - every tile whose MemRef points into a placed root gets the absolute
//!   address `root address + relative offset`, printed
//!   `pl.const(N, pl.INT64)`; a view whose relative offset is dynamic
//!   gets its root's base address alone, the dynamic part staying in the
//!   view op's own offset arguments;
//! - `tile.alloc` statements stay as they are (PyPTO's DSA_RP output keeps
//!   them without an address); allocs no tile references are removed;
//! - the `pipeline_membership` attribute, consumed by planning, is stripped
//!   (an `attrs` dict left empty is dropped).

use std::collections::BTreeMap;

use crate::ir::{EntityRef, Expr, Function, Type, VarId};

/// Rewrites the MemRefs of `f` for `addr` (alloc var index -> address).
///
/// Each tile goes to its root's address plus its offset within the root
/// (seed 001: `slot base + member offset`); a planned input's offsets were
/// made relative to each root's address before planning (the pipeline
/// driver's `prepare_planned`), so re-planning a planned program gives the
/// same addresses.
pub(crate) fn apply(f: &mut Function, addr: &BTreeMap<usize, u64>) {
    let vars: Vec<VarId> = f.vars.keys().collect();
    for v in vars {
        let Some(Type::Tile(_, Some(m))) = f.vars[v].ty.as_mut() else {
            continue;
        };
        let Some(r) = m.base_var() else { continue };
        let Some(&base) = addr.get(&r.index()) else {
            continue;
        };
        let base_i = i64::try_from(base).unwrap_or(i64::MAX);
        let new = match m.offset().as_ref() {
            None => Expr::const_i64(base_i),
            Some(e) => match e.as_int() {
                Some(off) => Expr::const_i64(base_i.saturating_add(off)),
                // A dynamic element offset stays in the view's own
                // arguments (e.g. `tile.slice` offsets); the MemRef only
                // records the slot's base address (seed 001, AllocateMemoryAddr).
                None => Expr::const_i64(base_i),
            },
        };
        m.set_offset(Some(new));
    }
}
