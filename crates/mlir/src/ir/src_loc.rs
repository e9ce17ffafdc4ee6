//! Source locations as the input wrote them (`loc(...)` after ops and
//! block arguments, `#loc` aliases): kept as text, printed back in place,
//! and followed to the `file:line:col` they lead to, as MLIR's diagnostic
//! handler does (`SourceMgrDiagnosticHandler::findLocToShow`: a name's
//! child, a call site's callee then its caller, the first of a fused list
//! that has one).

use crate::ir::{Location, Module};

/// A location alias definition, `#loc3 = loc("kernel.py":12:24)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocAlias {
    /// `loc3` (without `#`).
    pub name: String,
    /// What is inside `loc(...)`.
    pub body: String,
    /// Whether it came after the module's operations (MLIR prints most
    /// location aliases at the end of the file).
    pub trailing: bool,
}

impl Module {
    /// The text inside the `loc(...)` of `loc`, when the input gave one.
    pub fn src_loc(&self, loc: Location) -> Option<&str> {
        let i = loc.src.checked_sub(1)?;
        self.src_locs.get(i as usize).map(String::as_str)
    }

    /// Records the text inside a `loc(...)` and returns its
    /// [`Location::src`] value.
    pub fn add_src_loc(&mut self, body: &str) -> u32 {
        self.src_locs.push(body.to_string());
        self.src_locs.len() as u32
    }

    /// The first `"file":line:col` a source location leads to, following
    /// aliases, names, call sites (the callee first) and fused locations
    /// (the first that has one): where a Triton op comes from.
    pub fn src_file_line(&self, loc: Location) -> Option<String> {
        let body = self.src_loc(loc)?;
        self.resolve_loc(body, 0)
    }

    fn resolve_loc(&self, body: &str, depth: u32) -> Option<String> {
        if depth > 32 {
            return None;
        }
        let t = body.trim();
        if let Some(name) = t.strip_prefix('#') {
            let a = self.loc_aliases.iter().find(|a| a.name == name)?;
            return self.resolve_loc(&a.body, depth + 1);
        }
        if let Some(rest) = t.strip_prefix('"') {
            // `"file":L:C`, `"file":L:C to L:C`, `"name"(child)`, `"name"`.
            let end = string_end(rest)?;
            let (name, after) = (&rest[..end], rest[end + 1..].trim_start());
            if let Some(pos) = after.strip_prefix(':') {
                let mut parts = pos.split(|c: char| c == ':' || c.is_whitespace());
                let line = parts.next()?.trim();
                let col = parts.next().map(str::trim).unwrap_or("0");
                line.parse::<u32>().ok()?;
                return Some(format!("{name}:{line}:{}", col.parse::<u32>().unwrap_or(0)));
            }
            let inner = after.strip_prefix('(')?.strip_suffix(')')?;
            return self.resolve_loc(inner, depth + 1);
        }
        if let Some(inner) = t
            .strip_prefix("callsite(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let (callee, caller) = split_top(inner, " at ")?;
            return self
                .resolve_loc(callee, depth + 1)
                .or_else(|| self.resolve_loc(caller, depth + 1));
        }
        if let Some(rest) = t.strip_prefix("fused") {
            // `fused[a, b]` or `fused<#meta>[a, b]`.
            let list = rest.trim_start();
            let list = if list.starts_with('<') {
                &list[balanced_end(list)?..]
            } else {
                list
            };
            let inner = list.trim().strip_prefix('[')?.strip_suffix(']')?;
            return split_list(inner)
                .into_iter()
                .find_map(|l| self.resolve_loc(l, depth + 1));
        }
        None
    }
}

/// The index of the closing quote of a string whose opening quote has
/// been removed.
fn string_end(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// Each byte position of `s` outside string literals, with the bracket
/// depth before it.
fn outside_strings(s: &str) -> Vec<(usize, i32)> {
    let mut out = Vec::new();
    let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
    for (i, c) in s.bytes().enumerate() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        out.push((i, depth));
        match c {
            b'"' => in_str = true,
            b'(' | b'[' | b'<' | b'{' => depth += 1,
            b')' | b']' | b'>' | b'}' => depth -= 1,
            _ => {}
        }
    }
    out
}

/// The index just past the bracket group that starts `s`.
fn balanced_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    outside_strings(s)
        .into_iter()
        .skip(1)
        .find(|&(i, d)| d == 1 && matches!(b[i], b')' | b']' | b'>' | b'}'))
        .map(|(i, _)| i + 1)
}

/// The comma-separated items of `s` at bracket depth 0, outside strings.
fn split_list(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, d) in outside_strings(s) {
        if d == 0 && s.as_bytes()[i] == b',' {
            out.push(&s[start..i]);
            start = i + 1;
        }
    }
    out.push(&s[start..]);
    out
}

/// `s` split at the first `sep` at bracket depth 0, outside strings.
fn split_top<'s>(s: &'s str, sep: &str) -> Option<(&'s str, &'s str)> {
    let (i, _) = outside_strings(s)
        .into_iter()
        .find(|&(i, d)| d == 0 && s[i..].starts_with(sep))?;
    Some((&s[..i], &s[i + sep.len()..]))
}
