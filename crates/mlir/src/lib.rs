//! An MLIR-subset program model, its reader and printer, and the HIVM stride-alignment passes.
