//! Why a program needs the memory it needs, and what would make it fit.
//!
//! For each (kernel function, memory space) [`explain`] reports:
//! - the **peak instant**: the statement where the tiles live together take
//!   the most bytes, with its source line;
//! - the **live set** there: every tile (alias family) with its bytes,
//!   largest first, and the total;
//! - the **lower bound**: the largest co-live total of the tiles' own
//!   lifetimes plus the reserved windows of the space. When it exceeds the
//!   capacity no placement of these lifetimes can fit, whatever the planner
//!   does; when it does not, a placement could fit and the planner's rules
//!   (sharing restrictions, sequential addresses) are what refused it;
//! - **remedies**, each computed by re-planning a modified copy of the
//!   program with the same pipeline (never by a formula): another planner,
//!   a lower cross-core pipe depth (`slot_num`, which resizes the ring's
//!   reserved window) or a smaller reserved window, a smaller extent shared
//!   by several tiles (the kernel's tile size), a smaller dimension of one
//!   tile live at the peak or kept apart by a rule (every dimension), and a
//!   move of one statement that keeps every dependency ([`reorder`]). A
//!   remedy is listed only when the re-planned program fits, except a move,
//!   which is also listed when it lowers the bytes used. (A
//!   lower `stage=` is not tried: the planners already lower a pipeline's
//!   depth, down to 1, when its stage copies do not fit.)
//!
//! Assumes: the program reads and passes `init_memref` and
//! `materialize_semantic_aliases` (the live set is taken after them, before
//! any sharing, so it is the same for every planner). Guarantees: the facts
//! are deterministic; re-planning works on clones, the input is unchanged.

use crate::ir::{Expr, Function, Program, StmtId, StmtKind, Type, VarId};
use crate::passes::analysis::reserve::{self, Reserve};
use crate::passes::{ErrorKind, PassError, PassId, PlannerMode};
use crate::plan::PlanOptions;
use crate::report;
use std::collections::{BTreeMap, HashMap};

use tilemem_soc::{MemSpace, Soc};

mod json;
mod refused;
mod remedies;
pub mod reorder;
mod text;

pub use json::{report_json, space_json};
pub use refused::refused_sharings;
pub use remedies::REMEDY_SHARE;
use remedies::{budget_exhausted, remedies, replans_cut_short, replans_used, reset_budget};
pub use text::{nothing_planned, render, render_all, render_text};

/// One tile live at the peak.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveTile {
    /// Tile name (the family's first definition).
    pub name: String,
    /// Bytes.
    pub bytes: u64,
    /// Shape as written (`[64, 64]`), or empty when unknown.
    pub shape: String,
    /// Element type (`FP32`), or empty.
    pub dtype: String,
    /// Source line of the defining statement (0 when unknown).
    pub line: u32,
    /// Program position of the definition.
    pub def: u64,
    /// Program position of the last read.
    pub last: u64,
}

/// A sharing the lifetimes allow but a rule of the planners refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedSharing {
    /// One tile (the first tile of its buffer).
    pub a: String,
    /// The other tile.
    pub b: String,
    /// The rule, in words.
    pub rule: String,
    /// Source line of the statement the rule is about (the later tile's
    /// definition; 0 when unknown).
    pub line: u32,
    /// Bytes sharing would have saved (the smaller tile).
    pub bytes: u64,
    /// The two are live together in program order but never on one path
    /// (different branches of an `if`, a carry's window between its last
    /// read and its next write): only the optimal planner's lifetimes
    /// allow such a sharing.
    pub never_together: bool,
}

impl RefusedSharing {
    /// Whether `planner`'s lifetimes allow this sharing, so that a rule is
    /// what refused it: a pair never live together only under the optimal
    /// planner (the one that shares by occupancy); every other planner
    /// keeps such a pair apart by its lifetimes already. What `explain`,
    /// its report and the memory map list for `planner`.
    pub fn refused_under(&self, planner: PlannerMode) -> bool {
        !self.never_together || planner == PlannerMode::Optimal
    }
}

