//! SoC descriptions: capacities and hardware alignment per memory space.

use crate::space::MemSpace;

/// Target family, which decides target-aware op rules and hazards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Ascend 910B / 910_93 (membase, dav-c220).
    A2A3,
    /// Ascend 950 (regbase, dav-c310).
    A5,
    /// Ascend 310B (dav-m300).
    M300,
    /// No backend configured: unlimited capacity, default policy.
    NoBackend,
}

/// A chip's on-chip memory: which spaces exist and how large they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Soc {
    name: &'static str,
    family: Family,
    /// Usable bytes per space; `None` = absent on this chip (or unlimited
    /// for the no-backend target, see [`Soc::capacity`]).
    capacities: [(MemSpace, Option<u64>); 8],
}

const KIB: u64 = 1024;

impl Soc {
    /// Ascend 910B (A2/A3).
    pub fn ascend910b() -> Soc {
        Soc {
            name: "910b",
            family: Family::A2A3,
            capacities: [
                (MemSpace::Vec, Some(188_416)),
                (MemSpace::Mat, Some(512 * KIB)),
                (MemSpace::Left, Some(64 * KIB)),
                (MemSpace::Right, Some(64 * KIB)),
                (MemSpace::Acc, Some(128 * KIB)),
                (MemSpace::Bias, Some(KIB)),
                (MemSpace::LeftScale, None),
                (MemSpace::RightScale, None),
            ],
        }
    }

    /// Ascend 950 (A5).
    pub fn ascend950() -> Soc {
        Soc {
            name: "950",
            family: Family::A5,
            capacities: [
                (MemSpace::Vec, Some(245_760)),
                (MemSpace::Mat, Some(512 * KIB)),
                (MemSpace::Left, Some(64 * KIB)),
                (MemSpace::Right, Some(64 * KIB)),
                (MemSpace::Acc, Some(256 * KIB)),
                (MemSpace::Bias, Some(4 * KIB)),
                (MemSpace::LeftScale, Some(4 * KIB)),
                (MemSpace::RightScale, Some(4 * KIB)),
            ],
        }
    }

    /// Ascend 310B.
    pub fn ascend310b() -> Soc {
        Soc {
            name: "310b",
            family: Family::M300,
            capacities: [
                (MemSpace::Vec, Some(256 * KIB)),
                (MemSpace::Mat, Some(1024 * KIB)),
                (MemSpace::Left, Some(64 * KIB)),
                (MemSpace::Right, Some(64 * KIB)),
                (MemSpace::Acc, Some(128 * KIB)),
                (MemSpace::Bias, None),
                (MemSpace::LeftScale, None),
                (MemSpace::RightScale, None),
            ],
        }
    }

    /// No backend: every on-chip space exists with unlimited capacity.
    pub fn no_backend() -> Soc {
        Soc {
            name: "none",
            family: Family::NoBackend,
            capacities: [
                (MemSpace::Vec, None),
                (MemSpace::Mat, None),
                (MemSpace::Left, None),
                (MemSpace::Right, None),
                (MemSpace::Acc, None),
                (MemSpace::Bias, None),
                (MemSpace::LeftScale, None),
                (MemSpace::RightScale, None),
            ],
        }
    }

    /// Looks a target up by its command-line name (`910b`, `950`, `310b`,
    /// `none`; a few common aliases are accepted).
    pub fn from_name(name: &str) -> Option<Soc> {
        match name.to_ascii_lowercase().as_str() {
            "910b" | "a2" | "a3" | "a2a3" | "ascend910b" | "910_93" => Some(Soc::ascend910b()),
            "950" | "a5" | "ascend950" => Some(Soc::ascend950()),
            "310b" | "ascend310b" => Some(Soc::ascend310b()),
            "none" => Some(Soc::no_backend()),
            _ => None,
        }
    }

    /// The SoC of a chip as HIVM names it in `hacc.target`
    /// (`Ascend950PR_9589`, `Ascend910B1`, ...). `Ascend950*` and
    /// `Ascend910_95*` are the 950 (`NPUTargetSpec.td` derives both from
    /// `Ascend950_BaseSpec`, arch `dav-c310`; HIVM's verifiers accept a
    /// Fixpipe into UB, "only supported on Ascend950", under
    /// `Ascend910_9579`); `Ascend310B*` is the 310B (`dav-m300`, also
    /// register-based); anything else is the 910B, HIVM's memory-based
    /// default.
    pub fn from_chip(chip: &str) -> Soc {
        if chip.starts_with("Ascend950") || chip.starts_with("Ascend910_95") {
            Soc::ascend950()
        } else if chip.starts_with("Ascend310B") {
            Soc::ascend310b()
        } else {
            Soc::ascend910b()
        }
    }

