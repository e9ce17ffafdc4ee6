//! The PyPTO program model, its text reader and printer, op semantics, and the memory passes.

pub mod ops;
pub mod passes;
