//! MemoryReuse: tiles whose lifetimes do not overlap share a buffer, and
//! allocations nobody refers to any more are removed (seed 000, the PYPTO
//! planner's opportunistic reuse stage).
//!
//! # Assumes
//! InitMemRef ran (every on-chip tile names an allocation root; views,
//! in-place results, bare aliases and control-flow carries already share
//! their source's root) and MaterializeSemanticAliases: no loop carry
//! starts from a value read again after the loop takes it (checked on
//! entry, [`crate::passes::assumed::no_reused_carry_init`]; an input
//! error otherwise).
//!
//! # Guarantees
//! - Two tiles share bytes only when their lifetimes do not interfere and no
//!   rule forbids it (op no-alias table, target hazards, pipeline-stage
//!   separation, declared allocations).
//! - Every loop's init, iter arg, yielded value and result name one window;
//!   every `if` result names its then branch's window and every path writes
//!   it (by retargeting the producer or by an inserted `tile.move`).
//! - `pipeline_membership` attributes are gone; every remaining
//!   `pl.tile.alloc` is referenced.
//! - Idempotent: a second run changes nothing. A program that carries the
//!   PYPTO planner's addresses (printed after allocate_memory_addr) keeps
//!   its buffers as they are: the stage tags that kept some apart were
//!   consumed, and the text shows the decision only through the buffers
//!   ([`crate::passes::InputPlacement`]). A program printed after this
//!   pass alone carries neither tags nor addresses: a second run there
//!   may merge stage copies of a lowered pipeline further (a `pl.pipeline`
//!   loop still in the text keeps its copies apart, see
//!   `constraints::planned_pipeline_stages`).
//! - Functions are left untouched in the DSA_RP and PTOAS planner modes.
//!
//! # Stages (one module each)
//! 1-2. The planner-neutral model ([`Model`]): program order and
//!    lifetimes, hard separations, isolated roots, stage memberships,
//!    declared-slot overlap check (the same model every planner uses).
//! 3. [`packing`]: largest-first first-fit per space, capacity-gated
//!    pipeline depth with shedding, legacy fallback, sub-range fallback.
//! 4. [`apply`]: rewrite the MemRefs of moved roots.
//! 5. [`yield_fixup::align_loop_carries`], then
//!    [`yield_fixup::coalesce_acc_if_phis`] (the shared rewrites of
//!    [`crate::passes::rewrite`]).
//! 6. [`normalize`] (before and after the next stage).
//! 7. [`yield_fixup::fix_yields`]: retarget or copy, ordered, swaps through
//!    scratch.
//! 8. [`cleanup`]: remove dead allocations; finally strip
//!    `pipeline_membership`.
//!
//! Stages 1-8 (without the strip) repeat while the yield fix-up retargeted
//! a value or allocated a swap scratch buffer (at most four rounds): both
//! free or add bytes the packing has not seen, and repacking them is what
//! makes a second run of the pass a no-op. A later round packs every
//! pipeline group at the depth the first round chose (no capacity gating
//! of its own): those are the depths the placement check holds the
//! function to.
//!
//! Sub-range placements keep the moved root's own extent
//! (`pl.MemRef(arena, pl.const(offset), root size)`, views rebased into it),
//! so the address pass and its validator see exact windows.
//!
//! Tests: `tests/memory_reuse.rs` (one small program per rule and every
//! example of the seed, exact text), `tests/memory_reuse_random.rs`
//! (random kernels through the whole pipeline; the address pass validates
//! every placement; idempotence), `tests/memory_reuse_data.rs` (PyPTO's
//! reference cases and kernels, when `../shared` is present), and the
//! `memory_reuse_bench` example (10k / 100k statements).
//!
//! # How PyPTO's outputs are reproduced (test plan)
//!
//! The rules below were checked against every `mr__*` case and every kernel
//! of the reference data (`before.py` -> `after_reuse.py`,
//! `after_MaterializeSemanticAliases` -> `after_MemoryReuse`):
//! - *Indexing*: pre-order, one index per statement (allocs, yields and
//!   returns included); `for` inits and `if` conditions read at the
//!   `for`/`if` index (`test_loop_return_var_blocks_init_memref_reuse`).
//! - *Touching is sharing*: `prev.last <= curr.def` (`test_simple`,
//!   `test_transitive_conflict`, producer-consumer example of the seed).
//! - *Loop end*: a value defined before a loop and read in it lives to the
//!   loop's end (seed 000, step 1: "延展到循环结束", so the next iteration
//!   can read it again), and a tile the loop's last statement writes does
//!   not take its bytes: the root's lifetime ends one index past the
//!   loop's last statement (`order::ReadEnd::last`). Touching at that
//!   statement would be the seed's producer-consumer rule, whose reason
//!   ("inputs are read before the output is written", within one
//!   statement) does not hold for a read the next iteration repeats: the
//!   written tile would hold other data when `a` is read again
//!   (`a = load; for: { e = exp(a); t = load }`). No reference output
//!   shows the pattern (every loop body of `../shared/data/pto` ends in a
//!   yield or a store, never a tile write), so there is no older PyPTO
//!   behaviour to keep under `--compat`, and sharing there is a placement
//!   the independent check rejects (`tests/loop_end.rs`).
//! - *Phi family*: an `if` result read after the `if` extends both branch
//!   values, so branch values do not share by packing
//!   (`test_if_phi_read_after_branch_blocks_reuse`); the else value then
//!   joins the then buffer by retargeting in the yield fix-up
//!   (`test_different_if_branches_can_share`,
//!   `test_if_stmt_return_var_memref_patched`).
//! - *Order and representative*: size descending, then definition index,
//!   then root order; the first member of a buffer is its representative
//!   and a smaller member prints the representative's whole MemRef
//!   (`test_multi_group_shed_prefers_largest_slot`: `lam` prints
//!   `mem_mat_9`'s 24576 bytes), while a view keeps its own window
//!   (`rms_norm`: `pl.MemRef(mem_vec_5, 0, 128)`).
//! - *Both directions*: a smaller earlier root may not join a buffer whose
//!   later member forbids aliasing it (`test_widening_cast_...`).
//! - *No-alias table*: besides the seed's table, `tile.xors`, `tile.sort32`
//!   and `tile.gather_mask` are not in-place safe
//!   (`test_xors_no_producer_consumer_reuse`,
//!   `test_retargeter_declines_for_not_inplace_safe_op`).
//! - *Retarget before copy*: a loop yield whose producer reads the carry
//!   with a not-in-place-safe op, or whose carry is still read later, gets a
//!   `NAME_mv = pl.tile.move(NAME, target_memory=...)` before the yield
//!   (`test_retargeter_declines_*`).
//! - *Stage guard*: dense stage ordinals, residues modulo
//!   `min(depth, floor(C / slot))`; shedding by largest slot
//!   (`test_finds_max_affordable_double_buffer_depth`,
//!   `test_sheds_depth_when_coresident_tile_would_overflow`,
//!   `test_multi_group_shed_prefers_largest_slot`); unknown capacity keeps
//!   the full depth (`test_unknown_capacity_matches_legacy_not_merge_all`).
//!
//! Where the reference data predates the seed: the data was printed by an
//! older PyPTO that applied neither the split-AIV load + tpop hazard
//! (`test_dsa_rp_ascend910b_split_aiv_physically_separates_load_buffer`
//! shares `down_next` with the load buffer) nor the written-workspace hazard
//! (`test_sels_output_may_reuse_dead_tmp_*` lets the `tmp` workspace reuse a
//! buffer whose member died before it), nor the A2/A3 narrowing-cast
//! separation. The kernels show the same: `bidirect_ud`, `c2v_lr` and
//! `mixed_matmul_bias_lr` on 910B share a loaded tile's buffer with the
//! writer that adds a popped value to it (the last one fits beside its
//! pipe ring only so; with the hazard it is over capacity), and
//! `qwen3_scope3` on 910B writes FP32 -> BF16 casts over their source
//! (`tests/pypto_seed_rules.rs` attributes each to its one rule). The seed
//! wins: these rules are on by default; [`SeedRules`] turns them off to
//! reproduce the older outputs.

