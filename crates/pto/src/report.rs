//! The JSON report of a planned program.
//!
//! Per kernel function and memory space: the buffers (one per family of
//! tiles holding the same data, on one root), bytes used, the capacity, the
//! lower bound of co-live bytes (no placement can use less), and each
//! buffer's address range and program-order lifetime. Built from the
//! program text alone, so it describes exactly what is printed.

use std::fmt::Write;

use rustc_hash::FxHashMap as HashMap;

use tilemem_plan::bound::plain_lower_bound;
use tilemem_plan::{Buffer, Problem, Solution};
use tilemem_soc::Soc;

use crate::ir::{Alloc, EntityRef, Function, MemRef, MemSpace, Program, Type, VarId};
use crate::passes::analysis::layout::{Layout, Slot};
use crate::passes::analysis::order::{Lifetime, ProgramOrder};
use crate::passes::analysis::reserve;
use crate::passes::analysis::{exclusive, facts};
use crate::passes::rewrite::storage::current_tile_type;
use crate::passes::verify::{
    byte_sources, family_buffers, family_reps, order_to_index, FamilyBuffer,
};

/// One buffer of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferReport {
    /// Representative tile name.
    pub name: String,
    /// Root allocation name.
    pub root: String,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Program-order index of the first definition.
    pub def: u64,
    /// Program-order index of the last read.
    pub last: u64,
    /// Stretches inside the buffer's hull, on the half-open scale of
    /// [`SpaceReport::placement`], in which it holds nothing still needed:
    /// its value is read only in another branch of an `if`, or a loop
    /// carry lies between its last read and the write of the next value
    /// ([`live_values`]' spans, folded per buffer). Empty for most buffers,
    /// and for every buffer of a report built without them
    /// ([`build_with`]).
    pub gaps: Vec<(u64, u64)>,
}

impl BufferReport {
    /// The buffer's program-order hull on the report's doubled time scale:
    /// `[2 def + 1, max(2 def + 2, 2 last + 1))` (statement `i` runs at
    /// instant `2 i + 1`).
    pub fn hull(&self) -> (u64, u64) {
        (2 * self.def + 1, (2 * self.def + 2).max(2 * self.last + 1))
    }

    /// The stretches of the [`hull`](Self::hull) between the
    /// [`gaps`](Self::gaps), in time order: where the buffer holds
    /// something still needed (the whole hull when it has no gaps).
    pub fn spans(&self) -> Vec<(u64, u64)> {
        let hull = self.hull();
        let mut out = Vec::with_capacity(self.gaps.len() + 1);
        let mut from = hull.0;
        for &(lo, hi) in self.gaps.iter().chain([&(hull.1, hull.1)]) {
            if lo > from {
                out.push((from, lo));
            }
            from = from.max(hi);
        }
        out
    }
}

/// One memory space of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceReport {
    /// Space name (`Vec`, ...).
    pub space: String,
    /// Highest used address (including reserved windows).
    pub bytes_used: u64,
    /// Capacity of the space on the target, if limited.
    pub capacity: Option<u64>,
    /// Largest total of values live at one instant ([`live_values`]):
    /// no correct placement of the space uses less (reserved windows
    /// aside).
    pub lower_bound: u64,
    /// Buffers in address order.
    pub buffers: Vec<BufferReport>,
}

impl SpaceReport {
    /// The space as an IR-free placement problem and the placement the
    /// program uses: one buffer per reported buffer (named `tile@root`),
    /// live on the half-open `[2 def + 1, max(2 def + 2, 2 last + 1))`, at
    /// its reported start. Used to draw memory maps and to replay a space
    /// through `tilemem validate`.
    pub fn placement(&self) -> (Problem, Solution) {
        self.placement_with(false)
    }

