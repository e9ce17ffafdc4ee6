//! In-place reuse across calls of vector functions (`VFInplaceReuseAnalysis`).
//!
//! In a vector function (`hivm.vector_function`), an argument `w` may reuse
//! the memory of argument `r` when (`buildVFCalleeFunc`):
//! 1. `w` is written exactly once (one `vector.transfer_write`) and never read;
//! 2. `r` is read exactly once and never written;
//! 3. the read is in the write's block, before it;
//! 4. both address the same iteration (equal subview/extract_slice chains
//!    down to the arguments, through loop-carried arguments);
//! 5. the write is not wider than the read (element bits).
//!
//! At each call of such a function the pairs map to the buffers the call
//! passes (`update`); a call passing one buffer twice is never reused in
//! place (`hasAliasArgRisk`).

use std::collections::HashMap;

use crate::analysis::views::traceback_to_alloc_value;
use crate::ir::{Module, Ofr, OpId, ValueDef, ValueId};

use super::op_facts::{is_vf, is_vf_call};

/// Reusable read arguments per written argument of one vector function,
/// by argument index, in argument order.
type CalleeInfo = Vec<(usize, Vec<usize>)>;

/// Per buffer a call writes: the buffers it may reuse in place.
type CallReuse = Vec<(ValueId, Vec<ValueId>)>;

/// The reuse facts of the vector-function calls of one caller.
#[derive(Debug, Default, Clone)]
pub struct CallerInfo {
    /// Per call: written buffer to the buffers it may reuse.
    calls: Vec<(OpId, CallReuse)>,
}

impl CallerInfo {
    /// `isInplaceReusable`: at `call`, `gen` may reuse `kill`.
    pub fn is_inplace_reusable(&self, call: OpId, gen: ValueId, kill: ValueId) -> bool {
        self.calls
            .iter()
            .find(|(c, _)| *c == call)
            .and_then(|(_, info)| info.iter().find(|(b, _)| *b == gen))
            .is_some_and(|(_, reuse)| reuse.contains(&kill))
    }
}

/// The analysis over a module.
#[derive(Debug, Default)]
pub struct VfReuse {
    callers: Vec<(OpId, CallerInfo)>,
}

/// `traceToFuncArg`: through subviews, extract_slices and loop-carried
/// arguments to an argument of the function.
fn trace_to_func_arg(m: &Module, v: ValueId, depth: u32) -> Option<(ValueId, usize)> {
    if depth > 64 {
        return None;
    }
    match m.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            let owner = m.block_parent_op(block);
            let d = m.op(owner);
            if d.is("scf.for") {
                if index == 0 {
                    return None;
                }
                let init = d.operand(3 + index as usize - 1)?;
                return trace_to_func_arg(m, init, depth + 1);
            }
            Some((v, index as usize))
        }
        ValueDef::OpResult { op, .. } => {
            let d = m.op(op);
            if d.is("memref.subview") || d.is("tensor.extract_slice") {
                return trace_to_func_arg(m, d.operand(0)?, depth + 1);
            }
            None
        }
    }
}

fn is_func_arg(m: &Module, v: ValueId) -> bool {
    match m.value_def(v) {
        ValueDef::BlockArg { block, .. } => m.op(m.block_parent_op(block)).is("func.func"),
        _ => false,
    }
}

fn constant_of(m: &Module, o: Ofr) -> Option<i64> {
    match o {
        Ofr::Static(v) => Some(v),
        Ofr::Dynamic(v) => {
            let def = m.defining_op(v)?;
            let d = m.op(def);
            if !d.is("arith.constant") {
                return None;
            }
            match d.attr("value") {
                Some(crate::ir::Attribute::Integer { value, .. }) => i64::try_from(*value).ok(),
                _ => None,
            }
        }
    }
}

fn same_ofrs(m: &Module, a: &[Ofr], b: &[Ofr]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| match (constant_of(m, x), constant_of(m, y)) {
                (Some(p), Some(q)) => p == q,
                _ => x == y,
            })
}

fn slice_parts(m: &Module, op: OpId) -> Option<(Vec<Ofr>, Vec<Ofr>, Vec<Ofr>)> {
    let p = m.slice_parts(op)?;
    Some((p.offsets, p.sizes, p.strides))
}

