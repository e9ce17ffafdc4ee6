//! AllocateMemoryAddr: gives every allocation root an address (seed 001),
//! then checks the result.
//!
//! A switch between the planners' address stages:
//! - PYPTO: [`sequential`], the roots MemoryReuse left laid out one after
//!   another per space;
//! - DSA_RP and optimal: [`dsa_rp`], a joint placement of every root per
//!   space on the planner-neutral model;
//! - PTOAS: nothing (the assembler assigns addresses).
//!
//! **Assumes** InitMemRef (and, for PYPTO, MemoryReuse; for the others,
//! MaterializeSemanticAliases, which settled the control-flow boundaries)
//! ran: tiles carry MemRefs relative to their root allocation.
//!
//! **Guarantees**, for every InCore/AIC/AIV function (others are left
//! alone): every tile's MemRef offset is its absolute, aligned address
//! within the space's capacity and clear of the `reserve_buffer` windows
//! (whose resolved `base=` is written back), and the placement passed
//! [`verify`], which rebuilds every rule from the planned program on its
//! own; a planner bug is an internal error and nothing is written.

use super::context::{PassContext, PassError, PlannerMode, SpaceReport};
use super::rewrite::storage::MemrefOwners;
use super::{dsa_rp, sequential, verify};
use crate::ir::{Expr, Function, Program, Type};

pub use super::analysis::layout::{Layout, Slot};

/// Runs the pass on every kernel function of `program`.
pub fn run(program: &mut Program, ctx: &mut PassContext) -> Result<(), PassError> {
    if ctx.planner == PlannerMode::Ptoas {
        return Ok(());
    }
    let mut opts = ctx.dsa.clone();
    opts.optimal = ctx.planner == PlannerMode::Optimal;
    // A failing pass hands back no DSA_RP reports at all.
    let mut reports: Vec<SpaceReport> = Vec::new();
    for f in &mut program.functions {
        if !f.kind().is_kernel() {
            continue;
        }
        note_own_memrefs(f);
        match ctx.planner {
            PlannerMode::Pypto => {
                sequential::allocate_function(f, &ctx.soc, ctx.policy.as_ref())?;
            }
            PlannerMode::DsaRp | PlannerMode::Optimal => {
                reports.extend(dsa_rp::plan_function(f, ctx, &opts)?);
            }
            PlannerMode::Ptoas => {}
        }
        let claims = ctx.stage_claims.remove(&*f.name);
        verify::check_function(
            f,
            &ctx.soc,
            ctx.policy.as_ref(),
            ctx.seed_rules,
            claims.as_ref(),
        )?;
    }
    ctx.dsa_reports.extend(reports);
    Ok(())
}

/// Records the variables whose MemRef is an object of their own before
/// the addresses make every offset print alike (see
/// [`crate::ir::ObjectSharing::own_memrefs`]): a MemRef with a plain-integer
/// offset (a view's, made for it alone by MemoryReuse or InitMemRef) that
/// the variable does not hold from another (a whole-source view of a
/// window holds the window's).
fn note_own_memrefs(f: &mut Function) {
    // One table for every variable: a walk per variable would be
    // quadratic on a long chain of views.
    let mut owners = MemrefOwners::new(f);
    let own = f.vars.iter().filter_map(|(v, d)| {
        let m = d.ty.as_ref().and_then(Type::memref)?;
        let int = matches!(m.offset(), Some(Expr::Int(_)));
        (int && owners.get(f, v, |_, _| false) == v).then_some(v)
    });
    let own: Vec<_> = own.collect();
    f.sharing.own_memrefs.extend(own);
}
