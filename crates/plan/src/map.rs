//! Memory-map pictures of a placement: address (up) over time (right).
//!
//! Two renderings of the same picture:
//! - [`render_svg`]: a standalone SVG, one rectangle per buffer with a hover
//!   title (name, size, address range, lifetime), the capacity, the lower
//!   bound, reserved ranges and address ticks;
//! - [`render_text`]: a character grid for terminals, one letter per buffer
//!   and a legend.
//!
//! The time axis is *event-compressed*: every distinct lifetime end point
//! gets one column slot, evenly spaced, so that short lifetimes in a long
//! trace stay visible. The address axis is linear from 0 to the larger of
//! the placement's height and the capacity.
//!
//! Both renderings are deterministic (same problem and solution, same bytes)
//! and read only the problem and the solution, so any placement can be drawn,
//! valid or not: overlapping rectangles are exactly what a broken placement
//! looks like.

use std::fmt::Write as _;

use crate::bound::lower_bound;
use crate::problem::{Problem, Solution};

/// Event-compressed time axis: maps a lifetime instant to `[0, 1]`.
struct TimeAxis {
    points: Vec<u64>,
}

impl TimeAxis {
    fn new(problem: &Problem) -> TimeAxis {
        let mut points: Vec<u64> = problem
            .buffers
            .iter()
            .flat_map(|b| [b.lower, b.upper])
            .collect();
        points.sort_unstable();
        points.dedup();
        TimeAxis { points }
    }

    /// Position of `t` in `[0, 1]` (index of the event point over the count).
    fn pos(&self, t: u64) -> f64 {
        if self.points.len() < 2 {
            return 0.0;
        }
        let i = self.points.partition_point(|&p| p < t);
        i as f64 / (self.points.len() - 1) as f64
    }
}

/// The top of the address axis: the height and reserved ends, at least 1.
/// The capacity does not stretch it (a kernel using a tenth of a space
/// still fills the picture); it is drawn when it lies below the top (the
/// placement overflows) and named otherwise.
fn address_top(problem: &Problem, solution: &Solution) -> u64 {
    let height = problem
        .buffers
        .iter()
        .zip(&solution.offsets)
        .map(|(b, &o)| o.saturating_add(b.size))
        .max()
        .unwrap_or(0);
    let reserved = problem.reserved.iter().map(|r| r.1).max().unwrap_or(0);
    height.max(reserved).max(1)
}

/// Address tick step: a power of two giving at most eight ticks up to `top`
/// (the HTML map's rule).
fn tick_step(top: u64) -> u64 {
    let mut step = 1u64;
    while top / step > 8 {
        step *= 2;
    }
    step
}

/// Human form of a byte count: `512`, `16 KiB`, `1.5 MiB`.
fn bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB / 4) {
        format!("{} MiB", trim(n as f64 / MIB as f64))
    } else if n >= KIB && n.is_multiple_of(KIB / 4) {
        format!("{} KiB", trim(n as f64 / KIB as f64))
    } else {
        n.to_string()
    }
}

fn trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Colours by group: one hue per group in order of first appearance,
/// spread by the golden angle so neighbouring groups differ (the HTML
/// map's rule, so both pictures colour a buffer alike).
struct Colours<'a> {
    hues: Vec<&'a str>,
}

impl<'a> Colours<'a> {
    fn of(&mut self, group: &'a str) -> String {
        let k = match self.hues.iter().position(|&g| g == group) {
            Some(k) => k,
            None => {
                self.hues.push(group);
                self.hues.len() - 1
            }
        };
        format!("hsl({:.1},65%,68%)", (k as f64 * 137.508) % 360.0)
    }
}

/// Width and height of every [`render_svg`] document (a caller stacking
/// several can write its own header before rendering them).
pub const SVG_SIZE: (f64, f64) = (960.0, 540.0);

/// What a caller knows of a placement beyond the problem: the picture of a
/// program's memory space has a statement axis and colours by root.
#[derive(Clone, Debug, Default)]
pub struct SvgOptions {
    /// Statement marks `(instant, label)`, label `L12` for source line 12.
    /// When given, time is linear over the buffers' lifetimes (instants are
    /// program positions); otherwise it is event-compressed.
    pub ticks: Vec<(u64, String)>,
    /// Colour group of each buffer, by index (its root allocation); a
    /// buffer without one is its own group.
    pub groups: Vec<String>,
    /// Name written on each buffer, by index; the buffer's label otherwise.
    pub names: Vec<String>,
}

/// Renders the placement as a standalone SVG document.
///
/// `title` is printed above the plot (e.g. `"kernel / Vec"`).
pub fn render_svg(problem: &Problem, solution: &Solution, title: &str) -> String {
    render_svg_with(problem, solution, title, &SvgOptions::default())
}

