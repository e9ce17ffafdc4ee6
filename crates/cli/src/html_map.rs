//! The interactive memory map: one self-contained HTML file.
//!
//! One lane per (function, space): program position to the right, address
//! up; one rectangle per buffer, coloured by its root allocation; reserved
//! windows hatched; the capacity line and the peak instant marked. Hovering
//! or clicking a rectangle shows its details; the mouse wheel (or the
//! buttons) zooms the time axis; a search box highlights tiles by name; a
//! selector switches between planners when the map holds several.
//!
//! The file has no external reference (no network, no external script or
//! style): the data is embedded as JSON and drawn by an inline script into
//! inline SVG. `#selftest` in the URL makes the page hover its first buffer
//! and record the details and any script error in the DOM, which is what
//! the browser test in `.ci/run` reads.

use serde::Serialize;

/// A whole map: one or more views (one per planner).
#[derive(Serialize)]
pub struct MapDoc {
    /// Title of the page.
    pub title: String,
    /// Views; a selector appears when there is more than one.
    pub views: Vec<View>,
}

/// The lanes of one planner's result.
#[derive(Serialize)]
pub struct View {
    /// Planner name (`pypto`, `dsa-rp`, ...).
    pub planner: String,
    /// One line of summary per lane, shown above the lanes.
    pub lanes: Vec<Lane>,
}