pub mod apply;
pub mod packing;

use super::analysis::model::Model;
use super::analysis::reserve;
use super::context::{PassContext, PassError, PlannerMode, SeedRules, StageClaims};
use super::rewrite::{cleanup, normalize, yield_fixup};
use crate::ir::{Expr, Function, MemRef, Program, StmtKind, Type, VarId};
use packing::PackNote;

/// Runs the pass on every function of `program`, with the seed rules the
/// context selects.
pub fn run(program: &mut Program, ctx: &mut PassContext) -> Result<(), PassError> {
    let rules = ctx.seed_rules;
    run_with(program, ctx, rules)
}

/// Runs the pass with explicit seed rules.
pub fn run_with(
    program: &mut Program,
    ctx: &mut PassContext,
    rules: SeedRules,
) -> Result<(), PassError> {
    if ctx.planner != PlannerMode::Pypto {
        return Ok(());
    }
    for f in &mut program.functions {
        if f.kind().is_kernel() {
            super::assumed::no_reused_carry_init(f, "memory_reuse", super::assumed::PYPTO_PASSES)?;
        }
        run_function(f, ctx, rules)?;
    }
    Ok(())
}

/// Runs the pass on one function.
pub fn run_function(
    f: &mut Function,
    ctx: &mut PassContext,
    rules: SeedRules,
) -> Result<(), PassError> {
    // Taken when the first round rewrites the function: the analyses and
    // the packing before it leave the function as it was, and its peak
    // is then lower by the snapshot.
    let mut snap = None;
    // Retargeting a yielded value frees (part of) its old buffer, and a
    // swap through scratch adds an allocation after packing; another round
    // packs the program as it now is, so that a second run of the pass
    // finds nothing left to do. Each round only merges, so this settles
    // quickly; the bound is a guard.
    let mut notes = Vec::new();
    // The stage depths of the first packing applied (a later round only
    // merges further what the first kept apart at those depths).
    let mut depths = None;
    // The reserved windows, resolved once: the rewrites below leave the
    // `reserve_buffer` calls alone. An unresolvable window is left to the
    // address pass, which reports it.
    let reserves = reserve::resolve(f, ctx.policy.as_ref()).unwrap_or_default();
    let if_results = if_result_memrefs(f);
    // A program this planner laid out keeps its buffers: what kept them
    // apart (consumed stage tags, the depth they bought) is not in its
    // text, so packing it again would merge what the first plan
    // separated, and planning again would not be a fixed point (see
    // `InputPlacement`). Another planner's layout (DSA-RP's, with buffers
    // on shared bytes) is packed again: its buffers kept apart and laid
    // out one after another need more than the bytes it placed them in.
    let keep = ctx.placed.get(&*f.name).is_some_and(|p| p.laid_out);
    let own_before = f.sharing.own_memrefs.clone();
    for round in 0..4 {
        let Model { mut lt, cons } = Model::build(f, &ctx.soc, rules)?;
        // Packing and rewriting read only the roots and their members.
        lt.release_var_tables();
        let packing = if keep {
            packing::keep(&lt)
        } else {
            packing::pack(
                f,
                &lt,
                &cons,
                &reserves,
                &ctx.soc,
                ctx.policy.as_ref(),
                rules.sub_range,
                depths.as_deref(),
            )
        };
        let moved = packing.iter().any(|(r, p)| p.arena != r || p.offset != 0);
        // A later round that moves nothing leaves every boundary as the
        // previous round's fix-up made it.
        if round > 0 && !moved {
            break;
        }
        if notes.is_empty() {
            notes.clone_from(&packing.notes);
        }
        if depths.is_none() {
            depths = Some(packing.depths.clone());
        }
        let snap = &*snap.get_or_insert_with(|| normalize::snapshot(f));
        apply::apply(f, &lt, &packing);
        // The analysis tables describe the program before the rewrite;
        // the rest of the round works on the program alone.
        drop((lt, cons, packing));
        yield_fixup::align_loop_carries(f);
        yield_fixup::coalesce_acc_if_phis(f);
        normalize::normalize(f, snap);
        let changes = yield_fixup::fix_yields_opts(f, ctx.soc.family(), true, rules.as_var_like)?;
        normalize::normalize(f, snap);
        cleanup::remove_dead_allocs(f);
        cleanup::hoist_allocs_above_uses(f);
        if changes == yield_fixup::FixupChanges::default() {
            break;
        }
    }
    note_whole_type_aliases(f, &if_results);
    forget_replaced_own_memrefs(f, &own_before);
    for note in &notes {
        emit_note(f, ctx, note);
    }
    let tags = cleanup::strip_pipeline_membership(f);
    if !tags.is_empty() {
        ctx.stage_claims.insert(
            f.name.to_string(),
            StageClaims {
                tags,
                depths: depths.unwrap_or_default(),
            },
        );
    }
    // The allocations merged away were InitMemRef's last variables and
    // statements: give their memory back for the rest of the run.
    f.shrink_arenas();
    Ok(())
}

