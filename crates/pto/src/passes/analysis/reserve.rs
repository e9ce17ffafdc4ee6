//! `pl.system.reserve_buffer` windows: the one resolver every planner uses
//! (seed 001, step 3: "resolve reserve_buffer: give AUTO buffers an explicit
//! base and compute each space's reserved end").
//!
//! Rules:
//! - AIC functions reserve in Mat, AIV/InCore functions in Vec;
//! - an explicit `base=B` (B >= 0) is kept;
//! - `base=-1` (AUTO, also when `base=` is absent) gets the next free base:
//!   the end of the windows before it in statement order (explicit ones
//!   included), aligned by the policy in use. So an explicit `[0, 64)`
//!   followed by an AUTO window gives the AUTO window `base=64`;
//! - `size=` must be a constant non-negative byte count, `base=` -1 or a
//!   byte address;
//! - two windows that share a byte are an error, worded as PyPTO words it
//!   (`overlapping reserve_buffer ranges in function 'F': [new) overlaps
//!   with [earlier)`), at the later window's statement;
//! - tiles of the reserve space start at the policy-aligned end of the
//!   windows (`Reserves::end`).
//!
//! Read-only except [`write_back`], which records the resolved bases.

use tilemem_soc::MemoryAllocatorPolicy;

use super::walk::stmts;
use crate::ir::{Expr, Function, FunctionKind, MemSpace, StmtId};
use crate::passes::context::PassError;

/// The op that reserves a window.
pub const RESERVE_OP: &str = "system.reserve_buffer";

/// A resolved `system.reserve_buffer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reserve {
    /// The statement.
    pub stmt: StmtId,
    /// `name=`.
    pub name: String,
    /// Space the window lives in.
    pub space: MemSpace,
    /// Resolved base.
    pub base: u64,
    /// Bytes.
    pub size: u64,
    /// The base was AUTO (resolved by this module).
    pub auto: bool,
    /// The window is a cross-core pipe ring: its variable is the ring
    /// argument (the first) of a `system.*_initialize_pipe` call, the op
    /// table's `InitializePipe` role.
    pub pipe_ring: bool,
}

impl Reserve {
    /// One past the last reserved byte.
    pub fn end(&self) -> u64 {
        self.base.saturating_add(self.size)
    }

    /// Whether the window is a kernel's cross-core pipe ring: the slot
    /// buffer a `*_initialize_pipe` call hands to `tpush`/`tpop` between
    /// cube and vector cores, whose size the `cross_core_slot`
    /// optimization's slot count sets. Decided by that use, not by the
    /// window's name, so a hand-named ring counts and a window merely named
    /// like one does not.
    pub fn is_pipe_ring(&self) -> bool {
        self.pipe_ring
    }
}

/// PyPTO's sentences about the reserved windows of `space`, continuing an
/// over-capacity message after its first sentence: empty when nothing is
/// reserved there; else `. The first R bytes of that space are reserved by
/// system.reserve_buffer, so tiles are allocated above them`, a sentence
/// saying so when the windows alone exceed the space's `capacity`, and the
/// hint about the pipe depth when a window is the cross-core pipe ring.
pub fn capacity_note(reserves: &[Reserve], space: &MemSpace, capacity: u64) -> String {
    let end = reserved_end(reserves, space);
    if end == 0 {
        return String::new();
    }
    let mut note = format!(
        ". The first {end} bytes of that space are reserved by system.reserve_buffer, \
         so tiles are allocated above them"
    );
    if end > capacity {
        note.push_str(&format!(
            ". The reserved windows alone end at byte {end}, beyond the {capacity} bytes of \
             the space: shrink them (size=) so that they fit"
        ));
    }
    if reserves
        .iter()
        .any(|r| &r.space == space && r.is_pipe_ring())
    {
        note.push_str(
            ". The reserve is the cross-core pipe ring: a lower pipe depth \
             (optimizations=[pl.cross_core_slot(slot_num=N)]) shrinks it",
        );
    }
    note
}

/// The space `reserve_buffer` windows live in: Mat for AIC functions, Vec
/// otherwise.
pub fn reserve_space(f: &Function) -> MemSpace {
    if f.kind() == FunctionKind::Aic {
        MemSpace::Mat
    } else {
        MemSpace::Vec
    }
}

