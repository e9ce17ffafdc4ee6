//! Buffer lifetimes (`MemLivenessAnalysis`): one walk over a function in
//! program order that numbers the operations (a loop, `if` and `scope` get
//! a number where they begin and where they end, an `if` also at its
//! `else`), records which buffers each numbered op first writes (*gen*) and
//! last reads (*kill*), and turns the numbers into `[alloc, free]`
//! lifetimes.
//!
//! Rules, from `PlanMemory.cpp`:
//! - an allocation is a buffer (`memref.alloc` for the local plan,
//!   `memref_ext.alloc_workspace` for the workspace plan);
//! - views, casts, loop arguments and results, `if`/`scope` results,
//!   branch arguments and `arith.select` arms alias their sources
//!   ([`super::alias_sets`]); a branch or select alias is conditional;
//! - a buffer is gen'd by the first op that writes it or an alias:
//!   destination-style inits, temporary buffers, `memref.store`, call
//!   operands; at a loop's start for buffers defined before it and live
//!   in it; at the mark of a tightly coupled buffer on the owning side;
//!   preload buffers at the start of their loop and killed at its end;
//! - a buffer is killed at the first op after which it and all its aliases
//!   are dead (MLIR liveness in the op's block, and no later use through
//!   enclosing regions), when the op's parent encloses the allocation;
//!   candidates are the values live at the op, in the reference's shuffled
//!   order ([`super::shuffle`]), which decides the order of kills;
//! - allocation-to-allocation aliases that are not conditional become
//!   in-place pairs (one storage entry) unless either is `mem_unique`.
//!
//! Ops this walk does not understand may not touch a local buffer
//! (`PlanMemory Fail : Unrecognized type of Operation touches local
//! buffer!`).

use std::collections::{HashMap, HashSet};

use crate::analysis::liveness::{LiveSweep, Liveness};
use crate::analysis::views::{alias_pairs, is_alloc_like, traceback_memref, traceback_to_alloc};
use crate::ir::{Attribute, BlockId, Diagnostic, Module, OpId, RegionId, Type, ValueId};

use super::alias_sets::BufferAliases;
use super::op_facts::{
    address_space, dps_inits, extra_buffers, func_core_type, is_dps, is_loop_like,
};
use super::shuffle::Mt19937;
use super::{Mode, Variant};

/// Gen/kill status of a buffer during the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// An alias, not a buffer of its own.
    Undefined,
    /// Allocated, not written yet.
    Defined,
    /// Written (live).
    Gened,
    /// Dead.
    Killed,
}

/// What the plan needs to know about one buffer (`BufferInfo`).
#[derive(Clone, Debug)]
pub struct BufferInfo {
    /// The allocation op.
    pub op: OpId,
    /// The memory space (`ub`, `cbuf`, `cc`, `ssbuf`; `gm` for workspace).
    pub scope: String,
    /// Size in bits.
    pub const_bits: i64,
    /// Excluded from in-place reuse (temporary buffers, alias pairs,
    /// select arms).
    pub ignore_inplace: bool,
    /// Shares memory with no other buffer (`mem_unique`).
    pub memory_unique: bool,
    /// Tightly coupled buffer id (-1: none).
    pub cv_mix_id: i32,
}

/// The buffers one numbered op gens and kills.
#[derive(Clone, Debug, Default)]
pub struct GenKill {
    /// First written here.
    pub gen: Vec<ValueId>,
    /// Last read here.
    pub kill: Vec<ValueId>,
}

/// A lifetime in op numbers, both ends included (`free` -1: never killed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferLife {
    /// The buffer it belongs to.
    pub buffer: Option<ValueId>,
    /// Gen number.
    pub alloc: i64,
    /// Kill number (-1 when never killed).
    pub free: i64,
}

/// The result of the walk.
#[derive(Debug, Default)]
pub struct Lifetimes {
    /// The numbered ops (`linearOperation`).
    pub linear: Vec<OpId>,
    /// Gens and kills per numbered op (`None`: none recorded).
    pub gen_kill: Vec<Option<GenKill>>,
    /// Buffers in allocation order.
    pub infos: Vec<(ValueId, BufferInfo)>,
    /// Index of each buffer in `infos`.
    pub info_index: HashMap<ValueId, usize>,
    /// Lifetimes of gen'd buffers.
    pub lifes: HashMap<ValueId, BufferLife>,
    /// Multi-buffer factors above 1.
    pub multi_num: HashMap<ValueId, u32>,
    /// Buffers that must share one entry (alias pairs).
    pub inplace_pairs: Vec<(ValueId, ValueId)>,
    /// Buffers whose address comes from the other core's function.
    pub skip: HashSet<ValueId>,
}

