//! The PyPTO program model, its text reader and printer, op semantics, and the memory passes.
//!
//! - [`ir`]: the program model (dense ids + side tables); read its module
//!   docs before writing a pass.
//! - [`print`]: the printer (byte-exact PyPTO text).

pub mod ir;
pub mod print;

pub mod ops;
pub mod passes;
