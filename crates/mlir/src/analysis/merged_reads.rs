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
//! abstract state — which of the merged buffers last wrote each stretch of
//! the shared bytes (the owners), and which buffer each value refers to —
//! on every path (both arms of `scf.if`, `arith.select` and `cf.cond_br`,
//! loops to a fixed point, zero trips included unless the bounds are
//! constants that make the loop run; the regions of any other op, such as
//! `scf.forall`, any number of times). A read through a value that refers
//! to buffer A of bytes whose owners are other buffers is bad. Each
//! allocation inside a loop starts a new instance of its buffer (same
//! address); a read, through a value a loop carries, of an earlier
//! instance after the current one was written is the second kind of bad
//! read ([`Findings::instance`]). An op that reads A and writes B reads
//! first (an in-place op is fine). A read before any write is not this
//! check's business.
//!
//! Offsets. All the buffers start at the shared address; a value covers
//! bytes of its buffer from there: all of them for the buffer itself, and
//! for a view whose offsets, sizes and strides are known (a subview of
//! one, or a reshaping view whose type says where it lies) the bytes of
//! its elements, listed as stretches (one per row of a strided view, up
//! to `MAX_RUNS`). An offset, size or stride is known when it is a
//! constant, the induction variable of a loop run trip by trip, or `arith`
//! integer ops and `affine.apply`/`min`/`max` of those. An `scf.for`
//! whose bounds are known, that runs at most [`MAX_TRIPS`] times, and
//! whose induction variable places a view of memory other than `gm` in its
//! body is run trip by trip, its induction variable bound to each trip's
//! value: each trip reads and writes the
//! bytes of its own slices (slice `j` of the init read before slice `j`
//! of the yielded buffer is written, as hivm-create-preload makes it,
//! is judged trip by trip: slices that never meet keep the merge, slices
//! that consecutive trips share break it). Other loops run to a fixed
//! point with their induction variable unknown.
//!
//! A write of known bytes makes its buffer their only owner. A write
//! whose bytes are not known (an offset that is none of the above, a view
//! of too many rows) may have written any byte of its extent: its buffer
//! becomes the last of the owners there, after the buffer that last wrote
//! them exactly and every such part writer since (A written, then an
//! unknown part of C: A's bytes are mixed with C's until written exactly
//! again). A read is bad when, on any stretch it may cover, its buffer is
//! not among the owners, or another buffer may have written a part after
//! it (A read after a part of C): a read of unknown bytes cannot be told
//! apart from those, so it is judged as if it read them all, and the
//! merge is refused rather than kept unproven. The one exception is a
//! read of unknown bytes whose only later part writers are other
//! instances of its own allocation: every planner gives those one
//! address, so no placement changes what it finds, and it is not judged
//! (a read of known bytes is: [`Findings::instance`]). A buffer written
//! through unknown parts is taken to have written the bytes it later
//! reads whole (a slice loop fills it; a read before any write is not
//! this check's business).
//!
//! So a run over a group of buffers finds a bad read wherever a run over
//! two of them does (another member's writes only take owners away or add
//! later ones): the planner, which checks its groups of merged buffers,
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
//! [`MAX_STEPS`] op visits): past them the run gives up and says so
//! ([`Findings::gave_up`], naming the bound) instead of finding a bad
//! read. Nothing is accepted unproven there: PlanMemory plans apart the
//! buffers whose run gave up (with a warning naming the function and the
//! bound), and the placement check, whose run over two buffers may give
//! up where the planner's over their group did not, asks the group the
//! planner asked before it refuses.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use crate::analysis::views::{self, alias_pairs};
use crate::ir::{BlockId, Module, OpId, RegionId, ValueId};
use crate::passes::plan_memory::op_facts::{dps_inits, dps_inputs, extra_buffers, is_dps};

/// Most abstract states kept at one program point.
pub const MAX_STATES: usize = 512;
/// Most op visits (one op on one state) per check.
pub const MAX_STEPS: usize = 400_000;
/// Most trips of an `scf.for` run one by one, its induction variable
/// bound to each trip's value (see the module docs).
pub const MAX_TRIPS: u64 = 256;
/// Most buffers one run follows.
pub const MAX_MEMBERS: usize = 100;

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
    /// The bound the run met, when it gave up (nothing else is then
    /// found: the reads after that point were not judged).
    pub gave_up: Option<GaveUp>,
}

