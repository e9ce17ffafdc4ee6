//! Whether buffers given one address keep every read's bytes.
//!
//! PlanMemory takes the values an `scf.for` carries (its `iter_args` init,
//! the iteration argument, the yielded value, the result), those of an
//! `scf.while`, and the values `scf.if` / `scope.scope` regions yield, to be
//! one memory (`UpdateForOpInitArgsAlias`, `UpdateForOpBufferAlias`,
//! `UpdateWhileOp*Alias`, `UpdateIfOpBufferAlias`,
//! `UpdateScopeOpBufferAlias`): two allocations linked that way become an
//! in-place pair (`InitializeInplacePairList`) and one storage entry
//! (`MergeInplaceSE`), at one address. That holds for in-place bufferized
//! input, where the loop writes the buffer it carries. A program whose
//! loop yields a buffer of its own while the init is still read (after the
//! loop, or later in the body), or whose branch writes the buffer it
//! yields while another is still needed, reads the other buffer's bytes
//! once the two share an address.
//!
//! [`bad_reads`] finds such reads: it runs the function over an
//! abstract state — which of the merged buffers last wrote the shared
//! bytes (the owners), and which buffer each value refers to — on every
//! path (both arms of `scf.if`, `arith.select` and `cf.cond_br`, loops to
//! a fixed point, zero trips included unless the bounds are constants
//! that make the loop run). A read through a value that refers to buffer
//! A while the owners are other buffers is bad. Each allocation inside a
//! loop starts a new instance of its buffer (same address); a read, through a
//! value a loop carries, of an earlier instance after the current one was
//! written is the second kind of bad read ([`Findings::instance`]). An op that reads
//! A and writes B reads first (an in-place op is fine). A read before any
//! write is not this check's business. The check knows no offsets: after
//! a write through a part (a subview) the owners are the buffer that last
//! wrote the bytes whole and, in order, every buffer that wrote a part
//! since. A read through a part of one of them is not judged (a loop that
//! reads slice j of its init and writes slice j of the buffer it yields
//! is fine); a read of a whole buffer is bad when another buffer, or
//! another instance of its own, wrote a part after it (A written, then
//! half of C: half of A is gone), and any
//! read through a buffer that is not among the owners is bad. So a run
//! over a group of buffers finds a bad read wherever a run over two of
//! them does: the planner, which checks its groups of merged buffers,
//! keeps no merge that the placement check, which checks pairs, refuses
//! (within the bounds below).
//!
//! Accesses: a destination-style op reads its inputs (temporary buffers
//! excepted) and writes its inits; `memref.load` reads, `memref.store`
//! writes, `memref.copy` reads its source and writes its target;
//! `func.call` and `gpu.launch_func` read then write their operands;
//! `hivm.hir.debug` reads. Views, casts and `arith.select` arms refer to
//! their source's buffer; marks and shape queries touch nothing.
//!
//! The state sets are bounded ([`MAX_STATES`] per program point,
//! [`MAX_STEPS`] op visits): past them the check gives up and finds
//! nothing (the function is planned as the reference plans it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::analysis::views::alias_pairs;
use crate::ir::{BlockId, Module, OpId, RegionId, ValueId};
use crate::passes::plan_memory::op_facts::{dps_inits, dps_inputs, extra_buffers, is_dps};

/// Most abstract states kept at one program point.
pub const MAX_STATES: usize = 512;
/// Most op visits (one op on one state) per check.
pub const MAX_STEPS: usize = 400_000;

/// What the run found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// The first read that finds bytes another of the buffers wrote: a
    /// reason not to give them one address.
    pub across: Option<BadRead>,
    /// The first read, through a value a loop carries, of an earlier
    /// instance of a buffer allocated in the loop, after the current
    /// instance was written: no planner that gives an allocation one
    /// address keeps those bytes (`wanted == found`).
    pub instance: Option<BadRead>,
}

