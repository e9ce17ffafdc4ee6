//! Remedies: changes that make a space fit, each found by re-planning a
//! modified copy of the program, within a re-planning budget.

use tilemem_soc::{MemSpace, Soc};

use super::{def_line, failed_usage, replan_with, reserves, shape_text, used};
use super::{LiveTile, Remedy, SpaceExplain};
use crate::ir::{Block, Expr, Function, Program, StmtId, Type, VarId};
use crate::passes::analysis::reserve::Reserve;
use crate::passes::{PassError, PlannerMode};
use crate::plan::PlanOptions;
use tilemem_soc::MemoryAllocatorPolicy;

/// How many re-plans the remedies of one [`explain`] call may run, and how
/// long each may search. Each re-plan is a whole pipeline run, so a large
/// program would otherwise take long to explain; a remedy that the budget
/// cut short is simply not listed, and [`Explanation::budget_exhausted`]
/// says so. The optimal planner's exact search of each re-plan gets a
/// share of the run's own limits ([`remedy_options`]), so the remedies
/// together search about as long as the run did, not once per re-plan;
/// [`Explanation::remedies_cut_short`] counts the re-plans it stopped
/// without a fit.
///
/// [`explain`]: super::explain
/// [`Explanation::budget_exhausted`]: super::Explanation::budget_exhausted
/// [`Explanation::remedies_cut_short`]: super::Explanation::remedies_cut_short
struct Budget {
    left: std::cell::Cell<usize>,
    used: std::cell::Cell<usize>,
    exhausted: std::cell::Cell<bool>,
    /// The options every remedy re-plan starts from (the run's rules and
    /// policy, the remedies' share of its limits).
    options: std::cell::RefCell<Option<PlanOptions>>,
    /// Re-plans whose exact search stopped at its limits without a fit.
    cut: std::cell::Cell<usize>,
}

impl Budget {
    fn take(&self) -> bool {
        let n = self.left.get();
        if n == 0 {
            self.exhausted.set(true);
            return false;
        }
        self.left.set(n - 1);
        self.used.set(self.used.get() + 1);
        true
    }
}

thread_local! {
    static BUDGET: Budget = const {
        Budget {
            left: std::cell::Cell::new(usize::MAX),
            used: std::cell::Cell::new(0),
            exhausted: std::cell::Cell::new(false),
            options: std::cell::RefCell::new(None),
            cut: std::cell::Cell::new(0),
        }
    };
}

/// The share of the run's exact-search limits each remedy re-plan gets:
/// the short explanation after a failed `plan` re-plans at most this many
/// programs, so its remedies together search no longer than the run did.
pub const REMEDY_SHARE: u32 = 10;

/// The options of one remedy re-plan for a run planned with `run`: the
/// run's rules, policy and objective, the whole pipeline, and
/// 1/[`REMEDY_SHARE`] of each of its exact-search limits. A node limit
/// stays at least 1, so a run with one stays reproducible.
pub(super) fn remedy_options(run: &PlanOptions) -> PlanOptions {
    let mut o = run_options(run);
    o.dsa.time_limit = o.dsa.time_limit.map(|t| t / REMEDY_SHARE);
    o.dsa.node_limit = o
        .dsa
        .node_limit
        .map(|n| (n / u64::from(REMEDY_SHARE)).max(1));
    o
}

/// `run`'s options for a re-plan that reads a report: the whole pipeline,
/// no gaps, no export.
pub(super) fn run_options(run: &PlanOptions) -> PlanOptions {
    let mut o = run.clone();
    o.passes = None;
    o.report = true;
    // Remedies read the bytes used, never the buffers' gaps.
    o.report_gaps = false;
    o.summary = false;
    o.dsa.export_dir = None;
    o
}

/// Starts a new budget of `max` re-plans (`None`: unlimited), each planned
/// with `options` (its soc and planner replaced by the re-plan's).
pub(super) fn reset_budget(max: Option<usize>, options: PlanOptions) {
    BUDGET.with(|b| {
        b.left.set(max.unwrap_or(usize::MAX));
        b.used.set(0);
        b.exhausted.set(false);
        *b.options.borrow_mut() = Some(options);
        b.cut.set(0);
    });
}

/// Re-plans run since the last reset.
pub(super) fn replans_used() -> usize {
    BUDGET.with(|b| b.used.get())
}

