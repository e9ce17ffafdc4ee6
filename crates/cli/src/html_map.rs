//! The interactive memory map: one self-contained HTML file.
//!
//! Per function, its memory spaces stacked, each a plot of program
//! position (right) against address (up), sharing one statement axis
//! labelled with source lines. The address axis spans the bytes used, so
//! a kernel using a tenth of a space still fills its plot; the capacity
//! is a line that a checkbox brings into view (it is always in view when
//! the bytes used exceed it, with the overflow shaded). One rectangle per
//! buffer, coloured by its root allocation and named when the name fits;
//! reserved windows hatched; the peak instant marked. Hovering or clicking
//! a rectangle shows its details and highlights the tile's definition and
//! uses in the source pane; the buttons (or ctrl + wheel) zoom the
//! statement axis; a search box highlights tiles by name; a selector
//! switches between planners when the map holds several.
//!
//! The file has no external reference (no network, no external script or
//! style): the data is embedded as JSON and drawn by an inline script into
//! inline SVG. `#selftest` in the URL makes the page measure what it drew
//! (lanes, bars and their heights, names on bars, axis labels), hover its
//! first buffer and record what that shows (details, highlighted source
//! lines), and record any script error, in the DOM: the browser test in
//! `.ci/run` reads it.

use serde::Serialize;

/// A whole map: one or more views (one per planner).
#[derive(Serialize)]
pub struct MapDoc {
    /// Title of the page.
    pub title: String,
    /// A line shown under the title (a failed plan says so here).
    pub note: Option<String>,
    /// What one bar is, in the user's terms (`tile` for PyPTO, `buffer`
    /// for problems and HIVM slots): the lane headers count them, the
    /// search box names them.
    pub noun: String,
    /// The program's source lines (empty for a problem file): the source
    /// pane, highlighted on hover.
    pub source: Vec<String>,
    /// Views; a selector appears when there is more than one.
    pub views: Vec<View>,
}

/// The lanes of one planner's result.
#[derive(Serialize)]
pub struct View {
    /// Planner name (`pypto`, `dsa-rp`, ...).
    pub planner: String,
    /// One lane per (function, space); a function's lanes are consecutive
    /// and drawn stacked on one statement axis.
    pub lanes: Vec<Lane>,
}

/// One (function, space).
#[derive(Serialize)]
pub struct Lane {
    /// The function (lanes of one function are drawn together).
    pub function: String,
    /// The memory space (`Vec`, ...).
    pub space: String,
    /// Capacity in bytes, when limited.
    pub capacity: Option<u64>,
    /// Bytes used (top of the highest buffer or window).
    pub used: u64,
    /// Lower bound on the bytes any placement of these lifetimes needs.
    pub lower_bound: u64,
    /// Reserved windows `[start, end)` with their names.
    pub reserved: Vec<Window>,
    /// The instant of the largest co-live total, and what is there.
    pub peak: Option<Peak>,
    /// Buffers.
    pub rects: Vec<Rect>,
    /// The statement axis: one tick per statement in the lane's range.
    pub ticks: Vec<Tick>,
}