/// A read that finds another buffer's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRead {
    /// The op that reads.
    pub op: OpId,
    /// The value it reads through.
    pub value: ValueId,
    /// The buffer the value refers to (one of the members given).
    pub wanted: ValueId,
    /// The buffer that last wrote the shared bytes.
    pub found: ValueId,
    /// The loop or branch ops that carry both buffers (in walk order): why
    /// PlanMemory gives them one address.
    pub carriers: Vec<OpId>,
}

/// One abstract state: the owners of the shared bytes (the buffer that
/// wrote them whole last, then those that wrote parts since, in the order
/// of their last writes; none before the first write) and the buffer each
/// value in scope refers to, as abstract memories: `2 * member` for the
/// current instance of a member's allocation, `2 * member + 1` for the
/// earlier ones (an allocation inside a loop runs again each iteration;
/// its instances share its address).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct State {
    owners: Vec<u8>,
    env: BTreeMap<ValueId, u8>,
}

impl State {
    fn bind(&mut self, v: ValueId, to: Option<u8>) {
        match to {
            Some(i) => {
                self.env.insert(v, i);
            }
            None => {
                self.env.remove(&v);
            }
        }
    }

    fn binds(&self, vs: &[ValueId]) -> Vec<Option<u8>> {
        vs.iter().map(|v| self.env.get(v).copied()).collect()
    }

    fn bind_all(&mut self, vs: &[ValueId], to: &[Option<u8>]) {
        for (k, &v) in vs.iter().enumerate() {
            self.bind(v, to.get(k).copied().flatten());
        }
    }
}

/// A region's way out: the state and what its terminator passes on.
type Exit = (State, Vec<Option<u8>>);

/// Whether the `scf.for` `op` runs at least once: constant bounds with
/// `lower < upper` and a positive step.
fn min_one_trip(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    let c = |k: usize| -> Option<i64> {
        let o = m.defining_op(d.operand(k)?)?;
        let od = m.op(o);
        if !od.is("arith.constant") {
            return None;
        }
        match od.attr("value")? {
            crate::ir::Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
            _ => None,
        }
    };
    matches!((c(0), c(1), c(2)), (Some(l), Some(u), Some(s)) if l < u && s > 0)
}

/// Whether `op` ends its block and passes values on (a yield, return,
/// condition or branch).
fn is_terminator(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    let name = d.name();
    !d.successors().is_empty()
        || name.ends_with(".yield")
        || name.ends_with(".return")
        || name == "scf.condition"
}

struct Run<'m> {
    m: &'m Module,
    /// Defining value of each merged buffer -> its index.
    members: HashMap<ValueId, u8>,
    order: Vec<ValueId>,
    found: Findings,
    steps: usize,
    gave_up: bool,
    /// Values defined inside each region-holding op (cached).
    inner: HashMap<OpId, Vec<ValueId>>,
    /// Whether each value covers only part of its buffer (cached).
    part: HashMap<ValueId, bool>,
    /// The members whose buffers each loop or branch op passed on through
    /// its plumbing.
    carried: HashMap<OpId, BTreeSet<u8>>,
}

/// The first bad reads (in the order the paths are explored) of `func`
/// when the buffers `members` define (results of their allocations or
/// pointer casts) share one address (see [`Findings`]). Nothing is found
/// when the check gives up.
pub fn bad_reads(m: &Module, func: OpId, members: &[ValueId]) -> Findings {
    if members.is_empty() || members.len() > 100 {
        return Findings::default();
    }
    let Some(&body) = m.op(func).regions().first() else {
        return Findings::default();
    };
    let mut run = Run {
        m,
        members: members
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, i as u8))
            .collect(),
        order: members.to_vec(),
        found: Findings::default(),
        steps: 0,
        gave_up: false,
        inner: HashMap::new(),
        carried: HashMap::new(),
        part: HashMap::new(),
    };
    let start = State {
        owners: Vec::new(),
        env: BTreeMap::new(),
    };
    let _ = run.region(body, vec![start]);
    if run.gave_up {
        return Findings::default();
    }
    let walk = m.walk(func);
    let mut found = std::mem::take(&mut run.found);
    for bad in [&mut found.across, &mut found.instance]
        .into_iter()
        .flatten()
    {
        let (w, f) = (run.members[&bad.wanted], run.members[&bad.found]);
        bad.carriers = walk
            .iter()
            .copied()
            .filter(|o| {
                run.carried
                    .get(o)
                    .is_some_and(|c| c.contains(&w) && c.contains(&f))
            })
            .collect();
    }
    found
}

