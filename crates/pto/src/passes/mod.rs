//! The PyPTO memory passes and what they share.
//!
//! Pipeline, per InCore/AIC/AIV function:
//! `init_memref -> materialize_semantic_aliases -> memory_reuse ->
//! allocate_memory_addr`. The DSA_RP and optimal planners skip
//! memory_reuse and the PTOAS planner also the address pass; in those modes
//! materialize_semantic_aliases runs the planner-specific flow itself (the
//! loop-carry / if-phi yield fix-up with `tile.move` copies, accumulator
//! if-phi coalescing, identity-copy normalisation) with the shared rewrites
//! of [`rewrite`], without packing. Every pass is a function
//! `fn(&mut Program, &mut PassContext) -> Result<(), PassError>`, documents
//! what it assumes and guarantees, and is idempotent: a pass that finds its
//! work already done changes nothing.
//!
//! Layers, each importing only the ones below it:
//! - [`pipeline`]: the driver (runs passes by name, functions in parallel);
//! - the passes: [`init_memref`], [`materialize_semantic_aliases`],
//!   [`memory_reuse`], [`allocate_memory_addr`] (a switch between the
//!   planners' address stages [`sequential`] and [`dsa_rp`], then
//!   [`verify`] of every output);
//! - [`rewrite`]: program rewrites several passes share;
//! - [`analysis`]: the planner-neutral model and the facts it is built from;
//! - [`context`]: the pass context, errors, rule switches, pass names.

pub mod allocate_memory_addr;
pub mod analysis;
pub mod assumed;
pub mod context;
pub mod dsa_rp;
pub mod init_memref;
pub mod input_spaces;
pub mod materialize_semantic_aliases;
pub mod memory_reuse;
pub mod pipeline;
pub mod rewrite;
pub mod select;
pub mod sequential;
pub mod verify;

pub use context::{
    DiagKind, Diagnostic, DsaOptions, ErrorKind, InputPlacement, Loc, PassContext, PassError,
    PassId, PlannerMode, SeedRules, SpaceReport,
};
pub use pipeline::{run_pass, run_pipeline};
pub use select::select_passes;
