//! InitMemRef: gives every tile and tensor its storage.
//!
//! **Assumes** a program whose tiles carry no MemRef yet (author-declared
//! `pl.MemRef("name", slots=S)[k]` bindings excepted).
//!
//! **Guarantees**, per function:
//! - every tensor parameter, created tensor and call result in global memory
//!   (`pl.Tensor` or `pld.DistributedTensor`) gets a
//!   `pl.MemRef("mem_ddr_N", 0, BYTES)`; a `tile.store` result shares its
//!   output tensor's MemRef, a tensor view (`pl.tensor.view`, `slice`)
//!   its source's at the window's byte offset (sized 0 when the source's
//!   shape is dynamic); any other tensor value, a bare alias `a = b` or a
//!   tuple element `t[0]`, gets new storage;
//! - every tile produced by a statement in an on-chip space gets its own
//!   allocation root `mem_<space>_N` (`pl.tile.alloc`, hoisted to the top of
//!   the body) of `elements x element bits / 8` bytes, Acc rows padded to 16
//!   (32 for INT32 on A2/A3);
//! - views (`tile.slice`, `tile.reshape`, ...) share their source's root with
//!   a byte offset (`(row * cols + col) * elem bytes`) and the byte span of
//!   the window; in-place results (`matmul_acc`) and bare aliases share their
//!   source's MemRef; a loop result shares its iter arg's (the init
//!   value's) storage, an `if` result its then-branch yield's; pushing a
//!   loop carry's storage down the yielded chain is
//!   MaterializeSemanticAliases' job;
//! - pipe-popped values (`tpop`) and tiles in DDR get no storage;
//! - declared bindings become one `pinned=True` alloc per name of
//!   `slot size x slots` bytes.
//!
//! Like PyPTO, which reads the program text into SSA form before its passes
//! run, the pass also renames a variable that reuses an earlier name
//! (`out = pl.tile.store(t, [0, 0], out)` defines `out_1`) and drops blank
//! lines and the comments that lead an assignment (PyPTO rebuilds those
//! statements without their comments).
//!
//! N counts per function over every MemRef created (parameters first, then
//! program order; every tile or tensor result of a loop or `if`, typed or
//! printed untyped by a multi-value `pl.yield_`, takes a number after the
//! body), matching PyPTO's numbering. A function that already has allocations or
//! parameter MemRefs is left unchanged (idempotence).
//!
//! Errors: a tile that needs storage but has a dynamic shape; a declared
//! binding that mixes spaces, binds a view or in-place result, has
//! `slots=0`, a dynamic shape, or a constant slot index out of range.

use rustc_hash::FxHashMap as HashMap;

use tilemem_soc::Soc;

use crate::ir::{
    BinOp, Block, Call, DType, EntityRef, Expr, ForStmt, Function, IfStmt, MemBase, MemRef,
    MemRefParts, MemSpace, Pos, PrimaryMap, StmtId, StmtKind, TileType, Type, VarDef, VarId,
};
use crate::ops::{self, OpClass, ViewRule};

use super::context::{PassContext, PassError, PlannerMode};

/// Runs InitMemRef on every function of `program`.
pub fn run(program: &mut crate::ir::Program, ctx: &mut PassContext) -> Result<(), PassError> {
    for f in &mut program.functions {
        let note = discarded_storage(f);
        run_function(f, &ctx.soc, ctx.planner)?;
        if let Some(note) = note {
            ctx.warning(note);
        }
    }
    Ok(())
}

/// The warning for a function whose tiles carry MemRefs into allocations
/// InitMemRef will not read: its tensor parameters have no MemRef, so it
/// is initialised afresh and every tile gets new storage
/// ([`already_done`], [`clear_tile_storage`]). PyPTO's InitMemRef drops
/// them without a word; the output stays the same, the note only says so.
fn discarded_storage(f: &Function) -> Option<String> {
    if already_done(f) || f.allocs().is_empty() {
        return None;
    }
    let mut tiles = f.vars.iter().filter_map(|(_, d)| match &d.ty {
        Some(Type::Tile(_, Some(m))) => m.base_var().map(|b| (d, b)),
        _ => None,
    });
    let (first, base) = tiles.next()?;
    let count = 1 + tiles.count();
    let line = match first.def {
        VarDef::Stmt(s) => f.pos_of(s).line,
        _ => f.pos.line,
    };
    let tiles = if count == 1 {
        "1 tile".to_string()
    } else {
        format!("{count} tiles")
    };
    Some(format!(
        "line {line}: function '{}': its tensor parameters carry no MemRef, so InitMemRef gives \
         every tile new storage and the MemRefs of {tiles} (first '{}', in '{}') are not read, \
         as in PyPTO; give the tensor parameters their MemRefs to plan the tiles where those \
         MemRefs put them",
        f.name, first.name, f.vars[base].name
    ))
}

/// Whether InitMemRef already ran on `f` (allocations or parameter MemRefs).
///
/// Tensor parameters (plain or distributed) decide when there are any
/// (InitMemRef always gives them storage); otherwise existing allocations
/// or tile MemRefs do. A function whose tensor parameters have no MemRef is initialised afresh even if it
/// carries allocations: like PyPTO, its tiles get new roots and the old
/// `tile.alloc`s stay (renamed on a name clash) for MemoryReuse to drop.
pub(crate) fn already_done(f: &Function) -> bool {
    let tensors: Vec<&Type> = f
        .params
        .iter()
        .filter_map(|p| f.ty(p.var))
        .filter(|&t| ddr_tensor(Some(t)).is_some())
        .collect();
    if !tensors.is_empty() {
        return tensors
            .iter()
            .any(|&t| t.memref().is_some() || dist_memref(t).is_some());
    }
    !f.allocs().is_empty()
        || f.vars
            .values()
            .any(|d| matches!(&d.ty, Some(Type::Tile(_, Some(m))) if m.base_var().is_some()))
}