/// One (function, space).
#[derive(Serialize)]
pub struct Lane {
    /// `function / space`.
    pub title: String,
    /// Capacity in bytes, when limited.
    pub capacity: Option<u64>,
    /// Bytes used (top of the highest buffer or window).
    pub used: u64,
    /// Co-live lower bound.
    pub lower_bound: u64,
    /// Reserved windows `[start, end)` with their names.
    pub reserved: Vec<Window>,
    /// The instant of the largest co-live total, and what is there.
    pub peak: Option<Peak>,
    /// Buffers.
    pub rects: Vec<Rect>,
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
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>{title}</h1>\n<div id=\"controls\">\
         <label>planner <select id=\"planner\"></select></label> \
         <label>search <input id=\"search\" type=\"search\" placeholder=\"tile name\"></label> \
         <button id=\"zin\" type=\"button\">zoom +</button>\
         <button id=\"zout\" type=\"button\">zoom -</button>\
         <button id=\"zreset\" type=\"button\">reset</button>\
         <span id=\"matches\"></span></div></header>\n\
         <main id=\"lanes\"></main>\n<aside id=\"details\">hover or click a buffer</aside>\n\
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

const STYLE: &str = r#"body { font: 13px monospace; margin: 0; display: grid; grid-template-columns: 1fr 320px; grid-template-rows: auto 1fr; height: 100vh; }
header { grid-column: 1 / 3; padding: 6px 10px; border-bottom: 1px solid #ccc; }
h1 { font-size: 15px; margin: 0 0 4px 0; }
#lanes { overflow: auto; padding: 6px 10px; }
#details { border-left: 1px solid #ccc; padding: 8px; overflow: auto; white-space: pre-wrap; }
.lane { margin-bottom: 14px; }
.lane h2 { font-size: 13px; margin: 2px 0; }
.buf { stroke: #222; stroke-width: 0.5; cursor: pointer; }
.buf.hit { stroke: #e00; stroke-width: 2.5; }
.buf.dim { opacity: 0.25; }
.buf.sel { stroke: #00f; stroke-width: 2.5; }
.cap { stroke: #c00; stroke-dasharray: 6 3; }
.peak { stroke: #f80; stroke-width: 1.5; }
.axis { font-size: 10px; fill: #555; }
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
  const search = document.getElementById('search');
  const NS = 'http://www.w3.org/2000/svg';
  let zoom = 1, view = 0, pinned = null;
  doc.views.forEach((v, i) => {
    const o = document.createElement('option');
    o.value = String(i); o.textContent = v.planner; sel.appendChild(o);
  });
  sel.parentElement.hidden = doc.views.length < 2;
  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // One hue per root, in order of first appearance, spread by the golden
  // angle so neighbouring roots differ.
  const hues = new Map();
  function colour(group) {
    if (!hues.has(group)) hues.set(group, (hues.size * 137.508) % 360);
    return 'hsl(' + hues.get(group).toFixed(1) + ',65%,68%)';
  }
  function bytes(n) { return n >= 1024 && n % 1024 === 0 ? (n / 1024) + ' KiB' : n + ' B'; }
  function show(r) {
    details.textContent = r.details.map(([k, v]) => k + ': ' + v).join('\n');
  }
  function draw() {
    lanesEl.textContent = '';
    const v = doc.views[view];
    if (!v) return;
    for (const lane of v.lanes) {
      const div = document.createElement('section');
      div.className = 'lane';
      const h = document.createElement('h2');
      const cap = lane.capacity == null ? 'unlimited' : bytes(lane.capacity);
      h.textContent = lane.title + ': ' + bytes(lane.used) + ' / ' + cap + ', lower bound ' + bytes(lane.lower_bound);
      div.appendChild(h);
      const W = Math.round(900 * zoom), H = 220, L = 70, T = 8, B = 18;
      const tmax = Math.max(1, ...lane.rects.map(r => r.t1), lane.peak ? lane.peak.at + 1 : 1);
      const amax = Math.max(1, lane.used, lane.capacity || 0, ...lane.rects.map(r => r.end), ...lane.reserved.map(w => w.end));
      const x = t => L + (t / tmax) * (W - L - 10);
      const y = a => T + (H - T - B) * (1 - a / amax);
      const svg = el('svg', { width: W, height: H, class: 'plot' }, div);
      const defs = el('defs', {}, svg);
      const pat = el('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
      el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#888', 'stroke-width': 2 }, pat);
      el('line', { x1: L, y1: y(0), x2: W - 10, y2: y(0), stroke: '#000' }, svg);
      el('text', { x: 2, y: y(0), class: 'axis' }, svg).textContent = '0';
      if (amax !== lane.capacity) el('text', { x: 2, y: y(amax) + 8, class: 'axis' }, svg).textContent = bytes(amax);
      for (const w of lane.reserved) {
        const r = el('rect', { x: L, width: W - 10 - L, y: y(w.end), height: Math.max(1, y(w.start) - y(w.end)), fill: 'url(#hatch)', class: 'reserved' }, svg);
        el('title', {}, r).textContent = 'reserved ' + w.name + ' [' + w.start + ', ' + w.end + ')';
      }
      for (const r of lane.rects) {
        const e = el('rect', { x: x(r.t0), width: Math.max(1, x(r.t1) - x(r.t0)), y: y(r.end), height: Math.max(1, y(r.start) - y(r.end)), fill: colour(r.group), class: 'buf' }, svg);
        e.dataset.name = r.name;
        e.addEventListener('mouseover', () => { if (!pinned) show(r); });
        e.addEventListener('click', () => {
          if (pinned) pinned.classList.remove('sel');
          pinned = pinned === e ? null : e;
          if (pinned) pinned.classList.add('sel');
          show(r);
        });
      }
      if (lane.capacity != null) {
        el('line', { x1: L, x2: W - 10, y1: y(lane.capacity), y2: y(lane.capacity), class: 'cap' }, svg);
        el('text', { x: 2, y: y(lane.capacity) + 4, class: 'axis' }, svg).textContent = 'cap ' + bytes(lane.capacity);
      }
      if (lane.peak) {
        const px = (x(lane.peak.at) + x(lane.peak.at + 1)) / 2;
        const p = el('line', { x1: px, x2: px, y1: T, y2: H - B, class: 'peak' }, svg);
        el('title', {}, p).textContent = 'peak: ' + lane.peak.label;
        el('text', { x: px + 3, y: H - 4, class: 'axis' }, svg).textContent = 'peak ' + lane.peak.label;
      }
      lanesEl.appendChild(div);
    }
    applySearch();
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
    const first = lanesEl.querySelector('rect.buf');
    if (first) first.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    const lanes = lanesEl.querySelectorAll('section.lane').length;
    const bufs = lanesEl.querySelectorAll('rect.buf').length;
    const hover = details.textContent.replace(/\n/g, ' | ');
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
    out.textContent = 'lanes=' + lanes + '\nbuffers=' + bufs + '\nhover=' + hover +
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
            views: vec![View {
                planner: "pypto".into(),
                lanes: vec![Lane {
                    title: "main / Vec".into(),
                    capacity: Some(1024),
                    used: 512,
                    lower_bound: 512,
                    reserved: vec![],
                    peak: None,
                    rects: vec![Rect {
                        name: "a</script>".into(),
                        group: "mem_vec_0".into(),
                        start: 0,
                        end: 512,
                        t0: 1,
                        t1: 4,
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
    }
}
