//! Program rewrites several passes share: settling the storage of
//! control-flow boundaries and cleaning up after a planner.
//!
//! - [`yield_fixup`]: loop carries realigned to their init, accumulator
//!   if-phis coalesced, every yield made to write its carry's window
//!   (retarget or `tile.move`);
//! - [`normalize`]: identity copies and views follow their sources;
//! - [`cleanup`]: dead allocations removed, consumed stage tags stripped;
//! - [`storage`]: the MemRef helpers they use.
//!
//! MemoryReuse runs them after packing; MaterializeSemanticAliases runs
//! them itself for the planners without MemoryReuse; the DSA_RP address
//! stage runs [`cleanup`]. Nothing here imports a pass.

pub mod cleanup;
pub mod normalize;
pub mod storage;
pub mod yield_fixup;