/// The bound a run met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// More than [`MAX_STATES`] abstract states at one program point.
    States,
    /// More than [`MAX_STEPS`] op visits.
    Steps,
    /// More than [`MAX_MEMBERS`] buffers (each has two abstract memories
    /// in a byte).
    Members,
}

impl std::fmt::Display for GaveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GaveUp::States => write!(
                f,
                "more than {MAX_STATES} abstract states at one program point (MAX_STATES)"
            ),
            GaveUp::Steps => write!(f, "more than {MAX_STEPS} op visits (MAX_STEPS)"),
            GaveUp::Members => write!(f, "more than {MAX_MEMBERS} buffers (MAX_MEMBERS)"),
        }
    }
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
    bytes: Vec<Seg>,
    env: BTreeMap<ValueId, u8>,
}

/// A stretch `[lo, hi)` of the shared bytes (from the common address)
/// and its owners: the buffer that last wrote it exactly, then those that
/// may have written it since (through a part whose bytes are not known),
/// in the order of their last writes. Stretches are disjoint, sorted, and
/// neighbours differ in owners; bytes no buffer wrote have no stretch.
type Seg = (u64, u64, Vec<u8>);

/// The bytes a value covers in its buffer (from the buffer's start).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Span {
    /// Exactly these stretches `[lo, hi)`: sorted, disjoint, not touching
    /// (one for a dense view, one per row of a strided one).
    Known(Rc<Vec<(u64, u64)>>),
    /// Some of the bytes of `[lo, hi)`: a part whose offsets, sizes or
    /// strides are not known here, or that has too many rows to list.
    Within(u64, u64),
}

impl Span {
    /// The stretches, each with whether all of its bytes are covered.
    fn parts(&self) -> Vec<(u64, u64, bool)> {
        match self {
            Span::Known(runs) => runs.iter().map(|&(a, b)| (a, b, true)).collect(),
            Span::Within(a, b) => vec![(*a, *b, false)],
        }
    }

    /// From the first byte to the last (`(0, 0)` for no bytes).
    fn extent(&self) -> (u64, u64) {
        match self {
            Span::Known(runs) => match (runs.first(), runs.last()) {
                (Some(f), Some(l)) => (f.0, l.1),
                _ => (0, 0),
            },
            Span::Within(a, b) => (*a, *b),
        }
    }
}

/// Most stretches one view's bytes are listed as (rows of a strided
/// view); a view of more counts as [`Span::Within`] its extent.
const MAX_RUNS: u64 = 1024;

/// The end of a buffer whose size is not known.
const END: u64 = u64::MAX;

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

/// The elements a view covers: `offset + sum(i_k * strides[k])` for
/// `i_k < shape[k]`, of `elem` bytes each.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Layout {
    elem: u64,
    offset: u64,
    shape: Vec<u64>,
    strides: Vec<u64>,
}

impl Layout {
    /// The bytes of the elements: the dims that fill a block (sorted by
    /// stride, each stride the product of the sizes below it) give one
    /// stretch per combination of the others' indices; more than
    /// [`MAX_RUNS`] of them count as some bytes of the extent.
    fn span(&self) -> Span {
        let count: Option<u64> = self.shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x));
        if count == Some(0) {
            return Span::Known(Rc::new(Vec::new()));
        }
        let last: Option<u64> = self
            .shape
            .iter()
            .zip(&self.strides)
            .try_fold(self.offset, |a, (&n, &st)| {
                a.checked_add((n - 1).checked_mul(st)?)
            });
        let (Some(_), Some(last)) = (count, last) else {
            return Span::Within(0, END);
        };
        let lo = self.offset.saturating_mul(self.elem);
        let hi = last.saturating_add(1).saturating_mul(self.elem);
        let mut dims: Vec<(u64, u64)> = self
            .shape
            .iter()
            .copied()
            .zip(self.strides.iter().copied())
            .filter(|&(n, _)| n > 1)
            .collect();
        dims.sort_by_key(|&(_, st)| st);
        let mut block = 1u64;
        let mut k = 0;
        while k < dims.len() && dims[k].1 == block {
            block = block.saturating_mul(dims[k].0);
            k += 1;
        }
        let outer = &dims[k..];
        let rows = outer.iter().try_fold(1u64, |a, &(n, _)| a.checked_mul(n));
        if rows.is_none_or(|r| r > MAX_RUNS) {
            return Span::Within(lo, hi);
        }
        // Every element index is at most `last`: no overflow below.
        let mut starts = vec![self.offset];
        for &(n, st) in outer {
            starts = starts
                .iter()
                .flat_map(|&s| (0..n).map(move |i| s + i * st))
                .collect();
        }
        let mut runs: Vec<(u64, u64)> = starts
            .into_iter()
            .map(|s| {
                (
                    s.saturating_mul(self.elem),
                    (s + block).saturating_mul(self.elem),
                )
            })
            .collect();
        runs.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
        for (a, b) in runs {
            match out.last_mut() {
                Some(l) if a <= l.1 => l.1 = l.1.max(b),
                _ => out.push((a, b)),
            }
        }
        Span::Known(Rc::new(out))
    }
}

