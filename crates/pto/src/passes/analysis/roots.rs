//! Allocation roots, their members (views included) and lifetimes: which
//! storage each tile lives in (seed 000, PyPTO's
//! `AnalyzeAllocationLifetimes`; the DSA_RP planner of seed 002 and the
//! address pass of seed 001 place the same roots).
//!
//! # Variable lifetimes
//!
//! Only variables defined by an assignment have a lifetime: `def` is the
//! index of the assignment, `last` the greatest index at which it is read
//! (`def` when never read). Control-flow values have no lifetime of their
//! own; their reads are charged to the values that carry their storage
//! (their phi family, see [`super::order::carried_from`]), recursively, so
//! a phi of a phi or an iter arg initialised by a phi ends at the
//! assignments that produced the bytes. Reads are extended over loops as
//! [`ProgramOrder::extended_read`] says.
//!
//! # Allocation roots
//!
//! A root is a storage allocation: the variable of a `pl.tile.alloc`
//! statement, or a string-named root (`pl.MemRef("mem_vec_0", ...)`) when the
//! program carries no alloc statements. Its members are the assignment-
//! defined tile variables whose MemRef names it (views, in-place results and
//! bare aliases included); its lifetime is the union of its members'
//! lifetimes. DDR roots are not planned and are left out.

use rustc_hash::FxHashMap as HashMap;

use super::order::{carried_from, is_assigned, Lifetime, ProgramOrder};
use super::walk::stmts;
use crate::ir::{
    EntityRef, Expr, Function, MemBase, MemRef, PrimaryMap, SecondaryMap, StmtId, StmtKind, Type,
    VarId,
};
use crate::ops;
use tilemem_soc::MemSpace;

crate::ir::entity::entity!(
    /// An allocation root of one function (index into [`AllocationLifetimes::roots`]).
    RootId,
    "r"
);

/// One allocation root.
///
/// Kept small (one is made per allocation, tens of thousands in a long
/// kernel): the whole-root MemRef is rebuilt on demand
/// ([`AllocationLifetimes::canonical`]), the member list lives in one
/// shared table ([`AllocationLifetimes::members`]) and the space is an
/// index into the function's few spaces ([`AllocationLifetimes::space`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    /// The storage root as it appears in MemRefs.
    pub base: MemBase,
    /// The `pl.tile.alloc` statement, when the root has one.
    pub alloc_stmt: Option<StmtId>,
    /// Memory space: `AllocationLifetimes::spaces[space]`.
    space: u32,
    /// Byte size of the allocation.
    pub size: u64,
    /// `pinned=True` (an author-declared allocation).
    pub pinned: bool,
    /// The variable whose MemRef names the whole root as the program
    /// writes it (`NO_VAR`: `pl.MemRef(base, 0, size)`).
    canonical_var: u32,
    /// The root's members: `AllocationLifetimes::member_list[start..end]`.
    members: (u32, u32),
    /// Union of the members' lifetimes (`None` when it has no member).
    pub lifetime: Option<Lifetime>,
}

/// What [`analyze`] computes for one function.
#[derive(Clone, Debug)]
pub struct AllocationLifetimes {
    /// Program order.
    pub order: ProgramOrder,
    /// Lifetime of every assignment-defined variable.
    pub vars: SecondaryMap<VarId, Option<Lifetime>>,
    /// Allocation roots (non-DDR), in order of first appearance.
    pub roots: PrimaryMap<RootId, Root>,
    /// The distinct spaces of the roots (see [`space`](Self::space)).
    spaces: Vec<MemSpace>,
    /// The root each tile variable's MemRef names (iter args and
    /// control-flow results included), `NO_ROOT` for none: 4 bytes a
    /// variable, read through [`root_of`](Self::root_of).
    root_of: Vec<u32>,
    /// Every root's members, root after root (one table instead of a
    /// vector per root).
    member_list: Vec<VarId>,
}

