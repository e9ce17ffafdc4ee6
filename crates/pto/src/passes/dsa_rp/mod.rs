//! The address stage of the DSA_RP planner mode (and the `optimal` mode
//! built on the same model), run by `allocate_memory_addr`, which checks
//! every output with [`crate::passes::verify`].
//!
//! # What the stage does
//! MemoryReuse is skipped in this mode, so every allocation root keeps its
//! identity. Per kernel function (InCore/AIC/AIV) and memory space the stage
//! lowers the roots of the planner-neutral model
//! ([`crate::passes::analysis::model`]) to a placement model (`model`),
//! places them with the canonical greedy
//! ([`tilemem_plan::solve::Canonical`]), checks the result with the
//! validator of `tilemem-plan` on its own problem, and writes the addresses
//! back (`write`).
//!
//! Assumes: InitMemRef (and MaterializeSemanticAliases) ran: tiles carry
//! MemRefs into top-level `tile.alloc` roots. Guarantees: every tile of a
//! kernel function gets an absolute, 32-byte aligned address within the
//! space's capacity; roots that must not share bytes do not; unreferenced
//! allocs are removed; `pipeline_membership` attributes are stripped;
//! `reserve_buffer` AUTO bases are resolved. Running it twice changes
//! nothing more (addresses are recomputed from the relative offsets the
//! first run wrote only when the program is re-planned from scratch).
//!
//! # The model (derived from PyPTO's reference outputs)
//! - **Lifetimes**: the shared model's (MemoryReuse's roots and lifetimes,
//!   with the occupancy of every value a root holds,
//!   [`crate::passes::analysis::exclusive`]); a root lives on `[s, e]`;
//!   the DSA lifetime is the half-open `[2s+1, max(2s+2, 2e+1))`, so a
//!   value read for the last time by the statement that defines another
//!   may share bytes with it; a value the next iteration of a loop reads
//!   again lives past the writes of that loop's last statement `e` (the
//!   root lives to `e + 1`, see `order::ReadEnd::last`, and the
//!   occupancy to `2e+2`).
//! - **Hard pairs**: overlapping lifetimes and every separation of the
//!   shared model (declared allocations, no-alias rules incl. tuples, the
//!   A2/A3 operand pairs, the split-AIV load + tpop hazard, written
//!   workspaces).
//! - **Pipeline pairs**: roots holding copies of different stages of one
//!   `pipeline_membership` group (nested pipelines tag a tile with several
//!   groups; any shared group with different stages makes a pair). They
//!   stay apart when, in some shared group, their dense stage ordinals
//!   differ modulo that group's depth: seed 000's stage guard, kept as hard
//!   separations. Two roots of one stage in every shared group are not
//!   concurrent copies: lifetimes and the other rules alone decide, and
//!   their handoff may cost a penalty like any other pair. The strict pass
//!   uses the affordable depth `min(stages, capacity / slot)` (slot =
//!   largest aligned member); when nothing fits and those depths keep some
//!   stage copies apart, all those separations become penalties of weight 1
//!   at once and the same greedy runs again. `PH-DSA-001` reports stage copies that end
//!   up sharing bytes. Handoffs between copies of different stages are the
//!   pipeline's own: never a penalty.
//! - **Soft pairs** (weight 1 however many rules match a pair, only with a
//!   backend): PyPTO's penalty recognizer (`penalty`): accesses are the
//!   operands and results of ops with memory-access evidence (a provably
//!   whole `tile.assemble` does not read its target); an op without
//!   functional evidence poisons the roots it touches (a whole-root
//!   `tile.store`/`tile.assemble` excepted); a root qualifies when every access covers it whole, all
//!   lie on one structured path and the first is a write on one pipe; two
//!   qualifying roots of one path cost 1 when the earlier one has a
//!   terminal access on a pipe other than the later one's first write, and
//!   inside a loop also across the back edge.
//! - **Greedy** (behaviour.md; [`tilemem_plan::solve::Canonical`] with
//!   [`greedy_budget`]): a penalty-blind first fit is the incumbent; then
//!   size-descending, begin-ascending and penalty-weight-descending orders
//!   and four successive `mt19937_64` (seed 0) shuffles of the last one,
//!   duplicates skipped. Candidates are 0, the reserved end and the aligned
//!   tops of placed hard and soft neighbours; a candidate scores the summed
//!   weight of every soft neighbour it overlaps (lowest, then lowest
//!   offset). An order's placement replaces the incumbent only when
//!   strictly better on `(penalty, peak)`.
//!
//! On the reference folder this reproduces every DSA_RP case output from
//! the case's source and, with the address stage alone, every case but
//! the two whose DSA_RP chain failed earlier (a divergent accumulator phi,
//! which MaterializeSemanticAliases rejects; the address stage does no
//! yield fix-up and no accumulator check of its own), and, for the real kernels, every output except those listed by
//! `tests/dsa_rp_conformance.rs` (see `dsa_rp_known_good.txt`). Two kernel
//! outputs differ by design, because the seeds are newer than the PyPTO
//! build that printed them, and match under `--compat pypto-e2d0f78`:
//! `qwen3_scope3` on 910B (the A2/A3 narrowing-cast rule keeps a
//! `tile.cast` FP32 -> BF16 off its source: 28672 Vec bytes instead of
//! 16384) and `mixed_matmul_bias_lr` (the split-AIV load + tpop hazard);
//! `tests/dsa_rp_seed_rules.rs` attributes each to its rule.
//!
//! # Optimal mode
//! The same model as a `tilemem-plan` problem (soft pairs as pairwise
//! penalties), solved by the exact solver within the time and work budget;
//! the DSA_RP placement is kept whenever the exact answer is not better
//! under the chosen objective (lowest peak first by default). Roots of
//! exclusive `if` branches whose hulls overlap (see
//! [`crate::passes::analysis::exclusive`]) are compatible pairs there: they
//! may share bytes, which DSA_RP's own problem does not allow.

