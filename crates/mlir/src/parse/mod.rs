//! The reader of MLIR's textual format.

use crate::ir::{Diagnostic, Location, Module};

/// Reader options.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Accept ops of dialects the reader does not know (mlir-opt's
    /// `-allow-unregistered-dialect`).
    pub allow_unregistered_dialect: bool,
    /// Lines before the text (for split chunks: locations stay those of the
    /// whole file).
    pub line_offset: u32,
}

/// Reads a module. Errors carry the location of the offending token.
pub fn parse_module(text: &str, options: &ParseOptions) -> Result<Module, Diagnostic> {
    let _ = (text, options);
    Err(Diagnostic::error(
        Location::new(1 + options.line_offset, 1),
        "reader not available yet",
    ))
}

/// One chunk of a `// -----` separated input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk text.
    pub text: &'a str,
    /// Number of lines of the input before the chunk.
    pub line_offset: u32,
}

/// Splits an input at lines consisting of `// -----` (mlir-opt's
/// `-split-input-file`).
pub fn split_input(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut pos = 0usize;
    for (line, l) in text.split_inclusive('\n').enumerate() {
        let line = line as u32;
        let trimmed = l.trim_end_matches(['\n', '\r']);
        if trimmed.trim_start().starts_with("// -----") {
            chunks.push(Chunk {
                text: &text[start..pos],
                line_offset: start_line,
            });
            start = pos + l.len();
            start_line = line + 1;
        }
        pos += l.len();
    }
    chunks.push(Chunk {
        text: &text[start..],
        line_offset: start_line,
    });
    chunks
}