/// [`render_svg`] with a statement axis, colour groups and bar names.
pub fn render_svg_with(
    problem: &Problem,
    solution: &Solution,
    title: &str,
    opts: &SvgOptions,
) -> String {
    const W: f64 = SVG_SIZE.0;
    const H: f64 = SVG_SIZE.1;
    const LEFT: f64 = 90.0;
    const RIGHT: f64 = 20.0;
    const TOP: f64 = 50.0;
    const BOTTOM: f64 = 40.0;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let axis = TimeAxis::new(problem);
    let (t_lo, t_hi) = {
        let lo = problem.buffers.iter().map(|b| b.lower).min().unwrap_or(0);
        let hi = problem.buffers.iter().map(|b| b.upper).max().unwrap_or(1);
        (lo, hi.max(lo + 1))
    };
    let top = address_top(problem, solution) as f64 * 1.04;
    let y = |addr: u64| TOP + ph - (addr as f64 / top) * ph;
    let x = |t: u64| {
        if opts.ticks.is_empty() {
            LEFT + axis.pos(t) * pw
        } else {
            LEFT + (t.clamp(t_lo, t_hi) - t_lo) as f64 / (t_hi - t_lo) as f64 * pw
        }
    };

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let height = solution.height(problem);
    let lb = lower_bound(problem);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    let over = problem.capacity.filter(|&c| height > c);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="38">{} buffers, {} used{}, lower bound {}{}</text>"#,
        problem.len(),
        bytes(height),
        problem
            .capacity
            .map(|c| format!(
                " of {} ({:.1} %)",
                bytes(c),
                100.0 * height as f64 / c.max(1) as f64
            ))
            .unwrap_or_default(),
        bytes(lb),
        over.map(|c| format!(": does not fit, {} over", bytes(height - c)))
            .unwrap_or_default()
    );
    // Address grid and ticks.
    let step = tick_step(top as u64);
    let mut a = 0;
    while a as f64 <= top {
        let yy = y(a);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end" fill="#555">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            yy + 4.0,
            bytes(a)
        );
        a += step;
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##
    );
    if let Some(c) = over {
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{:.1}" fill="#c00" fill-opacity="0.08"/>"##,
            (y(c) - TOP).max(0.0)
        );
    }
    for &(start, end) in &problem.reserved {
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{:.1}" width="{pw}" height="{:.1}" fill="#ddd" stroke="#999" stroke-dasharray="4 2"><title>reserved [{start}, {end})</title></rect>"##,
            y(end),
            (y(start) - y(end)).max(0.5)
        );
    }
    let mut colours = Colours { hues: Vec::new() };
    let own: Vec<String> = (0..problem.len()).map(|i| format!("#{i}")).collect();
    for (i, (b, &off)) in problem.buffers.iter().zip(&solution.offsets).enumerate() {
        if b.size == 0 {
            continue;
        }
        let (x0, x1) = (x(b.lower), x(b.upper));
        let (y0, y1) = (y(off + b.size), y(off));
        let w = (x1 - x0).max(1.0);
        let h = (y1 - y0).max(0.5);
        let label = problem.label(crate::problem::BufferId(i as u32));
        let group = opts.groups.get(i).unwrap_or(&own[i]);
        let stroke = if over.is_some_and(|c| off + b.size > c) {
            r##"stroke="#c00" stroke-width="1.5""##
        } else {
            r##"stroke="#333" stroke-width="0.6""##
        };
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" fill="{}" {stroke}><title>{}: {} at [{}, {}), live [{}, {})</title></rect>"##,
            colours.of(group),
            escape(&label),
            bytes(b.size),
            off,
            off + b.size,
            b.lower,
            b.upper
        );
        let name = opts.names.get(i).map_or(label.as_str(), String::as_str);
        let fit = ((w - 6.0) / 6.5).floor().max(0.0) as usize;
        if h >= 12.0 && fit >= 3 {
            let shown: String = if name.chars().count() <= fit {
                name.to_string()
            } else {
                name.chars().take(fit - 1).chain(['\u{2026}']).collect()
            };
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#111">{}</text>"##,
                x0 + 3.0,
                y0 + (h / 2.0 + 4.0).min(13.0),
                escape(&shown)
            );
        }
    }
    // Time axis: statement marks labelled where there is room, or a title.
    if opts.ticks.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time (lifetime end points, evenly spaced)</text>"#,
            LEFT + pw / 2.0,
            H - 12.0
        );
    } else {
        let mut last = f64::NEG_INFINITY;
        for (at, label) in &opts.ticks {
            let tx = (x(*at) + x(at + 1)) / 2.0;
            let _ = writeln!(
                s,
                r##"<line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{:.1}" stroke="#888"/>"##,
                TOP + ph,
                TOP + ph + 3.0
            );
            if !label.is_empty() && tx - last >= 30.0 {
                let _ = writeln!(
                    s,
                    r##"<text x="{tx:.1}" y="{:.1}" text-anchor="middle" fill="#555" font-size="10">{}</text>"##,
                    TOP + ph + 14.0,
                    escape(label)
                );
                last = tx;
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">statements, by source line</text>"#,
            LEFT + pw / 2.0,
            H - 8.0
        );
    }
    let mut hline = |addr: u64, color: &str, what: &str| {
        let yy = y(addr);
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="{color}" stroke-dasharray="6 3"/><text x="{}" y="{:.1}" fill="{color}" text-anchor="end">{what} {}</text>"#,
            LEFT + pw,
            LEFT + pw - 4.0,
            yy - 3.0,
            bytes(addr)
        );
    };
    if let Some(c) = problem.capacity.filter(|&c| (c as f64) <= top) {
        hline(c, "#c00", "capacity");
    }
    hline(lb, "#666", "lower bound");
    if let Some(c) = problem.capacity.filter(|&c| (c as f64) > top) {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" fill="#555" text-anchor="end">capacity {} (above this picture)</text>"##,
            LEFT + pw - 4.0,
            TOP + 12.0,
            bytes(c)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The letter that stands for buffer `i` in the text map (cycles after 62).
fn glyph(i: usize) -> char {
    const GLYPHS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    GLYPHS[i % GLYPHS.len()] as char
}

/// Renders the placement as a `rows` x `cols` character grid plus a legend.
///
/// Each cell shows the buffer covering its centre (`.` when free, `#` for a
/// reserved range, `!` where two buffers cover it: an invalid placement).
/// The top row is the highest address.
pub fn render_text(problem: &Problem, solution: &Solution, rows: usize, cols: usize) -> String {
    let rows = rows.max(2);
    let cols = cols.max(2);
    let axis = TimeAxis::new(problem);
    let top = address_top(problem, solution);
    let mut grid = vec![vec!['.'; cols]; rows];
    // Which buffers own a cell: the legend names only those, and says
    // which were too small for the grid.
    let mut drawn = vec![false; problem.len()];
    for &(start, end) in &problem.reserved {
        for (r, line) in grid.iter_mut().enumerate() {
            let addr = cell_addr(rows - 1 - r, rows, top);
            if start <= addr && addr < end {
                line.iter_mut().for_each(|c| *c = '#');
            }
        }
    }
    for (i, (b, &off)) in problem.buffers.iter().zip(&solution.offsets).enumerate() {
        if b.size == 0 {
            continue;
        }
        let c0 = (axis.pos(b.lower) * cols as f64).floor() as usize;
        let c1 = ((axis.pos(b.upper) * cols as f64).ceil() as usize).clamp(c0 + 1, cols);
        for (r, line) in grid.iter_mut().enumerate() {
            let addr = cell_addr(rows - 1 - r, rows, top);
            if off <= addr && addr < off + b.size {
                for cell in &mut line[c0.min(cols - 1)..c1] {
                    *cell = if *cell == '.' || *cell == '#' {
                        glyph(i)
                    } else {
                        '!'
                    };
                }
                drawn[i] = true;
            }
        }
    }
    let mut s = String::new();
    let width = bytes(top).len().max(8);
    for (r, line) in grid.iter().enumerate() {
        let label = if r == 0 {
            bytes(top)
        } else if r == rows - 1 {
            "0".to_string()
        } else {
            String::new()
        };
        let _ = writeln!(s, "{label:>width$} |{}|", line.iter().collect::<String>());
    }
    let _ = writeln!(s, "{:>width$} +{}+ time ->", "", "-".repeat(cols));
    let mut hidden = Vec::new();
    for (i, (b, &off)) in problem.buffers.iter().zip(&solution.offsets).enumerate() {
        if !drawn[i] {
            hidden.push(i);
            continue;
        }
        let _ = writeln!(
            s,
            "  {} {}: {} at [{}, {}), live [{}, {})",
            glyph(i),
            problem.label(crate::problem::BufferId(i as u32)),
            bytes(b.size),
            off,
            off + b.size,
            b.lower,
            b.upper
        );
    }
    if !hidden.is_empty() {
        let _ = writeln!(
            s,
            "  not drawn (smaller than a cell at this scale, or empty): {}",
            hidden
                .iter()
                .map(|&i| {
                    let b = &problem.buffers[i];
                    format!(
                        "{} ({} at {}, live [{}, {}))",
                        problem.label(crate::problem::BufferId(i as u32)),
                        bytes(b.size),
                        solution.offsets[i],
                        b.lower,
                        b.upper
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}

/// The address at the centre of row `r` (0 = lowest) of `rows`.
fn cell_addr(r: usize, rows: usize, top: u64) -> u64 {
    ((r as f64 + 0.5) * top as f64 / rows as f64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    fn two_buffers() -> (Problem, Solution) {
        let mut p = Problem::new();
        p.push(Buffer::new(64, 0, 2).with_name("a"));
        p.push(Buffer::new(64, 1, 3).with_name("b"));
        p.capacity = Some(128);
        (
            p,
            Solution {
                offsets: vec![0, 64],
            },
        )
    }

    #[test]
    fn text_map_shows_each_buffer_in_its_own_band() {
        let (p, s) = two_buffers();
        let text = render_text(&p, &s, 4, 6);
        let expected = "     128 |..BBBB|
         |..BBBB|
         |AAAA..|
       0 |AAAA..|
         +------+ time ->
  A a: 64 at [0, 64), live [0, 2)
  B b: 64 at [64, 128), live [1, 3)
";
        assert_eq!(text, expected);
    }

    #[test]
    fn text_map_legend_lists_only_what_it_draws() {
        let (mut p, mut s) = two_buffers();
        // 1 byte in 129: below every cell centre of a 4-row grid.
        p.push(Buffer::new(1, 0, 3).with_name("speck"));
        s.offsets.push(128);
        let text = render_text(&p, &s, 4, 6);
        assert!(!text.contains("  C speck"), "{text}");
        assert!(
            text.ends_with(
                "  not drawn (smaller than a cell at this scale, or empty): speck (1 at 128, live [0, 3))\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn svg_scales_to_the_bytes_used_with_power_of_two_ticks_and_root_colours() {
        let (mut p, s) = two_buffers();
        p.capacity = Some(1024);
        let opts = SvgOptions {
            ticks: vec![(0, "L3".into()), (1, "L4".into()), (2, "L5".into())],
            groups: vec!["mem_vec_0".into(), "mem_vec_0".into()],
            names: vec!["a".into(), "b".into()],
        };
        let svg = render_svg_with(&p, &s, "t", &opts);
        // 128 used of 1024: the axis ends at the bytes used, ticks at 16s.
        for t in [">0</text>", ">16</text>", ">64</text>", ">128</text>"] {
            assert!(svg.contains(t), "{t}: {svg}");
        }
        assert!(!svg.contains(">256</text>"), "{svg}");
        assert!(
            svg.contains(">capacity 1 KiB (above this picture)</text>"),
            "{svg}"
        );
        // One root, one colour; the statement axis names source lines.
        assert_eq!(svg.matches("fill=\"hsl(0.0,65%,68%)\"").count(), 2, "{svg}");
        assert!(svg.contains(">L3</text>") && svg.contains("statements, by source line"));
        // Over capacity: the capacity line is drawn and the overflow marked.
        p.capacity = Some(96);
        let svg = render_svg_with(&p, &s, "t", &opts);
        assert!(svg.contains(">capacity 96</text>"), "{svg}");
        assert!(svg.contains("does not fit, 32 over"), "{svg}");
    }

    #[test]
    fn text_map_marks_overlaps() {
        let (p, _) = two_buffers();
        let broken = Solution {
            offsets: vec![0, 0],
        };
        let text = render_text(&p, &broken, 2, 3);
        assert!(text.contains('!'), "{text}");
    }

    #[test]
    fn svg_names_every_buffer_and_the_capacity() {
        let (p, s) = two_buffers();
        let svg = render_svg(&p, &s, "demo <Vec>");
        assert!(svg.starts_with("<svg "));
        assert!(svg.contains("demo &lt;Vec&gt;"));
        assert!(svg.contains("<title>a: 64 at [0, 64), live [0, 2)</title>"));
        assert!(svg.contains("<title>b: 64 at [64, 128), live [1, 3)</title>"));
        assert!(svg.contains("capacity 128"));
        assert_eq!(svg, render_svg(&p, &s, "demo <Vec>"), "deterministic");
    }

    #[test]
    fn far_capacity_is_named_but_does_not_squash_the_axis() {
        let (mut p, s) = two_buffers();
        p.capacity = Some(1 << 20);
        let svg = render_svg(&p, &s, "t");
        assert!(
            svg.contains(">capacity 1 MiB (above this picture)</text>"),
            "{svg}"
        );
        assert!(
            !svg.contains("stroke=\"#c00\" stroke-dasharray"),
            "no capacity line: {svg}"
        );
        let text = render_text(&p, &s, 2, 4);
        assert!(text.starts_with("     128 |"), "{text}");
    }
}
