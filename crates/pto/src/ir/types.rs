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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemBase {
    /// An allocation variable of this function (`pl.MemRef(mem_vec_2, ...)`),
    /// normally defined by a `pl.tile.alloc` statement at the top of the body.
    Var(VarId),
    /// A root named by a string (`pl.MemRef("mem_ddr_0", ...)`): used in
    /// signatures and for tensors in global memory, where no alloc statement
    /// exists, and for author-declared roots before InitMemRef. Shared text:
    /// the copies of a tensor's MemRef share one name.
    Named(Arc<str>),
}

/// The parts of a [`MemRef`], every one spelled out: what a pass builds a
/// MemRef from (`MemRefParts { size, ..m.parts() }.into()`) and what
/// [`MemRef::parts`] hands back.
///
/// Every part but the base is optional so that the author-declared forms
/// `pl.MemRef("l0c")` and `pl.MemRef("l0c", slots=2)[k]` are representable.
#[derive(Clone, Debug, PartialEq)]
pub struct MemRefParts {
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

impl From<MemRefParts> for MemRef {
    fn from(p: MemRefParts) -> MemRef {
        MemRef::from_parts(p)
    }
}

/// `pl.MemRef(BASE, OFFSET, SIZE, slots=N)[INDEX]`: where a value lives.
///
/// Every tile of a planned kernel has one, so the common form
/// `pl.MemRef(VAR, pl.const(N, pl.INT64), SIZE)` (an allocation variable,
/// a constant offset and a size that fit 32 bits) is held in 16 bytes
/// without a heap part; any other form keeps its [`MemRefParts`] boxed.
/// Read it through the accessors ([`base`](Self::base),
/// [`offset`](Self::offset), [`size`](Self::size), ...); build one with
/// [`MemRef::new`] or from [`MemRefParts`]. Two MemRefs are equal when
/// their parts are.
#[derive(Clone, PartialEq)]
pub struct MemRef(Repr);

/// The two forms of a MemRef; `Plain` whenever the parts allow it, so
/// that the derived equality compares parts.
#[derive(Clone, PartialEq)]
enum Repr {
    /// `pl.MemRef(var, pl.const(offset, pl.INT64), size)`.
    Plain { var: VarId, offset: i32, size: u32 },
    /// Any other form.
    Full(Box<MemRefParts>),
}

impl MemRef {
    /// `pl.MemRef(base, pl.const(offset, pl.INT64), size)`, the form PyPTO prints.
    pub fn new(base: MemBase, offset: i64, size: u64) -> MemRef {
        if let (MemBase::Var(var), Ok(offset), Ok(size)) =
            (&base, i32::try_from(offset), u32::try_from(size))
        {
            return MemRef(Repr::Plain {
                var: *var,
                offset,
                size,
            });
        }
        MemRef(Repr::Full(Box::new(MemRefParts {
            base,
            offset: Some(Expr::const_i64(offset)),
            size: Some(size),
            slots: None,
            slot_index: None,
        })))
    }

    /// The MemRef with these parts.
    pub fn from_parts(p: MemRefParts) -> MemRef {
        match (&p.base, &p.offset, p.size, &p.slots, &p.slot_index) {
            (MemBase::Var(_), Some(Expr::Const(n, DType::Int64)), Some(size), None, None) => {
                MemRef::new(p.base, *n, size)
            }
            _ => MemRef(Repr::Full(Box::new(p))),
        }
    }

    /// All parts, spelled out (a copy).
    pub fn parts(&self) -> MemRefParts {
        self.clone().into_parts()
    }

    /// All parts, spelled out.
    pub fn into_parts(self) -> MemRefParts {
        match self.0 {
            Repr::Plain { var, offset, size } => MemRefParts {
                base: MemBase::Var(var),
                offset: Some(Expr::const_i64(i64::from(offset))),
                size: Some(u64::from(size)),
                slots: None,
                slot_index: None,
            },
            Repr::Full(p) => *p,
        }
    }

