//! Flags more than one subcommand takes, declared once.

use tilemem_pto::passes::PlannerMode;
use tilemem_soc::Soc;

/// The chip and the planner (`plan`, `explain`).
#[derive(clap::Args)]
pub struct ChipPlanner {
    /// Target chip: 910b (A2/A3), 950 (A5), 310b, or none (no backend:
    /// unlimited capacity, default policy) [default: 910b].
    #[arg(long)]
    pub target: Option<String>,
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
        let name = self.target.as_deref().unwrap_or("910b");
        Soc::from_name(name).ok_or_else(|| unknown_target(name))
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
            .ok_or_else(|| unknown_planner(&self.planner, "pypto, dsa-rp, ptoas, optimal or all"))
    }
}

/// The message for an unknown `--target`: the four names, and for a full
/// chip name as HIVM spells it (`Ascend910B1`, `Ascend950PR_9589`, any
/// case) the family it belongs to, by the prefixes of [`Soc::from_chip`].
pub fn unknown_target(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let family = if lower.starts_with("ascend950") || lower.starts_with("ascend910_95") {
        Some("950")
    } else if lower.starts_with("ascend310b") {
        Some("310b")
    } else if lower.starts_with("ascend910") {
        Some("910b")
    } else {
        None
    };
    match family {
        Some(family) => format!(
            "unknown --target '{name}': --target names the chip family, and {name} is a {family} chip: use --target {family}"
        ),
        None => format!(
            "unknown --target '{name}'; use 910b (A2/A3), 950 (A5), 310b, or none (no capacity limit)"
        ),
    }
}

/// The message for a `--planner` a PyPTO command does not take: the ones
/// it takes (`takes`), and where a name of the other front end belongs.
pub fn unknown_planner(name: &str, takes: &str) -> String {
    let mut msg = format!("unknown --planner '{name}'; use {takes}");
    if name.eq_ignore_ascii_case("bishengir") {
        msg.push_str(
            " (bishengir plans HIVM MLIR: `tilemem opt -hivm-plan-memory FILE.mlir` or `tilemem explain FILE.mlir`)",
        );
    } else if name.eq_ignore_ascii_case("ptoas") && !takes.contains("ptoas") {
        msg.push_str(
            " (ptoas leaves addresses to the assembler: there is no placement to explain)",
        );
    } else if name.eq_ignore_ascii_case("all") && !takes.contains("all") {
        msg.push_str(" (one at a time; `tilemem plan --planner all FILE` compares the three)");
    }
    msg
}
