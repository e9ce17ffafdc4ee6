//! Buffer aliasing as PlanMemory tracks it (`buffer2AliasVec`): for every
//! value, the values that are the same memory, each with a flag telling
//! whether the aliasing is conditional (a branch argument, an
//! `arith.select` arm).
//!
//! `alias(a, b)` makes every alias of `a` (and `a`) an alias of every alias
//! of `b` (and `b`) and back; a new pair is conditional when the link or
//! either side's link to its endpoint is. Lists keep insertion order: it
//! decides the order of gens and kills.
//!
//! The memory-based pass (`PlanMemory.cpp`) never strengthens the flag of
//! a pair that already exists (its lookup hands back a copy, so the update
//! is lost); the register-based pass (`regbase/PlanMemory.cpp`) does.
//! [`BufferAliases::new`] takes which behaviour to follow.

use std::collections::HashMap;

use crate::ir::ValueId;

/// The alias list of one value.
#[derive(Clone, Debug, Default)]
struct AliasList {
    items: Vec<(ValueId, bool)>,
    index: HashMap<ValueId, usize>,
}

/// The alias relation (see the module docs).
#[derive(Clone, Debug)]
pub struct BufferAliases {
    lists: HashMap<ValueId, AliasList>,
    /// Whether an existing pair's condition flag may become true.
    update_existing: bool,
}

impl BufferAliases {
    /// An empty relation; `update_existing` as the register-based pass.
    pub fn new(update_existing: bool) -> BufferAliases {
        BufferAliases {
            lists: HashMap::new(),
            update_existing,
        }
    }

    /// `FindBufferCondPair`: the flag of the pair `(buffer, alias)`. Like
    /// the reference's `operator[]`, it records `buffer` as a key.
    fn find(&mut self, buffer: ValueId, alias: ValueId) -> Option<bool> {
        let list = self.lists.entry(buffer).or_default();
        list.index.get(&alias).map(|&i| list.items[i].1)
    }

    fn set_or_push(&mut self, buffer: ValueId, alias: ValueId, cond: bool) {
        let update = self.update_existing;
        let list = self.lists.entry(buffer).or_default();
        match list.index.get(&alias) {
            Some(&i) => {
                if update {
                    list.items[i].1 |= cond;
                }
            }
            None => {
                list.index.insert(alias, list.items.len());
                list.items.push((alias, cond));
            }
        }
    }

    /// Whether `v` has ever been a key (`buffer2AliasVec.find(v) != end`).
    pub fn has_key(&self, v: ValueId) -> bool {
        self.lists.contains_key(&v)
    }

    /// `GetAliasBuffers`: the aliases of `v`, in insertion order.
    pub fn aliases(&self, v: ValueId) -> Vec<ValueId> {
        self.lists
            .get(&v)
            .map(|l| l.items.iter().map(|&(a, _)| a).collect())
            .unwrap_or_default()
    }

    /// The aliases of `v` and `v` itself (a `SetVector`: `v` last unless
    /// it is already an alias).
    pub fn with_self(&self, v: ValueId) -> Vec<ValueId> {
        let mut out = self.aliases(v);
        if !out.contains(&v) {
            out.push(v);
        }
        out
    }

    /// The `(alias, conditional)` pairs of `v`.
    pub fn pairs(&self, v: ValueId) -> &[(ValueId, bool)] {
        self.lists.get(&v).map_or(&[], |l| l.items.as_slice())
    }

    /// `UpdateBuffer2AliasVec`: links every member of `buffers` (the aliases
    /// of `buffer` and itself) to every member of `alias_buffers`.
    fn link(
        &mut self,
        buffer: ValueId,
        alias_buffer: ValueId,
        buffers: &[ValueId],
        alias_buffers: &[ValueId],
        has_cond: bool,
    ) {
        for &b in buffers {
            let b_cond = self.find(buffer, b).unwrap_or(false);
            for &a in alias_buffers {
                let a_cond = self.find(alias_buffer, a).unwrap_or(false);
                self.set_or_push(b, a, has_cond || b_cond || a_cond);
            }
        }
    }

    /// `UpdateBufferAlias`'s relation part: `buffer` and `alias` are the
    /// same memory (conditionally when `has_cond`).
    pub fn alias(&mut self, buffer: ValueId, alias: ValueId, has_cond: bool) {
        let buffers = self.with_self(buffer);
        let aliases = self.with_self(alias);
        self.link(buffer, alias, &buffers, &aliases, has_cond);
        self.link(alias, buffer, &aliases, &buffers, has_cond);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> ValueId {
        ValueId(i)
    }

    #[test]
    fn aliasing_is_transitive_and_ordered() {
        let mut a = BufferAliases::new(true);
        a.alias(v(1), v(0), false);
        a.alias(v(2), v(1), false);
        assert_eq!(a.aliases(v(0)), vec![v(1), v(2)]);
        assert_eq!(a.aliases(v(2)), vec![v(0), v(1)]);
        assert_eq!(a.with_self(v(2)), vec![v(0), v(1), v(2)]);
    }

    #[test]
    fn conditions_propagate_and_only_regbase_strengthens_them() {
        for update in [false, true] {
            let mut a = BufferAliases::new(update);
            a.alias(v(1), v(0), false);
            a.alias(v(1), v(0), true);
            // Re-linking members of one class also links each to itself.
            assert_eq!(a.pairs(v(1))[0], (v(0), update), "update={update}");
            assert!(a.aliases(v(1)).contains(&v(1)));
            a.alias(v(2), v(1), true);
            assert!(a.pairs(v(2)).iter().all(|&(_, c)| c));
        }
    }
}