/// The size in bytes of a memref type of static shape and whole-byte
/// elements.
fn static_bytes(t: &crate::ir::Type) -> Option<u64> {
    let mt = t.as_memref()?;
    let bits = mt.element_bit_width()?;
    if bits % 8 != 0 {
        return None;
    }
    mt.shape.iter().try_fold(u64::from(bits / 8), |a, &x| {
        a.checked_mul(u64::try_from(x).ok()?)
    })
}

/// Whether ops named `name` give a view of all of their first operand's
/// bytes (reshaped, cast or transposed): the views below but those that
/// pick a part ([`is_view`]).
fn same_bytes(name: &str) -> bool {
    is_view(name)
        && !matches!(
            name,
            "memref.subview"
                | "memref.view"
                | "memref.reinterpret_cast"
                | "memref.extract_strided_metadata"
        )
}

/// Whether ops named `name` give a view of their first operand's memory:
/// the view-like ops ([`views::is_view_like`]) and `hivm.hir.bitcast`,
/// which aliases its operand without being one.
fn is_view(name: &str) -> bool {
    views::is_view_like(name) || name == "hivm.hir.bitcast"
}

/// Sets the owners of the bytes `[lo, hi)` of `bytes` to `f` of their
/// owners (`None` where no buffer wrote), keeping the stretches sorted,
/// disjoint and merged.
fn paint(bytes: &mut Vec<Seg>, lo: u64, hi: u64, f: impl Fn(Option<&Vec<u8>>) -> Vec<u8>) {
    if lo >= hi {
        return;
    }
    let mut out: Vec<Seg> = Vec::with_capacity(bytes.len() + 2);
    let mut at = lo;
    for (a, b, o) in std::mem::take(bytes) {
        if b <= lo || hi <= a {
            if a >= hi && at < hi {
                out.push((at, hi, f(None)));
                at = hi;
            }
            out.push((a, b, o));
            continue;
        }
        if a < lo {
            out.push((a, lo, o.clone()));
        }
        let (s, e) = (a.max(lo), b.min(hi));
        if at < s {
            out.push((at, s, f(None)));
        }
        out.push((s, e, f(Some(&o))));
        at = e;
        if hi < b {
            out.push((hi, b, o));
        }
    }
    if at < hi {
        out.push((at, hi, f(None)));
    }
    normalize(&mut out);
    *bytes = out;
}

/// Drops stretches without owners and merges neighbours with the same.
fn normalize(bytes: &mut Vec<Seg>) {
    let mut out: Vec<Seg> = Vec::with_capacity(bytes.len());
    for (a, b, o) in std::mem::take(bytes) {
        if o.is_empty() || a >= b {
            continue;
        }
        match out.last_mut() {
            Some((_, e, p)) if *e == a && *p == o => *e = b,
            _ => out.push((a, b, o)),
        }
    }
    *bytes = out;
}