mod model;
mod penalty;
mod pipes;
pub mod rng;
mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;
use tilemem_plan::solve::handoff;

use tilemem_plan::{Objective, Solution, SolverKind};

use crate::ir::{EntityRef, Function};
use crate::passes::analysis::model::Model;
use crate::passes::analysis::order::ProgramOrder;
use crate::passes::analysis::{facts, reserve};
use crate::passes::context::{PassContext, PassError, StageClaims};
use crate::passes::rewrite::cleanup;
use crate::passes::sequential::capacity_error_pos;

pub use crate::passes::context::{DsaOptions, SpaceReport, DEFAULT_NODE_LIMIT};

/// The budget of DSA_RP's greedy: penalties first, PyPTO's seed 0 for the
/// shuffled orders, no time limit (the greedy is polynomial, and a clock
/// would make the result depend on the machine).
pub fn greedy_budget() -> tilemem_plan::Budget {
    tilemem_plan::Budget::default()
        .with_objective(Objective::PenaltyThenPeak)
        .with_time_limit(None)
}

/// PyPTO's DSA_RP greedy (behaviour.md, "the greedy solver"): the
/// penalty-blind first fit, then size-descending, begin-ascending and
/// weight-descending orders and four `mt19937_64` shuffles; candidates 0,
/// reserved ends and the tops of placed neighbours; a candidate scores the
/// weights of every soft neighbour it overlaps; an order replaces the
/// incumbent only when strictly better on (penalty, peak).
fn greedy(problem: &tilemem_plan::Problem) -> Option<handoff::Placement> {
    let budget = greedy_budget();
    let out = tilemem_plan::solve(problem, SolverKind::Canonical, &budget).ok()?;
    let sol = out.solution?;
    let stats = tilemem_plan::validate(problem, &sol).ok()?;
    Some(handoff::Placement {
        offsets: sol.offsets,
        penalty: stats.penalty,
        peak: stats.height,
        run: "canonical",
    })
}

/// The exact search's placement of `problem` within its capacity, for the
/// optimal mode when the canonical greedy found none.
fn exact_fit(problem: &tilemem_plan::Problem, opts: &DsaOptions) -> Result<Solution, bool> {
    let budget = tilemem_plan::Budget::default()
        .with_time_limit(opts.time_limit)
        .with_node_limit(opts.node_limit)
        .with_objective(opts.objective);
    let out = tilemem_plan::solve(problem, SolverKind::Exact, &budget).map_err(|_| false)?;
    let cut = out.cut_short && !out.proven_infeasible;
    let sol = out.solution.ok_or(cut)?;
    tilemem_plan::validate(problem, &sol)
        .map(|_| sol)
        .map_err(|_| cut)
}