/// Whether the budget stopped a search since the last reset.
pub(super) fn budget_exhausted() -> bool {
    BUDGET.with(|b| b.exhausted.get())
}

/// Re-plans since the last reset whose exact search stopped at the
/// remedies' limits without a placement within the capacity.
pub(super) fn replans_cut_short() -> usize {
    BUDGET.with(|b| b.cut.get())
}

/// Plans `p` with `planner` on `soc` under the budget's options.
fn replan_budgeted(
    p: &Program,
    soc: &Soc,
    planner: PlannerMode,
) -> Result<crate::report::Report, PassError> {
    let mut opts = BUDGET
        .with(|b| b.options.borrow().clone())
        .unwrap_or_else(|| remedy_options(&PlanOptions::new(soc.clone(), planner)));
    opts.soc = soc.clone();
    opts.planner = planner;
    let r = replan_with(p, &opts);
    if r.as_ref().is_err_and(|e| e.search_cut_short) {
        BUDGET.with(|b| b.cut.set(b.cut.get() + 1));
    }
    r
}

/// Whether the modified program fits when planned with `planner`; the
/// bytes the space then uses.
fn fits(p: &Program, soc: &Soc, planner: PlannerMode, s: &SpaceExplain) -> Option<u64> {
    probe(p, soc, planner, s).ok()
}

/// Re-plans `p`: `Ok(bytes)` when the space fits, `Err(Some(bytes))` when
/// it does not and the planner said how much it needed, `Err(None)`
/// otherwise (or when the budget is spent).
fn probe(
    p: &Program,
    soc: &Soc,
    planner: PlannerMode,
    s: &SpaceExplain,
) -> Result<u64, Option<u64>> {
    if !BUDGET.with(|b| b.take()) {
        return Err(None);
    }
    match replan_budgeted(p, soc, planner) {
        Ok(r) => {
            let b = used(&r, &s.function, &s.space).ok_or(None)?;
            if s.capacity.is_none_or(|c| b <= c) {
                Ok(b)
            } else {
                Err(Some(b))
            }
        }
        Err(e) => Err(failed_usage(&e, &s.function, &s.space)),
    }
}

