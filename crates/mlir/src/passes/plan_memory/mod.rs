//! HIVM memory planning: `-hivm-plan-memory` (memory-based chips,
//! `PlanMemory.cpp`) and `-hivm-plan-memory-regbase` (register-based chips,
//! `regbase/PlanMemory.cpp`), rule for rule.
//!
//! For every device function (not host, not a vector function):
//! 1. [`gen_kill`]: number the ops, find where each buffer is first
//!    written and last read, and the alias pairs;
//!    merged buffers (loop-carried, branch-yielded) that the program
//!    reads after one another wrote stay apart ([`merged`]);
//! 2. [`inplace`]: pair gen'd and killed buffers that may share memory;
//! 3. [`storage`]: storage entries, merged for in-place pairs, expanded for
//!    multi-buffers, grouped per memory space;
//! 4. [`allocator`]: per space, everything one after another when it fits;
//!    else the level-3 plan, else the level-by-level plan with roll-back;
//! 5. retry with the next shuffle seed (20 attempts, the reference's
//!    `kPlanRetryCount`); the last failure reports
//!    `<space> overflow, requires N bits while M bits available!`;
//! 6. [`rewrite`]: allocations become `hivm.hir.pointer_cast`s.
//!
//! Capacities and alignments come from the module's NPU device spec
//! (`-hacc-append-device-spec`, values from [`tilemem_soc::DeviceSpec`]).
//! Assumes bufferized IR (memrefs with HIVM address spaces); guarantees
//! that every `memref.alloc` of a planned function is replaced, or the pass
//! fails with the reference's diagnostic and the module is not printed.

pub mod alias_sets;
pub mod allocator;
pub mod display;
pub mod explain;
pub mod gen_kill;
pub mod inplace;
pub mod map;
pub mod membase;
pub mod merged;
pub mod op_facts;
pub mod optimal;
pub mod pipes;
pub mod regbase;
pub mod rewrite;
pub mod shuffle;
pub mod storage;
pub mod vf_reuse;

use std::collections::{BTreeMap, HashMap, HashSet};

use tilemem_soc::DeviceSpecKey;

use crate::analysis::views::traceback_to_alloc_value;
use crate::ir::{Attribute, Diagnostic, Module, OpId, ValueId};
use crate::pass::{parse_bool_option, parse_int_option, split_options, PassContext, PassFailed};
use crate::passes::device_spec::{is_regbase_module, npu_spec_int};

use gen_kill::{Lifetimes, Walk};
use optimal::{Planner, SpaceChoice};
use pipes::{DmaFacts, Reach};
use storage::{SeId, StorageEntry};
use vf_reuse::{CallerInfo, VfReuse};

/// What is planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `local-mem-plan`: `memref.alloc` in UB, L1, L0C.
    Local,
    /// `global-work-space-plan`: `memref_ext.alloc_workspace`.
    Workspace,
}

/// Which reference pass is followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `-hivm-plan-memory`.
    Membase,
    /// `-hivm-plan-memory-regbase`.
    Regbase,
}

/// The pass options (`Passes.td`), shared by both passes.
#[derive(Clone, Debug)]
pub struct Options {
    /// `mem-plan-mode`.
    pub mode: Mode,
    /// `enable-global-workspace-reuse`.
    pub global_reuse: bool,
    /// `enable-memory-display` (memory-based pass).
    pub memory_display: bool,
    /// `enable-print-memory-allocated-size` (register-based pass).
    pub print_allocated_size: bool,
    /// `restrict-inplace-as-isa`.
    pub restrict_inplace_as_isa: bool,
    /// `disable-tightly-coupled-buffer-reuse`.
    pub disable_tcb_reuse: bool,
    /// `simt-vf-dynamic-size` (KB).
    pub simt_vf_dynamic_size: i64,
    /// `plan-memory-strategy=largest-first`.
    pub largest_first: bool,
    /// `disable-vf-reachable-check`.
    pub disable_vf_reachable_check: bool,
    /// `planner` (ours): which allocator places local memory.
    pub planner: Planner,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Local,
            global_reuse: false,
            memory_display: false,
            print_allocated_size: false,
            restrict_inplace_as_isa: false,
            disable_tcb_reuse: false,
            simt_vf_dynamic_size: 216,
            largest_first: false,
            disable_vf_reachable_check: false,
            planner: Planner::Bishengir,
        }
    }
}

