//! Program rewrites several passes share: settling the storage of
//! control-flow boundaries and cleaning up after a planner.
//!
//! - [`yield_fixup`]: loop carries realigned to their init, accumulator
//!   if-phis coalesced, every yield made to write its carry's window
//!   (retarget or `tile.move`);
//! - [`normalize`]: identity copies and views follow their sources;
//! - [`carry_init`]: a loop carry whose init is read again starts from a
//!   copy;
//! - [`cleanup`]: dead allocations removed, consumed stage tags stripped;
//! - [`names`]: fresh names for what they add;
//! - [`storage`]: the MemRef helpers they use.
//!
//! MemoryReuse runs them after packing; MaterializeSemanticAliases runs
//! them itself for the planners without MemoryReuse; the DSA_RP address
//! stage runs [`cleanup`]. Nothing here imports a pass.

pub mod carry_init;
pub mod cleanup;
pub mod names;
pub mod normalize;
pub mod storage;
pub mod yield_fixup;
