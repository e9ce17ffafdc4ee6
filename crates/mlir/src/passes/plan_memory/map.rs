//! The placement of each (function, space) as the memory map and the
//! summary line show it: per storage entry slot its bytes, offset and
//! lifetimes in op numbers, per space the bytes used, the capacity and
//! the lower bound of [`super::explain`], and the numbered ops (the time
//! axis).
//!
//! Recorded by the pass itself when `PassContext::placements` is set, so
//! what is drawn is what was planned. With
//! `PassContext::placements_beyond_capacity`, a function that overflows
//! is planned again with every capacity doubled until it fits (at most 64
//! times the real one) and drawn against the real capacity, the overflow
//! visible; [`SpacePlacement::drawn_capacity`] says so.

use std::collections::HashSet;

use crate::ir::{Location, Module, OpId};
use crate::print::Names;

use super::storage::{align_up, SeId};
use super::vf_reuse::CallerInfo;
use super::{attempts, MemPlan, Options, Specs, Variant};

/// One slot of one storage entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedBuffer {
    /// SSA name of the allocation (as the printer names it).
    pub name: String,
    /// Its memref type.
    pub ty: String,
    /// Bytes placed (aligned as the allocator aligns them).
    pub bytes: u64,
    /// Byte offset.
    pub offset: u64,
    /// Lifetimes `[first, last]` in op numbers, both ends included.
    pub lives: Vec<(u64, u64)>,
    /// Where the allocation is.
    pub loc: Location,
    /// The `file:line:col` its `loc(...)` leads to (the Triton source
    /// line), when the input carries one.
    pub source: Option<String>,
    /// Slot number (0-based) and number of slots of a multi-buffer.
    pub slot: (u32, u32),
    /// The other allocations merged into this entry (in-place reuse).
    pub shares_with: Vec<String>,
    /// Source lines of the ops using the allocation.
    pub use_lines: Vec<u32>,
}

/// The placement of one (function, space).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpacePlacement {
    /// The function's name.
    pub function: String,
    /// `ub`, `cbuf` or `cc`.
    pub space: String,
    /// Usable bytes.
    pub capacity: u64,
    /// `Some(c)`: the function overflows; drawn as planned with capacity
    /// `c`.
    pub drawn_capacity: Option<u64>,
    /// Highest byte used.
    pub used: u64,
    /// No placement of these entries uses fewer bytes.
    pub lower_bound: u64,
    /// The op number at the peak, its name and location.
    pub peak: Option<(u64, String, Location)>,
    /// The slots placed, in entry order.
    pub buffers: Vec<PlacedBuffer>,
    /// The numbered ops: name and location (the time axis).
    pub ops: Vec<(String, Location)>,
}

