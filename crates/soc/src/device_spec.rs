//! Device specifications of the chips HIVM targets, as AscendNPU-IR's
//! `NPUTargetSpec.td` gives them: core counts, on-chip buffer sizes and
//! alignments (in bits, as the HACC dialect's `#hacc.target_device_spec`
//! entries carry them), and the architecture name.
//!
//! The table ([`DEVICE_SPECS`]) is generated from the `.td` file by
//! `cargo xtask device-spec`; it is the one source of these facts for the
//! HIVM front end (`-hacc-append-device-spec` writes them into the IR,
//! `-hivm-plan-memory` reads them back) and for tools that describe a chip
//! by its HIVM name.

use std::fmt;

/// One chip's specification (sizes and alignments in bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceSpec {
    /// The chip's name (`Ascend910B1`, `Ascend950PR_9589`, ...).
    pub name: &'static str,
    /// Physical AI cores.
    pub ai_core_count: i64,
    /// Physical cube cores.
    pub cube_core_count: i64,
    /// Physical vector cores.
    pub vector_core_count: i64,
    /// Unified buffer size, bits.
    pub ub_size: i64,
    /// Minimal data-cache size reserved for SIMT, bits (0 where absent).
    pub minimal_d_cache_size: i64,
    /// Maximum data-cache size for SIMT, bits (0 where absent).
    pub maximum_d_cache_size: i64,
    /// L1 (cbuf) size, bits.
    pub l1_size: i64,
    /// L0A size, bits.
    pub l0a_size: i64,
    /// L0B size, bits.
    pub l0b_size: i64,
    /// L0C size, bits.
    pub l0c_size: i64,
    /// UB alignment, bits.
    pub ub_align_size: i64,
    /// L1 alignment, bits.
    pub l1_align_size: i64,
    /// L0C alignment, bits.
    pub l0c_align_size: i64,
    /// Architecture (`dav-c220`, `dav-c310`, `dav-m300`).
    pub arch: &'static str,
}

/// The entries of a device spec, in the HACC dialect's `DeviceSpec` enum
/// order (the order `-hacc-append-device-spec` writes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceSpecKey {
    /// `AI_CORE_COUNT`
    AiCoreCount,
    /// `CUBE_CORE_COUNT`
    CubeCoreCount,
    /// `VECTOR_CORE_COUNT`
    VectorCoreCount,
    /// `UB_SIZE`
    UbSize,
    /// `L1_SIZE`
    L1Size,
    /// `L0A_SIZE`
    L0aSize,
    /// `L0B_SIZE`
    L0bSize,
    /// `L0C_SIZE`
    L0cSize,
    /// `UB_ALIGN_SIZE`
    UbAlignSize,
    /// `L1_ALIGN_SIZE`
    L1AlignSize,
    /// `L0C_ALIGN_SIZE`
    L0cAlignSize,
    /// `MINIMAL_D_CACHE_SIZE` (register-based chips only)
    MinimalDCacheSize,
    /// `MAXIMUM_D_CACHE_SIZE` (register-based chips only)
    MaximumDCacheSize,
    /// `ARCH` (register-based chips only)
    Arch,
}

impl DeviceSpecKey {
    /// Every key, in enum order.
    pub const ALL: [DeviceSpecKey; 14] = [
        DeviceSpecKey::AiCoreCount,
        DeviceSpecKey::CubeCoreCount,
        DeviceSpecKey::VectorCoreCount,
        DeviceSpecKey::UbSize,
        DeviceSpecKey::L1Size,
        DeviceSpecKey::L0aSize,
        DeviceSpecKey::L0bSize,
        DeviceSpecKey::L0cSize,
        DeviceSpecKey::UbAlignSize,
        DeviceSpecKey::L1AlignSize,
        DeviceSpecKey::L0cAlignSize,
        DeviceSpecKey::MinimalDCacheSize,
        DeviceSpecKey::MaximumDCacheSize,
        DeviceSpecKey::Arch,
    ];

