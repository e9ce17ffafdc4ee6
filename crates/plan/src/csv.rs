//! Problem files: MiniMalloc's CSV, plus optional tilemem columns.
//!
//! # Format
//! One header row, then one buffer a row; blank lines are skipped. Column
//! names are case-insensitive and may come in any order:
//!
//! | column | aliases | meaning |
//! |---|---|---|
//! | `id` | `buffer`, `buffer_id`, `name` | unique buffer name (required) |
//! | `lower` | `start`, `begin` | first live instant (required) |
//! | `upper` | | first dead instant, exclusive (this or `end` required) |
//! | `end` | | last live instant, inclusive (`upper = end + 1`) |
//! | `size` | | bytes (required) |
//! | `alignment` | `align` | offset multiple, default 1 |
//! | `offset` | | a placement (read by `validate`, written by `solve`) |
//! | `fixed` | | pinned offset: the buffer must sit exactly there |
//! | `conflicts` | | space-separated ids this buffer must never overlap, even when their lifetimes do not intersect (hard pairs) |
//! | `compatible` | | space-separated ids this buffer may share bytes with although their lifetimes intersect (mutually exclusive uses; a conflict pair wins) |
//! | `penalties` | | space-separated `id:weight` (or `id` for weight 1): soft pairs that cost `weight` when the two buffers share a byte |
//!
//! A pair may be listed on either row or on both (it counts once; on both
//! rows with different weights the larger weight wins). Cells may be empty
//! for the optional columns. [`write_problem`] writes each pair once, on
//! the row of the earlier buffer, with repeated pairs of the problem summed.
//!
//! Lines starting with `#` before the header are comments; among them,
//! `# capacity=N` sets the capacity and `# reserved=START-END` (repeatable)
//! reserves the byte range `[START, END)` (`START == END` reserves nothing
//! and is kept as written). This makes a problem exported by
//! the planner replayable with `tilemem solve FILE.csv`.
//!
//! Errors name the place: `file:line:col: what is wrong`, where `col` is
//! the 1-based character column of the offending field, name or byte.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use rustc_hash::FxHashMap;

use crate::problem::{Buffer, BufferId, Problem, ProblemError, Solution, MAX_BYTES};

/// A problem read from a CSV file, with what is needed to write it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvProblem {
    /// The problem (buffer `i` is data row `i`; names are the ids).
    pub problem: Problem,
    /// The `offset` cell of every row, when the column exists.
    pub offsets: Vec<Option<u64>>,
    /// Source line of every row (1-based), for messages.
    pub lines: Vec<usize>,
    /// The file's text: rows are written back from it and error columns
    /// counted in it, rather than each row copied into a string of its
    /// own and its columns kept beside (a million allocations and 48
    /// bytes a row).
    text: String,
    /// Byte range of every row's line in `text` (without its `\r`).
    spans: Vec<(usize, usize)>,
    header: Vec<String>,
    preamble: Vec<String>,
}

/// A bad problem file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvError {
    /// File name as given.
    pub file: String,
    /// 1-based line; 0 when the file itself is the problem.
    pub line: usize,
    /// 1-based character column of the offending field or byte; 0 with
    /// line 0.
    pub col: usize,
    /// What is wrong and what to change.
    pub message: String,
}

impl CsvError {
    /// Where the error is: `file:line:col`, or `file` when the whole file
    /// is at fault.
    pub fn location(&self) -> String {
        match (self.line, self.col) {
            (0, _) => self.file.clone(),
            (l, 0) => format!("{}:{l}", self.file),
            (l, c) => format!("{}:{l}:{c}", self.file),
        }
    }
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)
    }
}

impl CsvProblem {
    /// The error of `problem.check()` as an error at the row it concerns:
    /// a buffer's row, or for sizes that add up past the limit the row at
    /// which the running sum passes it (the whole file for a reserved
    /// range, which has no row).
    pub fn locate(&self, file: &str, e: &ProblemError) -> CsvError {
        let row = match e {
            ProblemError::ZeroAlign(b)
            | ProblemError::BackwardLifetime(b)
            | ProblemError::MisalignedFixed(b)
            | ProblemError::Overflow(b)
            | ProblemError::UnknownBuffer(b) => Some(b.0 as usize),
            ProblemError::TooLarge => {
                let mut total: u128 = 0;
                self.problem.buffers.iter().position(|b| {
                    total += b.size as u128 + b.align as u128;
                    total > MAX_BYTES as u128 * 4
                })
            }
            ProblemError::BackwardReserved(..) => None,
        };
        let line = row.and_then(|r| self.lines.get(r)).copied().unwrap_or(0);
        CsvError {
            file: file.to_string(),
            line,
            col: usize::from(line > 0),
            message: e.to_string(),
        }
    }
}