/// Plans the addresses of one kernel function with `opts` (the pass's
/// work for one function; allocate_memory_addr verifies the result).
/// Returns one report per planned space.
pub fn plan_function(
    f: &mut Function,
    ctx: &mut PassContext,
    opts: &DsaOptions,
) -> Result<Vec<SpaceReport>, PassError> {
    let reserves = reserve::resolve(f, ctx.policy.as_ref())?;
    let order = ProgramOrder::build(f);
    let facts = facts::analyze_with(f, &order);
    let shared = Model::build(f, &ctx.soc, ctx.seed_rules)?;
    let models = model::build(
        f,
        &shared,
        &facts,
        &order,
        &ctx.soc,
        ctx.policy.as_ref(),
        &reserves,
    );
    drop(shared);
    let input = ctx.placed.remove(&*f.name).map(|p| p.addresses);
    let input = input.as_ref();
    let mut addr: BTreeMap<usize, u64> = BTreeMap::new();
    let mut reports = Vec::new();
    let mut depths = Vec::new();
    // Each model is dropped once planned: only one space's pairs are held
    // while the solver runs.
    for m in models {
        let m = &m;
        if let Some(b) = m
            .buffers
            .iter()
            .find(|b| b.size > tilemem_plan::problem::MAX_BYTES)
        {
            // No chip holds it: the request cannot be met (as the PYPTO
            // planner's over-capacity error), at the allocation's line or,
            // for one InitMemRef inserted, its first tile's.
            let pos = capacity_error_pos(f, Some(b.root));
            return Err(PassError::planning(format!(
                "allocation {} of '{}' has {} bytes, more than the {} bytes tilemem can place; \
                 split the tile",
                b.name,
                m.function,
                b.size,
                tilemem_plan::problem::MAX_BYTES
            ))
            .at_pos(pos));
        }
        // A planned program's placement is the decision when it is a valid
        // placement of this problem: the stage tags that shaped it were
        // consumed, so solving again would share the stage copies it
        // kept apart (see `InputPlacement`).
        if let Some(kept) = input.and_then(|a| kept_placement(f, m, a, opts.optimal)) {
            for (i, b) in m.buffers.iter().enumerate() {
                addr.insert(b.root.index(), kept.offsets[i]);
            }
            reports.push(kept.report);
            continue;
        }
        // Strict first: every group at its affordable depth
        // (`min(stages, capacity / slot)`). When nothing fits and those
        // depths keep some stage copies apart, every such separation
        // becomes a reuse penalty of weight 1 at once and the same greedy
        // solves again (PyPTO's relaxation): stage copies may then share,
        // preferably not; copies of one stage still may not.
        let strict = m.affordable_depths();
        let mut depth = strict.clone();
        let mut problem = m.to_problem(Some(&depth));
        let mut placement = greedy(&problem);
        let separated = m.pipeline.keys().any(|&p| m.pipeline_hard(p, &strict));
        let mut stage_penalties = false;
        if placement.is_none() && separated {
            depth = m.groups.keys().map(|&g| (g, 1)).collect();
            problem = m.to_problem(None);
            placement = greedy(&problem);
            stage_penalties = true;
        }
        // The optimal mode does not depend on the greedy: when the greedy
        // finds no placement within the capacity, the exact search may.
        // Whether the exact search stopped at its budget without a fit.
        let mut cut_short = false;
        let first = match &placement {
            Some(p) => Some((
                Solution {
                    offsets: p.offsets.clone(),
                },
                p.run.to_string(),
            )),
            None if opts.optimal => match exact_fit(&problem, opts) {
                Ok(s) => Some((s, "exact".to_string())),
                Err(cut) => {
                    cut_short = cut;
                    None
                }
            },
            None => None,
        };
        let Some((greedy_sol, first_name)) = first else {
            if let Some(dir) = &opts.export_dir {
                export(dir, m, &problem, None, None)?;
            }
            let note = m
                .capacity
                .map(|c| reserve::capacity_note(&reserves, &m.space, c))
                .unwrap_or_default();
            // Positioned by the pypto planner's rule: the largest buffer
            // that alone exceeds the capacity, at its own line (that is
            // the one to shrink); otherwise the function, since the
            // overflow is a property of the whole kernel's lifetimes.
            let alone = m.capacity.and_then(|c| {
                m.buffers
                    .iter()
                    .filter(|b| b.size > c)
                    .max_by_key(|b| b.size)
            });
            let pos = capacity_error_pos(f, alone.map(|b| b.root));
            let why = alone.map_or(String::new(), |b| {
                format!("; the allocation '{}' alone needs {} bytes", b.name, b.size)
            });
            // PyPTO's words first (the reference data compares them),
            // then what to change, as the pypto planner's error says it.
            let planner = if opts.optimal { "optimal" } else { "dsa-rp" };
            let mut e = PassError::planning(format!(
                "DSA-RP could not find a placement for '{}' within the on-chip memory \
                 capacities: canonical greedy found no capacity-fitting placement \
                 ({} space: {} buffers, {} bytes requested, capacity {}){note}; in function \
                 '{}': shrink tiles or split the kernel (`tilemem explain --planner {planner}` \
                 names the peak and what would fit){why}",
                m.function,
                m.space.name(),
                m.buffers.len(),
                m.buffers.iter().map(|b| b.size).sum::<u64>(),
                m.capacity
                    .map_or("unlimited".to_string(), |c| c.to_string()),
                m.function,
            ))
            .at_pos(pos);
            e.search_cut_short = cut_short;
            return Err(e);
        };
        let relaxed = m
            .groups
            .iter()
            .any(|(g, (stages, _))| depth.get(g).copied().unwrap_or(1) < *stages);
        let stats = tilemem_plan::validate(&problem, &greedy_sol).map_err(|v| {
            PassError::internal(format!(
                "DSA-RP placement of '{}' ({}) failed validation: {} violation(s), first: {:?}",
                m.function,
                m.space.name(),
                v.len(),
                v.first()
            ))
        })?;
        let mut chosen = greedy_sol.clone();
        let mut chosen_name = first_name;
        // The problem the kept placement solves (the exact answer may solve
        // the bytes-first variant); exported so `validate` accepts it.
        let mut solved = problem.clone();
        let mut penalty = stats.penalty;
        let mut bytes = stats.height.max(m.reserved_end);
        let mut proven = false;
        if opts.optimal {
            let budget = tilemem_plan::Budget::default()
                .with_time_limit(opts.time_limit)
                .with_node_limit(opts.node_limit)
                .with_objective(opts.objective);
            // Bytes first: pipeline separations are performance intent, so
            // they are penalties there; penalties first keeps them hard when
            // the greedy could.
            // Exclusive branches may share here: the greedy's problem (and
            // so DSA_RP's own decisions) keeps them apart.
            let opt_problem = match opts.objective {
                Objective::PeakThenPenalty => m.to_problem_sharing(None),
                Objective::PenaltyThenPeak if stage_penalties => m.to_problem_sharing(None),
                Objective::PenaltyThenPeak => m.to_problem_sharing(Some(&depth)),
            };
            if let Ok(s) = tilemem_plan::validate(&opt_problem, &greedy_sol) {
                penalty = s.penalty;
            }
            if let Ok(out) = tilemem_plan::solve(&opt_problem, SolverKind::Exact, &budget) {
                if let Some(sol) = out.solution {
                    if let Ok(s) = tilemem_plan::validate(&opt_problem, &sol) {
                        let h = s.height.max(m.reserved_end);
                        let better = match opts.objective {
                            Objective::PeakThenPenalty => (h, s.penalty) < (bytes, penalty),
                            Objective::PenaltyThenPeak => (s.penalty, h) < (penalty, bytes),
                        };
                        if better {
                            chosen = sol;
                            chosen_name = "exact".to_string();
                            solved = opt_problem.clone();
                            penalty = s.penalty;
                            bytes = h;
                        }
                        proven =
                            out.proven_optimal && (better || (h, s.penalty) == (bytes, penalty));
                    }
                }
            }
        }
        if relaxed || chosen_name == "exact" {
            // Pairs the requested depths keep apart that now share bytes.
            let requested: BTreeMap<u32, usize> = m
                .groups
                .iter()
                .map(|(&g, &(stages, _))| (g, stages))
                .collect();
            let shared: Vec<String> = m
                .pipeline
                .keys()
                .filter(|&&pair| m.pipeline_hard(pair, &requested))
                .filter(|&&(i, j)| {
                    let (oi, oj) = (chosen.offsets[i], chosen.offsets[j]);
                    let (si, sj) = (m.buffers[i].size, m.buffers[j].size);
                    oi < oj.saturating_add(sj) && oj < oi.saturating_add(si)
                })
                .map(|&(i, j)| format!("{}/{}", m.buffers[i].name, m.buffers[j].name))
                .collect();
            let shared = capped_list(&shared);
            let depths: Vec<String> = m
                .groups
                .iter()
                .filter(|(g, (stages, _))| depth.get(g).copied().unwrap_or(1) < *stages)
                .map(|(g, (stages, _))| {
                    format!(
                        "group {g}: {} of {stages} stages",
                        depth.get(g).copied().unwrap_or(1)
                    )
                })
                .collect();
            let cap = m
                .capacity
                .map_or("unlimited".to_string(), |c| c.to_string());
            if !shared.is_empty() && depths.is_empty() {
                ctx.perf_hint(
                    "PH-DSA-001",
                    format!(
                        "the optimal planner let pipeline stage copies of '{}' share storage in {} \
                         (capacity {cap}) to use fewer bytes: {} now run serially; pass \
                         --penalty-first to keep the stages apart",
                        m.function,
                        m.space.name(),
                        shared
                    ),
                );
            } else if !shared.is_empty() {
                ctx.perf_hint(
                    "PH-DSA-001",
                    format!(
                        "DSA-RP could not keep the requested pipeline stages of '{}' apart in {} \
                         (capacity {cap}; {}): {} now share storage, so those stages run serially; \
                         shrink the per-stage tiles or lower stage= so every stage fits",
                        m.function,
                        m.space.name(),
                        depths.join(", "),
                        shared
                    ),
                );
            }
        }
        if let Some(dir) = &opts.export_dir {
            export(dir, m, &solved, Some(&chosen), placement.as_ref())?;
        }
        // The depth each group's copies are apart at in the kept placement:
        // none when stage separations were penalties (the relaxed greedy,
        // the bytes-first exact search).
        let penalties = stage_penalties
            || (chosen_name == "exact" && opts.objective == Objective::PeakThenPenalty);
        depths.extend(m.groups.keys().map(|&g| {
            let d = if penalties {
                1
            } else {
                depth.get(&g).copied().unwrap_or(1)
            };
            (m.space, g, u32::try_from(d).unwrap_or(u32::MAX))
        }));
        for (i, b) in m.buffers.iter().enumerate() {
            addr.insert(b.root.index(), chosen.offsets[i]);
        }
        reports.push(SpaceReport {
            function: m.function.clone(),
            space: m.space.name().to_string(),
            buffers: m.buffers.len(),
            bytes,
            greedy_bytes: placement
                .is_some()
                .then(|| stats.height.max(m.reserved_end)),
            penalty,
            relaxed,
            chosen: chosen_name,
            proven_optimal: proven,
        });
    }
    reserve::write_back(f, &reserves);
    write::apply(f, &addr);
    // The same clean-up as after MemoryReuse.
    cleanup::remove_dead_allocs(f);
    cleanup::hoist_allocs_above_uses(f);
    let tags = cleanup::strip_pipeline_membership(f);
    if !tags.is_empty() {
        ctx.stage_claims
            .insert(f.name.to_string(), StageClaims { tags, depths });
    }
    Ok(reports)
}

