//! A string one pointer wide, for rare optional text stored per item.

use std::fmt;
use std::ops::Deref;

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
