//! PyPTO's own IR interchange: the MessagePack documents of
//! `pypto.ir.serialize(program)` (format: PyPTO's
//! `docs/.../04-serialization.md`; reader and writer sources in
//! `../shared/reference/pypto/serialization/`).
//!
//! - [`graph`]: the document as a node graph, every field kept;
//! - [`read`]: bytes to graph, errors naming the byte offset and the node
//!   being read;
//! - [`write`]: graph to bytes, as PyPTO's serializer writes them (a graph
//!   read and written again is the same bytes);
//! - [`to_text`]: the program text PyPTO's printer writes for a document,
//!   which the text reader turns into the program model.

pub mod graph;

mod decode;
mod encode;
mod print;

pub use decode::{looks_like_msgpack, read, DecodeError, MAX_DEPTH};
pub use encode::{write, EncodeError};
pub use graph::Graph;
pub use print::{dtype_name, mem_space_name, to_text, ShapeError};