impl AllocationLifetimes {
    /// Assignment-defined tile variables stored in root `r`, in order of
    /// definition (program-order index, then variable id): the first is
    /// the first-defined member.
    pub fn members(&self, r: RootId) -> &[VarId] {
        let (start, end) = self.roots[r].members;
        &self.member_list[start as usize..end as usize]
    }

    /// The MemRef that names the whole root `r` (`pl.MemRef(base, 0,
    /// size)`, or the window of its first owning member when that covers
    /// the root, so moved tiles print it exactly: `0` or
    /// `pl.const(0, pl.INT64)`; for a string-named root without such a
    /// member, the MemRef of its first tile). Read from `f`, so it must be
    /// taken before `f`'s MemRefs change.
    pub fn canonical(&self, f: &Function, r: RootId) -> MemRef {
        let root = &self.roots[r];
        Some(root.canonical_var)
            .filter(|&v| v != NO_VAR)
            .and_then(|v| {
                f.vars[VarId::new(v as usize)]
                    .ty
                    .as_ref()?
                    .memref()
                    .cloned()
            })
            .unwrap_or_else(|| MemRef::new(root.base.clone(), 0, root.size))
    }

    /// The root `v`'s MemRef names (iter args and control-flow results
    /// included), when it is an on-chip root.
    pub fn root_of(&self, v: VarId) -> Option<RootId> {
        let r = *self.root_of.get(v.index())?;
        (r != NO_ROOT).then(|| RootId::new(r as usize))
    }

    /// The root holding `v`'s bytes, following iter args and results to the
    /// values whose storage they carry when `v` has no MemRef of its own.
    pub fn storage_root(&self, f: &Function, v: VarId) -> Option<RootId> {
        let mut cur = v;
        for _ in 0..64 {
            if let Some(r) = self.root_of(cur) {
                return Some(r);
            }
            cur = match carried_from(f, cur).first() {
                Some(&n) => n,
                None => return None,
            };
        }
        None
    }

    /// Frees the per-statement and per-variable tables (the program
    /// order, each variable's lifetime and root) once the caller is done
    /// with them: MemoryReuse after collecting its constraints, as packing
    /// and rewriting read only the roots and their members (at 100k
    /// statements the tables are 5 MB). Afterwards `order`, `vars` and
    /// `root_of` are empty and [`storage_root`](Self::storage_root) finds
    /// nothing.
    pub fn release_var_tables(&mut self) {
        self.order = ProgramOrder::default();
        self.vars = SecondaryMap::new();
        self.root_of = Vec::new();
    }

    /// The memory space of root `r`.
    pub fn space(&self, r: RootId) -> MemSpace {
        self.spaces[self.roots[r].space as usize]
    }

    /// The roots of one memory space, in root order.
    pub fn roots_in(&self, space: MemSpace) -> Vec<RootId> {
        self.roots
            .iter()
            .filter(|(_, r)| self.spaces[r.space as usize] == space)
            .map(|(id, _)| id)
            .collect()
    }
}

/// The tile MemRef and space of variable `v`, when it has both and the
/// space is a [known](MemSpace::is_known) one.
pub fn tile_storage(f: &Function, v: VarId) -> Option<(&MemRef, MemSpace)> {
    match f.vars[v].ty.as_ref()? {
        Type::Tile(t, m) => Some((m.as_ref()?, t.space.filter(|s| s.is_known())?)),
        _ => None,
    }
}