/// Remedies for one space that does not fit, each checked by re-planning.
pub(super) fn remedies(
    program: &Program,
    soc: &Soc,
    planner: PlannerMode,
    s: &SpaceExplain,
) -> Vec<Remedy> {
    let mut out = Vec::new();
    // Another planner on the unchanged program; the default planner also
    // says how many bytes it needs when the requested one did not.
    let mut needed = s.planned_bytes;
    let mut fitting = Vec::new();
    for other in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
        if other == planner {
            continue;
        }
        match probe(program, soc, other, s) {
            Ok(b) => fitting.push((other, b)),
            Err(Some(b)) if other == PlannerMode::Pypto => needed = needed.or(Some(b)),
            Err(_) => {}
        }
    }
    let before = needed.unwrap_or(s.lower_bound());
    // Bytes over the capacity: what a shrinking remedy must give back.
    let missing = before.saturating_sub(s.capacity.unwrap_or(u64::MAX));
    for (other, b) in fitting {
        out.push(Remedy {
            change: format!("plan with --planner {}", other.name()),
            bytes_after: b,
            saved: before.saturating_sub(b),
        });
    }
    let Some(fidx) = program
        .functions
        .iter()
        .position(|f| *f.name == *s.function)
    else {
        return out;
    };
    // A move of one statement: free of any change to sizes, tried first.
    reorder_remedy(program, fidx, soc, planner, s, before, &mut out);
    // A smaller reserved window: fewer pipe slots, or fewer bytes.
    let reserves = reserves(&program.functions[fidx]);
    for r in reserves
        .iter()
        .filter(|r| r.space.name() == s.space && r.size > 0)
    {
        let line = program.functions[fidx].pos_of(r.stmt).line;
        // The cross-core pipe ring: a window of slot_num slots of slot_size
        // bytes, named by the pipe's `*_initialize_pipe` call. Fewer slots
        // give a smaller window; try each depth from the top.
        if let Some((init, slot_size, slot_num)) = pipe_of(&program.functions[fidx], r) {
            let with_slots = |n: u64| {
                let mut p = program.clone();
                let f = &mut p.functions[fidx];
                if let Some(c) = f.stmts[r.stmt].call_mut() {
                    c.set_kwarg("size", Expr::Int((slot_size * n) as i64));
                }
                if let Some(c) = f.stmts[init].call_mut() {
                    c.set_kwarg("slot_num", Expr::Int(n as i64));
                }
                p
            };
            if let Some((n, b)) = (1..slot_num)
                .rev()
                .find_map(|n| fits(&with_slots(n), soc, planner, s).map(|b| (n, b)))
            {
                out.push(Remedy {
                    change: format!(
                        "lower the cross-core pipe depth to slot_num={n} \
                         (optimizations=[pl.cross_core_slot(slot_num={n})]): reserve_buffer '{}' \
                         (line {line}) shrinks from {} to {} bytes",
                        r.name,
                        r.size,
                        slot_size * n
                    ),
                    bytes_after: b,
                    saved: r.size - slot_size * n,
                });
            }
            continue;
        }
        let with_size = |size: u64| {
            let mut p = program.clone();
            if let Some(c) = p.functions[fidx].stmts[r.stmt].call_mut() {
                c.set_kwarg("size", Expr::Int(size as i64));
            }
            p
        };
        // Largest size, in steps of the space's alignment under the policy
        // the re-plans use (what follows the window starts at an aligned
        // address, so a finer step gives nothing back), that still fits,
        // probably the one that gives back exactly the missing bytes.
        let step = tilemem_soc::DefaultPolicy.alignment(r.space);
        let guess = r.size.saturating_sub(missing) / step;
        if let Some((size, b)) = largest_fitting(r.size / step, guess, |k| {
            fits(&with_size(k * step), soc, planner, s)
        }) {
            let size = size * step;
            out.push(Remedy {
                change: format!(
                    "shrink reserve_buffer '{}' (line {line}) from {} to {size} bytes",
                    r.name, r.size
                ),
                bytes_after: b,
                saved: r.size - size,
            });
        }
    }
    // No `stage=` remedy: both planners already lower a pipeline group's
    // depth themselves when its stage copies do not fit (a perf hint says
    // so), down to depth 1, so a lower `stage=` never turns a failure into
    // a fit.
    let f = &program.functions[fidx];
    uniform_shrinks(program, fidx, soc, planner, s, missing, &mut out);
    // A smaller dimension of one tile: every tile live at the peak, largest
    // first, then the tiles a rule keeps apart; every dimension.
    let mut candidates: Vec<String> = s.live.iter().map(|t| t.name.clone()).collect();
    for r in s.refused.iter().take(3) {
        for n in [&r.a, &r.b] {
            if !candidates.contains(n) {
                candidates.push(n.clone());
            }
        }
    }
    for name in &candidates {
        let Some(v) = f.var_by_name(name) else {
            continue;
        };
        let Some(tt) = f.ty(v).and_then(Type::as_tile) else {
            continue;
        };
        let t = LiveTile {
            name: name.clone(),
            bytes: tt.storage_bytes(soc).unwrap_or(0),
            shape: shape_text(&tt.shape),
            dtype: tt.dtype.name().to_string(),
            line: def_line(f, v).unwrap_or(0),
            def: 0,
            last: 0,
        };
        // Each dimension is searched; the one that keeps the most of the
        // tile is offered.
        let mut best: Option<Remedy> = None;
        for (dim, extent) in tt.shape.iter().enumerate() {
            let Some(rows) = extent.as_int().filter(|&r| r > 1) else {
                continue;
            };
            let with_rows = |r: u64| {
                let mut p = program.clone();
                if let Some(tt) = p.functions[fidx].vars[v]
                    .ty
                    .as_mut()
                    .and_then(Type::as_tile_mut)
                {
                    tt.shape[dim] = Expr::Int(r as i64);
                }
                p
            };
            let row_bytes = (t.bytes / rows as u64).max(1);
            let guess = (rows as u64).saturating_sub(missing.div_ceil(row_bytes));
            let Some((r, b)) = largest_fitting(rows as u64 - 1, guess, |r| {
                if r == 0 {
                    return None;
                }
                fits(&with_rows(r), soc, planner, s)
            }) else {
                continue;
            };
            let p = with_rows(r);
            let new_tile = p.functions[fidx].ty(v).and_then(Type::as_tile);
            let new_shape = new_tile.map_or(String::new(), |tt| shape_text(&tt.shape));
            let new_bytes = new_tile.and_then(|tt| tt.storage_bytes(soc)).unwrap_or(0);
            let saved = t.bytes.saturating_sub(new_bytes);
            if best.as_ref().is_none_or(|x| saved < x.saved) {
                best = Some(Remedy {
                    change: format!(
                        "shrink tile '{}' (line {}) from {} to {new_shape}",
                        t.name, t.line, t.shape
                    ),
                    bytes_after: b,
                    saved,
                });
            }
        }
        out.extend(best);
    }
    out
}