/// Forgets the storage of every tile rooted in an allocation variable
/// (declared `pl.MemRef("name")` bindings are kept).
fn clear_tile_storage(f: &mut Function) {
    let ids: Vec<VarId> = f.vars.keys().collect();
    for v in ids {
        if let Some(Type::Tile(_, m)) = f.vars[v].ty.as_mut() {
            if m.as_ref().is_some_and(|m| m.base_var().is_some()) {
                *m = None;
            }
        }
    }
}

/// What a value's storage is: a tile (on-chip) or a tensor in global memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stored {
    Tile,
    Tensor,
}

/// An allocation to hoist to the top of the body.
struct NewAlloc {
    var: VarId,
    space: MemSpace,
    size: u64,
    pinned: bool,
}

struct State<'a> {
    soc: &'a Soc,
    counter: u64,
    allocs: Vec<NewAlloc>,
    /// MemRefs of untyped carried values (iter args), keyed by variable.
    carried: HashMap<VarId, MemRef>,
    /// What untyped carried values (iter args, results of a multi-value
    /// `pl.yield_`, which print without a type) hold.
    kinds: HashMap<VarId, Stored>,
    /// Declared bindings: name -> variables bound to it, in program order.
    declared: Vec<(Box<str>, Vec<VarId>)>,
}

fn run_function(f: &mut Function, soc: &Soc, planner: PlannerMode) -> Result<(), PassError> {
    if already_done(f) {
        return Ok(());
    }
    let old_allocs: Vec<VarId> = f.allocs().iter().map(|a| a.var).collect();
    if !old_allocs.is_empty() {
        clear_tile_storage(f);
    }
    ssa_rename(f);
    strip_comments(f);
    // Room for the allocation variables and statements to come, once (a
    // doubling arena would leave up to half its slots unused for the rest
    // of the run); growing it now, before the pass's own tables exist, keeps
    // the copy of the old arena off the pass's peak.
    let new_roots = f.vars.keys().filter(|&v| may_get_root(f, v)).count();
    reserve_for(&mut f.vars, new_roots);
    reserve_for(&mut f.stmts, new_roots);
    let mut st = State {
        soc,
        counter: 0,
        allocs: Vec::new(),
        carried: HashMap::default(),
        kinds: HashMap::default(),
        declared: Vec::new(),
    };
    for i in 0..f.params.len() {
        let v = f.params[i].var;
        if let Some((shape, dtype)) = unset_ddr_tensor(f.ty(v)) {
            let m = st.ddr_memref(tensor_bytes(&shape, &dtype));
            set_memref(f, v, m);
        }
    }
    let body = f.body.clone();
    visit_block(f, &body, &mut st)?;
    resolve_declared(f, &mut st, planner)?;
    // Allocations go first, after leading `pl.func_attr(...)` statements.
    let first = f
        .body
        .iter()
        .take_while(|&&s| {
            f.stmts[s]
                .call()
                .is_some_and(|c| c.op_name() == "func_attr")
                && matches!(f.stmts[s].kind, StmtKind::Expr(_))
        })
        .count();
    let mut new_stmts = Vec::with_capacity(st.allocs.len());
    // Reserved above already (a no-op unless the bound was short).
    f.stmts.reserve_exact(st.allocs.len());
    for a in &st.allocs {
        let s = f.new_stmt(StmtKind::alloc(a.var, &a.space, a.size, a.pinned));
        f.vars[a.var].def = VarDef::Stmt(s);
        new_stmts.push(s);
    }
    // One splice keeps insertion linear in the body length.
    f.body.splice(first..first, new_stmts);
    // Old allocations whose names the new roots took get `_1`, `_2`, ...
    if !old_allocs.is_empty() {
        let mut taken: rustc_hash::FxHashSet<ecow::EcoString> =
            f.vars.values().map(|d| d.name.clone()).collect();
        let new_names: rustc_hash::FxHashSet<ecow::EcoString> = st
            .allocs
            .iter()
            .map(|a| f.vars[a.var].name.clone())
            .collect();
        for v in old_allocs {
            if !new_names.contains(&f.vars[v].name) {
                continue;
            }
            let base = f.vars[v].name.clone();
            let mut k = 1;
            let name = loop {
                let c = format!("{base}_{k}");
                if !taken.contains(c.as_str()) {
                    break c;
                }
                k += 1;
            };
            taken.insert(name.clone().into());
            f.vars[v].name = name.into();
        }
    }
    Ok(())
}

/// Makes room for `n` more entities in one step when there is not, with a
/// little headroom (1/32) for the few statements and variables later passes
/// add (loop-carry moves, scratch allocations), which would otherwise
/// double an arena left exactly full. Unused headroom is never touched.
fn reserve_for<K: EntityRef, V>(m: &mut PrimaryMap<K, V>, n: usize) {
    if m.capacity() - m.len() < n {
        m.reserve_exact(n + (m.len() + n) / 32);
    }
}

