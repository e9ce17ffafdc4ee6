//! The random orders of PyPTO's DSA_RP greedy: `std::mt19937_64` and
//! libstdc++'s `std::shuffle`, drawn exactly as PyPTO's C++ draws them. They
//! live with the greedy in the placement core (`tilemem_plan::solve::mt`);
//! re-exported here for the planner's users.

pub use tilemem_plan::solve::mt::{shuffle, uniform_u64, Mt19937_64};