    /// [`placement`](Self::placement) with each buffer once per stretch
    /// between its [`gaps`](BufferReport::gaps) ([`BufferReport::spans`]),
    /// at its one start: the placement a planner that shares bytes across
    /// branches or in a carry's gap made, which the hulls alone would show
    /// as overlapping. [`span_owners`](Self::span_owners) maps its buffers
    /// back to the report's.
    pub fn placement_by_span(&self) -> (Problem, Solution) {
        self.placement_with(true)
    }

    /// For each buffer of [`placement_by_span`](Self::placement_by_span),
    /// in its order, the index of the report buffer
    /// ([`buffers`](Self::buffers)) it draws.
    pub fn span_owners(&self) -> Vec<usize> {
        let mut owners = Vec::with_capacity(self.buffers.len());
        for (i, b) in self.buffers.iter().enumerate() {
            owners.extend(std::iter::repeat_n(i, b.spans().len()));
        }
        owners
    }

    fn placement_with(&self, by_span: bool) -> (Problem, Solution) {
        let mut problem = Problem::new();
        let mut offsets = Vec::with_capacity(self.buffers.len());
        for b in &self.buffers {
            let spans = if by_span { b.spans() } else { vec![b.hull()] };
            for (lo, hi) in spans {
                problem.push(
                    Buffer::new(b.end - b.start, lo, hi)
                        .with_name(format!("{}@{}", b.name, b.root)),
                );
                offsets.push(b.start);
            }
        }
        problem.capacity = self.capacity;
        (problem, Solution { offsets })
    }
}

/// One function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionReport {
    /// Function name.
    pub name: String,
    /// Spaces in a fixed order.
    pub spaces: Vec<SpaceReport>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Target name.
    pub target: String,
    /// Whether MemRef offsets are addresses (allocate_memory_addr ran). When
    /// not, buffer ranges are relative to their root and `bytes_used` is the
    /// sum of the roots' sizes (what a layout without further sharing takes).
    pub addressed: bool,
    /// Kernel functions, in program order.
    pub functions: Vec<FunctionReport>,
}

/// Builds the report of a program, each buffer with its
/// [`gaps`](BufferReport::gaps); `addressed` says whether its MemRef
/// offsets are final addresses (after allocate_memory_addr).
pub fn build(program: &Program, soc: &Soc, addressed: bool) -> Report {
    build_with(program, soc, addressed, true)
}

/// [`build`], computing the buffers' gaps only when `gaps` is set. Only
/// drawing or validating the placement by span
/// ([`SpaceReport::placement_by_span`]: the memory map, `explain::peak`)
/// reads them; the JSON report and the numbers do not, and they cost:
/// on the pipeline bench's kernel of 100k statements the report took
/// 86-88 ms with them and 49-50 ms without (peak heap 6.60x the input
/// against 5.41x; 100 kernels of 1k: 48-49 ms against 36-40 ms).
///
/// Kept lean for long kernels: the layout and the family buffers come from
/// tables sized once, each space's buffers are turned into its report and
/// dropped before the next space, and the lower bound is computed from
/// the lifetimes without building a placement problem.
pub fn build_with(program: &Program, soc: &Soc, addressed: bool, gaps: bool) -> Report {
    let mut functions = Vec::new();
    for f in &program.functions {
        if !f.kind().is_kernel() {
            continue;
        }
        let layout = layout(f, addressed);
        let order = ProgramOrder::build(f);
        let values = live_values_in(f, &order);
        let mut spaces = Vec::new();
        let mut per_space = family_buffers(f, &layout);
        let spans = if gaps {
            buffer_spans(f, &order, &values)
        } else {
            HashMap::default()
        };
        per_space.sort_by_key(|a| a.0);
        for (space, bufs) in per_space {
            let bytes_used = bytes_used(&layout, space, &bufs, addressed);
            let lower_bound = lower_bound(&values, space);
            let mut buffers: Vec<BufferReport> = bufs
                .iter()
                .map(|b| BufferReport {
                    name: f.vars[b.rep].name.to_string(),
                    root: f.vars[b.root].name.to_string(),
                    start: b.start,
                    end: b.end,
                    def: b.live.0,
                    last: b.live.1,
                    gaps: gaps_in(b, spans.get(&(b.rep, b.root))),
                })
                .collect();
            drop(bufs);
            buffers.sort_by(|a, b| (a.start, a.def, &a.name).cmp(&(b.start, b.def, &b.name)));
            spaces.push(SpaceReport {
                space: space.name().to_string(),
                bytes_used,
                capacity: soc.capacity(space),
                lower_bound,
                buffers,
            });
        }
        functions.push(FunctionReport {
            name: f.name.to_string(),
            spaces,
        });
    }
    Report {
        target: soc.name().to_string(),
        addressed,
        functions,
    }
}