impl Lifetimes {
    /// The info of buffer `v`.
    pub fn info(&self, v: ValueId) -> Option<&BufferInfo> {
        self.info_index.get(&v).map(|&i| &self.infos[i].1)
    }

    fn info_mut(&mut self, v: ValueId) -> Option<&mut BufferInfo> {
        self.info_index.get(&v).map(|&i| &mut self.infos[i].1)
    }
}

/// The walk's state.
pub struct Walk<'m> {
    m: &'m Module,
    func: OpId,
    mode: Mode,
    variant: Variant,
    disable_tcb_reuse: bool,
    live: Liveness,
    sweeps: HashMap<BlockId, LiveSweep>,
    rng: Mt19937,
    status: HashMap<ValueId, Status>,
    aliases: BufferAliases,
    preload: Vec<ValueId>,
    preload_loops: Vec<(OpId, Vec<ValueId>)>,
    out: Lifetimes,
    /// Debug trace (`-debug-only=hivm-plan-memory`), when enabled.
    pub debug: Option<String>,
}

/// Size in bits of a static memref type (`None`: dynamic or not a memref).
pub fn static_bits(t: &Type) -> Option<i64> {
    let mt = t.as_memref()?;
    let elems = mt
        .shape
        .iter()
        .try_fold(1i64, |a, &d| if d < 0 { None } else { a.checked_mul(d) })?;
    let bits = i64::from(mt.elem.bit_width()?);
    elems.checked_mul(bits)
}

/// Whether `space` is a local buffer space PlanMemory plans
/// (`LocalBufferSpace`: UB, L1, L0C, SSBUF).
pub fn is_local_space(space: &str) -> bool {
    matches!(space, "ub" | "cbuf" | "cc" | "ssbuf")
}

type R<T> = Result<T, Diagnostic>;

