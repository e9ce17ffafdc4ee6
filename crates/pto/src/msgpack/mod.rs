//! PyPTO's own IR interchange: the MessagePack documents of
//! `pypto.ir.serialize(program)` (format: PyPTO's
//! `docs/.../04-serialization.md`; reader and writer sources in
//! `../shared/reference/pypto/serialization/`).
//!
//! - [`graph`]: the document as a node graph, every field kept;
//! - [`read()`]: bytes to graph, errors naming the byte offset and the node
//!   being read;
//! - [`write()`]: graph to bytes, as PyPTO's serializer writes them (a graph
//!   read and written again is the same bytes);
//! - [`to_text`]: the program text PyPTO's printer writes for a document,
//!   which the text reader turns into the program model.

pub mod graph;

mod decode;
mod encode;
mod print;
mod rebuild;

pub use decode::{looks_like_msgpack, read, DecodeError, MAX_DEPTH};
pub use encode::{write, EncodeError};
pub use graph::Graph;
pub use print::{dtype_name, mem_space_name, to_text, to_text_with_lines, ShapeError};
pub use rebuild::{read_with_origin, rebuild, write_program, Origin, WriteError};

use crate::ir::Program;

/// Why a document could not be read into the program model.
#[derive(Clone, Debug)]
pub enum ReadError {
    /// Not a readable MessagePack document.
    Decode(DecodeError),
    /// A node of a shape the printer does not know.
    Shape(ShapeError),
    /// The printed text did not read (a printer gap, not the input's fault).
    Text(crate::ParseError),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Decode(e) => e.fmt(f),
            ReadError::Shape(e) => e.fmt(f),
            ReadError::Text(e) => write!(
                f,
                "the document's program text does not read back at {}:{}: {}",
                e.line, e.col, e.message
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads a document into the program model, through the text PyPTO's
/// printer writes for it (see [`to_text`]).
pub fn read_program(bytes: &[u8]) -> Result<Program, ReadError> {
    let g = read(bytes).map_err(ReadError::Decode)?;
    let text = to_text(&g).map_err(ReadError::Shape)?;
    crate::parse(&text).map_err(ReadError::Text)
}