/// The options of `-hivm-plan-memory` for `--help`.
pub const MEMBASE_OPTIONS: &[(&str, &str)] = &[
    ("mem-plan-mode", "local-mem-plan (memref.alloc, default) | global-work-space-plan (memref_ext.alloc_workspace)"),
    ("enable-global-workspace-reuse", "Reuse workspace by lifetime (default false)"),
    ("enable-memory-display", "Write ./memory_info[_aic|_aiv].json (default false)"),
    ("restrict-inplace-as-isa", "In-place reuse only where the ISA documents it (default false)"),
    ("disable-tightly-coupled-buffer-reuse", "Tightly coupled buffers share no memory (default false)"),
    ("simt-vf-dynamic-size", "UB size in KB for SIMT/MIX vector functions on register-based chips (default 216)"),
    ("plan-memory-strategy", "default | largest-first (order of UB entries)"),
    ("disable-vf-reachable-check", "Skip the load/store reachability check of vector-function in-place reuse (default false)"),
    ("planner", "bishengir (the reference's allocator, default) | optimal (exact solver; never more bytes, places overflowing kernels when a placement exists)"),
];

/// The options of `-hivm-plan-memory-regbase` for `--help`.
pub const REGBASE_OPTIONS: &[(&str, &str)] = &[
    ("mem-plan-mode", "local-mem-plan (memref.alloc, default) | global-work-space-plan (memref_ext.alloc_workspace)"),
    ("enable-global-workspace-reuse", "Reuse workspace by lifetime (default false)"),
    ("enable-print-memory-allocated-size", "Print the UB bits each function uses (default false)"),
    ("restrict-inplace-as-isa", "In-place reuse only where the ISA documents it (default false)"),
    ("simt-vf-dynamic-size", "UB size in KB for SIMT/MIX vector functions (default 216)"),
    ("disable-tightly-coupled-buffer-reuse", "Tightly coupled buffers share no memory (default false)"),
    ("disable-vf-reachable-check", "Skip the load/store reachability check of vector-function in-place reuse (default false)"),
    ("plan-memory-strategy", "default | largest-first (order of UB entries)"),
    ("planner", "bishengir (the reference's allocator, default) | optimal (exact solver; never more bytes, places overflowing kernels when a placement exists)"),
];