/// A reserved window.
#[derive(Serialize)]
pub struct Window {
    /// Name.
    pub name: String,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// The peak instant of a lane.
#[derive(Serialize)]
pub struct Peak {
    /// Program position.
    pub at: u64,
    /// What is there (statement and line).
    pub label: String,
}

/// One statement on the axis.
#[derive(Serialize)]
pub struct Tick {
    /// Instant (on the lanes' time scale) where the statement runs.
    pub at: u64,
    /// Its source line (0: none).
    pub line: u32,
    /// What it is (`row_sum = tile.row_sum`).
    pub label: String,
}

/// One buffer.
#[derive(Serialize)]
pub struct Rect {
    /// Tile (or buffer) name.
    pub name: String,
    /// Colour group: the root allocation it lives in.
    pub group: String,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// First program position (inclusive).
    pub t0: u64,
    /// Last program position (exclusive).
    pub t1: u64,
    /// Source line of the tile's definition (0: none).
    pub line: u32,
    /// Source lines of the statements that read it.
    pub uses: Vec<u32>,
    /// Details shown on hover, in order.
    pub details: Vec<(String, String)>,
}

/// Renders the document.
pub fn render(doc: &MapDoc) -> String {
    // `</` cannot appear inside the inline script.
    let data = serde_json::to_string(doc)
        .unwrap_or_else(|_| "{\"title\":\"\",\"views\":[]}".into())
        .replace("</", "<\\/");
    let title = escape(&doc.title);
    let noun = escape(&doc.noun);
    let note = doc
        .note
        .as_deref()
        .map(|n| format!("<p id=\"note\">{}</p>", escape(n)))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>{title}</h1>{note}\n<div id=\"controls\">\
         <label>planner <select id=\"planner\"></select></label> \
         <label>search <input id=\"search\" type=\"search\" placeholder=\"{noun} name\"></label> \
         <label><input id=\"showcap\" type=\"checkbox\"> show capacity</label> \
         <button id=\"zin\" type=\"button\">zoom +</button>\
         <button id=\"zout\" type=\"button\">zoom -</button>\
         <button id=\"zreset\" type=\"button\">reset</button>\
         <span id=\"matches\"></span></div></header>\n\
         <main id=\"lanes\"></main>\n<aside id=\"side\"><div id=\"details\">hover or click a buffer</div>\
         <pre id=\"source\"></pre></aside>\n\
         <pre id=\"selftest\" hidden></pre>\n\
         <script id=\"data\" type=\"application/json\">{data}</script>\n\
         <script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = r#"body { font: 13px sans-serif; margin: 0; display: grid; grid-template-columns: minmax(0, 1fr) 380px; grid-template-rows: auto minmax(0, 1fr); height: 100vh; }
header { grid-column: 1 / 3; padding: 6px 10px; border-bottom: 1px solid #ccc; }
h1 { font-size: 15px; margin: 0 0 4px 0; }
#note { margin: 2px 0 6px 0; color: #b00; font-weight: bold; }
#lanes { overflow: auto; padding: 6px 10px; }
#side { border-left: 1px solid #ccc; display: grid; grid-template-rows: auto minmax(0, 1fr); min-height: 0; }
#details { padding: 8px; white-space: pre-wrap; font: 12px monospace; border-bottom: 1px solid #ccc; max-height: 40vh; overflow: auto; }
#source { margin: 0; padding: 6px 0; overflow: auto; font: 12px monospace; }
#source .src { display: block; padding: 0 8px; white-space: pre; }
#source .src .no { color: #999; display: inline-block; width: 3.5em; text-align: right; margin-right: 8px; }
#source .src.def { background: #ffe08a; }
#source .src.use { background: #cde4ff; }
.function { margin-bottom: 18px; }
.function h2 { font-size: 14px; margin: 4px 0; }
.lane h3 { font-size: 12px; font-weight: normal; margin: 2px 0; }
.lane h3 .over { color: #b00; font-weight: bold; }
.buf { stroke: #333; stroke-width: 0.6; cursor: pointer; }
.buf.over { stroke: #c00; stroke-width: 1.5; }
.buf.hit { stroke: #e00; stroke-width: 2.5; }
.buf.dim { opacity: 0.25; }
.buf.sel { stroke: #00f; stroke-width: 2.5; }
.barlabel { font: 11px sans-serif; fill: #111; pointer-events: none; }
.cap { stroke: #c00; stroke-width: 1.5; stroke-dasharray: 6 3; }
.overflow { fill: #c00; fill-opacity: 0.08; }
.peak { stroke: #f80; stroke-width: 1.5; }
.axis { font: 10px sans-serif; fill: #555; }
.grid { stroke: #eee; }
#selftest { grid-column: 1 / 3; margin: 0 10px; }
"#;

const SCRIPT: &str = r#"'use strict';
(function () {
  const errors = [];
  window.addEventListener('error', e => errors.push(String(e.message)));
  window.addEventListener('unhandledrejection', e => errors.push(String(e.reason)));
  const consoleError = console.error;
  console.error = function (...args) { errors.push(args.join(' ')); consoleError.apply(console, args); };
  const doc = JSON.parse(document.getElementById('data').textContent);
  const sel = document.getElementById('planner');
  const lanesEl = document.getElementById('lanes');
  const details = document.getElementById('details');
  const sourceEl = document.getElementById('source');
  const search = document.getElementById('search');
  const showCap = document.getElementById('showcap');
  const NS = 'http://www.w3.org/2000/svg';
  let zoom = 1, view = 0, pinned = null;
  doc.views.forEach((v, i) => {
    const o = document.createElement('option');
    o.value = String(i); o.textContent = v.planner; sel.appendChild(o);
  });
  sel.parentElement.hidden = doc.views.length < 2;
  // The source pane: one element per line, found by line number.
  const srcLines = new Map();
  (doc.source || []).forEach((text, i) => {
    const line = document.createElement('span');
    line.className = 'src';
    const no = document.createElement('span');
    no.className = 'no'; no.textContent = String(i + 1);
    line.appendChild(no);
    line.appendChild(document.createTextNode(text));
    sourceEl.appendChild(line);
    srcLines.set(i + 1, line);
  });
  sourceEl.hidden = srcLines.size === 0;
  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // One hue per root, in order of first appearance, spread by the golden
  // angle so neighbouring roots differ (the SVG map uses the same rule).
  const hues = new Map();
  function colour(group) {
    if (!hues.has(group)) hues.set(group, (hues.size * 137.508) % 360);
    return 'hsl(' + hues.get(group).toFixed(1) + ',65%,68%)';
  }
  function bytes(n) {
    if (n >= 1048576 && n % 262144 === 0) return (n / 1048576) + ' MiB';
    if (n >= 1024 && n % 256 === 0) return (n / 1024) + ' KiB';
    return n + ' B';
  }
  // Address ticks: multiples of a power of two, four to eight of them.
  function step(top) {
    let s = 1;
    while (top / s > 8) s *= 2;
    return s;
  }
  function highlight(r) {
    for (const e of sourceEl.querySelectorAll('.def, .use')) e.classList.remove('def', 'use');
    for (const u of r.uses || []) { const e = srcLines.get(u); if (e) e.classList.add('use'); }
    const d = srcLines.get(r.line);
    if (d) { d.classList.add('def'); d.scrollIntoView({ block: 'nearest' }); }
  }
  function show(r) {
    details.textContent = r.details.map(([k, v]) => k + ': ' + v).join('\n');
    highlight(r);
  }
  // The lanes of one function, consecutive in the view.
  function groups(lanes) {
    const out = [];
    for (const lane of lanes) {
      const g = out[out.length - 1];
      if (g && g.name === lane.function) g.lanes.push(lane);
      else out.push({ name: lane.function, lanes: [lane] });
    }
    return out;
  }
  function draw() {
    lanesEl.textContent = '';
    const v = doc.views[view];
    if (!v) return;
    for (const g of groups(v.lanes)) {
      const sec = document.createElement('section');
      sec.className = 'function';
      const h = document.createElement('h2');
      h.textContent = g.name;
      sec.appendChild(h);
      // One statement axis for the function: the range its lanes use.
      let t0 = Infinity, t1 = -Infinity;
      for (const lane of g.lanes) {
        for (const r of lane.rects) { t0 = Math.min(t0, r.t0); t1 = Math.max(t1, r.t1); }
        for (const t of lane.ticks) { t0 = Math.min(t0, t.at); t1 = Math.max(t1, t.at + 1); }
        if (lane.peak) { t0 = Math.min(t0, lane.peak.at); t1 = Math.max(t1, lane.peak.at + 1); }
      }
      if (!isFinite(t0)) { t0 = 0; t1 = 1; }
      if (t1 <= t0) t1 = t0 + 1;
      g.lanes.forEach((lane, k) => drawLane(sec, lane, t0, t1, k === g.lanes.length - 1));
      lanesEl.appendChild(sec);
    }
    applySearch();
  }
  function drawLane(sec, lane, t0, t1, last) {
    const div = document.createElement('div');
    div.className = 'lane';
    const h = document.createElement('h3');
    const cap = lane.capacity == null ? null : lane.capacity;
    let text = lane.space + ': ' + bytes(lane.used) + (cap == null ? '' : ' of ' + bytes(cap) +
      ' (' + (100 * lane.used / cap).toFixed(1) + ' %)') + ', lower bound ' + bytes(lane.lower_bound) +
      ', ' + new Set(lane.rects.map(r => r.name)).size + ' ' + doc.noun + 's';
    h.textContent = text;
    const over = cap != null && lane.used > cap;
    if (over) {
      const o = document.createElement('span');
      o.className = 'over';
      o.textContent = ' - does not fit: ' + bytes(lane.used - cap) + ' over';
      h.appendChild(o);
    }
    div.appendChild(h);
    const W = Math.round(Math.max(600, lanesEl.clientWidth - 30) * zoom);
    const L = 64, R = 12, T = 8, B = last ? 34 : 16, PH = 190;
    const H = T + PH + B;
    let amax = Math.max(1, lane.used, ...lane.rects.map(r => r.end), ...lane.reserved.map(w => w.end));
    if (cap != null && (showCap.checked || over)) amax = Math.max(amax, cap);
    amax = amax * 1.04;
    const x = t => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const y = a => T + PH * (1 - a / amax);
    const svg = el('svg', { width: W, height: H, class: 'plot' }, div);
    const defs = el('defs', {}, svg);
    const pat = el('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#888', 'stroke-width': 2 }, pat);
    const st = step(amax);
    for (let a = 0; a <= amax; a += st) {
      el('line', { x1: L, x2: W - R, y1: y(a), y2: y(a), class: 'grid' }, svg);
      el('text', { x: L - 4, y: y(a) + 3, class: 'axis', 'text-anchor': 'end' }, svg).textContent = bytes(a);
    }
    el('line', { x1: L, y1: y(0), x2: W - R, y2: y(0), stroke: '#000' }, svg);
    if (over) el('rect', { x: L, width: W - R - L, y: y(amax), height: Math.max(0, y(cap) - y(amax)), class: 'overflow' }, svg);
    for (const w of lane.reserved) {
      const r = el('rect', { x: L, width: W - R - L, y: y(w.end), height: Math.max(1, y(w.start) - y(w.end)), fill: 'url(#hatch)', class: 'reserved' }, svg);
      el('title', {}, r).textContent = 'reserved ' + w.name + ' [' + w.start + ', ' + w.end + ')';
    }
    for (const r of lane.rects) {
      const bx = x(r.t0), bw = Math.max(1, x(r.t1) - x(r.t0));
      // At least 4 px tall (grown upward): a small buffer stays visible
      // and can be hovered.
      const bh = Math.max(4, y(r.start) - y(r.end)), by = y(r.start) - bh;
      const e = el('rect', { x: bx, width: bw, y: by, height: bh, fill: colour(r.group), class: 'buf' + (cap != null && r.end > cap ? ' over' : '') }, svg);
      e.dataset.name = r.name;
      e.addEventListener('mouseover', () => { if (!pinned) show(r); });
      e.addEventListener('click', () => {
        if (pinned) pinned.classList.remove('sel');
        pinned = pinned === e ? null : e;
        if (pinned) pinned.classList.add('sel');
        show(r);
      });
      // The name on the bar, cut to what fits (about 6.5 px a character).
      const fit = Math.floor((bw - 6) / 6.5);
      if (bh >= 12 && fit >= 3) {
        const name = r.name.length <= fit ? r.name : r.name.slice(0, fit - 1) + '\u2026';
        el('text', { x: bx + 3, y: by + Math.min(bh / 2 + 4, 13), class: 'barlabel' }, svg).textContent = name;
      }
    }
    if (cap != null && cap <= amax) {
      el('line', { x1: L, x2: W - R, y1: y(cap), y2: y(cap), class: 'cap' }, svg);
      el('text', { x: W - R - 4, y: y(cap) - 3, class: 'axis', 'text-anchor': 'end', fill: '#c00' }, svg).textContent = 'capacity ' + bytes(cap);
    } else if (cap != null) {
      el('text', { x: W - R - 4, y: T + 10, class: 'axis', 'text-anchor': 'end' }, svg).textContent =
        'capacity ' + bytes(cap) + ' is above (tick "show capacity")';
    }
    if (lane.peak) {
      const px = (x(lane.peak.at) + x(lane.peak.at + 1)) / 2;
      const p = el('line', { x1: px, x2: px, y1: T, y2: T + PH, class: 'peak' }, svg);
      el('title', {}, p).textContent = 'peak: ' + lane.peak.label;
      el('text', { x: px + 3, y: T + 10, class: 'axis' }, svg).textContent = 'peak';
    }
    // The statement axis: a mark per statement, its source line where
    // there is room (every lane), the axis title under the last lane.
    let lastLabel = -Infinity;
    for (const t of lane.ticks) {
      const tx = (x(t.at) + x(t.at + 1)) / 2;
      el('line', { x1: tx, x2: tx, y1: T + PH, y2: T + PH + 3, stroke: '#888' }, svg);
      if (t.line > 0 && tx - lastLabel >= 30) {
        const lt = el('text', { x: tx, y: T + PH + 13, class: 'axis tick', 'text-anchor': 'middle' }, svg);
        lt.textContent = 'L' + t.line;
        el('title', {}, lt).textContent = 'line ' + t.line + ': ' + t.label;
        lastLabel = tx;
      }
    }
    if (last) {
      el('text', { x: L + (W - L - R) / 2, y: H - 4, class: 'axis', 'text-anchor': 'middle' }, svg).textContent =
        lane.ticks.length ? 'statements, by source line' : 'time';
    }
    sec.appendChild(div);
  }
  function applySearch() {
    const q = search.value.trim().toLowerCase();
    let n = 0;
    for (const e of lanesEl.querySelectorAll('rect.buf')) {
      const hit = q !== '' && e.dataset.name.toLowerCase().includes(q);
      e.classList.toggle('hit', hit);
      e.classList.toggle('dim', q !== '' && !hit);
      if (hit) n++;
    }
    document.getElementById('matches').textContent = q === '' ? '' : n + ' match(es)';
  }
  sel.addEventListener('change', () => { view = Number(sel.value); pinned = null; draw(); });
  search.addEventListener('input', applySearch);
  showCap.addEventListener('change', draw);
  document.getElementById('zin').addEventListener('click', () => { zoom *= 1.5; draw(); });
  document.getElementById('zout').addEventListener('click', () => { zoom = Math.max(1, zoom / 1.5); draw(); });
  document.getElementById('zreset').addEventListener('click', () => { zoom = 1; draw(); });
  lanesEl.addEventListener('wheel', e => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoom = e.deltaY < 0 ? zoom * 1.25 : Math.max(1, zoom / 1.25);
    draw();
  }, { passive: false });
  draw();
  if (location.hash === '#selftest') {
    const out = document.getElementById('selftest');
    const bars = [...lanesEl.querySelectorAll('rect.buf')];
    // What a person sees: bar heights and names on the bars, in pixels.
    const heights = bars.map(b => b.getBoundingClientRect().height);
    const labels = [...lanesEl.querySelectorAll('text.barlabel')].filter(t => t.getBBox().width > 0).length;
    const ticks = lanesEl.querySelectorAll('text.tick').length;
    const first = bars[0];
    if (first) first.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    const lanes = lanesEl.querySelectorAll('div.lane').length;
    const functions = lanesEl.querySelectorAll('section.function').length;
    const hover = details.textContent.replace(/\n/g, ' | ');
    const marked = sourceEl.querySelectorAll('.def, .use').length;
    // Search for the first buffer's name, then clear the search.
    let found = 0;
    if (first) {
      search.value = first.dataset.name;
      search.dispatchEvent(new Event('input'));
      found = lanesEl.querySelectorAll('rect.buf.hit').length;
      search.value = '';
      search.dispatchEvent(new Event('input'));
    }
    // Zoom in once and back.
    const width = () => Number(lanesEl.querySelector('svg').getAttribute('width'));
    const w0 = width();
    document.getElementById('zin').click();
    const w1 = width();
    document.getElementById('zreset').click();
    // The capacity line, off scale or not, comes into view on request.
    const capsBefore = lanesEl.querySelectorAll('line.cap').length;
    showCap.checked = true; showCap.dispatchEvent(new Event('change'));
    const capsAfter = lanesEl.querySelectorAll('line.cap').length;
    showCap.checked = false; showCap.dispatchEvent(new Event('change'));
    out.textContent = 'lanes=' + lanes + '\nfunctions=' + functions + '\nbuffers=' + bars.length +
      '\nminbar=' + (heights.length ? Math.floor(Math.min(...heights)) : 0) +
      '\nmaxbar=' + (heights.length ? Math.floor(Math.max(...heights)) : 0) +
      '\nlabels=' + labels + '\nticks=' + ticks + '\nhover=' + hover + '\nsource=' + marked +
      '\noverflow=' + lanesEl.querySelectorAll('rect.overflow').length +
      '\ncapacity=' + capsBefore + ' ' + capsAfter +
      '\nsearch=' + found + '\nzoom=' + w0 + ' ' + w1 +
      '\nerrors=' + errors.length + (errors.length ? ': ' + errors.join('; ') : '');
    out.hidden = false;
  }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> MapDoc {
        MapDoc {
            title: "k </script> & co".into(),
            note: None,
            noun: "tile".into(),
            source: vec!["a = 1 </script>".into()],
            views: vec![View {
                planner: "pypto".into(),
                lanes: vec![Lane {
                    function: "main".into(),
                    space: "Vec".into(),
                    capacity: Some(1024),
                    used: 512,
                    lower_bound: 512,
                    reserved: vec![],
                    peak: None,
                    ticks: vec![],
                    rects: vec![Rect {
                        name: "a</script>".into(),
                        group: "mem_vec_0".into(),
                        start: 0,
                        end: 512,
                        t0: 1,
                        t1: 4,
                        line: 1,
                        uses: vec![],
                        details: vec![("name".into(), "a".into())],
                    }],
                }],
            }],
        }
    }

    #[test]
    fn is_self_contained_and_escapes_the_data() {
        let html = render(&doc());
        assert!(!html.contains("src="), "{html}");
        assert!(!html.contains("url(http"));
        assert!(!html.contains("<link"));
        assert!(!html.contains("<script src"));
        // The only closing script tags are the two of the page itself.
        assert_eq!(html.matches("</script>").count(), 2);
        assert!(html.contains("<title>k &lt;/script&gt; &amp; co</title>"));
        assert!(html.contains(r#""name":"a<\/script>""#));
        assert!(html.contains(r#""source":["a = 1 <\/script>"]"#));
    }
}