/// The live spans of each (family, root) buffer of `f`, on the doubled
/// scale of [`SpaceReport::placement`]: every span of [`live_values`]
/// charged to the family and root of its value's tile, renumbered from
/// [`ProgramOrder`]'s indices to the report's.
fn buffer_spans(
    f: &Function,
    order: &ProgramOrder,
    values: &[LiveValue],
) -> HashMap<(VarId, VarId), Vec<(u64, u64)>> {
    let to_index = order_to_index(f, order);
    let reps = family_reps(f);
    // An instant `2 i + 1` is statement `i`'s, `2 i + 2` the one after it.
    let renumber = |e: u64| -> u64 {
        let at = |i: u64| {
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            u64::from(to_index.get(i).or(to_index.last()).copied().unwrap_or(0))
        };
        match e {
            0 => 0,
            e if e % 2 == 1 => 2 * at((e - 1) / 2) + 1,
            e => 2 * at((e - 2) / 2) + 2,
        }
    };
    let mut out: HashMap<(VarId, VarId), Vec<(u64, u64)>> = HashMap::default();
    for lv in values {
        let Some(Type::Tile(_, Some(m))) = current_tile_type(f, lv.var) else {
            continue;
        };
        let Some(root) = m.base_var() else { continue };
        out.entry((reps[lv.var.index()], root))
            .or_default()
            .push((renumber(lv.live.0), renumber(lv.live.1)));
    }
    out
}

/// The gaps of buffer `b` given its values' `spans`: the stretches of its
/// hull between them. Before the first span and after the last the hull
/// stays whole (a member [`live_values`] does not count keeps it there).
fn gaps_in(b: &FamilyBuffer, spans: Option<&Vec<(u64, u64)>>) -> Vec<(u64, u64)> {
    let Some(spans) = spans else {
        return Vec::new();
    };
    let hull = (2 * b.live.0 + 1, (2 * b.live.0 + 2).max(2 * b.live.1 + 1));
    let mut clipped: Vec<(u64, u64)> = spans
        .iter()
        .map(|&(lo, hi)| (lo.max(hull.0), hi.min(hull.1)))
        .filter(|&(lo, hi)| lo < hi)
        .collect();
    clipped.sort_unstable();
    let mut gaps = Vec::new();
    let mut reach: Option<u64> = None;
    for (lo, hi) in clipped {
        match reach {
            Some(r) if lo > r => {
                gaps.push((r, lo));
                reach = Some(hi);
            }
            Some(r) => reach = Some(r.max(hi)),
            None => reach = Some(hi),
        }
    }
    gaps
}

/// A value of a function as the lower bound counts it: a tile value (a
/// view or a bare alias is its source's value), with its bytes and one
/// half-open span in which it is live. A value is live from its definition
/// ([`Lifetime::half_open`]; an `if` result from the join of its branches,
/// a loop iter arg from its loop's start) up to each of its reads
/// (loop-extended), except in the branches that exclude a read: on the
/// path through an `if`'s then branch a value whose next read is in the
/// else branch holds nothing still needed (the branch rule of
/// [`exclusive::reach`], which the planners' occupancies apply too). A
/// value whose live instants have such gaps is listed once per span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveValue {
    /// The tile that defines the value.
    pub var: VarId,
    /// Its space.
    pub space: MemSpace,
    /// Its bytes.
    pub bytes: u64,
    /// One `[lower, upper)` span on the doubled program-order scale.
    pub live: (u64, u64),
    /// The hull of all its spans: from its definition to its last read.
    pub hull: (u64, u64),
}

