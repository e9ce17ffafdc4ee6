//! The analysis layer every planner shares: what the program says about
//! storage, computed once and in one place.
//!
//! - [`order`]: program order, loop-aware lifetime extension, phi families;
//! - [`facts`]: per-variable definition, last use and control-flow facts
//!   on that order (the DSA_RP model's view of lifetimes);
//! - [`evidence`]: each op's registered execution-memory-access evidence;
//! - [`exclusive`]: branch exclusivity, roots that may share although
//!   their lifetime hulls overlap;
//! - [`constraints`]: the hard separations of the seeds and the registry,
//!   isolated roots, pipeline-stage tags;
//! - [`model`]: the planner-neutral model every planner consumes (roots,
//!   lifetimes, separations, stages, exclusivity);
//! - [`roots`]: allocation roots, their members (views included) and
//!   lifetimes;
//! - [`hazards`]: target hazards and no-alias facts, from the op table;
//! - [`reserve`]: `reserve_buffer` windows, one resolver and one error;
//! - [`layout`]: the addresses a planner decided;
//! - [`walk`]: program-order walks without a table of every statement.
//!
//! `memory_reuse`, `dsa_rp` (and the optimal planner on its model),
//! `explain` and the address pass use this layer; `verify` deliberately
//! does not (an independent check must not share the code it checks).
//! Nothing here imports a pass.

pub mod constraints;
pub mod evidence;
pub mod exclusive;
pub mod facts;
pub mod hazards;
pub mod layout;
pub mod model;
pub mod order;
pub mod reserve;
pub mod roots;
pub mod walk;
