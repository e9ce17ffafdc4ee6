//! Control-flow storage boundaries after sharing (PyPTO's
//! `AlignLoopCarriesToInitMutator`, `TopDownRetargeter` and
//! `YieldFixupMutator`).
//!
//! - [`align_loop_carries`]: outer loops first, every loop result (and typed
//!   iter arg) takes the current MemRef of its init value, so a nested loop
//!   sees the corrected outer carry as its init.
//! - [`coalesce_acc_if_phis`]: a peeled split-K `if` whose one branch
//!   accumulates in place (`matmul_acc`-like, `output_reuses_input`) and
//!   whose other branch seeds a fresh accumulator gets the seed moved onto
//!   the accumulator buffer (Acc only), when the seed is produced by a call
//!   inside its branch and nothing in that branch reads the accumulator
//!   buffer after it.
//! - [`fix_yields`]: inner statements first. A loop's four carry values
//!   (init, iter arg, yield value, result) must share one window; an `if`'s
//!   results take the then branch's window and the else branch must write
//!   it. A mismatching yielded value is first retargeted onto the required
//!   window when that is safe (it is produced by a call in the scope, not a
//!   view or an in-place update of another buffer, the op may write over the
//!   operands it reads from that window, and nothing later in the scope
//!   reads or writes the window); otherwise a `tile.move` into the window is
//!   inserted before the yield. The copies of one yield are ordered so that
//!   no copy overwrites bytes another still reads; a cycle (a swap) goes
//!   through a scratch buffer allocated at the top of the function. Acc to
//!   Acc copies do not exist: such a mismatch is an internal error, as are
//!   two carries whose buffers overlap.

use rustc_hash::FxHashSet as HashSet;

use super::names::Names;
use super::storage::{
    base_name, current_memref, current_space, current_tile_type, derived, retarget, same_window,
    set_memref, starts_within, subtree, windows_overlap,
};
use crate::ir::{
    Block, Call, Expr, Function, Kwarg, MemBase, MemRef, StmtId, StmtKind, Type, VarDef, VarId,
};
use crate::ops;
use crate::passes::analysis::order::{is_assigned, yielded};
use crate::passes::context::PassError;
use tilemem_soc::{Family, MemSpace};

/// The message PyPTO raises for an Acc-to-Acc reconciliation.
pub const ACC_MOVE_ERROR: &str = "Internal error: MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move; accumulator control-flow values must be coalesced before YieldFixup.";

/// Realigns loop results (and typed iter args) to their init's MemRef,
/// outer loops first.
pub fn align_loop_carries(f: &mut Function) {
    for (_, s) in f.walk() {
        let (inits, iter_args, results) = match &f.stmts[s].kind {
            StmtKind::For(l) => (
                l.init_values().to_vec(),
                l.iter_args.clone(),
                l.results.clone(),
            ),
            _ => continue,
        };
        for (k, init) in inits.iter().enumerate() {
            let Some(x) = init.as_var() else { continue };
            let Some(m) = current_memref(f, x) else {
                continue;
            };
            for v in [iter_args.get(k), results.get(k)].into_iter().flatten() {
                // A tensor (DDR) carry keeps its own MemRef (behaviour.md).
                if matches!(f.vars[*v].ty, Some(Type::Tile(_, _)))
                    && f.vars[*v].ty.as_ref().and_then(Type::memref).is_some()
                {
                    set_memref(f, *v, m.clone());
                }
            }
        }
    }
}

/// Loops and ifs in post-order (inner statements first).
fn control_post_order(f: &Function) -> Vec<StmtId> {
    let mut out = Vec::new();
    fn go(f: &Function, b: Block, out: &mut Vec<StmtId>) {
        for &s in f.block(b) {
            for c in f.child_blocks(s) {
                go(f, c, out);
            }
            if matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) {
                out.push(s);
            }
        }
    }
    go(f, Block::Body, &mut out);
    out
}

