//! An ordered set that iterates in the order LLVM's `SmallPtrSet<Value, 16>`
//! does while it is small.
//!
//! MLIR's `Liveness` keeps its live-in, live-out, def and use sets in
//! `SmallPtrSet`s, and passes that walk them (PlanMemory's
//! `currentlyLiveValuesOrdered`) see their iteration order. A small
//! `SmallPtrSet` (at most 16 elements) is an array in insertion order whose
//! `erase` moves the last element into the hole and whose `remove_if` does
//! the same as it scans; this type reproduces that. A large one iterates in
//! pointer-hash order, which no other program can reproduce; past 16
//! elements this type keeps the same array discipline, a deterministic
//! order of its own.

use std::collections::HashSet;
use std::hash::Hash;

/// The insertion-ordered set (see the module docs).
#[derive(Clone, Debug)]
pub struct PtrSet<T: Copy + Eq + Hash> {
    order: Vec<T>,
    members: HashSet<T>,
}

impl<T: Copy + Eq + Hash> Default for PtrSet<T> {
    fn default() -> Self {
        PtrSet {
            order: Vec::new(),
            members: HashSet::new(),
        }
    }
}

impl<T: Copy + Eq + Hash> PtrSet<T> {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Whether `v` is a member.
    pub fn contains(&self, v: &T) -> bool {
        self.members.contains(v)
    }

    /// Inserts `v` at the end; false when it was present.
    pub fn insert(&mut self, v: T) -> bool {
        if self.members.insert(v) {
            self.order.push(v);
            true
        } else {
            false
        }
    }

    /// Erases `v` (the last element takes its place); false when absent.
    pub fn erase(&mut self, v: &T) -> bool {
        if !self.members.remove(v) {
            return false;
        }
        let i = self
            .order
            .iter()
            .position(|x| x == v)
            .expect("members and order agree");
        self.order.swap_remove(i);
        true
    }

    /// Removes every element satisfying `pred`, scanning from the front;
    /// a removed element's place is taken by the last one, which is
    /// examined next (`SmallPtrSet::remove_if`).
    pub fn remove_if(&mut self, mut pred: impl FnMut(&T) -> bool) -> bool {
        let mut removed = false;
        let mut i = 0;
        while i < self.order.len() {
            if pred(&self.order[i]) {
                let v = self.order.swap_remove(i);
                self.members.remove(&v);
                removed = true;
            } else {
                i += 1;
            }
        }
        removed
    }

    /// `llvm::set_union(self, other)`: inserts `other`'s elements in its
    /// order; true when something was added.
    pub fn union_with(&mut self, other: &PtrSet<T>) -> bool {
        let mut changed = false;
        for &v in &other.order {
            changed |= self.insert(v);
        }
        changed
    }

    /// `llvm::set_subtract(self, other)`: when `self` is the smaller set it
    /// is scanned with `remove_if`, else `other`'s elements are erased in
    /// `other`'s order.
    pub fn subtract(&mut self, other: &PtrSet<T>) {
        if self.len() < other.len() {
            self.remove_if(|v| other.contains(v));
        } else {
            for v in &other.order {
                self.erase(v);
            }
        }
    }

    /// The elements in iteration order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.order.iter()
    }

    /// The elements in iteration order, as a slice.
    pub fn as_slice(&self) -> &[T] {
        &self.order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erase_moves_the_last_element_into_the_hole() {
        let mut s = PtrSet::new();
        for v in [1, 2, 3, 4] {
            s.insert(v);
        }
        assert!(!s.insert(2));
        s.erase(&2);
        assert_eq!(s.as_slice(), &[1, 4, 3]);
        s.remove_if(|&v| v == 1 || v == 3);
        assert_eq!(s.as_slice(), &[4]);
    }

    #[test]
    fn subtract_scans_the_smaller_side() {
        let mut a = PtrSet::new();
        for v in [1, 2, 3] {
            a.insert(v);
        }
        let mut b = PtrSet::new();
        for v in [9, 1, 8, 7] {
            b.insert(v);
        }
        // |a| < |b|: remove_if over a.
        a.subtract(&b);
        assert_eq!(a.as_slice(), &[3, 2]);
        let mut c = PtrSet::new();
        for v in [5, 6, 7, 8] {
            c.insert(v);
        }
        let mut d = PtrSet::new();
        d.insert(5);
        // |c| >= |d|: erase d's elements in d's order.
        c.subtract(&d);
        assert_eq!(c.as_slice(), &[8, 6, 7]);
    }
}