impl Options {
    /// Parses an option list for pass `pass` of `variant`.
    pub fn set(&mut self, pass: &str, variant: Variant, text: &str) -> Result<(), String> {
        for (name, value) in split_options(text)? {
            match name.as_str() {
                "mem-plan-mode" => {
                    self.mode = match value.as_str() {
                        "local-mem-plan" => Mode::Local,
                        "global-work-space-plan" => Mode::Workspace,
                        _ => {
                            return Err(format!(
                                "pass '-{pass}': option 'mem-plan-mode' takes local-mem-plan or global-work-space-plan (got '{value}')"
                            ))
                        }
                    }
                }
                "enable-global-workspace-reuse" => {
                    self.global_reuse = parse_bool_option(pass, &name, &value)?
                }
                "enable-memory-display" if variant == Variant::Membase => {
                    self.memory_display = parse_bool_option(pass, &name, &value)?
                }
                "enable-print-memory-allocated-size" if variant == Variant::Regbase => {
                    self.print_allocated_size = parse_bool_option(pass, &name, &value)?
                }
                "restrict-inplace-as-isa" => {
                    self.restrict_inplace_as_isa = parse_bool_option(pass, &name, &value)?
                }
                "disable-tightly-coupled-buffer-reuse" => {
                    self.disable_tcb_reuse = parse_bool_option(pass, &name, &value)?
                }
                "simt-vf-dynamic-size" => {
                    self.simt_vf_dynamic_size = parse_int_option(pass, &name, &value)?
                }
                "plan-memory-strategy" => {
                    self.largest_first = match value.as_str() {
                        "default" => false,
                        "largest-first" => true,
                        _ => {
                            return Err(format!(
                                "pass '-{pass}': option 'plan-memory-strategy' takes default or largest-first (got '{value}')"
                            ))
                        }
                    }
                }
                "disable-vf-reachable-check" => {
                    self.disable_vf_reachable_check = parse_bool_option(pass, &name, &value)?
                }
                "planner" => {
                    self.planner = match value.as_str() {
                        "bishengir" => Planner::Bishengir,
                        "optimal" => Planner::Optimal,
                        _ => {
                            return Err(format!(
                                "pass '-{pass}': option 'planner' takes bishengir or optimal (got '{value}')"
                            ))
                        }
                    }
                }
                _ => {
                    let names: Vec<&str> = match variant {
                        Variant::Membase => MEMBASE_OPTIONS,
                        Variant::Regbase => REGBASE_OPTIONS,
                    }
                    .iter()
                    .map(|(n, _)| *n)
                    .collect();
                    return Err(format!(
                        "pass '-{pass}' has no option '{name}'; options: {}",
                        names.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Sizes and alignments of the planned spaces, in bits.
#[derive(Clone, Copy, Debug, Default)]
struct Specs {
    ub: (u64, u64),
    l1: (u64, u64),
    l0c: (u64, u64),
}

/// The plan of one function (`MemPlan`).
pub struct MemPlan<'m> {
    m: &'m Module,
    func: OpId,
    opts: &'m Options,
    variant: Variant,
    lt: Lifetimes,
    vf: Option<&'m CallerInfo>,
    cv_allowed: &'m HashSet<(i32, i32)>,
    /// Storage entries (an arena; `entries` lists the live ones in order).
    pub se: Vec<StorageEntry>,
    entries: Vec<SeId>,
    buffer2se: HashMap<ValueId, SeId>,
    roots: Vec<(String, SeId)>,
    required: HashMap<String, u64>,
    split_outline: bool,
    relation_others: BTreeMap<SeId, Vec<SeId>>,
    inplacable: Vec<(ValueId, ValueId)>,
    dma: DmaFacts,
    reach: Reach,
    dma_cache: Vec<Option<bool>>,
    loop_cache: Vec<Option<Option<OpId>>>,
    specs: Specs,
    /// Byte offsets per buffer (one per slot).
    pub offsets: HashMap<ValueId, Vec<u64>>,
    /// Text for standard output (the DMA-reuse warning).
    pub stdout: String,
    /// The spaces the reference allocator placed, in order.
    planned: Vec<String>,
}

impl<'m> MemPlan<'m> {
    /// A plan of `func` over the lifetimes `lt`, nothing placed yet.
    #[allow(clippy::too_many_arguments)]
    fn new(
        m: &'m Module,
        func: OpId,
        opts: &'m Options,
        variant: Variant,
        lt: Lifetimes,
        vf: Option<&'m CallerInfo>,
        cv_allowed: &'m HashSet<(i32, i32)>,
        specs: Specs,
    ) -> Self {
        MemPlan {
            m,
            func,
            opts,
            variant,
            lt,
            vf,
            cv_allowed,
            se: Vec::new(),
            entries: Vec::new(),
            buffer2se: HashMap::new(),
            roots: Vec::new(),
            required: HashMap::new(),
            split_outline: false,
            relation_others: BTreeMap::new(),
            inplacable: Vec::new(),
            dma: DmaFacts::default(),
            reach: Reach::default(),
            dma_cache: Vec::new(),
            loop_cache: Vec::new(),
            specs,
            offsets: HashMap::new(),
            stdout: String::new(),
            planned: Vec::new(),
        }
    }

    fn regbase(&self) -> bool {
        self.variant == Variant::Regbase
    }

    /// `GetBufferSpaceInfo`: `(alignment, size)` in bits.
    fn space_info(&self, scope: &str) -> Result<(u64, u64), String> {
        match scope {
            "ub" => Ok(self.specs.ub),
            "cbuf" => Ok(self.specs.l1),
            "cc" => Ok(self.specs.l0c),
            _ => Err("Temporarily unsupported memory buffer space !".to_string()),
        }
    }

    /// `MergeSameWorkSpaceArgSE`: roots per workspace argument.
    fn merge_same_workspace_arg(&mut self) {
        for i in 0..self.entries.len() {
            let e = self.entries[i];
            let op = self.lt.info(self.se[e].info).map(|i| i.op);
            let key = op
                .and_then(|o| self.m.op(o).segment(1).first().copied())
                .map_or_else(|| "none".to_string(), |v| format!("{v:?}"));
            match self.roots.iter().find(|(k, _)| *k == key) {
                Some(&(_, root)) => self.se[root].children.push(e),
                None => self.roots.push((key, e)),
            }
        }
    }

    /// `MemPlan::plan`; the overflow (if any) to report.
    fn plan(&mut self) -> Result<(), PlanError> {
        self.generate_entries();
        match self.opts.mode {
            Mode::Local => {
                self.dma = DmaFacts::build(self.m, self.func);
                self.merge_inplace();
                self.expand_multi_buffer();
                self.merge_same_scope().map_err(PlanError::Fatal)?;
                self.plan_local_spaces().map_err(PlanError::Overflow)?;
            }
            Mode::Workspace => {
                self.merge_inplace();
                self.expand_multi_buffer();
                self.merge_same_workspace_arg();
                self.plan_workspace();
            }
        }
        self.buffer_offsets();
        Ok(())
    }

    /// The UB bits the plan uses (`PrintSuccessfulAllocatedMaxBits`).
    fn ub_bits(&self) -> Option<u64> {
        let &(_, root) = self.roots.iter().find(|(s, _)| s == "ub")?;
        let mut bits = self.se[root].aligned.wrapping_add(self.se[root].offset);
        for &c in &self.se[root].children {
            bits = bits.max(self.se[c].offset.wrapping_add(self.se[c].aligned));
        }
        Some(bits)
    }
}

/// Why one attempt failed.
enum PlanError {
    Overflow(allocator::Overflow),
    Fatal(String),
}

/// Reads the capacities of `func`'s module (`InitMemSpecsFromModule`,
/// `DynamicSetUbSpaceSize`).
fn specs_of(m: &Module, func: OpId, opts: &Options) -> Result<Specs, Diagnostic> {
    let loc = m.op(func).loc;
    let get = |k: DeviceSpecKey| {
        npu_spec_int(m, k).ok_or_else(|| {
            Diagnostic::error(
                loc,
                format!(
                    "PlanMemory Fail : the module has no NPU device spec entry {}; run -hacc-append-device-spec=target=<chip> first",
                    k.name()
                ),
            )
        })
    };
    let mut ub = get(DeviceSpecKey::UbSize)?;
    if is_regbase_module(m) {
        let mode = match m.op(func).attr("hivm.vf_mode") {
            Some(Attribute::Dialect {
                params: Some(p), ..
            }) => p.trim().to_string(),
            _ => String::new(),
        };
        if mode == "SIMT" || mode == "MIX" {
            let simt = opts.simt_vf_dynamic_size * 1024 * 8;
            let min = get(DeviceSpecKey::MinimalDCacheSize)?;
            let max = get(DeviceSpecKey::MaximumDCacheSize)?;
            if simt < ub - max || simt > ub - min {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "PlanMemory Fail : SimtVFDynamicSize have to in range [{}, {}], but got {}!",
                        (ub - max) / 1024 / 8,
                        (ub - min) / 1024 / 8,
                        opts.simt_vf_dynamic_size
                    ),
                ));
            }
            ub = simt;
        }
    }
    let pos = |v: i64| v.max(0) as u64;
    Ok(Specs {
        ub: (pos(get(DeviceSpecKey::UbAlignSize)?), pos(ub)),
        l1: (
            pos(get(DeviceSpecKey::L1AlignSize)?),
            pos(get(DeviceSpecKey::L1Size)?),
        ),
        l0c: (
            pos(get(DeviceSpecKey::L0cAlignSize)?),
            pos(get(DeviceSpecKey::L0cSize)?),
        ),
    })
}

/// The outcome of planning one function: byte offsets per buffer.
pub type FuncPlan = HashMap<ValueId, Vec<u64>>;

const RETRIES: u32 = 20;

/// Why a function was not planned.
enum FuncFailure {
    /// The function is not one PlanMemory accepts (bad input, exit 2).
    Rejected(Diagnostic),
    /// No placement was found within capacity (exit 1).
    Overflow(Diagnostic),
}

impl From<Diagnostic> for FuncFailure {
    fn from(d: Diagnostic) -> Self {
        FuncFailure::Rejected(d)
    }
}

/// The attempts of `planMemoryForFuncOp` under `specs`: up to 20, one
/// per shuffle seed (with `planner=optimal`, its choices are summary lines
/// of `cx`); the first plan that places everything, or the last attempt
/// with its failure.
#[allow(clippy::too_many_arguments)]
fn attempts<'m>(
    m: &'m Module,
    func: OpId,
    opts: &'m Options,
    variant: Variant,
    caller: Option<&'m CallerInfo>,
    cv_allowed: &'m HashSet<(i32, i32)>,
    specs: Specs,
    cx: &mut PassContext,
) -> Result<Result<MemPlan<'m>, (MemPlan<'m>, PlanError)>, Diagnostic> {
    let mut attempt = 0;
    let mut dropped: Option<Vec<(ValueId, ValueId)>> = None;
    loop {
        let mut lt =
            Walk::new(m, func, opts.mode, variant, opts.disable_tcb_reuse, attempt).build()?;
        // Buffers it would merge that the program needs apart stay apart
        // (decided once: the pairs are the same on every attempt).
        match &dropped {
            None => {
                let s = merged::settle(m, func, &mut lt)?;
                cx.summary.extend(s.lines);
                cx.diags.extend(s.warnings);
                dropped = Some(s.dropped);
            }
            Some(d) => lt.inplace_pairs.retain(|p| !d.contains(p)),
        }
        let mut plan = MemPlan::new(m, func, opts, variant, lt, caller, cv_allowed, specs);
        let mut result = plan.plan();
        let last = attempt + 1 == RETRIES;
        let optimal = opts.planner == Planner::Optimal && opts.mode == Mode::Local;
        if optimal && (result.is_ok() || last) {
            let (choices, all_placed) = plan.plan_optimal();
            summarize_choices(m, func, &choices, cx);
            if all_placed && choices.iter().any(|c| c.chosen) {
                plan.offsets.clear();
                plan.buffer_offsets();
                result = Ok(());
            }
        }
        match result {
            Ok(()) => return Ok(Ok(plan)),
            Err(e @ PlanError::Fatal(_)) => return Ok(Err((plan, e))),
            Err(e) if last => return Ok(Err((plan, e))),
            Err(_) => attempt += 1,
        }
    }
}

/// Plans `func` (`planMemoryForFuncOp`): up to 20 attempts, one per
/// shuffle seed; only the last failure is reported. With
/// `cx.placements` set, the placement of each space is recorded for the
/// memory map ([`map`]).
fn plan_func(
    m: &Module,
    func: OpId,
    opts: &Options,
    variant: Variant,
    vf: &VfReuse,
    cv_allowed: &HashSet<(i32, i32)>,
    cx: &mut PassContext,
) -> Result<FuncPlan, FuncFailure> {
    let specs = specs_of(m, func, opts)?;
    let caller = vf.caller(func);
    match attempts(m, func, opts, variant, caller, cv_allowed, specs, cx)? {
        Ok(plan) => {
            cx.stdout.push_str(&plan.stdout);
            if opts.memory_display && variant == Variant::Membase {
                let (json, file) = plan.display_json(None);
                write_display(&json, &file, cx);
            }
            if opts.print_allocated_size && variant == Variant::Regbase {
                if let Some(bits) = plan.ub_bits() {
                    cx.stdout.push_str(&format!(
                        "[AscendNPU IR] Allocated UB size = {bits} bits \n"
                    ));
                }
            }
            if let Some(p) = cx.placements.as_mut().filter(|_| opts.mode == Mode::Local) {
                p.extend(plan.map_spaces(None));
            }
            Ok(plan.offsets)
        }
        Err((_, PlanError::Fatal(msg))) => Err(Diagnostic::error(m.op(func).loc, msg).into()),
        Err((mut plan, PlanError::Overflow(o))) => {
            let cap = plan.space_info(&o.scope).map_or(0, |s| s.1);
            let mut msg = format!(
                "{} overflow, requires {} bits while {} bits available!",
                o.scope, o.required, cap
            );
            if variant == Variant::Membase {
                msg.push_str(" (possible reason: tiling basic block is too large or block number is more than what user expect due to multi-buffer feature is enabled and some ops need extra local buffer.)");
            }
            if opts.memory_display && variant == Variant::Membase {
                plan.buffer_offsets();
                let (json, file) = plan.display_json(Some(&msg));
                write_display(&json, &file, cx);
            }
            if cx.placements.is_some() && cx.placements_beyond_capacity && opts.mode == Mode::Local
            {
                let drawn = map::beyond_capacity(m, func, opts, variant, caller, cv_allowed, specs);
                if let Some(p) = cx.placements.as_mut() {
                    p.extend(drawn);
                }
            }
            Err(FuncFailure::Overflow(Diagnostic::error(
                m.op(func).loc,
                msg,
            )))
        }
    }
}

/// One summary line per space the optimal planner looked at.
fn summarize_choices(m: &Module, func: OpId, choices: &[SpaceChoice], cx: &mut PassContext) {
    let name = m.func_name(func).unwrap_or("");
    for c in choices {
        let reference = match (c.bishengir, c.bishengir_penalty) {
            (Some(b), Some(p)) => format!("bishengir {b} bytes, penalty {p}"),
            (Some(b), None) => format!("bishengir {b} bytes"),
            (None, _) => "bishengir overflows".to_string(),
        };
        let proven = if c.proven_optimal { " (proven)" } else { "" };
        if let Some(n) = c.too_large {
            let (limit, used) = match c.bishengir {
                Some(_) => (optimal::MAX_ENTRIES, "bishengir placement used"),
                None => (optimal::MAX_RESCUE_ENTRIES, "nothing placed"),
            };
            cx.summary.push(format!(
                "@{name} {}: optimal: not tried ({n} entries, more than {limit}); {reference}; {used}",
                c.scope
            ));
            continue;
        }
        let found = match c.optimal {
            Some(o) => format!("optimal {o} bytes, penalty {}{proven}", c.optimal_penalty),
            // The search ran within the reference's bytes under the
            // stricter rules (see `optimal`): a proof says nothing fits
            // there, not that the reference's placement is optimal.
            None if c.proven_infeasible && c.bishengir.is_some() => {
                "optimal: none within bishengir's bytes under its rules (proven)".to_string()
            }
            None if c.proven_infeasible => "optimal: no placement fits (proven)".to_string(),
            None => "optimal: none found within the budget".to_string(),
        };
        let used = match (c.chosen, c.bishengir) {
            (true, _) => "optimal placement used",
            (false, Some(_)) => "bishengir placement used",
            (false, None) => "nothing placed",
        };
        cx.summary
            .push(format!("@{name} {}: {found}; {reference}; {used}", c.scope));
    }
}

/// Writes the memory-display JSON; a failure to write is a warning, as
/// the reference only logs it.
fn write_display(json: &str, file: &str, cx: &mut PassContext) {
    if let Err(e) = std::fs::write(file, json) {
        cx.diags.push(Diagnostic::warning(
            crate::ir::Location::unknown(),
            format!("Failed to open file: {file} - {e}"),
        ));
    }
}

/// The tightly coupled buffer id of a mark on an allocation, with the
/// allocation.
fn cv_mark(m: &Module, mark: OpId) -> Option<(i32, ValueId)> {
    let d = m.op(mark);
    if !d.is("annotation.mark") {
        return None;
    }
    let id = match d.attr("hivm.tightly_coupled_buffer")? {
        Attribute::Dialect {
            params: Some(p), ..
        } => p.trim().parse::<i32>().ok()?,
        _ => return None,
    };
    let src = d.operand(0)?;
    m.value_type(src).as_memref()?;
    Some((id, traceback_to_alloc_value(m, src)?))
}

/// The tightly coupled buffer marks of `f` whose space one core of the
/// pair plans: `(id, allocation, owned)`. The vector core plans `ub` and
/// the cube core `cbuf` (`owned`); the other core takes the offsets its
/// peer planned for the same id. Marks on any other space are left out.
fn coupled_marks(m: &Module, f: OpId) -> Vec<(i32, ValueId, bool)> {
    let core = op_facts::func_core_type(m, f).unwrap_or_default();
    m.walk(f)
        .into_iter()
        .filter_map(|op| {
            let (id, alloc) = cv_mark(m, op)?;
            let space = op_facts::address_space(m, alloc).unwrap_or_default();
            let owned = match (core.as_str(), space.as_str()) {
                ("AIV", "ub") | ("AIC", "cbuf") => true,
                ("AIC", "ub") | ("AIV", "cbuf") => false,
                _ => return None,
            };
            Some((id, alloc, owned))
        })
        .collect()
}

/// `BuildCVReuseAllowedPairs` (register-based pass): tightly coupled ids
/// whose use ranges are disjoint in every function using both.
fn cv_reuse_allowed_pairs(m: &Module, funcs: &[OpId]) -> HashSet<(i32, i32)> {
    let mut per_func: Vec<Vec<(i32, (i64, i64))>> = Vec::new();
    for &f in funcs {
        let ops = m.walk(f);
        let index: HashMap<OpId, i64> = ops
            .iter()
            .enumerate()
            .map(|(i, &o)| (o, i as i64 + 1))
            .collect();
        let mut ranges: Vec<(i32, (i64, i64))> = Vec::new();
        for &op in &ops {
            let Some((id, alloc)) = cv_mark(m, op) else {
                continue;
            };
            let Some(aop) = m.defining_op(alloc) else {
                continue;
            };
            let mut lo = index.get(&aop).copied().unwrap_or(0);
            let mut hi = lo;
            let mut work = vec![alloc];
            let mut seen = HashSet::new();
            while let Some(v) = work.pop() {
                if !seen.insert(v) {
                    continue;
                }
                for u in m.uses(v) {
                    if let Some(&p) = index.get(&u.op) {
                        lo = lo.min(p);
                        hi = hi.max(p);
                    }
                    for &r in m.op(u.op).results() {
                        if m.value_type(r).as_memref().is_some() {
                            work.push(r);
                        }
                    }
                }
            }
            match ranges.iter_mut().find(|(i, _)| *i == id) {
                Some((_, r)) => *r = (r.0.min(lo), r.1.max(hi)),
                None => ranges.push((id, (lo, hi))),
            }
        }
        per_func.push(ranges);
    }
    let mut ids: Vec<i32> = Vec::new();
    for r in &per_func {
        for (id, _) in r {
            if !ids.contains(id) {
                ids.push(*id);
            }
        }
    }
    let mut allowed = HashSet::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            let mut shared = false;
            let mut disjoint = true;
            for r in &per_func {
                let ra = r.iter().find(|(x, _)| *x == a).map(|(_, r)| *r);
                let rb = r.iter().find(|(x, _)| *x == b).map(|(_, r)| *r);
                let (Some((al, ah)), Some((bl, bh))) = (ra, rb) else {
                    continue;
                };
                shared = true;
                if !(ah < bl || bh < al) {
                    disjoint = false;
                    break;
                }
            }
            if shared && disjoint {
                allowed.insert((a, b));
                allowed.insert((b, a));
            }
        }
    }
    allowed
}

