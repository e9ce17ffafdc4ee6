//! Types of the MLIR subset: builtin scalar types, `memref`, `vector`,
//! `tensor`, function types, and dialect types kept as text.
//!
//! Shapes, strides and offsets use MLIR's convention: a dynamic size (`?`)
//! is [`DYNAMIC`] (`i64::MIN`, MLIR's `ShapedType::kDynamic`).

use std::sync::Arc;

use crate::ir::Attribute;

/// The marker of a dynamic size, stride or offset (`?` in the text).
pub const DYNAMIC: i64 = i64::MIN;

/// Whether a shape/stride/offset entry is dynamic.
pub fn is_dynamic(v: i64) -> bool {
    v == DYNAMIC
}

/// Signedness of an integer type: `i32` (signless), `si32`, `ui32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    /// `iN`
    Signless,
    /// `siN`
    Signed,
    /// `uiN`
    Unsigned,
}

/// Builtin floating-point types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `f16`
    F16,
    /// `bf16`
    BF16,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `tf32`
    TF32,
    /// `f8E4M3FN`
    F8E4M3FN,
    /// `f8E5M2`
    F8E5M2,
    /// `f80`
    F80,
    /// `f128`
    F128,
}

impl FloatKind {
    /// All kinds with their keywords, for the reader and printer.
    pub const ALL: [(FloatKind, &'static str); 9] = [
        (FloatKind::F16, "f16"),
        (FloatKind::BF16, "bf16"),
        (FloatKind::F32, "f32"),
        (FloatKind::F64, "f64"),
        (FloatKind::TF32, "tf32"),
        (FloatKind::F8E4M3FN, "f8E4M3FN"),
        (FloatKind::F8E5M2, "f8E5M2"),
        (FloatKind::F80, "f80"),
        (FloatKind::F128, "f128"),
    ];

    /// The keyword of the type (`f16`, ...).
    pub fn keyword(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, s)| *s)
            .unwrap_or("f32")
    }

    /// Storage width in bits.
    pub fn bit_width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 | FloatKind::TF32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F8E4M3FN | FloatKind::F8E5M2 => 8,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
        }
    }
}

/// A type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `index`
    Index,
    /// `i32`, `si8`, `ui16`, ... (`i1` included).
    Integer {
        /// Width in bits.
        width: u32,
        /// Signedness keyword.
        signedness: Signedness,
    },
    /// `f16`, `bf16`, `f32`, ...
    Float(FloatKind),
    /// `none`
    None,
    /// `memref<...>`
    MemRef(MemRefType),
    /// `memref<*xT, space>`
    UnrankedMemRef {
        /// Element type.
        elem: Box<Type>,
        /// Memory space attribute, if any.
        memory_space: Option<Arc<Attribute>>,
    },
    /// `vector<4x[8]xf32>`
    Vector(VectorType),
    /// `tensor<4x?xf32>` (with an optional encoding attribute).
    Tensor {
        /// Sizes, [`DYNAMIC`] for `?`.
        shape: Vec<i64>,
        /// Element type.
        elem: Box<Type>,
        /// Encoding attribute, if any.
        encoding: Option<Box<Attribute>>,
    },
    /// `tensor<*xT>`
    UnrankedTensor(Box<Type>),
    /// `(T, U) -> V`
    Function(FunctionType),
    /// `tuple<...>`
    Tuple(Vec<Type>),
    /// Any other type (dialect types such as `!hivm.xyz<...>`), kept as its
    /// exact text so that it prints back unchanged.
    Opaque(String),
}

/// A `vector<...>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VectorType {
    /// Sizes (vectors are always static).
    pub shape: Vec<i64>,
    /// Per-dimension scalability (`[8]`); same length as `shape`.
    pub scalable: Vec<bool>,
    /// Element type.
    pub elem: Box<Type>,
}

/// A function type `(inputs) -> results`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct FunctionType {
    /// Argument types.
    pub inputs: Vec<Type>,
    /// Result types.
    pub results: Vec<Type>,
}

/// The layout of a memref.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// No layout: the row-major identity layout.
    #[default]
    Identity,
    /// `strided<[s0, s1, ...], offset: o>`; [`DYNAMIC`] entries print as `?`.
    Strided {
        /// One stride per dimension.
        strides: Vec<i64>,
        /// Offset in elements (0 is omitted when printing).
        offset: i64,
    },
    /// Any other layout attribute (an affine map), kept as an attribute.
    Map(Box<Attribute>),
}

/// A ranked `memref<...>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemRefType {
    /// Sizes; [`DYNAMIC`] for `?`.
    pub shape: Vec<i64>,
    /// Element type.
    pub elem: Box<Type>,
    /// Layout.
    pub layout: Layout,
    /// Memory space attribute, e.g. `#hivm.address_space<ub>` (shared:
    /// types are cloned often and the space rarely changes).
    pub memory_space: Option<Arc<Attribute>>,
}

