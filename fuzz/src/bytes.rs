//! A run of a planned HIVM function over its bytes, independent of the
//! planner and of `plan_check`.
//!
//! Each execution of a `hivm.hir.pointer_cast` is an instance of its
//! buffer at one of its addresses (a multi-buffered cast takes them in
//! turn, one per execution). The run keeps two memories: the planned one
//! (per address space, byte by byte, which write left each byte) and the
//! unplanned one (per instance, its own bytes). Every write goes to both;
//! every read of a byte its instance wrote must find, at its planned
//! address, the write the unplanned memory holds. Nothing here knows of
//! lifetimes, carried buffers or merges: it executes. Loops run their
//! constant trip count (at most [`MAX_TRIPS`]) or a random one of 0 to 3,
//! `scf.while` stops at random, `scf.if` takes a random arm.
//!
//! Views (`memref.subview` at offsets, sizes and strides that are
//! constants, the induction variable of a loop with constant bounds, or
//! `arith` integer ops of those, rank-reducing ones included, and
//! reshaping views whose type says where they lie) cover the elements
//! they name. A function with an op the run does not model touching a
//! local buffer (or a view it cannot place) is not judged
//! ([`Outcome::unmodelled`]).

use std::collections::{BTreeMap, HashMap};

use tilemem_mlir::ir::{BlockId, Module, OpId, ValueId};

/// Most trips a loop with constant bounds runs here.
pub const MAX_TRIPS: u64 = 4;

/// What the runs found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Reads that found another write's bytes, one line each.
    pub errors: Vec<String>,
    /// Functions not judged, with the op the run does not model.
    pub unmodelled: Vec<String>,
}

/// The elements a value covers in its instance: `offset + sum(i_k *
/// strides[k])` for `i_k < shape[k]`, of `elem` bytes each.
#[derive(Clone, Debug)]
struct Layout {
    elem: u64,
    offset: u64,
    shape: Vec<u64>,
    strides: Vec<u64>,
}

impl Layout {
    /// The byte offsets (from the instance's start) the value covers.
    fn bytes(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let n: u64 = self.shape.iter().product();
        for k in 0..n {
            let mut rest = k;
            let mut at = self.offset;
            for d in (0..self.shape.len()).rev() {
                at += (rest % self.shape[d]) * self.strides[d];
                rest /= self.shape[d];
            }
            for b in 0..self.elem {
                out.push(at * self.elem + b);
            }
        }
        out
    }

    /// The byte ranges `[lo, hi)` (from the instance's start) the value
    /// covers, in the order of its elements; one range when the elements
    /// lie densely in row-major order (so a buffer of many kilobytes costs
    /// no more than a small one).
    fn runs(&self) -> Vec<(u64, u64)> {
        let mut dense = 1;
        let mut row_major = true;
        for d in (0..self.shape.len()).rev() {
            row_major &= self.shape[d] == 1 || self.strides[d] == dense;
            dense *= self.shape[d];
        }
        if row_major {
            let lo = self.offset * self.elem;
            return if dense == 0 {
                Vec::new()
            } else {
                vec![(lo, lo + dense * self.elem)]
            };
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        for b in self.bytes().chunks(self.elem.max(1) as usize) {
            let (lo, hi) = (b[0], b[0] + b.len() as u64);
            match out.last_mut() {
                Some(last) if last.1 == lo => last.1 = hi,
                _ => out.push((lo, hi)),
            }
        }
        out
    }
}

/// Bytes, each with the write that left it, as disjoint stretches
/// `start -> (end, write)`.
#[derive(Debug, Default)]
struct Stretches(BTreeMap<u64, (u64, u64)>);

impl Stretches {
    /// The stretches that meet `[lo, hi)`, clipped to it, in order.
    fn within(&self, lo: u64, hi: u64) -> Vec<(u64, u64, u64)> {
        let first = self.0.range(..=lo).next_back().map_or(lo, |(&s, _)| s);
        self.0
            .range(first..hi)
            .filter(|(_, &(e, _))| e > lo)
            .map(|(&s, &(e, w))| (s.max(lo), e.min(hi), w))
            .collect()
    }