impl<'m> Walk<'m> {
    /// A walk over `func` with shuffle seed `seed`.
    pub fn new(
        m: &'m Module,
        func: OpId,
        mode: Mode,
        variant: Variant,
        disable_tcb_reuse: bool,
        seed: u32,
    ) -> Walk<'m> {
        Walk {
            m,
            func,
            mode,
            variant,
            disable_tcb_reuse,
            live: Liveness::new(m, func),
            sweeps: HashMap::new(),
            rng: Mt19937::new(seed),
            status: HashMap::new(),
            aliases: BufferAliases::new(variant == Variant::Regbase),
            preload: Vec::new(),
            preload_loops: Vec::new(),
            out: Lifetimes::default(),
            debug: None,
        }
    }

    /// `MemLivenessAnalysis::build`.
    pub fn build(mut self) -> R<Lifetimes> {
        let m = self.m;
        for &r in m.op(self.func).regions() {
            self.region(r)?;
        }
        self.preload_gen_kill();
        self.buffer_lifes();
        self.inplace_pair_list();
        Ok(self.out)
    }

    fn error(&self, op: OpId, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.m.op(op).loc, msg)
    }

    // ----- walking -------------------------------------------------------

    fn region(&mut self, r: RegionId) -> R<()> {
        let m = self.m;
        for &b in m.region_blocks(r) {
            let ops: Vec<OpId> = m.block_ops(b).collect();
            for o in ops {
                self.walk_op(o)?;
            }
        }
        Ok(())
    }

    fn walk_op(&mut self, op: OpId) -> R<()> {
        if self.visit(op)? {
            let m = self.m;
            for &r in m.op(op).regions() {
                self.region(r)?;
            }
        }
        Ok(())
    }

    fn number(&mut self, op: OpId) -> usize {
        self.out.linear.push(op);
        self.out.gen_kill.push(None);
        self.out.linear.len() - 1
    }

    fn gk(&mut self, seq: usize) -> &mut GenKill {
        self.out.gen_kill[seq].get_or_insert_with(GenKill::default)
    }

    /// One op of `RecursionIR`; true when its regions are to be walked.
    fn visit(&mut self, op: OpId) -> R<bool> {
        let m = self.m;
        let d = m.op(op);
        let name = d.name();
        match name {
            "scf.if" => return self.recursive_if(op).map(|_| false),
            "scf.for" => return self.recursive_for(op).map(|_| false),
            "scf.while" => return self.recursive_while(op).map(|_| false),
            "scope.scope" => return self.recursive_scope(op).map(|_| false),
            _ => {}
        }
        let cur = self.number(op);
        let pairs = alias_pairs(m, op);
        if !pairs.is_empty() && name != "arith.select" {
            for (a, b) in pairs {
                self.update_alias(a, b, false, false);
            }
        } else if self.mode == Mode::Local && name == "memref.alloc" {
            self.check_local_alloc(op)?;
            self.buffer_infos(op)?;
        } else if self.mode == Mode::Workspace && name == "memref_ext.alloc_workspace" {
            self.buffer_infos(op)?;
        } else if name == "memref.load" {
            self.kill_handle(cur)?;
        } else if name == "memref.store" {
            if let Some(&mem) = d.segment(1).first() {
                self.gen(cur, &[mem])?;
            }
            self.kill_handle(cur)?;
        } else if is_dps(m, op) {
            self.init_and_result_alias(op);
            let inits = dps_inits(m, op);
            self.gen(cur, &inits)?;
            self.temp_gen(cur)?;
            self.kill_handle(cur)?;
        } else if name == "arith.select" {
            if let (Some(r), Some(t), Some(f)) = (d.result(0), d.operand(1), d.operand(2)) {
                self.update_alias(r, t, true, true);
                self.update_alias(r, f, true, true);
            }
            self.kill_handle(cur)?;
        } else if name == "annotation.mark" {
            self.process_mark(op, cur)?;
        } else if name == "scf.condition" {
            self.condition_alias(op);
        } else if name == "cf.cond_br" {
            let succ = d.successors().to_vec();
            if let [t, f] = succ[..] {
                let (to, fo) = (d.segment(1).to_vec(), d.segment(2).to_vec());
                self.branch_alias(t, &to);
                self.branch_alias(f, &fo);
            }
        } else if name == "cf.br" {
            if let Some(&dest) = d.successors().first() {
                let ops = d.operands().to_vec();
                self.branch_alias(dest, &ops);
            }
        } else if name == "func.call" || name == "gpu.launch_func" {
            let ops = d.operands().to_vec();
            self.gen(cur, &ops)?;
            self.temp_gen(cur)?;
            self.kill_handle(cur)?;
        } else if name == "hivm.hir.debug" {
            self.kill_handle(cur)?;
        } else {
            self.check_unknown_op(op)?;
        }
        Ok(true)
    }

    fn recursive_for(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        let begin = self.number(op);
        let live = self.live_buffers_in_loop(op);
        self.gen(begin, &live)?;
        let d = m.op(op);
        let body = m.entry_block(op, 0);
        let iter_args: Vec<ValueId> = body
            .map(|b| m.block_args(b).iter().skip(1).copied().collect())
            .unwrap_or_default();
        let inits: Vec<ValueId> = d.operands().iter().skip(3).copied().collect();
        for (&a, &i) in iter_args.iter().zip(&inits) {
            self.update_alias(a, i, false, false);
        }
        if !d.results().is_empty() {
            let yielded = body
                .and_then(|b| m.last_op(b))
                .map(|y| m.op(y).operands().to_vec())
                .unwrap_or_default();
            for (&y, &a) in yielded.iter().zip(&iter_args) {
                self.update_alias(y, a, false, false);
            }
            let results = d.results().to_vec();
            for (&r, &y) in results.iter().zip(&yielded) {
                self.update_alias(r, y, false, false);
            }
        }
        if let Some(&r) = d.regions().first() {
            self.region(r)?;
        }
        let end = self.number(op);
        self.kill_handle(end)
    }

    fn recursive_while(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        let begin = self.number(op);
        let live = self.live_buffers_in_loop(op);
        self.gen(begin, &live)?;
        let d = m.op(op);
        let before = m.entry_block(op, 0);
        let after = m.entry_block(op, 1);
        let before_args: Vec<ValueId> =
            before.map(|b| m.block_args(b).to_vec()).unwrap_or_default();
        let inits = d.operands().to_vec();
        for (&a, &i) in before_args.iter().zip(&inits) {
            self.update_alias(a, i, false, false);
        }
        let regions = d.regions().to_vec();
        for r in regions {
            self.region(r)?;
        }
        let d = m.op(op);
        if !d.results().is_empty() {
            if !before_args.is_empty() {
                let yielded = after
                    .and_then(|b| m.last_op(b))
                    .map(|y| m.op(y).operands().to_vec())
                    .unwrap_or_default();
                for (&y, &a) in yielded.iter().zip(&before_args) {
                    self.update_alias(y, a, false, false);
                }
            }
            let after_args: Vec<ValueId> =
                after.map(|b| m.block_args(b).to_vec()).unwrap_or_default();
            let results = d.results().to_vec();
            for (&r, &a) in results.iter().zip(&after_args) {
                self.update_alias(r, a, false, false);
            }
        }
        let end = self.number(op);
        self.kill_handle(end)
    }

    fn if_alias(&mut self, op: OpId, region: usize) {
        let m = self.m;
        let results = m.op(op).results().to_vec();
        if results.is_empty() {
            return;
        }
        let Some(yield_op) = m.entry_block(op, region).and_then(|b| m.last_op(b)) else {
            return;
        };
        let ys = m.op(yield_op).operands().to_vec();
        for (&r, &y) in results.iter().zip(&ys) {
            self.update_alias(r, y, false, false);
        }
    }

    fn recursive_if(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        self.number(op);
        let regions = m.op(op).regions().to_vec();
        if let Some(&then) = regions.first() {
            self.region(then)?;
        }
        let mut end = self.number(op);
        self.if_alias(op, 0);
        let has_else = regions
            .get(1)
            .is_some_and(|&r| !m.region_blocks(r).is_empty());
        if has_else {
            self.region(regions[1])?;
            end = self.number(op);
            self.if_alias(op, 1);
        }
        self.kill_handle(end)
    }

    fn recursive_scope(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        self.number(op);
        if let Some(&r) = m.op(op).regions().first() {
            self.region(r)?;
        }
        let results = m.op(op).results().to_vec();
        if !results.is_empty() {
            let ret = m
                .entry_block(op, 0)
                .and_then(|b| m.last_op(b))
                .map(|r| m.op(r).operands().to_vec())
                .unwrap_or_default();
            for (&r, &v) in results.iter().zip(&ret) {
                self.update_alias(r, v, false, false);
            }
        }
        let end = self.number(op);
        self.kill_handle(end)
    }

    fn branch_alias(&mut self, dest: BlockId, operands: &[ValueId]) {
        let args = self.m.block_args(dest).to_vec();
        for (&a, &o) in args.iter().zip(operands) {
            self.update_alias(a, o, true, false);
        }
    }

    fn condition_alias(&mut self, cond: OpId) {
        let m = self.m;
        let Some(w) = m.parent_op(cond) else { return };
        if !m.op(w).is("scf.while") {
            return;
        }
        let Some(after) = m.entry_block(w, 1) else {
            return;
        };
        let after_args = m.block_args(after).to_vec();
        let args: Vec<ValueId> = m.op(cond).operands().iter().skip(1).copied().collect();
        for (&a, &c) in after_args.iter().zip(&args) {
            self.update_alias(a, c, false, false);
        }
    }

    /// `UpdateInitAndResAlias`: tensor results alias their inits.
    fn init_and_result_alias(&mut self, op: OpId) {
        let m = self.m;
        let results = m.op(op).results().to_vec();
        if results.is_empty() {
            return;
        }
        let inits = dps_inits(m, op);
        for (&r, &i) in results.iter().zip(&inits) {
            if !self.aliases.has_key(i) {
                continue;
            }
            if matches!(
                m.value_type(r),
                Type::Tensor { .. } | Type::UnrankedTensor(_)
            ) {
                self.update_alias(r, i, false, false);
            }
        }
    }

    // ----- buffers -------------------------------------------------------

    fn check_local_alloc(&self, op: OpId) -> R<()> {
        let m = self.m;
        let Some(v) = m.op(op).result(0) else {
            return Ok(());
        };
        match address_space(m, v).as_deref() {
            Some(s) if is_local_space(s) => Ok(()),
            Some("gm") | None => Err(self.error(op, "Alloc buffer not at UB space! ")),
            Some(_) => Err(self.error(op, "Currently only support (UB | L1 | L0C) allocation")),
        }
    }

    /// `UpdateOpBufferInfo` for an allocation.
    fn buffer_infos(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        let results = m.op(op).results().to_vec();
        for v in results {
            if self.status.contains_key(&v) {
                continue;
            }
            // regbase/PlanMemory.cpp:1075-1077: the register-based pass
            // stops at an SSBUF allocation before anything else.
            if self.variant == Variant::Regbase && address_space(m, v).as_deref() == Some("ssbuf") {
                return Err(self.error(op, "Alloc-like on SSBUF is not yet supported!"));
            }
            let scope = match self.mode {
                Mode::Local => address_space(m, v).unwrap_or_default(),
                Mode::Workspace => "gm".to_string(),
            };
            let traced = traceback_memref(m, v);
            let Some(bits) = static_bits(m.value_type(traced)) else {
                return Err(self.error(
                    op,
                    "Failed to obtain op buffer shape size which should be static.",
                ));
            };
            let info = BufferInfo {
                op,
                scope,
                const_bits: bits,
                ignore_inplace: false,
                memory_unique: false,
                cv_mix_id: -1,
            };
            self.out.info_index.insert(v, self.out.infos.len());
            self.out.infos.push((v, info));
            self.status.insert(v, Status::Defined);
        }
        Ok(())
    }

    fn update_alias(&mut self, buffer: ValueId, alias: ValueId, has_cond: bool, ignore: bool) {
        self.aliases.alias(buffer, alias, has_cond);
        if !is_alloc_like(self.m, buffer) {
            self.status.insert(buffer, Status::Undefined);
        }
        if ignore {
            if let Some(i) = self.out.info_mut(alias) {
                i.ignore_inplace = true;
            }
        }
    }

    fn is_preload(&self, v: ValueId) -> bool {
        self.aliases
            .with_self(v)
            .iter()
            .any(|b| self.preload.contains(b))
    }

    /// `UpdateOpGenInfo`.
    fn gen(&mut self, seq: usize, values: &[ValueId]) -> R<()> {
        for &v in values {
            if self.variant == Variant::Regbase && self.out.skip.contains(&v) {
                continue;
            }
            for b in self.aliases.with_self(v) {
                self.operand_gen(seq, b)?;
            }
        }
        Ok(())
    }

    /// `UpdateOperandGenInfo`.
    fn operand_gen(&mut self, seq: usize, b: ValueId) -> R<()> {
        match self.status.get(&b) {
            Some(Status::Defined) => {
                if self.is_preload(b) {
                    return Ok(());
                }
                self.gk(seq).gen.push(b);
                self.status.insert(b, Status::Gened);
                Ok(())
            }
            Some(Status::Killed) => Err(self.error(
                self.out.linear[seq],
                "The buffer memory has been released and cannot be used again! ",
            )),
            _ => Ok(()),
        }
    }

    /// `UpdateOpTempGenInfo`: temporary buffers are gen'd here and never
    /// reused in place.
    fn temp_gen(&mut self, seq: usize) -> R<()> {
        let op = self.out.linear[seq];
        let Some(temps) = extra_buffers(self.m, op) else {
            return Ok(());
        };
        for &t in &temps {
            if let Some(i) = self.out.info_mut(t) {
                i.ignore_inplace = true;
            }
        }
        self.gen(seq, &temps)
    }

    // ----- marks ---------------------------------------------------------

    fn process_mark(&mut self, mark: OpId, seq: usize) -> R<()> {
        let m = self.m;
        let Some(src) = m.op(mark).operand(0) else {
            return Ok(());
        };
        if m.value_type(src).as_memref().is_none() {
            return Ok(());
        }
        if self.mode != Mode::Local {
            return self.multi_buffer(mark, src);
        }
        let Some(alloc) = traceback_to_alloc(m, src) else {
            return Ok(());
        };
        let Some(av) = m.op(alloc).result(0) else {
            return Ok(());
        };
        self.multi_buffer(mark, av)?;
        self.preload_buffer(mark, alloc, av)?;
        if m.op(mark).has_attr("mem_unique") {
            match self.out.info_mut(av) {
                Some(i) => i.memory_unique = true,
                None => return Err(self.error(mark, "Use allocOp before defined!")),
            }
        }
        if self.tightly_coupled(mark, av)? {
            self.gen(seq, &[av])?;
        }
        match self.variant {
            Variant::Membase => self.kill_info(seq, av),
            Variant::Regbase => self.kill_handle(seq)?,
        }
        Ok(())
    }

    /// Records a `hivm.multi_buffer = N` mark: `N` copies of the buffer
    /// take turns. A count below 1 names no buffer, and each copy is a
    /// buffer of its own to plan, so the count is bounded as the reader
    /// bounds other counts (one copy per storage entry: a count of 2^31
    /// would not finish).
    fn multi_buffer(&mut self, mark: OpId, v: ValueId) -> R<()> {
        const MAX_COPIES: i128 = 1 << 16;
        if let Some(Attribute::Integer { value, .. }) = self.m.op(mark).attr("hivm.multi_buffer") {
            if !(1..=MAX_COPIES).contains(value) {
                return Err(self.error(
                    mark,
                    format!(
                        "hivm.multi_buffer = {value} is not a buffer count: mark 1 to \
                         {MAX_COPIES} copies (2 for double buffering)"
                    ),
                ));
            }
            if *value != 1 {
                self.out.multi_num.insert(v, *value as u32);
            }
        }
        Ok(())
    }

    fn preload_buffer(&mut self, mark: OpId, alloc: OpId, av: ValueId) -> R<()> {
        let m = self.m;
        if !m.op(mark).has_attr("hivm.preload_local_buffer") {
            return Ok(());
        }
        let nearest_loop = |op: OpId| {
            let mut cur = m.parent_op(op);
            while let Some(p) = cur {
                if is_loop_like(m.op(p).name()) {
                    return Some(p);
                }
                cur = m.parent_op(p);
            }
            None
        };
        let Some(lp) = nearest_loop(mark).or_else(|| nearest_loop(alloc)) else {
            return Err(self.error(mark, "preload local buffer must be inside a loop-like op"));
        };
        if !self.preload.contains(&av) {
            self.preload.push(av);
        }
        match self.preload_loops.iter_mut().find(|(l, _)| *l == lp) {
            Some((_, bufs)) => {
                if !bufs.contains(&av) {
                    bufs.push(av);
                }
            }
            None => self.preload_loops.push((lp, vec![av])),
        }
        Ok(())
    }

    /// `ProcessMarkOpForTightlyCoupledCV`: true when the owning side's
    /// buffer is to be gen'd at the mark.
    fn tightly_coupled(&mut self, mark: OpId, av: ValueId) -> R<bool> {
        let m = self.m;
        let id = match m.op(mark).attr("hivm.tightly_coupled_buffer") {
            Some(Attribute::Dialect {
                params: Some(p), ..
            }) => match p.trim().parse::<i32>() {
                Ok(id) => id,
                Err(_) => return Ok(false),
            },
            _ => return Ok(false),
        };
        if self.out.info(av).is_none() {
            return Err(self.error(mark, "Use allocOp before defined!"));
        }
        if self.variant == Variant::Membase {
            if let Some(i) = self.out.info_mut(av) {
                i.cv_mix_id = id;
            }
        }
        let space = address_space(m, av).unwrap_or_default();
        let core = func_core_type(m, self.func).unwrap_or_default();
        let (aic, aiv) = (core == "AIC", core == "AIV");
        if (aic && space == "ub") || (aiv && space == "cbuf") {
            self.out.skip.insert(av);
        }
        if (aiv && space == "ub") || (aic && space == "cbuf") {
            let unique = self.disable_tcb_reuse;
            if let Some(i) = self.out.info_mut(av) {
                if self.variant == Variant::Regbase {
                    i.cv_mix_id = id;
                }
                if unique {
                    i.memory_unique = true;
                }
            }
            return Ok(true);
        }
        Ok(false)
    }

    // ----- kills ---------------------------------------------------------

    /// The values live at `op` in its block, in the reference's order.
    fn currently_live(&mut self, op: OpId) -> Vec<ValueId> {
        let m = self.m;
        let Some(block) = m.op(op).parent_block() else {
            return Vec::new();
        };
        let live = &self.live;
        let sweep = self
            .sweeps
            .entry(block)
            .or_insert_with(|| LiveSweep::new(live, m, block));
        sweep.live_at(live, op)
    }

    fn shuffled_live(&mut self, op: OpId) -> Vec<ValueId> {
        let mut vals = self.currently_live(op);
        if !vals.is_empty() {
            self.rng.shuffle(&mut vals);
        }
        vals
    }

    /// `GetLiveBuffersInLoop`.
    fn live_buffers_in_loop(&mut self, op: OpId) -> Vec<ValueId> {
        let vals = self.shuffled_live(op);
        let mut out = Vec::new();
        for v in vals {
            for b in self.aliases.with_self(v) {
                if self.status.contains_key(&b) {
                    out.push(b);
                }
            }
        }
        out
    }

    /// `OpKillHandle`.
    fn kill_handle(&mut self, seq: usize) -> R<()> {
        let op = self.out.linear[seq];
        for v in self.shuffled_live(op) {
            self.kill_info(seq, v);
        }
        Ok(())
    }

    /// `UpdateOpKillInfo`.
    fn kill_info(&mut self, seq: usize, operand: ValueId) {
        let m = self.m;
        let op = self.out.linear[seq];
        let aliases = self.aliases.with_self(operand);
        let mut all_dead: Option<bool> = None;
        for &ab in &aliases {
            let Some(&st) = self.status.get(&ab) else {
                return;
            };
            if st != Status::Gened {
                continue;
            }
            let Some(def) = m.defining_op(ab) else {
                continue;
            };
            if !self.parent_dominates(def, op) {
                continue;
            }
            let dead = *all_dead.get_or_insert_with(|| self.all_dead_after(op, &aliases));
            if dead {
                self.gk(seq).kill.push(ab);
                self.status.insert(ab, Status::Killed);
            }
        }
    }

    /// `isParentOpDominate(op1, op2)`: `op2`'s parent encloses `op1`'s.
    fn parent_dominates(&self, op1: OpId, op2: OpId) -> bool {
        let m = self.m;
        let (Some(p1), Some(p2)) = (m.parent_op(op1), m.parent_op(op2)) else {
            return false;
        };
        m.is_ancestor(p2, p1)
    }

    /// `AllDeadAfter`.
    fn all_dead_after(&self, op: OpId, aliases: &[ValueId]) -> bool {
        let m = self.m;
        for &a in aliases {
            if self.variant == Variant::Regbase && self.while_sibling_use(a, op) {
                return false;
            }
            if !self.live.is_dead_after(m, a, op) || !self.dead_after_op(a, op) {
                return false;
            }
        }
        true
    }

    /// The register-based pass keeps a value defined in one region of an
    /// `scf.while` alive while `op` is in the other region.
    fn while_sibling_use(&self, v: ValueId, op: OpId) -> bool {
        let m = self.m;
        let Some(def) = m.defining_op(v) else {
            return false;
        };
        let Some(def_block) = m.op(def).parent_block() else {
            return false;
        };
        let def_region = m.block_region(def_block);
        let w = m.region_parent_op(def_region);
        if !m.op(w).is("scf.while") {
            return false;
        }
        let regions = m.op(w).regions();
        let Some(sibling) = regions.iter().copied().find(|&r| r != def_region) else {
            return false;
        };
        // Whether `sibling` is or contains the region holding `op`.
        let mut cur = m.op(op).parent_block().map(|b| m.block_region(b));
        while let Some(r) = cur {
            if r == sibling {
                return true;
            }
            let p = m.region_parent_op(r);
            cur = m.op(p).parent_block().map(|b| m.block_region(b));
        }
        false
    }

    /// `IsDeadAfterOp`: no use of `value` after `operation` through the
    /// regions enclosing it (a use in an ancestor's later sibling, or in a
    /// later region of a shared ancestor such as the `else` of an `if`).
    fn dead_after_op(&self, value: ValueId, operation: OpId) -> bool {
        let m = self.m;
        let module_block = m.body();
        let mut block_to_op: HashMap<BlockId, OpId> = HashMap::new();
        let mut parent_to_child: HashMap<OpId, OpId> = HashMap::new();
        let mut child: Option<OpId> = None;
        let mut cur = Some(operation);
        while let Some(o) = cur {
            let Some(b) = m.op(o).parent_block() else {
                break;
            };
            if b == module_block {
                break;
            }
            block_to_op.entry(b).or_insert(o);
            if let Some(c) = child {
                parent_to_child.insert(o, c);
            }
            child = Some(o);
            cur = m.parent_op(o);
        }
        for u in m.uses(value) {
            let mut user_child: Option<OpId> = None;
            let mut cur = Some(u.op);
            while let Some(o) = cur {
                let Some(b) = m.op(o).parent_block() else {
                    break;
                };
                if b != module_block {
                    if let Some(&current) = block_to_op.get(&b) {
                        if current == o {
                            if let (Some(uc), Some(&cc)) =
                                (user_child, parent_to_child.get(&current))
                            {
                                if self.block_after(uc, cc) {
                                    return false;
                                }
                            }
                        }
                        if self.live.position(current) < self.live.position(o) {
                            return false;
                        }
                        break;
                    }
                }
                user_child = Some(o);
                cur = m.parent_op(o);
            }
        }
        true
    }

    /// `IsBlockAfter(after.block, before.block)`.
    fn block_after(&self, after_op: OpId, before_op: OpId) -> bool {
        let m = self.m;
        let (Some(after), Some(before)) = (
            m.op(after_op).parent_block(),
            m.op(before_op).parent_block(),
        ) else {
            return false;
        };
        if after == before {
            return false;
        }
        let (ra, rb) = (m.block_region(after), m.block_region(before));
        if ra == rb {
            let blocks = m.region_blocks(ra);
            let ia = blocks.iter().position(|&b| b == after);
            let ib = blocks.iter().position(|&b| b == before);
            return matches!((ia, ib), (Some(a), Some(b)) if a > b);
        }
        let region_number = |r: RegionId| {
            let p = m.region_parent_op(r);
            m.op(p).regions().iter().position(|&x| x == r).unwrap_or(0)
        };
        region_number(rb) < region_number(ra)
    }

    fn check_unknown_op(&self, op: OpId) -> R<()> {
        let m = self.m;
        let d = m.op(op);
        if matches!(
            d.name(),
            "func.return" | "scf.yield" | "memref.dim" | "hivm.hir.dcci" | "scope.return"
        ) || self.mode == Mode::Workspace
        {
            return Ok(());
        }
        let touched: Vec<ValueId> = d.results().iter().chain(d.operands()).copied().collect();
        let spaces: Vec<String> = touched
            .iter()
            .filter_map(|&v| address_space(m, v))
            .collect();
        if self.variant == Variant::Regbase
            && d.is("hivm.hir.pointer_cast")
            && touched
                .iter()
                .all(|&v| address_space(m, v).is_none_or(|s| s == "ssbuf"))
        {
            return Ok(());
        }
        for s in &spaces {
            if s == "gm" {
                continue;
            }
            if is_local_space(s) {
                return Err(self.error(
                    op,
                    "PlanMemory Fail : Unrecognized type of Operation touches local buffer!",
                ));
            }
            return Err(self.error(op, "Currently only support (UB | L1 | L0C) allocation"));
        }
        Ok(())
    }

    // ----- after the walk ------------------------------------------------

    fn preload_gen_kill(&mut self) {
        if self.preload_loops.is_empty() {
            return;
        }
        let mut visits: HashMap<OpId, u32> = HashMap::new();
        for seq in 0..self.out.linear.len() {
            let op = self.out.linear[seq];
            let Some(bufs) = self
                .preload_loops
                .iter()
                .find(|(l, _)| *l == op)
                .map(|(_, b)| b.clone())
            else {
                continue;
            };
            let count = visits.entry(op).or_insert(0);
            let c = *count;
            *count += 1;
            for p in bufs {
                for b in self.aliases.with_self(p) {
                    match (c, self.status.get(&b)) {
                        (0, Some(Status::Defined)) => {
                            self.gk(seq).gen.push(b);
                            self.status.insert(b, Status::Gened);
                        }
                        (1, Some(Status::Gened)) => {
                            self.gk(seq).kill.push(b);
                            self.status.insert(b, Status::Killed);
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// `GenerateBufferLife`: op numbers become lifetimes.
    fn buffer_lifes(&mut self) {
        for seq in 0..self.out.linear.len() {
            let Some(gk) = self.out.gen_kill[seq].clone() else {
                continue;
            };
            for g in gk.gen {
                self.out.lifes.insert(
                    g,
                    BufferLife {
                        buffer: Some(g),
                        alloc: seq as i64,
                        free: -1,
                    },
                );
            }
            for k in gk.kill {
                if let Some(l) = self.out.lifes.get_mut(&k) {
                    l.free = seq as i64;
                }
            }
        }
    }

    /// `InitializeInplacePairList`.
    fn inplace_pair_list(&mut self) {
        let m = self.m;
        for i in 0..self.out.infos.len() {
            let buffer = self.out.infos[i].0;
            let pairs = self.aliases.pairs(buffer).to_vec();
            for (ab, cond) in pairs {
                if !is_alloc_like(m, ab) {
                    continue;
                }
                if self
                    .out
                    .inplace_pairs
                    .iter()
                    .any(|&p| p == (buffer, ab) || p == (ab, buffer))
                {
                    continue;
                }
                if cond {
                    continue;
                }
                let Some(ai) = self.out.info(ab) else {
                    continue;
                };
                if ai.memory_unique || self.out.infos[i].1.memory_unique {
                    continue;
                }
                self.out.inplace_pairs.push((buffer, ab));
                if let Some(a) = self.out.info_mut(ab) {
                    a.ignore_inplace = true;
                }
                self.out.infos[i].1.ignore_inplace = true;
            }
        }
    }
}
