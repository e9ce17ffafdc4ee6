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
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    /// The storage root as it appears in MemRefs.
    pub base: MemBase,
    /// The `pl.tile.alloc` statement, when the root has one.
    pub alloc_stmt: Option<StmtId>,
    /// Memory space.
    pub space: MemSpace,
    /// Byte size of the allocation.
    pub size: u64,
    /// `pinned=True` (an author-declared allocation).
    pub pinned: bool,
    /// The MemRef that names the whole root (`pl.MemRef(base, 0, size)`,
    /// or for a string-named root the MemRef of its first owning tile).
    pub canonical: MemRef,
    /// Assignment-defined tile variables stored in the root, in program order.
    pub members: Vec<VarId>,
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
    /// The root each tile variable's MemRef names (iter args and
    /// control-flow results included).
    pub root_of: SecondaryMap<VarId, Option<RootId>>,
}

impl AllocationLifetimes {
    /// The root holding `v`'s bytes, following iter args and results to the
    /// values whose storage they carry when `v` has no MemRef of its own.
    pub fn storage_root(&self, f: &Function, v: VarId) -> Option<RootId> {
        let mut cur = v;
        for _ in 0..64 {
            if let Some(r) = self.root_of[cur] {
                return Some(r);
            }
            cur = match carried_from(f, cur).first() {
                Some(&n) => n,
                None => return None,
            };
        }
        None
    }

    /// The roots of one memory space, in root order.
    pub fn roots_in(&self, space: MemSpace) -> Vec<RootId> {
        self.roots
            .iter()
            .filter(|(_, r)| r.space == space)
            .map(|(id, _)| id)
            .collect()
    }
}

/// The tile MemRef and space of variable `v`, when it has both and the
/// space is a [known](MemSpace::is_known) one.
pub fn tile_storage(f: &Function, v: VarId) -> Option<(&MemRef, MemSpace)> {
    match f.vars[v].ty.as_ref()? {
        Type::Tile(t) => Some((t.memref.as_ref()?, t.space.filter(|s| s.is_known())?)),
        _ => None,
    }
}

/// Runs the lifetime analysis of `f`.
pub fn analyze(f: &Function) -> AllocationLifetimes {
    let order = ProgramOrder::build(f);
    let mut vars: SecondaryMap<VarId, Option<Lifetime>> = SecondaryMap::new();

    // Definitions.
    let walk = f.walk();
    for &(_, s) in &walk {
        if let StmtKind::Assign { targets, .. } = &f.stmts[s].kind {
            let i = order.index[s];
            for &t in targets {
                vars[t] = Some(Lifetime { def: i, last: i });
            }
        }
    }

    // Uses, charged to the values that carry the storage.
    let mut stack = Vec::new();
    let mut used = Vec::new();
    for &(_, s) in &walk {
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
    let mut by_var: HashMap<VarId, RootId> = HashMap::default();
    let mut by_name: HashMap<Box<str>, RootId> = HashMap::default();
    for &(_, s) in &walk {
        if let Some(a) = f.alloc_at(s) {
            let space = a.space;
            if !space.is_on_chip() || by_var.contains_key(&a.var) {
                continue;
            }
            let base = MemBase::Var(a.var);
            let id = roots.push(Root {
                canonical: MemRef::new(base.clone(), 0, a.size),
                base,
                alloc_stmt: Some(s),
                space,
                size: a.size,
                pinned: a.pinned,
                members: Vec::new(),
                lifetime: None,
            });
            by_var.insert(a.var, id);
        }
    }

    let mut root_of: SecondaryMap<VarId, Option<RootId>> = SecondaryMap::new();
    // Program order of definition for member lists (unassigned vars last).
    // The keys are distinct (the index breaks ties), so an unstable sort of
    // precomputed keys gives the same order as a stable keyed sort.
    let mut ordered_vars: Vec<(u32, usize, VarId)> = f
        .vars
        .keys()
        .map(|v| (vars[v].map_or(u32::MAX, |l| l.def), v.index(), v))
        .collect();
    ordered_vars.sort_unstable_by_key(|&(def, index, _)| (def, index));
    for (_, _, v) in ordered_vars {
        let Some((m, space)) = tile_storage(f, v) else {
            continue;
        };
        if !space.is_on_chip() {
            continue;
        }
        let id = match &m.base {
            MemBase::Var(b) => match by_var.get(b) {
                Some(&id) => id,
                None => continue,
            },
            MemBase::Named(n) => match by_name.get(n) {
                Some(&id) => id,
                None => {
                    let id = roots.push(Root {
                        base: m.base.clone(),
                        alloc_stmt: None,
                        space,
                        size: m.size.unwrap_or(0),
                        pinned: false,
                        canonical: m.clone(),
                        members: Vec::new(),
                        lifetime: None,
                    });
                    by_name.insert(n.clone(), id);
                    id
                }
            },
        };
        root_of[v] = Some(id);
        if let Some(lt) = vars[v] {
            if is_assigned(f, v).is_some() {
                let r = &mut roots[id];
                r.members.push(v);
                r.lifetime = Some(match r.lifetime {
                    Some(x) => x.union(&lt),
                    None => lt,
                });
            }
        }
    }

    // The whole-root MemRef as the program writes it: the window of the
    // first owning (non-view) member when it covers the root, so moved
    // tiles print the representative's MemRef exactly (`0` or
    // `pl.const(0, pl.INT64)`).
    for (_, r) in roots.iter_mut() {
        let owner = r.members.iter().find_map(|&m| {
            if defined_by_view(f, m) {
                return None;
            }
            let mr = f.vars[m].ty.as_ref().and_then(Type::memref)?;
            (mr.const_offset() == Some(0)
                && mr.size == Some(r.size)
                && mr.slots.is_none()
                && mr.slot_index.is_none())
            .then(|| mr.clone())
        });
        if let Some(mr) = owner {
            r.canonical = mr;
        }
    }

    AllocationLifetimes {
        order,
        vars,
        roots,
        root_of,
    }
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
        if let Some(Type::Tile(t)) = &d.ty {
            if let Some(MemBase::Var(r)) = t.memref.as_ref().map(|m| &m.base) {
                out.entry(*r).or_default().push(v);
            }
        }
    }
    out
}