    /// Whether the chip's vector units are register-based (950 and 310B
    /// families) rather than memory-based (910B).
    pub fn is_regbase(&self) -> bool {
        matches!(self.family, Family::A5 | Family::M300)
    }

    /// The command-line name of the target.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The target family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Whether a backend is configured (false only for the no-backend target).
    pub fn has_backend(&self) -> bool {
        self.family != Family::NoBackend
    }

    /// Usable bytes of `space`: `None` when unlimited or not planned (DDR,
    /// the no-backend target, or a space the chip does not have).
    pub fn capacity(&self, space: MemSpace) -> Option<u64> {
        self.capacities
            .iter()
            .find(|(s, _)| *s == space)
            .and_then(|(_, c)| *c)
    }

    /// The same chip with every space it has unlimited: what a memory map
    /// of a program that does not fit is planned on, to be drawn against
    /// the real capacities (alignment and policies are the chip's).
    pub fn without_capacity_limits(&self) -> Soc {
        let mut soc = self.clone();
        for (_, c) in &mut soc.capacities {
            if c.is_some() {
                *c = Some(u64::MAX / 4);
            }
        }
        soc
    }

    /// Alignment the hardware needs in `space` (HIVM's table), in bytes. The
    /// PyPTO address policy uses 32 bytes everywhere instead; see
    /// [`crate::DefaultPolicy`].
    pub fn hardware_alignment(&self, space: MemSpace) -> u64 {
        match space {
            MemSpace::Vec | MemSpace::Mat => 32,
            MemSpace::Left | MemSpace::Right | MemSpace::Acc => 512,
            MemSpace::Bias => 64,
            MemSpace::LeftScale | MemSpace::RightScale => 64,
            MemSpace::Ddr | MemSpace::Other(_) => 1,
        }
    }

    /// Whether split-AIV functions need the load + `tpop_from_aic` hazard
    /// guard (Ascend910-class targets only).
    pub fn requires_split_load_tpop_workaround(&self) -> bool {
        self.family == Family::A2A3
    }

    /// Rows of Acc (L0C) tiles are padded to a multiple of this for the given
    /// element width in bits: 32 for INT32 on 910B-class targets, else 16.
    pub fn acc_row_multiple(&self, elem_bits: u32, is_int: bool) -> u64 {
        if self.family == Family::A2A3 && is_int && elem_bits == 32 {
            32
        } else {
            16
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_follow_the_target_table() {
        let b = Soc::ascend910b();
        assert_eq!(b.capacity(MemSpace::Vec), Some(188_416));
        assert_eq!(b.capacity(MemSpace::Acc), Some(131_072));
        assert_eq!(b.capacity(MemSpace::LeftScale), None);
        let a5 = Soc::ascend950();
        assert_eq!(a5.capacity(MemSpace::Vec), Some(245_760));
        assert_eq!(a5.capacity(MemSpace::Acc), Some(262_144));
        assert_eq!(a5.capacity(MemSpace::RightScale), Some(4096));
        assert_eq!(Soc::ascend310b().capacity(MemSpace::Mat), Some(1_048_576));
        assert_eq!(Soc::no_backend().capacity(MemSpace::Vec), None);
        assert_eq!(b.capacity(MemSpace::Ddr), None);
    }

    #[test]
    fn names_and_families() {
        assert_eq!(Soc::from_name("910B").unwrap().family(), Family::A2A3);
        assert_eq!(Soc::from_name("950").unwrap().family(), Family::A5);
        assert!(!Soc::from_name("none").unwrap().has_backend());
        assert!(Soc::from_name("h100").is_none());
        assert!(Soc::ascend910b().requires_split_load_tpop_workaround());
        assert!(!Soc::ascend950().requires_split_load_tpop_workaround());
        assert_eq!(Soc::ascend910b().acc_row_multiple(32, true), 32);
        assert_eq!(Soc::ascend950().acc_row_multiple(32, true), 16);
        assert_eq!(Soc::ascend910b().hardware_alignment(MemSpace::Acc), 512);
    }

    #[test]
    fn hivm_chip_names() {
        assert_eq!(Soc::from_chip("Ascend910B1"), Soc::ascend910b());
        assert_eq!(Soc::from_chip("Ascend950PR_9589"), Soc::ascend950());
        assert_eq!(Soc::from_chip("Ascend310B4"), Soc::ascend310b());
        assert_eq!(Soc::from_chip("Ascend910_9391"), Soc::ascend910b());
        assert_eq!(Soc::from_chip("Ascend910_9589"), Soc::ascend950());
        assert_eq!(Soc::from_chip("Ascend910_950z").family(), Family::A5);
        assert!(!Soc::ascend910b().is_regbase());
        assert!(!Soc::no_backend().is_regbase());
    }
}
