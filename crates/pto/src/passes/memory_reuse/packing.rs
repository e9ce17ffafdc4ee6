//! Packing: which roots share a buffer (PyPTO's `IdentifyReuseOpportunities`).
//!
//! Per memory space, largest first: roots are sorted by size (descending),
//! then definition index, then root order, and each joins the first buffer
//! (in creation order) every member of which it can share with; otherwise it
//! opens a buffer of its own and becomes that buffer's representative. The
//! buffer's size is fixed by its first, largest member, so smaller later
//! members are free and no size gate is needed. `can_share` is symmetric:
//! no lifetime overlap, no hard separation, no pipeline-stage conflict.
//! Declared allocations and isolated workspaces open closed buffers that no
//! other root may join.
//!
//! Capacity gating (known capacity only): the pipeline copies of group `g`
//! are kept apart up to `F_g = min(depth_g, floor(C / slot_g))`, where
//! `slot_g` is the largest aligned root of the group in the space. When the
//! exact footprint (the sequential allocator's, 32-byte aligned sizes after
//! any reserved window) still exceeds the capacity, the aligned sub-range
//! fallback is tried, then one group at a time loses one residue (the group
//! with the largest slot, lowest id on ties) and the space is repacked; when
//! no group can shed any more, the legacy packing (full requested depth) is
//! used and a warning says so, unless one buffer alone exceeds the space.
//! Unknown capacity uses the legacy packing directly.
//!
//! Sub-range fallback (after a measured overflow, PYPTO planner): a root may
//! take the lowest aligned hole of an existing buffer's arena not blocked by
//! a member it cannot share bytes with; arenas never grow. A space with a
//! dynamic member offset other than a direct `tile.slice` keeps whole-buffer
//! packing.

use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

use tilemem_soc::{MemSpace, MemoryAllocatorPolicy, Soc};

use crate::ir::{EntityRef, Function, Type};
use crate::passes::analysis::constraints::AllocationConstraints;
use crate::passes::analysis::order::Lifetime;
use crate::passes::analysis::reserve;
use crate::passes::analysis::roots::{AllocationLifetimes, RootId};

/// Where a root's bytes end up: inside `arena` (a representative root) at
/// byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The representative root whose allocation holds the bytes.
    pub arena: RootId,
    /// Byte offset inside the arena (0 for whole-buffer sharing).
    pub offset: u64,
    /// Placed by the sub-range fallback: the root keeps its own byte size
    /// inside the arena instead of taking over the whole arena.
    pub sub_range: bool,
}

/// A diagnostic decided by the packer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackNote {
    /// A pipeline group runs with fewer buffers than stage copies.
    ReducedDepth {
        /// Memory space.
        space: MemSpace,
        /// Group id.
        group: u32,
        /// Stage copies requested.
        requested: u32,
        /// Copies kept apart.
        actual: u32,
        /// Largest aligned root of the group in the space.
        slot: u64,
        /// Capacity of the space.
        capacity: u64,
    },
    /// The space overflowed at every depth; the legacy packing was kept.
    LegacyFallback {
        /// Memory space.
        space: MemSpace,
        /// Footprint of the legacy packing.
        footprint: u64,
        /// Capacity.
        capacity: u64,
    },
}

/// The packing of one function.
#[derive(Clone, Debug, Default)]
pub struct Packing {
    /// The arena of every packed root (representatives name themselves),
    /// `NO_BUCKET` for a root not packed: a dense table over the
    /// function's roots, 4 bytes a root.
    arena: Vec<u32>,
    /// Offsets of the roots placed by the sub-range fallback (every other
    /// packed root sits at offset 0 of its arena).
    sub_range: BTreeMap<RootId, u64>,
    /// Diagnostics to emit.
    pub notes: Vec<PackNote>,
    /// `(space, group, depth)`: the depth each pipeline group's copies
    /// were kept apart at.
    pub depths: Vec<(MemSpace, u32, u32)>,
}

impl Packing {
    /// The placement of root `r`, when it was packed.
    pub fn get(&self, r: RootId) -> Option<Placement> {
        let a = *self.arena.get(r.index())?;
        (a != NO_BUCKET).then(|| {
            let offset = self.sub_range.get(&r).copied();
            Placement {
                arena: RootId::new(a as usize),
                offset: offset.unwrap_or(0),
                sub_range: offset.is_some(),
            }
        })
    }

