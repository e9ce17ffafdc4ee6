//! The facts behind a function's local memory, for `tilemem explain`.
//!
//! Per (function, space), from PlanMemory's own storage entries (in-place
//! pairs merged, multi-buffers expanded into their slots, sizes aligned
//! as the allocator aligns them):
//! - the **peak**: the numbered op at which the entries live together
//!   take the most bytes, with its location;
//! - the **live set** there, largest first: the allocation of each entry,
//!   its type, bytes per slot and number of live slots;
//! - the **lower bound**: the bytes at the peak. Entries live together
//!   over more than one op's boundary never share a byte under
//!   PlanMemory's rules (in-place candidates may meet at a single op, so
//!   the peak is taken over the steps between ops and the ops strictly
//!   inside lifetimes), so no placement of these entries fits below it;
//!   when it exceeds the capacity nothing fits, whatever the planner.
//!   On memory-based chips `mem_unique` entries share with nothing, so
//!   their bytes are added to every point (and they are always listed).
//!
//! Assumes: the module carries a device spec (as the passes do).
//! Guarantees: nothing is placed or rewritten; the facts are deterministic.

use std::collections::HashSet;

use crate::ir::{Diagnostic, Location, Module, OpId};
use crate::print::types::write_type;

use super::gen_kill::Walk;
use super::pipes::DmaFacts;
use super::storage::{align_up, SeId};
use super::vf_reuse::VfReuse;
use super::{cv_reuse_allowed_pairs, op_facts, specs_of, MemPlan, Mode, Options, Variant};

/// One allocation live at the peak.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveBuffer {
    /// The `memref.alloc` (or other allocating op).
    pub alloc: OpId,
    /// Its memref type, printed.
    pub ty: String,
    /// Bytes of one slot, aligned as the allocator aligns it.
    pub bytes: u64,
    /// Slots live at the peak (the multi-buffer factor, 1 for a single
    /// buffer).
    pub slots: u32,
    /// Where the allocation is.
    pub loc: Location,
    /// The `file:line:col` its `loc(...)` leads to (the Triton source
    /// line), when the input carries one.
    pub source: Option<String>,
}

impl LiveBuffer {
    /// Bytes of every live slot.
    pub fn total(&self) -> u64 {
        self.bytes * u64::from(self.slots)
    }
}

/// The facts of one (function, space).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceFacts {
    /// The function's name.
    pub function: String,
    /// The function op.
    pub func: OpId,
    /// `ub`, `cbuf` or `cc`.
    pub space: String,
    /// Usable bytes.
    pub capacity: u64,
    /// The op at the peak (`hivm.hir.vadd`).
    pub peak_op: String,
    /// Its location.
    pub peak_loc: Location,
    /// Its op number (`None`: nothing is live anywhere).
    pub peak_at: Option<usize>,
    /// The `file:line:col` its `loc(...)` leads to, when the input
    /// carries one.
    pub peak_source: Option<String>,
    /// Allocations live at the peak, largest first.
    pub live: Vec<LiveBuffer>,
    /// Bytes live at the peak: no placement uses fewer.
    pub lower_bound: u64,
}

impl SpaceFacts {
    /// Whether the lower bound proves no placement fits.
    pub fn proven_over(&self) -> bool {
        self.lower_bound > self.capacity
    }
}

/// The facts of every planned function of `m` (local memory only).
pub fn space_facts(
    m: &Module,
    opts: &Options,
    variant: Variant,
) -> Result<Vec<SpaceFacts>, Diagnostic> {
    let mut out = Vec::new();
    if opts.mode != Mode::Local {
        return Ok(out);
    }
    let vf = VfReuse::build(m);
    let funcs: Vec<OpId> = m
        .funcs()
        .into_iter()
        .filter(|&f| !op_facts::is_host(m, f) && !op_facts::is_vf(m, f))
        .collect();
    let cv_allowed = if variant == Variant::Regbase {
        cv_reuse_allowed_pairs(m, &funcs)
    } else {
        HashSet::new()
    };
    for &f in &funcs {
        let specs = specs_of(m, f, opts)?;
        let lt = Walk::new(m, f, opts.mode, variant, opts.disable_tcb_reuse, 0).build()?;
        let mut plan = MemPlan::new(m, f, opts, variant, lt, vf.caller(f), &cv_allowed, specs);
        plan.generate_entries();
        plan.dma = DmaFacts::build(m, f);
        plan.merge_inplace();
        plan.expand_multi_buffer();
        if let Err(msg) = plan.merge_same_scope() {
            return Err(Diagnostic::error(m.op(f).loc, msg));
        }
        for (scope, root) in plan.roots.clone() {
            if let Some(facts) = plan.facts_of(&scope, root) {
                out.push(facts);
            }
        }
    }
    Ok(out)
}