/// `hasSameIteration(Value, Value)`.
fn same_iteration(m: &Module, a: ValueId, b: ValueId, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    match (m.value_def(a), m.value_def(b)) {
        (
            ValueDef::BlockArg {
                block: ba,
                index: ia,
            },
            ValueDef::BlockArg {
                block: bb,
                index: ib,
            },
        ) => {
            let (fa, fb) = (is_func_arg(m, a), is_func_arg(m, b));
            if fa && fb {
                return true;
            }
            if fa || fb {
                return false;
            }
            let (oa, ob) = (m.block_parent_op(ba), m.block_parent_op(bb));
            if !m.op(oa).is("scf.for") || !m.op(ob).is("scf.for") || ia == 0 || ib == 0 {
                return false;
            }
            match (
                m.op(oa).operand(3 + ia as usize - 1),
                m.op(ob).operand(3 + ib as usize - 1),
            ) {
                (Some(x), Some(y)) => same_iteration(m, x, y, depth + 1),
                _ => false,
            }
        }
        (ValueDef::OpResult { op: oa, .. }, ValueDef::OpResult { op: ob, .. }) => {
            let (na, nb) = (m.op(oa).name(), m.op(ob).name());
            let slice = |n: &str| n == "memref.subview" || n == "tensor.extract_slice";
            if na != nb || !slice(na) {
                return false;
            }
            if oa != ob {
                let (Some(pa), Some(pb)) = (slice_parts(m, oa), slice_parts(m, ob)) else {
                    return false;
                };
                if !(same_ofrs(m, &pa.0, &pb.0)
                    && same_ofrs(m, &pa.1, &pb.1)
                    && same_ofrs(m, &pa.2, &pb.2))
                {
                    return false;
                }
            }
            match (m.op(oa).operand(0), m.op(ob).operand(0)) {
                (Some(x), Some(y)) => same_iteration(m, x, y, depth + 1),
                _ => false,
            }
        }
        _ => false,
    }
}

fn vector_elem_bits(m: &Module, v: ValueId) -> Option<u32> {
    match m.value_type(v) {
        crate::ir::Type::Vector(vt) => match &*vt.elem {
            t @ (crate::ir::Type::Integer { .. } | crate::ir::Type::Float(_)) => t.bit_width(),
            _ => None,
        },
        _ => None,
    }
}

/// The written vector of a `vector.transfer_write` is operand 0, its base
/// operand 1; the base of a `vector.transfer_read` is operand 0.
fn callee_info(m: &Module, func: OpId) -> CalleeInfo {
    let Some(body) = m.func_body(func) else {
        return Vec::new();
    };
    let nargs = m.block_args(body).len();
    let mut reads: Vec<Vec<OpId>> = vec![Vec::new(); nargs];
    let mut writes: Vec<Vec<OpId>> = vec![Vec::new(); nargs];
    let mut post = Vec::new();
    for o in m.block_ops(body) {
        post_order(m, o, &mut post);
    }
    for op in post {
        let d = m.op(op);
        let base = if d.is("vector.transfer_read") {
            d.operand(0)
        } else if d.is("vector.transfer_write") {
            d.operand(1)
        } else {
            continue;
        };
        let Some((arg, idx)) = base.and_then(|b| trace_to_func_arg(m, b, 0)) else {
            continue;
        };
        if !is_func_arg(m, arg) || idx >= nargs {
            continue;
        }
        let list = if d.is("vector.transfer_read") {
            &mut reads[idx]
        } else {
            &mut writes[idx]
        };
        if !list.contains(&op) {
            list.push(op);
        }
    }
    let mut info = Vec::new();
    for w in 0..nargs {
        if !(writes[w].len() == 1 && reads[w].is_empty()) {
            continue;
        }
        let write = writes[w][0];
        let mut reusable: Vec<usize> = Vec::new();
        let mut cur = m.prev_op(write);
        let mut before = Vec::new();
        while let Some(o) = cur {
            before.push(o);
            cur = m.prev_op(o);
        }
        before.reverse();
        for read in before {
            if !m.op(read).is("vector.transfer_read") {
                continue;
            }
            let Some(r) = reads.iter().position(|l| l.contains(&read)) else {
                continue;
            };
            if !(reads[r].len() == 1 && writes[r].is_empty()) {
                continue;
            }
            let rb = m.op(read).result(0).and_then(|v| vector_elem_bits(m, v));
            let wb = m.op(write).operand(0).and_then(|v| vector_elem_bits(m, v));
            let narrowing = matches!((rb, wb), (Some(r), Some(w)) if w <= r);
            if !narrowing {
                continue;
            }
            let (Some(rs), Some(ws)) = (m.op(read).operand(0), m.op(write).operand(1)) else {
                continue;
            };
            if !same_iteration(m, rs, ws, 0) {
                continue;
            }
            if !reusable.contains(&r) {
                reusable.push(r);
            }
        }
        info.push((w, reusable));
    }
    info
}

