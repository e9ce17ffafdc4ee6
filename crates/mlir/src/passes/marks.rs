//! Alignment marks as the C++ reads and writes them: `annotation.mark`
//! ops carrying a pair of `DenseI32ArrayAttr`s (`dims`, `bytes`) under the
//! stride names (`hivm.stride_align_dims`, ..) or the size names
//! (`hivm.alloc_align_dims`, ..); `createAlignMarkOp`, `unionAlignInfo`,
//! `sortAlignInfo`, `getAnnotateOpWithAttr` and `removeMarkOpAttr`.

use crate::ir::{Attribute, Location, Module, OpId, Type, ValueId};

use super::common::after_value;
use super::layout::{lcm, AlignInfo};
use super::op_table::{attrs, MARK_OP};

/// The pair of attribute names a requirement is written under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    /// The dims attribute.
    pub dims: &'static str,
    /// The bytes attribute.
    pub bytes: &'static str,
}

/// `hivm.stride_align_dims` / `hivm.stride_align_value_in_byte`.
pub const STRIDE: Names = Names {
    dims: attrs::DIMS,
    bytes: attrs::BYTES,
};

/// `hivm.alloc_align_dims` / `hivm.alloc_align_value_in_byte`.
pub const ALLOC: Names = Names {
    dims: attrs::ALLOC_DIMS,
    bytes: attrs::ALLOC_BYTES,
};

/// `getAttrOfType<DenseI32ArrayAttr>`: the values of an `array<i32: ..>`
/// attribute.
pub fn dense_i32(a: Option<&Attribute>) -> Option<Vec<i64>> {
    match a? {
        Attribute::DenseArray {
            elem: Type::Integer { width: 32, .. },
            values,
        } => Some(values.clone()),
        _ => None,
    }
}

/// The `(dims, bytes)` arrays of `op` under `names`, each `None` when
/// missing or not an `i32` dense array.
pub fn read(m: &Module, op: OpId, names: Names) -> (Option<Vec<i64>>, Option<Vec<i64>>) {
    (
        dense_i32(m.attr(op, names.dims)),
        dense_i32(m.attr(op, names.bytes)),
    )
}

/// Pairs `(dim, bytes)` of two arrays (`llvm::zip`: the shorter length).
pub fn pairs(dims: &[i64], bytes: &[i64]) -> AlignInfo {
    dims.iter()
        .zip(bytes)
        .filter_map(|(&d, &b)| usize::try_from(d).ok().map(|d| (d, b)))
        .collect()
}

/// Writes `info` as `names` on `op`.
pub fn write(m: &mut Module, op: OpId, names: Names, info: &AlignInfo) {
    m.set_attr(
        op,
        names.dims,
        Attribute::dense_i32(info.iter().map(|&(d, _)| d as i64)),
    );
    m.set_attr(
        op,
        names.bytes,
        Attribute::dense_i32(info.iter().map(|&(_, b)| b)),
    );
}

/// `createAlignMarkOp`: a new mark on `v` right after its definition
/// (first in the block for a block argument), carrying `info` in its
/// order; nothing when `info` is empty. Returns the mark.
pub fn create(
    m: &mut Module,
    v: ValueId,
    info: &AlignInfo,
    names: Names,
    loc: Location,
) -> Option<OpId> {
    if info.is_empty() {
        return None;
    }
    let at = after_value(m, v)?;
    Some(m.build_mark(
        v,
        [
            (
                names.dims.to_string(),
                Attribute::dense_i32(info.iter().map(|&(d, _)| d as i64)),
            ),
            (
                names.bytes.to_string(),
                Attribute::dense_i32(info.iter().map(|&(_, b)| b)),
            ),
        ],
        at,
        loc,
    ))
}

/// `sortAlignInfo`: by dim (stable).
pub fn sort(info: &AlignInfo) -> AlignInfo {
    let mut v = info.clone();
    v.sort_by_key(|e| e.0);
    v
}

/// `unionAlignInfo` of two dim-sorted infos: merged in dim order, equal
/// dims taking the lcm of their bytes.
pub fn union(a: &AlignInfo, b: &AlignInfo) -> AlignInfo {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        if a[i].0 < b[j].0 {
            out.push(a[i]);
            i += 1;
        } else if a[i].0 > b[j].0 {
            out.push(b[j]);
            j += 1;
        } else {
            out.push((a[i].0, lcm(a[i].1, b[j].1)));
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The `annotation.mark` ops on `v` carrying attribute `name`
/// (`getAllAnnotateOpsWithAttr`), oldest first.
pub fn all_with(m: &Module, v: ValueId, name: &str) -> Vec<OpId> {
    let mut out: Vec<OpId> = m
        .uses(v)
        .iter()
        .filter(|u| u.index == 0 && m.op(u.op).is(MARK_OP) && m.op(u.op).has_attr(name))
        .map(|u| u.op)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `getAnnotateOpWithAttr`: the first mark on `v` with attribute `name`
/// in MLIR's use-list order, which puts the newest use first: the most
/// recently created such mark.
pub fn first_with(m: &Module, v: ValueId, name: &str) -> Option<OpId> {
    all_with(m, v, name).last().copied()
}

/// `removeMarkOpAttr` of both names; the mark is erased when no attribute
/// is left and `erase_empty`.
pub fn remove(m: &mut Module, mark: OpId, names: Names, erase_empty: bool) {
    m.remove_attr(mark, names.dims);
    m.remove_attr(mark, names.bytes);
    if erase_empty && m.op(mark).attrs.is_empty() {
        m.erase_op(mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_merges_sorted_infos() {
        assert_eq!(
            union(&vec![(0, 32), (2, 64)], &vec![(1, 32), (2, 96)]),
            vec![(0, 32), (1, 32), (2, 192)]
        );
        assert_eq!(union(&vec![], &vec![(1, 32)]), vec![(1, 32)]);
    }
}
