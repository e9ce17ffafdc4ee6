//! On-chip memory spaces.

use std::fmt;

/// A memory space of an Ascend-class core, named as PyPTO names them.
///
/// `Ddr` (global memory) is not planned; every other space is an
/// independent scratchpad with addresses starting at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemSpace {
    /// Global memory (GM); addresses are managed outside the kernel.
    Ddr,
    /// Unified buffer (UB), the vector unit's scratchpad.
    Vec,
    /// L1 buffer (cbuf).
    Mat,
    /// L0A, the left matmul operand buffer.
    Left,
    /// L0B, the right matmul operand buffer.
    Right,
    /// L0C, the matmul accumulator buffer.
    Acc,
    /// Bias table (BT).
    Bias,
    /// Left scale buffer (A5 only).
    LeftScale,
    /// Right scale buffer (A5 only).
    RightScale,
}

impl MemSpace {
    /// Every space, in declaration order.
    pub const ALL: [MemSpace; 9] = [
        MemSpace::Ddr,
        MemSpace::Vec,
        MemSpace::Mat,
        MemSpace::Left,
        MemSpace::Right,
        MemSpace::Acc,
        MemSpace::Bias,
        MemSpace::LeftScale,
        MemSpace::RightScale,
    ];

    /// The PyPTO spelling (`pl.Mem.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Ddr => "DDR",
            MemSpace::Vec => "Vec",
            MemSpace::Mat => "Mat",
            MemSpace::Left => "Left",
            MemSpace::Right => "Right",
            MemSpace::Acc => "Acc",
            MemSpace::Bias => "Bias",
            MemSpace::LeftScale => "LeftScale",
            MemSpace::RightScale => "RightScale",
        }
    }

    /// Parses the PyPTO spelling (`Vec`, `Mat`, ...).
    pub fn from_name(s: &str) -> Option<MemSpace> {
        MemSpace::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The lower-case word used in allocation names (`mem_vec_3`).
    pub fn alloc_prefix(self) -> &'static str {
        match self {
            MemSpace::Ddr => "ddr",
            MemSpace::Vec => "vec",
            MemSpace::Mat => "mat",
            MemSpace::Left => "left",
            MemSpace::Right => "right",
            MemSpace::Acc => "acc",
            MemSpace::Bias => "bias",
            MemSpace::LeftScale => "left_scale",
            MemSpace::RightScale => "right_scale",
        }
    }

    /// Whether the space is an on-chip scratchpad the planner addresses.
    pub fn is_on_chip(self) -> bool {
        self != MemSpace::Ddr
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