/// A change that makes the program fit, found by re-planning it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    /// What to change, in the user's terms.
    pub change: String,
    /// Bytes the space uses after the change.
    pub bytes_after: u64,
    /// Bytes saved against the lower bound before the change (0 for a
    /// different planner, which saves against what the planner used).
    pub saved: u64,
}

/// The facts of one (function, space).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceExplain {
    /// Function name.
    pub function: String,
    /// Space name.
    pub space: String,
    /// Capacity, when limited.
    pub capacity: Option<u64>,
    /// Reserved bytes (windows of `system.reserve_buffer`) in the space.
    pub reserved: u64,
    /// Largest co-live total of the tiles (without reserved windows).
    pub co_live: u64,
    /// Program position of the peak instant (1-based statement index in
    /// program order, comments and blank lines not counted).
    pub peak_at: u64,
    /// Source line of the peak statement (0 when unknown).
    pub peak_line: u32,
    /// Its column (0 when unknown).
    pub peak_col: u32,
    /// The peak statement's op (`tile.exp`) or kind.
    pub peak_stmt: String,
    /// Tiles live at the peak, largest first.
    pub live: Vec<LiveTile>,
    /// Bytes the space uses when planned (for a failed plan: the usage
    /// its error reports, when it names this space).
    pub planned_bytes: Option<u64>,
    /// Whether the planner placed the space within its capacity.
    pub fits: bool,
    /// Sharings the lifetimes allow but a rule refuses (only computed for
    /// spaces that do not fit).
    pub refused: Vec<RefusedSharing>,
    /// Remedies (only computed for spaces that do not fit).
    pub remedies: Vec<Remedy>,
}

impl SpaceExplain {
    /// Lower bound on the bytes any placement needs: co-live tiles plus
    /// reserved windows.
    pub fn lower_bound(&self) -> u64 {
        self.co_live + self.reserved
    }

    /// Total bytes of the live set.
    pub fn live_total(&self) -> u64 {
        self.live.iter().map(|t| t.bytes).sum()
    }

    /// True when the lower bound alone exceeds the capacity.
    pub fn proven_over(&self) -> bool {
        self.capacity.is_some_and(|c| self.lower_bound() > c)
    }

    /// True when the space does not fit its capacity.
    pub fn over(&self) -> bool {
        !self.fits
    }

    /// True when the planner used more bytes than the lower bound.
    pub fn above_bound(&self) -> bool {
        self.planned_bytes.is_some_and(|b| b > self.lower_bound())
    }
}

/// What [`explain`] found.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// Every (function, space), in program and space order.
    pub spaces: Vec<SpaceExplain>,
    /// The planning error of the requested planner, if any.
    pub error: Option<PassError>,
    /// True when the re-planning budget stopped the search for remedies
    /// early (more may exist).
    pub budget_exhausted: bool,
    /// Re-plans the search for remedies ran.
    pub replans: usize,
    /// The re-planning budget it had (`None`: unlimited).
    pub budget: Option<usize>,
    /// The exact-search limits of one remedy re-plan (the optimal
    /// planner's, per (function, space)): 1/[`REMEDY_SHARE`] of the run's.
    pub remedy_time_limit: Option<std::time::Duration>,
    /// See [`remedy_time_limit`](Self::remedy_time_limit), in search nodes.
    pub remedy_node_limit: Option<u64>,
    /// Remedy re-plans whose exact search stopped at those limits without
    /// a placement within the capacity: a larger limit may find remedies
    /// not listed.
    pub remedies_cut_short: usize,
}

/// Plans `program` with `planner` and returns the report (addressed,
/// without the buffers' gaps) or the planning error. Works on a clone.
pub fn replan(
    program: &Program,
    soc: &Soc,
    planner: PlannerMode,
) -> Result<report::Report, PassError> {
    let mut opts = PlanOptions::new(soc.clone(), planner);
    opts.report = true;
    // Remedies read the bytes used, never the buffers' gaps.
    opts.report_gaps = false;
    replan_with(program, &opts)
}

