//! `hivm-pre-mark-stride-align`: finds UB buffers that vector functions
//! read with contiguous vector loads, so that marking skips them.
//!
//! **Assumes** a regbase target (`hacc.target` of Ascend950, 910_95 or
//! 310B); on membase targets the pass does nothing (`runOnOperation`'s
//! `isRegBasedArch` check). Host functions are skipped.
//!
//! **Guarantees**, rule by rule as `PreMarkStrideAlign.cpp` has them:
//! - `runOnOperation`: every `hivm.hir.load` whose destination is a ranked
//!   memref is looked at;
//! - `flowsToVLoadInVF`: from the destination, every user that is a
//!   view-like op or `memref.cast` passes its result on; a `func.call`
//!   into a *defined* callee counts when the callee's matching argument is
//!   read by a vector load there. A vector load in the loading function
//!   itself does not count, and callees known only by a declaration are
//!   not looked into;
//! - `isArgUsedByVLoad`: inside the callee only `vector.transfer_read`
//!   counts (not `vector.load`), reached from the argument directly or
//!   through `memref.subview`/`memref.view` only (no casts, no nested
//!   calls);
//! - `traceToRoot` + `markSkipStrideAlignForVLoad`: the destination is
//!   traced through view-like ops and casts to its root; when the root is
//!   an allocation without the mark yet, `annotation.mark %root
//!   {hivm.skip_stride_align_for_vload =
//!   #hivm.skip_stride_align_for_vload}` is written right after it (so it
//!   precedes marks already there). Roots that are block arguments are not
//!   marked.

use std::collections::HashSet;

use crate::ir::{Attribute, Diagnostic, InsertPoint, Module, OpId, ValueId};
use crate::pass::{Pass, PassFailed};

use super::common::{callee_of, device_funcs, marks_of, memref_of, target_of, trace_root};
use super::op_table::{
    attrs, flow_kind, hivm_syntax, is_root_alloc, is_view_like, view_kind, FlowKind, ViewKind,
    TRANSFER_READ,
};

/// The `hivm-pre-mark-stride-align` pass.
pub struct PreMarkStrideAlign;

impl Pass for PreMarkStrideAlign {
    fn name(&self) -> &'static str {
        "hivm-pre-mark-stride-align"
    }

    fn description(&self) -> &'static str {
        "Mark allocs read by vector loads in vector functions to skip stride alignment (regbase)"
    }

    fn run(&self, m: &mut Module, _diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        if !target_of(m).is_regbase() {
            return Ok(());
        }
        for func in device_funcs(m) {
            for op in m.walk(func) {
                if !m.op(op).is("hivm.hir.load") {
                    continue;
                }
                let Some(&dst) = m.op(op).group(hivm_syntax::OUTS).and_then(<[_]>::first) else {
                    continue;
                };
                if memref_of(m, dst).is_none() || !flows_to_vload_in_vf(m, dst) {
                    continue;
                }
                let root = trace_root(m, dst);
                add_skip_mark(m, root);
            }
        }
        Ok(())
    }
}

/// `markSkipStrideAlignForVLoad`: marks an allocation root as skipped,
/// unless it already is.
fn add_skip_mark(m: &mut Module, root: ValueId) {
    if marks_of(m, root)
        .into_iter()
        .any(|o| m.op(o).has_attr(attrs::SKIP_VLOAD))
    {
        return;
    }
    let Some(alloc) = m.defining_op(root) else {
        return;
    };
    if !is_root_alloc(m.op(alloc).name()) {
        return;
    }
    let loc = m.op(alloc).loc;
    let attr = Attribute::dialect("hivm", "skip_stride_align_for_vload", None);
    m.build_mark(
        root,
        [(attrs::SKIP_VLOAD.to_string(), attr)],
        InsertPoint::After(alloc),
        loc,
    );
}

/// `flowsToVLoadInVF`: whether `v` reaches, through view-like ops, casts
/// and calls into defined callees, an argument the callee reads with
/// `vector.transfer_read`.
fn flows_to_vload_in_vf(m: &Module, v: ValueId) -> bool {
    let mut work = vec![v];
    let mut seen = HashSet::new();
    while let Some(cur) = work.pop() {
        if !seen.insert(cur) {
            continue;
        }
        for u in m.uses(cur).to_vec() {
            let d = m.op(u.op);
            if is_view_like(d.name()) {
                work.extend(d.results().first().copied());
                continue;
            }
            if flow_kind(d.name()) != Some(FlowKind::Call) {
                continue;
            }
            let Some(callee) = callee_of(m, u.op) else {
                continue;
            };
            if m.func_body(callee).is_some() && arg_used_by_vload(m, callee, u.index as usize) {
                return true;
            }
        }
    }
    false
}

/// `isArgUsedByVLoad`: whether argument `idx` of `callee` is read by a
/// `vector.transfer_read`, directly or through `memref.subview` /
/// `memref.view`.
fn arg_used_by_vload(m: &Module, callee: OpId, idx: usize) -> bool {
    let Some(&arg) = m
        .func_body(callee)
        .and_then(|entry| m.block_args(entry).get(idx))
    else {
        return false;
    };
    let mut work = m.users(arg);
    let mut seen = HashSet::new();
    while let Some(op) = work.pop() {
        if !seen.insert(op) {
            continue;
        }
        let name = m.op(op).name();
        if name == TRANSFER_READ {
            return true;
        }
        if matches!(
            view_kind(name),
            Some(ViewKind::Subview | ViewKind::ByteView)
        ) {
            for &r in m.op(op).results() {
                work.extend(m.users(r));
            }
        }
    }
    false
}