/// The 1-based character column of `sub` within `line`; `sub` must be a
/// slice of `line` (every cell, name and value below is).
fn col_of(line: &str, sub: &str) -> usize {
    let at = (sub.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    line.get(..at.min(line.len()))
        .map_or(at, |p| p.chars().count())
        + 1
}

/// The cells of a row, trimmed, as slices of the row.
fn split_cells(line: &str) -> Vec<&str> {
    line.split(',').map(str::trim).collect()
}

impl std::error::Error for CsvError {}

/// Reads and parses a file.
pub fn read(path: &Path) -> Result<CsvProblem, CsvError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| CsvError {
        file: file.clone(),
        line: 0,
        col: 0,
        message: format!("cannot read the file: {e}"),
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return Err(not_utf8(&file, e.as_bytes(), e.utf8_error().valid_up_to())),
    };
    parse_owned(text, &file)
}

/// The error for a file whose byte `bad` starts no valid UTF-8 character:
/// its line and column (the prefix is valid, so columns count characters).
fn not_utf8(file: &str, bytes: &[u8], bad: usize) -> CsvError {
    let before = &bytes[..bad];
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = std::str::from_utf8(&before[start..]).map_or(bad - start, |p| p.chars().count()) + 1;
    CsvError {
        file: file.to_string(),
        line,
        col,
        message: format!(
            "byte 0x{:02x} is not UTF-8 text; save the file as UTF-8",
            bytes[bad]
        ),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Id,
    Lower,
    Upper,
    End,
    Size,
    Align,
    Offset,
    Fixed,
    Conflicts,
    Penalties,
    Compatible,
}

fn column(name: &str) -> Option<Col> {
    Some(match name {
        "id" | "buffer" | "buffer_id" | "name" => Col::Id,
        "lower" | "start" | "begin" => Col::Lower,
        "upper" => Col::Upper,
        "end" => Col::End,
        "size" => Col::Size,
        "alignment" | "align" => Col::Align,
        "offset" => Col::Offset,
        "fixed" => Col::Fixed,
        "conflicts" => Col::Conflicts,
        "penalties" => Col::Penalties,
        "compatible" => Col::Compatible,
        _ => return None,
    })
}

/// Parses CSV text; `file` is used in messages only.
pub fn parse(text: &str, file: &str) -> Result<CsvProblem, CsvError> {
    parse_owned(text.to_string(), file)
}

/// Ids that are the row numbers counted from the first row's id, written
/// as plain decimals (`0,1,2,...` or `1,2,3,...`, as MiniMalloc's files
/// and exported problems have them), need no table: they are distinct,
/// and a name in a pair list is found by parsing it. Any other id turns
/// the table on (a million ids in a hash table took a fifth of reading a
/// 1,000,000-row file).
struct Ids<'t> {
    /// `Some(first)` while the id of row `r` is the decimal `first + r`.
    dense: Option<u64>,
    /// The ids of the rows read, while `dense` (to fill the table should
    /// a later id break the pattern).
    seen: Vec<&'t str>,
    table: FxHashMap<&'t str, u32>,
}

/// `s` as a number when it is a decimal written the one plain way (digits,
/// no sign, no leading zero but in `0`).
fn plain_decimal(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 19 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    b.iter().try_fold(0u64, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u64::from(c - b'0'))
    })
}

impl<'t> Ids<'t> {
    fn new() -> Ids<'t> {
        Ids {
            dense: None,
            seen: Vec::new(),
            table: FxHashMap::default(),
        }
    }

    /// Adds the id of row `row`; false when it is taken.
    fn insert(&mut self, id: &'t str, row: u32) -> bool {
        let n = plain_decimal(id);
        if row == 0 {
            self.dense = n;
        }
        if let Some(first) = self.dense {
            if n == Some(first + u64::from(row)) {
                self.seen.push(id);
                return true;
            }
            self.dense = None;
            self.table.reserve(self.seen.len() * 2);
            for (r, s) in std::mem::take(&mut self.seen).into_iter().enumerate() {
                self.table.insert(s, r as u32);
            }
        }
        self.table.insert(id, row).is_none()
    }

    fn get(&self, name: &str) -> Option<u32> {
        match self.dense {
            Some(first) => {
                let r = plain_decimal(name)?.checked_sub(first)?;
                (r < self.seen.len() as u64).then_some(r as u32)
            }
            None => self.table.get(name).copied(),
        }
    }
}

