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
//! ran: tiles carry MemRefs relative to their root allocation, and the
//! storage those MemRefs declare already holds every value where it is
//! read (seed 001: the pass runs after MemoryReuse to respect the shared
//! MemRefs, and a view sits in its source's slot). It places allocations
//! and moves no tile to another one, so a view naming another allocation
//! than its source's, or a loop's or `if`'s result written over a value
//! still to be read, would read right only by the accident of two
//! allocations landing at one address. A yield from
//! other bytes than its result's is not such a case (a copy, planned and
//! checked as one). Every program the passes before it produce meets the
//! assumption (MemoryReuse and MaterializeSemanticAliases guarantee it;
//! measured on every shared and repository program, target `none`).
//!
//! It is checked when the placement check fails, not on entry
//! ([`verify::declared_clash`]: the data-flow check with every allocation
//! in bytes of its own, run on the planned function, whose allocations
//! keep their tiles): a failure on an input that breaks it is an input
//! error naming the pass to run ([`assumed::unsettled_storage`]), one on
//! an input that meets it a planner bug. Not on entry, because DSA_RP and
//! the optimal planner place a view with its source (the slot of seed
//! 001), so a view of a plain tile left on another allocation plans right
//! with them today (`crates/cli/tests/skipped_pass.rs`,
//! `a_view_of_a_plain_tile_on_another_buffer`);
//! a view of an `if` result whose branches yield from other allocations
//! does not.
//!
//! **Guarantees**, for every InCore/AIC/AIV function (others are left
//! alone): every tile's MemRef offset is its absolute, aligned address
//! within the space's capacity and clear of the `reserve_buffer` windows
//! (whose resolved `base=` is written back), and the placement passed
//! [`verify`], which rebuilds every rule from the planned program on its
//! own; a planner bug is an internal error and nothing is written.

use super::context::{PassContext, PassError, PlannerMode, SpaceReport};
use super::rewrite::storage::MemrefOwners;
use super::{assumed, dsa_rp, sequential, verify};
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
        let checked = verify::check_function(
            f,
            &ctx.soc,
            ctx.policy.as_ref(),
            ctx.seed_rules,
            claims.as_ref(),
        );
        if let Err(e) = checked {
            // A placement the check refuses is the planner's bug only when
            // the input met the module's assumption; otherwise it is the
            // input's, and names the pass that would have settled it.
            return Err(match verify::declared_clash(f, ctx.policy.as_ref()) {
                Some(c) => assumed::unsettled_storage(f, &c, ctx.planner),
                None => e,
            });
        }
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
