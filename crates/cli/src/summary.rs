//! The summary printed on stderr after `plan` (and, per padded allocation,
//! after `opt`): how full each (function, space) is and why.
//!
//! One line per (function, space) of a planned program:
//! `[summary] FUNC/SPACE: USED / CAPACITY bytes (P %), lower bound LB, tiles N -> M
//! buffers, reserved R, planner NAME`. `USED` is the top of the highest
//! buffer or reserved window, `LB` the co-live lower bound of the buffers
//! plus the reserved bytes (no placement uses less), `N` the tiles (alias
//! families) and `M` the distinct addresses they were given.
//!
//! For HIVM MLIR (`opt` with a plan-memory pass) the same line per
//! (function, space) that fits: `[summary] FUNC/SPACE: USED / CAPACITY
//! bytes (P %), lower bound LB, allocations N -> M buffers, planner NAME`,
//! `N` the allocations (`N (S slots)` when multi-buffers add slots), `M`
//! the distinct addresses their slots were given.

use tilemem_mlir::passes::plan_memory::map::SpacePlacement;
use tilemem_pto::report::SpaceSummary;

/// `x %` of `used` against `capacity`, one decimal.
fn percent(used: u64, capacity: u64) -> String {
    if capacity == 0 {
        return "-".into();
    }
    format!("{:.1} %", used as f64 * 100.0 / capacity as f64)
}

/// The summary lines of one planned program, from
/// [`tilemem_pto::report::summary`].
pub fn plan_lines(spaces: &[SpaceSummary], planner: &str) -> Vec<String> {
    spaces
        .iter()
        .map(|s| {
            let cap = match s.capacity {
                Some(c) => format!("{c} bytes ({})", percent(s.bytes_used, c)),
                None => "unlimited".into(),
            };
            format!(
                "[summary] {}/{}: {} / {cap}, lower bound {}, tiles {} -> {} buffers, reserved {}, planner {planner}",
                s.function,
                s.space,
                s.bytes_used,
                s.lower_bound + s.reserved,
                s.tiles,
                s.buffers,
                s.reserved,
            )
        })
        .collect()
}

/// The summary lines of the spaces PlanMemory placed within capacity
/// (one that overflows has its error instead).
pub fn mlir_lines(spaces: &[SpacePlacement], planner: &str) -> Vec<String> {
    spaces
        .iter()
        .filter(|s| s.drawn_capacity.is_none())
        .map(|s| {
            let mut allocs: Vec<&str> = s
                .buffers
                .iter()
                .flat_map(|b| std::iter::once(&b.name).chain(&b.shares_with))
                .map(String::as_str)
                .collect();
            allocs.sort_unstable();
            allocs.dedup();
            let mut addresses: Vec<u64> = s.buffers.iter().map(|b| b.offset).collect();
            addresses.sort_unstable();
            addresses.dedup();
            // Multi-buffer slots are placed one by one.
            let slots = s.buffers.len() + s.buffers.iter().map(|b| b.shares_with.len()).sum::<usize>();
            let allocations = if slots > allocs.len() {
                format!("{} ({slots} slots)", allocs.len())
            } else {
                allocs.len().to_string()
            };
            format!(
                "[summary] {}/{}: {} / {} bytes ({}), lower bound {}, allocations {allocations} -> {} buffers, planner {planner}",
                s.function,
                s.space,
                s.used,
                s.capacity,
                percent(s.used, s.capacity),
                s.lower_bound,
                addresses.len(),
            )
        })
        .collect()
}

/// Why a PyPTO program got no summary line (the library's, which
/// `explain` prints too).
pub use tilemem_pto::explain::nothing_planned;