/// Whether InitMemRef may give `v` an allocation of its own (an upper bound
/// of [`tile_result`]'s and [`resolve_declared`]'s, cheap to count): an
/// on-chip tile without storage defined by a call that is neither a view
/// nor a pipe pop, or a tile bound to a declared name.
fn may_get_root(f: &Function, v: VarId) -> bool {
    match &f.vars[v].ty {
        Some(Type::Tile(t, None)) if t.space.is_some_and(|s| s != MemSpace::Ddr) => def_call(f, v)
            .is_some_and(|c| {
                let info = ops::lookup_or_default(c.op_name());
                info.class != OpClass::Tpop && !info.is_view()
            }),
        Some(Type::Tile(_, Some(m))) => m.base_name().is_some(),
        _ => false,
    }
}

/// Gives every variable that reuses an earlier name of the function a fresh
/// `NAME_k` name (PyPTO's SSA conversion of the source text).
fn ssa_rename(f: &mut Function) {
    let mut order: Vec<VarId> = f.params.iter().map(|p| p.var).collect();
    for (_, s) in f.walk() {
        match &f.stmts[s].kind {
            StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
                order.extend(f.stmts[s].targets().iter().copied())
            }
            StmtKind::For(l) => {
                order.extend(l.loop_var);
                order.extend(l.iter_args.iter().copied());
            }
            _ => {}
        }
        // Results are defined when the construct ends; order among
        // themselves is what matters for numbering.
        match &f.stmts[s].kind {
            StmtKind::For(l) => order.extend(l.results.iter().copied()),
            StmtKind::If(i) => order.extend(i.results.iter().copied()),
            _ => {}
        }
    }
    // Names are borrowed while deciding; renames are applied afterwards.
    let mut renames: Vec<(VarId, String)> = Vec::new();
    {
        let mut seen: HashMap<&str, u32> =
            HashMap::with_capacity_and_hasher(order.len(), Default::default());
        let mut done = vec![false; f.vars.len()];
        // Every name in use, built only when a rename is needed.
        let mut taken: Option<rustc_hash::FxHashSet<&str>> = None;
        let mut fresh: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
        for v in order {
            if std::mem::replace(&mut done[v.index()], true) {
                continue;
            }
            let name: &str = &f.vars[v].name;
            if name == "_" {
                continue;
            }
            let Some(k) = seen.get_mut(name) else {
                seen.insert(name, 0);
                continue;
            };
            let taken = taken.get_or_insert_with(|| f.vars.values().map(|d| &*d.name).collect());
            let new = loop {
                *k += 1;
                let candidate = format!("{name}_{k}");
                if !taken.contains(candidate.as_str()) && !fresh.contains(&candidate) {
                    break candidate;
                }
            };
            fresh.insert(new.clone());
            renames.push((v, new));
        }
    }
    for (v, name) in renames {
        f.vars[v].name = name.into();
    }
}

/// Drops blank lines, trailing comments, and the comment lines that lead
/// an assignment. PyPTO keeps a comment as a leading comment of the
/// statement after it, and InitMemRef rebuilds every assignment (its target
/// gets a new type) without it; the comments before a loop, an `if`, a
/// `return` or a call statement survive (every reference kernel shows so).
fn strip_comments(f: &mut Function) {
    let blocks: Vec<Block> = std::iter::once(Block::Body)
        .chain(f.walk().into_iter().flat_map(|(_, s)| f.child_blocks(s)))
        .collect();
    for b in blocks {
        let stmts = f.block(b);
        let mut keep: Vec<StmtId> = Vec::with_capacity(stmts.len());
        for (i, &s) in stmts.iter().enumerate() {
            let dropped = match f.stmts[s].kind {
                StmtKind::Blank => true,
                StmtKind::Comment(_) => {
                    // The statement this comment leads.
                    let led = stmts[i + 1..].iter().find(|&&n| {
                        !matches!(f.stmts[n].kind, StmtKind::Comment(_) | StmtKind::Blank)
                    });
                    led.is_none_or(|&n| {
                        matches!(
                            f.stmts[n].kind,
                            StmtKind::Assign { .. } | StmtKind::Alloc { .. }
                        )
                    })
                }
                _ => false,
            };
            if !dropped {
                keep.push(s);
            }
        }
        if let Some(block) = f.block_mut(b) {
            *block = keep;
        }
    }
    for (_, s) in f.walk() {
        f.set_comment(s, None);
    }
}

impl State<'_> {
    fn next_id(&mut self) -> u64 {
        let n = self.counter;
        self.counter += 1;
        n
    }

    fn ddr_memref(&mut self, size: u64) -> MemRef {
        let n = self.next_id();
        MemRef::new(MemBase::Named(MemSpace::Ddr.alloc_name(n).into()), 0, size)
    }

    fn new_alloc(&mut self, f: &mut Function, space: &MemSpace, size: u64) -> MemRef {
        let n = self.next_id();
        let name = space.alloc_name(n);
        let var = f.new_var(&name, Some(Type::Ptr), VarDef::Free);
        self.allocs.push(NewAlloc {
            var,
            space: *space,
            size,
            pinned: false,
        });
        MemRef::new(MemBase::Var(var), 0, size)
    }
}

fn set_memref(f: &mut Function, v: VarId, m: MemRef) {
    match f.vars[v].ty.as_mut() {
        Some(Type::Other(e)) => {
            if let Some(items) = dist_items_mut(e) {
                let mut v = std::mem::take(items).into_vec();
                v.retain(|i| !is_memref_call(i));
                // After any view extras, like a `pl.Tensor`'s MemRef.
                v.push(memref_expr(&m));
                *items = v.into();
            }
        }
        Some(ty) => {
            if let Some(slot) = ty.memref_mut() {
                *slot = Some(m);
            }
        }
        None => {}
    }
}