    /// Write `w` over `[lo, hi)`.
    fn set(&mut self, lo: u64, hi: u64, w: u64) {
        let first = self.0.range(..=lo).next_back().map_or(lo, |(&s, _)| s);
        let hit: Vec<(u64, u64, u64)> = self
            .0
            .range(first..hi)
            .filter(|(_, &(e, _))| e > lo)
            .map(|(&s, &(e, x))| (s, e, x))
            .collect();
        for (s, e, x) in hit {
            self.0.remove(&s);
            if s < lo {
                self.0.insert(s, (lo, x));
            }
            if hi < e {
                self.0.insert(hi, (e, x));
            }
        }
        self.0.insert(lo, (hi, w));
    }

    /// The first byte of `[lo, hi)` that write `w` did not leave.
    fn first_other(&self, lo: u64, hi: u64, w: u64) -> Option<u64> {
        let mut at = lo;
        for (s, e, x) in self.within(lo, hi) {
            // A gap (never written) or another write.
            if s > at || x != w {
                return Some(at);
            }
            at = e;
        }
        (at < hi).then_some(at)
    }
}

/// The layout a memref type states (`None`: dynamic, or elements below
/// a byte).
fn type_layout(m: &Module, v: ValueId) -> Option<Layout> {
    let mt = m.value_type(v).as_memref()?;
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
}

/// A local buffer a value refers to.
#[derive(Clone, Debug)]
struct Bind {
    instance: u64,
    space: String,
    addr: u64,
    layout: Layout,
}

/// Why a run stopped judging.
struct Unmodelled(String);

struct Run<'m> {
    m: &'m Module,
    rng: u64,
    env: HashMap<ValueId, Bind>,
    /// Induction variables of the loops with constant bounds being run,
    /// with their values on this trip.
    ints: HashMap<ValueId, i64>,
    /// Unplanned memory: per instance, from its start, the writes.
    own: HashMap<u64, Stretches>,
    /// Planned memory: per space, by address, the writes.
    mem: HashMap<String, Stretches>,
    /// Executions of each pointer cast (multi-buffer slots in turn).
    casts: HashMap<OpId, usize>,
    next: u64,
    errors: Vec<String>,
}

