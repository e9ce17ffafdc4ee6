//! An independent check of planned local memory, from the output IR alone.
//!
//! Shares no code with the planner: it reads the `hivm.hir.pointer_cast`s
//! of each function (address constants and memref type), derives when each
//! buffer is accessed, and hands the result to `tilemem-plan`'s validator
//! ([`tilemem_plan::validate()`]) per (function, memory space):
//! - a buffer is one `pointer_cast` in `ub`, `cbuf` or `cc`; each address
//!   is one slot (multi-buffering) of its size in bytes;
//! - values are the same memory through views, casts, `arith.select` arms,
//!   loop and region plumbing (`scf.for`/`scf.while`/`scf.if`/`scope.scope`
//!   results, iteration arguments and yields) and branch arguments;
//! - a buffer is live from its first to its last access (an op using a
//!   value of its memory that is not a view, plumbing, mark or `dim`); over
//!   a whole loop when it is accessed inside a loop its `pointer_cast` is
//!   outside of; over the whole region when accessed in several blocks of
//!   one; to the function's end when returned;
//! - two buffers may share bytes only when their lifetimes are disjoint,
//!   when they are the same memory through non-conditional plumbing (an
//!   in-place alias pair) and no read finds bytes the other wrote since
//!   ([`crate::analysis::merged_reads`], run over the two casts; where that
//!   run gives up at its bounds, over all the casts of the carried memory
//!   at their addresses, as the planner ran it; a run that still gives up
//!   refuses the sharing), or when
//!   one's last access is the other's first (the op reads one and writes
//!   the other: in-place reuse);
//! - every address is aligned and every slot ends within the capacity
//!   (the module's NPU device spec; SIMT/MIX vector functions on
//!   register-based chips use `simt_ub_bits` when given).

use std::collections::HashMap;

use tilemem_plan::{validate, Buffer, Problem, Solution};

use crate::ir::{Attribute, BlockId, Diagnostic, Module, OpId, Type, ValueDef, ValueId};
use crate::passes::plan_memory::op_facts::address_space_of;

/// The spaces a plan covers, with their device-spec keys (capacity,
/// alignment).
const SPACES: [(&str, &str, &str); 3] = [
    ("ub", "UB_SIZE", "UB_ALIGN_SIZE"),
    ("cbuf", "L1_SIZE", "L1_ALIGN_SIZE"),
    ("cc", "L0C_SIZE", "L0C_ALIGN_SIZE"),
];

/// Union-find over values.
#[derive(Default)]
struct Classes {
    parent: HashMap<ValueId, ValueId>,
}

impl Classes {
    fn find(&self, v: ValueId) -> ValueId {
        let mut cur = v;
        while let Some(&p) = self.parent.get(&cur) {
            if p == cur {
                break;
            }
            cur = p;
        }
        cur
    }

    fn union(&mut self, a: ValueId, b: ValueId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }
}

/// The HIVM address space of a ranked memref type (pointer casts of
/// unranked memrefs are not placements this check reads).
fn space_of(t: &Type) -> Option<String> {
    t.as_memref()?;
    address_space_of(t)
}

fn bytes_of(t: &Type) -> Option<u64> {
    let mt = t.as_memref()?;
    let mut n: u64 = 1;
    for &d in &mt.shape {
        n = n.checked_mul(u64::try_from(d).ok()?)?;
    }
    Some((n * u64::from(mt.elem.bit_width()?)).div_ceil(8))
}

fn const_int(m: &Module, v: ValueId) -> Option<u64> {
    let op = m.defining_op(v)?;
    let d = m.op(op);
    if !d.is("arith.constant") {
        return None;
    }
    match d.attr("value")? {
        Attribute::Integer { value, .. } => u64::try_from(*value).ok(),
        _ => None,
    }
}

