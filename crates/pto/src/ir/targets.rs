//! The variables an assignment defines, without a heap block for the
//! common single target.

use std::fmt;
use std::ops::{Deref, DerefMut};

use super::var::VarId;

/// The targets of [`StmtKind::Assign`](super::StmtKind::Assign): `x` in
/// `x: T = ...`, `a, b` in `a, b = ...`.
///
/// Reads as a `&[VarId]` (it derefs to one); build it with `vec![a].into()`
/// or `a.into()`. One target, the form nearly every statement has, is
/// stored inline; several live in one boxed slice. 16 bytes either way
/// (a `Vec` would cost 24 bytes plus a heap block per statement).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Targets(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    One(VarId),
    // Boxed twice so the rare multi-target form stays one pointer wide.
    #[allow(clippy::redundant_allocation)]
    Many(Box<Box<[VarId]>>),
}

impl Targets {
    /// The targets as a slice.
    pub fn as_slice(&self) -> &[VarId] {
        match &self.0 {
            Repr::One(v) => std::slice::from_ref(v),
            Repr::Many(vs) => vs,
        }
    }

    /// The targets as a mutable slice (retargeting keeps the count).
    pub fn as_mut_slice(&mut self) -> &mut [VarId] {
        match &mut self.0 {
            Repr::One(v) => std::slice::from_mut(v),
            Repr::Many(vs) => vs,
        }
    }
}

impl Deref for Targets {
    type Target = [VarId];
    fn deref(&self) -> &[VarId] {
        self.as_slice()
    }
}

impl DerefMut for Targets {
    fn deref_mut(&mut self) -> &mut [VarId] {
        self.as_mut_slice()
    }
}

impl From<VarId> for Targets {
    fn from(v: VarId) -> Targets {
        Targets(Repr::One(v))
    }
}

impl From<Vec<VarId>> for Targets {
    fn from(vs: Vec<VarId>) -> Targets {
        match vs.as_slice() {
            &[v] => Targets(Repr::One(v)),
            _ => Targets(Repr::Many(Box::new(vs.into_boxed_slice()))),
        }
    }
}

impl PartialEq<Vec<VarId>> for Targets {
    fn eq(&self, other: &Vec<VarId>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl fmt::Debug for Targets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a Targets {
    type Item = &'a VarId;
    type IntoIter = std::slice::Iter<'a, VarId>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl IntoIterator for Targets {
    type Item = VarId;
    type IntoIter = std::vec::IntoIter<VarId>;
    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            Repr::One(v) => vec![v].into_iter(),
            Repr::Many(vs) => vs.into_vec().into_iter(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::EntityRef;

    #[test]
    fn one_target_is_inline_and_several_keep_their_order() {
        let (a, b) = (VarId::new(3), VarId::new(7));
        let one = Targets::from(vec![a]);
        assert_eq!(one.as_slice(), &[a]);
        assert!(matches!(one.0, Repr::One(_)));
        let two = Targets::from(vec![a, b]);
        assert_eq!(&*two, &[a, b]);
        assert_eq!(two, vec![a, b]);
        assert_eq!(two.clone().into_iter().collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(format!("{two:?}"), "[v3, v7]");
        assert!(Targets::from(Vec::new()).is_empty());
        assert_eq!(std::mem::size_of::<Targets>(), 16);
    }
}
