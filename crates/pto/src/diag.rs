//! Reader diagnostics: a message anchored at `file:line:col`, rendered with
//! the offending source line and a caret, rustc/miette style:
//!
//! ```text
//! error: expected `]` to close `pl.Tile[`, found `=`
//!  --> kernel.py:7:44
//!   |
//! 7 |         a: pl.Tile[[32, 32], pl.FP32 = pl.tile.load(x)
//!   |                                      ^ expected `]`
//! ```

use std::fmt;

/// A reader error: what was wrong, where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
    /// Width of the underlined span, in characters (at least 1).
    pub len: u32,
    /// One-line description ("expected X, found Y").
    pub message: String,
    /// Short label under the caret (what to write there).
    pub label: String,
}

impl ParseError {
    /// Renders the error with a `--> path:line:col` header and a source
    /// snippet taken from `src`.
    pub fn render(&self, path: &str, src: &str) -> String {
        let line_text = src
            .split('\n')
            .nth(self.line.saturating_sub(1) as usize)
            .unwrap_or("")
            .trim_end_matches('\r');
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        // Tabs would misalign the caret; show them as single spaces.
        let shown: String = line_text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let caret_pad = " ".repeat(self.col.saturating_sub(1) as usize);
        let carets = "^".repeat(self.len.max(1) as usize);
        let mut out = format!(
            "error: {}\n{pad}--> {path}:{}:{}\n{pad} |\n{num} | {shown}\n{pad} | {caret_pad}{carets}",
            self.message, self.line, self.col
        );
        if !self.label.is_empty() {
            out.push(' ');
            out.push_str(&self.label);
        }
        out.push('\n');
        out
    }
}

impl ParseError {
    /// The one-line form the commands print, `path:line:col: error: MESSAGE`,
    /// followed by a `help:` line saying what to write there.
    pub fn line_form(&self, path: &str) -> String {
        let mut out = format!(
            "{path}:{}:{}: error: {}\n",
            self.line, self.col, self.message
        );
        if !self.label.is_empty() {
            out.push_str(&format!("  help: {}\n", self.label));
        }
        out
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Levenshtein distance between two names, in characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The candidate nearest to `name` by edit distance, when it is near
/// enough to be a misspelling (at most half the name's length away).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .map(|c| (edit_distance(name, c), c))
        .min()
        .filter(|&(d, _)| d * 2 <= name.chars().count().max(2))
        .map(|(_, c)| c)
}
