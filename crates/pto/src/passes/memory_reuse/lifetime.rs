//! Lifetime analysis of MemoryReuse: the shared analysis layer's program
//! order and allocation roots (see [`crate::passes::analysis`]), re-exported
//! under the names this pass has always used.

pub use crate::passes::analysis::order::{
    carried_from, is_assigned, yielded, Lifetime, LoopSpan, ProgramOrder,
};
pub use crate::passes::analysis::roots::{
    analyze, tile_storage, AllocationLifetimes, Root, RootId,
};
