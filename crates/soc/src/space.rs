//! On-chip memory spaces.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// A memory space of an Ascend-class core, named as PyPTO names them.
///
/// `Ddr` (global memory) is not planned; every other known space is an
/// independent scratchpad with addresses starting at 0. A `pl.Mem.<Name>`
/// this crate does not know is kept as [`MemSpace::Other`] so that a
/// program round-trips verbatim; such a space has no capacity, is not
/// addressed by the planners and is never [on chip](MemSpace::is_on_chip).
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
    /// Any other `pl.Mem.<Name>`, kept verbatim.
    Other(SpaceName),
}

/// The name of a space this crate does not know, interned so that
/// [`MemSpace`] stays `Copy` and 8 bytes wide (a `&'static str` would make
/// it 16, and every allocation statement and tile type holds one).
///
/// It is an index into a process-wide table of the distinct unknown names
/// of a run (few: bounded by the vocabulary of the inputs, each leaked
/// once). Equality is the index's, which is the name's; order and hash are
/// the name's text, so the order of spaces (`Ord`, used for deterministic
/// output) does not depend on which thread met a name first.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SpaceName(u32);

/// The interned names: text to index, and index to text.
#[derive(Default)]
struct Names {
    index: BTreeMap<&'static str, u32>,
    text: Vec<&'static str>,
}

fn names() -> std::sync::MutexGuard<'static, Names> {
    static NAMES: OnceLock<Mutex<Names>> = OnceLock::new();
    NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SpaceName {
    /// The interned copy of `name` (leaked once per distinct name).
    pub fn intern(name: &str) -> SpaceName {
        let mut names = names();
        if let Some(&i) = names.index.get(name) {
            return SpaceName(i);
        }
        let leaked: &'static str = Box::leak(name.into());
        let i = u32::try_from(names.text.len()).expect("fewer than 2^32 distinct space names");
        names.text.push(leaked);
        names.index.insert(leaked, i);
        SpaceName(i)
    }

    /// The name as written after `pl.Mem.`.
    pub fn as_str(self) -> &'static str {
        names().text[self.0 as usize]
    }
}

impl PartialOrd for SpaceName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SpaceName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.0 == other.0 {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for SpaceName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for SpaceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SpaceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl MemSpace {
    /// Every known space, in declaration order.
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
            MemSpace::Other(n) => n.as_str(),
        }
    }

    /// The known space of the PyPTO spelling `s` (`Vec`, `Mat`, ...), if any.
    pub fn from_name(s: &str) -> Option<MemSpace> {
        MemSpace::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The space spelled `s`, whatever it is: a name
    /// [`from_name`](MemSpace::from_name) does not know is kept as
    /// [`MemSpace::Other`] (interned, see [`SpaceName`]).
    pub fn parse(s: &str) -> MemSpace {
        MemSpace::from_name(s).unwrap_or_else(|| MemSpace::Other(SpaceName::intern(s)))
    }

    /// Whether this is one of the spaces of [`MemSpace::ALL`].
    pub fn is_known(self) -> bool {
        !matches!(self, MemSpace::Other(_))
    }

    /// The name PyPTO gives the `n`th allocation in this space: `mem_`, the
    /// lower-cased space name, `_n` (`mem_vec_3`, `mem_leftscale_0`).
    pub fn alloc_name(self, n: impl fmt::Display) -> String {
        format!("mem_{}_{n}", self.name().to_ascii_lowercase())
    }

    /// Whether the space is an on-chip scratchpad the planner addresses:
    /// a known space other than DDR.
    pub fn is_on_chip(self) -> bool {
        self.is_known() && self != MemSpace::Ddr
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_spaces_are_kept_verbatim_and_interned() {
        let a = MemSpace::parse("Scratch");
        let b = MemSpace::parse("Scratch");
        assert_eq!(a, b);
        assert_eq!(a.name(), "Scratch");
        assert!(!a.is_known());
        assert!(!a.is_on_chip());
        assert_eq!(MemSpace::from_name("Scratch"), None);
        assert_eq!(MemSpace::parse("Vec"), MemSpace::Vec);
        assert!(MemSpace::Vec.is_on_chip());
        assert!(!MemSpace::Ddr.is_on_chip());
        // Unknown spaces order after the known ones, and by name.
        assert!(MemSpace::RightScale < a);
        assert!(MemSpace::parse("Alpha") < a);
        // One word: every allocation statement and tile type holds one.
        assert_eq!(std::mem::size_of::<MemSpace>(), 8);
    }

    #[test]
    fn alloc_names_lower_case_the_space() {
        assert_eq!(MemSpace::Vec.alloc_name(3), "mem_vec_3");
        assert_eq!(MemSpace::LeftScale.alloc_name(0), "mem_leftscale_0");
        assert_eq!(MemSpace::parse("Scratch").alloc_name(1), "mem_scratch_1");
    }
}
