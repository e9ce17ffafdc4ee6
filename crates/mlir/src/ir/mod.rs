//! The operation model: a [`Module`] owns dense arenas of operations,
//! values, blocks and regions, addressed by [`OpId`], [`ValueId`],
//! [`BlockId`] and [`RegionId`].
//!
//! Operations are generic (name, operands, results, attributes, regions);
//! [`ops`] documents how the known ops are stored and gives typed access.

mod attr;
pub mod format;
mod ids;
mod location;
mod module;
pub mod ods;
mod src_loc;
#[rustfmt::skip]
mod ods_table;
mod ods_traits;
pub mod ops;
mod types;
pub mod upstream;

pub use attr::{Attribute, NamedAttrs};
pub use ids::{BlockId, OpId, RegionId, ValueId};
pub use location::{Diagnostic, Location, Severity};
pub use module::{
    BlockData, BlockOps, InsertPoint, Module, OpData, OpSpec, Piece, RegionData, Syntax, Use,
    ValueData, ValueDef,
};
pub use ops::{ForParts, Ofr, SliceParts};
pub use src_loc::LocAlias;
pub use types::{
    identity_strides, is_dynamic, FloatKind, FunctionType, Layout, MemRefType, Signedness, Type,
    VectorType, DYNAMIC,
};
