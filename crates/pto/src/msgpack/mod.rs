//! PyPTO's own IR interchange: the MessagePack documents of
//! `pypto.ir.serialize(program)` (format: PyPTO's
//! `docs/.../04-serialization.md`; reader and writer sources in
//! `../shared/reference/pypto/serialization/`).
//!
//! - [`graph`]: the document as a node graph, every field kept;
//! - [`read`]: bytes to graph, errors naming the byte offset and the node
//!   being read;
//! - [`write`]: graph to bytes, as PyPTO's serializer writes them (a graph
//!   read and written again is the same bytes).

pub mod graph;

mod decode;
mod encode;

pub use decode::{looks_like_msgpack, read, DecodeError, MAX_DEPTH};
pub use encode::{write, EncodeError};
pub use graph::Graph;
