//! Source locations and diagnostics.

use std::fmt;

/// A position in the source text (1-based line and column). Operations made
/// by passes carry the location of the operation they derive from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Location {
    /// 1-based line; 0 means unknown.
    pub line: u32,
    /// 1-based column; 0 means unknown.
    pub col: u32,
    /// The `loc(...)` the input gave the operation, if any: 1 + its index
    /// in [`crate::ir::Module::src_locs`] (0: none). Kept apart from the
    /// position, which stays that of the text read.
    pub src: u32,
}

impl Location {
    /// A known position.
    pub fn new(line: u32, col: u32) -> Location {
        Location { line, col, src: 0 }
    }

    /// The unknown location.
    pub fn unknown() -> Location {
        Location::default()
    }

    /// Whether the location is known.
    pub fn is_known(&self) -> bool {
        self.line != 0
    }
}

/// Severity of a diagnostic, as MLIR names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// `error:` — the pass (or reading) failed.
    Error,
    /// `warning:`
    Warning,
    /// `remark:`
    Remark,
    /// `note:` — attached information.
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        })
    }
}

/// A message about a location. Rendered by the driver as
/// `file:line:col: error: message`, like MLIR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where.
    pub loc: Location,
    /// How bad.
    pub severity: Severity,
    /// What (MLIR style: lower-case start, no trailing period unless the
    /// original message has one).
    pub message: String,
    /// Attached notes.
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(loc, Severity::Error, message)
    }

    /// A warning at `loc`.
    pub fn warning(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(loc, Severity::Warning, message)
    }

    /// A remark at `loc`.
    pub fn remark(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(loc, Severity::Remark, message)
    }

    /// A diagnostic of any severity.
    pub fn new(loc: Location, severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            loc,
            severity,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Diagnostic {
        self.notes
            .push(Diagnostic::new(loc, Severity::Note, message));
        self
    }

    /// Renders `file:line:col: severity: message` (notes on following lines).
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        self.render_into(file, &mut out);
        for n in &self.notes {
            out.push('\n');
            n.render_into(file, &mut out);
        }
        out
    }

    fn render_into(&self, file: &str, out: &mut String) {
        use fmt::Write;
        if self.loc.is_known() {
            let _ = write!(out, "{}:{}:{}: ", file, self.loc.line, self.loc.col);
        } else {
            let _ = write!(out, "{}: ", file);
        }
        let _ = write!(out, "{}: {}", self.severity, self.message);
    }
}