    /// Every packed root with its placement, in root order.
    pub fn iter(&self) -> impl Iterator<Item = (RootId, Placement)> + '_ {
        (0..self.arena.len())
            .map(RootId::new)
            .filter_map(|r| Some((r, self.get(r)?)))
    }
}

/// No buffer / arena (a root not packed).
const NO_BUCKET: u32 = u32::MAX;

struct Buffer {
    rep: RootId,
    /// Packed by the sub-range fallback.
    sub_range: bool,
    size: u64,
    closed: bool,
    /// Members and their offsets in the arena, kept by the sub-range
    /// packing only (which looks for holes among them); a whole-buffer
    /// packing's members are the roots whose `Packed::bucket_of` names
    /// the buffer, all at offset 0.
    members: Vec<(RootId, u64)>,
    /// Member lifetimes as `(def, last)`; pairwise disjoint in whole-buffer
    /// packing, so one predecessor lookup decides interference.
    lives: Lives,
    /// Smallest `last` of any member (written-workspace rule).
    min_last: u32,
    /// Largest workspace definition index of any member.
    max_ws_def: Option<u32>,
    /// Stage residues present per pipeline group.
    residues: BTreeMap<u32, BTreeSet<u32>>,
}

/// A buffer's member lifetimes as an ordered set: a sorted vector (8 bytes
/// a member; a B-tree spends about 18) while members arrive in order or
/// the buffer is small, a B-tree once an insertion into the middle of a
/// large vector would shift it.
///
/// Roots are packed in program order, so a buffer's members nearly always
/// arrive in order: the long chains of one buffer stay a vector.
enum Lives {
    Few(Vec<(u32, u32)>),
    Many(BTreeSet<(u32, u32)>),
}

/// Members below which a vector takes insertions anywhere.
const FEW_LIVES: usize = 32;

impl Lives {
    /// The greatest element below `key`.
    fn before(&self, key: (u32, u32)) -> Option<(u32, u32)> {
        match self {
            Lives::Few(v) => {
                let i = v.partition_point(|&x| x < key);
                i.checked_sub(1).map(|i| v[i])
            }
            Lives::Many(s) => s.range(..key).next_back().copied(),
        }
    }

    fn insert(&mut self, x: (u32, u32)) {
        match self {
            Lives::Few(v) => {
                let i = v.partition_point(|&y| y < x);
                if v.get(i) == Some(&x) {
                    return;
                }
                if i == v.len() || v.len() < FEW_LIVES {
                    v.insert(i, x);
                } else {
                    let mut s: BTreeSet<(u32, u32)> = v.drain(..).collect();
                    s.insert(x);
                    *self = Lives::Many(s);
                }
            }
            Lives::Many(s) => {
                s.insert(x);
            }
        }
    }
}

/// One packing of a space: the buffers and the buffer of each root.
struct Packed {
    bufs: Vec<Buffer>,
    /// Buffer of each root (`NO_BUCKET`: none), 4 bytes a root.
    bucket_of: Vec<u32>,
    /// The depth each pipeline group was packed at.
    depth: BTreeMap<u32, u32>,
}

struct SpaceInput<'a> {
    roots: Vec<RootId>,
    lt: &'a AllocationLifetimes,
    c: &'a AllocationConstraints,
    align: u64,
    /// Hard-separation partners of each root.
    partners: HashMap<RootId, Vec<RootId>>,
    /// Where the space's reserved windows end (tiles start above).
    reserved_end: u64,
}