/// An input placement kept for one space: the offsets, in buffer order,
/// and its report.
struct Kept {
    offsets: Vec<u64>,
    report: SpaceReport,
}

/// The placement the input carried for `m`'s buffers (`addresses`, by
/// root name), when every buffer has one and it is a valid placement of
/// the problem this planner solves (capacity, reserved windows,
/// alignment and every hard pair; with no stage tags left there are no
/// pipeline pairs to keep).
fn kept_placement(
    f: &Function,
    m: &model::DsaModel,
    addresses: &rustc_hash::FxHashMap<Box<str>, u64>,
    optimal: bool,
) -> Option<Kept> {
    let offsets: Vec<u64> = m
        .buffers
        .iter()
        .map(|b| addresses.get(f.vars[b.root].name.as_str()).copied())
        .collect::<Option<_>>()?;
    let depth = m.affordable_depths();
    let problem = if optimal {
        m.to_problem_sharing(Some(&depth))
    } else {
        m.to_problem(Some(&depth))
    };
    let sol = Solution {
        offsets: offsets.clone(),
    };
    let stats = tilemem_plan::validate(&problem, &sol).ok()?;
    let bytes = stats.height.max(m.reserved_end);
    Some(Kept {
        offsets,
        report: SpaceReport {
            function: m.function.clone(),
            space: m.space.name().to_string(),
            buffers: m.buffers.len(),
            bytes,
            greedy_bytes: None,
            penalty: stats.penalty,
            relaxed: false,
            chosen: "input".to_string(),
            proven_optimal: false,
        },
    })
}

