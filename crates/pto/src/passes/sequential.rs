//! The PYPTO planner's address stage (seed 001): the roots MemoryReuse
//! left are laid out one after another per space, in the policy's order.
//!
//! **Assumes** InitMemRef ran (and, in the PYPTO planner, MemoryReuse):
//! tiles carry MemRefs whose offsets are relative to their root allocation.
//!
//! **Guarantees**, for one InCore/AIC/AIV function:
//! - `system.reserve_buffer` windows are resolved ([`reserve`]) and the
//!   resolved `base=` is written back;
//! - in every space the policy allocates (DDR skipped by the default), the
//!   referenced roots are laid out one after another in the policy's order,
//!   from the aligned end of the reserved windows (or 0):
//!   `addr = cur; cur = align(cur + slot)`, where a root's slot is the
//!   largest of its allocation size and its members' sizes;
//! - every tile's MemRef offset becomes its absolute address: slot base +
//!   its offset relative to the root (views keep their relative offsets; a
//!   dynamic offset becomes `base + expr` on pinned roots and the bare base
//!   otherwise); `tile.alloc` statements are unchanged;
//! - usage above the target's capacity is an error naming the space, the
//!   bytes used and the limit (and the reserve when it alone is too large).
//!
//! Idempotent: a function whose tiles already sit at the addresses this
//! stage would give them is recognised (every root's lowest member offset
//! equals its slot base) and re-laid out to the same bytes.

use rustc_hash::FxHashMap as HashMap;

use tilemem_soc::{AllocEntry, MemoryAllocatorPolicy, Soc};

use crate::ir::{BinOp, Expr, Function, MemRef, MemSpace, SecondaryMap, Type, VarId};

use super::analysis::layout::{Layout, Slot};
use super::analysis::reserve::{self, Reserve};
use super::context::PassError;

fn trailing_number(name: &str) -> u64 {
    let digits: String = name
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().unwrap_or(0)
}

/// Lays out and rewrites one function; returns the layout.
pub fn allocate_function(
    f: &mut Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
) -> Result<Layout, PassError> {
    let reserves = reserve::resolve(f, policy)?;
    let allocs = f.allocs();
    let facts = RootFacts::gather(f, &allocs);
    let layout = plan_layout(f, Some(soc), policy, &allocs, &facts, reserves.clone())?;
    let addressed = already_addressed(&layout, &facts);
    drop(facts);
    rewrite(f, &layout, addressed, &allocs);
    reserve::write_back(f, &reserves);
    Ok(layout)
}

/// Turns absolute addresses of an already laid-out function back into
/// offsets relative to each root, so that passes before
/// allocate_memory_addr see the form they assume. Returns whether the
/// function was laid out (recognised as in [`allocate_function`]).
pub fn make_relative(f: &mut Function, policy: &dyn MemoryAllocatorPolicy) -> bool {
    // A laid-out function has a tile at a nonzero address (the lowest
    // member of a root at a nonzero base); without one there is nothing to
    // undo, and the layout tables need not be built at all.
    let any_nonzero = f.vars.values().any(|d| {
        d.ty.as_ref()
            .and_then(Type::memref)
            .and_then(MemRef::const_offset)
            .is_some_and(|o| o != 0)
    });
    if !any_nonzero {
        return false;
    }
    let Ok(reserves) = reserve::resolve(f, policy) else {
        return false;
    };
    let allocs = f.allocs();
    let facts = RootFacts::gather(f, &allocs);
    if two_roots_at_zero(policy, &allocs, &facts) {
        return false;
    }
    let Ok(layout) = plan_layout(f, None, policy, &allocs, &facts, reserves) else {
        return false;
    };
    if !already_addressed(&layout, &facts) {
        return false;
    }
    drop(facts);
    for (mr, slot, _) in laid_out_tiles(f, &layout) {
        if let Some(off) = mr.const_offset() {
            mr.set_offset(Some(Expr::const_i64(off - slot.base as i64)));
        }
    }
    true
}