/// The results of the affine map `map` (the text
/// `affine_map<(d0, ..)[s0, ..] -> (e0, ..)>`) at `dims` and `syms`:
/// integers, the map's dim and symbol names, `+`, `-`, `*`, `floordiv`,
/// `ceildiv`, `mod` and parentheses (`None` for anything else, overflow or
/// a division by zero).
fn affine_results(map: &str, dims: &[i64], syms: &[i64]) -> Option<Vec<i64>> {
    let inner = map.trim().strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (ins, outs) = inner.split_once("->")?;
    let (dl, sl) = match ins.split_once('[') {
        Some((d, s)) => (d, s.trim().strip_suffix(']')?),
        None => (ins, ""),
    };
    let dl = dl.trim().strip_prefix('(')?.strip_suffix(')')?;
    let names = |l: &str| -> Vec<String> {
        l.split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    let (dn, sn) = (names(dl), names(sl));
    if dn.len() != dims.len() || sn.len() != syms.len() {
        return None;
    }
    let env: HashMap<String, i64> = dn
        .into_iter()
        .zip(dims.iter().copied())
        .chain(sn.into_iter().zip(syms.iter().copied()))
        .collect();
    let body = outs.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut toks: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in body.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            toks.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            toks.push(c.to_string());
        }
    }
    if !word.is_empty() {
        toks.push(word);
    }
    let mut p = Affine {
        toks: &toks,
        at: 0,
        env: &env,
    };
    let mut out = vec![p.expr()?];
    while p.eat(",") {
        out.push(p.expr()?);
    }
    (p.at == toks.len()).then_some(out)
}

/// A recursive-descent reader of affine expressions ([`affine_results`]).
struct Affine<'a> {
    toks: &'a [String],
    at: usize,
    env: &'a HashMap<String, i64>,
}

impl Affine<'_> {
    fn eat(&mut self, t: &str) -> bool {
        let hit = self.toks.get(self.at).is_some_and(|x| x == t);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn expr(&mut self) -> Option<i64> {
        let mut v = self.term()?;
        loop {
            if self.eat("+") {
                v = v.checked_add(self.term()?)?;
            } else if self.eat("-") {
                v = v.checked_sub(self.term()?)?;
            } else {
                return Some(v);
            }
        }
    }

    fn term(&mut self) -> Option<i64> {
        let mut v = self.unary()?;
        loop {
            if self.eat("*") {
                v = v.checked_mul(self.unary()?)?;
            } else if self.eat("floordiv") {
                let b = self.unary()?;
                v = v.checked_div_euclid(b).filter(|_| b > 0)?;
            } else if self.eat("ceildiv") {
                let b = self.unary()?;
                v = v
                    .checked_add(b.checked_sub(1)?)?
                    .checked_div_euclid(b)
                    .filter(|_| b > 0)?;
            } else if self.eat("mod") {
                let b = self.unary()?;
                v = v.checked_rem_euclid(b).filter(|_| b > 0)?;
            } else {
                return Some(v);
            }
        }
    }

    fn unary(&mut self) -> Option<i64> {
        if self.eat("-") {
            return self.unary()?.checked_neg();
        }
        if self.eat("(") {
            let v = self.expr()?;
            return self.eat(")").then_some(v);
        }
        let t = self.toks.get(self.at)?;
        self.at += 1;
        match t.parse::<i64>() {
            Ok(x) => Some(x),
            Err(_) => self.env.get(t).copied(),
        }
    }
}

struct Run<'m> {
    m: &'m Module,
    /// Defining value of each merged buffer -> its index.
    members: HashMap<ValueId, u8>,
    order: Vec<ValueId>,
    found: Findings,
    steps: usize,
    gave_up: Option<GaveUp>,
    /// Values defined inside each region-holding op (cached).
    inner: HashMap<OpId, Vec<ValueId>>,
    /// The bytes each value covers in the buffer of a member (cached).
    spans: HashMap<(ValueId, u8), Span>,
    /// The members whose buffers each loop or branch op passed on through
    /// its plumbing.
    carried: HashMap<OpId, BTreeSet<u8>>,
    /// The induction variables of the loops being run trip by trip, at
    /// the current trip.
    ivs: HashMap<ValueId, i64>,
    /// Whether each `scf.for`'s induction variable places a view of local
    /// memory (cached).
    iv_places: HashMap<OpId, bool>,
}