/// Aligns `x` in `space` as the policy says (unchanged for spaces the SoC
/// crate does not know).
fn align_in(policy: &dyn MemoryAllocatorPolicy, space: &MemSpace, x: u64) -> u64 {
    if space.is_known() {
        policy.align_address(x, *space)
    } else {
        x
    }
}

/// Finds and resolves the `system.reserve_buffer` calls of `f` (without
/// writing them back).
pub fn resolve(
    f: &Function,
    policy: &dyn MemoryAllocatorPolicy,
) -> Result<Vec<Reserve>, PassError> {
    let space = reserve_space(f);
    let rings = pipe_ring_vars(f);
    let mut out: Vec<Reserve> = Vec::new();
    let mut cursor = 0u64;
    for (_, s) in stmts(f) {
        let Some(call) = f.stmts[s].call() else {
            continue;
        };
        if !crate::ops::has_class(call.op_name(), crate::ops::OpClass::Reserve) {
            continue;
        }
        let pos = f.pos_of(s);
        let name = call
            .kwarg("name")
            .and_then(Expr::as_str)
            .unwrap_or("")
            .to_string();
        let size = call
            .kwarg("size")
            .and_then(Expr::as_int)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| {
                PassError::input(format!(
                    "reserve_buffer '{name}' needs a constant non-negative size= in bytes"
                ))
                .at_pos(pos)
            })?;
        let (base, auto) = match call.kwarg("base").and_then(Expr::as_int) {
            None | Some(-1) => (align_in(policy, &space, cursor), true),
            Some(b) if b >= 0 => (b as u64, false),
            Some(b) => {
                return Err(PassError::input(format!(
                    "reserve_buffer '{name}' has base={b}; use -1 (AUTO) or a byte address"
                ))
                .at_pos(pos))
            }
        };
        let end = base.saturating_add(size);
        // A window of no bytes shares no byte with another.
        if let Some(r) = out
            .iter()
            .find(|r| size > 0 && r.size > 0 && base < r.end() && r.base < end)
        {
            // PyPTO's wording and class; the window at fault is always
            // this explicit one (an AUTO base starts past every earlier end).
            return Err(PassError::input_pypto_internal(format!(
                "overlapping reserve_buffer ranges in function '{}': [{base}, {end}) overlaps with [{}, {}); \
                 reserve_buffer '{name}' (base={base}, size={size}) overlaps '{}': give '{name}' base=-1 \
                 (AUTO) to place it above the others, or a base of at least {}",
                f.name,
                r.base,
                r.end(),
                r.name,
                r.end()
            ))
            .at_pos(pos));
        }
        cursor = cursor.max(end);
        out.push(Reserve {
            stmt: s,
            name,
            space,
            base,
            size,
            auto,
            pipe_ring: f.stmts[s].def().is_some_and(|v| rings.contains(&v)),
        });
    }
    Ok(out)
}

/// The variables `f` hands to a `*_initialize_pipe` call as its slot ring
/// (the call's first argument).
fn pipe_ring_vars(f: &Function) -> Vec<crate::ir::VarId> {
    stmts(f)
        .filter_map(|(_, s)| {
            let c = f.stmts[s].call()?;
            if !crate::ops::has_role(c.op_name(), crate::ops::CrossCoreRole::InitializePipe) {
                return None;
            }
            c.args.first()?.as_var()
        })
        .collect()
}

/// Where tiles of `space` may start: the policy-aligned end of the windows
/// in that space (0 when there are none).
pub fn tiles_start(
    reserves: &[Reserve],
    space: &MemSpace,
    policy: &dyn MemoryAllocatorPolicy,
) -> u64 {
    align_in(policy, space, reserved_end(reserves, space))
}

/// One past the last reserved byte of `space` (0 when nothing is reserved).
pub fn reserved_end(reserves: &[Reserve], space: &MemSpace) -> u64 {
    reserves
        .iter()
        .filter(|r| &r.space == space)
        .map(Reserve::end)
        .max()
        .unwrap_or(0)
}

/// Writes every resolved base back (`base=-1` becomes `base=N`).
pub fn write_back(f: &mut Function, reserves: &[Reserve]) {
    for r in reserves {
        if let Some(call) = f.stmts[r.stmt].call_mut() {
            call.set_kwarg("base", Expr::Int(r.base as i64));
        }
    }
}
