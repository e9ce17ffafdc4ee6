//! Small storage helpers shared by the fix-up stages: the current MemRef of
//! a value (following loop carries and phis when the value has no type of
//! its own), physical-window comparison and overlap, and the variables
//! derived from a value by views and bare aliases.

use rustc_hash::FxHashSet as HashSet;

use crate::ir::{
    Block, EntityRef, Expr, Function, MemBase, MemRef, MemRefParts, StmtId, StmtKind, Type, VarId,
};
use crate::ops;
use crate::passes::analysis::order::carried_from;
use tilemem_soc::MemSpace;

/// The MemRef holding `v`'s bytes now: its own, else the one of the value
/// its carry chain starts from.
pub fn current_memref(f: &Function, v: VarId) -> Option<MemRef> {
    let mut cur = v;
    for _ in 0..64 {
        if let Some(m) = f.vars[cur].ty.as_ref().and_then(Type::memref) {
            return Some(m.clone());
        }
        cur = *carried_from(f, cur).first()?;
    }
    None
}

/// The tile type describing `v`'s value (its own, else its carry source's).
pub fn current_tile_type(f: &Function, v: VarId) -> Option<Type> {
    let mut cur = v;
    for _ in 0..64 {
        if let Some(t @ Type::Tile(_, _)) = f.vars[cur].ty.as_ref() {
            return Some(t.clone());
        }
        cur = *carried_from(f, cur).first()?;
    }
    None
}

/// The memory space of `v`'s tile value, when it is a
/// [known](MemSpace::is_known) one.
pub fn current_space(f: &Function, v: VarId) -> Option<MemSpace> {
    match current_tile_type(f, v)? {
        Type::Tile(t, _) => t.space.filter(|s| s.is_known()),
        _ => None,
    }
}

/// Whether two MemRefs name the same physical window (base, offset by
/// value, size, slots).
pub fn same_window(a: &MemRef, b: &MemRef) -> bool {
    a.base() == b.base()
        && offsets_equal(a, b)
        && a.size() == b.size()
        && a.slots() == b.slots()
        && a.slot_index() == b.slot_index()
}

/// Whether `a` starts at `b`'s start and ends inside it (same base, same
/// slots, constant offsets).
pub fn starts_within(a: &MemRef, b: &MemRef) -> bool {
    a.base() == b.base()
        && a.slots() == b.slots()
        && a.slot_index() == b.slot_index()
        && a.const_offset().is_some()
        && a.const_offset() == b.const_offset()
        && matches!((a.size(), b.size()), (Some(x), Some(y)) if x <= y)
}

fn offsets_equal(a: &MemRef, b: &MemRef) -> bool {
    match (a.const_offset(), b.const_offset()) {
        (Some(x), Some(y)) => x == y,
        _ => a.offset() == b.offset(),
    }
}

/// Whether two MemRefs may share a byte (same base and intersecting
/// windows; unknown offsets or sizes count as intersecting).
pub fn windows_overlap(a: &MemRef, b: &MemRef) -> bool {
    if a.base() != b.base() {
        return false;
    }
    match (a.const_offset(), a.size(), b.const_offset(), b.size()) {
        (Some(ao), Some(asz), Some(bo), Some(bsz)) => {
            let size = |s: u64| i64::try_from(s).unwrap_or(i64::MAX);
            let (ae, be) = (ao.saturating_add(size(asz)), bo.saturating_add(size(bsz)));
            ao < be && bo < ae
        }
        _ => true,
    }
}

/// Name of a base for messages.
pub fn base_name(f: &Function, b: &MemBase) -> String {
    match b {
        MemBase::Var(v) => f.vars[*v].name.to_string(),
        MemBase::Named(n) => n.to_string(),
    }
}

/// Statements of block `b` and every block nested in it, pre-order.
pub fn subtree(f: &Function, b: Block) -> Vec<StmtId> {
    let mut out = Vec::new();
    fn go(f: &Function, b: Block, out: &mut Vec<StmtId>) {
        for &s in f.block(b) {
            out.push(s);
            for c in f.child_blocks(s) {
                go(f, c, out);
            }
        }
    }
    go(f, b, &mut out);
    out
}