/// Runs the lifetime analysis of `f`.
pub fn analyze(f: &Function) -> AllocationLifetimes {
    let order = ProgramOrder::build(f);
    let mut vars: SecondaryMap<VarId, Option<Lifetime>> = sized(f.vars.len(), None);

    // Definitions.
    for (_, s) in stmts(f) {
        let targets = f.stmts[s].targets();
        if !targets.is_empty() {
            let i = order.index[s];
            for &t in targets {
                vars[t] = Some(Lifetime { def: i, last: i });
            }
        }
    }

    // Uses, charged to the values that carry the storage.
    let mut stack = Vec::new();
    let mut used = Vec::new();
    for (_, s) in stmts(f) {
        used.clear();
        f.stmts[s].for_each_use(&mut |v| used.push(v));
        for &v in &used {
            stack.clear();
            stack.push((v, 0u32));
            while let Some((w, depth)) = stack.pop() {
                if let Some(lt) = vars[w].as_mut() {
                    let at = order.extended_read(s, lt.def);
                    lt.last = lt.last.max(at);
                } else if depth < 64 {
                    for n in carried_from(f, w) {
                        stack.push((n, depth + 1));
                    }
                }
            }
        }
    }

    // Roots: allocation statements first (in body order), then string-named
    // roots in order of first use.
    let mut roots: PrimaryMap<RootId, Root> = PrimaryMap::new();
    // Root of each allocation variable (`NO_ROOT`: none), 4 bytes a variable.
    let mut by_var: Vec<u32> = vec![NO_ROOT; f.vars.len()];
    let mut by_name: HashMap<std::sync::Arc<str>, RootId> = HashMap::default();
    let mut spaces: Vec<MemSpace> = Vec::new();
    // Room for every allocation at once (no doubling slack).
    roots.reserve(stmts(f).filter(|&(_, s)| f.alloc_at(s).is_some()).count());
    for (_, s) in stmts(f) {
        if let Some(a) = f.alloc_at(s) {
            let space = a.space;
            if !space.is_on_chip() || by_var[a.var.index()] != NO_ROOT {
                continue;
            }
            let id = roots.push(Root {
                base: MemBase::Var(a.var),
                alloc_stmt: Some(s),
                space: space_index(&mut spaces, space),
                size: a.size,
                pinned: a.pinned,
                canonical_var: NO_VAR,
                members: (0, 0),
                lifetime: None,
            });
            by_var[a.var.index()] = id.index() as u32;
        }
    }

    let mut root_of: Vec<u32> = vec![NO_ROOT; f.vars.len()];
    // Program order of definition for member lists (unassigned vars last).
    // The keys are distinct (the index breaks ties), so an unstable sort
    // gives the same order as a stable keyed sort.
    let mut ordered_vars: Vec<u32> = (0..f.vars.len() as u32).collect();
    ordered_vars.sort_unstable_by_key(|&i| {
        let v = VarId::new(i as usize);
        (vars[v].map_or(u32::MAX, |l| l.def), i)
    });
    let ordered = || ordered_vars.iter().map(|&i| VarId::new(i as usize));
    // Member counts per root first, so that one table holds every list
    // (string-named roots found below are counted as they appear).
    let mut count: Vec<u32> = Vec::with_capacity(roots.len());
    for v in ordered() {
        let Some((m, space)) = tile_storage(f, v) else {
            continue;
        };
        if !space.is_on_chip() {
            continue;
        }
        let id = match m.base() {
            MemBase::Var(b) => match by_var[b.index()] {
                NO_ROOT => continue,
                id => RootId::new(id as usize),
            },
            MemBase::Named(n) => match by_name.get(&n) {
                Some(&id) => id,
                None => {
                    let id = roots.push(Root {
                        base: m.base(),
                        alloc_stmt: None,
                        space: space_index(&mut spaces, space),
                        size: m.size().unwrap_or(0),
                        pinned: false,
                        canonical_var: v.index() as u32,
                        members: (0, 0),
                        lifetime: None,
                    });
                    by_name.insert(n, id);
                    id
                }
            },
        };
        root_of[v.index()] = id.index() as u32;
        if let Some(lt) = vars[v] {
            if is_assigned(f, v).is_some() {
                let r = &mut roots[id];
                r.lifetime = Some(match r.lifetime {
                    Some(x) => x.union(&lt),
                    None => lt,
                });
                if count.len() <= id.index() {
                    count.resize(id.index() + 1, 0);
                }
                count[id.index()] += 1;
            }
        }
    }
    drop(by_var);
    drop(by_name);
    let mut next = 0u32;
    for (id, r) in roots.iter_mut() {
        let n = count.get(id.index()).copied().unwrap_or(0);
        r.members = (next, next);
        next += n;
    }
    drop(count);
    let mut member_list = vec![VarId::new(0); next as usize];
    for v in ordered() {
        let Some(id) = Some(root_of[v.index()])
            .filter(|&r| r != NO_ROOT)
            .map(|r| RootId::new(r as usize))
        else {
            continue;
        };
        if vars[v].is_some() && is_assigned(f, v).is_some() {
            let r = &mut roots[id];
            member_list[r.members.1 as usize] = v;
            r.members.1 += 1;
        }
    }
    drop(ordered_vars);

    // The whole-root MemRef as the program writes it: the window of the
    // first owning (non-view) member when it covers the root, so moved
    // tiles print the representative's MemRef exactly (`0` or
    // `pl.const(0, pl.INT64)`).
    for (_, r) in roots.iter_mut() {
        let owner = member_list[r.members.0 as usize..r.members.1 as usize]
            .iter()
            .copied()
            .find(|&m| {
                !defined_by_view(f, m)
                    && f.vars[m]
                        .ty
                        .as_ref()
                        .and_then(Type::memref)
                        .is_some_and(|mr| {
                            mr.const_offset() == Some(0)
                                && mr.size() == Some(r.size)
                                && mr.slots().is_none()
                                && mr.slot_index().is_none()
                        })
            });
        if let Some(owner) = owner {
            r.canonical_var = owner.index() as u32;
        }
    }

    AllocationLifetimes {
        order,
        vars,
        roots,
        spaces,
        root_of,
        member_list,
    }
}