impl MemPlan<'_> {
    /// The placement of every local space of the plan; `real`: the real
    /// capacities, when the plan was made on larger ones.
    pub(super) fn map_spaces(&self, real: Option<&Specs>) -> Vec<SpacePlacement> {
        let m = self.m;
        let names = Names::new(m, m.top());
        let ops: Vec<(String, Location)> = self
            .lt
            .linear
            .iter()
            .map(|&o| (m.op(o).name().to_string(), m.op(o).loc))
            .collect();
        let mut out = Vec::new();
        for (scope, root) in &self.roots {
            let Ok((align, max_bits)) = self.space_info(scope) else {
                continue;
            };
            let (capacity, drawn_capacity) = match real.and_then(|s| space_bits(s, scope)) {
                Some(bits) => (bits / 8, Some(max_bits / 8)),
                None => (max_bits / 8, None),
            };
            // Each entry, then the extra slots of one the reference
            // upgraded at level 1, numbered after it.
            let mut entries: Vec<(SeId, Option<(u32, u32)>)> = Vec::new();
            for e in std::iter::once(*root).chain(self.se[*root].children.iter().copied()) {
                let extra = self.relation_others.get(&e).cloned().unwrap_or_default();
                let n = 1 + extra.len() as u32;
                entries.push((e, (n > 1).then_some((0, n))));
                for (k, x) in extra.into_iter().enumerate() {
                    entries.push((x, Some((k as u32 + 1, n))));
                }
            }
            let mut buffers = Vec::new();
            for (e, upgraded) in entries {
                let se = &self.se[e];
                let Some(info) = self.lt.info(se.info) else {
                    continue;
                };
                let bits = if se.aligned > 0 {
                    se.aligned
                } else {
                    align_up(self.bits(e), align)
                };
                let last = ops.len().saturating_sub(1) as u64;
                let lives = se
                    .lifes
                    .iter()
                    .map(|l| {
                        let a = l.alloc.max(0) as u64;
                        let f = if l.free < l.alloc { a } else { l.free as u64 };
                        (a.min(last), f.min(last))
                    })
                    .collect();
                let first = se.first.unwrap_or(e);
                let (slot, slots) = upgraded.unwrap_or_else(|| {
                    let slot = match se.first {
                        Some(f) => 1 + self.se[f].others.iter().position(|&o| o == e).unwrap_or(0),
                        None => 0,
                    };
                    (slot as u32, 1 + self.se[first].others.len() as u32)
                });
                let alloc = m.op(info.op).result(0).unwrap_or(se.info);
                let mut use_lines: Vec<u32> = m
                    .users(alloc)
                    .into_iter()
                    .map(|u| m.op(u).loc.line)
                    .filter(|&l| l > 0)
                    .collect();
                use_lines.sort_unstable();
                use_lines.dedup();
                buffers.push(PlacedBuffer {
                    name: names.get(m, alloc),
                    ty: m.value_type(se.info).to_string(),
                    bytes: bits.div_ceil(8),
                    offset: se.offset.div_ceil(8),
                    lives,
                    loc: m.op(info.op).loc,
                    source: m.src_file_line(m.op(info.op).loc),
                    slot: (slot, slots),
                    shares_with: se
                        .inplace
                        .iter()
                        .filter(|&&b| b != se.info)
                        .map(|&b| names.get(m, b))
                        .collect(),
                    use_lines,
                });
            }
            let used = buffers
                .iter()
                .map(|b| b.offset + b.bytes)
                .max()
                .unwrap_or(0);
            let facts = self.facts_of(scope, *root);
            out.push(SpacePlacement {
                function: m.func_name(self.func).unwrap_or("").to_string(),
                space: scope.clone(),
                capacity,
                drawn_capacity,
                used,
                lower_bound: facts.as_ref().map_or(0, |f| f.lower_bound),
                peak: facts.and_then(|f| {
                    let at = f.peak_at?;
                    Some((at as u64, f.peak_op, f.peak_loc))
                }),
                buffers,
                ops: ops.clone(),
            });
        }
        out
    }
}

/// The capacity in bits of `space` under `s`.
fn space_bits(s: &Specs, space: &str) -> Option<u64> {
    match space {
        "ub" => Some(s.ub.1),
        "cbuf" => Some(s.l1.1),
        "cc" => Some(s.l0c.1),
        _ => None,
    }
}

/// The placements of a function that overflows under `specs`, planned
/// again with every capacity doubled until it fits (at most 64 times);
/// the capacities reported stay the real ones. Empty when even that
/// fails.
pub(super) fn beyond_capacity(
    m: &Module,
    func: OpId,
    opts: &Options,
    variant: Variant,
    caller: Option<&CallerInfo>,
    cv_allowed: &HashSet<(i32, i32)>,
    specs: Specs,
) -> Vec<SpacePlacement> {
    // The optimal planner's choices on these capacities are no summary.
    let mut quiet = crate::pass::PassContext::default();
    for k in [2u64, 4, 8, 16, 32, 64] {
        let mut big = specs;
        big.ub.1 = specs.ub.1.saturating_mul(k);
        big.l1.1 = specs.l1.1.saturating_mul(k);
        big.l0c.1 = specs.l0c.1.saturating_mul(k);
        if let Ok(Ok(plan)) = attempts(m, func, opts, variant, caller, cv_allowed, big, &mut quiet)
        {
            return plan.map_spaces(Some(&specs));
        }
    }
    Vec::new()
}