impl SpaceInput<'_> {
    fn life(&self, r: RootId) -> Lifetime {
        self.lt.roots[r]
            .lifetime()
            .unwrap_or(Lifetime { def: 0, last: 0 })
    }

    /// The symmetric sharing test between two roots.
    fn can_share(&self, a: RootId, b: RootId, depth: &BTreeMap<u32, u32>) -> bool {
        let (la, lb) = (self.life(a), self.life(b));
        !la.overlaps(&lb)
            && !self.c.separated(a, b)
            && !self.c.workspace_blocks(a, &la, b, &lb)
            && !self.c.stage_conflict(a, b, depth)
    }

    fn closed(&self, r: RootId) -> bool {
        self.c.isolated.contains(&r)
    }

    fn tags(&self, r: RootId, depth: &BTreeMap<u32, u32>) -> Vec<(u32, u32)> {
        self.c
            .stages
            .get(&r)
            .map(|t| {
                t.iter()
                    .map(|&(g, k)| (g, k % depth.get(&g).copied().unwrap_or(1).max(1)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `r` can share with every member of `b` (whole-buffer test,
    /// in time logarithmic in the buffer's size).
    fn joins(
        &self,
        b: &Buffer,
        bi: usize,
        r: RootId,
        bucket_of: &[u32],
        tags: &[(u32, u32)],
    ) -> bool {
        let l = self.life(r);
        if let Some((d, last)) = b.lives.before((l.last, 0)) {
            if (Lifetime { def: d, last }).overlaps(&l) {
                return false;
            }
        }
        if let Some(&w) = self.c.workspace_def.get(&r) {
            if b.min_last <= w {
                return false;
            }
        }
        if b.max_ws_def.is_some_and(|w| l.last <= w) {
            return false;
        }
        if tags.iter().any(|(g, k)| {
            b.residues
                .get(g)
                .is_some_and(|set| set.iter().any(|x| x != k))
        }) {
            return false;
        }
        if let Some(ps) = self.partners.get(&r) {
            if ps
                .iter()
                .any(|p| bucket_of.get(p.index()) == Some(&(bi as u32)))
            {
                return false;
            }
        }
        true
    }

    fn pack(&self, depth: &BTreeMap<u32, u32>, sub_range: bool) -> Packed {
        let mut bufs: Vec<Buffer> = Vec::new();
        // The whole table at once (no doubling slack).
        let n = self.roots.iter().max().map_or(0, |r| r.index() + 1);
        let mut bucket_of: Vec<u32> = vec![NO_BUCKET; n];
        for &r in &self.roots {
            let size = self.lt.roots[r].size;
            let tags = self.tags(r, depth);
            let mut placed = None;
            if !self.closed(r) {
                for (bi, b) in bufs.iter().enumerate() {
                    if b.closed || size > b.size {
                        continue;
                    }
                    let off = if sub_range {
                        self.fit_sub_range(b, r, size, depth)
                    } else if self.joins(b, bi, r, &bucket_of, &tags) {
                        Some(0)
                    } else {
                        None
                    };
                    if let Some(off) = off {
                        placed = Some((bi, off));
                        break;
                    }
                }
            }
            let bi = match placed {
                Some((bi, _)) => bi,
                None => {
                    bufs.push(Buffer {
                        rep: r,
                        sub_range,
                        size,
                        closed: self.closed(r),
                        members: Vec::new(),
                        lives: Lives::Few(Vec::new()),
                        min_last: u32::MAX,
                        max_ws_def: None,
                        residues: BTreeMap::new(),
                    });
                    bufs.len() - 1
                }
            };
            let off = placed.map_or(0, |p| p.1);
            let l = self.life(r);
            let b = &mut bufs[bi];
            if sub_range {
                b.members.push((r, off));
            }
            b.lives.insert((l.def, l.last));
            b.min_last = b.min_last.min(l.last);
            if let Some(&w) = self.c.workspace_def.get(&r) {
                b.max_ws_def = Some(b.max_ws_def.map_or(w, |x| x.max(w)));
            }
            for (g, k) in tags {
                b.residues.entry(g).or_default().insert(k);
            }
            bucket_of[r.index()] = u32::try_from(bi).unwrap_or(NO_BUCKET);
        }
        Packed {
            bufs,
            bucket_of,
            depth: depth.clone(),
        }
    }

    /// The lowest aligned offset at which `r` fits in `b`'s arena clear of
    /// every member it cannot share bytes with (0 when it can share with
    /// all of them).
    fn fit_sub_range(
        &self,
        b: &Buffer,
        r: RootId,
        size: u64,
        depth: &BTreeMap<u32, u32>,
    ) -> Option<u64> {
        let blockers: Vec<(u64, u64)> = b
            .members
            .iter()
            .filter(|&&(m, _)| !self.can_share(r, m, depth))
            .map(|&(m, off)| (off, off.saturating_add(self.lt.roots[m].size)))
            .collect();
        if blockers.is_empty() {
            return Some(0);
        }
        let mut cands: Vec<u64> = vec![0];
        cands.extend(
            blockers
                .iter()
                .map(|&(_, end)| end.div_ceil(self.align).saturating_mul(self.align)),
        );
        cands.sort_unstable();
        cands.into_iter().find(|&o| {
            let end = o.saturating_add(size);
            end <= b.size && blockers.iter().all(|&(s, e)| end <= s || e <= o)
        })
    }
}

fn footprint(
    bufs: &[Buffer],
    base: u64,
    space: MemSpace,
    policy: &dyn MemoryAllocatorPolicy,
) -> u64 {
    let mut cur = base;
    for b in bufs {
        cur = policy.align_address(cur.saturating_add(b.size), space);
    }
    cur
}

/// The packing that keeps every root in a buffer of its own: a planned
/// program's sharing is already decided (see
/// [`crate::passes::InputPlacement`]), and the facts that decided it (the
/// consumed `pipeline_membership` tags) are gone from it.
pub fn keep(lt: &AllocationLifetimes) -> Packing {
    let mut out = Packing {
        arena: vec![NO_BUCKET; lt.roots.len()],
        ..Packing::default()
    };
    for (r, root) in lt.roots.iter() {
        if root.lifetime().is_some() {
            out.arena[r.index()] = r.index() as u32;
        }
    }
    out
}

/// Whether every member offset of the space's roots is a compile-time
/// integer, dynamic offsets being allowed only on direct window views
/// (`tile.slice`; the table's `ViewRule::Window`).
fn sub_range_eligible(f: &Function, lt: &AllocationLifetimes, roots: &[RootId]) -> bool {
    for &r in roots {
        let root = &lt.roots[r];
        // Declared allocations stay closed (never arena, never candidate);
        // they do not disable the fallback for the rest of the space.
        if root.pinned {
            continue;
        }
        if lt.canonical(f, r).const_offset().is_none_or(|o| o < 0) {
            return false;
        }
        for &m in lt.members(r) {
            let Some(mr) = f.vars[m].ty.as_ref().and_then(Type::memref) else {
                continue;
            };
            match mr.const_offset() {
                Some(o) if o >= 0 => {}
                Some(_) => return false,
                None => {
                    let direct_slice = crate::passes::analysis::order::is_assigned(f, m)
                        .and_then(|s| f.stmts[s].call())
                        .is_some_and(|c| {
                            matches!(
                                crate::ops::lookup_or_default(c.op_name()).view,
                                crate::ops::ViewRule::Window { .. }
                            )
                        });
                    if !direct_slice {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Packs every space of `f`, whose `reserve_buffer` windows are
/// `reserves` (resolved once per function by [`reserve::resolve`]).
///
/// With `depths` (`(space, group, depth)`, an earlier packing's
/// [`Packing::depths`]) each pipeline group is packed at that depth as it
/// is, with no capacity gating: a later round of the pass merges only
/// what the first round's depths allow, the depths the placement check
/// holds the result to. Recomputed, they could be lower (the first round's
/// merges leave more room), and the later round would merge stage copies
/// the first round kept apart and the check expects apart.
#[allow(clippy::too_many_arguments)]
pub fn pack(
    f: &Function,
    lt: &AllocationLifetimes,
    c: &AllocationConstraints,
    reserves: &[reserve::Reserve],
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    allow_sub_range: bool,
    depths: Option<&[(MemSpace, u32, u32)]>,
) -> Packing {
    let mut out = Packing {
        arena: vec![NO_BUCKET; lt.roots.len()],
        ..Packing::default()
    };
    for space in MemSpace::ALL {
        if !space.is_on_chip() {
            continue;
        }
        let mut roots: Vec<RootId> = lt
            .roots_in(space)
            .into_iter()
            .filter(|&r| lt.roots[r].lifetime().is_some())
            .collect();
        if roots.is_empty() {
            continue;
        }
        // The root id makes every key distinct, so an unstable sort (no
        // scratch buffer) gives the stable order.
        roots.sort_unstable_by_key(|&r| {
            let root = &lt.roots[r];
            (
                std::cmp::Reverse(root.size),
                root.lifetime().map(|l| l.def),
                r,
            )
        });
        let mut partners: HashMap<RootId, Vec<RootId>> = HashMap::default();
        for sep in &c.separations {
            if lt.space(sep.a) == space {
                partners.entry(sep.a).or_default().push(sep.b);
                partners.entry(sep.b).or_default().push(sep.a);
            }
        }
        let input = SpaceInput {
            roots,
            lt,
            c,
            align: policy.alignment(space),
            partners,
            reserved_end: reserve::reserved_end(reserves, &space),
        };
        let fixed: Option<BTreeMap<u32, u32>> = depths.map(|d| {
            d.iter()
                .filter(|&&(s, _, _)| s == space)
                .map(|&(_, g, k)| (g, k))
                .collect()
        });
        let packed = pack_space(
            f,
            &input,
            space,
            soc,
            policy,
            allow_sub_range,
            fixed.as_ref(),
            &mut out.notes,
        );
        for &r in &input.roots {
            let Some(b) = packed.bufs.get(packed.bucket_of[r.index()] as usize) else {
                continue;
            };
            if b.sub_range {
                continue;
            }
            out.arena[r.index()] = b.rep.index() as u32;
        }
        for b in packed.bufs.iter().filter(|b| b.sub_range) {
            for &(m, off) in &b.members {
                out.arena[m.index()] = b.rep.index() as u32;
                out.sub_range.insert(m, off);
            }
        }
        out.depths
            .extend(packed.depth.iter().map(|(&g, &d)| (space, g, d)));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn pack_space(
    f: &Function,
    input: &SpaceInput<'_>,
    space: MemSpace,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    allow_sub_range: bool,
    fixed: Option<&BTreeMap<u32, u32>>,
    notes: &mut Vec<PackNote>,
) -> Packed {
    let lt = input.lt;
    // Groups with copies in this space and their largest aligned slot.
    let mut slot: BTreeMap<u32, u64> = BTreeMap::new();
    for &r in &input.roots {
        if let Some(tags) = input.c.stages.get(&r) {
            let sz = policy.align_address(lt.roots[r].size, space);
            for &(g, _) in tags {
                let e = slot.entry(g).or_insert(0);
                *e = (*e).max(sz);
            }
        }
    }
    let requested: BTreeMap<u32, u32> = slot
        .keys()
        .map(|&g| (g, input.c.group_depth.get(&g).copied().unwrap_or(1).max(1)))
        .collect();
    let Some(cap) = soc.capacity(space) else {
        return input.pack(&requested, false);
    };
    let base = input.reserved_end;
    let eligible = allow_sub_range && sub_range_eligible(f, lt, &input.roots);
    let attempt = |depth: &BTreeMap<u32, u32>| -> (Packed, u64) {
        let whole = input.pack(depth, false);
        let fp = footprint(&whole.bufs, base, space, policy);
        if fp <= cap || !eligible {
            return (whole, fp);
        }
        let sub = input.pack(depth, true);
        let fs = footprint(&sub.bufs, base, space, policy);
        if fs < fp {
            (sub, fs)
        } else {
            (whole, fp)
        }
    };
    if let Some(fixed) = fixed {
        let depth: BTreeMap<u32, u32> = requested
            .iter()
            .map(|(&g, &d)| (g, fixed.get(&g).copied().unwrap_or(d)))
            .collect();
        return attempt(&depth).0;
    }
    let mut depth: BTreeMap<u32, u32> = requested
        .iter()
        .map(|(&g, &d)| {
            let fit = u32::try_from(cap / slot[&g].max(1))
                .unwrap_or(u32::MAX)
                .max(1);
            (g, d.min(fit))
        })
        .collect();
    loop {
        let (bufs, fp) = attempt(&depth);
        if fp <= cap {
            for (&g, &d) in &depth {
                if d < requested[&g] {
                    notes.push(PackNote::ReducedDepth {
                        space,
                        group: g,
                        requested: requested[&g],
                        actual: d,
                        slot: slot[&g],
                        capacity: cap,
                    });
                }
            }
            return bufs;
        }
        // Shed one residue from the group that frees the most bytes.
        let shed = depth
            .iter()
            .filter(|(_, &d)| d > 1)
            .max_by_key(|(&g, _)| (slot[&g], std::cmp::Reverse(g)))
            .map(|(&g, _)| g);
        match shed {
            Some(g) => {
                if let Some(d) = depth.get_mut(&g) {
                    *d -= 1;
                }
            }
            None => {
                let (bufs, fp) = attempt(&requested);
                let oversized = input.roots.iter().any(|&r| lt.roots[r].size > cap);
                if !requested.is_empty() && !oversized {
                    notes.push(PackNote::LegacyFallback {
                        space,
                        footprint: fp,
                        capacity: cap,
                    });
                }
                return bufs;
            }
        }
    }
}

pub use crate::passes::analysis::roots::defined_by_view;