/// Every value of `f`'s tiles, in variable order (a value's spans in time
/// order). Two values live at one instant hold different data that is
/// still to be read on one path, so no correct placement gives them the
/// same bytes: the largest total live at one instant bounds every
/// planner's usage from below (unlike hulls of families, which also span
/// the stretches where a family's bytes hold nothing still needed, and
/// unlike program-order hulls of values, which also span the branches of
/// an `if` where a value read only in the other branch is dead).
pub fn live_values(f: &Function) -> Vec<LiveValue> {
    live_values_in(f, &ProgramOrder::build(f))
}

/// [`live_values`] on `f`'s program order, built once by a caller that
/// needs it too.
fn live_values_in(f: &Function, order: &ProgramOrder) -> Vec<LiveValue> {
    let facts = facts::analyze_with(f, order);
    let def_of = |v: VarId| {
        let fx = facts.var(v);
        fx.join.or(fx.def)
    };
    // The value each view or bare alias reads the bytes of.
    let source = byte_sources(f);
    // Every read is charged to the value its bytes hold, from that
    // value's definition, by the branch rule the planners' occupancies
    // use.
    let reach = exclusive::reach(f, order, &facts, |x| {
        let v = source[x.index()];
        def_of(v).map(|d| (v, d))
    });
    let mut next = 0;
    let mut out = Vec::new();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for v in f.vars.keys() {
        if source[v.index()] != v {
            continue;
        }
        let (Some(Type::Tile(t, m)), Some(def)) = (current_tile_type(f, v), def_of(v)) else {
            continue;
        };
        let Some(space) = t.space.filter(|s| s.is_on_chip()) else {
            continue;
        };
        let Some(bytes) = m.as_ref().and_then(MemRef::size) else {
            continue;
        };
        // A value never read still takes its bytes where it is written.
        let own = Lifetime { def, last: def }.half_open();
        reach.spans_of(v, own, &mut next, &mut merged);
        let hull = (merged[0].0, merged[merged.len() - 1].1);
        out.extend(merged.iter().map(|&live| LiveValue {
            var: v,
            space,
            bytes,
            live,
            hull,
        }));
    }
    out
}

/// The lower bound of `space`: the largest total of values live at one
/// instant (at least the largest value).
pub fn lower_bound(values: &[LiveValue], space: MemSpace) -> u64 {
    plain_lower_bound(
        values
            .iter()
            .filter(|v| v.space == space)
            .map(|v| (v.bytes, v.live.0, v.live.1)),
    )
}

/// Bytes used by one space's buffers: the highest used address
/// (reserved windows included) when addressed, else the roots' sizes
/// after the reserved windows.
fn bytes_used(layout: &Layout, space: MemSpace, bufs: &[FamilyBuffer], addressed: bool) -> u64 {
    let reserved_end = layout
        .reserves
        .iter()
        .filter(|r| r.space == space)
        .map(|r| r.base + r.size)
        .max()
        .unwrap_or(0);
    let slot_end = |root| layout.slot(root).map(|s| s.base + s.size);
    if addressed {
        bufs.iter()
            .map(|b| b.end.max(slot_end(b.root).unwrap_or(0)))
            .max()
            .unwrap_or(0)
            .max(reserved_end)
    } else {
        let mut roots: Vec<_> = bufs.iter().map(|b| b.root).collect();
        roots.sort_unstable();
        roots.dedup();
        reserved_end + roots.iter().filter_map(|&r| slot_end(r)).sum::<u64>()
    }
}

