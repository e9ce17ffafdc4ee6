//! An MLIR-subset program model, its reader and printer, and the HIVM
//! stride-alignment passes.
//!
//! - [`ir`]: the operation model (dense arenas, use lists, typed access to
//!   the known ops);
//! - [`parse`]: the reader of MLIR's textual format (generic form and the
//!   custom forms of the ops HIVM programs use);
//! - [`mod@print`]: the printer, in `mlir-opt`'s canonical style;
//! - [`pass`]: the pass interface and registry;
//! - [`passes`]: the HIVM passes;
//! - [`verify`]: `-verify-diagnostics` expectations.

pub mod ir;
pub mod parse;
pub mod pass;
pub mod passes;
pub mod print;
pub mod verify;

pub use ir::{Attribute, Diagnostic, Location, Module, OpId, Type, ValueId};
