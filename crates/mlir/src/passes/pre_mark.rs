//! `hivm-pre-mark-stride-align`: finds UB buffers that vector functions
//! read with contiguous vector loads, so that marking skips them.
//!
//! **Assumes** a regbase target (`hacc.target` of Ascend950, 910_95 or
//! 310B); on membase targets the pass does nothing.
//!
//! **Guarantees** for every `hivm.hir.load` whose destination flows
//! (through view-like ops and `func.call` into a defined callee) to a
//! `vector.transfer_read`/`vector.load` base, the root allocation gets
//! `annotation.mark %root {hivm.skip_stride_align_for_vload =
//! #hivm.skip_stride_align_for_vload}` right after it (once). Callees that
//! are only declared are not looked into: their buffers are not marked.

use crate::ir::{Attribute, Diagnostic, Module, OpId, ValueId};
use crate::pass::{Pass, PassFailed};

use super::common::{callee_of, device_funcs, mark_insert_point, marks_of, root_alloc, Target};
use super::op_table::{
    attrs, flow_kind, hivm_op, hivm_syntax, view_kind, FlowKind, HivmKind, VECTOR_LOAD_OPS,
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
        if !Target::of(m).is_regbase() {
            return Ok(());
        }
        for func in device_funcs(m) {
            for op in m.walk(func) {
                if hivm_op(m.op(op).name()).map(|o| o.kind) != Some(HivmKind::Load) {
                    continue;
                }
                let Some(&dst) = m.op(op).group(hivm_syntax::OUTS).and_then(<[_]>::first) else {
                    continue;
                };
                if !flows_to_vector_load(m, dst) {
                    continue;
                }
                if let Some(root) = root_alloc(m, dst) {
                    add_skip_mark(m, root);
                }
            }
        }
        Ok(())
    }
}

/// Marks the result of `alloc` as skipped, unless it already is.
fn add_skip_mark(m: &mut Module, alloc: OpId) {
    let v = m.op(alloc).results()[0];
    if marks_of(m, v)
        .into_iter()
        .any(|o| m.op(o).has_attr(attrs::SKIP_VLOAD))
    {
        return;
    }
    let Some(at) = mark_insert_point(m, v) else {
        return;
    };
    let loc = m.op(alloc).loc;
    let attr = Attribute::dialect("hivm", "skip_stride_align_for_vload", None);
    m.build_mark(v, [(attrs::SKIP_VLOAD.to_string(), attr)], at, loc);
}

/// Whether `v` reaches, through views and calls into defined callees, the
/// base operand of a vector load.
fn flows_to_vector_load(m: &Module, v: ValueId) -> bool {
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in m.uses(v).to_vec() {
            let d = m.op(u.op);
            if VECTOR_LOAD_OPS.contains(&d.name()) && u.index == 0 {
                return true;
            }
            if view_kind(d.name()).is_some() && u.index == 0 {
                work.extend(d.results().iter().copied());
            } else if flow_kind(d.name()) == Some(FlowKind::Call) {
                let Some(callee) = callee_of(m, u.op) else {
                    continue;
                };
                if let Some(entry) = m.func_body(callee) {
                    if let Some(&arg) = m.block_args(entry).get(u.index as usize) {
                        work.push(arg);
                    }
                }
            }
        }
    }
    false
}
