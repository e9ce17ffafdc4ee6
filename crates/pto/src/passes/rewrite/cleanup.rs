//! Clean-up after sharing: strip the consumed `pipeline_membership`
//! attributes and remove `pl.tile.alloc` statements no variable refers to
//! any more (PyPTO's `UsedMemRefCollector` + `RemoveUnusedAllocStatements`).

use crate::ir::{Block, EntityRef, Expr, Function, Type, VarId};
use crate::passes::analysis::hazards::pipeline_membership;

/// Removes `"pipeline_membership"` from every call's `attrs={...}`; an
/// `attrs` left empty is dropped. Returns the tags removed, as
/// `(tile, group, stage)` for each tile the call defines (what verify
/// checks the planner's stage decisions against).
pub fn strip_pipeline_membership(f: &mut Function) -> Vec<(VarId, u32, i64)> {
    let ids: Vec<_> = f.walk().into_iter().map(|(_, s)| s).collect();
    let mut tags = Vec::new();
    for s in ids {
        let targets: Vec<VarId> = f.stmts[s].targets().to_vec();
        let Some(call) = f.stmts[s].call_mut() else {
            continue;
        };
        for (g, st) in pipeline_membership(call) {
            tags.extend(targets.iter().map(|&t| (t, g, st)));
        }
        let Some(Expr::Dict(items)) = call.kwarg_mut("attrs") else {
            continue;
        };
        let before = items.len();
        let mut kept = std::mem::take(items).into_vec();
        kept.retain(|(k, _)| k.as_str() != Some("pipeline_membership"));
        *items = kept.into();
        if items.is_empty() && before > 0 {
            call.remove_kwarg("attrs");
        }
    }
    tags
}

/// Removes the top-level allocations whose root no variable's MemRef names
/// and no statement reads. Returns how many were removed.
///
/// A statement may read an allocation's variable itself (`[mem_vec_2]` as
/// an expression statement): removing the allocation then left a read of
/// an undefined name, a program that does not read back.
///
/// Holds one flag a variable and one a statement (a list of the
/// allocations and two hash sets cost 6 MB at 100k statements, the peak
/// of the pass).
pub fn remove_dead_allocs(f: &mut Function) -> usize {
    let mut used = vec![false; f.vars.len()];
    for d in f.vars.values() {
        let m = d.ty.as_ref().and_then(Type::memref);
        if let Some(v) = m.and_then(|m| m.base_var()) {
            used[v.index()] = true;
        }
    }
    for (_, s) in f.walk() {
        f.stmts[s].for_each_use(&mut |v| used[v.index()] = true);
    }
    let mut dead = vec![false; f.stmts.len()];
    let mut n = 0;
    for &s in f.block(Block::Body) {
        if let Some(a) = f.alloc_at(s) {
            if !used[a.var.index()] {
                dead[s.index()] = true;
                n += 1;
            }
        }
    }
    drop(used);
    // Removing releases each statement's payload too.
    f.remove_where(Block::Body, |s| dead[s.index()]);
    n
}

/// Moves each top-level `pl.tile.alloc` statement above the first
/// top-level statement that names its variable (in a MemRef of a variable
/// the statement or its blocks define, or read as a value). Returns how
/// many moved.
///
/// Sharing can give a tile defined early the storage of an allocation
/// written later (the larger of two allocations becomes the arena of
/// both), and the clean-up then removes the earlier allocation: the
/// program read the surviving allocation's name above its definition and
/// did not read back. PyPTO's InitMemRef writes every allocation at the top
/// of the function, so a program it made never moves; an allocation has no
/// effect but naming storage, so moving it up changes nothing else.
pub fn hoist_allocs_above_uses(f: &mut Function) -> usize {
    // first[v]: the first top-level statement naming variable v.
    let mut first = vec![usize::MAX; f.vars.len()];
    let body: Vec<_> = f.block(Block::Body).to_vec();
    for (i, &top) in body.iter().enumerate() {
        let note = |v: VarId, first: &mut Vec<usize>| {
            if first[v.index()] == usize::MAX {
                first[v.index()] = i;
            }
        };
        let mut subtree = vec![(Block::Body, top)];
        subtree.extend(f.child_blocks(top).into_iter().flat_map(|b| f.walk_in(b)));
        for (_, s) in subtree {
            if f.alloc_at(s).is_some() {
                continue;
            }
            let stmt = &f.stmts[s];
            stmt.for_each_def(&mut |d| {
                let base = f.vars[d].ty.as_ref().and_then(Type::memref);
                if let Some(p) = base.and_then(|m| m.base_var()) {
                    note(p, &mut first);
                }
            });
            stmt.for_each_use(&mut |v| note(v, &mut first));
        }
    }
    let mut moved_to: Vec<Option<usize>> = vec![None; body.len()];
    let mut n = 0;
    for (j, &s) in body.iter().enumerate() {
        if let Some(a) = f.alloc_at(s) {
            let i = first[a.var.index()];
            if i < j {
                moved_to[j] = Some(i);
                n += 1;
            }
        }
    }
    if n == 0 {
        return 0;
    }
    // Rebuilt in one pass: each moved allocation (in its original order)
    // goes right before the statement that first names it.
    let mut before: Vec<Vec<crate::ir::StmtId>> = vec![Vec::new(); body.len()];
    for (j, to) in moved_to.iter().enumerate() {
        if let Some(i) = to {
            before[*i].push(body[j]);
        }
    }
    let mut out = Vec::with_capacity(body.len());
    for (j, &s) in body.iter().enumerate() {
        out.extend(before[j].iter().copied());
        if moved_to[j].is_none() {
            out.push(s);
        }
    }
    if let Some(b) = f.block_mut(Block::Body) {
        *b = out;
    }
    n
}