/// The storage of `e` when it is a variable with one (typed, or carried).
fn memref_of(f: &Function, st: &State<'_>, e: &Expr) -> Option<MemRef> {
    let v = e.as_var()?;
    f.ty(v)
        .and_then(|t| t.memref().cloned().or_else(|| dist_memref(t)))
        .or_else(|| st.carried.get(&v).cloned())
}

/// The subscript items of `pld.DistributedTensor[[shape], dtype, ...]`.
///
/// The reader keeps this type as an opaque expression; a distributed
/// tensor is a window of global memory, and PyPTO's InitMemRef gives it a
/// DDR MemRef exactly like a `pl.Tensor`, printed in the same position.
fn dist_items(ty: &Type) -> Option<&[Expr]> {
    match ty {
        Type::Other(e) => match &**e {
            Expr::Index(base, idx) if is_dist_head(base) => idx.as_elems(),
            _ => None,
        },
        _ => None,
    }
}

fn dist_items_mut(e: &mut Expr) -> Option<&mut Box<[Expr]>> {
    match e {
        Expr::Index(base, idx) if is_dist_head(base) => match &mut **idx {
            Expr::Tuple(v) | Expr::List(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

fn is_dist_head(base: &Expr) -> bool {
    matches!(base, Expr::Path(p) if p.rsplit('.').next() == Some("DistributedTensor"))
}

fn is_memref_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.op_name() == "MemRef")
}

/// `pl.MemRef("mem_ddr_N", offset, size)` as an expression (the form a
/// distributed tensor's type carries it in).
fn memref_expr(m: &MemRef) -> Expr {
    let name = match &m.base() {
        MemBase::Named(n) => n.to_string(),
        MemBase::Var(_) => String::new(),
    };
    let mut args = vec![Expr::str(&name)];
    args.push(m.offset().unwrap_or(Expr::const_i64(0)));
    args.push(Expr::Int(
        i64::try_from(m.size().unwrap_or(0)).unwrap_or(i64::MAX),
    ));
    Expr::call(Call::new("pl.MemRef", args))
}

/// The DDR MemRef a distributed tensor's type carries, if any.
fn dist_memref(ty: &Type) -> Option<MemRef> {
    let items = dist_items(ty)?;
    let Expr::Call(c) = items.iter().find(|i| is_memref_call(i))? else {
        return None;
    };
    let name = c.args.first()?.as_str()?;
    Some(MemRef::from(MemRefParts {
        base: MemBase::Named(name.into()),
        offset: c.args.get(1).cloned(),
        size: c
            .args
            .get(2)
            .and_then(Expr::as_int)
            .and_then(|n| u64::try_from(n).ok()),
        slots: None,
        slot_index: None,
    }))
}

/// Shape and dtype of a global-memory tensor type (`pl.Tensor` or
/// `pld.DistributedTensor`).
fn ddr_tensor(ty: Option<&Type>) -> Option<(Vec<Expr>, DType)> {
    match ty? {
        Type::Tensor(t, _) => Some((t.shape.to_vec(), t.dtype.clone())),
        other => {
            let items = dist_items(other)?;
            let shape = items.first()?.as_elems()?.to_vec();
            let Expr::Path(p) = items.get(1)? else {
                return None;
            };
            Some((shape, DType::from_name(p.strip_prefix("pl.").unwrap_or(p))))
        }
    }
}

/// [`ddr_tensor`] of a type that has no MemRef yet.
fn unset_ddr_tensor(ty: Option<&Type>) -> Option<(Vec<Expr>, DType)> {
    let t = ty?;
    if t.memref().is_some() || dist_memref(t).is_some() {
        return None;
    }
    ddr_tensor(Some(t))
}

/// The shape of a global-memory tensor (`pl.Tensor` or distributed).
fn ddr_shape(ty: Option<&Type>) -> Option<Vec<Expr>> {
    ddr_tensor(ty).map(|(s, _)| s)
}

fn visit_block(f: &mut Function, stmts: &[StmtId], st: &mut State<'_>) -> Result<(), PassError> {
    for &s in stmts {
        match &f.stmts[s].kind {
            StmtKind::Assign { targets, value } if targets.len() == 1 => {
                let (x, value) = (targets[0], light_value(value));
                assign(f, s, x, &value, st)?;
            }
            StmtKind::For(l) => {
                let l = l.clone();
                visit_for(f, s, &l, st)?;
            }
            StmtKind::If(i) => {
                let i = i.clone();
                visit_if(f, s, &i, st)?;
            }
            StmtKind::With(w) => {
                let body = w.body.clone();
                visit_block(f, &body, st)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The parts of a right-hand side the rules read: variables, and the
/// offsets list of a window view; other operands become `None`, keywords
/// are dropped. Saves copying every operand list of every statement.
fn light_value(value: &Expr) -> Expr {
    match value {
        Expr::Call(c) => {
            let info = ops::lookup_or_default(c.op_name());
            let keep = match info.view {
                ViewRule::Window { offsets_arg } => Some(offsets_arg),
                _ => None,
            };
            let args = c
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Expr::Var(v) => Expr::Var(*v),
                    _ if Some(i) == keep => a.clone(),
                    _ => Expr::None,
                })
                .collect();
            Expr::call(Call {
                func: c.func.clone(),
                args,
                kwargs: Default::default(),
            })
        }
        Expr::Var(v) => Expr::Var(*v),
        _ => Expr::None,
    }
}

fn visit_for(
    f: &mut Function,
    s: StmtId,
    l: &ForStmt,
    st: &mut State<'_>,
) -> Result<(), PassError> {
    for (arg, init) in l.iter_args.iter().zip(l.init_values()) {
        if let Some(m) = memref_of(f, st, init) {
            st.carried.insert(*arg, m);
        }
        if let Some(k) = stored_kind(f, st, init) {
            st.kinds.insert(*arg, k);
        }
    }
    visit_block(f, &l.body, st)?;
    // A loop result is the loop-carried value: it takes the storage of its
    // iter arg (the init value's); the yielded value when the init has none.
    let yielded = yield_values(f, Block::Loop(s));
    let carried: Vec<Expr> = l
        .iter_args
        .iter()
        .zip(&yielded)
        .map(|(&a, y)| {
            if st.carried.contains_key(&a) {
                Expr::Var(a)
            } else {
                y.clone()
            }
        })
        .collect();
    bind_results(f, &l.results, &carried, st);
    Ok(())
}

fn visit_if(f: &mut Function, s: StmtId, i: &IfStmt, st: &mut State<'_>) -> Result<(), PassError> {
    visit_block(f, &i.then_body, st)?;
    if let Some(e) = &i.else_body {
        visit_block(f, e, st)?;
    }
    let yielded = yield_values(f, Block::Then(s));
    bind_results(f, &i.results, &yielded, st);
    Ok(())
}

/// The values of the final `pl.yield_` of block `b`.
fn yield_values(f: &Function, b: Block) -> Vec<Expr> {
    f.yield_index(b)
        .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
            StmtKind::Yield(v) => Some(v.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// What `e` holds, from its type or, for an untyped carried value, from
/// the value it carries.
fn stored_kind(f: &Function, st: &State<'_>, e: &Expr) -> Option<Stored> {
    let v = e.as_var()?;
    match f.ty(v) {
        Some(Type::Tile(_, _)) => Some(Stored::Tile),
        Some(t @ (Type::Tensor(_, _) | Type::Other(_))) => {
            ddr_shape(Some(t)).map(|_| Stored::Tensor)
        }
        Some(_) => None,
        None => st.kinds.get(&v).copied(),
    }
}

/// Loop / `if` results: PyPTO types every result, so each tile or tensor
/// result takes a MemRef number, typed or not (a multi-value `pl.yield_`
/// prints its results untyped). A tile result then shares the yielded
/// value's storage (PyPTO replaces the MemRef it made); a tensor result
/// keeps its own new DDR MemRef.
fn bind_results(f: &mut Function, results: &[VarId], yielded: &[Expr], st: &mut State<'_>) {
    for (k, &r) in results.iter().enumerate() {
        let y = yielded.get(k);
        if let Some((shape, dtype)) = unset_ddr_tensor(f.ty(r)) {
            let m = st.ddr_memref(tensor_bytes(&shape, &dtype));
            set_memref(f, r, m);
            continue;
        }
        let ym = y.and_then(|e| memref_of(f, st, e));
        match f.ty(r) {
            Some(Type::Tile(_, None)) => {
                st.next_id();
                if let Some(m) = ym {
                    set_memref(f, r, m);
                }
            }
            None => match y.and_then(|e| stored_kind(f, st, e)) {
                Some(Stored::Tile) => {
                    st.next_id();
                    st.kinds.insert(r, Stored::Tile);
                    if let Some(m) = ym {
                        st.carried.insert(r, m);
                    }
                }
                Some(Stored::Tensor) => {
                    let bytes = y
                        .and_then(Expr::as_var)
                        .and_then(|v| ddr_tensor(f.ty(v)))
                        .map(|(shape, dtype)| tensor_bytes(&shape, &dtype))
                        .or_else(|| ym.as_ref().and_then(|m| m.size()))
                        .unwrap_or(0);
                    let m = st.ddr_memref(bytes);
                    st.kinds.insert(r, Stored::Tensor);
                    f.untyped_memrefs.insert(r, m.clone());
                    st.carried.insert(r, m);
                }
                None => {
                    if let Some(m) = ym {
                        st.carried.insert(r, m);
                    }
                }
            },
            _ => {}
        }
    }
}

fn assign(
    f: &mut Function,
    s: StmtId,
    x: VarId,
    value: &Expr,
    st: &mut State<'_>,
) -> Result<(), PassError> {
    let pos = f.pos_of(s);
    // A copy without the trailing TileView extras, which no rule reads.
    let ty = match f.ty(x) {
        Some(Type::Tile(t, m)) => Some((
            TileType {
                shape: t.shape.clone(),
                dtype: t.dtype.clone(),
                space: t.space,
                extras: Vec::new(),
            },
            m.clone(),
        )),
        // Tensors (plain or distributed) are read from the variable below.
        _ => None,
    };
    match ty {
        Some((t, None)) => tile_result(f, pos, x, &t, value, st),
        Some((_, Some(m))) => {
            if let Some(name) = m.base_name() {
                declare(st, name, x);
            }
            Ok(())
        }
        _ => {
            if let Some((shape, dtype)) = unset_ddr_tensor(f.ty(x)) {
                let m = tensor_value_memref(f, st, &shape, &dtype, value);
                set_memref(f, x, m);
            }
            Ok(())
        }
    }
}

/// The MemRef of a global-memory tensor defined by `value`.
///
/// A call result is a view of its first argument (`pl.tensor.view` /
/// `reshape` whole, a window `pl.tensor.slice` at its byte offset), or the
/// output tensor its op writes (`pl.tile.store`), or else new storage. Any
/// other value, a bare alias `a = b` or a tuple element `t[0]`, gets new
/// storage too: PyPTO's InitMemRef shares storage between tensors only
/// through calls (it keeps sharing for tiles, see `tile_result`).
fn tensor_value_memref(
    f: &Function,
    st: &mut State<'_>,
    shape: &[Expr],
    dtype: &DType,
    value: &Expr,
) -> MemRef {
    let bytes = tensor_bytes(shape, dtype);
    let Expr::Call(c) = value else {
        return st.ddr_memref(bytes);
    };
    let info = ops::lookup_or_default(c.op_name());
    let src = c.args.first().and_then(|a| memref_of(f, st, a));
    let src_shape = c
        .args
        .first()
        .and_then(Expr::as_var)
        .and_then(|v| ddr_shape(f.ty(v)));
    let view = match (info.view, src, src_shape) {
        (ViewRule::WholeSource, Some(m), _) => Some(MemRef::from(MemRefParts {
            size: Some(bytes),
            ..m.into_parts()
        })),
        (ViewRule::Window { offsets_arg }, Some(m), Some(src_shape))
            if m.const_offset() == Some(0) =>
        {
            // The window's extent is only known against a static source:
            // PyPTO sizes a window of a dynamic-shape tensor 0.
            let static_src = src_shape.iter().all(|d| d.as_int().is_some());
            c.args
                .get(offsets_arg)
                .and_then(Expr::as_elems)
                .and_then(|offs| ddr_window_offset(offs, &src_shape, dtype))
                .map(|off| {
                    MemRef::from(MemRefParts {
                        offset: Some(off),
                        size: Some(if static_src { bytes } else { 0 }),
                        ..m.into_parts()
                    })
                })
        }
        _ => None,
    };
    view.or_else(|| {
        info.output_binds_input()
            .and_then(|i| c.args.get(i).and_then(|a| memref_of(f, st, a)))
    })
    .unwrap_or_else(|| st.ddr_memref(bytes))
}

fn declare(st: &mut State<'_>, name: &str, x: VarId) {
    match st.declared.iter_mut().find(|(n, _)| &**n == name) {
        Some((_, vars)) => vars.push(x),
        None => st.declared.push((name.into(), vec![x])),
    }
}

fn tile_result(
    f: &mut Function,
    pos: Pos,
    x: VarId,
    t: &TileType,
    value: &Expr,
    st: &mut State<'_>,
) -> Result<(), PassError> {
    let call = match value {
        Expr::Var(_) => {
            if let Some(m) = memref_of(f, st, value) {
                set_memref(f, x, m);
            }
            return Ok(());
        }
        Expr::Call(c) => c,
        _ => return Ok(()),
    };
    let info = ops::lookup_or_default(call.op_name());
    if info.class == OpClass::Tpop {
        return Ok(());
    }
    check_shared_space(f, pos, x, t, call, info)?;
    match info.view {
        ViewRule::WholeSource => {
            if let Some(m) = call.args.first().and_then(|a| memref_of(f, st, a)) {
                set_memref(f, x, m);
            }
            return Ok(());
        }
        ViewRule::Window { offsets_arg } => {
            let src = call.args.first().and_then(Expr::as_var);
            let src_mr = call.args.first().and_then(|a| memref_of(f, st, a));
            if let (Some(src), Some(src_mr)) = (src, src_mr) {
                let m = window(f, src, &src_mr, t, call.args.get(offsets_arg));
                set_memref(f, x, m);
            }
            return Ok(());
        }
        ViewRule::NotView => {}
    }
    if let Some(i) = info.output_binds_input() {
        if let Some(m) = call.args.get(i).and_then(|a| memref_of(f, st, a)) {
            set_memref(f, x, m);
            return Ok(());
        }
    }
    let space = match &t.space {
        Some(MemSpace::Ddr) | None => return Ok(()),
        Some(s) => *s,
    };
    let Some(size) = t.storage_bytes(st.soc) else {
        return Err(PassError::input(format!(
            "InitMemRef: tile '{}' in {} has a dynamic or unknown-size shape; on-chip tiles \
             need static dimensions to get storage (keep the static bound in the shape and \
             put the runtime extent in valid_shape)",
            f.vars[x].name,
            space.name()
        ))
        .at_pos(pos));
    };
    let m = st.new_alloc(f, &space, size);
    set_memref(f, x, m);
    Ok(())
}

/// A result that lives in an argument's storage (a view of argument 0, or
/// the input its row names in `output_reuses_input`, as `tile.store`'s
/// output tensor) lives in that argument's memory space; an annotation
/// naming another space is an input error at the statement, not a placement
/// the later checks find overlapping. Spaces not written are not compared.
fn check_shared_space(
    f: &Function,
    pos: Pos,
    x: VarId,
    t: &TileType,
    call: &Call,
    info: &ops::OpInfo,
) -> Result<(), PassError> {
    let shared = match info.view {
        ViewRule::NotView => info.output_reuses_input,
        _ => Some(0),
    };
    let (Some(i), Some(want)) = (shared, t.space.as_ref()) else {
        return Ok(());
    };
    let Some(arg) = call.args.get(i).and_then(Expr::as_var) else {
        return Ok(());
    };
    let have = match f.ty(arg) {
        Some(Type::Tile(a, _)) => a.space,
        Some(Type::Tensor(_, _)) => Some(MemSpace::Ddr),
        _ => None,
    };
    match have {
        Some(have) if have != *want => Err(PassError::input(format!(
            "InitMemRef: '{}' is annotated in {}, but {} returns the storage of its argument \
             '{}', which is in {}; annotate the result with the argument's type",
            f.vars[x].name,
            want.name(),
            call.op_name(),
            f.vars[arg].name,
            have.name()
        ))
        .at_pos(pos)),
        _ => Ok(()),
    }
}

/// Bytes of `count` elements of `dtype` (4-bit types packed two per byte).
fn elems_bytes(count: u64, dtype: &DType) -> Option<u64> {
    Some(count.checked_mul(u64::from(dtype.bits()?))?.div_ceil(8))
}

/// The byte offset of a DDR window at `offsets` in a source of `shape`, as
/// PyPTO prints it: `sum(offset_i * stride_i) * elem_bytes`, where a stride
/// is the product of the later dimensions (folded when constant), terms
/// with a constant zero offset and constant stride are dropped, and nothing
/// symbolic is folded (`r * 64 * 4`, `0 * n * 4`). `None` when every term
/// folds away or the element width is unknown.
fn ddr_window_offset(offsets: &[Expr], shape: &[Expr], dtype: &DType) -> Option<Expr> {
    let mul = |a: Expr, b: Expr| Expr::Binary(BinOp::Mul, Box::new(a), Box::new(b));
    let mut sum: Option<Expr> = None;
    for (i, off) in offsets.iter().enumerate() {
        let later = shape.get(i + 1..).unwrap_or(&[]);
        let stride = if later.iter().all(|d| d.as_int().is_some()) {
            Expr::Int(later.iter().filter_map(Expr::as_int).product())
        } else {
            later
                .iter()
                .filter(|d| d.as_int() != Some(1))
                .cloned()
                .reduce(mul)?
        };
        let term = match (off.as_int(), stride.as_int()) {
            (Some(0), Some(_)) => continue,
            (Some(a), Some(b)) => Expr::Int(a.checked_mul(b)?),
            (_, Some(1)) => off.clone(),
            _ => mul(off.clone(), stride),
        };
        sum = Some(match sum {
            None => term,
            Some(s) => Expr::Binary(BinOp::Add, Box::new(s), Box::new(term)),
        });
    }
    let bytes = i64::from(dtype.bits()? / 8).max(1);
    Some(mul(sum?, Expr::Int(bytes)))
}

/// Byte size of a tensor, 0 when its shape is dynamic.
fn tensor_bytes(shape: &[Expr], dtype: &DType) -> u64 {
    shape
        .iter()
        .try_fold(1u64, |acc, d| {
            acc.checked_mul(u64::try_from(d.as_int()?).ok()?)
        })
        .and_then(|n| elems_bytes(n, dtype))
        .unwrap_or(0)
}

/// The MemRef of a window view of `src` at the element offsets `offsets`.
fn window(
    f: &Function,
    src: VarId,
    src_mr: &MemRef,
    t: &TileType,
    offsets: Option<&Expr>,
) -> MemRef {
    let src_shape: Option<Vec<i64>> = f
        .ty(src)
        .and_then(Type::as_tile)
        .and_then(|s| s.shape.iter().map(Expr::as_int).collect());
    let bits = i64::from(t.dtype.bits().unwrap_or(8));
    let offs: Vec<Expr> = offsets
        .and_then(Expr::as_elems)
        .map(<[Expr]>::to_vec)
        .unwrap_or_default();
    let view_shape: Option<Vec<i64>> = t.shape.iter().map(Expr::as_int).collect();
    let (Some(src_shape), Some(view_shape)) = (src_shape, view_shape) else {
        return MemRef::from(MemRefParts {
            size: tile_bytes_plain(t),
            ..src_mr.parts()
        });
    };
    // Row-major element strides of the source.
    let rank = src_shape.len();
    let mut strides = vec![1i64; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * src_shape[i + 1];
    }
    let mut const_elems: i64 = 0;
    let mut dynamic: Option<Expr> = None;
    for (i, o) in offs.iter().enumerate().take(rank) {
        match o.as_int() {
            Some(n) => const_elems += n * strides[i],
            None => {
                let term = mul(o.clone(), strides[i]);
                dynamic = Some(match dynamic {
                    None => term,
                    Some(d) => Expr::Binary(BinOp::Add, Box::new(d), Box::new(term)),
                });
            }
        }
    }
    let span_elems: i64 = view_shape
        .iter()
        .zip(&strides[rank.saturating_sub(view_shape.len())..])
        .map(|(&d, &s)| (d - 1).max(0) * s)
        .sum::<i64>()
        + 1;
    let size = u64::try_from((span_elems * bits + 7) / 8).unwrap_or(0);
    let base_off = src_mr.const_offset();
    let const_bytes = const_elems * bits / 8;
    let offset = match (dynamic, base_off) {
        (None, Some(b)) => Expr::Int(b + const_bytes),
        (dynamic, base) => {
            let base_expr = match base {
                Some(b) => Expr::Int(b + const_bytes),
                None => {
                    let b = src_mr.offset().unwrap_or(Expr::Int(0));
                    if const_bytes == 0 {
                        b
                    } else {
                        Expr::Binary(BinOp::Add, Box::new(b), Box::new(Expr::Int(const_bytes)))
                    }
                }
            };
            match dynamic {
                None => base_expr,
                Some(d) => {
                    let d = mul(d, bits / 8);
                    if base_expr == Expr::Int(0) {
                        d
                    } else {
                        Expr::Binary(BinOp::Add, Box::new(base_expr), Box::new(d))
                    }
                }
            }
        }
    };
    MemRef::from(MemRefParts {
        base: src_mr.base(),
        offset: Some(offset),
        size: Some(size),
        slots: src_mr.slots(),
        slot_index: src_mr.slot_index().cloned(),
    })
}

fn mul(e: Expr, k: i64) -> Expr {
    if k == 1 {
        e
    } else {
        Expr::Binary(BinOp::Mul, Box::new(e), Box::new(Expr::Int(k)))
    }
}

fn tile_bytes_plain(t: &TileType) -> Option<u64> {
    t.static_bytes()
}

/// Turns declared bindings into pinned allocations.
fn resolve_declared(
    f: &mut Function,
    st: &mut State<'_>,
    planner: PlannerMode,
) -> Result<(), PassError> {
    let declared = std::mem::take(&mut st.declared);
    for (name, vars) in declared {
        // Under PTOAS nothing isolates a single-slot declaration (MemoryReuse
        // does not run), so binding one would silently not do what it says.
        if planner == PlannerMode::Ptoas {
            let single = vars.iter().find(|&&v| {
                f.ty(v)
                    .and_then(Type::memref)
                    .is_some_and(|m| m.slots().is_none())
            });
            if let Some(&v) = single {
                return Err(PassError::input(format!(
                    "pl.MemRef(\"{name}\") binds '{}' under memory_planner=PTOAS, where buffer \
                     isolation is the assembler's job; remove the binding or plan with the \
                     pypto or dsa-rp planner",
                    f.vars[v].name
                ))
                .at_pos(def_pos(f, v)));
            }
        }
        let mut space: Option<MemSpace> = None;
        let mut slot_size = 0u64;
        let mut slots: Option<u64> = None;
        for &v in &vars {
            let Some(t) = f.ty(v).and_then(Type::as_tile).cloned() else {
                continue;
            };
            let pos = def_pos(f, v);
            let err = |msg: String| PassError::input(msg).at_pos(pos);
            let vname = f.vars[v].name.to_string();
            if let Some(call) = def_call(f, v) {
                let info = ops::lookup_or_default(call.op_name());
                if info.is_view() || info.output_binds_input().is_some() {
                    return Err(err(format!(
                        "pl.MemRef(\"{name}\") binds '{vname}', the result of {}, which already \
                         lives in its input's storage; bind the input instead",
                        call.op_name()
                    )));
                }
            }
            let ts = t.space.unwrap_or(MemSpace::Vec);
            match &space {
                None => space = Some(ts),
                Some(s) if *s != ts => {
                    return Err(err(format!(
                        "pl.MemRef(\"{name}\") binds tiles in {} and {}; one declared \
                         allocation lives in one memory space",
                        s.name(),
                        ts.name()
                    )))
                }
                Some(_) => {}
            }
            let Some(bytes) = t.storage_bytes(st.soc) else {
                return Err(err(format!(
                    "pl.MemRef(\"{name}\") binds '{vname}' whose shape is dynamic; declared \
                     allocations need static shapes"
                )));
            };
            slot_size = slot_size.max(bytes);
            let m = f.ty(v).and_then(Type::memref);
            let s = m.and_then(MemRef::slots).unwrap_or(1);
            if s == 0 {
                return Err(err(format!(
                    "pl.MemRef(\"{name}\", slots=0): a declared allocation needs at least one slot"
                )));
            }
            slots = Some(slots.map_or(s, |old: u64| old.max(s)));
            if let Some(k) = m.and_then(MemRef::slot_index).and_then(Expr::as_int) {
                if k < 0 || k as u64 >= s {
                    return Err(err(format!(
                        "pl.MemRef(\"{name}\", slots={s})[{k}]: slot index out of range \
                         (valid: 0..{})",
                        s - 1
                    )));
                }
            }
        }
        let Some(space) = space else { continue };
        let n_slots = slots.unwrap_or(1);
        let var = f.new_var(&name, Some(Type::Ptr), VarDef::Free);
        st.allocs.push(NewAlloc {
            var,
            space,
            size: slot_size * n_slots,
            pinned: true,
        });
        for &v in &vars {
            let old = f.ty(v).and_then(Type::memref).cloned();
            if let Some(old) = old {
                let m = MemRef::from(MemRefParts {
                    base: MemBase::Var(var),
                    offset: Some(Expr::const_i64(0)),
                    size: Some(slot_size),
                    slots: old.slots(),
                    slot_index: old.slot_index().cloned(),
                });
                set_memref(f, v, m);
            }
        }
    }
    Ok(())
}

fn def_pos(f: &Function, v: VarId) -> Pos {
    match f.vars[v].def {
        VarDef::Stmt(s) => f.pos_of(s),
        _ => f.pos,
    }
}

fn def_call(f: &Function, v: VarId) -> Option<&Call> {
    match f.vars[v].def {
        VarDef::Stmt(s) => f.stmts[s].call(),
        _ => None,
    }
}