/// Whether `f` is this pass's own output (local-memory mode): no
/// `memref.alloc` left to plan, its buffers held by
/// `hivm.hir.pointer_cast`s of constant addresses. Such a function is left as
/// it is, so that planning planned IR is a fixed point (the project's
/// passes are idempotent). The reference never sees it in bishengir's
/// pipeline and, given it, rejects the first `pointer_cast` as an
/// unrecognized op touching a local buffer; a function that mixes
/// allocations and `pointer_cast`s is still rejected so.
fn already_planned(m: &Module, f: OpId, mode: Mode) -> bool {
    if mode != Mode::Local {
        // Workspace allocations with offsets are skipped by the rewrite
        // already: that mode re-plans to the same text on its own.
        return false;
    }
    let ops = m.walk(f);
    let casts: Vec<OpId> = ops
        .iter()
        .copied()
        .filter(|&o| m.op(o).is("hivm.hir.pointer_cast"))
        .collect();
    // The pass's casts take their addresses from `arith.constant`s (none
    // for a tightly coupled buffer whose partner function placed nothing);
    // a cast of a runtime address (a function argument, say) is not a
    // plan of this pass, and stays an op it does not know (ssbuf.mlir).
    let planned_cast = |o: OpId| {
        m.op(o).segment(0).iter().all(|&a| {
            m.defining_op(a)
                .is_some_and(|d| m.op(d).is("arith.constant"))
        })
    };
    !ops.iter().any(|&o| m.op(o).is("memref.alloc"))
        && !casts.is_empty()
        && casts.iter().all(|&o| planned_cast(o))
}

