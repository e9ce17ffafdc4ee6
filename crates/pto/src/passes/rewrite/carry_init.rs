//! A loop's carry lives in its init value's buffer (InitMemRef gives the
//! iter arg and the loop result the init's MemRef, and the loop writes
//! every iteration's value there). An init value whose bytes are read
//! again after the loop takes it (inside the body, or after the loop, by
//! the value itself, a view or alias of it, or an in-place result bound to
//! it) would find the loop's values there instead. Such a carry starts from
//! a copy: `x_mv = pl.tile.move(x, target_memory=SPACE)` on a fresh
//! allocation before the loop, passed as the init value. (Two carries of
//! one loop started from the same value are the yield fix-up's error, as
//! seed 000 says, not a copy.)
//!
//! Accumulator (Acc) carries cannot be copied (the hardware has no Acc to
//! Acc move): reusing their init is an input error naming the read.
//!
//! Idempotent: a copy is read by its loop only.

use super::names::Names;
use super::normalize::{normalize, snapshot};
use super::storage::{current_memref, current_space, current_tile_type};
use super::yield_fixup::align_loop_carries;
use crate::ir::{
    Block, Call, EntityRef, Expr, Function, Kwarg, MemBase, MemRef, MemSpace, StmtId, StmtKind,
    VarDef, VarId,
};
use crate::ops;
use crate::passes::analysis::facts;
use crate::passes::analysis::order::ProgramOrder;
use crate::passes::context::PassError;

/// Gives every loop carry whose init value is read again after the loop
/// takes it a copy of its own.
pub fn copy_reused_inits(f: &mut Function) -> Result<(), PassError> {
    let found = reused_inits(f);
    if found.is_empty() {
        return Ok(());
    }
    let mut names = Names::of(f);
    // Views and aliases of the moved carries follow them, each at its
    // offset in its source when this started.
    let snap = snapshot(f);
    for (s, k, x, reader) in found {
        let space = current_space(f, x);
        if space == Some(MemSpace::Acc) {
            let name = |v: VarId| f.vars[v].name.to_string();
            let loop_line = f.pos_of(s).line;
            return Err(PassError::input(format!(
                "the accumulator '{}' starts the loop carry at line {loop_line} and is read \
                 again after the loop takes it; the loop accumulates into its buffer and an \
                 accumulator cannot be copied: read '{}' before the loop, or start the loop \
                 from a fresh accumulator",
                name(x),
                name(x)
            ))
            .at_pos(f.pos_of(reader)));
        }
        let (Some(space), Some(old), Some(mut ty)) =
            (space, current_memref(f, x), current_tile_type(f, x))
        else {
            continue;
        };
        let Some(size) = old.size() else { continue };
        let alloc_name = names.alloc(space);
        let at = f
            .body
            .iter()
            .take_while(|&&b| f.alloc_at(b).is_some())
            .count();
        let root = f.insert_alloc(at, &alloc_name, &space, size, false);
        let fresh = MemRef::new(MemBase::Var(root), 0, size);
        if let Some(m) = ty.memref_mut() {
            *m = Some(fresh.clone());
        }
        let name = names.fresh(&super::names::copy_base(f, x));
        let copy = f.new_var(&name, Some(ty), VarDef::Free);
        let call = Call {
            func: "pl.tile.move".into(),
            args: vec![Expr::Var(x)].into(),
            kwargs: vec![Kwarg {
                name: "target_memory".into(),
                value: Expr::mem_space(&space),
            }]
            .into(),
        };
        let (b, i) = position(f, s);
        let st = f.insert(
            b,
            i,
            StmtKind::Assign {
                targets: copy.into(),
                value: Expr::call(call),
            },
        );
        f.vars[copy].def = VarDef::Stmt(st);
        if let StmtKind::For(l) = &mut f.stmts[s].kind {
            if let Some(slot) = l.init_values_mut().and_then(|v| v.get_mut(k)) {
                *slot = Expr::Var(copy);
            }
        }
        // Loop results (and typed iter args) take their init's window
        // again, this loop's the copy's (their views follow at the end).
        align_loop_carries(f);
    }
    normalize(f, &snap);
    Ok(())
}

