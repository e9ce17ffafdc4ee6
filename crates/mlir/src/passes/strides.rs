//! MLIR's strided-layout arithmetic on memref types, as the HIVM op
//! interfaces and the stride passes use it: whether a layout is the
//! identity (`isIdentity`), `memref.collapse_shape`'s result type
//! (`CollapseShapeOp::computeCollapsedType`), strict collapsibility
//! (`isGuaranteedCollapsibleStrictly`), the contiguous and unit axes of a
//! set of types (`getContiguousAxesImpl`, `getUnitAxesMaskImpl`) and
//! `isLastMemrefDimUnitStride`.
//!
//! Pure functions of types; [`DYNAMIC`] stands for `?` and saturates
//! products as MLIR's `SaturatedInteger` does.

use crate::ir::{is_dynamic, Layout, MemRefType, Type, DYNAMIC};

/// `MemRefLayoutAttrInterface::isIdentity`: no layout, or a strided layout
/// whose affine map is the identity (only `strided<[1]>` on rank 1).
pub fn layout_is_identity(t: &MemRefType) -> bool {
    match &t.layout {
        Layout::Identity => true,
        Layout::Strided { strides, offset } => t.rank() == 1 && *strides == [1] && *offset == 0,
        Layout::Map(_) => false,
    }
}

/// `a * b` as MLIR's `SaturatedInteger` multiplies: 0 times anything is
/// 0, otherwise [`DYNAMIC`] is absorbing.
pub fn sat_mul(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    if is_dynamic(a) || is_dynamic(b) {
        DYNAMIC
    } else {
        a.checked_mul(b).unwrap_or(DYNAMIC)
    }
}

/// `computeCollapsedLayoutMap`: the strides and offset of `t` collapsed by
/// `reassociation`; `None` when a group is not contiguous. `strict` does
/// not skip unit dims and rejects dynamic strides.
pub fn collapsed_layout(
    t: &MemRefType,
    reassociation: &[Vec<usize>],
    strict: bool,
) -> Option<(Vec<i64>, i64)> {
    let (strides, offset) = t.strides_and_offset()?;
    let shape = &t.shape;
    let mut result = Vec::with_capacity(reassociation.len());
    for group in reassociation {
        let mut r: &[usize] = group;
        if r.is_empty() || r.iter().any(|&d| d >= shape.len()) {
            return None;
        }
        if !strict {
            while r.len() > 1 && shape[r[r.len() - 1]] == 1 {
                r = &r[..r.len() - 1];
            }
        }
        let last = r[r.len() - 1];
        if !is_dynamic(shape[last]) || r.len() == 1 {
            result.push(strides[last]);
        } else {
            result.push(DYNAMIC);
        }
    }
    for (gi, group) in reassociation.iter().enumerate().rev() {
        let mut stride = result[gi];
        for &idx in group[1..].iter().rev() {
            stride = sat_mul(stride, shape[idx]);
            let src = strides[idx - 1];
            if strict && (is_dynamic(stride) || is_dynamic(src)) {
                return None;
            }
            if !strict && shape[idx - 1] == 1 {
                continue;
            }
            if !is_dynamic(stride) && !is_dynamic(src) && stride != src {
                return None;
            }
        }
    }
    Some((result, offset))
}

/// `isGuaranteedCollapsibleStrictly`: identity layouts always collapse;
/// otherwise every group must be contiguous with static strides.
pub fn collapsible_strictly(t: &MemRefType, reassociation: &[Vec<usize>]) -> bool {
    layout_is_identity(t) || collapsed_layout(t, reassociation, true).is_some()
}

/// `CollapseShapeOp::computeCollapsedType`: the shape is the saturated
/// product of each group; an identity source stays identity, otherwise
/// the layout is computed (non-strict). A group that is not contiguous
/// (which the callers never form) keeps dynamic strides.
pub fn collapse_type(t: &MemRefType, reassociation: &[Vec<usize>]) -> MemRefType {
    let shape: Vec<i64> = reassociation
        .iter()
        .map(|g| {
            g.iter().fold(1i64, |acc, &d| {
                sat_mul(acc, t.shape.get(d).copied().unwrap_or(DYNAMIC))
            })
        })
        .collect();
    if layout_is_identity(t) {
        return MemRefType {
            shape,
            layout: Layout::Identity,
            ..t.clone()
        };
    }
    let layout = match collapsed_layout(t, reassociation, false) {
        Some((strides, offset)) => Layout::Strided { strides, offset },
        None => Layout::Strided {
            strides: vec![DYNAMIC; reassociation.len()],
            offset: DYNAMIC,
        },
    };
    MemRefType {
        shape,
        layout,
        ..t.clone()
    }
}

