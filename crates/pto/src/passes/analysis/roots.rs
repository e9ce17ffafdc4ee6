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
//! assignments that produced the bytes. Reads are extended over loops by
//! the loop-end rule every planner shares
//! ([`Loops::read_end`](super::order::Loops::read_end)), to one index past
//! the loop's end ([`ReadEnd::last`](super::order::ReadEnd::last)), as the
//! next iteration reads the value again after the loop's last statement
//! wrote.
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

use std::sync::Arc;

use super::order::{carried_from, is_assigned, number, Lifetime, Step};
use super::walk::stmts;
use crate::ir::{
    EntityRef, Expr, Function, MemBase, MemRef, PrimaryMap, StmtId, StmtKind, Type, VarId,
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
/// kernel; 40 bytes): the base is a variable index or an index into the
/// few string names ([`AllocationLifetimes::base`]), the whole-root MemRef
/// is rebuilt on demand ([`AllocationLifetimes::canonical`]), the member
/// lists live in one shared table ([`AllocationLifetimes::members`], each
/// root storing where its list starts) and the space is an index into the
/// function's few spaces ([`AllocationLifetimes::space`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    /// Byte size of the allocation.
    pub size: u64,
    /// The storage root: a variable index, or [`NAMED`] plus an index into
    /// `AllocationLifetimes::names`.
    base: u32,
    /// The variable whose MemRef names the whole root as the program
    /// writes it (`NO_VAR`: `pl.MemRef(base, 0, size)`).
    canonical_var: u32,
    /// Where the root's members start in `AllocationLifetimes::member_list`
    /// (they end where the next root's start).
    members: u32,
    /// Union of the members' lifetimes (`def == NO_DEF`: no member).
    def: u32,
    last: u32,
    /// Memory space: `AllocationLifetimes::spaces[space]`.
    space: u8,
    /// `pinned=True` (an author-declared allocation).
    pub pinned: bool,
    /// Some variable's MemRef names the root (a member, or a value without
    /// a lifetime of its own: an iter arg, a control-flow result, a free
    /// variable). An unreferenced root holds nothing: planners drop it.
    pub referenced: bool,
}

impl Root {
    /// Union of the members' lifetimes (`None` when it has no member).
    pub fn lifetime(&self) -> Option<Lifetime> {
        (self.def != NO_DEF).then_some(Lifetime {
            def: self.def,
            last: self.last,
        })
    }

    fn join(&mut self, l: Lifetime) {
        if self.def == NO_DEF {
            (self.def, self.last) = (l.def, l.last);
        } else {
            self.def = self.def.min(l.def);
            self.last = self.last.max(l.last);
        }
    }
}

/// What [`analyze`] computes for one function.
#[derive(Clone, Debug)]
pub struct AllocationLifetimes {
    /// Allocation roots (non-DDR), in order of first appearance.
    pub roots: PrimaryMap<RootId, Root>,
    /// The distinct spaces of the roots (see [`space`](Self::space)).
    spaces: Vec<MemSpace>,
    /// The string names of string-named roots (see [`base`](Self::base)).
    names: Vec<Arc<str>>,
    /// Program-order index of the assignment defining each variable
    /// (`NO_DEF`: none), 4 bytes a variable, read through
    /// [`def`](Self::def).
    def: Vec<u32>,
    /// The root each tile variable's MemRef names (iter args and
    /// control-flow results included), `NO_ROOT` for none: 4 bytes a
    /// variable, read through [`root_of`](Self::root_of).
    root_of: Vec<u32>,
    /// Every root's members, root after root (one table instead of a
    /// vector per root).
    member_list: Vec<VarId>,
    /// Lifetimes of the members of declared (`pinned`) roots, the only
    /// variable lifetimes a check needs besides the roots' own
    /// ([`pinned_member_lifetime`](Self::pinned_member_lifetime)).
    pinned_lives: HashMap<VarId, Lifetime>,
}

impl AllocationLifetimes {
    /// Assignment-defined tile variables stored in root `r`, in order of
    /// definition (program-order index, then variable id): the first is
    /// the first-defined member.
    pub fn members(&self, r: RootId) -> &[VarId] {
        let start = self.roots[r].members as usize;
        let end = self
            .roots
            .get(RootId::new(r.index() + 1))
            .map_or(self.member_list.len(), |n| n.members as usize);
        &self.member_list[start..end]
    }

