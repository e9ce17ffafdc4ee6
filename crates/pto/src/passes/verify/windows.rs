//! Where each tile of a planned function lives, read from its MemRef: the
//! space (its allocation's), and the bytes `[start, end)` at the absolute
//! address the MemRef's constant offset gives (a slot `k` of a multi-slot
//! declaration `k` slot sizes further). A window whose offset or slot is
//! computed at run time is only known to lie inside its allocation's
//! extent (the lowest to the highest byte of the allocation's tiles).
//!
//! Tiles without a MemRef of their own (loop iter args, control-flow
//! results printed bare) live where the value they carry lives.

use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::{EntityRef, Expr, Function, MemRef, MemSpace, StmtKind, Type, VarDef, VarId};

/// How the allocations of a function are laid out for a check.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// At the addresses the MemRefs give (a planned function).
    Planned,
    /// Each allocation a space of its own; a view on another root than
    /// its source's untracked ([`Windows::per_allocation`]).
    Input,
    /// Each allocation a space of its own; every view where its MemRef
    /// says ([`Windows::declared`]).
    Declared,
}

/// A byte range of one space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    /// Index into [`Windows::spaces`].
    pub space: u32,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

impl Window {
    /// Whether two windows share a byte.
    pub fn overlaps(&self, o: &Window) -> bool {
        self.space == o.space && self.start < o.end && o.start < self.end
    }
}

/// Where a tile is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Not on a checked space (DDR, a space the policy does not place, no
    /// MemRef).
    None,
    /// Exactly these bytes.
    Exact(Window),
    /// Somewhere inside these bytes (a run-time offset or slot).
    Within(Window),
}

impl Place {
    /// The exact window, when known.
    pub fn exact(&self) -> Option<Window> {
        match *self {
            Place::Exact(w) => Some(w),
            _ => None,
        }
    }

    /// The bytes the tile may touch.
    pub fn bounds(&self) -> Option<Window> {
        match *self {
            Place::Exact(w) | Place::Within(w) => Some(w),
            Place::None => None,
        }
    }
}

/// An allocation as the checks see it: its variable, its space index,
/// whether it is declared (`pinned`), and the extent of its tiles (`None`:
/// no tile).
pub(super) type AllocWindow = (VarId, u32, bool, Option<(u64, u64)>);

/// The places of every variable of a function, and what the checks need
/// of its allocations.
pub(super) struct Windows {
    /// The checked spaces, in order of first use.
    pub spaces: Vec<MemSpace>,
    /// Place of each variable.
    pub place: Vec<Place>,
    /// Per allocation variable: its space index, whether it is declared
    /// (`pinned`), and the extent of its tiles (`None`: no tile).
    pub allocs: Vec<AllocWindow>,
    /// The bytes each allocation of `allocs` holds (its `size`).
    sizes: Vec<u64>,
}

impl Windows {
    /// Reads the places of `f`'s tiles. Only spaces the SoC knows and the
    /// policy places are checked.
    pub fn of(f: &Function, policy: &dyn MemoryAllocatorPolicy) -> Result<Windows, String> {
        Self::read(f, policy, Layout::Planned)
    }

    /// As [`of`](Self::of), but every allocation is a space of its own
    /// (the space index is the allocation's index in
    /// [`allocs`](Self::allocs), the offsets stay as the MemRefs give
    /// them): two tiles then overlap only when they share an allocation,
    /// whatever the addresses of the allocations are. This is how a
    /// program's own sharing is checked before any address is planned.
    pub fn per_allocation(
        f: &Function,
        policy: &dyn MemoryAllocatorPolicy,
    ) -> Result<Windows, String> {
        Self::read(f, policy, Layout::Input)
    }

    /// As [`per_allocation`](Self::per_allocation), with every view where
    /// its own MemRef says, on its source's allocation or not: the storage
    /// the MemRefs declare, taken at their word (what AllocateMemoryAddr
    /// keeps of its input).
    pub fn declared(f: &Function, policy: &dyn MemoryAllocatorPolicy) -> Result<Windows, String> {
        Self::read(f, policy, Layout::Declared)
    }