/// As [`replan`], with `opts` (which should ask for a report).
fn replan_with(program: &Program, opts: &PlanOptions) -> Result<report::Report, PassError> {
    let mut p = program.clone();
    let soc = &opts.soc;
    match crate::plan(&mut p, opts) {
        Ok(done) => Ok(done
            .report
            .unwrap_or_else(|| report::build_with(&p, soc, false, false))),
        Err(failed) => Err(failed.error),
    }
}

/// `program` with storage but no sharing yet (after `init_memref` and
/// `materialize_semantic_aliases`): what the sharing decisions start from.
pub fn before_sharing(
    program: &Program,
    soc: &Soc,
    planner: PlannerMode,
) -> Result<Program, PassError> {
    before_sharing_with(program, &PlanOptions::new(soc.clone(), planner))
}

/// As [`before_sharing`], for a run planned with `run` (its chip, planner,
/// rules and policy; its pass list is not used): what every part of one
/// explanation of that run starts from.
pub fn before_sharing_with(program: &Program, run: &PlanOptions) -> Result<Program, PassError> {
    let mut early = program.clone();
    let mut opts = remedies::run_options(run);
    opts.passes = Some(vec![PassId::InitMemref, PassId::MaterializeSemanticAliases]);
    opts.report = false;
    crate::plan(&mut early, &opts).map_err(|f| f.error)?;
    Ok(early)
}

/// Bytes the report's (function, space) uses, if present.
fn used(r: &report::Report, function: &str, space: &str) -> Option<u64> {
    r.functions
        .iter()
        .find(|f| f.name == function)?
        .spaces
        .iter()
        .find(|s| s.space == space)
        .map(|s| s.bytes_used)
}

/// Explains every (function, space) of `program` planned with `planner`.
/// Remedies are computed for spaces that do not fit, with at most
/// `max_replans` re-plans in all (`None`: no limit); with `all`, the facts
/// of every space are returned (else only those that do not fit), and a
/// space that fits above its lower bound lists the sharings a rule
/// refused too.
pub fn explain(
    program: &Program,
    soc: &Soc,
    planner: PlannerMode,
    all: bool,
    max_replans: Option<usize>,
) -> Result<Explanation, PassError> {
    explain_with(
        program,
        &PlanOptions::new(soc.clone(), planner),
        all,
        max_replans,
        None,
    )
}