fn if_results(f: &Function, s: StmtId) -> Vec<VarId> {
    match &f.stmts[s].kind {
        StmtKind::If(i) => i.results.clone(),
        _ => Vec::new(),
    }
}

fn yielded_var(f: &Function, b: Block, k: usize) -> Option<VarId> {
    yielded(f, b)?.get(k)?.as_var()
}

/// Whether nothing after statement `p` in `scope` reads or writes bytes of
/// `target`, other than `keep` (the value moving there and its views).
fn dead_after(
    f: &Function,
    scope: &[StmtId],
    p: StmtId,
    target: &MemRef,
    keep: &HashSet<VarId>,
) -> bool {
    let Some(pos) = scope.iter().position(|&s| s == p) else {
        return false;
    };
    for &s in &scope[pos + 1..] {
        let mut bad = false;
        f.stmts[s].for_each_use(&mut |v| {
            if !keep.contains(&v)
                && current_memref(f, v).is_some_and(|m| windows_overlap(&m, target))
            {
                bad = true;
            }
        });
        if let StmtKind::Assign { targets, .. } = &f.stmts[s].kind {
            for &t in targets {
                if !keep.contains(&t)
                    && f.vars[t]
                        .ty
                        .as_ref()
                        .and_then(Type::memref)
                        .is_some_and(|m| windows_overlap(m, target))
                {
                    bad = true;
                }
            }
        }
        if bad {
            return false;
        }
    }
    true
}

/// Whether `v` (yielded in `scope`) may be moved onto `target` instead of
/// being copied there.
fn can_retarget(f: &Function, family: Family, scope: &[StmtId], v: VarId, target: &MemRef) -> bool {
    let Some(p) = is_assigned(f, v) else {
        return false;
    };
    if !scope.contains(&p) {
        return false;
    }
    let StmtKind::Assign {
        value: Expr::Call(call),
        targets,
    } = &f.stmts[p].kind
    else {
        return false;
    };
    if targets.len() != 1 {
        return false;
    }
    let info = ops::lookup_or_default(call.op_name());
    if info.is_view() || info.output_binds_input().is_some() {
        return false;
    }
    // The op may not write over an operand it still reads.
    let forbidden = info.forbidden_alias_args(family, call.args.len(), None);
    for (i, a) in call.args.iter().enumerate() {
        let Some(x) = a.as_var() else { continue };
        if current_memref(f, x).is_some_and(|m| windows_overlap(&m, target))
            && forbidden.contains(&i)
        {
            return false;
        }
    }
    let keep = derived(f, v, scope);
    dead_after(f, scope, p, target, &keep)
}

/// Coalesces accumulator if-phis (Acc only).
pub fn coalesce_acc_if_phis(f: &mut Function) {
    for s in control_post_order(f) {
        if !matches!(f.stmts[s].kind, StmtKind::If(_)) {
            continue;
        }
        let results = if_results(f, s);
        let blocks = f.child_blocks(s);
        if blocks.len() != 2 {
            continue;
        }
        for (k, &r) in results.iter().enumerate() {
            if current_space(f, r) != Some(MemSpace::Acc) {
                continue;
            }
            let (Some(t), Some(e)) = (yielded_var(f, blocks[0], k), yielded_var(f, blocks[1], k))
            else {
                continue;
            };
            let (Some(mt), Some(me)) = (current_memref(f, t), current_memref(f, e)) else {
                continue;
            };
            if same_window(&mt, &me) || starts_within(&mt, &me) || starts_within(&me, &mt) {
                continue;
            }
            let accumulates = |v: VarId, b: Block| -> bool {
                let Some(p) = is_assigned(f, v) else {
                    return false;
                };
                subtree(f, b).contains(&p)
                    && f.stmts[p].call().is_some_and(|c| {
                        ops::lookup_or_default(c.op_name())
                            .output_binds_input()
                            .is_some()
                    })
            };
            let (seed, seed_block, acc_mr) =
                if accumulates(e, blocks[1]) && !accumulates(t, blocks[0]) {
                    (t, blocks[0], me)
                } else if accumulates(t, blocks[0]) && !accumulates(e, blocks[1]) {
                    (e, blocks[1], mt)
                } else {
                    continue;
                };
            let scope = subtree(f, seed_block);
            let Some(p) = is_assigned(f, seed) else {
                continue;
            };
            let is_call = matches!(
                f.stmts[p].kind,
                StmtKind::Assign {
                    value: Expr::Call(_),
                    ..
                }
            );
            if !scope.contains(&p) || !is_call {
                continue;
            }
            let keep = derived(f, seed, &scope);
            if !dead_after(f, &scope, p, &acc_mr, &keep) {
                continue;
            }
            retarget(f, seed, &acc_mr, &scope);
            set_memref(f, r, acc_mr);
        }
    }
}