    fn read(
        f: &Function,
        policy: &dyn MemoryAllocatorPolicy,
        layout: Layout,
    ) -> Result<Windows, String> {
        let per_allocation = layout != Layout::Planned;
        let nv = f.vars.len();
        let mut spaces: Vec<MemSpace> = Vec::new();
        // Allocation variable -> index into `allocs`.
        let mut alloc_of: Vec<u32> = vec![u32::MAX; nv];
        let mut allocs = Vec::new();
        let mut sizes = Vec::new();
        for a in f.allocs() {
            if !a.space.is_known() || !policy.should_allocate(a.space) {
                continue;
            }
            let sp = match spaces.iter().position(|&s| s == a.space) {
                Some(i) if !per_allocation => i,
                _ => {
                    spaces.push(a.space);
                    spaces.len() - 1
                }
            } as u32;
            alloc_of[a.var.index()] = allocs.len() as u32;
            allocs.push((a.var, sp, a.pinned, None));
            sizes.push(a.size);
        }
        let mut place = vec![Place::None; nv];
        let mut root: Vec<Option<VarId>> = vec![None; nv];
        // Exact windows first; the extents of the allocations follow from
        // them.
        let mut dynamic: Vec<VarId> = Vec::new();
        for (v, d) in f.vars.iter() {
            let Some(Type::Tile(_, Some(m))) = &d.ty else {
                continue;
            };
            let Some(r) = m.base_var() else { continue };
            let k = alloc_of[r.index()];
            let Some(&(_, sp, _, _)) = allocs.get(k as usize) else {
                continue;
            };
            root[v.index()] = Some(r);
            match exact(m)? {
                Some((start, end)) => {
                    place[v.index()] = Place::Exact(Window {
                        space: sp,
                        start,
                        end,
                    });
                    let e = &mut allocs[k as usize].3;
                    *e = Some(e.map_or((start, end), |(a, b): (u64, u64)| {
                        (a.min(start), b.max(end))
                    }));
                }
                None => dynamic.push(v),
            }
        }
        for v in dynamic {
            let Some(r) = root[v.index()] else { continue };
            let (_, sp, _, extent) = allocs[alloc_of[r.index()] as usize];
            if let Some((start, end)) = extent {
                place[v.index()] = Place::Within(Window {
                    space: sp,
                    start,
                    end,
                });
            }
        }
        // Values without a MemRef of their own live where what they carry
        // lives (followed in program order, so carries of carries resolve).
        for v in f.vars.keys() {
            if place[v.index()] != Place::None
                || f.vars[v].ty.as_ref().and_then(Type::memref).is_some()
            {
                continue;
            }
            let mut cur = v;
            for _ in 0..64 {
                let Some(next) = carried(f, cur) else { break };
                if place[next.index()] != Place::None {
                    place[v.index()] = place[next.index()];
                    root[v.index()] = root[next.index()];
                    break;
                }
                cur = next;
            }
        }
        if layout == Layout::Input {
            // Before planning, a view's MemRef is not yet its own: the
            // passes give a view its source's root (MaterializeSemantic-
            // Aliases may move the source and leave the view's MemRef
            // behind). A view on another root than its source's is left
            // untracked rather than read as a sharing.
            for (_, s) in f.walk() {
                let StmtKind::Assign {
                    targets,
                    value: crate::ir::Expr::Call(call),
                } = &f.stmts[s].kind
                else {
                    continue;
                };
                if !crate::ops::lookup_or_default(call.op_name()).is_view() {
                    continue;
                }
                let src = call.args.first().and_then(Expr::as_var);
                for &t in targets.iter() {
                    if src.is_none_or(|x| root[x.index()] != root[t.index()]) {
                        place[t.index()] = Place::None;
                    }
                }
            }
        }
        Ok(Windows {
            spaces,
            place,
            allocs,
            sizes,
        })
    }

    /// Checks the allocations against the target: every tile inside the
    /// space's capacity, every allocation's lowest byte aligned as the
    /// policy says, and its tiles within as many bytes as it holds.
    pub fn check_bounds(
        &self,
        f: &Function,
        soc: &Soc,
        policy: &dyn MemoryAllocatorPolicy,
    ) -> Result<(), String> {
        for (&(r, sp, _, extent), &size) in self.allocs.iter().zip(&self.sizes) {
            let Some((start, end)) = extent else { continue };
            let space = self.spaces[sp as usize];
            if end - start > size {
                return Err(format!(
                    "the tiles of allocation '{}' span bytes [{start}, {end}) of {}, more than \
                     the {size} bytes it holds",
                    f.vars[r].name,
                    space.name()
                ));
            }
            if policy.align_address(start, space) != start {
                return Err(format!(
                    "allocation '{}' starts at address {start} in {}, which breaks the address \
                     policy's alignment",
                    f.vars[r].name,
                    space.name()
                ));
            }
            if let Some(cap) = soc.capacity(space) {
                if end > cap {
                    return Err(format!(
                        "allocation '{}' reaches byte {end} of {}, beyond its capacity of {cap} \
                         bytes",
                        f.vars[r].name,
                        space.name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// The index of `space` among the checked spaces.
    pub fn space_index(&self, space: MemSpace) -> Option<u32> {
        self.spaces
            .iter()
            .position(|&s| s == space)
            .map(|i| i as u32)
    }
}

/// The bytes a MemRef with a constant offset (and, with slots, a constant
/// slot) names; `None` for a run-time offset or slot.
fn exact(m: &MemRef) -> Result<Option<(u64, u64)>, String> {
    let Some(off) = m.const_offset() else {
        return Ok(None);
    };
    let start =
        u64::try_from(off).map_err(|_| format!("a MemRef at the negative address {off}"))?;
    let size = m.size().unwrap_or(0);
    let slot = match (m.slots(), m.slot_index()) {
        (_, None) => 0,
        (_, Some(e)) => match e.as_int().and_then(|k| u64::try_from(k).ok()) {
            Some(k) => k,
            None => return Ok(None),
        },
    };
    let start = start.saturating_add(slot.saturating_mul(size));
    Ok(Some((start, start.saturating_add(size))))
}

/// The value a variable without storage of its own carries: an iter arg or
/// a loop result its init value, an `if` result the value its then branch
/// yields.
pub(super) fn carried(f: &Function, v: VarId) -> Option<VarId> {
    let (s, results) = match f.vars[v].def {
        VarDef::IterArg(s) => (s, false),
        VarDef::Stmt(s) => (s, true),
        _ => return None,
    };
    match &f.stmts[s].kind {
        StmtKind::For(l) => {
            let list = if results { &l.results } else { &l.iter_args };
            let k = list.iter().position(|&a| a == v)?;
            l.init_values().get(k).and_then(Expr::as_var)
        }
        StmtKind::If(i) if results => {
            let k = i.results.iter().position(|&a| a == v)?;
            super::families::yielded(f, crate::ir::Block::Then(s))
                .get(k)
                .and_then(Expr::as_var)
        }
        _ => None,
    }
}
