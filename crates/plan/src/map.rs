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

/// The top of the address axis: the height and reserved ends, and the
/// capacity when it is near enough (at most twice the rest) that drawing it
/// does not squash the buffers into a sliver; at least 1.
fn address_top(problem: &Problem, solution: &Solution) -> u64 {
    let height = problem
        .buffers
        .iter()
        .zip(&solution.offsets)
        .map(|(b, &o)| o.saturating_add(b.size))
        .max()
        .unwrap_or(0);
    let reserved = problem.reserved.iter().map(|r| r.1).max().unwrap_or(0);
    let used = height.max(reserved).max(1);
    match problem.capacity {
        Some(c) if c <= used.saturating_mul(2) => used.max(c),
        _ => used,
    }
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

/// A fixed, colour-blind-friendly palette; buffers cycle through it by index.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Width and height of every [`render_svg`] document (a caller stacking
/// several can write its own header before rendering them).
pub const SVG_SIZE: (f64, f64) = (960.0, 540.0);

/// Renders the placement as a standalone SVG document.
///
/// `title` is printed above the plot (e.g. `"kernel / Vec"`).
pub fn render_svg(problem: &Problem, solution: &Solution, title: &str) -> String {
    const W: f64 = SVG_SIZE.0;
    const H: f64 = SVG_SIZE.1;
    const LEFT: f64 = 90.0;
    const RIGHT: f64 = 20.0;
    const TOP: f64 = 50.0;
    const BOTTOM: f64 = 40.0;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let axis = TimeAxis::new(problem);
    let top = address_top(problem, solution) as f64;
    let y = |addr: u64| TOP + ph - (addr as f64 / top) * ph;
    let x = |t: u64| LEFT + axis.pos(t) * pw;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let height = solution.height(problem);
    let lb = lower_bound(problem);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="38">{} buffers, height {}, lower bound {}{}</text>"#,
        problem.len(),
        bytes(height),
        bytes(lb),
        problem
            .capacity
            .map(|c| format!(", capacity {}", bytes(c)))
            .unwrap_or_default()
    );
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##
    );
    // Address ticks at quarters of the axis.
    for q in 0..=4u64 {
        let addr = (top as u64) * q / 4;
        let yy = y(addr);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{yy:.1}" x2="{LEFT}" y2="{yy:.1}" stroke="#888"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 4.0,
            LEFT - 6.0,
            yy + 4.0,
            bytes(addr)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time (lifetime end points, evenly spaced)</text>"#,
        LEFT + pw / 2.0,
        H - 12.0
    );
    for &(start, end) in &problem.reserved {
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{:.1}" width="{pw}" height="{:.1}" fill="#ddd" stroke="#999" stroke-dasharray="4 2"><title>reserved [{start}, {end})</title></rect>"##,
            y(end),
            (y(start) - y(end)).max(0.5)
        );
    }
    for (i, (b, &off)) in problem.buffers.iter().zip(&solution.offsets).enumerate() {
        if b.size == 0 {
            continue;
        }
        let (x0, x1) = (x(b.lower), x(b.upper));
        let (y0, y1) = (y(off + b.size), y(off));
        let w = (x1 - x0).max(1.0);
        let h = (y1 - y0).max(0.5);
        let label = problem.label(crate::problem::BufferId(i as u32));
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" fill="{}" fill-opacity="0.75" stroke="#333" stroke-width="0.5"><title>{}: {} at [{}, {}), live [{}, {})</title></rect>"##,
            PALETTE[i % PALETTE.len()],
            escape(&label),
            bytes(b.size),
            off,
            off + b.size,
            b.lower,
            b.upper
        );
        if w > 7.0 * label.len() as f64 && h > 13.0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                x0 + w / 2.0,
                y0 + h / 2.0 + 4.0,
                escape(&label)
            );
        }
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
    if let Some(c) = problem.capacity.filter(|&c| c <= top as u64) {
        hline(c, "#c00", "capacity");
    }
    hline(lb, "#666", "lower bound");
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
    for (i, (b, &off)) in problem.buffers.iter().zip(&solution.offsets).enumerate() {
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
        assert!(svg.contains("capacity 1 MiB</text>"), "{svg}");
        assert!(!svg.contains(">capacity 1 MiB"), "no capacity line: {svg}");
        let text = render_text(&p, &s, 2, 4);
        assert!(text.starts_with("     128 |"), "{text}");
    }
}