/// Parses CSV text it owns (kept for writing the rows back).
fn parse_owned(text: String, file: &str) -> Result<CsvProblem, CsvError> {
    let err = |line: usize, col: usize, message: String| CsvError {
        file: file.to_string(),
        line,
        col,
        message,
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // Byte range of a line (a slice of `text`).
    let span = |l: &str| {
        let at = l.as_ptr() as usize - text.as_ptr() as usize;
        (at, at + l.len())
    };
    let mut lines = body
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let mut problem = Problem::new();
    let mut preamble = Vec::new();
    // Preamble comments and the header.
    let mut last = 0;
    let (hline, header_text) = loop {
        match lines.next() {
            // At the end of the file: the line after the last one read.
            None => {
                return Err(err(
                    last + 1,
                    1,
                    "no header: expected a header such as `id,lower,upper,size` \
                     (the file is empty or holds only comments)"
                        .into(),
                ))
            }
            Some((n, l)) if l.trim().is_empty() => last = n,
            Some((n, l)) if l.trim_start().starts_with('#') => {
                last = n;
                directive(l, &mut problem).map_err(|(c, m)| err(n, c, m))?;
                preamble.push(l.to_string());
            }
            Some((n, l)) => break (n, l),
        }
    };
    let header_cells = split_cells(header_text);
    let hcol = |i: usize| col_of(header_text, header_cells[i]);
    let header: Vec<String> = header_cells.iter().map(|c| c.to_string()).collect();
    let mut at: HashMap<u8, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(c) = column(&name.to_ascii_lowercase()) {
            if at.insert(c as u8, i).is_some() {
                return Err(err(
                    hline,
                    hcol(i),
                    format!("column `{name}` appears twice (or with an alias)"),
                ));
            }
        }
    }
    let need = |c: Col, what: &str| {
        at.get(&(c as u8)).copied().ok_or_else(|| {
            err(
                hline,
                1,
                format!(
                    "missing column `{what}`; the header needs id, lower, upper (or end) and size"
                ),
            )
        })
    };
    let c_id = need(Col::Id, "id")?;
    let c_lower = need(Col::Lower, "lower")?;
    let c_size = need(Col::Size, "size")?;
    let (c_upper, inclusive) = match (at.get(&(Col::Upper as u8)), at.get(&(Col::End as u8))) {
        (Some(&u), Some(&e)) => {
            return Err(err(
                hline,
                hcol(u.max(e)),
                "columns `upper` and `end` both given; keep one".into(),
            ))
        }
        (Some(&u), None) => (u, false),
        (None, Some(&e)) => (e, true),
        (None, None) => return Err(err(hline, 1, "missing column `upper` (or `end`)".into())),
    };
    let get = |c: Col| at.get(&(c as u8)).copied();
    let (c_align, c_offset, c_fixed) = (get(Col::Align), get(Col::Offset), get(Col::Fixed));
    let (c_conf, c_pen) = (get(Col::Conflicts), get(Col::Penalties));
    let c_compat = get(Col::Compatible);

    // Rows hold about 30 bytes each: size the tables once.
    let guess = body.len() / 32;
    let mut spans = Vec::with_capacity(guess);
    let mut line_of = Vec::with_capacity(guess);
    let mut offsets = Vec::with_capacity(if c_offset.is_some() { guess } else { 0 });
    problem.buffers.reserve(guess);
    let mut ids = Ids::new();
    let mut cells: Vec<&str> = Vec::new();
    for (n, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        cells.clear();
        cells.extend(l.split(',').map(str::trim));
        // Columns are counted only for a message: a row read without one
        // costs no character count.
        let col = |c: usize| match cells.get(c) {
            Some(cell) => col_of(l, cell),
            None => l.chars().count() + 1,
        };
        if cells.len() != header.len() {
            // Point at the first extra field, or where the first missing
            // one would start.
            return Err(err(
                n,
                col(cells.len().min(header.len())),
                format!(
                    "{} fields, but the header has {}",
                    cells.len(),
                    header.len()
                ),
            ));
        }
        let num = |c: usize, what: &str| -> Result<u64, CsvError> {
            let v = cells[c];
            let x: u64 = v.parse().map_err(|_| {
                err(
                    n,
                    col(c),
                    format!("`{what}` must be a non-negative integer, found `{v}`"),
                )
            })?;
            if x > MAX_BYTES {
                return Err(err(
                    n,
                    col(c),
                    format!("`{what}` {x} is too large (limit 2^60)"),
                ));
            }
            Ok(x)
        };
        let opt = |c: Option<usize>, what: &str| -> Result<Option<u64>, CsvError> {
            match c {
                Some(c) if !cells[c].is_empty() => num(c, what).map(Some),
                _ => Ok(None),
            }
        };
        let id = cells[c_id];
        if id.is_empty() {
            return Err(err(n, col(c_id), "empty `id`".into()));
        }
        let lower = num(c_lower, "lower")?;
        let mut upper = num(c_upper, if inclusive { "end" } else { "upper" })?;
        if inclusive {
            upper += 1;
        }
        if upper < lower {
            return Err(err(n, col(c_upper), format!("buffer {id}: lifetime ends ({upper}) before it starts ({lower}); `upper` is exclusive")));
        }
        let size = num(c_size, "size")?;
        let align = opt(c_align, "alignment")?.unwrap_or(1);
        if align == 0 {
            return Err(err(
                n,
                col(c_align.unwrap_or(0)),
                format!("buffer {id}: alignment must be at least 1"),
            ));
        }
        let fixed = opt(c_fixed, "fixed")?;
        if let Some(f) = fixed {
            if f % align != 0 {
                return Err(err(
                    n,
                    col(c_fixed.unwrap_or(0)),
                    format!(
                        "buffer {id}: fixed offset {f} is not a multiple of its alignment {align}"
                    ),
                ));
            }
        }
        if !ids.insert(id, problem.buffers.len() as u32) {
            return Err(err(
                n,
                col(c_id),
                format!("duplicate id `{id}`; ids must be unique"),
            ));
        }
        if c_offset.is_some() {
            offsets.push(opt(c_offset, "offset")?);
        }
        let mut b = Buffer::new(size, lower, upper)
            .with_align(align)
            .with_name(id);
        b.fixed_offset = fixed;
        problem.push(b);
        spans.push(span(l));
        line_of.push(n);
    }
    if c_offset.is_none() {
        offsets = vec![None; spans.len()];
    }
    // Pairs, once every id is known.
    let mut penalty: HashMap<(u32, u32), u64> = HashMap::new();
    let mut conflict: Vec<(u32, u32)> = Vec::new();
    let mut compatible: Vec<(u32, u32)> = Vec::new();
    let pairs = c_conf.is_some() || c_compat.is_some() || c_pen.is_some();
    for (r, &(s, e)) in spans.iter().enumerate().filter(|_| pairs) {
        let n = line_of[r];
        let me = r as u32;
        let line = &text[s..e];
        cells.clear();
        cells.extend(line.split(',').map(str::trim));
        let lookup = |name: &str| {
            ids.get(name).ok_or_else(|| {
                err(
                    n,
                    col_of(line, name),
                    format!("unknown buffer `{name}` in a pair list"),
                )
            })
        };
        // Conflict and compatible lists: unordered pairs with this row.
        for (col, kind, out) in [
            (c_conf, "a conflict", &mut conflict),
            (c_compat, "compatible", &mut compatible),
        ] {
            let Some(c) = col else { continue };
            for name in cells[c].split_whitespace() {
                let other = lookup(name)?;
                if other == me {
                    return Err(err(
                        n,
                        col_of(line, name),
                        format!("buffer `{name}` lists itself as {kind}"),
                    ));
                }
                out.push((me.min(other), me.max(other)));
            }
        }
        if let Some(c) = c_pen {
            for item in cells[c].split_whitespace() {
                let (name, w) = match item.split_once(':') {
                    Some((name, w)) => {
                        let w: u64 = w.parse().map_err(|_| {
                            err(
                                n,
                                col_of(line, w),
                                format!("penalty `{item}`: weight must be a non-negative integer"),
                            )
                        })?;
                        (name, w)
                    }
                    None => (item, 1),
                };
                let other = lookup(name)?;
                if other == me {
                    return Err(err(
                        n,
                        col_of(line, name),
                        format!("buffer `{name}` lists itself as a penalty"),
                    ));
                }
                let e = penalty.entry((me.min(other), me.max(other))).or_insert(0);
                *e = (*e).max(w);
            }
        }
    }
    drop(ids);
    drop(cells);
    conflict.sort_unstable();
    conflict.dedup();
    problem.conflicts = conflict
        .into_iter()
        .map(|(a, b)| (BufferId(a), BufferId(b)))
        .collect();
    compatible.sort_unstable();
    compatible.dedup();
    problem.compatible = compatible
        .into_iter()
        .map(|(a, b)| (BufferId(a), BufferId(b)))
        .collect();
    let mut pens: Vec<_> = penalty.into_iter().collect();
    pens.sort_unstable();
    problem.penalties = pens
        .into_iter()
        .map(|((a, b), w)| (BufferId(a), BufferId(b), w))
        .collect();
    Ok(CsvProblem {
        problem,
        offsets,
        lines: line_of,
        text,
        spans,
        header,
        preamble,
    })
}