    /// The allocation root.
    pub fn base(&self) -> MemBase {
        match &self.0 {
            Repr::Plain { var, .. } => MemBase::Var(*var),
            Repr::Full(p) => p.base.clone(),
        }
    }

    /// The allocation variable, when the base is one.
    pub fn base_var(&self) -> Option<VarId> {
        match &self.0 {
            Repr::Plain { var, .. } => Some(*var),
            Repr::Full(p) => match p.base {
                MemBase::Var(v) => Some(v),
                MemBase::Named(_) => None,
            },
        }
    }

    /// The root's name, when the base is a string.
    pub fn base_name(&self) -> Option<&str> {
        match &self.0 {
            Repr::Full(p) => match &p.base {
                MemBase::Named(n) => Some(n),
                MemBase::Var(_) => None,
            },
            Repr::Plain { .. } => None,
        }
    }

    /// Whether both have the same root.
    pub fn same_base(&self, other: &MemRef) -> bool {
        match (&self.0, &other.0) {
            (Repr::Plain { var: a, .. }, Repr::Plain { var: b, .. }) => a == b,
            (Repr::Full(a), Repr::Full(b)) => a.base == b.base,
            (Repr::Plain { var, .. }, Repr::Full(p)) | (Repr::Full(p), Repr::Plain { var, .. }) => {
                p.base == MemBase::Var(*var)
            }
        }
    }

    /// The byte offset as written (`pl.const(N, pl.INT64)` for the
    /// common form), `None` when absent.
    pub fn offset(&self) -> Option<Expr> {
        match &self.0 {
            Repr::Plain { offset, .. } => Some(Expr::const_i64(i64::from(*offset))),
            Repr::Full(p) => p.offset.clone(),
        }
    }

    /// The offset when it is a compile-time integer (`pl.const(N, ..)` or `N`).
    pub fn const_offset(&self) -> Option<i64> {
        match &self.0 {
            Repr::Plain { offset, .. } => Some(i64::from(*offset)),
            Repr::Full(p) => p.offset.as_ref().and_then(Expr::as_int),
        }
    }

    /// Byte size of the view (for slotted MemRefs: of one slot).
    pub fn size(&self) -> Option<u64> {
        match &self.0 {
            Repr::Plain { size, .. } => Some(u64::from(*size)),
            Repr::Full(p) => p.size,
        }
    }

    /// Number of slots (`slots=N`).
    pub fn slots(&self) -> Option<u64> {
        match &self.0 {
            Repr::Plain { .. } => None,
            Repr::Full(p) => p.slots,
        }
    }

    /// Slot selector (`[k]` after the call).
    pub fn slot_index(&self) -> Option<&Expr> {
        match &self.0 {
            Repr::Plain { .. } => None,
            Repr::Full(p) => p.slot_index.as_ref(),
        }
    }

    /// Replaces the offset.
    pub fn set_offset(&mut self, offset: Option<Expr>) {
        let mut p = self.parts();
        p.offset = offset;
        *self = p.into();
    }
}

impl fmt::Debug for MemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.parts();
        f.debug_struct("MemRef")
            .field("base", &p.base)
            .field("offset", &p.offset)
            .field("size", &p.size)
            .field("slots", &p.slots)
            .field("slot_index", &p.slot_index)
            .finish()
    }
}

/// `pl.Tensor[[dims], dtype, extras..., MemRef?]` without the MemRef,
/// which [`Type::Tensor`] holds beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    /// Dimensions (integers or index expressions), shared by the copies of
    /// the type.
    pub shape: Shared<Vec<Expr>>,
    /// Element type.
    pub dtype: DType,
    /// Any further arguments (layouts, views), printed before the MemRef
    /// (PyPTO's order for tensors).
    pub extras: Vec<Expr>,
}

