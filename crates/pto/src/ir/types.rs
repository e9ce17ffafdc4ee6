//! Types: tensors, tiles, scalars, pointers, tuples, and the MemRef that names
//! a tile's (or tensor's) storage.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::expr::Expr;
use super::var::VarId;

/// Element type, printed `pl.<NAME>` (defined below the expressions,
/// which use it too).
pub use super::dtype::DType;

/// On-chip (or global) memory space, printed `pl.Mem.<Name>`: the SoC
/// crate's, which keeps unknown spaces verbatim.
pub use tilemem_soc::MemSpace;

/// The storage root a MemRef points into.
#[derive(Clone, Debug, PartialEq)]
pub enum MemBase {
    /// An allocation variable of this function (`pl.MemRef(mem_vec_2, ...)`),
    /// normally defined by a `pl.tile.alloc` statement at the top of the body.
    Var(VarId),
    /// A root named by a string (`pl.MemRef("mem_ddr_0", ...)`): used in
    /// signatures and for tensors in global memory, where no alloc statement
    /// exists, and for author-declared roots before InitMemRef.
    Named(Box<str>),
}

/// `pl.MemRef(BASE, OFFSET, SIZE, slots=N)[INDEX]`: where a value lives.
///
/// Every part but the base is optional so that the author-declared forms
/// `pl.MemRef("l0c")` and `pl.MemRef("l0c", slots=2)[k]` are representable.
#[derive(Clone, Debug, PartialEq)]
pub struct MemRef {
    /// Allocation root.
    pub base: MemBase,
    /// Byte offset from the root (after AllocateMemoryAddr: absolute address).
    /// Usually `pl.const(N, pl.INT64)`, see [`Expr::const_i64`]; may be a bare
    /// integer or an index expression for dynamic slices.
    pub offset: Option<Expr>,
    /// Byte size of the view (for slotted MemRefs: of one slot).
    pub size: Option<u64>,
    /// Number of slots (`slots=N`), for multi-buffered declared allocations.
    pub slots: Option<u64>,
    /// Slot selector (`[k]` after the call); may be a runtime expression.
    pub slot_index: Option<Expr>,
}

impl MemRef {
    /// `pl.MemRef(base, pl.const(offset, pl.INT64), size)`, the form PyPTO prints.
    pub fn new(base: MemBase, offset: i64, size: u64) -> MemRef {
        MemRef {
            base,
            offset: Some(Expr::const_i64(offset)),
            size: Some(size),
            slots: None,
            slot_index: None,
        }
    }

    /// The offset when it is a compile-time integer (`pl.const(N, ..)` or `N`).
    pub fn const_offset(&self) -> Option<i64> {
        self.offset.as_ref().and_then(Expr::as_int)
    }

    /// The allocation variable, when the base is one.
    pub fn base_var(&self) -> Option<VarId> {
        match self.base {
            MemBase::Var(v) => Some(v),
            MemBase::Named(_) => None,
        }
    }
}

/// `pl.Tensor[[dims], dtype, MemRef?, extras...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    /// Dimensions (integers or index expressions), shared by the copies of
    /// the type (a MemRef set on one variable copies the rest of the type).
    pub shape: Shared<Vec<Expr>>,
    /// Element type.
    pub dtype: DType,
    /// Storage, once InitMemRef ran.
    pub memref: Option<MemRef>,
    /// Any further arguments (layouts, views), printed before the MemRef
    /// (PyPTO's order for tensors).
    pub extras: Vec<Expr>,
}

/// `pl.Tile[[dims], dtype, MemRef?, pl.Mem.X?, pl.TileView(...)?]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TileType {
    /// Dimensions (integers or index expressions), shared like a tensor's.
    pub shape: Shared<Vec<Expr>>,
    /// Element type.
    pub dtype: DType,
    /// Storage, once InitMemRef ran.
    pub memref: Option<MemRef>,
    /// Memory space.
    pub space: Option<MemSpace>,
    /// Trailing arguments, normally one `pl.TileView(...)`; passes keep them
    /// untouched.
    pub extras: Vec<Expr>,
}

impl TileType {
    /// Product of the dimensions when all are integer constants.
    pub fn static_elems(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |acc, d| {
            let d = u64::try_from(d.as_int()?).ok()?;
            acc.checked_mul(d)
        })
    }

    /// Byte size (elements x element bits / 8, rounded up) when static.
    pub fn static_bytes(&self) -> Option<u64> {
        let bits = u64::from(self.dtype.bits()?);
        Some((self.static_elems()?.checked_mul(bits)?).div_ceil(8))
    }
}

/// A value shared by its copies until one is changed (copy on write).
///
/// Reading goes through `Deref`; changing (`DerefMut`, e.g. `t.memref =
/// Some(m)` on a `&mut Shared<TileType>`) first gives this copy its own
/// value when others share it, so sharing is never observable.
#[derive(Clone, PartialEq)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    /// A new, unshared value.
    pub fn new(v: T) -> Shared<T> {
        Shared(Arc::new(v))
    }
}

impl<T> From<T> for Shared<T> {
    fn from(v: T) -> Shared<T> {
        Shared::new(v)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A type annotation.
///
/// Tensor and tile types are [`Shared`]: the reader gives every variable
/// annotated with the same text one copy (a kernel repeats a few
/// annotations thousands of times), and a variable that is a root
/// (`pl.Ptr`) or a scalar takes a few bytes instead of a whole tile type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `pl.Tensor[...]`.
    Tensor(Shared<TensorType>),
    /// `pl.Tile[...]`.
    Tile(Shared<TileType>),
    /// `pl.Scalar[dtype]`.
    Scalar(DType),
    /// `pl.Ptr` (allocation roots).
    Ptr,
    /// `pl.Tuple[T, ...]`.
    Tuple(Vec<Type>),
    /// Anything else, kept as the expression it was written as.
    Other(Expr),
}

impl Type {
    /// The MemRef of a tile or tensor type.
    pub fn memref(&self) -> Option<&MemRef> {
        match self {
            Type::Tensor(t) => t.memref.as_ref(),
            Type::Tile(t) => t.memref.as_ref(),
            _ => None,
        }
    }

    /// The MemRef slot of a tile or tensor type, for reading or rewriting
    /// (`*ty.memref_mut().unwrap() = Some(new)`). `None` for other types.
    pub fn memref_mut(&mut self) -> Option<&mut Option<MemRef>> {
        match self {
            Type::Tensor(t) => Some(&mut t.memref),
            Type::Tile(t) => Some(&mut t.memref),
            _ => None,
        }
    }

    /// The tile type, if this is one.
    pub fn as_tile(&self) -> Option<&TileType> {
        match self {
            Type::Tile(t) => Some(t),
            _ => None,
        }
    }

    /// The tile type, mutable.
    pub fn as_tile_mut(&mut self) -> Option<&mut TileType> {
        match self {
            Type::Tile(t) => Some(t),
            _ => None,
        }
    }

    /// The tensor type, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }
}