/// Reads a `# key=value` comment; an error carries the column of the bad
/// value.
fn directive(line: &str, problem: &mut Problem) -> Result<(), (usize, String)> {
    let body = line.trim_start().trim_start_matches('#').trim();
    let Some((key, value)) = body.split_once('=') else {
        return Ok(()); // a plain comment
    };
    let (key, value) = (key.trim(), value.trim());
    let int = |v: &str| -> Result<u64, (usize, String)> {
        let v = v.trim();
        v.parse::<u64>()
            .ok()
            .filter(|&x| x <= MAX_BYTES)
            .ok_or_else(|| {
                (
                    col_of(line, v),
                    format!("`{key}` wants a non-negative integer, found `{v}`"),
                )
            })
    };
    match key {
        "capacity" => problem.capacity = Some(int(value)?),
        "reserved" => {
            let (s, e) = value.split_once('-').ok_or_else(|| {
                (
                    col_of(line, value),
                    format!("`reserved` wants START-END, found `{value}`"),
                )
            })?;
            let (s, e) = (int(s)?, int(e)?);
            if s > e {
                return Err((
                    col_of(line, value),
                    format!("reserved range {s}-{e} ends before it starts"),
                ));
            }
            problem.reserved.push((s, e));
        }
        _ => {} // other comments are free text
    }
    Ok(())
}