/// Checks that every tile's MemRef window lies within its allocation, its
/// offset relative to the allocation (as the pipeline driver leaves a
/// planned function: [`make_relative`] for this pass's own layout, the
/// allocation's lowest tile for any other). A window past its allocation
/// is neither relative nor an address of a layout any planner could have
/// made (say two allocations that overlap): planned as if relative, the
/// tile moved on every re-plan. Slotted MemRefs (a declared allocation's
/// slots) are not checked here.
pub fn check_windows(f: &Function) -> Result<(), PassError> {
    let sizes: HashMap<VarId, u64> = f.allocs().iter().map(|a| (a.var, a.size)).collect();
    for d in f.vars.values() {
        let Some(Type::Tile(_, Some(m))) = &d.ty else {
            continue;
        };
        if m.slots().is_some() {
            continue;
        }
        let (Some(root), Some(off), Some(size)) = (m.base_var(), m.const_offset(), m.size()) else {
            continue;
        };
        let Some(&alloc) = sizes.get(&root) else {
            continue;
        };
        let end = u64::try_from(off).ok().and_then(|o| o.checked_add(size));
        if end.is_some_and(|e| e <= alloc) {
            continue;
        }
        let pos = match d.def {
            crate::ir::VarDef::Stmt(s) => f.pos_of(s),
            _ => f.pos,
        };
        return Err(PassError::input(format!(
            "tile '{}' has the window [{off}, {off} + {size}) of allocation '{}', which holds \
             {alloc} bytes: MemRef offsets are relative to their allocation, or the addresses \
             allocate_memory_addr gave; write the offset within the allocation",
            d.name, f.vars[root].name
        ))
        .at_pos(pos));
    }
    Ok(())
}

/// Whether two roots of non-zero size in one allocated space both have
/// their lowest tile at offset 0. The sequential layout puts every root
/// after the previous one, so in a laid-out function at most one such root
/// per space sits at address 0: a function where two do is not laid out,
/// which this decides without building the layout (a relative program has
/// one root at offset 0 per allocation).
fn two_roots_at_zero(
    policy: &dyn MemoryAllocatorPolicy,
    allocs: &[crate::ir::Alloc],
    facts: &RootFacts,
) -> bool {
    let mut first_at_zero: Vec<(MemSpace, VarId)> = Vec::new();
    for a in allocs {
        if !a.space.is_known() || !policy.should_allocate(a.space) {
            continue;
        }
        let Some(g) = facts.get(a.var) else { continue };
        if g.min_offset != Some(0) || g.size.max(a.size) == 0 {
            continue;
        }
        match first_at_zero.iter().find(|(sp, _)| *sp == a.space) {
            Some(&(_, v)) if v != a.var => return true,
            Some(_) => {}
            None => first_at_zero.push((a.space, a.var)),
        }
    }
    false
}

/// What the layout needs of each allocation root, gathered in one pass
/// over the variables (a member list per root cost more than the rest of
/// the pass together on long kernels).
struct RootFacts {
    /// Index into `aggs` of each allocation variable (`u32::MAX`: none).
    index: SecondaryMap<VarId, u32>,
    aggs: Vec<RootAgg>,
}

/// The tiles whose MemRef names one root, in summary.
#[derive(Clone, Copy, Default)]
struct RootAgg {
    /// Some tile names the root.
    used: bool,
    /// Largest MemRef size of those tiles (0 when none has one).
    size: u64,
    /// Lowest constant offset of those tiles.
    min_offset: Option<i64>,
}

