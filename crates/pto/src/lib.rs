//! The PyPTO program model, its text reader and printer, op semantics, and the memory passes.
//!
//! - [`ir`]: the program model (dense ids + side tables); read its module
//!   docs before writing a pass.
//! - [`mod@parse`]: the reader (PyPTO text, hand-written programs too).
//! - [`mod@print`]: the printer (byte-exact PyPTO text).
//! - [`diag`]: reader errors rendered with `file:line:col` and a snippet.
//! - [`plan()`]: the memory pipeline as every front end runs it.

pub mod diag;
pub mod ir;
pub mod parse;
pub mod print;

pub use diag::ParseError;
pub use parse::{decode, parse};
pub use print::print;

pub mod explain;
pub mod input_kind;
pub mod msgpack;
pub mod ops;
pub mod passes;
pub mod plan;
pub mod report;

pub use plan::{plan, Failed, PlanOptions, Planned};