/// The first bad reads (in the order the paths are explored) of `func`
/// when the buffers `members` define (results of their allocations or
/// pointer casts) share one address (see [`Findings`]). Nothing but the
/// bound is reported when the run gives up.
pub fn bad_reads(m: &Module, func: OpId, members: &[ValueId]) -> Findings {
    if members.is_empty() {
        return Findings::default();
    }
    if members.len() > MAX_MEMBERS {
        return Findings {
            gave_up: Some(GaveUp::Members),
            ..Findings::default()
        };
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
        gave_up: None,
        inner: HashMap::new(),
        carried: HashMap::new(),
        spans: HashMap::new(),
        ivs: HashMap::new(),
        iv_places: HashMap::new(),
    };
    let start = State {
        bytes: Vec::new(),
        env: BTreeMap::new(),
    };
    let _ = run.region(body, vec![start]);
    if let Some(g) = run.gave_up {
        return Findings {
            gave_up: Some(g),
            ..Findings::default()
        };
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
        self.gave_up.is_some()
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
                self.gave_up = Some(GaveUp::States);
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
                self.gave_up = Some(GaveUp::States);
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
        let span = self.span(v, want / 2);
        // The owners that make the read bad, stretch by stretch: all when
        // none is the read buffer; else those that may have written a
        // part after it (another buffer, or another instance of its own;
        // for a read of some unknown bytes, another buffer only: see the
        // module docs).
        let mut bad: Vec<u8> = Vec::new();
        for (lo, hi, exact) in span.parts() {
            let from = s.bytes.partition_point(|seg| seg.1 <= lo);
            for (_, _, owners) in s.bytes[from..].iter().take_while(|seg| seg.0 < hi) {
                match owners.iter().position(|&o| o == want) {
                    None => bad.extend(owners),
                    Some(at) if exact => bad.extend(&owners[at + 1..]),
                    Some(at) => bad.extend(owners[at + 1..].iter().filter(|&&o| o / 2 != want / 2)),
                }
            }
        }
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

    /// A write through `v`: its buffer owns the bytes `v` covers, alone
    /// when they are known; a write of unknown bytes makes it the last of
    /// the owners of every stretch it may reach (the bytes are mixed until
    /// they are written exactly again).
    fn write(&mut self, s: &mut State, v: ValueId) {
        let Some(&i) = s.env.get(&v) else {
            return;
        };
        let span = self.span(v, i / 2);
        for (lo, hi, exact) in span.parts() {
            paint(&mut s.bytes, lo, hi, |owners| match owners {
                Some(o) if !exact => {
                    let mut o: Vec<u8> = o.iter().copied().filter(|&x| x != i).collect();
                    o.push(i);
                    o
                }
                _ => vec![i],
            });
        }
    }

    /// The size in bytes of member `k`'s buffer ([`END`] when not known).
    fn size_of(&self, k: u8) -> u64 {
        static_bytes(self.m.value_type(self.order[usize::from(k)])).unwrap_or(END)
    }

    /// The bytes `v` covers when it refers to member `k`'s buffer.
    fn span(&mut self, v: ValueId, k: u8) -> Span {
        if let Some(sp) = self.spans.get(&(v, k)) {
            return sp.clone();
        }
        let m = self.m;
        let same = m
            .defining_op(v)
            .filter(|&o| same_bytes(m.op(o).name()))
            .and_then(|o| m.op(o).operand(0));
        let sp = match (same, self.layout(v, k)) {
            // A view of all its source's bytes covers them as its source
            // does, whatever its type says.
            (Some(src), _) => self.span(src, k),
            (None, Some(l)) => l.span(),
            (None, None) => match m.defining_op(v).filter(|&o| is_view(m.op(o).name())) {
                Some(o) => match m.op(o).operand(0) {
                    Some(src) => {
                        let (lo, hi) = self.span(src, k).extent();
                        Span::Within(lo, hi)
                    }
                    None => self.unknown(k),
                },
                None => self.unknown(k),
            },
        };
        self.spans.insert((v, k), sp.clone());
        sp
    }

    /// Some bytes of member `k`'s buffer.
    fn unknown(&self, k: u8) -> Span {
        Span::Within(0, self.size_of(k))
    }

    /// The elements `v` covers, when they are constants, from the start of
    /// member `k`'s buffer: the buffer itself (or a value of its type),
    /// a subview with constant offsets, sizes and strides of one, or a
    /// reshaping view of one whose type says where it lies.
    fn layout(&mut self, v: ValueId, k: u8) -> Option<Layout> {
        let m = self.m;
        let own = |t: &crate::ir::Type| -> Option<Layout> {
            let mt = t.as_memref()?;
            let bits = mt.element_bit_width()?;
            let (strides, offset) = mt.strides_and_offset()?;
            if bits % 8 != 0 || offset < 0 || mt.shape.iter().chain(&strides).any(|&x| x < 0) {
                return None;
            }
            Some(Layout {
                elem: u64::from(bits / 8),
                offset: offset as u64,
                shape: mt.shape.iter().map(|&x| x as u64).collect(),
                strides: strides.iter().map(|&x| x as u64).collect(),
            })
        };
        let whole = || -> Option<Layout> {
            let l = own(m.value_type(v))?;
            let size = self.size_of(k);
            let all = Span::Known(Rc::new(vec![(0, size)]));
            (l.offset == 0 && size != END && l.span() == all).then_some(l)
        };
        let Some(o) = m.defining_op(v) else {
            return whole();
        };
        let d = m.op(o);
        if !is_view(d.name()) {
            return whole();
        }
        let src = d.operand(0)?;
        let base = self.layout(src, k)?;
        if d.is("memref.subview") {
            let parts = m.slice_parts(o)?;
            let stat = |xs: &[crate::ir::ops::Ofr]| -> Option<Vec<u64>> {
                xs.iter()
                    .map(|x| {
                        let x = match *x {
                            crate::ir::ops::Ofr::Static(x) => x,
                            crate::ir::ops::Ofr::Dynamic(d) => self.int(d, 0)?,
                        };
                        u64::try_from(x).ok()
                    })
                    .collect()
            };
            let (offs, sizes, steps) = (
                stat(&parts.offsets)?,
                stat(&parts.sizes)?,
                stat(&parts.strides)?,
            );
            if offs.len() != base.strides.len()
                || sizes.len() != offs.len()
                || steps.len() != offs.len()
            {
                return None;
            }
            let mut offset = base.offset;
            for (o, st) in offs.iter().zip(&base.strides) {
                offset = offset.checked_add(o.checked_mul(*st)?)?;
            }
            let strides = steps
                .iter()
                .zip(&base.strides)
                .map(|(a, b)| a.checked_mul(*b))
                .collect::<Option<Vec<u64>>>()?;
            // A rank-reducing subview drops unit dims: the sizes kept are
            // the result's shape (a dynamic size matches any), from the
            // left.
            let want: Vec<Option<u64>> = m
                .value_type(v)
                .as_memref()?
                .shape
                .iter()
                .map(|&x| u64::try_from(x).ok())
                .collect();
            let (mut shape, mut kept) = (Vec::new(), Vec::new());
            for (&n, &st) in sizes.iter().zip(&strides) {
                match want.get(shape.len()) {
                    Some(w) if w.is_none_or(|w| w == n) => {
                        shape.push(n);
                        kept.push(st);
                    }
                    _ if n == 1 => {}
                    _ => return None,
                }
            }
            if shape.len() != want.len() {
                return None;
            }
            return Some(Layout {
                elem: base.elem,
                offset,
                shape,
                strides: kept,
            });
        }
        if matches!(
            d.name(),
            "memref.collapse_shape"
                | "memref.expand_shape"
                | "memref.cast"
                | "memref.memory_space_cast"
                | "memref.reshape"
                | "hivm.hir.bitcast"
        ) {
            // The type says where the view lies; trusted only when it
            // covers the bytes its source covers.
            let l = own(m.value_type(v))?;
            return (l.span() == base.span()).then_some(l);
        }
        None
    }

    /// The value of the integer or index `v` where it is known: a
    /// constant, the induction variable of a loop run trip by trip, or
    /// `arith` integer ops and `affine.apply`/`min`/`max` of those (`None`
    /// on overflow, a division by zero, or anything else).
    fn int(&self, v: ValueId, depth: u32) -> Option<i64> {
        if let Some(&x) = self.ivs.get(&v) {
            return Some(x);
        }
        if depth > 64 {
            return None;
        }
        let m = self.m;
        let d = m.op(m.defining_op(v)?);
        let arg = |k: usize| self.int(d.operand(k)?, depth + 1);
        let unsigned = |k: usize| arg(k).filter(|&x| x >= 0);
        match d.name() {
            "arith.constant" => match d.attr("value")? {
                crate::ir::Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            },
            "arith.index_cast" | "arith.extsi" => arg(0),
            "arith.index_castui" | "arith.extui" => unsigned(0),
            "arith.addi" => arg(0)?.checked_add(arg(1)?),
            "arith.subi" => arg(0)?.checked_sub(arg(1)?),
            "arith.muli" => arg(0)?.checked_mul(arg(1)?),
            "arith.divsi" => arg(0)?.checked_div(arg(1)?),
            "arith.divui" => unsigned(0)?.checked_div(unsigned(1)?),
            "arith.floordivsi" => {
                let (a, b) = (arg(0)?, arg(1)?);
                let q = a.checked_div(b)?;
                Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
                    q - 1
                } else {
                    q
                })
            }
            "arith.ceildivsi" => {
                let (a, b) = (arg(0)?, arg(1)?);
                let q = a.checked_div(b)?;
                Some(if (a % b != 0) && ((a < 0) == (b < 0)) {
                    q + 1
                } else {
                    q
                })
            }
            "arith.remsi" => arg(0)?.checked_rem(arg(1)?),
            "arith.remui" => unsigned(0)?.checked_rem(unsigned(1)?),
            "arith.minsi" => Some(arg(0)?.min(arg(1)?)),
            "arith.maxsi" => Some(arg(0)?.max(arg(1)?)),
            "arith.minui" => Some(unsigned(0)?.min(unsigned(1)?)),
            "arith.maxui" => Some(unsigned(0)?.max(unsigned(1)?)),
            "affine.apply" | "affine.min" | "affine.max" => {
                let Some(crate::ir::Attribute::Opaque(map)) = d.attr("map") else {
                    return None;
                };
                let vals = |k: usize| -> Option<Vec<i64>> {
                    d.segment(k)
                        .iter()
                        .map(|&x| self.int(x, depth + 1))
                        .collect()
                };
                let out = affine_results(map, &vals(0)?, &vals(1)?)?;
                match d.name() {
                    "affine.apply" => (out.len() == 1).then(|| out[0]),
                    "affine.min" => out.into_iter().min(),
                    _ => out.into_iter().max(),
                }
            }
            _ => None,
        }
    }

    /// The trips of the `scf.for` `op` to run one by one: its induction
    /// variable and the value at each trip, when its bounds are known, it
    /// runs at most [`MAX_TRIPS`] times, and its induction variable places
    /// (through `arith` and `affine` ops) a view of memory other than `gm` in its body.
    fn trips(&mut self, op: OpId) -> Option<(ValueId, Vec<i64>)> {
        let m = self.m;
        let f = m.for_parts(op)?;
        let places = match self.iv_places.get(&op) {
            Some(&p) => p,
            None => {
                let mut dep: BTreeSet<ValueId> = BTreeSet::from([f.iv]);
                let mut p = false;
                for o in m.walk(op).into_iter().filter(|&o| o != op) {
                    let d = m.op(o);
                    let uses = d.operands().iter().any(|x| dep.contains(x));
                    if !uses {
                        continue;
                    }
                    if d.name().starts_with("arith.") || d.name().starts_with("affine.") {
                        dep.extend(d.results().iter().copied());
                    } else if is_view(d.name())
                        && d.operands().iter().skip(1).any(|x| dep.contains(x))
                        && d.result(0).is_some_and(|r| {
                            crate::passes::plan_memory::op_facts::address_space_of(m.value_type(r))
                                .as_deref()
                                != Some("gm")
                        })
                    {
                        p = true;
                        break;
                    }
                }
                self.iv_places.insert(op, p);
                p
            }
        };
        if !places {
            return None;
        }
        let (lo, hi, step) = (
            self.int(f.lower, 0)?,
            self.int(f.upper, 0)?,
            self.int(f.step, 0)?,
        );
        if step <= 0 {
            return None;
        }
        let n = if hi > lo {
            (i128::from(hi) - i128::from(lo) + i128::from(step) - 1) / i128::from(step)
        } else {
            0
        };
        if n > i128::from(MAX_TRIPS) {
            return None;
        }
        let at = (0..n as i64).map(|t| lo + t * step).collect();
        Some((f.iv, at))
    }

    /// Binds (or unbinds) a loop's induction variable; the bytes of the
    /// views it places change, so the cached ones go.
    fn set_iv(&mut self, iv: ValueId, to: Option<i64>) {
        match to {
            Some(x) => self.ivs.insert(iv, x),
            None => self.ivs.remove(&iv),
        };
        self.spans.clear();
    }

    /// `op` on one state; the states after it.
    fn op(&mut self, op: OpId, mut s: State) -> Vec<State> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.gave_up = Some(GaveUp::Steps);
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
                for (_, _, owners) in &mut s.bytes {
                    if let Some(at) = owners.iter().position(|&o| o == cur) {
                        // The renamed entry keeps its place; an older entry
                        // of the earlier instances goes.
                        owners[at] = old;
                        if let Some(dup) =
                            owners.iter().position(|&o| o == old).filter(|&d| d != at)
                        {
                            owners.remove(dup);
                        }
                    }
                }
                normalize(&mut s.bytes);
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
        if let Some((iv, at)) = self.trips(op) {
            return self.for_trips(op, region, s, iv, &at);
        }
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
        self.exit_loop(op, &args, &results, exits)
    }

    /// The states leaving loop `op`: what its block arguments `args` hold
    /// becomes its `results`, once the loop's own scope is left.
    fn exit_loop(
        &mut self,
        op: OpId,
        args: &[ValueId],
        results: &[ValueId],
        states: impl IntoIterator<Item = State>,
    ) -> Vec<State> {
        states
            .into_iter()
            .map(|mut st| {
                let carried = st.binds(args);
                self.leave(op, &mut st);
                st.bind_all(results, &carried);
                st
            })
            .collect()
    }

    /// The `scf.for` `op` run trip by trip from `s`, its induction variable
    /// `iv` bound to each value of `at` in turn.
    fn for_trips(
        &mut self,
        op: OpId,
        region: RegionId,
        s: State,
        iv: ValueId,
        at: &[i64],
    ) -> Vec<State> {
        let m = self.m;
        let d = m.op(op);
        let Some(body) = m.entry_block(op, 0) else {
            return vec![s];
        };
        let args: Vec<ValueId> = m.block_args(body).iter().skip(1).copied().collect();
        let inits: Vec<ValueId> = d.operands().iter().skip(3).copied().collect();
        let results = d.results().to_vec();
        let outer = self.ivs.get(&iv).copied();
        let mut s0 = s;
        let to = s0.binds(&inits);
        self.carry(op, &to);
        s0.bind_all(&args, &to);
        let mut states: BTreeSet<State> = BTreeSet::from([s0]);
        for &x in at {
            if self.stop() {
                break;
            }
            self.set_iv(iv, Some(x));
            let outs = self.region(region, states.into_iter().collect());
            states = BTreeSet::new();
            for (mut st, yielded) in outs {
                self.carry(op, &yielded);
                self.leave(op, &mut st);
                st.bind_all(&args, &yielded);
                states.insert(st);
            }
            if states.len() > MAX_STATES {
                self.gave_up = Some(GaveUp::States);
            }
        }
        self.set_iv(iv, outer);
        self.exit_loop(op, &args, &results, states)
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
            self.gave_up = Some(GaveUp::States);
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

    /// `scope.scope` (its results are what its region returns, once), and
    /// any other op with regions: each region may run any number of times.
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
        // Any other op with regions (`scf.forall`, `scf.parallel`, ...)
        // may run them any number of times, in any order: the states after
        // none, one, or more runs, to a fixed point (a body that reads a
        // buffer, then writes another, reads it again on the next trip).
        let mut head: BTreeSet<State> = BTreeSet::new();
        let mut fresh = vec![s];
        while let Some(new) = self.admit(&mut head, std::mem::take(&mut fresh)) {
            for &r in &regions {
                for (mut st, _) in self.region(r, new.clone()) {
                    self.leave(op, &mut st);
                    fresh.push(st);
                }
            }
        }
        head.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::affine_results;

    /// MLIR's affine semantics: `floordiv` rounds down, `ceildiv` up,
    /// `mod` is never negative; dims and symbols by the map's own names;
    /// anything else is not known.
    #[test]
    fn affine_maps_evaluate_as_mlir_defines_them() {
        let at = |map: &str, d: &[i64], s: &[i64]| affine_results(map, d, s);
        assert_eq!(
            at("affine_map<()[s0] -> (s0 * 16)>", &[], &[3]),
            Some(vec![48])
        );
        assert_eq!(
            at(
                "affine_map<(d0)[s0] -> (d0 floordiv 4, d0 ceildiv 4, d0 mod 4)>",
                &[-7],
                &[0]
            ),
            Some(vec![-2, -1, 1])
        );
        assert_eq!(
            at("affine_map<(i, j) -> ((i + 1) * 8 - j, -i)>", &[2, 5], &[]),
            Some(vec![19, -2])
        );
        assert_eq!(at("affine_map<(d0) -> (d0 floordiv 0)>", &[1], &[]), None);
        assert_eq!(at("affine_map<(d0) -> (d1)>", &[1], &[]), None);
        assert_eq!(at("affine_map<(d0) -> (d0)>", &[1, 2], &[]), None);
    }
}
