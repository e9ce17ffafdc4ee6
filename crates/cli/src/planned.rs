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
    /// Its report, when a view needs one (the summary, `--report`,
    /// `--map`): built only then, as it holds a record per tile.
    pub report: Option<Report>,
}