/// The tiles of `f` in `space` whose dimension `dim` is `extent`.
fn tiles_with(f: &Function, space: &str, dim: usize, extent: i64) -> Vec<VarId> {
    f.vars
        .iter()
        .filter(|(v, _)| {
            f.ty(*v).and_then(Type::as_tile).is_some_and(|t| {
                t.space.is_some_and(|sp| sp.name() == space)
                    && t.shape.get(dim).and_then(Expr::as_int) == Some(extent)
            })
        })
        .map(|(v, _)| v)
        .collect()
}

/// One smaller extent for a dimension shared by several tiles (the
/// kernel's tile size): dimension `dim` of every tile of the space whose
/// extent there is `extent` becomes the largest smaller extent that fits.
/// Tried for each (dimension, extent) of the tiles live at the peak that
/// more than one tile has.
fn uniform_shrinks(
    program: &Program,
    fidx: usize,
    soc: &Soc,
    planner: PlannerMode,
    s: &SpaceExplain,
    missing: u64,
    out: &mut Vec<Remedy>,
) {
    let f = &program.functions[fidx];
    let mut seen: Vec<(usize, i64)> = Vec::new();
    // The one that gives back the fewest bytes is offered.
    let mut best: Option<Remedy> = None;
    for t in &s.live {
        let Some(tt) = f
            .var_by_name(&t.name)
            .and_then(|v| f.ty(v))
            .and_then(Type::as_tile)
        else {
            continue;
        };
        for (dim, e) in tt.shape.iter().enumerate() {
            let Some(extent) = e.as_int().filter(|&x| x > 1) else {
                continue;
            };
            if seen.contains(&(dim, extent)) {
                continue;
            }
            seen.push((dim, extent));
            let vars = tiles_with(f, &s.space, dim, extent);
            if vars.len() < 2 {
                continue;
            }
            let with_extent = |x: u64| {
                let mut p = program.clone();
                for &v in &vars {
                    if let Some(tt) = p.functions[fidx].vars[v]
                        .ty
                        .as_mut()
                        .and_then(Type::as_tile_mut)
                    {
                        tt.shape[dim] = Expr::Int(x as i64);
                    }
                }
                p
            };
            // The live set shrinks by extent - x rows of each live tile.
            let live_row: u64 = s
                .live
                .iter()
                .filter(|l| f.var_by_name(&l.name).is_some_and(|v| vars.contains(&v)))
                .map(|l| l.bytes / extent as u64)
                .sum();
            let guess = (extent as u64).saturating_sub(missing.div_ceil(live_row.max(1)));
            if let Some((x, b)) = largest_fitting(extent as u64 - 1, guess, |x| {
                if x == 0 {
                    return None;
                }
                fits(&with_extent(x), soc, planner, s)
            }) {
                let mut names: Vec<String> =
                    vars.iter().map(|&v| f.vars[v].name.to_string()).collect();
                names.sort();
                names.dedup();
                let listed = if names.len() > 6 {
                    format!("{}, ... ({} in all)", names[..6].join(", "), names.len())
                } else {
                    names.join(", ")
                };
                let saved = live_row * (extent as u64 - x);
                if best.as_ref().is_none_or(|r| saved < r.saved) {
                    best = Some(Remedy {
                        change: format!(
                            "use tiles of {x} instead of {extent} in dimension {dim} (every {} \
                             tile with {extent} there: {listed})",
                            s.space
                        ),
                        bytes_after: b,
                        saved,
                    });
                }
            }
        }
    }
    out.extend(best);
}