/// The first pairs of a list for a diagnostic, joined, with the count of
/// the rest: a long pipeline has hundreds of thousands of stage pairs, and
/// a message of megabytes helps nobody.
fn capped_list(items: &[String]) -> String {
    const SHOWN: usize = 16;
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more pairs", items.len() - SHOWN));
    }
    text
}

/// Writes `DIR/FUNC.SPACE.csv` (the problem with the kept placement in the
/// `offset` column, `tilemem solve` / `tilemem validate` format) and
/// `DIR/FUNC.SPACE.dsa.txt` (the pipe facts and pair kinds of the model).
fn export(
    dir: &std::path::Path,
    m: &model::DsaModel,
    problem: &tilemem_plan::Problem,
    chosen: Option<&Solution>,
    placement: Option<&handoff::Placement>,
) -> Result<(), PassError> {
    let stem = format!("{}.{}", m.function, m.space.name());
    let csv = tilemem_plan::csv::write_problem(problem, chosen);
    let mut side = String::new();
    side.push_str(&format!(
        "# DSA_RP model of function '{}', space {}\n",
        m.function,
        m.space.name()
    ));
    side.push_str(
        "# statement lifetimes [start, end]; DSA lifetime = [2*start+1, max(2*start+2, 2*end+1))\n",
    );
    side.push_str(
        "# head = pipe of the first write; terminal = pipes with a last access; '?' = uncertain\n",
    );
    match placement {
        Some(p) => side.push_str(&format!(
            "# greedy run kept: {} (handoff penalty {}, peak {})\n",
            p.run, p.penalty, p.peak
        )),
        None => side.push_str("# no capacity-fitting placement was found\n"),
    }
    side.push_str(&format!(
        "# replay: tilemem solve {stem}.csv --solver canonical --penalty-first (optimal mode: --solver exact)\n"
    ));
    side.push_str("id,start,end,qualifies,poisoned,head,first,last,terminal,pinned,stages\n");
    let pipe = |p: &Option<crate::ops::Pipe>| p.map_or("?", |x| x.name());
    for b in &m.buffers {
        let r = &b.recog;
        let (start, end) = b.statements();
        side.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            b.name,
            start,
            end,
            r.qualifies,
            r.poisoned,
            pipe(&r.head),
            r.first,
            r.last,
            r.terminal.iter().map(pipe).collect::<Vec<_>>().join(" "),
            b.pinned,
            b.stages
                .iter()
                .map(|(g, st)| format!("{g}:{st}"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    side.push_str("# pairs: kind,a,b (soft pairs are earlier,later handoffs)\n");
    for (&(i, j), why) in &m.hard {
        side.push_str(&format!(
            "hard-{},{},{}\n",
            format!("{why:?}").to_lowercase(),
            m.buffers[i].name,
            m.buffers[j].name
        ));
    }
    for (&(i, j), shared) in &m.pipeline {
        let kind: Vec<String> = shared
            .iter()
            .map(|(g, a, b)| format!("pipeline-g{g}-s{a}-s{b}"))
            .collect();
        side.push_str(&format!(
            "{},{},{}\n",
            kind.join(" "),
            m.buffers[i].name,
            m.buffers[j].name
        ));
    }
    for &(i, j) in &m.soft {
        side.push_str(&format!(
            "soft,{},{}\n",
            m.buffers[i as usize].name, m.buffers[j as usize].name
        ));
    }
    // Hull-overlapping pairs of exclusive branches (shareable in the
    // optimal mode's problem only).
    for &(i, j) in &m.exclusive {
        side.push_str(&format!(
            "exclusive,{},{}\n",
            m.buffers[i].name, m.buffers[j].name
        ));
    }
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, text))
            .map_err(|e| PassError::input(format!("cannot write {}: {e}", path.display())))
    };
    write(dir.join(format!("{stem}.csv")), &csv)?;
    write(dir.join(format!("{stem}.dsa.txt")), &side)?;
    Ok(())
}