impl CsvProblem {
    /// Every row's `offset` as a solution, or an error at the first row
    /// that lacks one (at its empty `offset` cell, or the end of the row
    /// when the file has no `offset` column).
    pub fn solution_or_error(&self, file: &str) -> Result<Solution, CsvError> {
        self.solution().map_err(|line| {
            let r = self.lines.iter().position(|&l| l == line).unwrap_or(0);
            let oc = self.offset_column();
            let (s, e) = self.spans[r];
            let row = &self.text[s..e];
            let col = match oc.and_then(|c| row.split(',').nth(c)) {
                Some(cell) => col_of(row, cell.trim()),
                None => row.chars().count() + 1,
            };
            CsvError {
                file: file.to_string(),
                line,
                col,
                message: "no offset; every row needs an `offset` to validate".into(),
            }
        })
    }

    /// Every row's `offset` as a solution, or the line of the first row that
    /// lacks one.
    pub fn solution(&self) -> Result<Solution, usize> {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        for (i, o) in self.offsets.iter().enumerate() {
            match o {
                Some(o) => offsets.push(*o),
                None => return Err(self.lines[i]),
            }
        }
        Ok(Solution { offsets })
    }

    fn offset_column(&self) -> Option<usize> {
        self.header
            .iter()
            .position(|h| h.eq_ignore_ascii_case("offset"))
    }

    /// The input file with an `offset` column holding `solution` (added at
    /// the end when the input has none; replaced otherwise), its cells
    /// trimmed.
    pub fn write_with(&self, solution: &Solution) -> String {
        let mut out = Vec::with_capacity(self.text.len() + 12 * self.spans.len() + 64);
        // Writing into memory cannot fail.
        let _ = self.write_to(solution, &mut out);
        // Every piece written is a `str`.
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }

    /// Writes what [`CsvProblem::write_with`] returns into `w`, a
    /// megabyte at a time (a million-row placement is not held whole in
    /// memory).
    pub fn write_to(&self, solution: &Solution, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        const CHUNK: usize = 1 << 20;
        let mut out = String::with_capacity(CHUNK + 4096);
        for p in &self.preamble {
            out.push_str(p);
            out.push('\n');
        }
        let oc = self.offset_column();
        let mut header = self.header.clone();
        if oc.is_none() {
            header.push("offset".into());
        }
        out.push_str(&header.join(","));
        out.push('\n');
        let mut digits = [0u8; 20];
        for (i, &(s, e)) in self.spans.iter().enumerate() {
            let row = &self.text[s..e];
            let o = decimal(solution.offsets[i], &mut digits);
            // A row without blanks is its cells joined as they are: copied
            // whole (the common case, and a tenth of the cost of splitting).
            let plain = oc.is_none() && !row.bytes().any(|b| b <= b' ' || b >= 0x80);
            if plain {
                out.push_str(row);
            } else {
                for (c, cell) in row.split(',').enumerate() {
                    if c > 0 {
                        out.push(',');
                    }
                    out.push_str(if oc == Some(c) { o } else { cell.trim() });
                }
            }
            if oc.is_none() {
                out.push(',');
                out.push_str(o);
            }
            out.push('\n');
            if out.len() >= CHUNK {
                w.write_all(out.as_bytes())?;
                out.clear();
            }
        }
        w.write_all(out.as_bytes())
    }
}

/// `n` in decimal, written into `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[i..]).unwrap_or_default()
}

/// Writes a problem (and optionally a placement) in the format above, so
/// `tilemem solve` can replay it. Buffer names must not contain `,`, `:` or
/// whitespace; unnamed buffers are written as `b<index>`.
pub fn write_problem(problem: &Problem, solution: Option<&Solution>) -> String {
    let name = |i: usize| match &problem.buffers[i].name {
        Some(n) => n.clone(),
        None => format!("b{i}"),
    };
    let mut out = String::new();
    if let Some(c) = problem.capacity {
        out.push_str(&format!("# capacity={c}\n"));
    }
    for &(s, e) in &problem.reserved {
        out.push_str(&format!("# reserved={s}-{e}\n"));
    }
    let n = problem.buffers.len();
    // Each unordered pair once, on the row of its lower index.
    let by_lower = |list: &[(BufferId, BufferId)]| {
        let mut pairs: Vec<(usize, usize)> = list
            .iter()
            .map(|&(a, b)| (a.index().min(b.index()), a.index().max(b.index())))
            .filter(|&(a, b)| a != b)
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut rows = vec![Vec::new(); n];
        for (a, b) in pairs {
            rows[a].push(name(b));
        }
        rows
    };
    let conf = by_lower(&problem.conflicts);
    let compat = by_lower(&problem.compatible);
    // Repeated pairs add up (as they do for the solvers); each pair is
    // written once, on the row of its lower index.
    let mut summed: std::collections::BTreeMap<(usize, usize), u64> = Default::default();
    for &(a, b, w) in &problem.penalties {
        let (a, b) = (a.index().min(b.index()), a.index().max(b.index()));
        if a != b {
            let e = summed.entry((a, b)).or_insert(0);
            *e = e.saturating_add(w);
        }
    }
    let mut pen = vec![Vec::new(); n];
    for (&(a, b), &w) in &summed {
        pen[a].push(format!("{}:{w}", name(b)));
    }
    let pinned = problem.buffers.iter().any(|b| b.fixed_offset.is_some());
    let mut header = String::from("id,lower,upper,size,alignment");
    if pinned {
        header.push_str(",fixed");
    }
    if !problem.conflicts.is_empty() {
        header.push_str(",conflicts");
    }
    if !problem.penalties.is_empty() {
        header.push_str(",penalties");
    }
    if !problem.compatible.is_empty() {
        header.push_str(",compatible");
    }
    if solution.is_some() {
        header.push_str(",offset");
    }
    out.push_str(&header);
    out.push('\n');
    for (i, b) in problem.buffers.iter().enumerate() {
        out.push_str(&format!(
            "{},{},{},{},{}",
            name(i),
            b.lower,
            b.upper,
            b.size,
            b.align
        ));
        if pinned {
            out.push(',');
            if let Some(f) = b.fixed_offset {
                out.push_str(&f.to_string());
            }
        }
        if !problem.conflicts.is_empty() {
            out.push(',');
            out.push_str(&conf[i].join(" "));
        }
        if !problem.penalties.is_empty() {
            out.push(',');
            out.push_str(&pen[i].join(" "));
        }
        if !problem.compatible.is_empty() {
            out.push(',');
            out.push_str(&compat[i].join(" "));
        }
        if let Some(s) = solution {
            out.push_str(&format!(",{}", s.offsets[i]));
        }
        out.push('\n');
    }
    out
}