/// A move of one statement that keeps every dependency and lowers the
/// peak (see [`super::reorder`]), confirmed by re-planning: the best move
/// that fits, else the best one that lowers the bytes used.
fn reorder_remedy(
    program: &Program,
    fidx: usize,
    soc: &Soc,
    planner: PlannerMode,
    s: &SpaceExplain,
    before: u64,
    out: &mut Vec<Remedy>,
) {
    let Some(space) = MemSpace::from_name(&s.space) else {
        return;
    };
    let f = &program.functions[fidx];
    let mut best: Option<(bool, u64, super::reorder::Move)> = None;
    for m in super::reorder::candidates(f, space, soc, 4) {
        let mut p = program.clone();
        super::reorder::apply(&mut p.functions[fidx], &m);
        let (fits, bytes) = match probe(&p, soc, planner, s) {
            Ok(b) => (true, b),
            Err(Some(b)) if b < before => (false, b),
            _ => continue,
        };
        if best.as_ref().is_none_or(|(bf, bb, _)| {
            (fits, std::cmp::Reverse(bytes)) > (*bf, std::cmp::Reverse(*bb))
        }) {
            best = Some((fits, bytes, m));
        }
        if fits {
            break;
        }
    }
    let Some((fits, bytes, m)) = best else {
        return;
    };
    let body = f.block(Block::Body);
    let moved = body[m.from];
    let rest: Vec<StmtId> = body.iter().copied().filter(|&x| x != moved).collect();
    let place = match m.to.checked_sub(1).and_then(|k| rest.get(k)) {
        Some(&after) => format!("after line {}", f.pos_of(after).line),
        None => format!(
            "before line {}",
            rest.first().map_or(0, |&x| f.pos_of(x).line)
        ),
    };
    let over = s
        .capacity
        .filter(|&c| !fits && bytes > c)
        .map(|c| format!("; still {} bytes over", bytes - c))
        .unwrap_or_default();
    out.push(Remedy {
        change: format!(
            "move line {} (`{}`) {place}: it keeps every data and side-effect dependency{over}",
            f.pos_of(moved).line,
            super::stmt_label(f, moved)
        ),
        bytes_after: bytes,
        saved: before.saturating_sub(bytes),
    });
}

/// The pipe a reserved window is the ring of: the `*_initialize_pipe`
/// statement that names the window's variable, its `slot_size` and
/// `slot_num`, when the window is exactly `slot_size x slot_num` bytes.
fn pipe_of(f: &Function, r: &Reserve) -> Option<(StmtId, u64, u64)> {
    let var = f.stmts[r.stmt].def()?;
    f.walk().into_iter().find_map(|(_, st)| {
        let c = f.stmts[st].call()?;
        let init = crate::ops::has_role(c.op_name(), crate::ops::CrossCoreRole::InitializePipe);
        if !init || c.args.first()?.as_var() != Some(var) {
            return None;
        }
        let size = u64::try_from(c.kwarg("slot_size")?.as_int()?).ok()?;
        let num = u64::try_from(c.kwarg("slot_num")?.as_int()?).ok()?;
        (size.checked_mul(num) == Some(r.size)).then_some((st, size, num))
    })
}

/// The largest `k` in `0..=max` for which `f(k)` is `Some`, assuming that
/// fitting is monotone (smaller is never worse); `None` when even `f(0)`
/// fails. `guess` is where the answer probably is (the size that removes
/// exactly the missing bytes): when `f(guess)` fits and `f(guess + 1)`
/// does not, two calls settle it; otherwise a binary search on the side
/// the guess points to.
fn largest_fitting(max: u64, guess: u64, f: impl Fn(u64) -> Option<u64>) -> Option<(u64, u64)> {
    let guess = guess.min(max);
    let (mut lo, mut hi, mut best) = match f(guess) {
        Some(b) => {
            if guess == max {
                return Some((guess, b));
            }
            match f(guess + 1) {
                None => return Some((guess, b)),
                Some(b1) => (guess + 2, max, Some((guess + 1, b1))),
            }
        }
        None if guess == 0 => return None,
        None => (0, guess - 1, None),
    };
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        match f(mid) {
            Some(b) => {
                best = Some((mid, b));
                lo = mid + 1;
            }
            None => {
                if mid == 0 {
                    break;
                }
                hi = mid - 1;
            }
        }
    }
    best
}
