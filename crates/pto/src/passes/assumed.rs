//! Entry checks: the properties a pass assumes of its input that an earlier
//! pass establishes. A pass list that skips that pass (`--passes`) hands the
//! later pass a program without them; planned anyway, the placement check
//! after it fails and reports the input's inconsistency as a planner bug.
//! These checks refuse such a program first, as an input error naming the
//! first statement that breaks the property and the pass to run before.
//!
//! Each check reads only the program (one walk over it, or one run of the
//! placement check's data flow with every allocation apart); a program the
//! earlier pass produced always passes (that pass guarantees the
//! property), so nothing the full pipeline plans is refused.

use crate::ir::{Expr, Function, StmtKind, Type, VarDef, VarId};
use crate::ops;

use super::context::{PassError, PlannerMode};
use super::rewrite::carry_init;
use super::verify::DeclaredClash;

/// The PYPTO planner's pass list, suggested when a skipped pass leaves an
/// assumption unmet.
pub const PYPTO_PASSES: &str =
    "init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr";

/// The pass list of the planners without MemoryReuse (DSA_RP, optimal).
pub const DSA_PASSES: &str = "init_memref,materialize_semantic_aliases,allocate_memory_addr";

/// MaterializeSemanticAliases's carry-init guarantee: no loop starts a carry
/// from a value whose bytes are read again after the loop takes it (the
/// loop writes its carries into its init's buffer). `pass` names the pass
/// that checks, for the message.
pub fn no_reused_carry_init(f: &Function, pass: &str, passes: &str) -> Result<(), PassError> {
    let Some((lp, x, reader)) = carry_init::first_reused_init(f) else {
        return Ok(());
    };
    let line = f.pos_of(lp).line;
    let name = &f.vars[x].name;
    Err(PassError::input(format!(
        "{pass} assumes every loop carry starts from a buffer of its own, but '{name}' starts \
         the loop carry at line {line} and is read here, after the loop took it (the loop \
         writes its carries into '{name}''s buffer): run materialize_semantic_aliases before \
         {pass} (it starts such a carry from a copy), e.g. `--passes {}`",
        passes
    ))
    .at_pos(f.pos_of(reader)))
}

/// AllocateMemoryAddr's assumption (seed 001: it runs after MemoryReuse "to
/// respect the shared MemRefs", gives each allocation a slot and puts every
/// tile, views included, at its slot plus its offset): the storage the
/// MemRefs declare already holds every value where it is read. It places
/// allocations; it moves no tile to another one, inserts no copy and fixes
/// no yield (behaviour.md: under DSA_RP it does not run MemoryReuse's yield
/// fix-up). A yield from another buffer than its result's is fine (a copy
/// at the yield, which every planner models and the placement check
/// accepts); what is not is a view naming another allocation than its
/// source's, or a value (a loop's or an `if`'s result, typically) written
/// into an allocation while another value there is still to be read: the
/// states MaterializeSemanticAliases leaves for MemoryReuse to settle in
/// the PYPTO flow, and settles itself for DSA_RP and the optimal planner.
///
/// `clash` is the first read that fails with every allocation in bytes of
/// its own ([`super::verify::declared_clash`]); the error names it and the
/// pass that would have settled it for `planner`.
pub fn unsettled_storage(f: &Function, clash: &DeclaredClash, planner: PlannerMode) -> PassError {
    let name = |v: VarId| &f.vars[v].name;
    let root_of = |v: VarId| {
        f.vars[v]
            .ty
            .as_ref()
            .and_then(Type::memref)
            .and_then(|m| m.base_var())
    };
    let root = name(clash.root);
    let read = name(clash.read);
    let view_source = match f.vars[clash.read].def {
        VarDef::Stmt(s) => match &f.stmts[s].kind {
            StmtKind::Assign {
                value: Expr::Call(call),
                ..
            } if ops::lookup_or_default(call.op_name()).is_view() => {
                call.args.first().and_then(Expr::as_var)
            }
            _ => None,
        },
        _ => None,
    };
    let what = match view_source.map(|x| (x, root_of(x))) {
        Some((src, Some(r))) if r != clash.root => format!(
            "'{read}' is a view of '{}' and its MemRef names allocation '{root}', not '{}' \
             where '{}' is",
            name(src),
            name(r),
            name(src)
        ),
        _ => {
            let held = match clash.found {
                Some(o) => format!("'{}' ({})", name(o), written_where(f, o)),
                None => "other data on some path".to_string(),
            };
            format!(
                "'{read}' read here finds its bytes of allocation '{root}' holding {held}, even \
                 with every allocation in bytes of its own"
            )
        }
    };
    let (pass, why, passes) = match planner {
        PlannerMode::Pypto => (
            "memory_reuse",
            "it puts each view on its source's buffer and, by its yield fix-up, each loop's and \
             `if`'s result where its readers find it",
            PYPTO_PASSES,
        ),
        _ => (
            "materialize_semantic_aliases",
            "under this planner it puts each loop's and `if`'s result, and the views of it, \
             where their readers find them",
            DSA_PASSES,
        ),
    };
    PassError::input(format!(
        "allocate_memory_addr assumes every tile's MemRef already holds its value where it is \
         read (it places allocations and moves no tile to another), but {what}: run {pass} \
         before allocate_memory_addr ({why}), e.g. `--passes {passes}`"
    ))
    .at_pos(f.pos_of(clash.at))
}

/// Where `v` is written, for a message: a loop's or an `if`'s result at
/// its statement, any other value at its definition.
fn written_where(f: &Function, v: VarId) -> String {
    match f.vars[v].def {
        VarDef::Stmt(s) => {
            let line = f.pos_of(s).line;
            match f.stmts[s].kind {
                StmtKind::If(_) => format!("the result of the `if` at line {line}"),
                StmtKind::For(_) => format!("the result of the loop at line {line}"),
                _ => format!("written at line {line}"),
            }
        }
        VarDef::IterArg(s) => format!("carried by the loop at line {}", f.pos_of(s).line),
        _ => "a parameter".to_string(),
    }
}