/// `(alias, source, conditional)` links an op creates.
fn links(m: &Module, op: OpId, out: &mut Vec<(ValueId, ValueId, bool)>) {
    let d = m.op(op);
    let first_result_of_first_operand = |out: &mut Vec<(ValueId, ValueId, bool)>| {
        if let (Some(r), Some(s)) = (d.result(0), d.operand(0)) {
            out.push((r, s, false));
        }
    };
    match d.name() {
        "memref.subview"
        | "memref.view"
        | "memref.reinterpret_cast"
        | "memref.cast"
        | "memref.collapse_shape"
        | "memref.expand_shape"
        | "memref.reshape"
        | "memref.transpose"
        | "memref.memory_space_cast"
        | "memref.extract_strided_metadata"
        | "hivm.hir.bitcast"
        | "hivm.hir.convert_layout"
        | "bufferization.to_memref"
        | "bufferization.to_buffer"
        | "bufferization.to_tensor" => first_result_of_first_operand(out),
        "arith.select" => {
            if let (Some(r), Some(t), Some(f)) = (d.result(0), d.operand(1), d.operand(2)) {
                out.push((r, t, true));
                out.push((r, f, true));
            }
        }
        "scf.for" => {
            let Some(body) = m.entry_block(op, 0) else {
                return;
            };
            let args = m.block_args(body);
            let yields = m
                .last_op(body)
                .map(|y| m.op(y).operands().to_vec())
                .unwrap_or_default();
            for (k, &init) in d.operands().iter().skip(3).enumerate() {
                if let Some(&a) = args.get(k + 1) {
                    out.push((a, init, false));
                }
                if let Some(&y) = yields.get(k) {
                    if let Some(&a) = args.get(k + 1) {
                        out.push((y, a, false));
                    }
                    if let Some(&r) = d.results().get(k) {
                        out.push((r, y, false));
                    }
                }
            }
        }
        "scf.while" => {
            let (Some(before), Some(after)) = (m.entry_block(op, 0), m.entry_block(op, 1)) else {
                return;
            };
            for (k, &init) in d.operands().iter().enumerate() {
                if let Some(&a) = m.block_args(before).get(k) {
                    out.push((a, init, false));
                }
            }
            if let Some(c) = m.last_op(before) {
                for (k, &v) in m.op(c).operands().iter().skip(1).enumerate() {
                    if let Some(&a) = m.block_args(after).get(k) {
                        out.push((a, v, false));
                    }
                    if let Some(&r) = d.results().get(k) {
                        out.push((r, v, false));
                    }
                }
            }
            if let Some(y) = m.last_op(after) {
                for (k, &v) in m.op(y).operands().iter().enumerate() {
                    if let Some(&a) = m.block_args(before).get(k) {
                        out.push((a, v, false));
                    }
                }
            }
        }
        "scf.if" | "scope.scope" => {
            for r in 0..d.regions().len() {
                if let Some(t) = m.entry_block(op, r).and_then(|b| m.last_op(b)) {
                    for (k, &v) in m.op(t).operands().iter().enumerate() {
                        if let Some(&res) = d.results().get(k) {
                            out.push((res, v, false));
                        }
                    }
                }
            }
        }
        "cf.br" | "cf.cond_br" => {
            let succ = d.successors().to_vec();
            let groups: Vec<Vec<ValueId>> = if d.is("cf.br") {
                vec![d.operands().to_vec()]
            } else {
                vec![d.segment(1).to_vec(), d.segment(2).to_vec()]
            };
            for (b, ops) in succ.iter().zip(groups) {
                for (&a, v) in m.block_args(*b).iter().zip(ops) {
                    out.push((a, v, true));
                }
            }
        }
        _ => {}
    }
}

/// Whether a use by `op` reads or writes memory (not a view, plumbing,
/// mark or shape query).
fn is_access(m: &Module, op: OpId) -> bool {
    let mut l = Vec::new();
    links(m, op, &mut l);
    let name = m.op(op).name();
    let plumbing = matches!(
        name,
        "scf.yield"
            | "scf.condition"
            | "scope.return"
            | "cf.br"
            | "cf.cond_br"
            | "annotation.mark"
            | "memref.dim"
            | "hivm.hir.pointer_cast"
    );
    // Loops and ifs pass values through; their operands are not accesses.
    let carrier = matches!(name, "scf.for" | "scf.while" | "scf.if" | "scope.scope");
    l.is_empty() && !plumbing && !carrier
}

