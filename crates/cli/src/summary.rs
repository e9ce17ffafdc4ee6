//! The summary printed on stderr after `plan` (and, per padded allocation,
//! after `opt`): how full each (function, space) is and why.
//!
//! One line per (function, space) of a planned program:
//! `[summary] FUNC/SPACE: USED / CAPACITY bytes (P %), lower bound LB, tiles N -> M
//! buffers, reserved R, planner NAME`. `USED` is the top of the highest
//! buffer or reserved window, `LB` the co-live lower bound of the buffers
//! plus the reserved bytes (no placement uses less), `N` the tiles (alias
//! families) and `M` the distinct addresses they were given.

use std::collections::BTreeSet;

use tilemem_pto::ir::Program;
use tilemem_pto::report::Report;

/// Reserved bytes per space of function `name`.
pub fn reserved(program: &Program, function: &str, space: &str) -> u64 {
    program
        .function(function)
        .map(tilemem_pto::explain::reserves)
        .unwrap_or_default()
        .iter()
        .filter(|r| r.space.name() == space)
        .map(|r| r.size)
        .sum()
}

/// `x %` of `used` against `capacity`, one decimal.
fn percent(used: u64, capacity: u64) -> String {
    if capacity == 0 {
        return "-".into();
    }
    format!("{:.1} %", used as f64 * 100.0 / capacity as f64)
}

/// The summary lines of one planned program.
pub fn plan_lines(report: &Report, program: &Program, planner: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in &report.functions {
        for s in &f.spaces {
            let res = reserved(program, &f.name, &s.space);
            let cap = match s.capacity {
                Some(c) => format!("{c} bytes ({})", percent(s.bytes_used, c)),
                None => "unlimited".into(),
            };
            let tiles: BTreeSet<&str> = s.buffers.iter().map(|b| b.name.as_str()).collect();
            let buffers: BTreeSet<(&str, u64)> = if report.addressed {
                s.buffers.iter().map(|b| ("", b.start)).collect()
            } else {
                s.buffers.iter().map(|b| (b.root.as_str(), 0)).collect()
            };
            out.push(format!(
                "[summary] {}/{}: {} / {cap}, lower bound {}, tiles {} -> {} buffers, reserved {res}, planner {planner}",
                f.name,
                s.space,
                s.bytes_used,
                s.lower_bound + res,
                tiles.len(),
                buffers.len(),
            ));
        }
    }
    out
}