/// The MemRef of every `if` result of `f`.
fn if_result_memrefs(f: &Function) -> Vec<(VarId, Option<MemRef>)> {
    let mut out = Vec::new();
    for (_, s) in f.walk() {
        if let StmtKind::If(i) = &f.stmts[s].kind {
            for &r in &i.results {
                out.push((r, f.vars[r].ty.as_ref().and_then(Type::memref).cloned()));
            }
        }
    }
    out
}

/// Records the bare aliases of `if` results this pass moved that follow
/// their source's whole type (see
/// [`crate::ir::ObjectSharing::whole_type_aliases`]); `before` holds the
/// results' MemRefs when the pass started.
fn note_whole_type_aliases(f: &mut Function, before: &[(VarId, Option<MemRef>)]) {
    let memref = |f: &Function, v: VarId| f.vars[v].ty.as_ref().and_then(Type::memref).cloned();
    // Variables whose alias chain leads to a moved `if` result, in
    // definition order (a source is defined before its aliases).
    let mut pending: rustc_hash::FxHashSet<VarId> = before
        .iter()
        .filter(|(r, m)| memref(f, *r) != *m)
        .map(|(r, _)| *r)
        .collect();
    if pending.is_empty() {
        return;
    }
    let mut found = Vec::new();
    for (_, s) in f.walk() {
        let StmtKind::Assign {
            targets,
            value: Expr::Var(y),
        } = &f.stmts[s].kind
        else {
            continue;
        };
        let [x] = targets.as_slice() else { continue };
        if pending.contains(y) && f.vars[*x].ty.is_some() && f.vars[*x].ty == f.vars[*y].ty {
            pending.insert(*x);
            found.push(*x);
        }
    }
    f.sharing.whole_type_aliases.extend(found);
}