/// As [`explain`], for a run planned with `run` (its chip, planner, rules,
/// policy and exact-search limits; its pass list is not used: the
/// explanation and the remedies run the whole pipeline). `failed` is the
/// run's own error when it already failed (it is not planned again). Each
/// remedy re-plan's exact search gets 1/[`REMEDY_SHARE`] of the run's time
/// and node limits (see [`Explanation::remedy_node_limit`]), so the ten
/// re-plans of the short explanation search no longer than the run did.
pub fn explain_with(
    program: &Program,
    run: &PlanOptions,
    all: bool,
    max_replans: Option<usize>,
    failed: Option<&PassError>,
) -> Result<Explanation, PassError> {
    let (soc, planner) = (&run.soc, run.planner);
    let remedy = remedies::remedy_options(run);
    let (remedy_time_limit, remedy_node_limit) = (remedy.dsa.time_limit, remedy.dsa.node_limit);
    reset_budget(max_replans, remedy);
    // The live sets before any sharing.
    let early = before_sharing_with(program, run)?;
    let base = report::build_with(&early, soc, false, false);
    let planned = match failed {
        Some(e) => Err(e.clone()),
        None => replan_with(program, &remedies::run_options(run)),
    };
    // Only a planning error is something to explain; bad input or an
    // internal error ends the explanation as it ends `plan`.
    if let Err(e) = &planned {
        if e.kind != ErrorKind::Planning {
            return Err(e.clone());
        }
    }
    let mut spaces = Vec::new();
    for fr in &base.functions {
        let Some(f) = early.function(&fr.name) else {
            continue;
        };
        let walk = f.walk();
        let reserves = reserves(f);
        let values = report::live_values(f);
        let order = crate::passes::analysis::order::ProgramOrder::build(f);
        for sr in &fr.spaces {
            let reserved: u64 = reserves
                .iter()
                .filter(|r| r.space.name() == sr.space)
                .map(|r| r.size)
                .sum();
            // The values live together (the report's lower bound), not the
            // family hulls the report draws.
            let here: Vec<&report::LiveValue> = values
                .iter()
                .filter(|v| v.space.name() == sr.space)
                .collect();
            let pk = peak_of(&values_problem(&here));
            let (peak_at, co_live) = (pk.statement + 1, pk.total.max(sr.lower_bound));
            let mut live: Vec<LiveTile> = pk.live.iter().map(|&i| value_tile(f, here[i])).collect();
            live.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
            let peak_stmt_id = walk
                .iter()
                .find(|&&(_, s)| u64::from(order.index[s]) == pk.statement && !is_trivia(f, s))
                .map(|&(_, s)| s);
            let (peak_line, peak_stmt) = peak_stmt_id
                .map(|s| (f.pos_of(s).line, stmt_label(f, s)))
                .unwrap_or((0, String::new()));
            let peak_col = peak_stmt_id.map_or(0, |s| f.pos_of(s).col);
            let capacity = target_space_capacity(soc, &sr.space).or(sr.capacity);
            let (planned_bytes, fits) = match &planned {
                Ok(r) => {
                    let b = used(r, &fr.name, &sr.space);
                    (b, b.is_none_or(|b| capacity.is_none_or(|c| b <= c)))
                }
                Err(e) => match failed_usage(e, &fr.name, &sr.space) {
                    Some(b) => (Some(b), false),
                    // Another planner's error naming this function and
                    // space (DSA-RP: "... for 'F' ... (Vec space: ...)").
                    None if names_space(e, &fr.name, &sr.space) => (None, false),
                    None => (None, capacity.is_none_or(|c| co_live + reserved <= c)),
                },
            };
            spaces.push(SpaceExplain {
                function: fr.name.clone(),
                space: sr.space.clone(),
                capacity,
                reserved,
                co_live,
                peak_at,
                peak_line,
                peak_col,
                peak_stmt,
                live,
                planned_bytes,
                fits,
                refused: Vec::new(),
                remedies: Vec::new(),
            });
        }
    }
    let error = planned.as_ref().err().cloned();
    // Per function, computed when one of its spaces is the first over.
    let mut refused = RefusedCache::default();
    for s in spaces.iter_mut().filter(|s| s.over()) {
        if let Some(f) = early.function(&s.function) {
            s.refused = refused.of(f, soc, &s.space, run);
        }
        s.remedies = remedies(program, soc, planner, s);
    }
    // With `all`, a space that fits but uses more than its lower bound
    // also names the sharings a rule refused: why it did.
    if all {
        for s in spaces.iter_mut().filter(|s| s.fits && s.above_bound()) {
            if let Some(f) = early.function(&s.function) {
                s.refused = refused.of(f, soc, &s.space, run);
            }
        }
    }
    if !all {
        spaces.retain(SpaceExplain::over);
    }
    let budget_exhausted = budget_exhausted();
    Ok(Explanation {
        spaces,
        error,
        budget_exhausted,
        replans: replans_used(),
        budget: max_replans,
        remedy_time_limit,
        remedy_node_limit,
        remedies_cut_short: replans_cut_short(),
    })
}

/// The usage an over-capacity error reports for this (function, space):
/// `SPACE buffer usage (N bytes) exceeds ... in function 'F'`.
fn failed_usage(e: &PassError, function: &str, space: &str) -> Option<u64> {
    let m = &e.message;
    if !m.contains(&format!("in function '{function}'")) {
        return None;
    }
    let rest = m.strip_prefix(&format!("{space} buffer usage ("))?;
    rest.split_once(' ')?.0.parse().ok()
}