/// One copy a yield needs: `src` into the window `dst`.
struct Copy {
    /// Carry position.
    k: usize,
    /// The yielded value (names the copy).
    orig: VarId,
    /// What the copy reads (the value, or its scratch copy).
    src: VarId,
    /// The window it writes.
    dst: MemRef,
}

/// What [`fix_yields`] changed beyond MemRefs of carried values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixupChanges {
    /// Yielded values moved onto their carry's window (their old buffer may
    /// now be free for others).
    pub retargets: usize,
    /// Scratch buffers allocated for swaps.
    pub scratch: usize,
}

/// Fixes every loop and if of `f`.
pub fn fix_yields(f: &mut Function, family: Family) -> Result<FixupChanges, PassError> {
    fix_yields_with(f, family, true)
}

/// Fixes every loop and if of `f`; with `allow_retarget` false a mismatching
/// yielded value always gets a `tile.move` (the planners without
/// MemoryReuse keep every producer on its own allocation).
pub fn fix_yields_with(
    f: &mut Function,
    family: Family,
    allow_retarget: bool,
) -> Result<FixupChanges, PassError> {
    fix_yields_opts(f, family, allow_retarget, true)
}

/// [`fix_yields_with`], choosing whether an `if` branch that yields a loop
/// iter arg is matched (`as_var_like`, the seed's `AsVarLike`; PyPTO
/// e2d0f78 matched plain variables only and left such a branch alone).
pub fn fix_yields_opts(
    f: &mut Function,
    family: Family,
    allow_retarget: bool,
    as_var_like: bool,
) -> Result<FixupChanges, PassError> {
    // Built on the first copy only: most programs need none.
    let mut names: Option<Names> = None;
    let mut changes = FixupChanges::default();
    let retarget_family = allow_retarget.then_some(family);
    for s in control_post_order(f) {
        match &f.stmts[s].kind {
            StmtKind::For(l) => {
                let inits = l.init_values().to_vec();
                let results = l.results.clone();
                let iter_args = l.iter_args.clone();
                let b = Block::Loop(s);
                let scope = subtree(f, b);
                let mut copies = Vec::new();
                let mut dsts: Vec<(usize, MemRef)> = Vec::new();
                for (k, init) in inits.iter().enumerate() {
                    let Some(x) = init.as_var() else { continue };
                    let Some(t) = current_memref(f, x) else {
                        continue;
                    };
                    if let Some(&r) = results.get(k) {
                        if matches!(f.vars[r].ty, Some(Type::Tile(_, _))) {
                            set_memref(f, r, t.clone());
                        }
                    }
                    dsts.push((k, t.clone()));
                    // Tensor carries only follow their initializer (above);
                    // their bytes are not on-chip, so no copy is inserted.
                    if current_space(f, x).is_none_or(|sp| !sp.is_on_chip()) {
                        continue;
                    }
                    let Some(y) = yielded_var(f, b, k) else {
                        continue;
                    };
                    copies.extend(retarget_or_copy(
                        f,
                        retarget_family,
                        &scope,
                        k,
                        y,
                        t,
                        &mut changes,
                    )?);
                }
                // Two carries on overlapping buffers cannot both hold their
                // own value once either is written (by a copy, or by the
                // yielded value's producer in place).
                let changed: Vec<(usize, MemRef)> = dsts
                    .iter()
                    .filter(|(k, _)| {
                        yielded_var(f, b, *k).is_some_and(|y| Some(&y) != iter_args.get(*k))
                    })
                    .cloned()
                    .collect();
                for (ck, cdst) in &changed {
                    for (j, d) in &dsts {
                        if j != ck && windows_overlap(d, cdst) {
                            let name = |k: usize| {
                                iter_args
                                    .get(k)
                                    .map(|v| f.vars[*v].name.to_string())
                                    .unwrap_or_else(|| format!("#{k}"))
                            };
                            let init = |k: usize| match inits.get(k).and_then(Expr::as_var) {
                                Some(v) => format!("'{}'", f.vars[v].name),
                                None => format!("#{k}"),
                            };
                            let (k1, k2) = ((*ck).min(*j), (*ck).max(*j));
                            let from = if init(k1) == init(k2) {
                                format!("both start from {}", init(k1))
                            } else {
                                format!(
                                    "their initial values {} and {} share bytes",
                                    init(k1),
                                    init(k2)
                                )
                            };
                            // The program's own sharing: an input error.
                            return Err(PassError::input_pypto_internal(format!(
                                "MemoryReuse: loop carries '{}' and '{}' of function '{}' share one buffer, so no order of yield copies can give each its own value ({from}); initialise them from different tiles",
                                name(k1),
                                name(k2),
                                f.name,
                            ))
                            .at_pos(f.pos_of(s)));
                        }
                    }
                }
                if copies.is_empty() {
                    continue;
                }
                let names = names.get_or_insert_with(|| Names::of(f));
                changes.scratch += emit_copies(f, names, b, copies)?;
            }
            StmtKind::If(_) => {
                let results = if_results(f, s);
                let blocks = f.child_blocks(s);
                let mut copies = Vec::new();
                let Some(&tb) = blocks.first() else { continue };
                // The statements a retarget in the else branch may touch.
                let else_scope = blocks.get(1).map(|&eb| subtree(f, eb));
                for (k, &r) in results.iter().enumerate() {
                    let Some(t) = yielded_var(f, tb, k) else {
                        continue;
                    };
                    let Some(canon) = current_memref(f, t) else {
                        continue;
                    };
                    // Only tile results are patched; a tensor (DDR) result
                    // keeps its own MemRef (behaviour.md, yield fix-up).
                    if matches!(f.vars[r].ty, Some(Type::Tile(_, _))) {
                        set_memref(f, r, canon.clone());
                    }
                    if current_space(f, t).is_none_or(|sp| !sp.is_on_chip()) {
                        continue;
                    }
                    let (Some(&eb), Some(scope)) = (blocks.get(1), &else_scope) else {
                        continue;
                    };
                    let Some(e) = yielded_var(f, eb, k)
                        .filter(|&e| as_var_like || !matches!(f.vars[e].def, VarDef::IterArg(_)))
                    else {
                        continue;
                    };
                    copies.extend(retarget_or_copy(
                        f,
                        retarget_family,
                        scope,
                        k,
                        e,
                        canon,
                        &mut changes,
                    )?);
                }
                if !copies.is_empty() {
                    let Some(&eb) = blocks.get(1) else { continue };
                    let names = names.get_or_insert_with(|| Names::of(f));
                    changes.scratch += emit_copies(f, names, eb, copies)?;
                }
            }
            _ => {}
        }
    }
    Ok(changes)
}

