//! Flags more than one subcommand takes, declared once.

use tilemem_pto::passes::{PlannerMode, SeedRules};
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

/// The seed rules a `--compat` value names (`plan`, `explain`), or the
/// message for an unknown one.
pub fn seed_rules(compat: &str) -> Result<SeedRules, String> {
    SeedRules::from_compat(compat)
        .ok_or_else(|| format!("unknown --compat '{compat}'; use seed or pypto-e2d0f78"))
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

/// What a byte-size flag accepts, said when a value is refused.
const BYTE_SIZE_FORMS: &str = "give bytes as 16384, 0x4000, or with a binary unit: 16K, 16KiB, \
                               16KB (each 16384), 1M, 1MiB (1048576), 1G";

/// Parses the value of a byte-size flag (`--capacity` of `solve`,
/// `validate` and `bench`): a decimal or `0x` hexadecimal count of bytes,
/// optionally `_`-grouped, with an optional binary unit as engineers write
/// on-chip sizes (`K`/`KB`/`KiB` = 1024, `M`.., `G`.., any case, a `B`
/// alone = bytes). Every byte-size flag of every command uses this one
/// parser (`value_parser = flags::byte_size`).
pub fn byte_size(value: &str) -> Result<u64, String> {
    let s = value.trim();
    let refuse = |why: &str| format!("{why}: {BYTE_SIZE_FORMS}");
    if s.is_empty() {
        return Err(refuse("an empty size"));
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let digits = hex.replace('_', "");
        return match u64::from_str_radix(&digits, 16) {
            Ok(n) if !digits.is_empty() && !digits.starts_with('+') => Ok(n),
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
                Err(refuse("more bytes than 2^64 - 1"))
            }
            _ => Err(refuse("not a hexadecimal number")),
        };
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let digits = number.replace('_', "");
    if digits.is_empty() {
        return Err(refuse(if s.starts_with('-') {
            "a negative size"
        } else {
            "not a number of bytes"
        }));
    }
    let shift = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ if unit.starts_with('.') => return Err(refuse("a fraction of a byte count")),
        _ => return Err(refuse(&format!("unknown unit '{}'", unit.trim_start()))),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| refuse("more bytes than 2^64 - 1"))
}

#[cfg(test)]
mod tests {
    use super::byte_size;

    #[test]
    fn byte_sizes_take_what_engineers_type() {
        for (text, bytes) in [
            ("16384", 16384),
            ("16_384", 16384),
            ("0x4000", 16384),
            ("0X40_00", 16384),
            ("16k", 16384),
            ("16K", 16384),
            ("16KiB", 16384),
            ("16kb", 16384),
            ("16 KiB", 16384),
            ("1M", 1 << 20),
            ("1MiB", 1 << 20),
            ("2g", 2 << 30),
            ("512B", 512),
            ("0", 0),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(byte_size(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn a_refused_byte_size_says_what_is_accepted() {
        let forms = "give bytes as 16384, 0x4000, or with a binary unit: 16K, 16KiB, 16KB (each \
                     16384), 1M, 1MiB (1048576), 1G";
        for (text, why) in [
            ("16q", "unknown unit 'q'"),
            ("16 kilo", "unknown unit 'kilo'"),
            ("1.5M", "a fraction of a byte count"),
            ("-1", "a negative size"),
            ("k", "not a number of bytes"),
            ("", "an empty size"),
            ("0x", "not a hexadecimal number"),
            ("0xg", "not a hexadecimal number"),
            ("0x1_0000_0000_0000_0000", "more bytes than 2^64 - 1"),
            ("16777216T", "unknown unit 'T'"),
            ("17179869184G", "more bytes than 2^64 - 1"),
        ] {
            assert_eq!(byte_size(text), Err(format!("{why}: {forms}")), "{text:?}");
        }
    }
}