impl Run<'_> {
    fn fresh(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn random(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }

    fn read(&mut self, op: OpId, v: ValueId) {
        let Some(b) = self.env.get(&v).cloned() else {
            return;
        };
        let Some(own) = self.own.get(&b.instance) else {
            return;
        };
        let mem = self.mem.get(&b.space);
        // Bytes never written have nothing to keep.
        let bad = b.layout.runs().into_iter().find_map(|(lo, hi)| {
            own.within(lo, hi).into_iter().find_map(|(s, e, want)| {
                let (s, e) = (b.addr + s, b.addr + e);
                match mem {
                    Some(mem) => mem.first_other(s, e, want),
                    None => Some(s),
                }
            })
        });
        if let Some(at) = bad {
            let off = at - b.addr;
            let l = self.m.op(op).loc;
            self.errors.push(format!(
                "{}:{}: `{}` reads {} byte {at} (byte {off} of its buffer), which another \
                 write overwrote",
                l.line,
                l.col,
                self.m.op(op).name(),
                b.space
            ));
        }
    }

    fn write(&mut self, v: ValueId) {
        let Some(b) = self.env.get(&v).cloned() else {
            return;
        };
        let w = self.fresh();
        let own = self.own.entry(b.instance).or_default();
        let mem = self.mem.entry(b.space.clone()).or_default();
        for (lo, hi) in b.layout.runs() {
            own.set(lo, hi, w);
            mem.set(b.addr + lo, b.addr + hi, w);
        }
    }

    fn binds(&self, vs: &[ValueId]) -> Vec<Option<Bind>> {
        vs.iter().map(|v| self.env.get(v).cloned()).collect()
    }

    fn bind_all(&mut self, to: &[ValueId], from: &[Option<Bind>]) {
        for (k, &a) in to.iter().enumerate() {
            match from.get(k).cloned().flatten() {
                Some(b) => {
                    self.env.insert(a, b);
                }
                None => {
                    self.env.remove(&a);
                }
            }
        }
    }

    /// The value of an integer or index: a constant, the induction
    /// variable of a loop being run with constant bounds, or `arith`
    /// integer ops of those (`None` on overflow, division by zero, or any
    /// other op).
    fn constant(&self, v: ValueId) -> Option<i64> {
        if let Some(&x) = self.ints.get(&v) {
            return Some(x);
        }
        let d = self.m.op(self.m.defining_op(v)?);
        let arg = |k: usize| d.operand(k).and_then(|x| self.constant(x));
        let nonneg = |k: usize| arg(k).filter(|&x| x >= 0);
        let floor = |a: i64, b: i64| -> Option<i64> {
            let q = a.checked_div(b)?;
            Some(if a % b != 0 && (a < 0) != (b < 0) {
                q - 1
            } else {
                q
            })
        };
        match d.name() {
            "arith.constant" => d.attr("value")?.as_int(),
            "arith.index_cast" | "arith.extsi" => arg(0),
            "arith.index_castui" | "arith.extui" => nonneg(0),
            "arith.addi" => arg(0)?.checked_add(arg(1)?),
            "arith.subi" => arg(0)?.checked_sub(arg(1)?),
            "arith.muli" => arg(0)?.checked_mul(arg(1)?),
            "arith.divsi" => arg(0)?.checked_div(arg(1)?),
            "arith.divui" => nonneg(0)?.checked_div(nonneg(1)?),
            "arith.floordivsi" => floor(arg(0)?, arg(1)?),
            "arith.ceildivsi" => {
                let (a, b) = (arg(0)?, arg(1)?);
                Some(-floor(a.checked_neg()?, b)?)
            }
            "arith.remsi" => arg(0)?.checked_rem(arg(1)?),
            "arith.remui" => nonneg(0)?.checked_rem(nonneg(1)?),
            "arith.minsi" => Some(arg(0)?.min(arg(1)?)),
            "arith.maxsi" => Some(arg(0)?.max(arg(1)?)),
            "arith.minui" => Some(nonneg(0)?.min(nonneg(1)?)),
            "arith.maxui" => Some(nonneg(0)?.max(nonneg(1)?)),
            _ => None,
        }
    }

    /// The view `r` of `src` made by `op`, when the run can place it.
    fn view(&self, op: OpId, src: &Bind, r: ValueId) -> Option<Bind> {
        let m = self.m;
        let d = m.op(op);
        let layout = if d.is("memref.subview") {
            let parts = m.slice_parts(op)?;
            let stat = |xs: &[tilemem_mlir::ir::ops::Ofr]| -> Option<Vec<u64>> {
                xs.iter()
                    .map(|&x| {
                        let x = match x {
                            tilemem_mlir::ir::ops::Ofr::Static(x) => Some(x),
                            tilemem_mlir::ir::ops::Ofr::Dynamic(v) => self.constant(v),
                        };
                        x.and_then(|x| u64::try_from(x).ok())
                    })
                    .collect()
            };
            let (offs, sizes, steps) = (
                stat(&parts.offsets)?,
                stat(&parts.sizes)?,
                stat(&parts.strides)?,
            );
            let base = &src.layout;
            if offs.len() != base.strides.len() {
                return None;
            }
            let offset = base.offset
                + offs
                    .iter()
                    .zip(&base.strides)
                    .map(|(o, s)| o * s)
                    .sum::<u64>();
            let strides: Vec<u64> = steps
                .iter()
                .zip(&base.strides)
                .map(|(a, b)| a * b)
                .collect();
            // A rank-reducing subview drops unit dims: the sizes kept are
            // the result's shape, matched from the left.
            let want: Vec<u64> = m
                .value_type(r)
                .as_memref()?
                .shape
                .iter()
                .map(|&x| u64::try_from(x).ok())
                .collect::<Option<_>>()?;
            let (mut shape, mut kept) = (Vec::new(), Vec::new());
            for (&n, &st) in sizes.iter().zip(&strides) {
                if want.get(shape.len()) == Some(&n) {
                    shape.push(n);
                    kept.push(st);
                } else if n != 1 {
                    return None;
                }
            }
            if shape != want {
                return None;
            }
            Layout {
                elem: base.elem,
                offset,
                shape,
                strides: kept,
            }
        } else {
            // A reshaping view: trusted when it covers the same bytes.
            let l = type_layout(m, r)?;
            let mut a = l.bytes();
            let mut b = src.layout.bytes();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                return None;
            }
            l
        };
        Some(Bind {
            layout,
            ..src.clone()
        })
    }

    /// Runs `block`; the terminator's operands.
    fn block(&mut self, block: BlockId) -> Result<Vec<ValueId>, Unmodelled> {
        let m = self.m;
        for op in m.block_ops(block).collect::<Vec<_>>() {
            let d = m.op(op);
            let name = d.name();
            match name {
                "scf.yield" | "func.return" | "scf.condition" | "scope.return" => {
                    return Ok(d.operands().to_vec())
                }
                "hivm.hir.pointer_cast" => {
                    let Some(r) = d.result(0) else { continue };
                    let addrs: Vec<u64> = d
                        .operands()
                        .iter()
                        .filter_map(|&a| self.constant(a).and_then(|x| u64::try_from(x).ok()))
                        .collect();
                    let (Some(layout), false) = (type_layout(m, r), addrs.is_empty()) else {
                        return Err(Unmodelled(format!("{name} without constant addresses")));
                    };
                    let Some(space) = m
                        .value_type(r)
                        .as_memref()
                        .and_then(|t| t.address_space().map(str::to_string))
                    else {
                        continue;
                    };
                    let k = self.casts.entry(op).or_default();
                    let addr = addrs[*k % addrs.len()];
                    *k += 1;
                    let instance = self.fresh();
                    self.env.insert(
                        r,
                        Bind {
                            instance,
                            space,
                            addr,
                            layout,
                        },
                    );
                }
                "memref.subview"
                | "memref.collapse_shape"
                | "memref.expand_shape"
                | "memref.cast"
                | "memref.reinterpret_cast" => {
                    let (Some(src), Some(r)) = (d.operand(0), d.result(0)) else {
                        continue;
                    };
                    let Some(b) = self.env.get(&src).cloned() else {
                        continue;
                    };
                    match self.view(op, &b, r) {
                        Some(v) => {
                            self.env.insert(r, v);
                        }
                        None => return Err(Unmodelled(format!("a {name} it cannot place"))),
                    }
                }
                "scf.for" => {
                    let body = m.entry_block(op, 0).expect("a loop body");
                    let iv = m.block_args(body)[0];
                    let args: Vec<ValueId> = m.block_args(body)[1..].to_vec();
                    let (trips, known) = match (
                        d.operand(0).and_then(|v| self.constant(v)),
                        d.operand(1).and_then(|v| self.constant(v)),
                        d.operand(2).and_then(|v| self.constant(v)),
                    ) {
                        (Some(l), Some(u), Some(s)) if s > 0 => (
                            (u64::try_from((u - l).max(0)).unwrap_or(0)).div_ceil(s as u64),
                            Some((l, s)),
                        ),
                        _ => (self.random(4), None),
                    };
                    let mut cur = self.binds(&d.operands()[3..]);
                    for k in 0..trips.min(MAX_TRIPS) {
                        match known {
                            Some((l, s)) => self.ints.insert(iv, l + k as i64 * s),
                            None => self.ints.remove(&iv),
                        };
                        self.bind_all(&args, &cur);
                        let y = self.block(body)?;
                        cur = self.binds(&y);
                    }
                    let results = d.results().to_vec();
                    self.bind_all(&results, &cur);
                }
                "scf.while" => {
                    let before = m.entry_block(op, 0).expect("before");
                    let after = m.entry_block(op, 1).expect("after");
                    let mut cur = self.binds(d.operands());
                    let mut turns = 0;
                    loop {
                        let bargs = m.block_args(before).to_vec();
                        self.bind_all(&bargs, &cur);
                        let c = self.block(before)?;
                        let passed = self.binds(c.get(1..).unwrap_or(&[]));
                        if turns == 3 || self.random(100) < 40 {
                            let results = d.results().to_vec();
                            self.bind_all(&results, &passed);
                            break;
                        }
                        turns += 1;
                        let aargs = m.block_args(after).to_vec();
                        self.bind_all(&aargs, &passed);
                        let y = self.block(after)?;
                        cur = self.binds(&y);
                    }
                }
                "scf.if" => {
                    let region = self.random(2) as usize;
                    let y = match m.entry_block(op, region) {
                        Some(b) => self.block(b)?,
                        None => Vec::new(),
                    };
                    let ys = self.binds(&y);
                    let results = d.results().to_vec();
                    self.bind_all(&results, &ys);
                }
                "scope.scope" => {
                    let y = match m.entry_block(op, 0) {
                        Some(b) => self.block(b)?,
                        None => Vec::new(),
                    };
                    let ys = self.binds(&y);
                    let results = d.results().to_vec();
                    self.bind_all(&results, &ys);
                }
                "annotation.mark" | "memref.dim" => {}
                _ if name.starts_with("hivm.hir.") && d.regions().is_empty() => {
                    let ins = d.group("ins").unwrap_or(&[]).to_vec();
                    let outs = d.group("outs").unwrap_or(&[]).to_vec();
                    let other = d
                        .operands()
                        .iter()
                        .any(|v| self.env.contains_key(v) && !ins.contains(v) && !outs.contains(v));
                    if other {
                        return Err(Unmodelled(format!("{name} (a buffer outside ins/outs)")));
                    }
                    for v in ins {
                        self.read(op, v);
                    }
                    for v in outs {
                        self.write(v);
                    }
                }
                _ => {
                    let touches = d.operands().iter().any(|v| self.env.contains_key(v));
                    if touches || !d.regions().is_empty() {
                        return Err(Unmodelled(name.to_string()));
                    }
                }
            }
        }
        Ok(Vec::new())
    }
}

/// Runs every function of the planned module `m` `runs` times (random
/// choices seeded by the run's number).
pub fn run(m: &Module, runs: u64) -> Outcome {
    let mut out = Outcome::default();
    for f in m.funcs() {
        let Some(entry) = m.entry_block(f, 0) else {
            continue;
        };
        let fname = m.func_name(f).unwrap_or("?").to_string();
        for seed in 0..runs {
            let mut r = Run {
                m,
                rng: seed,
                env: HashMap::new(),
                ints: HashMap::new(),
                own: HashMap::new(),
                mem: HashMap::new(),
                casts: HashMap::new(),
                next: 0,
                errors: Vec::new(),
            };
            match r.block(entry) {
                Ok(_) => {
                    if let Some(e) = r.errors.into_iter().next() {
                        out.errors.push(format!("@{fname}, run {seed}: {e}"));
                        break;
                    }
                }
                Err(Unmodelled(what)) => {
                    out.unmodelled.push(format!("@{fname}: {what}"));
                    break;
                }
            }
        }
    }
    out
}