/// Whether a planning error is about this (function, space).
fn names_space(e: &PassError, function: &str, space: &str) -> bool {
    e.kind == crate::passes::ErrorKind::Planning
        && e.message.contains(&format!("'{function}'"))
        && e.message.contains(&format!("{space} space"))
}

fn target_space_capacity(soc: &Soc, space: &str) -> Option<u64> {
    tilemem_soc::MemSpace::from_name(space).and_then(|t| soc.capacity(t))
}

/// The reserved windows (`system.reserve_buffer`) of `f`, resolved as the
/// address pass resolves them; empty when they cannot be resolved (the
/// pipeline reports that error itself).
pub fn reserves(f: &Function) -> Vec<Reserve> {
    reserve::resolve(f, &tilemem_soc::DefaultPolicy).unwrap_or_default()
}

/// The instant where the buffers of a space take the most bytes together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeakInstant {
    /// The instant on the report's doubled time scale
    /// ([`report::SpaceReport::placement`]).
    pub instant: u64,
    /// The statement (1-based program position) of that instant.
    pub statement: u64,
    /// Bytes live there.
    pub total: u64,
    /// Indices of the buffers live there, in increasing order: into the
    /// space's buffers for [`peak`], into the problem's for [`peak_of`].
    pub live: Vec<usize>,
}

/// The first instant of the largest co-live total of a space's buffers,
/// each live over its spans ([`report::BufferReport::spans`]): the
/// placement the planner made, so a buffer holds no bytes in its gaps
/// (where the optimal planner may put another tile on them). Spans lie on
/// the report's scale (`[2 def + 1, max(2 def + 2, 2 last + 1))` without
/// the gaps), so a tile read for the last time by a statement and the tile
/// that statement defines are not co-live. The total lies between the
/// space's lower bound and the bytes it uses.
pub fn peak(sr: &report::SpaceReport) -> PeakInstant {
    let mut pk = peak_of(&sr.placement_by_span().0);
    // A buffer's spans are disjoint: at most one of them is live at an
    // instant, so each owner appears once, in order.
    let owners = sr.span_owners();
    for i in &mut pk.live {
        *i = owners[*i];
    }
    pk
}

/// The first instant of the largest co-live total of a placement problem
/// (lifetimes half-open; `statement` is the instant halved, which is the
/// program position for problems built from a report).
pub fn peak_of(problem: &tilemem_plan::Problem) -> PeakInstant {
    // Sweep the start and end events in time order.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * problem.len());
    for (i, b) in problem.buffers.iter().enumerate() {
        events.push((b.lower, true, i));
        events.push((b.upper, false, i));
    }
    // Ends before starts at the same instant (half-open lifetimes).
    events.sort_unstable_by_key(|&(t, start, i)| (t, start, i));
    let (mut total, mut best) = (0u64, PeakInstant::default());
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        while k < events.len() && events[k].0 == t {
            let (_, start, i) = events[k];
            let size = problem.buffers[i].size;
            total = if start { total + size } else { total - size };
            k += 1;
        }
        if total > best.total {
            best = PeakInstant {
                instant: t,
                statement: t / 2,
                total,
                live: Vec::new(),
            };
        }
    }
    best.live = (0..problem.len())
        .filter(|&i| {
            let b = &problem.buffers[i];
            b.lower <= best.instant && best.instant < b.upper
        })
        .collect();
    best
}

/// The sharings a rule refused, per function and space, each function's
/// computed once ([`refused_sharings`] walks the whole function).
#[derive(Default)]
pub(crate) struct RefusedCache(HashMap<String, BTreeMap<MemSpace, Vec<RefusedSharing>>>);