/// Puts `y`, yielded for carry `k`, into the carry's window `t`: nothing
/// to do when it is already there (or has no storage); its producer moved
/// onto `t` when `retarget_family` allows it and that is safe within
/// `scope` (counted in `changes`); otherwise the copy it needs. A value
/// larger than the window is an input error: the values a loop carries or
/// an `if` joins have one size (the reader checks the sizes the types
/// give; an untyped carry leaves them to the storage).
fn retarget_or_copy(
    f: &mut Function,
    retarget_family: Option<Family>,
    scope: &[StmtId],
    k: usize,
    y: VarId,
    t: MemRef,
    changes: &mut FixupChanges,
) -> Result<Option<Copy>, PassError> {
    let Some(sm) = current_memref(f, y) else {
        return Ok(None);
    };
    if let (Some(have), Some(room)) = (value_bytes(f, y), room_in(f, &t)) {
        if have > room {
            let e = PassError::input(format!(
                "`{}` takes {have} bytes but the buffer `{}` it is yielded into holds {room}: \
                 the values a loop carries or an `if` joins have one size",
                f.vars[y].name,
                base_name(f, &t.base())
            ));
            return Err(match f.vars[y].def {
                VarDef::Stmt(s) => e.at_pos(f.pos_of(s)),
                _ => e,
            });
        }
    }
    // A value that starts where the carry starts, inside its window, is
    // already in place: a member of a moved group keeps its own (smaller)
    // size while the carry took the target's whole MemRef.
    if same_window(&sm, &t) || starts_within(&sm, &t) || starts_within(&t, &sm) {
        return Ok(None);
    }
    if let Some(family) = retarget_family {
        if can_retarget(f, family, scope, y, &t) {
            retarget(f, y, &t, scope);
            changes.retargets += 1;
            return Ok(None);
        }
    }
    Ok(Some(Copy {
        k,
        orig: y,
        src: y,
        dst: t,
    }))
}