    /// The storage root of `r` as it appears in MemRefs.
    pub fn base(&self, r: RootId) -> MemBase {
        let b = self.roots[r].base;
        if b & NAMED != 0 {
            MemBase::Named(self.names[(b & !NAMED) as usize].clone())
        } else {
            MemBase::Var(VarId::new(b as usize))
        }
    }

    /// The `pl.tile.alloc` statement of `r`, when it has one: the
    /// definition of its allocation variable (kept out of [`Root`], which
    /// only diagnostics ask for it).
    pub fn alloc_stmt(&self, f: &Function, r: RootId) -> Option<StmtId> {
        match self.base(r) {
            MemBase::Var(v) => match f.vars[v].def {
                crate::ir::VarDef::Stmt(s) if f.alloc_at(s).is_some() => Some(s),
                _ => None,
            },
            MemBase::Named(_) => None,
        }
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
            .unwrap_or_else(|| MemRef::new(self.base(r), 0, root.size))
    }

    /// The root `v`'s MemRef names (iter args and control-flow results
    /// included), when it is an on-chip root.
    pub fn root_of(&self, v: VarId) -> Option<RootId> {
        let r = *self.root_of.get(v.index())?;
        (r != NO_ROOT).then(|| RootId::new(r as usize))
    }

    /// The program-order index of the assignment defining `v` (the last
    /// one, should there be several), when one does.
    pub fn def(&self, v: VarId) -> Option<u32> {
        let d = *self.def.get(v.index())?;
        (d != NO_DEF).then_some(d)
    }