/// Runs a plan-memory pass over the module (`PlanMemoryPass::runOnOperation`).
pub fn run(
    module: &mut Module,
    opts: &Options,
    variant: Variant,
    cx: &mut PassContext,
) -> Result<(), PassFailed> {
    cx.plan_options = Some(opts.clone());
    let m: &Module = module;
    let vf = VfReuse::build(m);
    if cx.debug_enabled("vf-inplace-reuse") {
        cx.debug.push_str(&vf.dump(m));
    }
    let (kept, funcs): (Vec<OpId>, Vec<OpId>) = m
        .funcs()
        .into_iter()
        .filter(|&f| !op_facts::is_host(m, f) && !op_facts::is_vf(m, f))
        .partition(|&f| already_planned(m, f, opts.mode));
    // A function kept as planned is printed as it came: the independent
    // check accepts its placement first, or the input is refused (its
    // addresses were not this pass's to choose, so a bad one is an input
    // error, not an internal one).
    let mut bad = Vec::new();
    for &f in &kept {
        for mut d in crate::plan_check::check_function(m, f, None) {
            d.message = format!(
                "the function's planned buffers (pointer casts at constant addresses, kept as \
                 they are) fail the placement check: {}; plan the function from its \
                 allocations instead",
                d.message
            );
            bad.push(d);
        }
    }
    if !bad.is_empty() {
        cx.diags.extend(bad);
        cx.bad_input = true;
        return Err(PassFailed);
    }
    let cv_allowed = if variant == Variant::Regbase {
        cv_reuse_allowed_pairs(m, &funcs)
    } else {
        HashSet::new()
    };
    let mut plans: Vec<(OpId, FuncPlan)> = Vec::new();
    let mut ub_caps: Vec<(OpId, u64)> = Vec::new();
    let mut id_offsets: HashMap<i32, Vec<u64>> = HashMap::new();
    for &f in &funcs {
        match plan_func(m, f, opts, variant, &vf, &cv_allowed, cx) {
            Ok(p) => {
                if let Ok(specs) = specs_of(m, f, opts) {
                    ub_caps.push((f, specs.ub.1));
                }
                for (id, alloc, owned) in coupled_marks(m, f) {
                    if owned {
                        id_offsets.insert(id, p.get(&alloc).cloned().unwrap_or_default());
                    }
                }
                plans.push((f, p));
            }
            Err(FuncFailure::Overflow(d)) => {
                cx.diags.push(d);
                // The reference stops here. The memory map still shows the
                // functions after this one: planned for it alone, nothing
                // else of theirs reported.
                let map = cx.placements_beyond_capacity;
                if let Some(mut p) = cx.placements.take_if(|_| map) {
                    let rest = funcs.iter().skip_while(|&&g| g != f).skip(1);
                    for &g in rest {
                        let mut aside = PassContext {
                            placements: Some(Vec::new()),
                            placements_beyond_capacity: true,
                            ..PassContext::default()
                        };
                        let _ = plan_func(m, g, opts, variant, &vf, &cv_allowed, &mut aside);
                        p.extend(aside.placements.unwrap_or_default());
                    }
                    cx.placements = Some(p);
                }
                return Err(PassFailed);
            }
            Err(FuncFailure::Rejected(d)) => {
                cx.diags.push(d);
                cx.bad_input = true;
                return Err(PassFailed);
            }
        }
    }
    for (f, mut p) in plans {
        let m: &Module = module;
        for (id, alloc, owned) in coupled_marks(m, f) {
            if !owned {
                p.insert(alloc, id_offsets.get(&id).cloned().unwrap_or_default());
            }
        }
        let result = match opts.mode {
            Mode::Local => rewrite::allocs_to_pointer_casts(module, f, &p),
            Mode::Workspace => rewrite::workspace_offsets(module, f, &p),
        }
        .and_then(|()| rewrite::hoist_multi_buffer_casts(module, f));
        if let Err(d) = result {
            // The rewrite refuses allocations it cannot express.
            cx.diags.push(d);
            cx.bad_input = true;
            return Err(PassFailed);
        }
    }
    // Nothing is printed unless the independent check accepts the result.
    if opts.mode == Mode::Local {
        let m: &Module = module;
        let mut bad = Vec::new();
        for &(f, ub) in &ub_caps {
            bad.extend(crate::plan_check::check_function(m, f, Some(ub)));
        }
        if !bad.is_empty() {
            for mut d in bad {
                d.message = format!(
                    "internal error: the plan failed its independent check: {}",
                    d.message
                );
                cx.diags.push(d);
            }
            cx.internal = true;
            return Err(PassFailed);
        }
    }
    Ok(())
}
