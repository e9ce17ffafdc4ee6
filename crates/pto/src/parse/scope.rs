//! The names visible while reading a function: each name to the variable
//! it refers to now.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::FxBuild;
use crate::ir::{PrimaryMap, VarData, VarId};

/// Name -> latest binding, storing only the [`VarId`]: the name is the
/// variable's own ([`VarData::name`]), so an entry costs 4 bytes instead
/// of a 24-byte `(&str, VarId)` pair (at a million names the table was the
/// largest transient of the reader).
#[derive(Default)]
pub(super) struct Scope {
    table: HashTable<VarId>,
}

fn hash(name: &str) -> u64 {
    FxBuild::default().hash_one(name)
}

impl Scope {
    /// The variable `name` refers to now.
    pub(super) fn get(&self, name: &str, vars: &PrimaryMap<VarId, VarData>) -> Option<VarId> {
        self.table
            .find(hash(name), |&v| vars[v].name == name)
            .copied()
    }

    /// Makes `v` (already in `vars`) what its name refers to from now on.
    pub(super) fn bind(&mut self, v: VarId, vars: &PrimaryMap<VarId, VarData>) {
        let name = &*vars[v].name;
        let entry = self.table.entry(
            hash(name),
            |&w| vars[w].name == name,
            |&w| hash(&vars[w].name),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut o) => *o.get_mut() = v,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(v);
            }
        }
    }

    /// Forgets every name (a new function starts).
    pub(super) fn clear(&mut self) {
        self.table.clear();
    }

    /// Makes room for `n` more names.
    pub(super) fn reserve(&mut self, n: usize, vars: &PrimaryMap<VarId, VarData>) {
        self.table.reserve(n, |&w| hash(&vars[w].name));
    }
}