    /// The lifetime of `v` when it is a member of a declared (`pinned`)
    /// root; `None` for every other variable.
    pub fn pinned_member_lifetime(&self, v: VarId) -> Option<Lifetime> {
        self.pinned_lives.get(&v).copied()
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

    /// The roots that may hold `v`'s bytes: its own, and for a value
    /// without a definition of its own (an iter arg, a loop or `if`
    /// result) those of the values it carries, through phis of phis (an
    /// `if` result's branch values stay where they are until the yield
    /// fix-up moves them onto one window).
    pub fn carrying_roots(&self, f: &Function, v: VarId) -> Vec<RootId> {
        let mut out = Vec::new();
        let mut stack = vec![(v, 0u32)];
        let mut seen: Vec<VarId> = Vec::new();
        while let Some((w, depth)) = stack.pop() {
            if seen.contains(&w) {
                continue;
            }
            seen.push(w);
            if let Some(r) = self.root_of(w) {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
            if depth < 64 && is_assigned(f, w).is_none() {
                stack.extend(carried_from(f, w).into_iter().map(|n| (n, depth + 1)));
            }
        }
        out
    }

    /// Frees the per-variable tables (each variable's definition and
    /// root) once the caller is done with them: MemoryReuse after
    /// collecting its constraints, as packing and rewriting read only the
    /// roots and their members. Afterwards [`def`](Self::def),
    /// [`root_of`](Self::root_of) and [`storage_root`](Self::storage_root)
    /// find nothing.
    pub fn release_var_tables(&mut self) {
        self.def = Vec::new();
        self.root_of = Vec::new();
    }

    /// The memory space of root `r`.
    pub fn space(&self, r: RootId) -> MemSpace {
        self.spaces[self.roots[r].space as usize]
    }

    /// The roots of one memory space, in root order.
    pub fn roots_in(&self, space: MemSpace) -> Vec<RootId> {
        let of_space = || {
            self.roots
                .iter()
                .filter(move |(_, r)| self.spaces[r.space as usize] == space)
                .map(|(id, _)| id)
        };
        // Counted first: exactly as long as it needs to be.
        let mut out = Vec::with_capacity(of_space().count());
        out.extend(of_space());
        out
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
///
/// Holds no table per statement: two walks number the statements
/// ([`number`], the numbering of
/// [`ProgramOrder`](super::order::ProgramOrder)), the first recording
/// each variable's definition and the loop spans, the second charging
/// every read to the root of the value that carries its bytes. Per
/// variable it keeps a definition index and a root (8 bytes), and one
/// more table of 4 bytes while the roots are found.
pub fn analyze(f: &Function) -> AllocationLifetimes {
    let nv = f.vars.len();
    // Definitions and loop spans.
    let mut def: Vec<u32> = vec![NO_DEF; nv];
    let loops = number(f, &mut |step| {
        if let Step::Enter {
            s,
            index,
            numbered: true,
            ..
        } = step
        {
            for &t in f.stmts[s].targets() {
                def[t.index()] = index;
            }
        }
    });

    // Roots: allocation statements first (in body order), then string-named
    // roots in order of first use.
    let mut roots: PrimaryMap<RootId, Root> = PrimaryMap::new();
    let mut spaces: Vec<MemSpace> = Vec::new();
    let mut names: Vec<Arc<str>> = Vec::new();
    // Room for every allocation at once (no doubling slack).
    roots.reserve_exact(stmts(f).filter(|&(_, s)| f.alloc_at(s).is_some()).count());
    // Root of each allocation variable (`NO_ROOT`: none), 4 bytes a
    // variable, until every tile knows its root.
    let mut by_var: Vec<u32> = vec![NO_ROOT; nv];
    for (_, s) in stmts(f) {
        if let Some(a) = f.alloc_at(s) {
            let space = a.space;
            if !space.is_on_chip() || by_var[a.var.index()] != NO_ROOT {
                continue;
            }
            let id = roots.push(Root {
                size: a.size,
                base: a.var.index() as u32,
                canonical_var: NO_VAR,
                members: 0,
                def: NO_DEF,
                last: 0,
                space: space_index(&mut spaces, space),
                pinned: a.pinned,
                referenced: false,
            });
            by_var[a.var.index()] = id.index() as u32;
        }
    }

    // Each tile's root, in order of definition (program-order index, then
    // variable id; variables without a definition last): string-named
    // roots are numbered in that order. Member counts go into
    // `Root::members` for now.
    let mut root_of: Vec<u32> = vec![NO_ROOT; nv];
    let mut by_name: HashMap<Arc<str>, RootId> = HashMap::default();
    let mut pinned_lives: HashMap<VarId, Lifetime> = HashMap::default();
    in_def_order(f, &def, &mut |v| {
        let Some((m, space)) = tile_storage(f, v) else {
            return;
        };
        if !space.is_on_chip() {
            return;
        }
        let id = match m.base() {
            MemBase::Var(b) => match by_var[b.index()] {
                NO_ROOT => return,
                id => RootId::new(id as usize),
            },
            MemBase::Named(n) => match by_name.get(&n) {
                Some(&id) => id,
                None => {
                    let id = roots.push(Root {
                        size: m.size().unwrap_or(0),
                        base: NAMED | names.len() as u32,
                        canonical_var: v.index() as u32,
                        members: 0,
                        def: NO_DEF,
                        last: 0,
                        space: space_index(&mut spaces, space),
                        pinned: false,
                        referenced: false,
                    });
                    names.push(n.clone());
                    by_name.insert(n, id);
                    id
                }
            },
        };
        root_of[v.index()] = id.index() as u32;
        roots[id].referenced = true;
        let d = def[v.index()];
        if d != NO_DEF && is_assigned(f, v).is_some() {
            let r = &mut roots[id];
            let l = Lifetime { def: d, last: d };
            r.join(l);
            r.members += 1;
            if r.pinned {
                pinned_lives.insert(v, l);
            }
        }
    });
    drop(by_var);
    drop(by_name);
    let mut next = 0u32;
    for (_, r) in roots.iter_mut() {
        let n = r.members;
        r.members = next;
        next += n;
    }
    let mut member_list = vec![VarId::new(0); next as usize];
    // Fill cursor of each root: its start plus the members placed so far,
    // kept in the root until every list is full.
    in_def_order(f, &def, &mut |v| {
        let r = root_of[v.index()];
        if r == NO_ROOT || def[v.index()] == NO_DEF || is_assigned(f, v).is_none() {
            return;
        }
        let r = &mut roots[RootId::new(r as usize)];
        member_list[r.members as usize] = v;
        r.members += 1;
    });
    // Back to the starts: each cursor now stands where the list ends,
    // which is where the next root's list starts.
    let mut start = 0u32;
    for (_, r) in roots.iter_mut() {
        (start, r.members) = (r.members, start);
    }

    // Uses, charged to the values that carry the storage: a read extends
    // the root of every member it reaches.
    let mut stack = Vec::new();
    let mut used = Vec::new();
    number(f, &mut |step| {
        let Step::Enter {
            s,
            index: i,
            lp,
            numbered: true,
        } = step
        else {
            return;
        };
        used.clear();
        f.stmts[s].for_each_use(&mut |v| used.push(v));
        for &v in &used {
            stack.clear();
            stack.push((v, 0u32));
            while let Some((w, depth)) = stack.pop() {
                let d = def[w.index()];
                if d != NO_DEF {
                    let r = root_of[w.index()];
                    if r == NO_ROOT || is_assigned(f, w).is_none() {
                        continue;
                    }
                    let at = loops.read_end(lp, i, Some(d)).last();
                    let root = &mut roots[RootId::new(r as usize)];
                    root.last = root.last.max(at);
                    if root.pinned {
                        if let Some(l) = pinned_lives.get_mut(&w) {
                            l.last = l.last.max(at);
                        }
                    }
                } else if depth < 64 {
                    for n in carried_from(f, w) {
                        stack.push((n, depth + 1));
                    }
                }
            }
        }
    });
    drop(loops);

    // The whole-root MemRef as the program writes it: the window of the
    // first owning (non-view) member when it covers the root, so moved
    // tiles print the representative's MemRef exactly (`0` or
    // `pl.const(0, pl.INT64)`).
    let mut lt = AllocationLifetimes {
        roots,
        spaces,
        names,
        def,
        root_of,
        member_list,
        pinned_lives,
    };
    for id in lt.roots.keys() {
        let size = lt.roots[id].size;
        let owner = lt.members(id).iter().copied().find(|&m| {
            !defined_by_view(f, m)
                && f.vars[m]
                    .ty
                    .as_ref()
                    .and_then(Type::memref)
                    .is_some_and(|mr| {
                        mr.const_offset() == Some(0)
                            && mr.size() == Some(size)
                            && mr.slots().is_none()
                            && mr.slot_index().is_none()
                    })
        });
        if let Some(owner) = owner {
            lt.roots[id].canonical_var = owner.index() as u32;
        }
    }
    lt
}

/// Calls `visit` on every variable of `f` in order of definition
/// (program-order index of its defining assignment, then variable id;
/// variables without one last, by id), without a sorted table of them.
fn in_def_order(f: &Function, def: &[u32], visit: &mut impl FnMut(VarId)) {
    let mut here: Vec<VarId> = Vec::new();
    number(f, &mut |step| {
        let Step::Enter {
            s,
            index: i,
            numbered: true,
            ..
        } = step
        else {
            return;
        };
        here.clear();
        here.extend(
            f.stmts[s]
                .targets()
                .iter()
                .copied()
                .filter(|t| def[t.index()] == i),
        );
        here.sort_unstable();
        here.dedup();
        for &v in &here {
            visit(v);
        }
    });
    for (i, &d) in def.iter().enumerate() {
        if d == NO_DEF {
            visit(VarId::new(i));
        }
    }
}

/// The index of `space` in `spaces`, added when new.
fn space_index(spaces: &mut Vec<MemSpace>, space: MemSpace) -> u8 {
    let i = match spaces.iter().position(|&s| s == space) {
        Some(i) => i,
        None => {
            spaces.push(space);
            spaces.len() - 1
        }
    };
    // A function has a handful of spaces.
    u8::try_from(i).unwrap_or(u8::MAX)
}

/// No variable (a root without a canonical member).
const NO_VAR: u32 = u32::MAX;

/// No root (in the allocation-variable table of [`analyze`]).
const NO_ROOT: u32 = u32::MAX;

/// No definition (a variable no assignment defines; a root without a
/// member).
const NO_DEF: u32 = u32::MAX;

/// Marks [`Root::base`] as an index into the string names.
const NAMED: u32 = 1 << 31;

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