/// The numbers of one (function, space) the `plan` summary line shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceSummary {
    /// Function name.
    pub function: String,
    /// Space name.
    pub space: String,
    /// Highest used address (including reserved windows), as in the report.
    pub bytes_used: u64,
    /// Capacity of the space on the target, if limited.
    pub capacity: Option<u64>,
    /// Lower bound from the values live together (reserved windows not
    /// included), as in the report.
    pub lower_bound: u64,
    /// Bytes of the reserved windows.
    pub reserved: u64,
    /// Tiles: the tile families of the buffers (tiles holding the same
    /// data count once).
    pub tiles: usize,
    /// Buffers: distinct addresses (addressed) or roots (not addressed).
    pub buffers: usize,
}

/// The [`Report`]'s per-space numbers without its per-buffer records (no
/// names, no sorting): what the summary line needs, at a fraction of
/// [`build`]'s time and memory on a long kernel.
pub fn summary(program: &Program, soc: &Soc, addressed: bool) -> Vec<SpaceSummary> {
    let mut out = Vec::new();
    for f in &program.functions {
        if !f.kind().is_kernel() {
            continue;
        }
        let layout = layout(f, addressed);
        let values = live_values(f);
        let mut per_space = family_buffers(f, &layout);
        per_space.sort_by_key(|a| a.0);
        for (space, bufs) in per_space {
            out.push(summarize(f, soc, &layout, &values, space, &bufs, addressed));
        }
    }
    out
}

fn summarize(
    f: &Function,
    soc: &Soc,
    layout: &Layout,
    values: &[LiveValue],
    space: MemSpace,
    bufs: &[FamilyBuffer],
    addressed: bool,
) -> SpaceSummary {
    let reserved = layout
        .reserves
        .iter()
        .filter(|r| r.space == space)
        .map(|r| r.size)
        .sum();
    // Tiles by family (4 bytes each, not a name each).
    let mut tiles: Vec<VarId> = bufs.iter().map(|b| b.rep).collect();
    tiles.sort_unstable();
    tiles.dedup();
    let mut places: Vec<(VarId, u64)> = bufs
        .iter()
        .map(|b| {
            if addressed {
                (VarId::new(0), b.start)
            } else {
                (b.root, 0)
            }
        })
        .collect();
    places.sort_unstable();
    places.dedup();
    SpaceSummary {
        function: f.name.to_string(),
        space: space.name().to_string(),
        bytes_used: bytes_used(layout, space, bufs, addressed),
        capacity: soc.capacity(space),
        lower_bound: lower_bound(values, space),
        reserved,
        tiles: tiles.len(),
        buffers: places.len(),
    }
}

/// Runs the independent placement check
/// ([`check_function`](crate::passes::verify::check_function)) on every
/// kernel function of a program as printed after allocate_memory_addr,
/// from the program text alone: what a reader of the output sees. The
/// fuzz targets and tests call it on every planner's output.
pub fn check_placement(
    program: &Program,
    soc: &Soc,
    policy: &dyn tilemem_soc::MemoryAllocatorPolicy,
    rules: crate::passes::SeedRules,
) -> Result<(), crate::passes::PassError> {
    for f in &program.functions {
        if f.kind().is_kernel() {
            crate::passes::verify::check_function(f, soc, policy, rules, None)?;
        }
    }
    Ok(())
}