/// Drops the members this run recorded as holding a MemRef of their own
/// whose MemRef a later stage of the pass replaced (a producer the yield
/// fix-up retargeted onto the canonical buffer holds that buffer's
/// object); `before` is the record when the pass started.
fn forget_replaced_own_memrefs(f: &mut Function, before: &rustc_hash::FxHashSet<VarId>) {
    let vars = &f.vars;
    f.sharing.own_memrefs.retain(|&v| {
        let m = vars[v].ty.as_ref().and_then(Type::memref);
        before.contains(&v) || m.is_some_and(|m| matches!(m.offset(), Some(Expr::Int(_))))
    });
}

fn emit_note(f: &Function, ctx: &mut PassContext, note: &PackNote) {
    match *note {
        PackNote::ReducedDepth {
            space,
            group,
            requested,
            actual,
            slot,
            capacity,
        } => ctx.perf_hint(
            "PH-MR-001",
            format!(
                "MemoryReuse: function '{}', {space} space: pipeline group {group} requested {requested} concurrent stage buffers but only {actual} fit ({slot} bytes per stage buffer, capacity {capacity} bytes); stages now share buffers and serialize. Shrink each stage's tile to at most {} bytes or lower stage= to {actual}",
                f.name,
                capacity / u64::from(requested.max(1)),
            ),
        ),
        PackNote::LegacyFallback {
            space,
            footprint,
            capacity,
        } => ctx.warning(format!(
            "MemoryReuse: function '{}', {space} space needs {footprint} bytes but has {capacity} even with every pipeline group at depth 1; kept the legacy packing with the requested stage depths. Shrink the pipelined tiles or lower stage=",
            f.name
        )),
    }
}