/// The bytes of `v`'s tile value, from its type (or the type of what it
/// carries), when static. MemRef sizes do not say it: a carry takes its
/// target's whole window.
fn value_bytes(f: &Function, v: VarId) -> Option<u64> {
    match current_tile_type(f, v)? {
        Type::Tile(tt, _) => tt.static_bytes(),
        _ => None,
    }
}

/// The bytes of `t`'s allocation, when it is a `tile.alloc`. (Not less
/// its offset: a program DSA_RP laid out carries absolute addresses,
/// which the planners that place by lifetime do not read.)
fn room_in(f: &Function, t: &MemRef) -> Option<u64> {
    let root = t.base_var()?;
    let VarDef::Stmt(s) = f.vars[root].def else {
        return None;
    };
    Some(f.alloc_at(s)?.size)
}

/// Inserts `name: T(dst) = pl.tile.move(src, target_memory=space)` before
/// the yield of `b`; returns the new variable.
fn insert_move(
    f: &mut Function,
    names: &mut Names,
    b: Block,
    src: VarId,
    dst: &MemRef,
    name: &str,
) -> Option<VarId> {
    let mut ty = current_tile_type(f, src)?;
    let space_expr = match &ty {
        Type::Tile(t, _) => Expr::mem_space(t.space.as_ref()?),
        _ => return None,
    };
    if let Some(slot) = ty.memref_mut() {
        *slot = Some(dst.clone());
    }
    let name = names.fresh(name);
    let v = f.new_var(&name, Some(ty), VarDef::Free);
    let call = Call {
        func: "pl.tile.move".into(),
        args: vec![Expr::Var(src)].into(),
        kwargs: vec![Kwarg {
            name: "target_memory".into(),
            value: space_expr,
        }]
        .into(),
    };
    let at = f.yield_index(b).unwrap_or(f.block(b).len());
    let s = f.insert(
        b,
        at,
        StmtKind::Assign {
            targets: v.into(),
            value: Expr::call(call),
        },
    );
    f.vars[v].def = VarDef::Stmt(s);
    Some(v)
}