/// [`collapse_type`] for a memref type; other types are kept.
pub fn collapse_if_memref(t: &Type, reassociation: &[Vec<usize>]) -> Type {
    match t {
        Type::MemRef(m) => Type::MemRef(collapse_type(m, reassociation)),
        other => other.clone(),
    }
}

/// `getContiguousAxesImpl`: per axis of the first memref's rank, whether
/// it is contiguous with the axis before it in every memref with a
/// non-identity strided layout (dynamic strides or sizes are not); axis 0
/// always is. Memrefs without a strided layout (identity or affine map)
/// do not constrain. Empty without memrefs.
pub fn contiguous_axes(types: &[Type]) -> Vec<bool> {
    let mut ret: Vec<bool> = Vec::new();
    for t in types {
        let Type::MemRef(m) = t else { continue };
        let rank = m.rank();
        if ret.is_empty() {
            ret = vec![true; rank];
        }
        let Layout::Strided { strides, .. } = &m.layout else {
            continue;
        };
        if layout_is_identity(m) {
            continue;
        }
        for axis in 1..rank.min(ret.len()) {
            let (s, s_prev, n) = (strides[axis], strides[axis - 1], m.shape[axis]);
            if is_dynamic(s) || is_dynamic(s_prev) || is_dynamic(n) {
                ret[axis] = false;
                continue;
            }
            if s.checked_mul(n) != Some(s_prev) {
                ret[axis] = false;
            }
        }
    }
    if let Some(first) = ret.first_mut() {
        *first = true;
    }
    ret
}

/// `getUnitAxesMaskImpl(types)`: per axis of the first memref's rank,
/// whether every memref has static size 1 there (a memref of smaller rank
/// clears the axes beyond it, as LLVM's `BitVector &=` does). Empty
/// without memrefs.
pub fn unit_axes(types: &[Type]) -> Vec<bool> {
    let mut ret: Vec<bool> = Vec::new();
    let mut first = true;
    for t in types {
        let Type::MemRef(m) = t else { continue };
        if first {
            ret = vec![true; m.rank()];
            first = false;
        }
        for (i, r) in ret.iter_mut().enumerate() {
            *r = *r && m.shape.get(i) == Some(&1);
        }
    }
    ret
}

/// `isLastMemrefDimUnitStride`: the layout has strides and the last one
/// (if any) is 1.
pub fn last_dim_unit_stride(t: &MemRefType) -> bool {
    match t.strides_and_offset() {
        Some((s, _)) => s.last().is_none_or(|&l| l == 1),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(shape: &[i64], strides: &[i64]) -> MemRefType {
        MemRefType::new(shape.to_vec(), Type::Float(crate::ir::FloatKind::F16)).with_layout(
            Layout::Strided {
                strides: strides.to_vec(),
                offset: 0,
            },
        )
    }

    #[test]
    fn collapse_skips_unit_dims_unless_strict() {
        let t = strided(&[4, 1], &[16, 2]);
        let c = collapse_type(&t, &[vec![0, 1]]);
        assert_eq!(c.shape, vec![4]);
        assert_eq!(
            c.layout,
            Layout::Strided {
                strides: vec![16],
                offset: 0
            }
        );
        assert!(!collapsible_strictly(&t, &[vec![0, 1]]));
        let t = strided(&[2, 15], &[15, 1]);
        assert!(collapsible_strictly(&t, &[vec![0, 1]]));
        assert!(!collapsible_strictly(
            &strided(&[2, 15], &[16, 1]),
            &[vec![0, 1]]
        ));
    }

    #[test]
    fn contiguity_ignores_identity_and_dynamic_identity_sizes() {
        let dynamic = Type::MemRef(MemRefType::new(
            vec![DYNAMIC, DYNAMIC],
            Type::Float(crate::ir::FloatKind::F32),
        ));
        assert_eq!(contiguous_axes(&[dynamic]), vec![true, true]);
        let padded = Type::MemRef(strided(&[2, 15], &[16, 1]));
        assert_eq!(contiguous_axes(&[padded]), vec![true, false]);
        assert!(layout_is_identity(&strided(&[8], &[1])));
        assert!(!layout_is_identity(&strided(&[2, 8], &[8, 1])));
    }
}
