//! The names visible while reading a function: each name to the variable
//! it refers to now.
//!
//! Names are scoped as in PyPTO's IR, not flat as in Python: a loop's
//! induction variable, its loop-carried variables and every name its body
//! defines belong to the loop, and a name an `if` branch defines belongs
//! to the branch (`ForStmt`/`IfStmt` in PyPTO's `ir/stmt.h`: iter_args are
//! "scoped to loop body", and only the return variables, the targets of
//! the final `pl.yield_`, are "accessible after loop"). The memory passes
//! rely on it: a tile's lifetime ends with the body that defines it. So a
//! body opens a [`Scope::open`] frame, and its [`Scope::close`] takes back
//! every binding made inside, restoring what an inner name shadowed.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::FxBuild;
use crate::ir::{PrimaryMap, VarData, VarId};

/// Bindings the recent table holds before they move to the main one: small
/// enough (with its control bytes, about 20 KiB) to stay in cache. 4, 16
/// and 64 Ki entries measure alike at a million names.
const RECENT: usize = 4 * 1024;

/// Name -> latest binding, storing only the [`VarId`]: the name is the
/// variable's own ([`VarData::name`]), so an entry costs 4 bytes instead
/// of a 24-byte `(&str, VarId)` pair (at a million names the table was the
/// largest transient of the reader).
///
/// New bindings go to a small recent table first and move to the main
/// table in batches, in the main table's bucket order. A binding inserted
/// on its own lands in a random bucket of a table far larger than the
/// cache once a function has a few hundred thousand names, two cache
/// misses a name; a batch in bucket order walks the table front to back.
/// Lookups try the recent table first, so the latest binding of a name
/// wins either way.
#[derive(Default)]
pub(super) struct Scope {
    /// Bindings older than the last move.
    table: HashTable<VarId>,
    /// Bindings since the last move, at most [`RECENT`].
    recent: HashTable<VarId>,
    /// Each binding made inside an open frame, with what its name referred
    /// to before (`None`: nothing), in binding order.
    undo: Vec<(VarId, Option<VarId>)>,
    /// Where each open frame's bindings start in `undo`, innermost last.
    frames: Vec<usize>,
}

fn hash(name: &str) -> u64 {
    FxBuild::default().hash_one(name)
}

impl Scope {
    /// The variable `name` refers to now.
    pub(super) fn get(&self, name: &str, vars: &PrimaryMap<VarId, VarData>) -> Option<VarId> {
        let h = hash(name);
        let eq = |&v: &VarId| vars[v].name == name;
        self.recent
            .find(h, eq)
            .or_else(|| self.table.find(h, eq))
            .copied()
    }

    /// Makes `v` (already in `vars`) what its name refers to from now on,
    /// until the innermost open frame closes.
    pub(super) fn bind(&mut self, v: VarId, vars: &PrimaryMap<VarId, VarData>) {
        if !self.frames.is_empty() {
            let before = self.get(&vars[v].name, vars);
            self.undo.push((v, before));
        }
        self.bind_for_good(v, vars);
    }

    /// Makes `v` what its name refers to from now on, in every frame (a
    /// free variable: a name of the module, visible everywhere).
    pub(super) fn bind_for_good(&mut self, v: VarId, vars: &PrimaryMap<VarId, VarData>) {
        if !put(&mut self.recent, hash(&vars[v].name), v, vars) && self.recent.len() >= RECENT {
            self.flush(vars);
        }
    }

    /// Opens a frame: a loop or an `if` branch starts.
    pub(super) fn open(&mut self) {
        self.frames.push(self.undo.len());
    }

    /// Closes the innermost frame: each name bound since its
    /// [`Scope::open`] refers again to what it did before.
    pub(super) fn close(&mut self, vars: &PrimaryMap<VarId, VarData>) {
        let Some(start) = self.frames.pop() else {
            return;
        };
        // Latest first, so a name bound twice in the frame ends at what it
        // was before the first.
        while self.undo.len() > start {
            let Some((v, before)) = self.undo.pop() else {
                break;
            };
            let name = &*vars[v].name;
            let h = hash(name);
            match before {
                // The recent table is read first: it shadows the main one.
                Some(w) => {
                    put(&mut self.recent, h, w, vars);
                }
                None => {
                    for table in [&mut self.recent, &mut self.table] {
                        if let Ok(e) = table.find_entry(h, |&w| vars[w].name == name) {
                            e.remove();
                        }
                    }
                }
            }
        }
    }

    /// Moves the recent bindings to the main table, in its bucket order.
    fn flush(&mut self, vars: &PrimaryMap<VarId, VarData>) {
        let mut batch: Vec<(u64, VarId)> = self
            .recent
            .drain()
            .map(|v| (hash(&vars[v].name), v))
            .collect();
        self.table.reserve(batch.len(), |&w| hash(&vars[w].name));
        // hashbrown places a hash at bucket `hash & (buckets - 1)`.
        let buckets = (self.table.capacity() * 8 / 7 + 1).next_power_of_two() as u64;
        batch.sort_unstable_by_key(|&(h, _)| h & (buckets - 1));
        for (h, v) in batch {
            put(&mut self.table, h, v, vars);
        }
    }

    /// Forgets every name (a new function starts).
    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.recent.clear();
        self.undo.clear();
        self.frames.clear();
    }

    /// Makes room for `n` more names.
    pub(super) fn reserve(&mut self, n: usize, vars: &PrimaryMap<VarId, VarData>) {
        self.recent.reserve(n.min(RECENT), |&w| hash(&vars[w].name));
        if n > RECENT {
            self.table.reserve(n, |&w| hash(&vars[w].name));
        }
    }
}

/// Binds `v`'s name (hash `h`) to `v` in `table`; true when the name was
/// bound there already (the entry is replaced).
fn put(table: &mut HashTable<VarId>, h: u64, v: VarId, vars: &PrimaryMap<VarId, VarData>) -> bool {
    let name = &*vars[v].name;
    match table.entry(h, |&w| vars[w].name == name, |&w| hash(&vars[w].name)) {
        hashbrown::hash_table::Entry::Occupied(mut o) => {
            *o.get_mut() = v;
            true
        }
        hashbrown::hash_table::Entry::Vacant(e) => {
            e.insert(v);
            false
        }
    }
}
