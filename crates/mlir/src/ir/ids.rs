//! Dense entity ids. Every IR entity lives in an arena of the [`Module`]
//! (`crate::ir::Module`) and is named by a `u32` index; relations between
//! entities are kept in side tables instead of pointers, so ids are `Copy`,
//! hashable, ordered, and stay valid while the IR is edited.

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub(crate) u32);

        impl $name {
            /// The arena index of this id.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            pub(crate) fn from_index(index: usize) -> Self {
                $name(u32::try_from(index).expect("arena overflow"))
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// An operation.
    OpId,
    "op"
);
entity!(
    /// An SSA value: an operation result or a block argument.
    ValueId,
    "v"
);
entity!(
    /// A block (a list of operations with arguments) inside a region.
    BlockId,
    "bb"
);
entity!(
    /// A region (a list of blocks) owned by an operation.
    RegionId,
    "region"
);
