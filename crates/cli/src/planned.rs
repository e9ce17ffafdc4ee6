//! One planner's result, as `plan` hands it to the views (summary, maps).

use tilemem_pto::ir::Program;
use tilemem_pto::passes::PlannerMode;
use tilemem_pto::report::Report;

/// One planner's successful result.
pub struct Planned {
    /// The planner.
    pub planner: PlannerMode,
    /// The planned program.
    pub program: Program,
    /// Its report.
    pub report: Report,
}