impl Type {
    /// `iN` (signless).
    pub fn int(width: u32) -> Type {
        Type::Integer {
            width,
            signedness: Signedness::Signless,
        }
    }

    /// `i1`.
    pub fn i1() -> Type {
        Type::int(1)
    }

    /// `i32`.
    pub fn i32() -> Type {
        Type::int(32)
    }

    /// `i64`.
    pub fn i64() -> Type {
        Type::int(64)
    }

    /// The memref type, if this is a ranked memref.
    pub fn as_memref(&self) -> Option<&MemRefType> {
        match self {
            Type::MemRef(m) => Some(m),
            _ => None,
        }
    }

    /// Mutable access to the memref type, if this is a ranked memref.
    pub fn as_memref_mut(&mut self) -> Option<&mut MemRefType> {
        match self {
            Type::MemRef(m) => Some(m),
            _ => None,
        }
    }

    /// Whether this is `index`.
    pub fn is_index(&self) -> bool {
        matches!(self, Type::Index)
    }

    /// Whether this is an integer type of any signedness.
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Integer { .. })
    }

    /// Whether this is a floating-point type.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }

    /// Whether this is a memref (ranked or unranked).
    pub fn is_memref_like(&self) -> bool {
        matches!(self, Type::MemRef(_) | Type::UnrankedMemRef { .. })
    }

    /// Width in bits of an integer/float/index scalar (index counts as 64).
    pub fn bit_width(&self) -> Option<u32> {
        match self {
            Type::Integer { width, .. } => Some(*width),
            Type::Float(k) => Some(k.bit_width()),
            Type::Index => Some(64),
            _ => None,
        }
    }

    /// Element type of a shaped type (memref, vector, tensor).
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::MemRef(m) => Some(&m.elem),
            Type::UnrankedMemRef { elem, .. } => Some(elem),
            Type::Vector(v) => Some(&v.elem),
            Type::Tensor { elem, .. } => Some(elem),
            Type::UnrankedTensor(e) => Some(e),
            _ => None,
        }
    }

    /// Shape of a ranked shaped type.
    pub fn shape(&self) -> Option<&[i64]> {
        match self {
            Type::MemRef(m) => Some(&m.shape),
            Type::Vector(v) => Some(&v.shape),
            Type::Tensor { shape, .. } => Some(shape),
            _ => None,
        }
    }
}

impl MemRefType {
    /// A memref with identity layout and no memory space.
    pub fn new(shape: Vec<i64>, elem: Type) -> MemRefType {
        MemRefType {
            shape,
            elem: Box::new(elem),
            layout: Layout::Identity,
            memory_space: None,
        }
    }

    /// Rank (number of dimensions).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Whether all sizes are static.
    pub fn has_static_shape(&self) -> bool {
        self.shape.iter().all(|&d| !is_dynamic(d))
    }

    /// Number of elements when the shape is static.
    pub fn num_elements(&self) -> Option<i64> {
        self.shape.iter().try_fold(1i64, |acc, &d| {
            if is_dynamic(d) {
                None
            } else {
                acc.checked_mul(d)
            }
        })
    }

    /// Element width in bits (`index` counts as 64).
    pub fn element_bit_width(&self) -> Option<u32> {
        self.elem.bit_width()
    }

    /// Whether the layout is the identity (no layout, or a strided layout
    /// equal to the row-major strides with offset 0).
    pub fn has_identity_layout(&self) -> bool {
        match &self.layout {
            Layout::Identity => true,
            Layout::Strided { strides, offset } => {
                *offset == 0 && *strides == identity_strides(&self.shape)
            }
            Layout::Map(_) => false,
        }
    }

    /// Strides and offset of the layout, like MLIR's
    /// `getStridesAndOffset`: identity layouts give the row-major strides
    /// (dynamic once an inner size is dynamic) and offset 0; an affine-map
    /// layout gives the coefficients of its single linear result
    /// (`affine_map_strides`), `None` when it is not linear.
    pub fn strides_and_offset(&self) -> Option<(Vec<i64>, i64)> {
        match &self.layout {
            Layout::Identity => Some((identity_strides(&self.shape), 0)),
            Layout::Strided { strides, offset } => Some((strides.clone(), *offset)),
            Layout::Map(a) => match a.as_ref() {
                Attribute::Opaque(text) => affine_map_strides(text, self.rank()),
                _ => None,
            },
        }
    }

    /// The memory space attribute.
    pub fn memory_space(&self) -> Option<&Attribute> {
        self.memory_space.as_deref()
    }