/// A stretch of a buffer's lifetime (positions, both ends included);
/// whether each end is an access of the buffer (not widened to a loop or
/// a block boundary).
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: u64,
    end: u64,
    start_access: bool,
    end_access: bool,
}

/// One buffer: a `pointer_cast` in a planned space.
struct Buf {
    cast: OpId,
    value: ValueId,
    space: String,
    addrs: Vec<u64>,
    bytes: u64,
    pieces: Vec<Piece>,
}

/// Position facts of one function.
struct Layout {
    pos: HashMap<OpId, u64>,
    span_end: HashMap<OpId, u64>,
    func_end: u64,
}

impl Layout {
    fn span(&self, op: OpId) -> (u64, u64) {
        let s = self.pos[&op];
        (s, self.span_end.get(&op).copied().unwrap_or(s))
    }
}

/// The ancestor of `op` (or `op`) directly in `block`.
fn ancestor_in(m: &Module, block: BlockId, op: OpId) -> Option<OpId> {
    let mut cur = Some(op);
    while let Some(o) = cur {
        if m.op(o).parent_block() == Some(block) {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// For a multi-block function body: the blocks `v` is live into and out
/// of (uses in nested regions count at their ancestor in the body).
fn block_liveness(m: &Module, blocks: &[BlockId], v: ValueId) -> (Vec<BlockId>, Vec<BlockId>) {
    let block_of = |op: OpId| {
        blocks
            .iter()
            .copied()
            .find(|&b| ancestor_in(m, b, op).is_some())
    };
    let def_block = match m.value_def(v) {
        ValueDef::BlockArg { block, .. } => Some(block),
        ValueDef::OpResult { op, .. } => block_of(op),
    };
    let preds = |b: BlockId| -> Vec<BlockId> {
        blocks
            .iter()
            .copied()
            .filter(|&p| {
                m.last_op(p)
                    .is_some_and(|t| m.op(t).successors().contains(&b))
            })
            .collect()
    };
    let mut live_in: Vec<BlockId> = Vec::new();
    let mut work: Vec<BlockId> = Vec::new();
    for u in m.uses(v) {
        if let Some(b) = block_of(u.op) {
            if Some(b) != def_block && !live_in.contains(&b) {
                live_in.push(b);
                work.push(b);
            }
        }
    }
    let mut live_out: Vec<BlockId> = Vec::new();
    while let Some(b) = work.pop() {
        for p in preds(b) {
            if !live_out.contains(&p) {
                live_out.push(p);
            }
            if Some(p) != def_block && !live_in.contains(&p) {
                live_in.push(p);
                work.push(p);
            }
        }
    }
    (live_in, live_out)
}

/// The lifetime pieces of the memory that `vals` (the values that may hold
/// it) refer to; `cast` is where it is defined.
fn pieces_of(m: &Module, func: OpId, lay: &Layout, cast: OpId, vals: &[ValueId]) -> Vec<Piece> {
    let mut accesses: Vec<OpId> = Vec::new();
    let mut returned = false;
    for &x in vals {
        for u in m.uses(x) {
            if m.op(u.op).is("func.return") {
                returned = true;
            }
            if is_access(m, u.op) && !accesses.contains(&u.op) {
                accesses.push(u.op);
            }
        }
    }
    let Some(&body) = m.op(func).regions().first() else {
        return Vec::new();
    };
    let blocks = m.region_blocks(body).to_vec();
    let mut pieces: Vec<Piece> = Vec::new();
    if blocks.len() <= 1 {
        if accesses.is_empty() && !returned {
            return Vec::new();
        }
        let mut p = Piece {
            start: accesses
                .iter()
                .map(|a| lay.pos[a])
                .min()
                .unwrap_or(lay.func_end),
            end: accesses
                .iter()
                .map(|a| lay.pos[a])
                .max()
                .unwrap_or(lay.func_end),
            start_access: true,
            end_access: true,
        };
        if returned {
            p.end = lay.func_end;
            p.end_access = false;
        }
        pieces.push(p);
    } else {
        let mut ins: Vec<BlockId> = Vec::new();
        let mut outs: Vec<BlockId> = Vec::new();
        for &v in vals {
            let (i, o) = block_liveness(m, &blocks, v);
            ins.extend(i);
            outs.extend(o);
        }
        for &b in &blocks {
            let (Some(first), Some(last)) = (m.first_op(b), m.last_op(b)) else {
                continue;
            };
            let (bs, be) = (lay.pos[&first], lay.span(last).1);
            let acc: Vec<u64> = accesses
                .iter()
                .filter(|&&a| ancestor_in(m, b, a).is_some())
                .map(|a| lay.pos[a])
                .collect();
            let uses: Vec<u64> = vals
                .iter()
                .flat_map(|&x| m.uses(x).iter().filter_map(|u| ancestor_in(m, b, u.op)))
                .map(|o| lay.pos[&o])
                .collect();
            let live_in = ins.contains(&b);
            let live_out = outs.contains(&b);
            if !live_in && !live_out && acc.is_empty() {
                continue;
            }
            let (start, sa) = if live_in {
                (bs, false)
            } else {
                match acc.iter().min() {
                    Some(&a) => (a, true),
                    None => (uses.iter().copied().min().unwrap_or(bs), false),
                }
            };
            let (end, ea) = if live_out {
                (be, false)
            } else {
                match (acc.iter().max().copied(), uses.iter().max().copied()) {
                    (Some(a), Some(u)) if u > a => (u, false),
                    (Some(a), _) => (a, true),
                    (None, Some(u)) => (u, false),
                    (None, None) => (start, false),
                }
            };
            pieces.push(Piece {
                start,
                end: end.max(start),
                start_access: sa,
                end_access: ea,
            });
        }
        if returned {
            if let Some(p) = pieces.iter_mut().max_by_key(|p| p.end) {
                p.end = lay.func_end;
                p.end_access = false;
            }
        }
    }
    // A buffer accessed inside a loop it is not defined in lives over the
    // whole loop (the next iteration needs it).
    for &a in &accesses {
        let mut cur = m.parent_op(a);
        while let Some(l) = cur {
            if l == func {
                break;
            }
            if crate::passes::plan_memory::op_facts::is_loop_like(m.op(l).name())
                && !m.is_ancestor(l, cast)
            {
                let (ls, le) = lay.span(l);
                for p in pieces.iter_mut().filter(|p| p.start <= le && ls <= p.end) {
                    if ls < p.start {
                        p.start = ls;
                        p.start_access = false;
                    }
                    if le > p.end {
                        p.end = le;
                        p.end_access = false;
                    }
                }
            }
            cur = m.parent_op(l);
        }
    }
    pieces
}

/// The value of device-spec entry `key` of the module.
fn spec(m: &Module, key: &str) -> Option<i64> {
    crate::passes::device_spec::npu_spec_entries(m).and_then(|e| {
        e.into_iter().find_map(|(k, v)| match v {
            crate::passes::device_spec::EntryValue::Int(n) if k == key => Some(n),
            _ => None,
        })
    })
}

/// Checks the planned memory of `func` (see the module docs). `simt_ub`
/// replaces the UB capacity (bits) when given.
pub fn check_function(m: &Module, func: OpId, simt_ub: Option<u64>) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let ops = m.walk(func);
    if ops.is_empty() {
        return diags;
    }
    let pos: HashMap<OpId, u64> = ops
        .iter()
        .enumerate()
        .map(|(i, &o)| (o, i as u64))
        .collect();
    let mut span_end: HashMap<OpId, u64> = HashMap::new();
    // Reverse pre-order: an op's nested ops are done before it.
    for &o in ops.iter().rev() {
        let mut end = pos[&o];
        for &r in m.op(o).regions() {
            for &b in m.region_blocks(r) {
                if let Some(l) = m.last_op(b) {
                    end = end.max(span_end.get(&l).copied().unwrap_or(pos[&l]));
                }
            }
        }
        if end != pos[&o] {
            span_end.insert(o, end);
        }
    }
    let lay = Layout {
        pos,
        span_end,
        func_end: ops.len() as u64,
    };
    let mut strict = Classes::default();
    let mut link_list = Vec::new();
    for &o in &ops {
        links(m, o, &mut link_list);
    }
    let mut forward: HashMap<ValueId, Vec<ValueId>> = HashMap::new();
    for &(alias, source, cond) in &link_list {
        forward.entry(source).or_default().push(alias);
        if !cond {
            strict.union(alias, source);
        }
    }
    let mut bufs: Vec<Buf> = Vec::new();
    for &o in &ops {
        let d = m.op(o);
        if !d.is("hivm.hir.pointer_cast") {
            continue;
        }
        let Some(v) = d.result(0) else { continue };
        let ty = m.value_type(v);
        let Some(space) = space_of(ty) else { continue };
        if !SPACES.iter().any(|(s, _, _)| *s == space) {
            continue;
        }
        let n_addrs = d.segment(0).len().min(d.operands().len());
        let mut addrs = Vec::new();
        for &a in &d.operands()[..n_addrs] {
            match const_int(m, a) {
                Some(x) => addrs.push(x),
                None => diags.push(Diagnostic::error(
                    d.loc,
                    "plan check: a pointer_cast address is not an integer constant",
                )),
            }
        }
        let Some(bytes) = bytes_of(ty) else {
            diags.push(Diagnostic::error(
                d.loc,
                format!("plan check: the size of {ty} is not static"),
            ));
            continue;
        };
        // The values that may hold this memory: forward through links.
        let mut vals = vec![v];
        let mut i = 0;
        while i < vals.len() {
            if let Some(next) = forward.get(&vals[i]) {
                for &n in next {
                    if !vals.contains(&n) {
                        vals.push(n);
                    }
                }
            }
            i += 1;
        }
        let pieces = pieces_of(m, func, &lay, o, &vals);
        if pieces.is_empty() {
            continue;
        }
        bufs.push(Buf {
            cast: o,
            value: v,
            space,
            addrs,
            bytes,
            pieces,
        });
    }
    let fname = m.func_name(func).unwrap_or("?").to_string();
    let names = crate::print::Names::new(m, m.top());
    // Buffers the plumbing makes one memory may share bytes only while
    // the program reads each where the other has not written since.
    for i in 0..bufs.len() {
        for j in i + 1..bufs.len() {
            let (x, y) = (&bufs[i], &bufs[j]);
            if x.space != y.space || strict.find(x.value) != strict.find(y.value) {
                continue;
            }
            let meet = x
                .addrs
                .iter()
                .any(|&a| y.addrs.iter().any(|&b| a < b + y.bytes && b < a + x.bytes));
            if !meet {
                continue;
            }
            use crate::analysis::merged_reads::bad_reads;
            let mut f = bad_reads(m, func, &[x.value, y.value]);
            if f.gave_up.is_some() {
                // The run over two may meet a bound the planner's run over
                // the group it merged did not: ask that group (the
                // buffers of this carried memory at these addresses).
                let group: Vec<ValueId> = bufs
                    .iter()
                    .filter(|b| {
                        b.space == x.space
                            && strict.find(b.value) == strict.find(x.value)
                            && (b.addrs == x.addrs || b.addrs == y.addrs)
                    })
                    .map(|b| b.value)
                    .collect();
                f = bad_reads(m, func, &group);
            }
            if let Some(bad) = f.across {
                let l = m.op(bad.op).loc;
                diags.push(Diagnostic::error(
                    m.op(x.cast).loc,
                    format!(
                        "plan check: @{fname}, {}: buffers {} and {} share bytes as one carried \
                         memory, but the op at {}:{} reads {} after {} may have written them",
                        x.space,
                        names.get(m, x.value),
                        names.get(m, y.value),
                        l.line,
                        l.col,
                        names.get(m, bad.wanted),
                        names.get(m, bad.found),
                    ),
                ));
            } else if let Some(g) = f.gave_up {
                diags.push(Diagnostic::error(
                    m.op(x.cast).loc,
                    format!(
                        "plan check: @{fname}, {}: buffers {} and {} share bytes as one carried \
                         memory, and the check of their reads gave up: {g}; place them apart",
                        x.space,
                        names.get(m, x.value),
                        names.get(m, y.value),
                    ),
                ));
            }
        }
    }
    for (space, size_key, align_key) in SPACES {
        let in_space: Vec<usize> = (0..bufs.len())
            .filter(|&i| bufs[i].space == space)
            .collect();
        if in_space.is_empty() {
            continue;
        }
        let (Some(mut cap_bits), Some(align_bits)) = (spec(m, size_key), spec(m, align_key)) else {
            diags.push(Diagnostic::error(
                m.op(func).loc,
                format!("plan check: @{fname}: the module has no {size_key}/{align_key} device spec entry"),
            ));
            continue;
        };
        if space == "ub" {
            if let Some(s) = simt_ub {
                cap_bits = s as i64;
            }
        }
        let cap = (cap_bits.max(0) as u64) / 8;
        let align = ((align_bits.max(8) as u64) / 8).max(1);
        let mut p = Problem::new();
        // Per plan buffer: (buffer index, slot, piece).
        let mut owner: Vec<(usize, usize, Piece)> = Vec::new();
        let mut offsets = Vec::new();
        for &i in &in_space {
            let b = &bufs[i];
            for (k, &a) in b.addrs.iter().enumerate() {
                let name = if b.addrs.len() > 1 {
                    format!("{}#{k}", names.get(m, b.value))
                } else {
                    names.get(m, b.value)
                };
                for &pc in &b.pieces {
                    p.push(
                        Buffer::new(b.bytes, pc.start, pc.end + 1)
                            .with_align(align)
                            .with_name(name.clone()),
                    );
                    owner.push((i, k, pc));
                    offsets.push(a);
                }
            }
        }
        p.capacity = Some(cap);
        // Only pairs whose lifetimes meet need a permission.
        let mut order: Vec<usize> = (0..owner.len()).collect();
        order.sort_by_key(|&x| owner[x].2.start);
        for (ix, &x) in order.iter().enumerate() {
            for &y in &order[ix + 1..] {
                let (bx, kx, px) = owner[x];
                let (by, ky, py) = owner[y];
                if py.start > px.end {
                    break;
                }
                let allowed = if bx == by {
                    kx == ky
                } else {
                    let same = strict.find(bufs[bx].value) == strict.find(bufs[by].value);
                    let handoff = (px.end == py.start && px.end_access && py.start_access)
                        || (py.end == px.start && py.end_access && px.start_access);
                    same || handoff
                };
                if allowed {
                    p.allow_sharing(
                        tilemem_plan::BufferId(x as u32),
                        tilemem_plan::BufferId(y as u32),
                    );
                }
            }
        }
        if let Err(violations) = validate(&p, &Solution { offsets }) {
            for v in violations {
                diags.push(Diagnostic::error(
                    m.op(bufs[in_space[0]].cast).loc,
                    format!("plan check: @{fname}, {space}: {v}"),
                ));
            }
        }
    }
    diags
}

/// Checks every function of the module that holds planned buffers.
pub fn check_module(m: &Module, simt_ub: &dyn Fn(OpId) -> Option<u64>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in m.funcs() {
        out.extend(check_function(m, f, simt_ub(f)));
    }
    out
}