/// The variables derived from `v` by views and bare aliases among
/// `stmts` (which must be in program order), `v` included.
pub fn derived(f: &Function, v: VarId, stmts: &[StmtId]) -> HashSet<VarId> {
    let mut set = HashSet::default();
    set.insert(v);
    for &s in stmts {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            continue;
        };
        let src = match value {
            Expr::Var(x) => Some(*x),
            Expr::Call(c) if ops::lookup_or_default(c.op_name()).is_view() => {
                c.args.first().and_then(Expr::as_var)
            }
            _ => None,
        };
        if src.is_some_and(|x| set.contains(&x)) {
            set.extend(targets.iter().copied());
        }
    }
    set
}

/// Rebases `m` (a window of `old_src`) onto `new_src`, keeping its offset
/// relative to the source and its own size.
pub fn rebase(m: &MemRef, old_src: &MemRef, new_src: &MemRef) -> MemRef {
    let offset = match (
        m.const_offset(),
        old_src.const_offset(),
        new_src.const_offset(),
    ) {
        (Some(x), Some(o), Some(n)) => Some(Expr::Int(n.saturating_add(x.saturating_sub(o)))),
        _ => new_src.offset(),
    };
    MemRef::from(MemRefParts {
        base: new_src.base(),
        offset,
        size: m.size(),
        slots: new_src.slots(),
        slot_index: new_src.slot_index().cloned(),
    })
}

/// Sets the MemRef of `v` (no-op for untyped variables).
pub fn set_memref(f: &mut Function, v: VarId, m: MemRef) {
    if let Some(slot) = f.vars[v].ty.as_mut().and_then(Type::memref_mut) {
        *slot = Some(m);
    }
}

/// Moves `v` and the values derived from it (later in `scope`) onto
/// `target`: `v` takes `target` whole, views are rebased.
pub fn retarget(f: &mut Function, v: VarId, target: &MemRef, scope: &[StmtId]) {
    let Some(old) = current_memref(f, v) else {
        return;
    };
    let d = derived(f, v, scope);
    set_memref(f, v, target.clone());
    for &s in scope {
        let targets = match &f.stmts[s].kind {
            StmtKind::Assign { targets, .. } => targets.clone(),
            _ => continue,
        };
        for t in targets {
            if t == v || !d.contains(&t) {
                continue;
            }
            let Some(m) = f.vars[t].ty.as_ref().and_then(Type::memref).cloned() else {
                continue;
            };
            let is_alias = matches!(
                &f.stmts[s].kind,
                StmtKind::Assign {
                    value: Expr::Var(_),
                    ..
                }
            );
            let new = if is_alias && same_window(&m, &old) {
                target.clone()
            } else {
                rebase(&m, &old, target)
            };
            set_memref(f, t, new);
        }
    }
}

/// The variable whose MemRef object `v` holds (PyPTO's passes share MemRef
/// objects by pointer; the text shows only equal MemRefs): a variable that
/// takes its MemRef from another holds that one's object while the two
/// MemRefs are equal — a bare alias its source's, an iter arg its init
/// value's, a loop result its iter arg's, an `if` result the value its
/// then branch yields (the yield fix-up's canonical object), and, as
/// InitMemRef binds them, a whole-source view (`tile.reshape`) or an
/// output bound to an input its argument's, unless a pass gave it an
/// object of its own ([`crate::ir::ObjectSharing::own_memrefs`]); any other
/// variable its own. `apart(x, y)` stops the walk where `x` and `y` are
/// known to hold different objects.
pub fn memref_owner(f: &Function, v: VarId, apart: impl Fn(VarId, VarId) -> bool) -> VarId {
    let memref = |x: VarId| f.vars[x].ty.as_ref().and_then(Type::memref);
    let Some(m) = memref(v) else { return v };
    let mut x = v;
    // Each step goes to an earlier or enclosing definition: a malformed
    // cycle ends at the bound.
    for _ in 0..=f.vars.len() {
        match memref_source(f, x) {
            Some(y) if memref(y) == Some(m) && !apart(x, y) => x = y,
            _ => return x,
        }
    }
    x
}