/// The first loop carry (in program order) whose init value is read again
/// after the loop takes it: `(loop, init value, a statement reading it)`.
/// Only carries that already name storage count (a program InitMemRef has
/// not run on carries none, and is planned today without the copy).
/// None on every function this module has run on.
pub fn first_reused_init(f: &Function) -> Option<(StmtId, VarId, StmtId)> {
    reused_inits(f)
        .into_iter()
        .find(|&(_, _, x, _)| current_memref(f, x).is_some())
        .map(|(s, _, x, reader)| (s, x, reader))
}

/// `(loop, carry position, init value, a statement reading it after the
/// loop takes it)` for every such carry, loops in program order.
fn reused_inits(f: &Function) -> Vec<(StmtId, usize, VarId, StmtId)> {
    // Program order, and the values sharing each variable's bytes as the
    // same data (views, bare aliases, in-place results bound to it).
    let mut order: Vec<StmtId> = Vec::new();
    walk(f, Block::Body, &mut order);
    let mut parent: Vec<u32> = (0..f.vars.len() as u32).collect();
    fn find(p: &mut [u32], v: usize) -> usize {
        let mut r = v;
        while p[r] as usize != r {
            p[r] = p[p[r] as usize];
            r = p[r] as usize;
        }
        r
    }
    for &s in &order {
        let StmtKind::Assign { targets, value } = &f.stmts[s].kind else {
            continue;
        };
        let src = match value {
            Expr::Var(y) => Some(*y),
            Expr::Call(c) => {
                let info = ops::lookup_or_default(c.op_name());
                let i = if info.is_view() {
                    Some(0)
                } else {
                    info.output_binds_input()
                };
                i.and_then(|i| c.args.get(i)).and_then(Expr::as_var)
            }
            _ => None,
        };
        if let Some(y) = src {
            for &t in targets.iter() {
                let (a, b) = (find(&mut parent, t.index()), find(&mut parent, y.index()));
                parent[a] = b as u32;
            }
        }
    }
    // The last read of each group, loop-extended (a value defined before a
    // loop and read in it is read again by the next iteration): (program
    // index, statement).
    let po = ProgramOrder::build(f);
    let def = facts::definitions(f, &po);
    // By group representative: the last read so far, if any.
    let mut last: Vec<Option<(u32, StmtId)>> = vec![None; f.vars.len()];
    for &s in &order {
        f.stmts[s].for_each_use(&mut |v| {
            let g = find(&mut parent, v.index());
            let at = po.read_end(s, def[v.index()]).at;
            let e = last[g].get_or_insert((at, s));
            if at >= e.0 {
                *e = (at, s);
            }
        });
    }
    let mut out = Vec::new();
    for &s in &order {
        let StmtKind::For(l) = &f.stmts[s].kind else {
            continue;
        };
        let i = po.index[s];
        for (k, init) in l.init_values().iter().enumerate() {
            let Some(x) = init.as_var() else { continue };
            if current_space(f, x).is_none_or(|sp| !sp.is_on_chip()) {
                continue;
            }
            if let Some((j, reader)) = last[find(&mut parent, x.index())] {
                if j > i {
                    out.push((s, k, x, reader));
                }
            }
        }
    }
    out
}

fn walk(f: &Function, b: Block, out: &mut Vec<StmtId>) {
    for &s in f.block(b) {
        out.push(s);
        for c in f.child_blocks(s) {
            walk(f, c, out);
        }
    }
}

/// The block holding statement `s` and its index there.
fn position(f: &Function, s: StmtId) -> (Block, usize) {
    fn find(f: &Function, b: Block, s: StmtId) -> Option<(Block, usize)> {
        for (i, &t) in f.block(b).iter().enumerate() {
            if t == s {
                return Some((b, i));
            }
            for c in f.child_blocks(t) {
                if let Some(found) = find(f, c, s) {
                    return Some(found);
                }
            }
        }
        None
    }
    find(f, Block::Body, s).unwrap_or((Block::Body, 0))
}
