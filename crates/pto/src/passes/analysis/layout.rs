//! The `Layout` of addresses one planner decided for a function: a slot per
//! allocation root and the reserved windows (seed 001: "each space has its
//! own address space; tiles start after the reserved windows"). Written by
//! every planner, read by verification and the report.

use rustc_hash::FxHashMap as HashMap;

use super::reserve::Reserve;
use crate::ir::{MemSpace, VarId};

/// One root's place in its space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The root allocation variable.
    pub root: VarId,
    /// Space.
    pub space: MemSpace,
    /// Address of the slot.
    pub base: u64,
    /// Bytes of the slot.
    pub size: u64,
}

/// What a planner decided for one function (used by verification and the
/// report).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Slots, in placement order per space.
    slots: Vec<Slot>,
    /// Index of each root's slot in `slots`.
    index: HashMap<VarId, usize>,
    /// Reserved windows.
    pub reserves: Vec<Reserve>,
}

impl Layout {
    /// An empty layout with the given reserved windows.
    pub fn new(reserves: Vec<Reserve>) -> Layout {
        Layout {
            slots: Vec::new(),
            index: HashMap::default(),
            reserves,
        }
    }

    /// An empty layout with the given reserved windows and room for `n`
    /// slots.
    pub fn with_capacity(reserves: Vec<Reserve>, n: usize) -> Layout {
        Layout {
            slots: Vec::with_capacity(n),
            index: HashMap::with_capacity_and_hasher(n, Default::default()),
            reserves,
        }
    }

    /// Adds the slot of a root (replacing an earlier one of the same root).
    pub fn push(&mut self, slot: Slot) {
        match self.index.get(&slot.root) {
            Some(&i) => self.slots[i] = slot,
            None => {
                self.index.insert(slot.root, self.slots.len());
                self.slots.push(slot);
            }
        }
    }

    /// Every slot, in placement order per space.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The slot of root `v`.
    pub fn slot(&self, v: VarId) -> Option<&Slot> {
        self.index.get(&v).map(|&i| &self.slots[i])
    }
}
