//! Strings and lists one pointer wide, for parts every item has room
//! for but few use (or few distinct values exist of).

use std::borrow::Borrow;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// An owned string in one pointer (`Box<str>` is two): the trailing
/// comment every statement has room for but few carry, so
/// `Option<ThinStr>` costs a statement 8 bytes instead of 16. Reads as a
/// `&str`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ThinStr(
    // The outer box makes the pointer thin.
    #[allow(clippy::redundant_allocation)] Box<Box<str>>,
);

impl Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> ThinStr {
        ThinStr(Box::new(s.into()))
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> ThinStr {
        ThinStr(Box::new(s.into_boxed_str()))
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

/// Shared text in one pointer (`Arc<str>` is two): a callee name, which
/// every call holds and few distinct ones exist. Clones share the text;
/// equality, order and hash are the text's. Reads as a `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(
    // The inner box holds the text, the Arc makes clones share it.
    #[allow(clippy::redundant_allocation)] Arc<Box<str>>,
);

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        self
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        self
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> SharedStr {
        SharedStr(Arc::new(s.into()))
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

/// An exactly sized list in one pointer, empty without a heap block: the
/// keyword arguments of a call, which most calls lack. Reads as a `&[T]`;
/// build it with `vec![..].into()` or `Default::default()`.
#[derive(Clone, PartialEq)]
pub struct ThinSlice<T>(#[allow(clippy::redundant_allocation)] Option<Box<Box<[T]>>>);

impl<T> ThinSlice<T> {
    /// The items as a `Vec` (to change the list, then convert back).
    pub fn into_vec(self) -> Vec<T> {
        self.0.map_or_else(Vec::new, |b| b.into_vec())
    }
}

impl<T> Default for ThinSlice<T> {
    fn default() -> Self {
        ThinSlice(None)
    }
}

impl<T> Deref for ThinSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], |b| &**b)
    }
}

impl<T> DerefMut for ThinSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_deref_mut().map_or(&mut [], |b| &mut **b)
    }
}

impl<T> From<Vec<T>> for ThinSlice<T> {
    fn from(v: Vec<T>) -> Self {
        if v.is_empty() {
            ThinSlice(None)
        } else {
            ThinSlice(Some(Box::new(v.into_boxed_slice())))
        }
    }
}

impl<T> FromIterator<T> for ThinSlice<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<T>>().into()
    }
}

impl<T: fmt::Debug> fmt::Debug for ThinSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T> IntoIterator for &'a ThinSlice<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_forms_read_like_their_wide_ones_in_one_pointer() {
        assert_eq!(std::mem::size_of::<Option<ThinStr>>(), 8);
        assert_eq!(std::mem::size_of::<SharedStr>(), 8);
        assert_eq!(std::mem::size_of::<ThinSlice<u64>>(), 8);
        let c = ThinStr::from(" note");
        assert_eq!(&*c, " note");
        let a = SharedStr::from("pl.tile.add");
        let b = a.clone();
        assert_eq!(a, b);
        assert_eq!(a.strip_prefix("pl."), Some("tile.add"));
        assert_eq!(format!("{a:?} {a}"), "\"pl.tile.add\" pl.tile.add");
        let empty: ThinSlice<u64> = Vec::new().into();
        assert!(empty.is_empty() && empty.0.is_none());
        let mut two: ThinSlice<u64> = vec![1, 2].into();
        two[1] = 3;
        assert_eq!(&*two, &[1, 3]);
        assert_eq!(two.clone().into_vec(), vec![1, 3]);
        assert_eq!(format!("{two:?}"), "[1, 3]");
    }
}
