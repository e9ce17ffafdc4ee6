//! What the memory maps show, built from planned programs and solved
//! problems: the lanes of the HTML map ([`crate::html_map`]) and the
//! stacked SVG picture.

use std::collections::HashMap;

use tilemem_mlir::passes::plan_memory::map::{PlacedBuffer, SpacePlacement};
use tilemem_plan::{map, Problem, Solution};
use tilemem_pto::explain::{
    before_sharing_with, live_tile, peak, peak_of, refused_sharings, reserves, statement_at,
    RefusedSharing,
};
use tilemem_pto::ir::Program;
use tilemem_pto::passes::{PlannerMode, SeedRules};
use tilemem_pto::report::Report;
use tilemem_pto::PlanOptions;
use tilemem_soc::{MemSpace, Soc};

use crate::html_map::{Lane, MapDoc, Peak, Rect, Tick, View, Window};
use crate::planned::Planned;

/// At most this many names in one "not shared with" list.
const MAX_NAMES: usize = 12;

/// At most this many statements on one lane's axis (a longer function's
/// axis shows every n-th).
const MAX_TICKS: usize = 2000;

/// The HTML map of one or more planners' results of one program; `input`
/// is the program as read (for the sharings its rules refuse), `rules`
/// the seed rules the results were planned with, `source` its text (for
/// the source pane), `note` a line under the title.
pub fn plan_doc(
    title: &str,
    results: &[Planned],
    input: &Program,
    soc: &Soc,
    rules: SeedRules,
    source: &str,
    note: Option<String>,
) -> MapDoc {
    // (function, space) -> the sharings a rule refused, for any planner.
    let mut refused_all: Vec<(String, String, Vec<RefusedSharing>)> = Vec::new();
    let mut early_opts = PlanOptions::new(soc.clone(), PlannerMode::Pypto);
    early_opts.seed_rules = rules;
    if let Ok(early) = before_sharing_with(input, &early_opts) {
        for f in early.functions.iter().filter(|f| f.kind().is_kernel()) {
            let mut per_space = refused_sharings(f, soc, rules);
            for space in spaces_of(results, &f.name) {
                if let Some(here) = MemSpace::from_name(&space).and_then(|s| per_space.remove(&s)) {
                    refused_all.push((f.name.to_string(), space, here));
                }
            }
        }
    }
    let views = results
        .iter()
        .map(|p| View {
            planner: p.planner.name().to_string(),
            lanes: plan_lanes(p, &refused_under(&refused_all, p.planner)),
        })
        .collect();
    MapDoc {
        title: title.to_string(),
        noun: "tile".to_string(),
        note,
        source: source.lines().map(str::to_string).collect(),
        views,
    }
}

