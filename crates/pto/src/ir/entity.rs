//! Dense ids and the maps keyed by them (the cranelift-entity pattern).
//!
//! An id is a `u32` index into a [`PrimaryMap`] that owns the entities; facts
//! computed by passes live in [`SecondaryMap`]s keyed by the same id, so the
//! program model never needs pointers between its parts.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A dense id: a newtype over a `u32` index.
pub trait EntityRef: Copy + Eq {
    /// Makes the id for index `i`.
    fn new(i: usize) -> Self;
    /// The index of this id.
    fn index(self) -> usize;
}

/// Declares a dense id type `$name` printed as `$prefix<index>`.
macro_rules! entity {
    ($(#[$m:meta])* $name:ident, $prefix:expr) => {
        $(#[$m])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);
        impl $crate::ir::entity::EntityRef for $name {
            fn new(i: usize) -> Self {
                $name(u32::try_from(i).expect("entity index fits in u32"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}
pub(crate) use entity;

/// Owns the entities of one kind; ids are handed out densely by [`push`](Self::push).
#[derive(Clone, PartialEq)]
pub struct PrimaryMap<K: EntityRef, V> {
    elems: Vec<V>,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self {
            elems: Vec::new(),
            _k: PhantomData,
        }
    }
    /// Adds `v` and returns its new id.
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.elems.len());
        self.elems.push(v);
        k
    }
    /// Makes room for `n` more entities.
    pub fn reserve(&mut self, n: usize) {
        self.elems.reserve(n);
    }
    /// Makes room for exactly `n` more entities (no more: for a known last
    /// batch, where doubling would leave the rest unused).
    pub fn reserve_exact(&mut self, n: usize) {
        self.elems.reserve_exact(n);
    }
    /// Drops the entities from id `len` on and gives the memory they took
    /// back (ids below `len` keep their entities).
    pub fn truncate(&mut self, len: usize) {
        if len < self.elems.len() {
            self.elems.truncate(len);
            self.elems.shrink_to_fit();
        }
    }
    /// Number of entities the map holds without growing.
    pub fn capacity(&self) -> usize {
        self.elems.capacity()
    }
    /// Number of entities (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// True when no entity was added.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    /// The entity `k`, if `k` belongs to this map.
    pub fn get(&self, k: K) -> Option<&V> {
        self.elems.get(k.index())
    }
    /// All ids, in creation order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        (0..self.elems.len()).map(K::new)
    }
    /// All `(id, entity)` pairs, in creation order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// All `(id, entity)` pairs, mutable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (K, &mut V)> {
        self.elems
            .iter_mut()
            .enumerate()
            .map(|(i, v)| (K::new(i), v))
    }
    /// All entities, in creation order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.elems.iter()
    }
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.elems[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.elems[k.index()]
    }
}

impl<K: EntityRef + fmt::Debug, V: fmt::Debug> fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A side table: a value for every id, defaulting to `default` for ids never set.
///
/// Indexing never fails: reading an unset id yields the default, writing grows
/// the table. Passes use it to attach facts (liveness, sizes, ...) to
/// variables or statements.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    elems: Vec<V>,
    default: V,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V: Clone + Default> SecondaryMap<K, V> {
    /// An empty table whose unset entries read as `V::default()`.
    pub fn new() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty table whose unset entries read as `default`.
    pub fn with_default(default: V) -> Self {
        Self {
            elems: Vec::new(),
            default,
            _k: PhantomData,
        }
    }
    /// Ids set so far (and the defaulted ones below them), with their values.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
}

impl<K: EntityRef, V: Clone> Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.elems.get(k.index()).unwrap_or(&self.default)
    }
}

impl<K: EntityRef, V: Clone> IndexMut<K> for SecondaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.elems.len() {
            self.elems.resize(i + 1, self.default.clone());
        }
        &mut self.elems[i]
    }
}
