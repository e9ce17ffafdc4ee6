//! Flags more than one subcommand takes, declared once.

use tilemem_pto::passes::PlannerMode;
use tilemem_soc::Soc;

/// The chip and the planner (`plan`, `explain`).
#[derive(clap::Args)]
pub struct ChipPlanner {
    /// Target chip: 910b (A2/A3), 950 (A5), 310b, or none (no backend:
    /// unlimited capacity, default policy).
    #[arg(long, default_value = "910b")]
    pub target: String,
    /// Who decides sharing and addresses: pypto (reuse, then sequential
    /// addresses), dsa-rp (joint placement, no reuse pass), ptoas (addresses
    /// left to the assembler), optimal (dsa-rp's problem, exact solver).
    /// `plan` also takes `all` (pypto, dsa-rp and optimal: the program and
    /// report are pypto's, the summary and the HTML map show all three);
    /// `explain` takes pypto, dsa-rp or optimal (on HIVM MLIR: bishengir or
    /// optimal).
    #[arg(long, default_value = "pypto")]
    pub planner: String,
}

impl ChipPlanner {
    /// The target, or the message for an unknown one.
    pub fn soc(&self) -> Result<Soc, String> {
        Soc::from_name(&self.target).ok_or_else(|| {
            format!(
                "unknown --target '{}'; use 910b, 950, 310b or none",
                self.target
            )
        })
    }

    /// The planners `--planner` names: one, or with `all` the three that
    /// place (when `all` is allowed).
    pub fn planners(&self, allow_all: bool) -> Result<Vec<PlannerMode>, String> {
        if allow_all && self.planner.eq_ignore_ascii_case("all") {
            return Ok(vec![
                PlannerMode::Pypto,
                PlannerMode::DsaRp,
                PlannerMode::Optimal,
            ]);
        }
        PlannerMode::from_name(&self.planner)
            .map(|p| vec![p])
            .ok_or_else(|| {
                format!(
                    "unknown --planner '{}'; use pypto, dsa-rp, ptoas, optimal or all",
                    self.planner
                )
            })
    }
}