    /// The entry's name in the IR (`"UB_SIZE"`).
    pub fn name(self) -> &'static str {
        match self {
            DeviceSpecKey::AiCoreCount => "AI_CORE_COUNT",
            DeviceSpecKey::CubeCoreCount => "CUBE_CORE_COUNT",
            DeviceSpecKey::VectorCoreCount => "VECTOR_CORE_COUNT",
            DeviceSpecKey::UbSize => "UB_SIZE",
            DeviceSpecKey::L1Size => "L1_SIZE",
            DeviceSpecKey::L0aSize => "L0A_SIZE",
            DeviceSpecKey::L0bSize => "L0B_SIZE",
            DeviceSpecKey::L0cSize => "L0C_SIZE",
            DeviceSpecKey::UbAlignSize => "UB_ALIGN_SIZE",
            DeviceSpecKey::L1AlignSize => "L1_ALIGN_SIZE",
            DeviceSpecKey::L0cAlignSize => "L0C_ALIGN_SIZE",
            DeviceSpecKey::MinimalDCacheSize => "MINIMAL_D_CACHE_SIZE",
            DeviceSpecKey::MaximumDCacheSize => "MAXIMUM_D_CACHE_SIZE",
            DeviceSpecKey::Arch => "ARCH",
        }
    }

    /// The key named `name` in the IR.
    pub fn from_name(name: &str) -> Option<DeviceSpecKey> {
        DeviceSpecKey::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether only register-based chips carry this entry (the memory-based
    /// chips' tools cannot read them, so the pass leaves them out there).
    pub fn regbase_only(self) -> bool {
        matches!(
            self,
            DeviceSpecKey::MinimalDCacheSize
                | DeviceSpecKey::MaximumDCacheSize
                | DeviceSpecKey::Arch
        )
    }
}

impl fmt::Display for DeviceSpecKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of one entry: an integer (`i32` in the IR) or a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecValue {
    /// A count or a size in bits.
    Int(i64),
    /// The architecture name.
    Str(&'static str),
}

impl DeviceSpec {
    /// The value of entry `key`.
    pub fn value(&self, key: DeviceSpecKey) -> SpecValue {
        use DeviceSpecKey as K;
        SpecValue::Int(match key {
            K::AiCoreCount => self.ai_core_count,
            K::CubeCoreCount => self.cube_core_count,
            K::VectorCoreCount => self.vector_core_count,
            K::UbSize => self.ub_size,
            K::L1Size => self.l1_size,
            K::L0aSize => self.l0a_size,
            K::L0bSize => self.l0b_size,
            K::L0cSize => self.l0c_size,
            K::UbAlignSize => self.ub_align_size,
            K::L1AlignSize => self.l1_align_size,
            K::L0cAlignSize => self.l0c_align_size,
            K::MinimalDCacheSize => self.minimal_d_cache_size,
            K::MaximumDCacheSize => self.maximum_d_cache_size,
            K::Arch => return SpecValue::Str(self.arch),
        })
    }

    /// The chip named `name`: its spec name (`Ascend910B4_1`) or the pass
    /// option spelling (`Ascend910B4-1`).
    pub fn lookup(name: &str) -> Option<&'static DeviceSpec> {
        let name = name.trim();
        DEVICE_SPECS
            .iter()
            .find(|s| s.name == name || s.name.replace('_', "-") == name.replace('_', "-"))
    }

    /// Whether the chip has register-based vector units (Ascend950 and
    /// 310B families: `dav-c310`, `dav-m300`).
    pub fn is_regbase(&self) -> bool {
        matches!(self.arch, "dav-c310" | "dav-m300")
    }

    /// Whether the chip has memory-based vector units (Ascend910B and
    /// 910_93: `dav-c220`).
    pub fn is_membase(&self) -> bool {
        self.arch == "dav-c220"
    }

    /// The entries `-hacc-append-device-spec` writes for this chip, in
    /// order: every key, but the register-based-only ones on memory-based
    /// chips.
    pub fn entries(&self) -> impl Iterator<Item = (DeviceSpecKey, SpecValue)> + '_ {
        let regbase = self.is_regbase();
        DeviceSpecKey::ALL
            .into_iter()
            .filter(move |k| regbase || !k.regbase_only())
            .map(move |k| (k, self.value(k)))
    }
}

#[path = "device_spec_table.rs"]
#[rustfmt::skip]
mod table;

pub use table::DEVICE_SPECS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_every_family() {
        let b1 = DeviceSpec::lookup("Ascend910B1").unwrap();
        assert_eq!(b1.ub_size, 1_572_864);
        assert_eq!(b1.l0c_size, 1_048_576);
        assert_eq!(b1.vector_core_count, 48);
        assert!(b1.is_membase() && !b1.is_regbase());
        let a5 = DeviceSpec::lookup("Ascend950PR_950z").unwrap();
        assert_eq!(a5.ub_size, 2_031_616);
        assert_eq!(a5.maximum_d_cache_size, 983_040);
        assert!(a5.is_regbase());
        let m300 = DeviceSpec::lookup("Ascend310B4").unwrap();
        assert!(m300.is_regbase() && !m300.is_membase());
        assert_eq!(m300.minimal_d_cache_size, 0);
        assert_eq!(
            DeviceSpec::lookup("Ascend910B4-1").unwrap().name,
            "Ascend910B4_1"
        );
        assert!(DeviceSpec::lookup("Ascend910").is_none());
    }

    #[test]
    fn membase_chips_leave_out_the_regbase_entries() {
        let b1 = DeviceSpec::lookup("Ascend910B1").unwrap();
        let keys: Vec<_> = b1.entries().map(|(k, _)| k.name()).collect();
        assert_eq!(keys.len(), 11);
        assert_eq!(keys.last(), Some(&"L0C_ALIGN_SIZE"));
        let a5 = DeviceSpec::lookup("Ascend950DT_95A2").unwrap();
        let all: Vec<_> = a5.entries().collect();
        assert_eq!(all.len(), 14);
        assert_eq!(all[13], (DeviceSpecKey::Arch, SpecValue::Str("dav-c310")));
        assert_eq!(
            DeviceSpecKey::from_name("UB_SIZE"),
            Some(DeviceSpecKey::UbSize)
        );
    }
}