/// The spaces of function `name` in any of the results.
fn spaces_of(results: &[Planned], name: &str) -> Vec<String> {
    let mut out: Vec<String> = results
        .iter()
        .flat_map(|p| p.report.iter().flat_map(|r| r.functions.iter()))
        .filter(|f| f.name == name)
        .flat_map(|f| f.spaces.iter().map(|s| s.space.clone()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// (function, space, tile) -> the tiles a rule keeps it apart from, and why.
type Refused = HashMap<(String, String, String), Vec<String>>;

/// The refused sharings `planner`'s lifetimes allow, per tile: what
/// `explain --all` lists for that planner (a pair never live together
/// only under the optimal planner).
fn refused_under(all: &[(String, String, Vec<RefusedSharing>)], planner: PlannerMode) -> Refused {
    let mut refused = Refused::new();
    for (function, space, list) in all {
        for r in list.iter().filter(|r| r.refused_under(planner)) {
            let apart = if r.never_together {
                " (never live together)"
            } else {
                ""
            };
            for (x, y) in [(&r.a, &r.b), (&r.b, &r.a)] {
                refused
                    .entry((function.clone(), space.clone(), x.clone()))
                    .or_default()
                    .push(format!("{y}{apart}: {}", r.rule));
            }
        }
    }
    refused
}

fn plan_lanes(p: &Planned, refused: &Refused) -> Vec<Lane> {
    let mut lanes = Vec::new();
    let Some(report) = &p.report else {
        return lanes;
    };
    for fr in &report.functions {
        let Some(f) = p.program.function(&fr.name) else {
            continue;
        };
        let walk = f.walk();
        let reserves = reserves(f);
        // Source lines of the statements reading each variable.
        let mut uses: HashMap<tilemem_pto::ir::VarId, Vec<u32>> = HashMap::new();
        for &(_, s) in &walk {
            let line = f.pos_of(s).line;
            f.stmts[s].for_each_use(&mut |v| {
                let lines = uses.entry(v).or_default();
                if lines.last() != Some(&line) {
                    lines.push(line);
                }
            });
        }
        let by_name: HashMap<&str, tilemem_pto::ir::VarId> =
            f.vars.iter().map(|(v, d)| (&*d.name, v)).collect();
        for sr in &fr.spaces {
            // Each buffer once per stretch between its gaps: under the
            // optimal planner two tiles may take the same bytes at
            // different times of one hull (an `if`'s branches, a carry's
            // gap), which hulls would draw as two boxes on one place.
            let (problem, _) = sr.placement_by_span();
            let mut spans: Vec<Vec<(u64, u64)>> = vec![Vec::new(); sr.buffers.len()];
            for (k, &i) in sr.span_owners().iter().enumerate() {
                spans[i].push((problem.buffers[k].lower, problem.buffers[k].upper));
            }
            let pk = peak(sr);
            let (line, label) = statement_at(f, &walk, pk.statement);
            let reserved: Vec<Window> = reserves
                .iter()
                .filter(|r| r.space.name() == sr.space)
                .map(|r| Window {
                    name: r.name.clone(),
                    start: r.base,
                    end: r.base + r.size,
                })
                .collect();
            let res_bytes: u64 = reserved.iter().map(|w| w.end - w.start).sum();
            let mut rects = Vec::new();
            for (i, b) in sr.buffers.iter().enumerate() {
                let t = live_tile(f, b);
                let mut co_live = Vec::new();
                let mut same_root = Vec::new();
                for (j, o) in sr.buffers.iter().enumerate() {
                    if j == i || o.name == b.name {
                        continue;
                    }
                    if o.root == b.root || (o.start == b.start && report.addressed) {
                        same_root.push(o.name.as_str());
                    } else if overlap(&spans[i], &spans[j]) {
                        co_live.push(o.name.as_str());
                    }
                }
                let list = |v: &[&str]| {
                    if v.is_empty() {
                        "none".to_string()
                    } else if v.len() > MAX_NAMES {
                        format!("{}, ... ({} in all)", v[..MAX_NAMES].join(", "), v.len())
                    } else {
                        v.join(", ")
                    }
                };
                let mut details = vec![
                    ("tile".to_string(), b.name.clone()),
                    ("shape".to_string(), format!("{} {}", t.shape, t.dtype)),
                    ("bytes".to_string(), t.bytes.to_string()),
                    ("source line".to_string(), t.line.to_string()),
                    ("lifetime".to_string(), lifetime_text(&spans[i])),
                    (
                        "buffer".to_string(),
                        format!("{} at [{}, {})", b.root, b.start, b.end),
                    ),
                    ("shares it with".to_string(), list(&same_root)),
                ];
                details.push((
                    "not shared with (lifetimes overlap)".to_string(),
                    list(&co_live),
                ));
                let key = (fr.name.clone(), sr.space.clone(), b.name.clone());
                if let Some(rules) = refused.get(&key) {
                    details.push(("kept apart by a rule".to_string(), rules.join("; ")));
                }
                details.push(("planner".to_string(), p.planner.name().to_string()));
                let mut use_lines = by_name
                    .get(b.name.as_str())
                    .and_then(|v| uses.get(v))
                    .cloned()
                    .unwrap_or_default();
                use_lines.sort_unstable();
                use_lines.dedup();
                for &(t0, t1) in &spans[i] {
                    rects.push(Rect {
                        name: b.name.clone(),
                        group: b.root.clone(),
                        start: b.start,
                        end: b.end,
                        t0,
                        t1,
                        line: t.line,
                        uses: use_lines.clone(),
                        details: details.clone(),
                    });
                }
            }
            let ticks = statement_ticks(f, &walk, &problem);
            lanes.push(Lane {
                function: fr.name.clone(),
                space: sr.space.clone(),
                capacity: sr.capacity,
                used: sr.bytes_used,
                lower_bound: sr.lower_bound + res_bytes,
                reserved,
                peak: (pk.total > 0).then(|| Peak {
                    at: pk.instant,
                    label: format!("{label} (line {line}), {} bytes live", pk.total),
                }),
                rects,
                ticks,
            });
        }
    }
    lanes
}

/// Whether two buffers' spans (each disjoint and in time order, on the
/// doubled scale) share an instant.
fn overlap(a: &[(u64, u64)], b: &[(u64, u64)]) -> bool {
    a.iter()
        .any(|&(lo, hi)| b.iter().any(|&(l, h)| lo < h && l < hi))
}

/// A buffer's lifetime in statements, as the map draws it: `statements 3
/// .. 9`, or, when it holds nothing needed between stretches, each
/// stretch and then the gaps, `statements 7 .. 8, 9 .. 11; free 8 .. 9`.
/// On the doubled scale of the spans statement `p` runs at `2p + 1` (a
/// bar's tick) and `2p + 2` is the moment after it, `after p`: a stretch
/// `[lo, hi)` runs from the first to the second, so `7 .. 8` ends where
/// statement 8 reads the value for the last time, and the bytes are free
/// from there until statement 9 writes. Listing the stretches alone
/// (`7 .. 8, 9 .. 11`) read as if the buffer were held throughout.
fn lifetime_text(spans: &[(u64, u64)]) -> String {
    let at = |t: u64| match t {
        0 => "0".to_string(),
        t if t % 2 == 1 => (t / 2).to_string(),
        t => format!("after {}", t / 2 - 1),
    };
    // `[2p + 1, 2p + 2)`: defined by statement `p` and never read.
    let stretch = |lo: u64, hi: u64| {
        if lo % 2 == 1 && hi <= lo + 1 {
            at(lo)
        } else {
            format!("{} .. {}", at(lo), at(hi))
        }
    };
    let parts: Vec<String> = spans.iter().map(|&(lo, hi)| stretch(lo, hi)).collect();
    let gaps: Vec<String> = spans.windows(2).map(|w| stretch(w[0].1, w[1].0)).collect();
    if gaps.is_empty() {
        format!("statements {}", parts.join(", "))
    } else {
        format!("statements {}; free {}", parts.join(", "), gaps.join(", "))
    }
}

/// The statements over the lifetimes of `problem` (a space's placement,
/// on the report's doubled time scale: statement `p` runs at `2p + 1`).
fn statement_ticks(
    f: &tilemem_pto::ir::Function,
    walk: &[(tilemem_pto::ir::Block, tilemem_pto::ir::StmtId)],
    problem: &Problem,
) -> Vec<Tick> {
    let lo = problem.buffers.iter().map(|b| b.lower).min().unwrap_or(1);
    let hi = problem.buffers.iter().map(|b| b.upper).max().unwrap_or(1);
    let (first, last) = ((lo.saturating_sub(1) / 2).max(1), hi.div_ceil(2).max(1));
    let every = ((last - first + 1) as usize).div_ceil(MAX_TICKS).max(1);
    (first..=last)
        .step_by(every)
        .filter_map(|p| {
            let (line, label) = statement_at(f, walk, p);
            (p as usize <= walk.len()).then_some(Tick {
                at: 2 * p + 1,
                line,
                label,
            })
        })
        .collect()
}

/// The HTML map of a solved problem file.
pub fn solve_doc(title: &str, problem: &Problem, solution: &Solution, solver: &str) -> MapDoc {
    let lb = tilemem_plan::lower_bound(problem);
    let used = solution.height(problem);
    let mut names: HashMap<usize, String> = HashMap::new();
    for (i, b) in problem.buffers.iter().enumerate() {
        names.insert(i, b.name.clone().unwrap_or_else(|| i.to_string()));
    }
    let rects = problem
        .buffers
        .iter()
        .zip(&solution.offsets)
        .enumerate()
        .map(|(i, (b, &o))| Rect {
            name: names[&i].clone(),
            group: names[&i].clone(),
            start: o,
            end: o + b.size,
            t0: b.lower,
            t1: b.upper,
            line: 0,
            uses: Vec::new(),
            details: vec![
                ("buffer".to_string(), names[&i].clone()),
                ("bytes".to_string(), b.size.to_string()),
                ("alignment".to_string(), b.align.to_string()),
                (
                    "lifetime".to_string(),
                    format!("[{}, {})", b.lower, b.upper),
                ),
                ("address".to_string(), format!("[{o}, {})", o + b.size)),
            ],
        })
        .collect();
    MapDoc {
        title: title.to_string(),
        noun: "buffer".to_string(),
        note: None,
        source: Vec::new(),
        views: vec![View {
            planner: solver.to_string(),
            lanes: vec![Lane {
                function: title.to_string(),
                space: "buffers".to_string(),
                capacity: problem.capacity,
                used,
                lower_bound: lb,
                reserved: problem
                    .reserved
                    .iter()
                    .map(|&(s, e)| Window {
                        name: "reserved".into(),
                        start: s,
                        end: e,
                    })
                    .collect(),
                peak: Some(peak_of(problem))
                    .filter(|p| p.total > 0)
                    .map(|p| Peak {
                        at: p.instant,
                        label: format!("time {}, {} bytes live", p.instant, p.total),
                    }),
                rects,
                ticks: Vec::new(),
            }],
        }],
    }
}

/// Writes the SVG header of `lanes` stacked lanes.
fn svg_head(w: &mut dyn std::io::Write, lanes: usize) -> std::io::Result<()> {
    let (lane_w, lane_h) = map::SVG_SIZE;
    let width = if lanes == 0 { 0f64 } else { lane_w };
    let height = lane_h * lanes as f64;
    writeln!(
        w,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    )
}

/// Writes one lane's picture (`svg`, a standalone document) moved down to
/// lane `i`.
fn svg_lane(w: &mut dyn std::io::Write, svg: &str, i: usize) -> std::io::Result<()> {
    let y = map::SVG_SIZE.1 * i as f64;
    // The lane's own root element, moved down to its place.
    let head = "<svg xmlns=\"http://www.w3.org/2000/svg\" ";
    match svg.find(head) {
        Some(at) => {
            w.write_all(&svg.as_bytes()[..at])?;
            write!(w, "<svg y=\"{y}\" ")?;
            w.write_all(&svg.as_bytes()[at + head.len()..])
        }
        None => w.write_all(svg.as_bytes()),
    }
}

/// Closes a stacked picture.
fn svg_tail(w: &mut dyn std::io::Write) -> std::io::Result<()> {
    w.write_all(b"</svg>\n")?;
    w.flush()
}

/// One SVG picture with a lane per (function, space), stacked, written
/// into `w` one lane at a time (a long kernel's lane alone is megabytes):
/// the header comes from the fixed size of every lane
/// ([`map::SVG_SIZE`]), then each lane is rendered, written and dropped.
pub fn write_plan_svg(
    report: &Report,
    program: &Program,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let lanes = report
        .functions
        .iter()
        .map(|f| f.spaces.len())
        .sum::<usize>();
    svg_head(w, lanes)?;
    let mut i = 0;
    for f in &report.functions {
        let func = program.function(&f.name);
        let walk = func.map(|func| func.walk()).unwrap_or_default();
        for s in &f.spaces {
            // As the HTML map: each buffer once per stretch between its gaps.
            let (problem, solution) = s.placement_by_span();
            let owners = s.span_owners();
            let title = format!("{} / {} ({})", f.name, s.space, report.target);
            let opts = map::SvgOptions {
                ticks: func
                    .map(|func| statement_ticks(func, &walk, &problem))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|t| (t.at, line_label(t.line)))
                    .collect(),
                groups: owners.iter().map(|&i| s.buffers[i].root.clone()).collect(),
                names: owners.iter().map(|&i| s.buffers[i].name.clone()).collect(),
            };
            let svg = map::render_svg_with(&problem, &solution, &title, &opts);
            drop((problem, solution));
            svg_lane(w, &svg, i)?;
            i += 1;
        }
    }
    svg_tail(w)
}

/// `L12` for source line 12, nothing for an unknown line.
fn line_label(line: u32) -> String {
    if line > 0 {
        format!("L{line}")
    } else {
        String::new()
    }
}

// ----- HIVM MLIR -----------------------------------------------------------
//
// A PlanMemory placement on the lanes' time scale: op number `p` runs at
// `2p + 1`; a slot live over ops `[a, f]` is drawn on `[2a + 1, 2f + 2)`.

/// `%alloc`, or `%alloc [slot 2/2]` for a multi-buffer's slot.
fn slot_name(b: &PlacedBuffer) -> String {
    if b.slot.1 > 1 {
        format!("{} [slot {}/{}]", b.name, b.slot.0 + 1, b.slot.1)
    } else {
        b.name.clone()
    }
}

/// The rectangles of one space: one per lifetime of each slot.
fn placement_rects(s: &SpacePlacement, planner: &str) -> Vec<Rect> {
    let mut rects = Vec::new();
    for (i, b) in s.buffers.iter().enumerate() {
        let name = slot_name(b);
        let co_live: Vec<String> = s
            .buffers
            .iter()
            .enumerate()
            .filter(|&(j, o)| {
                j != i
                    && o.lives
                        .iter()
                        .any(|&(a, f)| b.lives.iter().any(|&(x, y)| a <= y && x <= f))
            })
            .map(|(_, o)| slot_name(o))
            .collect();
        let co_live: Vec<&str> = co_live.iter().map(String::as_str).collect();
        let list = |v: &[&str]| {
            if v.is_empty() {
                "none".to_string()
            } else if v.len() > MAX_NAMES {
                format!("{}, ... ({} in all)", v[..MAX_NAMES].join(", "), v.len())
            } else {
                v.join(", ")
            }
        };
        let shares: Vec<&str> = b.shares_with.iter().map(String::as_str).collect();
        let details = vec![
            ("allocation".to_string(), name.clone()),
            ("type".to_string(), b.ty.clone()),
            ("bytes".to_string(), b.bytes.to_string()),
            (
                "source".to_string(),
                match &b.source {
                    Some(s) => format!("line {}:{} (loc {s})", b.loc.line, b.loc.col),
                    None => format!("line {}:{}", b.loc.line, b.loc.col),
                },
            ),
            (
                "lifetime".to_string(),
                b.lives
                    .iter()
                    .map(|(a, f)| format!("ops {a} .. {f}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            (
                "address".to_string(),
                format!("[{}, {})", b.offset, b.offset + b.bytes),
            ),
            ("in place with".to_string(), list(&shares)),
            ("live with (kept apart)".to_string(), list(&co_live)),
            ("planner".to_string(), planner.to_string()),
        ];
        for &(a, f) in &b.lives {
            rects.push(Rect {
                name: name.clone(),
                group: b.name.clone(),
                start: b.offset,
                end: b.offset + b.bytes,
                t0: 2 * a + 1,
                t1: 2 * f + 2,
                line: b.loc.line,
                uses: b.use_lines.clone(),
                details: details.clone(),
            });
        }
    }
    rects
}

/// The op axis of a space: the ops over its slots' lifetimes, at most
/// [`MAX_TICKS`] of them.
fn placement_ticks(s: &SpacePlacement) -> Vec<Tick> {
    let lives = s.buffers.iter().flat_map(|b| b.lives.iter());
    let first = lives.clone().map(|l| l.0).min().unwrap_or(0);
    let last = lives.map(|l| l.1).max().unwrap_or(0);
    let every = ((last - first + 1) as usize).div_ceil(MAX_TICKS).max(1);
    (first..=last)
        .step_by(every)
        .filter_map(|p| {
            let (name, loc) = s.ops.get(p as usize)?;
            Some(Tick {
                at: 2 * p + 1,
                line: loc.line,
                label: name.clone(),
            })
        })
        .collect()
}

/// The HTML map of the spaces PlanMemory placed (`planner` names the
/// planner), `source` the MLIR text for the source pane, `note` a line
/// under the title.
pub fn mlir_doc(
    title: &str,
    spaces: &[SpacePlacement],
    planner: &str,
    source: &str,
    note: Option<String>,
) -> MapDoc {
    let lanes = spaces
        .iter()
        .map(|s| Lane {
            function: s.function.clone(),
            space: s.space.clone(),
            capacity: Some(s.capacity),
            used: s.used,
            lower_bound: s.lower_bound,
            reserved: Vec::new(),
            peak: s.peak.as_ref().map(|(at, op, loc)| Peak {
                at: 2 * at + 1,
                label: format!("{op} (line {}), {} bytes live", loc.line, s.lower_bound),
            }),
            rects: placement_rects(s, planner),
            ticks: placement_ticks(s),
        })
        .collect();
    MapDoc {
        title: title.to_string(),
        noun: "buffer".to_string(),
        note,
        source: source.lines().map(str::to_string).collect(),
        views: vec![View {
            planner: planner.to_string(),
            lanes,
        }],
    }
}

/// The SVG picture of the spaces PlanMemory placed, a lane per space.
pub fn write_mlir_svg(
    spaces: &[SpacePlacement],
    chip: &str,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    svg_head(w, spaces.len())?;
    for (i, s) in spaces.iter().enumerate() {
        let mut problem = Problem::new();
        problem.capacity = Some(s.capacity);
        let mut offsets = Vec::new();
        let mut groups = Vec::new();
        let mut names = Vec::new();
        for b in &s.buffers {
            for &(a, f) in &b.lives {
                let mut buf = tilemem_plan::Buffer::new(b.bytes, 2 * a + 1, 2 * f + 2);
                buf.name = Some(b.name.clone());
                problem.buffers.push(buf);
                offsets.push(b.offset);
                groups.push(b.name.clone());
                names.push(slot_name(b));
            }
        }
        let solution = Solution { offsets };
        let opts = map::SvgOptions {
            ticks: placement_ticks(s)
                .into_iter()
                .map(|t| (t.at, line_label(t.line)))
                .collect(),
            groups,
            names,
        };
        let title = format!("{} / {} ({chip})", s.function, s.space);
        svg_lane(
            w,
            &map::render_svg_with(&problem, &solution, &title, &opts),
            i,
        )?;
    }
    svg_tail(w)
}

#[cfg(test)]
mod tests {
    use super::lifetime_text;

    /// The hover text names the moments the bars start and end at, and
    /// the gaps between bars.
    #[test]
    fn the_lifetime_text_follows_the_bars() {
        // Defined by statement 3, last read by statement 9.
        assert_eq!(lifetime_text(&[(7, 19)]), "statements 3 .. 9");
        // Defined by statement 5 and never read.
        assert_eq!(lifetime_text(&[(11, 12)]), "statements 5");
        // Read again by a loop whose last statement is 9: held while
        // statement 9 writes.
        assert_eq!(lifetime_text(&[(7, 20)]), "statements 3 .. after 9");
        // Free from statement 8's read until statement 9 writes.
        assert_eq!(
            lifetime_text(&[(15, 17), (19, 23)]),
            "statements 7 .. 8, 9 .. 11; free 8 .. 9"
        );
        // Needed again from just after statement 8 (a then branch ends
        // there) until statement 9 reads it.
        assert_eq!(
            lifetime_text(&[(9, 13), (18, 19), (21, 23)]),
            "statements 4 .. 6, after 8 .. 9, 10 .. 11; free 6 .. after 8, 9 .. 10"
        );
    }
}