impl Run<'_> {
    /// Whether to stop exploring. A bad read found does not stop it: the
    /// rest of the run tells which ops carry the two buffers.
    fn stop(&self) -> bool {
        self.gave_up
    }

    /// The values defined inside `op`'s regions.
    fn inner_values(&mut self, op: OpId) -> Vec<ValueId> {
        if let Some(v) = self.inner.get(&op) {
            return v.clone();
        }
        let m = self.m;
        let mut out = Vec::new();
        for &r in m.op(op).regions() {
            for &b in m.region_blocks(r) {
                out.extend_from_slice(m.block_args(b));
            }
        }
        for o in m.walk(op) {
            if o != op {
                out.extend_from_slice(m.op(o).results());
            }
        }
        self.inner.insert(op, out.clone());
        out
    }

    /// Runs `region` from `entry` (block arguments of its entry block
    /// already bound); the states leaving it with their terminator's
    /// operand bindings.
    fn region(&mut self, region: RegionId, entry: Vec<State>) -> Vec<Exit> {
        let m = self.m;
        let blocks = m.region_blocks(region).to_vec();
        let Some(&first) = blocks.first() else {
            return entry.into_iter().map(|s| (s, Vec::new())).collect();
        };
        if blocks.len() == 1 {
            return self.block(first, entry);
        }
        // Several blocks: a fixed point over the branches.
        let mut seen: HashMap<BlockId, BTreeSet<State>> = HashMap::new();
        let mut work: Vec<(BlockId, Vec<State>)> = vec![(first, entry)];
        let mut exits = Vec::new();
        while let Some((b, states)) = work.pop() {
            if self.stop() {
                break;
            }
            let known = seen.entry(b).or_default();
            let fresh: Vec<State> = states
                .into_iter()
                .filter(|s| known.insert(s.clone()))
                .collect();
            if known.len() > MAX_STATES {
                self.gave_up = true;
                break;
            }
            if fresh.is_empty() {
                continue;
            }
            let Some(term) = m.last_op(b) else { continue };
            let d = m.op(term);
            let succ = d.successors().to_vec();
            let outs = self.block(b, fresh);
            if succ.is_empty() {
                exits.extend(outs);
                continue;
            }
            let groups: Vec<Vec<ValueId>> = if d.is("cf.br") {
                vec![d.operands().to_vec()]
            } else if d.is("cf.cond_br") {
                vec![d.segment(1).to_vec(), d.segment(2).to_vec()]
            } else {
                vec![Vec::new(); succ.len()]
            };
            for (k, &t) in succ.iter().enumerate() {
                let args = m.block_args(t).to_vec();
                let mut next = Vec::new();
                for (s, _) in &outs {
                    let mut s = s.clone();
                    let to = s.binds(groups.get(k).map_or(&[][..], |g| &g[..]));
                    s.bind_all(&args, &to);
                    next.push(s);
                }
                work.push((t, next));
            }
        }
        exits
    }

    /// Runs the ops of `block` on `states`; the exits through its
    /// terminator.
    fn block(&mut self, block: BlockId, states: Vec<State>) -> Vec<Exit> {
        let m = self.m;
        let mut cur: BTreeSet<State> = states.into_iter().collect();
        let ops: Vec<OpId> = m.block_ops(block).collect();
        let last = ops.last().copied();
        for &op in &ops {
            if Some(op) == last && is_terminator(m, op) {
                let d = m.op(op);
                let passed: Vec<ValueId> = d.operands().to_vec();
                return cur
                    .into_iter()
                    .map(|s| {
                        let b = s.binds(&passed);
                        (s, b)
                    })
                    .collect();
            }
            let mut next = BTreeSet::new();
            for s in cur {
                for t in self.op(op, s) {
                    next.insert(t);
                }
                if self.stop() {
                    return Vec::new();
                }
            }
            if next.len() > MAX_STATES {
                self.gave_up = true;
                return Vec::new();
            }
            cur = next;
        }
        cur.into_iter().map(|s| (s, Vec::new())).collect()
    }

    fn read(&mut self, op: OpId, s: &State, v: ValueId) {
        let Some(&want) = s.env.get(&v) else {
            return;
        };
        // The owners that make the read bad: all when none is the read
        // buffer; else, for a whole read, those that wrote a part after it
        // (another buffer, or another instance of its own).
        let bad: Vec<u8> = match s.owners.iter().position(|&o| o == want) {
            None => s.owners.clone(),
            Some(_) if self.is_part(v) => return,
            Some(at) => s.owners[at + 1..].to_vec(),
        };
        for owner in bad {
            let slot = if want / 2 == owner / 2 {
                &mut self.found.instance
            } else {
                &mut self.found.across
            };
            if slot.is_none() {
                *slot = Some(BadRead {
                    op,
                    value: v,
                    wanted: self.order[usize::from(want / 2)],
                    found: self.order[usize::from(owner / 2)],
                    carriers: Vec::new(),
                });
            }
        }
    }

    /// A write through `v`: its buffer owns the shared bytes, alone when
    /// `v` covers the buffer; a write through a part (a subview) makes it
    /// the last of the owners (the bytes are mixed until a whole buffer is
    /// written again).
    fn write(&mut self, s: &mut State, v: ValueId) {
        let Some(&i) = s.env.get(&v) else {
            return;
        };
        if s.owners.is_empty() || !self.is_part(v) {
            s.owners = vec![i];
        } else {
            s.owners.retain(|&o| o != i);
            s.owners.push(i);
        }
    }

    /// Whether `v` may cover only part of its buffer: a subview (or
    /// another view that picks elements), or a whole-buffer view of one.
    fn is_part(&mut self, v: ValueId) -> bool {
        if let Some(&p) = self.part.get(&v) {
            return p;
        }
        let m = self.m;
        let p = match m.defining_op(v) {
            Some(o) => {
                let d = m.op(o);
                match d.name() {
                    "memref.collapse_shape"
                    | "memref.expand_shape"
                    | "memref.cast"
                    | "memref.memory_space_cast"
                    | "memref.reshape"
                    | "memref.transpose"
                    | "hivm.hir.bitcast"
                    | "hivm.hir.convert_layout" => {
                        d.operand(0).is_some_and(|src| self.is_part(src))
                    }
                    "memref.subview"
                    | "memref.view"
                    | "memref.reinterpret_cast"
                    | "memref.extract_strided_metadata" => true,
                    _ => false,
                }
            }
            None => false,
        };
        self.part.insert(v, p);
        p
    }

    /// `op` on one state; the states after it.
    fn op(&mut self, op: OpId, mut s: State) -> Vec<State> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.gave_up = true;
            return Vec::new();
        }
        let m = self.m;
        let d = m.op(op);
        match d.name() {
            "scf.for" => return self.for_op(op, s),
            "scf.while" => return self.while_op(op, s),
            "scf.if" => return self.if_op(op, s),
            _ => {}
        }
        if !d.regions().is_empty() {
            return self.other_region_op(op, s);
        }
        if let Some(&r) = d.results().first() {
            if let Some(&i) = self.members.get(&r) {
                // A new instance: the values bound to the current one, and
                // the bytes it owns, now belong to an earlier instance.
                let (cur, old) = (2 * i, 2 * i + 1);
                for b in s.env.values_mut() {
                    if *b == cur {
                        *b = old;
                    }
                }
                if let Some(at) = s.owners.iter().position(|&o| o == cur) {
                    // The renamed entry keeps its place; an older entry of
                    // the earlier instances goes.
                    s.owners[at] = old;
                    if let Some(dup) = s.owners.iter().position(|&o| o == old).filter(|&d| d != at)
                    {
                        s.owners.remove(dup);
                    }
                }
                s.bind(r, Some(cur));
                return vec![s];
            }
        }
        let pairs = alias_pairs(m, op);
        if d.is("arith.select") {
            if let [(r, t), (_, f)] = pairs[..] {
                let (bt, bf) = (s.env.get(&t).copied(), s.env.get(&f).copied());
                let mut a = s.clone();
                a.bind(r, bt);
                s.bind(r, bf);
                return vec![a, s];
            }
            return vec![s];
        }
        if !pairs.is_empty() {
            for (r, src) in pairs {
                let b = s.env.get(&src).copied();
                s.bind(r, b);
            }
            return vec![s];
        }
        let touched = d.operands().iter().any(|v| s.env.contains_key(v));
        if !touched {
            return vec![s];
        }
        let name = d.name();
        if is_dps(m, op) {
            let extras = extra_buffers(m, op).unwrap_or_default();
            for v in dps_inputs(m, op) {
                if !extras.contains(&v) {
                    self.read(op, &s, v);
                }
            }
            for v in dps_inits(m, op).into_iter().chain(extras) {
                self.write(&mut s, v);
            }
        } else {
            match name {
                "memref.load" => {
                    if let Some(v) = d.operand(0) {
                        self.read(op, &s, v);
                    }
                }
                "memref.store" => {
                    if let Some(v) = d.operand(1) {
                        self.write(&mut s, v);
                    }
                }
                "memref.copy" => {
                    if let (Some(a), Some(b)) = (d.operand(0), d.operand(1)) {
                        self.read(op, &s, a);
                        self.write(&mut s, b);
                    }
                }
                "func.call" | "gpu.launch_func" => {
                    let vs = d.operands().to_vec();
                    for &v in &vs {
                        self.read(op, &s, v);
                    }
                    for &v in &vs {
                        self.write(&mut s, v);
                    }
                }
                "hivm.hir.debug" => {
                    for &v in d.operands() {
                        self.read(op, &s, v);
                    }
                }
                _ => {}
            }
        }
        vec![s]
    }

    /// Notes that `op` passed on the buffers `binds` refer to.
    fn carry(&mut self, op: OpId, binds: &[Option<u8>]) {
        let e = self.carried.entry(op).or_default();
        e.extend(binds.iter().flatten().map(|b| b / 2));
    }

    /// Drops the bindings of values defined inside `op`.
    fn leave(&mut self, op: OpId, s: &mut State) {
        for v in self.inner_values(op) {
            s.env.remove(&v);
        }
    }

    fn for_op(&mut self, op: OpId, s: State) -> Vec<State> {
        let m = self.m;
        let d = m.op(op);
        let Some(body) = m.entry_block(op, 0) else {
            return vec![s];
        };
        let Some(&region) = d.regions().first() else {
            return vec![s];
        };
        let args: Vec<ValueId> = m.block_args(body).iter().skip(1).copied().collect();
        let inits: Vec<ValueId> = d.operands().iter().skip(3).copied().collect();
        let results = d.results().to_vec();
        // Loop-head states: before the first iteration, and after each;
        // the loop leaves from those after one iteration at least when its
        // bounds are constants that make it run.
        let runs = min_one_trip(m, op);
        let mut after_one: BTreeSet<State> = BTreeSet::new();
        let mut head: BTreeSet<State> = BTreeSet::new();
        let mut s0 = s;
        let to = s0.binds(&inits);
        self.carry(op, &to);
        s0.bind_all(&args, &to);
        let mut fresh = vec![s0];
        while !fresh.is_empty() {
            let Some(new) = self.admit(&mut head, fresh) else {
                break;
            };
            let outs = self.region(region, new);
            fresh = Vec::new();
            for (mut st, yielded) in outs {
                self.carry(op, &yielded);
                self.leave(op, &mut st);
                st.bind_all(&args, &yielded);
                after_one.insert(st.clone());
                fresh.push(st);
            }
        }
        let exits = if runs { after_one } else { head };
        exits
            .into_iter()
            .map(|mut st| {
                let carried = st.binds(&args);
                self.leave(op, &mut st);
                st.bind_all(&results, &carried);
                st
            })
            .collect()
    }

    /// The states of `fresh` a loop head has not seen yet, recorded in
    /// `head`; `None` when there are none (the loop's fixpoint) or the run
    /// stops. Too many head states give up the analysis.
    fn admit(&mut self, head: &mut BTreeSet<State>, fresh: Vec<State>) -> Option<Vec<State>> {
        let new: Vec<State> = fresh
            .into_iter()
            .filter(|st| head.insert(st.clone()))
            .collect();
        if head.len() > MAX_STATES {
            self.gave_up = true;
        }
        (!new.is_empty() && !self.stop()).then_some(new)
    }

    fn while_op(&mut self, op: OpId, s: State) -> Vec<State> {
        let m = self.m;
        let d = m.op(op);
        let (Some(before), Some(after)) = (m.entry_block(op, 0), m.entry_block(op, 1)) else {
            return vec![s];
        };
        let regions = d.regions().to_vec();
        let bargs = m.block_args(before).to_vec();
        let aargs = m.block_args(after).to_vec();
        let results = d.results().to_vec();
        let mut head: BTreeSet<State> = BTreeSet::new();
        let mut s0 = s;
        let to = s0.binds(d.operands());
        self.carry(op, &to);
        s0.bind_all(&bargs, &to);
        let mut fresh = vec![s0];
        let mut done: Vec<State> = Vec::new();
        while !fresh.is_empty() {
            let Some(new) = self.admit(&mut head, fresh) else {
                break;
            };
            let conds = self.region(regions[0], new);
            let mut go = Vec::new();
            for (st, passed) in conds {
                let passed: Vec<Option<u8>> = passed.into_iter().skip(1).collect();
                self.carry(op, &passed);
                let mut out = st.clone();
                self.leave(op, &mut out);
                out.bind_all(&results, &passed);
                done.push(out);
                let mut cont = st;
                cont.bind_all(&aargs, &passed);
                go.push(cont);
            }
            let outs = self.region(regions[1], go);
            fresh = Vec::new();
            for (mut st, yielded) in outs {
                self.carry(op, &yielded);
                self.leave(op, &mut st);
                st.bind_all(&bargs, &yielded);
                fresh.push(st);
            }
        }
        done
    }

    fn if_op(&mut self, op: OpId, s: State) -> Vec<State> {
        let m = self.m;
        let d = m.op(op);
        let regions = d.regions().to_vec();
        let results = d.results().to_vec();
        let mut out = Vec::new();
        for (k, &r) in regions.iter().enumerate() {
            if m.region_blocks(r).is_empty() {
                // No else region: the state passes as it is.
                if k == 1 {
                    out.push(s.clone());
                }
                continue;
            }
            for (mut st, yielded) in self.region(r, vec![s.clone()]) {
                if !results.is_empty() {
                    self.carry(op, &yielded);
                }
                self.leave(op, &mut st);
                st.bind_all(&results, &yielded);
                out.push(st);
            }
        }
        if regions.len() < 2 {
            out.push(s);
        }
        out
    }

    /// `scope.scope` (its results are what its region returns), and any
    /// other op with regions: each region may run once, or none.
    fn other_region_op(&mut self, op: OpId, s: State) -> Vec<State> {
        let m = self.m;
        let d = m.op(op);
        let regions = d.regions().to_vec();
        let results = d.results().to_vec();
        if d.is("scope.scope") {
            let Some(&r) = regions.first() else {
                return vec![s];
            };
            return self
                .region(r, vec![s])
                .into_iter()
                .map(|(mut st, yielded)| {
                    if !results.is_empty() {
                        self.carry(op, &yielded);
                    }
                    self.leave(op, &mut st);
                    st.bind_all(&results, &yielded);
                    st
                })
                .collect();
        }
        let mut out = vec![s.clone()];
        for r in regions {
            for (mut st, _) in self.region(r, vec![s.clone()]) {
                self.leave(op, &mut st);
                out.push(st);
            }
        }
        out
    }
}