/// Emits the copies of one yield in an order where no copy overwrites bytes
/// another still has to read; cycles go through scratch buffers. Returns the
/// number of scratch buffers allocated.
fn emit_copies(
    f: &mut Function,
    names: &mut Names,
    b: Block,
    mut copies: Vec<Copy>,
) -> Result<usize, PassError> {
    let mut scratch_count = 0;
    for c in &copies {
        if current_space(f, c.src) == Some(MemSpace::Acc) {
            // At the yield whose value would need the move. The program
            // is wrong (no pipe copies one L0C buffer to another), so an
            // input error, in PyPTO's words and class, with the fix.
            let e = PassError::input_pypto_internal(format!(
                "{ACC_MOVE_ERROR} The accumulator '{}' yielded here is in another Acc buffer than \
                 the result it becomes, and no pipe moves one L0C buffer to another: make every \
                 branch (or the loop's init and body) yield an accumulator in one buffer, e.g. \
                 give '{}' and the tiles it accumulates in place the result's MemRef",
                f.vars[c.orig].name, f.vars[c.orig].name
            ));
            return Err(match f.yield_index(b) {
                Some(i) => e.at_pos(f.pos_of(f.block(b)[i])),
                None => e,
            });
        }
    }
    let mut done = vec![false; copies.len()];
    let mut order: Vec<usize> = Vec::new();
    let mut replaced: Vec<(usize, VarId)> = Vec::new();
    while order.len() < copies.len() {
        // A copy may run once no pending copy still reads what it writes.
        let ready = (0..copies.len()).find(|&i| {
            !done[i]
                && (0..copies.len()).all(|j| {
                    j == i
                        || done[j]
                        || !current_memref(f, copies[j].src)
                            .is_some_and(|m| windows_overlap(&m, &copies[i].dst))
                })
        });
        match ready {
            Some(i) => {
                done[i] = true;
                order.push(i);
            }
            None => {
                // A cycle: park the first pending source in a scratch buffer.
                let i = (0..copies.len()).find(|&i| !done[i]).unwrap_or(0);
                let src = copies[i].src;
                let size = current_memref(f, src).and_then(|m| m.size()).unwrap_or(0);
                let space = current_space(f, src).unwrap_or(MemSpace::Vec);
                let at = f
                    .body
                    .iter()
                    .take_while(|&&s| f.alloc_at(s).is_some())
                    .count();
                let alloc_name = names.alloc(space);
                let scratch_var = f.insert_alloc(at, &alloc_name, &space, size, false);
                let scratch = MemRef::new(MemBase::Var(scratch_var), 0, size);
                let name = format!("{}_swap", super::names::name_hint(f, &f.vars[src].name));
                let Some(tmp) = insert_move(f, names, b, src, &scratch, &name) else {
                    return Err(PassError::internal(format!(
                        "MemoryReuse: cannot type the scratch copy of '{}'",
                        f.vars[src].name
                    )));
                };
                copies[i].src = tmp;
                scratch_count += 1;
            }
        }
    }
    for i in order {
        let c = &copies[i];
        let name = super::names::copy_base(f, c.orig);
        let Some(v) = insert_move(f, names, b, c.src, &c.dst, &name) else {
            return Err(PassError::internal(format!(
                "MemoryReuse: cannot type the yield copy of '{}'",
                f.vars[c.src].name
            )));
        };
        replaced.push((c.k, v));
    }
    let yi = f.yield_index(b);
    if let Some(yi) = yi {
        let ys = f.block(b)[yi];
        if let StmtKind::Yield(vals) = &mut f.stmts[ys].kind {
            for (k, v) in replaced {
                if let Some(slot) = vals.get_mut(k) {
                    *slot = Expr::Var(v);
                }
            }
        }
    }
    Ok(scratch_count)
}