/// The slot of every top-level allocation some tile names: at the lowest
/// constant offset of its tiles when `addressed`, else at 0.
fn layout(f: &Function, addressed: bool) -> Layout {
    // After planning every window has an explicit base, so the policy
    // (which only aligns AUTO bases) does not matter here.
    let reserves = reserve::resolve(f, &tilemem_soc::DefaultPolicy).unwrap_or_default();
    let allocs: Vec<Alloc> = f.body.iter().filter_map(|&s| f.alloc_at(s)).collect();
    // Per allocation (by its variable): whether a tile names it, and the
    // lowest constant offset of those tiles.
    let mut by_var: Vec<(VarId, usize)> =
        allocs.iter().enumerate().map(|(i, a)| (a.var, i)).collect();
    by_var.sort_unstable();
    let mut named = vec![false; allocs.len()];
    let mut lowest: Vec<Option<i64>> = vec![None; allocs.len()];
    for (_, d) in f.vars.iter() {
        let Some(Type::Tile(_, Some(m))) = &d.ty else {
            continue;
        };
        let Some(r) = m.base_var() else { continue };
        let Ok(k) = by_var.binary_search_by_key(&r, |&(v, _)| v) else {
            continue;
        };
        // Every allocation of the variable (one, in a well-formed program).
        let k = by_var[..k].partition_point(|&(v, _)| v < r);
        for &(_, i) in by_var[k..].iter().take_while(|&&(v, _)| v == r) {
            named[i] = true;
            if let Some(o) = m.const_offset() {
                lowest[i] = Some(lowest[i].map_or(o, |x| x.min(o)));
            }
        }
    }
    let mut layout = Layout::with_capacity(reserves, allocs.len());
    for (i, a) in allocs.iter().enumerate() {
        if !named[i] {
            continue;
        }
        let base = lowest[i]
            .and_then(|o| u64::try_from(o).ok())
            .filter(|_| addressed)
            .unwrap_or(0);
        layout.push(Slot {
            root: a.var,
            space: a.space,
            base,
            size: a.size,
        });
    }
    layout
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Report {
    /// Renders the report as pretty-printed JSON (stable key order).
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        // Writing into memory cannot fail.
        let _ = self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Writes [`to_json`](Self::to_json)'s text into `w` in chunks of
    /// about 64 KiB (a long kernel's report is megabytes), without holding
    /// it whole; stops at the first write error.
    pub fn write_json<W: std::io::Write + ?Sized>(&self, w: &mut W) -> std::io::Result<()> {
        const CHUNK: usize = 64 * 1024;
        let mut o = String::new();
        o.push_str("{\n  \"target\": ");
        json_str(&mut o, &self.target);
        let _ = write!(o, ",\n  \"addressed\": {}", self.addressed);
        o.push_str(",\n  \"functions\": [");
        for (i, f) in self.functions.iter().enumerate() {
            o.push_str(if i == 0 { "\n" } else { ",\n" });
            o.push_str("    {\n      \"name\": ");
            json_str(&mut o, &f.name);
            o.push_str(",\n      \"spaces\": [");
            for (j, s) in f.spaces.iter().enumerate() {
                o.push_str(if j == 0 { "\n" } else { ",\n" });
                o.push_str("        {\n          \"space\": ");
                json_str(&mut o, &s.space);
                let cap = s.capacity.map_or("null".to_string(), |c| c.to_string());
                let _ = write!(
                    o,
                    ",\n          \"bytes_used\": {},\n          \"capacity\": {cap},\n          \"lower_bound\": {},\n          \"buffers\": [",
                    s.bytes_used, s.lower_bound
                );
                for (k, b) in s.buffers.iter().enumerate() {
                    o.push_str(if k == 0 { "\n" } else { ",\n" });
                    o.push_str("            {\"name\": ");
                    json_str(&mut o, &b.name);
                    o.push_str(", \"root\": ");
                    json_str(&mut o, &b.root);
                    let _ = write!(
                        o,
                        ", \"start\": {}, \"end\": {}, \"def\": {}, \"last\": {}}}",
                        b.start, b.end, b.def, b.last
                    );
                    if o.len() >= CHUNK {
                        w.write_all(o.as_bytes())?;
                        o.clear();
                    }
                }
                o.push_str(if s.buffers.is_empty() {
                    "]\n        }"
                } else {
                    "\n          ]\n        }"
                });
            }
            o.push_str(if f.spaces.is_empty() {
                "]\n    }"
            } else {
                "\n      ]\n    }"
            });
        }
        o.push_str(if self.functions.is_empty() {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        });
        w.write_all(o.as_bytes())?;
        w.flush()
    }
}
