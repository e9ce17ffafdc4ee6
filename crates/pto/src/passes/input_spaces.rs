//! The registry's input-space constraints, checked on a whole typed program.
//!
//! [`check`]: the registry's input-space constraints
//! (`set_input_memory`, e.g. `tile.matmul` reads its lhs from Left). They
//! belong to one stage: PyPTO's InferTileMemorySpace, which runs before
//! InitMemRef, meets each one by inserting a `tile.move` (`op-registry.md`
//! §7, §9), and gives every tile a space. The memory passes after it never
//! check them again: PyPTO's own tests hand them declared spaces that break
//! a constraint (a `tile.matmul` reading Mat tiles,
//! `cases/mr__TestYieldFixup__test_divergent_acc_phi_*`) and plan them as
//! written. So tilemem plans a declared space as written too and says so
//! in a warning, while a constrained operand with no space at all is bad
//! input: InitMemRef gives a tile without a space no storage, so the op
//! would read bytes nobody placed. The call-level checks that need no types
//! (unknown ops, argument counts, keywords) run in the reader
//! ([`crate::ops::check_call`]).
//!
//! Assumes: a parsed program at any stage (no memory pass changes a tile's
//! space, so one check before the pipeline covers all of them).

use super::context::PassError;
use crate::ir::{Expr, Function, Program, Type};
use crate::ops;

/// Checks every call of every function: an error for a constrained tile
/// operand without a space; one warning per operand whose declared space
/// the registry does not allow.
pub fn check(program: &Program) -> Result<Vec<String>, PassError> {
    let mut warnings = Vec::new();
    for f in &program.functions {
        function_input_spaces(f, &mut warnings)?;
    }
    Ok(warnings)
}

fn function_input_spaces(f: &Function, warnings: &mut Vec<String>) -> Result<(), PassError> {
    for (_, s) in f.walk() {
        let Some(call) = f.stmts[s].call() else {
            continue;
        };
        let Some(info) = ops::lookup(call.op_name()) else {
            continue;
        };
        for &(i, allowed) in info.input_memory {
            let Some(v) = call.args.get(i).and_then(Expr::as_var) else {
                continue;
            };
            let Some(Type::Tile(t, _)) = f.ty(v) else {
                continue;
            };
            let names: Vec<&str> = allowed.iter().map(|m| m.name()).collect();
            let arg = info.args.get(i).copied().unwrap_or("?");
            let var = &f.vars[v].name;
            let pos = f.pos_of(s);
            let Some(space) = &t.space else {
                return Err(PassError::input(format!(
                    "'{}' argument {i} ({arg}) '{var}' is a tile without a memory space, so it \
                     gets no storage; PyPTO e2d0f78 registers the argument for {} \
                     (set_input_memory): declare the space in its type (`pl.Mem.{}`)",
                    info.name,
                    names.join(" or "),
                    names[0],
                ))
                .at_pos(pos));
            };
            if allowed.iter().any(|m| m.name() == space.name()) {
                continue;
            }
            warnings.push(format!(
                "line {}: '{}' argument {i} ({arg}) '{var}' is in {}, but PyPTO e2d0f78 registers \
                 the argument for {} only (set_input_memory); planned as declared: move it \
                 first (`pl.tile.move({var}, target_memory=pl.Mem.{})`) unless the target reads \
                 it there",
                pos.line,
                info.name,
                space.name(),
                names.join(" or "),
                names[0],
            ));
        }
    }
    Ok(())
}
