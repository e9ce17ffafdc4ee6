//! Identity-copy normalisation (PyPTO's `NormalizeIdentityCopyBuffersMutator`),
//! run before and after the yield fix-up.
//!
//! After retargeting, a result declaration can still name a stale window. One
//! forward walk restores every required alias, so arbitrarily long alias
//! chains are fixed without iterating to a fixpoint and a second run changes
//! nothing:
//! - a bare alias `x = y` takes `y`'s current window;
//! - a registered write-back result (`output_reuses_input`) takes its input's
//!   current window;
//! - a view keeps its window size and its offset relative to its source as
//!   they were when the pass started, on the source's current storage.
//!
//! Only tiles are rewritten; a result already on the right window is left
//! untouched (so its printed form does not change).

use super::storage::{current_memref, rebase, same_window, set_memref, starts_within};
use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Expr, Function, MemRef, StmtKind, Type, VarId};
use crate::ops;
use crate::passes::analysis::walk::stmts;

/// MemRefs of views and their sources when the pass started (only views
/// look back; a copy of every variable's MemRef cost a sixth of the peak
/// memory of planning a long kernel).
pub struct Snapshot(HashMap<VarId, MemRef>);

impl Snapshot {
    fn get(&self, v: VarId) -> Option<&MemRef> {
        self.0.get(&v)
    }
}

/// Records the MemRefs of `f`'s views and their sources (for a source
/// without a MemRef of its own, a loop iter arg as printed, the storage it
/// carries).
pub fn snapshot(f: &Function) -> Snapshot {
    let mut m: HashMap<VarId, MemRef> = HashMap::default();
    for (_, s) in stmts(f) {
        let StmtKind::Assign {
            targets,
            value: Expr::Call(call),
        } = &f.stmts[s].kind
        else {
            continue;
        };
        let [x] = targets.as_slice() else { continue };
        if !ops::lookup_or_default(call.op_name()).is_view() {
            continue;
        }
        let src = call.args.first().and_then(Expr::as_var);
        for v in [Some(*x), src].into_iter().flatten() {
            if m.contains_key(&v) {
                continue;
            }
            let own = f.vars[v].ty.as_ref().and_then(Type::memref).cloned();
            let carried = || (Some(v) == src).then(|| current_memref(f, v)).flatten();
            if let Some(mr) = own.or_else(carried) {
                m.insert(v, mr);
            }
        }
    }
    Snapshot(m)
}

/// Runs the normalisation over `f`.
pub fn normalize(f: &mut Function, snap: &Snapshot) {
    for (_, s) in f.walk() {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            continue;
        };
        let [x] = targets.as_slice() else { continue };
        let x = *x;
        let Some(Type::Tile(_, Some(cur))) = f.vars[x].ty.as_ref() else {
            continue;
        };
        let cur = cur.clone();
        let want = match value {
            Expr::Var(y) => current_memref(f, *y),
            Expr::Call(call) => {
                let info = ops::lookup_or_default(call.op_name());
                if let Some(i) = info.output_binds_input() {
                    call.args
                        .get(i)
                        .and_then(Expr::as_var)
                        .filter(|y| matches!(f.vars[*y].ty, Some(Type::Tile(_, _)) | None))
                        .and_then(|y| current_memref(f, y))
                        // An in-place result already at its input's start
                        // keeps its own size (PyPTO rewrites group members
                        // so: see `apply`).
                        .filter(|w| !starts_within(&cur, w) && !starts_within(w, &cur))
                } else if info.is_view() {
                    let src = call.args.first().and_then(Expr::as_var);
                    match (src, snap.get(x)) {
                        (Some(src), Some(old_x)) => match (snap.get(src), current_memref(f, src)) {
                            (Some(old_src), Some(now)) if !same_window(old_src, &now) => {
                                Some(rebase(old_x, old_src, &now))
                            }
                            _ => None,
                        },
                        _ => None,
                    }
                } else {
                    None
                }
            }
            _ => None,
        };
        if let Some(w) = want {
            if !same_window(&w, &cur) {
                set_memref(f, x, w);
            }
        }
    }
}