impl MemPlan<'_> {
    /// The facts of the space rooted at `root` (see the module docs).
    pub(super) fn facts_of(&self, scope: &str, root: SeId) -> Option<SpaceFacts> {
        let (align, max_bits) = self.space_info(scope).ok()?;
        let mut entries = vec![root];
        entries.extend(self.se[root].children.iter().copied());
        let n = self.lt.linear.len().max(1);
        let bytes: Vec<u64> = entries
            .iter()
            .map(|&e| align_up(self.bits(e), align).div_ceil(8))
            .collect();
        // Points: 2t is numbered op t, 2t+1 the step between t and t+1. A
        // lifetime [a, f] with a < f covers points 2a+1 ..= 2f-1 (the steps
        // inside it and the ops strictly inside it); one of a single op
        // (or never killed: live at its write) covers point 2a. Two entries
        // that cover one point then meet on more than a single op's
        // boundary, which PlanMemory never lets share, so the bytes at any
        // point are a lower bound.
        let span = |l: &super::gen_kill::BufferLife| {
            let last = n as i64 - 1;
            let a = l.alloc.clamp(0, last) as usize;
            let f = l.free.clamp(0, last) as usize;
            if l.free > l.alloc {
                (2 * a + 1, 2 * f - 1)
            } else {
                (2 * a, 2 * a)
            }
        };
        let mut delta = vec![0i128; 2 * n + 1];
        // On memory-based chips a `mem_unique` entry shares no byte with
        // any other, whatever the lifetimes: its bytes add to every point
        // (register-based chips let some tightly coupled pairs share, so
        // there they count by lifetime only).
        let unique: Vec<bool> = entries
            .iter()
            .map(|&e| !self.regbase() && self.entry_unique(e))
            .collect();
        let apart: u64 = (0..entries.len())
            .filter(|&i| unique[i])
            .map(|i| bytes[i])
            .sum();
        for (i, &e) in entries.iter().enumerate() {
            if unique[i] {
                continue;
            }
            for l in &self.se[e].lifes {
                let (a, f) = span(l);
                delta[a] += i128::from(bytes[i]);
                delta[f + 1] -= i128::from(bytes[i]);
            }
        }
        let (mut run, mut peak, mut at) = (0i128, 0i128, 0usize);
        for (p, d) in delta.iter().take(2 * n).enumerate() {
            run += d;
            if run > peak {
                (peak, at) = (run, p);
            }
        }
        let mut live: Vec<LiveBuffer> = Vec::new();
        for (i, &e) in entries.iter().enumerate() {
            let here = unique[i]
                || self.se[e].lifes.iter().any(|l| {
                    let (a, f) = span(l);
                    a <= at && at <= f
                });
            if !here {
                continue;
            }
            let Some(info) = self.lt.info(self.se[e].info) else {
                continue;
            };
            if let Some(b) = live.iter_mut().find(|b| b.alloc == info.op) {
                b.slots += 1;
                continue;
            }
            let mut ty = String::new();
            write_type(&mut ty, self.m.value_type(self.se[e].info));
            live.push(LiveBuffer {
                alloc: info.op,
                ty,
                bytes: bytes[i],
                slots: 1,
                loc: self.m.op(info.op).loc,
                source: self.m.src_file_line(self.m.op(info.op).loc),
            });
        }
        live.sort_by(|a, b| b.total().cmp(&a.total()).then(a.loc.cmp(&b.loc)));
        let peak_op = self.lt.linear.get(at / 2).copied();
        Some(SpaceFacts {
            function: self.m.func_name(self.func).unwrap_or("").to_string(),
            func: self.func,
            space: scope.to_string(),
            capacity: max_bits / 8,
            peak_op: peak_op.map_or(String::new(), |o| self.m.op(o).name().to_string()),
            peak_loc: peak_op.map_or(Location::unknown(), |o| self.m.op(o).loc),
            peak_at: peak_op.map(|_| at / 2),
            peak_source: peak_op.and_then(|o| self.m.src_file_line(self.m.op(o).loc)),
            live,
            lower_bound: peak.max(0) as u64 + apart,
        })
    }
}