impl RootFacts {
    fn gather(f: &Function, allocs: &[crate::ir::Alloc]) -> RootFacts {
        let mut index: SecondaryMap<VarId, u32> = SecondaryMap::with_default(u32::MAX);
        if let Some(last) = f.vars.keys().next_back() {
            // The whole table at once (no doubling slack).
            index[last] = u32::MAX;
        }
        let mut aggs = Vec::with_capacity(allocs.len());
        for a in allocs {
            if index[a.var] == u32::MAX {
                index[a.var] = u32::try_from(aggs.len()).unwrap_or(u32::MAX);
                aggs.push(RootAgg::default());
            }
        }
        for (_, d) in f.vars.iter() {
            let Some(Type::Tile(_, Some(m))) = &d.ty else {
                continue;
            };
            let Some(r) = m.base_var() else { continue };
            let Some(g) = aggs.get_mut(index[r] as usize) else {
                continue;
            };
            g.used = true;
            g.size = g.size.max(m.size().unwrap_or(0));
            if let Some(o) = m.const_offset() {
                g.min_offset = Some(g.min_offset.map_or(o, |x| x.min(o)));
            }
        }
        RootFacts { index, aggs }
    }

    /// The summary of root `r`, when some tile names it.
    fn get(&self, r: VarId) -> Option<&RootAgg> {
        self.aggs.get(self.index[r] as usize).filter(|g| g.used)
    }
}

/// Where a capacity error of `f` is reported: the planners' one rule,
/// which every front end (the command line, the Python module) prints as
/// it is. At the allocation `alone` that by itself exceeds its space, the
/// one to shrink (its own line or, for one InitMemRef inserted, its first
/// tile's definition); otherwise at the function's `def`, since the
/// overflow is then a property of the whole kernel's lifetimes, not of any
/// one statement (`explain` names the peak).
pub fn capacity_error_pos(f: &Function, alone: Option<VarId>) -> crate::ir::Pos {
    let Some(r) = alone else { return f.pos };
    match f.vars[r].def {
        crate::ir::VarDef::Stmt(s) if f.pos_of(s).line > 0 => f.pos_of(s),
        _ => first_member_pos(f, r).unwrap_or(f.pos),
    }
}

/// The definition of the first tile (in variable order) whose MemRef
/// names root `r` and that has a line of its own.
pub(crate) fn first_member_pos(f: &Function, r: VarId) -> Option<crate::ir::Pos> {
    f.vars.values().find_map(|d| {
        let Some(Type::Tile(_, m)) = &d.ty else {
            return None;
        };
        if m.as_ref()?.base_var() != Some(r) {
            return None;
        }
        match d.def {
            crate::ir::VarDef::Stmt(s) if f.pos_of(s).line > 0 => Some(f.pos_of(s)),
            _ => None,
        }
    })
}

