//! Analyses of the IR that passes share: MLIR's liveness, which values are
//! views of which memory, and the ordered set MLIR's analyses iterate.

pub mod liveness;
pub mod merged_reads;
pub mod ptr_set;
pub mod views;