/// The index of `space` in `spaces`, added when new.
fn space_index(spaces: &mut Vec<MemSpace>, space: MemSpace) -> u32 {
    let i = match spaces.iter().position(|&s| s == space) {
        Some(i) => i,
        None => {
            spaces.push(space);
            spaces.len() - 1
        }
    };
    i as u32
}

/// No variable (a root without a canonical member).
const NO_VAR: u32 = u32::MAX;

/// No root (in the allocation-variable table of [`analyze`]).
const NO_ROOT: u32 = u32::MAX;

/// A side table for `n` ids allocated once at its full length (growing it
/// one id at a time would leave up to twice the capacity behind).
fn sized<K: EntityRef, V: Clone>(n: usize, default: V) -> SecondaryMap<K, V> {
    let mut m = SecondaryMap::with_default(default.clone());
    if n > 0 {
        m[K::new(n - 1)] = default;
    }
    m
}

/// Whether the defining op of `v` is a view (its MemRef is a window of its
/// source, rebased rather than replaced when its root moves).
pub fn defined_by_view(f: &Function, v: VarId) -> bool {
    let mut cur = v;
    for _ in 0..64 {
        let Some(s) = is_assigned(f, cur) else {
            return false;
        };
        match &f.stmts[s].kind {
            StmtKind::Assign {
                value: Expr::Var(src),
                ..
            } => cur = *src,
            StmtKind::Assign {
                value: Expr::Call(call),
                ..
            } => return ops::lookup_or_default(call.op_name()).is_view(),
            _ => return false,
        }
    }
    false
}

/// Tile variables grouped by the root allocation they live in.
pub fn members_by_root(f: &Function) -> HashMap<VarId, Vec<VarId>> {
    let mut out: HashMap<VarId, Vec<VarId>> = HashMap::default();
    for (v, d) in f.vars.iter() {
        if let Some(Type::Tile(_, Some(m))) = &d.ty {
            if let Some(r) = m.base_var() {
                out.entry(r).or_default().push(v);
            }
        }
    }
    out
}
