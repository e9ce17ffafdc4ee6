//! Lifetime analysis: program order, per-variable lifetimes and the
//! allocation roots with their lifetime intervals (PyPTO's
//! `LifetimeAnalyzer` and `AnalyzeAllocationLifetimes`).
//!
//! This module is also the lifetime front end of the DSA_RP planner, which
//! needs the same facts as MemoryReuse: [`analyze`] gives every allocation
//! root its byte size, memory space and closed lifetime `[def, last]`, and
//! [`Lifetime::half_open`] converts it to DSA-RP's half-open interval.
//!
//! # Program order
//!
//! Every statement of the function, nested blocks included, gets the next
//! index in pre-order (a `for`/`if` before the statements of its blocks;
//! allocations, yields and returns count like any statement). Loop inits,
//! loop bounds and `if` conditions are read at the index of their `for`/`if`.
//! A loop spans `[index of the for, index of the last statement of its body]`.
//!
//! # Variable lifetimes
//!
//! Only variables defined by an assignment have a lifetime: `def` is the
//! index of the assignment, `last` the greatest index at which it is read
//! (`def` when never read). Control-flow values have no lifetime of their
//! own; their reads are charged to the values that carry their storage:
//!
//! - a read of a loop iter arg or of a loop result counts as a read of the
//!   loop's init value;
//! - a read of an `if` result (a phi) counts as a read of the value each
//!   branch yields (its "phi family");
//!
//! recursively, so a phi of a phi or an iter arg initialised by a phi ends
//! at the assignments that produced the bytes.
//!
//! Loop-aware extension: a read inside a loop of a value defined before that
//! loop keeps the value alive until the end of the outermost such loop (the
//! next iteration reads it again).
//!
//! # Allocation roots
//!
//! A root is a storage allocation: the variable of a `pl.tile.alloc`
//! statement, or a string-named root (`pl.MemRef("mem_vec_0", ...)`) when the
//! program carries no alloc statements. Its members are the assignment-
//! defined tile variables whose MemRef names it (views, in-place results and
//! bare aliases included); its lifetime is the union of its members'
//! lifetimes. DDR roots are not planned and are left out.

use std::collections::HashMap;

use crate::ir::{
    Block, EntityRef, Expr, ForStmt, Function, MemBase, MemRef, PrimaryMap, SecondaryMap, StmtId,
    StmtKind, Type, VarDef, VarId,
};
use tilemem_soc::MemSpace;

crate::ir::entity::entity!(
    /// An allocation root of one function (index into [`AllocationLifetimes::roots`]).
    RootId,
    "r"
);

/// A closed lifetime `[def, last]` in program-order indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// Index of the defining statement.
    pub def: u32,
    /// Greatest index at which the value (or its storage) is read.
    pub last: u32,
}

impl Lifetime {
    /// Whether two lifetimes interfere. Touching is not interference: the
    /// statement that reads a value for the last time may define the value
    /// that takes over its bytes (inputs are read before the output is
    /// written), so `a.last <= b.def` or `b.last <= a.def` means disjoint.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        !(self.last <= other.def || other.last <= self.def)
    }

    /// The union of two lifetimes.
    pub fn union(&self, other: &Lifetime) -> Lifetime {
        Lifetime {
            def: self.def.min(other.def),
            last: self.last.max(other.last),
        }
    }

    /// The half-open interval used by the DSA-RP problem:
    /// `[2*def + 1, max(2*def + 2, 2*last + 1))`. Two such intervals
    /// intersect exactly when [`overlaps`](Self::overlaps) holds.
    pub fn half_open(&self) -> (u64, u64) {
        let d = u64::from(self.def);
        let l = u64::from(self.last);
        (2 * d + 1, (2 * d + 2).max(2 * l + 1)) // u32 indices: no overflow in u64
    }
}

/// The extent of one loop in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopSpan {
    /// The `for` statement.
    pub stmt: StmtId,
    /// Its index (where inits and bounds are read).
    pub start: u32,
    /// Index of the last statement of its body (nested blocks included).
    pub end: u32,
}

/// Program-order indices and loop nesting of one function.
#[derive(Clone, Debug, Default)]
pub struct ProgramOrder {
    /// Index of every statement reachable from the body (`u32::MAX` for
    /// statements no block contains).
    pub index: SecondaryMap<StmtId, u32>,
    /// Loops, outer before inner.
    pub loops: Vec<LoopSpan>,
    /// Innermost loop (into `loops`) enclosing each statement; `None` at top level.
    pub enclosing_loop: SecondaryMap<StmtId, Option<u32>>,
    /// Parent loop of each loop (into `loops`).
    pub loop_parent: Vec<Option<u32>>,
    /// Number of indices handed out.
    pub len: u32,
}

impl ProgramOrder {
    /// Numbers the statements of `f` in pre-order.
    pub fn build(f: &Function) -> ProgramOrder {
        let mut o = ProgramOrder {
            index: SecondaryMap::with_default(u32::MAX),
            ..ProgramOrder::default()
        };
        o.number_block(f, Block::Body, None);
        o
    }