/// `pl.Tile[[dims], dtype, MemRef?, pl.Mem.X?, pl.TileView(...)?]` without
/// the MemRef, which [`Type::Tile`] holds beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct TileType {
    /// Dimensions (integers or index expressions), shared like a tensor's.
    pub shape: Shared<Vec<Expr>>,
    /// Element type.
    pub dtype: DType,
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

    /// Byte size (elements x element bits / 8, rounded up) when static:
    /// the bytes a view window of this shape spans.
    pub fn static_bytes(&self) -> Option<u64> {
        let bits = u64::from(self.dtype.bits()?);
        Some((self.static_elems()?.checked_mul(bits)?).div_ceil(8))
    }

    /// The bytes a tile of this type takes on `soc` when static: its
    /// elements times the element width, with the rows of an Acc (L0C)
    /// tile padded to the target's fractal height. The one function every
    /// pass and report sizes a tile's storage with.
    pub fn storage_bytes(&self, soc: &tilemem_soc::Soc) -> Option<u64> {
        let dims: Vec<u64> = self
            .shape
            .iter()
            .map(|d| d.as_int().and_then(|n| u64::try_from(n).ok()))
            .collect::<Option<_>>()?;
        let mut count: u64 = 1;
        for (i, &d) in dims.iter().enumerate() {
            let d = if self.space == Some(tilemem_soc::MemSpace::Acc) && dims.len() >= 2 && i == 0 {
                let is_int = matches!(self.dtype, super::DType::Int32 | super::DType::Uint32);
                let m = soc.acc_row_multiple(self.dtype.bits().unwrap_or(0), is_int);
                d.div_ceil(m) * m
            } else {
                d
            };
            count = count.checked_mul(d)?;
        }
        Some(
            count
                .checked_mul(u64::from(self.dtype.bits()?))?
                .div_ceil(8),
        )
    }
}

/// A value shared by its copies until one is changed (copy on write).
///
/// Reading goes through `Deref`; changing (`DerefMut`, e.g. `t.space =
/// Some(s)` on a `&mut Shared<TileType>`) first gives this copy its own
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
/// The MemRef of a tensor or tile lives beside its shared part, so giving
/// each of a thousand tiles of one annotation its own storage copies
/// nothing but the MemRef.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `pl.Tensor[...]` and its storage, once InitMemRef ran. The storage
    /// slot is boxed: tensors are few, their MemRefs name a global root
    /// (never the 16-byte inline form), and inline it would make every
    /// type, and so every variable, 8 bytes wider. Build it with
    /// `Box::new(memref)`.
    Tensor(Shared<TensorType>, Box<Option<MemRef>>),
    /// `pl.Tile[...]` and its storage, once InitMemRef ran.
    Tile(Shared<TileType>, Option<MemRef>),
    /// `pl.Scalar[dtype]`.
    Scalar(DType),
    /// `pl.Ptr` (allocation roots).
    Ptr,
    /// `pl.Tuple[T, ...]` (exactly sized: a `Vec` would make every
    /// type, and so every variable, 8 bytes wider).
    Tuple(Box<[Type]>),
    /// Anything else, kept as the expression it was written as (boxed:
    /// rare, and inline it would make every type 8 bytes wider).
    Other(Box<Expr>),
}

impl Type {
    /// The MemRef of a tile or tensor type.
    pub fn memref(&self) -> Option<&MemRef> {
        match self {
            Type::Tensor(_, m) => m.as_ref().as_ref(),
            Type::Tile(_, m) => m.as_ref(),
            _ => None,
        }
    }

    /// The MemRef slot of a tile or tensor type, for reading or rewriting
    /// (`*ty.memref_mut().unwrap() = Some(new)`). `None` for other types.
    pub fn memref_mut(&mut self) -> Option<&mut Option<MemRef>> {
        match self {
            Type::Tensor(_, m) => Some(m),
            Type::Tile(_, m) => Some(m),
            _ => None,
        }
    }

    /// The tile type, if this is one.
    pub fn as_tile(&self) -> Option<&TileType> {
        match self {
            Type::Tile(t, _) => Some(t),
            _ => None,
        }
    }

    /// The tile type, mutable.
    pub fn as_tile_mut(&mut self) -> Option<&mut TileType> {
        match self {
            Type::Tile(t, _) => Some(t),
            _ => None,
        }
    }

    /// The tensor type, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t, _) => Some(t),
            _ => None,
        }
    }
}
