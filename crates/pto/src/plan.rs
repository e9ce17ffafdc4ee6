//! The one way to plan a PyPTO program: [`plan`] runs the chosen passes
//! with the chosen planner and hands back what every front end needs (the
//! diagnostics, the DSA_RP/optimal reports and, when asked, the JSON
//! report). The `tilemem` command, the Python module, `explain` and the
//! fuzz targets all call it, so they plan alike.

use std::sync::Arc;

use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::Program;
use crate::passes::{
    run_pipeline, Diagnostic, DsaOptions, PassContext, PassError, PassId, PlannerMode, SeedRules,
    SpaceReport,
};
use crate::report::{self, Report, SpaceSummary};

/// How to plan.
#[derive(Clone)]
pub struct PlanOptions {
    /// The chip.
    pub soc: Soc,
    /// Who decides sharing and addresses.
    pub planner: PlannerMode,
    /// The passes to run (`None`: the planner's whole pipeline; see
    /// [`crate::passes::select_passes`] to choose by name).
    pub passes: Option<Vec<PassId>>,
    /// Which seed rules newer than the reference PyPTO apply.
    pub seed_rules: SeedRules,
    /// Options of the DSA_RP / optimal planner.
    pub dsa: DsaOptions,
    /// The address policy (`None`: PyPTO's default).
    pub policy: Option<Arc<dyn MemoryAllocatorPolicy>>,
    /// Build the JSON report of the planned program.
    pub report: bool,
    /// With `report`, compute each buffer's gaps
    /// ([`report::BufferReport::gaps`]): what drawing or validating the
    /// placement by span needs (a memory map); the JSON report does not
    /// carry them. On by default.
    pub report_gaps: bool,
    /// Compute the numbers of the summary line (`tilemem plan` without
    /// `-q`): the report's per-space numbers without its per-buffer
    /// records.
    pub summary: bool,
}

impl PlanOptions {
    /// The planner's whole pipeline on `soc` with every seed rule, the
    /// default policy and DSA_RP options, no report.
    pub fn new(soc: Soc, planner: PlannerMode) -> PlanOptions {
        PlanOptions {
            soc,
            planner,
            passes: None,
            seed_rules: SeedRules::ALL,
            dsa: DsaOptions::default(),
            policy: None,
            report: false,
            report_gaps: true,
            summary: false,
        }
    }

    /// The passes that run.
    pub fn pipeline(&self) -> Vec<PassId> {
        self.passes
            .clone()
            .unwrap_or_else(|| PassId::default_pipeline(self.planner))
    }

    /// Whether the planned program carries final addresses.
    pub fn addressed(&self) -> bool {
        self.planner != PlannerMode::Ptoas && self.pipeline().contains(&PassId::AllocateMemoryAddr)
    }
}

/// What planning produced.
#[derive(Clone, Debug)]
pub struct Planned {
    /// Diagnostics, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// What the DSA_RP / optimal planner decided per (function, space).
    pub dsa_reports: Vec<SpaceReport>,
    /// The report, when asked for.
    pub report: Option<Report>,
    /// The summary numbers, when asked for.
    pub summary: Option<Vec<SpaceSummary>>,
}

/// Why planning stopped, with the diagnostics emitted before.
#[derive(Clone, Debug)]
pub struct Failed {
    /// The error.
    pub error: PassError,
    /// Diagnostics emitted before it.
    pub diagnostics: Vec<Diagnostic>,
    /// Reports of the passes that completed.
    pub dsa_reports: Vec<SpaceReport>,
}

/// Plans `program` in place. On failure the program is left as the
/// failing pass left it; callers that write outputs write nothing then.
pub fn plan(program: &mut Program, opts: &PlanOptions) -> Result<Planned, Failed> {
    let mut ctx = PassContext::new(opts.soc.clone(), opts.planner);
    if let Some(p) = &opts.policy {
        ctx.policy = p.clone();
    }
    ctx.seed_rules = opts.seed_rules;
    ctx.dsa = opts.dsa.clone();
    let passes = opts.pipeline();
    if let Err(error) = run_pipeline(program, &mut ctx, &passes) {
        return Err(Failed {
            error,
            diagnostics: ctx.diagnostics,
            dsa_reports: ctx.dsa_reports,
        });
    }
    let report = opts
        .report
        .then(|| report::build_with(program, &opts.soc, opts.addressed(), opts.report_gaps));
    let summary = opts
        .summary
        .then(|| report::summary(program, &opts.soc, opts.addressed()));
    Ok(Planned {
        diagnostics: ctx.diagnostics,
        dsa_reports: ctx.dsa_reports,
        report,
        summary,
    })
}