    fn number_block(&mut self, f: &Function, b: Block, lp: Option<u32>) {
        for &s in f.block(b) {
            let i = self.len;
            self.len += 1;
            self.index[s] = i;
            self.enclosing_loop[s] = lp;
            match &f.stmts[s].kind {
                StmtKind::For(_) => {
                    let id = u32::try_from(self.loops.len()).unwrap_or(u32::MAX);
                    self.loops.push(LoopSpan {
                        stmt: s,
                        start: i,
                        end: i,
                    });
                    self.loop_parent.push(lp);
                    self.number_block(f, Block::Loop(s), Some(id));
                    self.loops[id as usize].end = self.len - 1;
                }
                StmtKind::If(_) | StmtKind::With(_) => {
                    for child in f.child_blocks(s) {
                        self.number_block(f, child, lp);
                    }
                }
                _ => {}
            }
        }
    }

    /// The index at which a read by statement `s` of a value defined at
    /// `def` ends: the end of the outermost loop that encloses `s` but
    /// started after `def`, else the index of `s` itself.
    pub fn extended_read(&self, s: StmtId, def: u32) -> u32 {
        let mut at = self.index[s];
        let mut lp = self.enclosing_loop[s];
        while let Some(l) = lp {
            let span = self.loops[l as usize];
            if span.start > def {
                at = at.max(span.end);
            }
            lp = self.loop_parent[l as usize];
        }
        at
    }

    /// Whether statement `s` is inside any loop.
    pub fn in_loop(&self, s: StmtId) -> bool {
        self.enclosing_loop[s].is_some()
    }
}

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

/// Converts the model's memory space to the target crate's (`None` for
/// spaces the targets do not know).
pub fn target_space(s: &crate::ir::MemSpace) -> Option<MemSpace> {
    MemSpace::from_name(s.name())
}

/// The tile MemRef and space of variable `v`, when it has both.
pub fn tile_storage(f: &Function, v: VarId) -> Option<(&MemRef, MemSpace)> {
    match f.vars[v].ty.as_ref()? {
        Type::Tile(t) => Some((t.memref.as_ref()?, target_space(t.space.as_ref()?)?)),
        _ => None,
    }
}

/// The variables whose storage a control-flow value carries: the init value
/// of an iter arg or loop result, the yielded values of an `if` result.
/// Empty for assignment-defined variables, parameters and loop variables.
pub fn carried_from(f: &Function, v: VarId) -> Vec<VarId> {
    match f.vars[v].def {
        VarDef::IterArg(s) => match &f.stmts[s].kind {
            StmtKind::For(l) => init_var_of(l, &l.iter_args, v),
            _ => Vec::new(),
        },
        VarDef::Stmt(s) => match &f.stmts[s].kind {
            StmtKind::For(l) => init_var_of(l, &l.results, v),
            StmtKind::If(i) => {
                let Some(k) = i.results.iter().position(|&a| a == v) else {
                    return Vec::new();
                };
                let mut out = Vec::new();
                for b in f.child_blocks(s) {
                    if let Some(y) = yielded(f, b).and_then(|vals| vals.get(k)) {
                        out.extend(y.as_var());
                    }
                }
                out
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The init value of loop `l` at the position `v` has in `carries` (its
/// iter args or its results, which line up with the init values); empty
/// when `v` is not there or the init value is not a variable.
fn init_var_of(l: &ForStmt, carries: &[VarId], v: VarId) -> Vec<VarId> {
    let Some(k) = carries.iter().position(|&a| a == v) else {
        return Vec::new();
    };
    l.init_values()
        .get(k)
        .and_then(Expr::as_var)
        .into_iter()
        .collect()
}

/// The values yielded by the final `pl.yield_` of block `b`.
pub fn yielded(f: &Function, b: Block) -> Option<&[Expr]> {
    let i = f.yield_index(b)?;
    match &f.stmts[f.block(b)[i]].kind {
        StmtKind::Yield(v) => Some(v),
        _ => None,
    }
}

/// Whether `v` is defined by an assignment statement.
pub fn is_assigned(f: &Function, v: VarId) -> Option<StmtId> {
    match f.vars[v].def {
        VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::Assign { .. }) => Some(s),
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
    for &(_, s) in &walk {
        let mut used = Vec::new();
        f.stmts[s].for_each_use(&mut |v| used.push(v));
        for v in used {
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
    let mut by_var: HashMap<VarId, RootId> = HashMap::new();
    let mut by_name: HashMap<Box<str>, RootId> = HashMap::new();
    for &(_, s) in &walk {
        if let Some(a) = f.alloc_at(s) {
            let Some(space) = target_space(&a.space) else {
                continue;
            };
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
    let mut ordered_vars: Vec<VarId> = f.vars.keys().collect();
    // Program order of definition for member lists (unassigned vars last).
    ordered_vars.sort_by_key(|&v| (vars[v].map(|l| l.def).unwrap_or(u32::MAX), v.index()));
    for v in ordered_vars {
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
            if super::packing::defined_by_view(f, m) {
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