fn post_order(m: &Module, op: OpId, out: &mut Vec<OpId>) {
    for &r in m.op(op).regions() {
        for &b in m.region_blocks(r) {
            for o in m.block_ops(b) {
                post_order(m, o, out);
            }
        }
    }
    out.push(op);
}

/// `traceAllocBuffer`: the allocation a call operand refers to, or the
/// operand itself.
fn alloc_buffer(m: &Module, v: ValueId) -> ValueId {
    traceback_to_alloc_value(m, v).unwrap_or(v)
}

impl VfReuse {
    /// `VFInplaceReuseAnalysis(moduleOp)`.
    pub fn build(m: &Module) -> VfReuse {
        let mut callee: HashMap<OpId, CalleeInfo> = HashMap::new();
        let mut callers = Vec::new();
        for f in m.funcs() {
            if is_vf(m, f) {
                callee.insert(f, callee_info(m, f));
            } else {
                callers.push(f);
            }
        }
        let mut out = VfReuse::default();
        for caller in callers {
            let mut post = Vec::new();
            post_order(m, caller, &mut post);
            post.pop();
            for call in post {
                if !m.op(call).is("func.call") || !is_vf_call(m, call) {
                    continue;
                }
                let Some(f) = m.call_callee(call).and_then(|n| m.lookup_func(n)) else {
                    continue;
                };
                let Some(info) = callee.get(&f) else { continue };
                let mut buffers: Vec<(ValueId, Vec<ValueId>)> = Vec::new();
                for (w, rs) in info {
                    let Some(arg) = m.op(call).operand(*w) else {
                        continue;
                    };
                    let wb = alloc_buffer(m, arg);
                    let mut reuse = Vec::new();
                    for &r in rs {
                        if let Some(v) = m.op(call).operand(r) {
                            let b = alloc_buffer(m, v);
                            if !reuse.contains(&b) {
                                reuse.push(b);
                            }
                        }
                    }
                    match buffers.iter_mut().find(|(b, _)| *b == wb) {
                        Some(entry) => entry.1 = reuse,
                        None => buffers.push((wb, reuse)),
                    }
                }
                match out.callers.iter_mut().find(|(c, _)| *c == caller) {
                    Some((_, ci)) => ci.calls.push((call, buffers)),
                    None => out.callers.push((
                        caller,
                        CallerInfo {
                            calls: vec![(call, buffers)],
                        },
                    )),
                }
            }
        }
        out
    }

    /// The facts of `func`'s calls (`getVFCallInplaceReuseInfo`).
    pub fn caller(&self, func: OpId) -> Option<&CallerInfo> {
        self.callers
            .iter()
            .find(|(f, _)| *f == func)
            .map(|(_, i)| i)
    }

    /// The analysis as the reference's `-debug-only=vf-inplace-reuse`
    /// prints it.
    pub fn dump(&self, m: &Module) -> String {
        use crate::print::print_op;
        let value = |v: ValueId| match m.defining_op(v) {
            Some(op) => print_op(m, op),
            None => "<block argument>".to_string(),
        };
        let mut s = String::from("-------- print VFInplaceReuseAnalysis info ---------\n");
        for (caller, info) in &self.callers {
            s.push_str("-------- VFCallInplaceReuseInfo ---------\n");
            s.push_str(&format!("vf caller func: {}\n", print_op(m, *caller)));
            for (call, bufs) in &info.calls {
                s.push_str("- vf callsite to buffer info:\n");
                s.push_str(&format!("- vf call: {}\n", print_op(m, *call)));
                for (b, reuse) in bufs {
                    s.push_str(&format!(
                        "-- inplace reusable values for operand: {}\n",
                        value(*b)
                    ));
                    for &r in reuse {
                        s.push_str(&format!("--- {}\n", value(r)));
                    }
                }
            }
        }
        s
    }
}