/// The variable `x` takes its MemRef object from, if any, before the
/// checks of [`memref_owner`] (equal MemRefs, not known apart): one step
/// of its walk.
fn memref_source(f: &Function, x: VarId) -> Option<VarId> {
    match f.vars[x].def {
        crate::ir::VarDef::IterArg(s) => match &f.stmts[s].kind {
            StmtKind::For(l) => l
                .iter_args
                .iter()
                .position(|&a| a == x)
                .and_then(|i| l.init_values().get(i).and_then(Expr::as_var)),
            _ => None,
        },
        crate::ir::VarDef::Stmt(s) => match &f.stmts[s].kind {
            StmtKind::Assign {
                targets,
                value: Expr::Var(y),
            } if targets[..] == [x] => Some(*y),
            StmtKind::Assign {
                targets,
                value: Expr::Call(c),
            } if targets[..] == [x] && !f.sharing.own_memrefs.contains(&x) => {
                let info = ops::lookup_or_default(c.op_name());
                let arg = match info.view {
                    ops::ViewRule::WholeSource => Some(0),
                    ops::ViewRule::NotView => info.output_binds_input(),
                    ops::ViewRule::Window { .. } => None,
                };
                arg.and_then(|i| c.args.get(i)).and_then(Expr::as_var)
            }
            StmtKind::For(l) => l
                .results
                .iter()
                .position(|&r| r == x)
                .and_then(|i| l.iter_args.get(i).copied()),
            StmtKind::If(c) => c.results.iter().position(|&r| r == x).and_then(|i| {
                let then = f.block(Block::Then(s));
                let y = then.get(f.yield_index(Block::Then(s))?)?;
                match &f.stmts[*y].kind {
                    StmtKind::Yield(vals) => vals.get(i)?.as_var(),
                    _ => None,
                }
            }),
            _ => None,
        },
        _ => None,
    }
}

/// [`memref_owner`] of many variables of one function, each step of the
/// walks taken once: a walk stops at the first variable whose owner is
/// known. Asking for every variable of a chain of `n` views (`r1 =
/// reshape(r0)`, `r2 = reshape(r1)`, ...) costs `n` steps, where one
/// [`memref_owner`] call per variable costs `n²/2`. `apart` must give the
/// same answer for the same pair on every call (the owners are kept), and
/// the function must not change between calls.
pub struct MemrefOwners {
    /// The owner of each variable asked about or met on a walk, by index.
    owner: Vec<Option<VarId>>,
    /// Steps taken so far (a work count, for tests).
    steps: usize,
}

impl MemrefOwners {
    /// An empty table for `f`.
    pub fn new(f: &Function) -> MemrefOwners {
        MemrefOwners {
            owner: vec![None; f.vars.len()],
            steps: 0,
        }
    }

    /// The steps of the walks taken so far: at most one per variable.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// `memref_owner(f, v, apart)`.
    pub fn get(&mut self, f: &Function, v: VarId, apart: impl Fn(VarId, VarId) -> bool) -> VarId {
        if self.owner.len() < f.vars.len() {
            self.owner.resize(f.vars.len(), None);
        }
        if let Some(o) = self.owner[v.index()] {
            return o;
        }
        let memref = |x: VarId| f.vars[x].ty.as_ref().and_then(Type::memref);
        if memref(v).is_none() {
            self.owner[v.index()] = Some(v);
            return v;
        }
        // Every variable on the walk has `v`'s MemRef, so its owner is the
        // walk's end too; a malformed cycle ends at the bound, as in
        // `memref_owner`.
        let mut path = vec![v];
        let end = loop {
            let x = *path.last().expect("the walk starts at v");
            self.steps += 1;
            match memref_source(f, x) {
                Some(y) if memref(y) == memref(x) && !apart(x, y) => {
                    if let Some(o) = self.owner[y.index()] {
                        break o;
                    }
                    if path.len() > f.vars.len() {
                        break x;
                    }
                    path.push(y);
                }
                _ => break x,
            }
        };
        for x in path {
            self.owner[x.index()] = Some(end);
        }
        end
    }
}