    /// The HIVM address space keyword (`ub`, `gm`, `cbuf`, `cc`, ...) when
    /// the memory space is `#hivm.address_space<...>`.
    pub fn address_space(&self) -> Option<&str> {
        self.memory_space()?
            .dialect_params("hivm", "address_space")
            .map(str::trim)
    }

    /// A copy with another shape (layout and space kept).
    pub fn with_shape(&self, shape: Vec<i64>) -> MemRefType {
        MemRefType {
            shape,
            ..self.clone()
        }
    }

    /// A copy with another layout.
    pub fn with_layout(&self, layout: Layout) -> MemRefType {
        MemRefType {
            layout,
            ..self.clone()
        }
    }
}

/// Row-major strides of a shape: `strides[i] = shape[i+1] * ... *
/// shape[r-1]`, [`DYNAMIC`] once a size to the right is dynamic.
pub fn identity_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    let mut acc: i64 = 1;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        if acc != DYNAMIC {
            acc = if is_dynamic(shape[i]) {
                DYNAMIC
            } else {
                acc.checked_mul(shape[i]).unwrap_or(DYNAMIC)
            };
        }
    }
    strides
}

impl From<MemRefType> for Type {
    fn from(m: MemRefType) -> Type {
        Type::MemRef(m)
    }
}

/// `getStridesAndOffset` of an affine-map layout `affine_map<(d0, ..)[s0,
/// ..] -> (e)>` of `rank` dims: with `e` a sum of terms (a constant, a
/// dim or a symbol, each optionally multiplied by constants), the stride
/// of `dI` is its coefficient (0 when absent, dynamic when multiplied by a
/// symbol) and the offset the constant part (dynamic with a symbol).
/// `None` for several results, `mod`, divisions, parentheses or a product
/// of dims, which MLIR's linear-expression analysis also refuses.
pub fn affine_map_strides(text: &str, rank: usize) -> Option<(Vec<i64>, i64)> {
    let body = text.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (domain, result) = body.split_once("->")?;
    let dims_end = domain.find(')')?;
    let dims: Vec<&str> = domain[..dims_end]
        .trim()
        .trim_start_matches('(')
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let symbols: Vec<&str> = match domain[dims_end + 1..].trim() {
        "" => Vec::new(),
        s => s
            .strip_prefix('[')?
            .strip_suffix(']')?
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect(),
    };
    if dims.len() != rank {
        return None;
    }
    let expr = result.trim().strip_prefix('(')?.strip_suffix(')')?;
    if expr.contains(['(', ')', ',']) || expr.contains("mod") || expr.contains("div") {
        return None;
    }
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // Split into signed terms at top-level `+` / `-`.
    let mut terms: Vec<(i64, String)> = Vec::new();
    let mut sign = 1i64;
    let mut cur = String::new();
    for ch in expr.chars() {
        match ch {
            '+' | '-' => {
                if !cur.trim().is_empty() {
                    terms.push((sign, std::mem::take(&mut cur)));
                    sign = 1;
                } else {
                    cur.clear();
                }
                if ch == '-' {
                    sign = -sign;
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        terms.push((sign, cur));
    }
    for (sign, term) in terms {
        let mut coeff = sign;
        let mut dim: Option<usize> = None;
        let mut symbolic = false;
        for factor in term.split('*').map(str::trim) {
            if let Some(i) = dims.iter().position(|&d| d == factor) {
                if dim.replace(i).is_some() {
                    return None;
                }
            } else if symbols.contains(&factor) {
                symbolic = true;
            } else {
                coeff = coeff.checked_mul(factor.parse::<i64>().ok()?)?;
            }
        }
        match dim {
            Some(i) if symbolic => strides[i] = DYNAMIC,
            Some(i) if !is_dynamic(strides[i]) => strides[i] = strides[i].checked_add(coeff)?,
            Some(_) => {}
            None if symbolic => offset = DYNAMIC,
            None if !is_dynamic(offset) => offset = offset.checked_add(coeff)?,
            None => {}
        }
    }
    Some((strides, offset))
}

#[cfg(test)]
mod affine_layout_tests {
    use super::*;

    #[test]
    fn linear_affine_maps_have_strides() {
        assert_eq!(
            affine_map_strides("affine_map<(d0)[s0] -> (d0 + s0)>", 1),
            Some((vec![1], DYNAMIC))
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0, d1) -> (d0 * 15 + d1 + 3)>", 2),
            Some((vec![15, 1], 3))
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0, d1)[s0] -> (d0 * s0 + d1 - 2)>", 2),
            Some((vec![DYNAMIC, 1], -2))
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0, d1) -> (d1)>", 2),
            Some((vec![0, 1], 0))
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0, d1) -> (d0, d1)>", 2),
            None
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0) -> (d0 mod 4)>", 1),
            None
        );
        assert_eq!(
            affine_map_strides("affine_map<(d0, d1) -> (d0 * d1)>", 2),
            None
        );
    }
}
