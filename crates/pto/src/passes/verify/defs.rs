//! Every allocation a planned program names is defined before the name:
//! a MemRef (of a variable a statement defines) or a read naming an
//! allocation variable comes after that allocation's statement, in the
//! same block or one enclosing it. The planners move tiles between
//! allocations and the clean-up removes allocations left unused, so a
//! defect there writes a program that names storage above its definition
//! (it does not read back); here it is an error instead.

use crate::ir::{Block, EntityRef, Function, VarId};

/// The first statement naming an allocation not defined before it, with
/// the allocation's variable.
pub(super) fn check(f: &Function) -> Result<(), (crate::ir::StmtId, VarId)> {
    let mut is_alloc = vec![false; f.vars.len()];
    for (_, s) in f.walk() {
        if let Some(a) = f.alloc_at(s) {
            is_alloc[a.var.index()] = true;
        }
    }
    let mut defined = vec![false; f.vars.len()];
    walk(f, Block::Body, &is_alloc, &mut defined)
}

fn walk(
    f: &Function,
    b: Block,
    is_alloc: &[bool],
    defined: &mut [bool],
) -> Result<(), (crate::ir::StmtId, VarId)> {
    // Allocations of this block end with it.
    let mut here = Vec::new();
    let mut result = Ok(());
    for &s in f.block(b) {
        if let Some(a) = f.alloc_at(s) {
            defined[a.var.index()] = true;
            here.push(a.var);
            continue;
        }
        let stmt = &f.stmts[s];
        let mut named = Vec::new();
        stmt.for_each_use(&mut |v| named.push(v));
        stmt.for_each_def(&mut |d| {
            let m = f.vars[d].ty.as_ref().and_then(crate::ir::Type::memref);
            named.extend(m.and_then(|m| m.base_var()));
        });
        if let Some(&p) = named
            .iter()
            .find(|&&v| is_alloc[v.index()] && !defined[v.index()])
        {
            result = Err((s, p));
            break;
        }
        for c in f.child_blocks(s) {
            if let Err(e) = walk(f, c, is_alloc, defined) {
                result = Err(e);
                break;
            }
        }
        if result.is_err() {
            break;
        }
    }
    for v in here {
        defined[v.index()] = false;
    }
    result
}