impl RefusedCache {
    /// The sharings a rule refused in space `space` (by name) of `f`
    /// that the lifetimes of `run`'s planner allow, under `run`'s seed
    /// rules: pairs never live together only under the optimal planner,
    /// the one that shares them.
    pub(crate) fn of(
        &mut self,
        f: &Function,
        soc: &Soc,
        space: &str,
        run: &PlanOptions,
    ) -> Vec<RefusedSharing> {
        let planner = run.planner;
        let per_space = self
            .0
            .entry(f.name.to_string())
            .or_insert_with(|| refused_sharings(f, soc, run.seed_rules));
        let mut out = MemSpace::from_name(space)
            .and_then(|space| per_space.get(&space))
            .cloned()
            .unwrap_or_default();
        out.retain(|r| r.refused_under(planner));
        out
    }
}

/// The facts of one buffer of a report: name, bytes, shape, dtype, line.
pub fn live_tile(f: &Function, b: &report::BufferReport) -> LiveTile {
    let var = f.var_by_name(&b.name);
    let tile = var.and_then(|v| f.ty(v)).and_then(Type::as_tile);
    let shape = tile.map_or(String::new(), |t| shape_text(&t.shape));
    let dtype = tile.map_or(String::new(), |t| t.dtype.name().to_string());
    let line = var.and_then(|v| def_line(f, v)).unwrap_or(0);
    LiveTile {
        name: b.name.clone(),
        bytes: b.end - b.start,
        shape,
        dtype,
        line,
        def: b.def,
        last: b.last,
    }
}

/// The values of one space as a placement problem (bytes and lifetimes
/// only), for [`peak_of`].
fn values_problem(values: &[&report::LiveValue]) -> tilemem_plan::Problem {
    let mut p = tilemem_plan::Problem::new();
    for v in values {
        p.push(tilemem_plan::Buffer::new(v.bytes, v.live.0, v.live.1));
    }
    p
}

/// The facts of one value: the tile defining it, its bytes and lifetime.
fn value_tile(f: &Function, v: &report::LiveValue) -> LiveTile {
    let tile = f.ty(v.var).and_then(Type::as_tile);
    LiveTile {
        name: f.vars[v.var].name.to_string(),
        bytes: v.bytes,
        shape: tile.map_or(String::new(), |t| shape_text(&t.shape)),
        dtype: tile.map_or(String::new(), |t| t.dtype.name().to_string()),
        line: def_line(f, v.var).unwrap_or(0),
        def: v.hull.0 / 2,
        last: v.hull.1.saturating_sub(1) / 2,
    }
}

/// Source line of the statement defining `v`.
pub fn def_line(f: &Function, v: VarId) -> Option<u32> {
    match f.vars[v].def {
        crate::ir::VarDef::Stmt(s)
        | crate::ir::VarDef::IterArg(s)
        | crate::ir::VarDef::LoopVar(s) => Some(f.pos_of(s).line).filter(|&l| l > 0),
        _ => None,
    }
}

fn shape_text(shape: &[Expr]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.as_int().map_or("?".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

/// Source line and label (`x = tile.exp`) of the statement at 1-based
/// program position `at`; `walk` is [`Function::walk`].
pub fn statement_at(f: &Function, walk: &[(crate::ir::Block, StmtId)], at: u64) -> (u32, String) {
    walk.get(at.saturating_sub(1) as usize)
        .map(|&(_, s)| (f.pos_of(s).line, stmt_label(f, s)))
        .unwrap_or((0, String::new()))
}

/// A comment or blank line (no program-order index of its own).
fn is_trivia(f: &Function, s: StmtId) -> bool {
    matches!(f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank)
}

fn stmt_label(f: &Function, s: StmtId) -> String {
    let st = &f.stmts[s];
    if let Some(c) = st.call() {
        let def = st
            .def()
            .map(|v| format!("{} = ", f.vars[v].name))
            .unwrap_or_default();
        return format!("{def}{}", c.op_name());
    }
    match &st.kind {
        StmtKind::For(_) => "for".into(),
        StmtKind::If(_) => "if".into(),
        StmtKind::Alloc { var, .. } => format!("{} = tile.alloc", f.vars[*var].name),
        _ => "statement".into(),
    }
}

#[cfg(test)]
mod tests;