/// Sequential placement of every referenced root, per space, in the
/// policy's order; checks capacity when a target is given.
fn plan_layout(
    f: &Function,
    soc: Option<&Soc>,
    policy: &dyn MemoryAllocatorPolicy,
    allocs: &[crate::ir::Alloc],
    facts: &RootFacts,
    reserves: Vec<Reserve>,
) -> Result<Layout, PassError> {
    let mut layout = Layout::with_capacity(reserves.clone(), allocs.len());
    // Spaces in a fixed order so errors and layouts are deterministic.
    let mut spaces: Vec<MemSpace> = allocs.iter().map(|a| a.space).collect();
    spaces.sort();
    spaces.dedup();
    for space in spaces {
        if !space.is_known() || !policy.should_allocate(space) {
            continue;
        }
        // Sized once: growing them one allocation at a time would hold
        // the old and the new table together at every doubling.
        let n = allocs.iter().filter(|a| a.space == space).count();
        let mut entries: Vec<AllocEntry> = Vec::with_capacity(n);
        let mut by_name: HashMap<&str, (VarId, u64)> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        for a in allocs.iter().filter(|a| a.space == space) {
            let Some(g) = facts.get(a.var) else {
                continue;
            };
            let size = g.size.max(a.size);
            let name: &str = &f.vars[a.var].name;
            entries.push(AllocEntry {
                name: name.to_string(),
                id: trailing_number(name),
                size,
            });
            by_name.insert(name, (a.var, size));
        }
        policy.order_memrefs(&mut entries);
        let reserved_end = reserve::reserved_end(&reserves, &space);
        let mut cur = reserve::tiles_start(&reserves, &space, policy);
        let mut used = reserved_end;
        for e in &entries {
            let (root, size) = by_name[e.name.as_str()];
            let base = cur;
            cur = policy.align_address(cur + size, space);
            used = used.max(base + size);
            layout.push(Slot {
                root,
                space,
                base,
                size,
            });
        }
        if let Some(cap) = soc.and_then(|soc| soc.capacity(space)) {
            if used > cap {
                // PyPTO's wording first (its reserve sentences included),
                // then tilemem's own advice.
                let note = reserve::capacity_note(&reserves, &space, cap);
                // One allocation that alone does not fit is named, at its
                // own line: that is the one to shrink.
                let alone = allocs
                    .iter()
                    .filter(|a| a.space == space)
                    .filter_map(|a| {
                        let (_, size) = by_name.get(&*f.vars[a.var].name)?;
                        (*size > cap).then_some((a, *size))
                    })
                    .max_by_key(|&(_, size)| size);
                let pos = capacity_error_pos(f, alone.map(|(a, _)| a.var));
                let why = match alone {
                    Some((a, size)) => format!(
                        "; the allocation '{}' alone needs {size} bytes",
                        f.vars[a.var].name
                    ),
                    None => String::new(),
                };
                return Err(PassError::planning(format!(
                    "{} buffer usage ({used} bytes) exceeds platform limit ({cap} bytes){note}; \
                     in function '{}': shrink tiles, enable buffer reuse, or split the kernel{why}",
                    space.name(),
                    f.name
                ))
                .at_pos(pos));
            }
        }
    }
    Ok(layout)
}

/// Whether the tiles already sit at the layout's addresses (a second run).
fn already_addressed(layout: &Layout, facts: &RootFacts) -> bool {
    let mut any_nonzero = false;
    for slot in layout.slots() {
        match facts.get(slot.root).and_then(|g| g.min_offset) {
            Some(m) if m == slot.base as i64 => any_nonzero |= slot.base != 0,
            Some(_) => return false,
            None => {}
        }
    }
    any_nonzero
}

/// Every tile MemRef that names a root of `layout`, with the root's slot
/// and the root.
fn laid_out_tiles<'a>(
    f: &'a mut Function,
    layout: &'a Layout,
) -> impl Iterator<Item = (&'a mut MemRef, &'a Slot, VarId)> {
    f.vars.iter_mut().filter_map(move |(_, d)| {
        let Some(Type::Tile(_, Some(mr))) = d.ty.as_mut() else {
            return None;
        };
        let r = mr.base_var()?;
        let slot = layout.slot(r)?;
        Some((mr, slot, r))
    })
}

/// Rewrites every tile MemRef naming a laid-out root (one pass over the
/// variables; each tile's new offset depends on its own MemRef only).
fn rewrite(f: &mut Function, layout: &Layout, addressed: bool, allocs: &[crate::ir::Alloc]) {
    let pinned_roots: rustc_hash::FxHashSet<VarId> =
        allocs.iter().filter(|a| a.pinned).map(|a| a.var).collect();
    for (mr, slot, r) in laid_out_tiles(f, layout) {
        let pinned = pinned_roots.contains(&r);
        let base = slot.base as i64;
        let offset = mr.offset();
        mr.set_offset(Some(match offset.as_ref() {
            None => Expr::const_i64(base),
            Some(e) => match e.as_int() {
                Some(off) => {
                    let rel = if addressed { off - base } else { off };
                    Expr::const_i64(base + rel)
                }
                None if pinned && !addressed => Expr::Binary(
                    BinOp::Add,
                    Box::new(Expr::const_i64(base)),
                    Box::new(e.clone()),
                ),
                None if pinned => e.clone(),
                None => Expr::const_i64(base),
            },
        }));
    }
}
