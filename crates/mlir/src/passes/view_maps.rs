//! MLIR's view-op type arithmetic the stride passes rely on: which dims a
//! rank-reducing `memref.subview` drops (`SubViewOp::getDroppedDims`), the
//! result type of a subview of a retyped source
//! (`inferRankReducedResultType`), the reassociation of a `memref.reshape`
//! (`getReassociationIndicesForReshape`), the result of an
//! `expand_shape` (`computeExpandedType`), how a dim maps across dropped
//! dims, and `memref.cast` compatibility (`areCastCompatible`).

use std::collections::BTreeMap;

use crate::ir::{is_dynamic, Layout, MemRefType, Module, Ofr, OpId, DYNAMIC};

use super::strides::{layout_is_identity, sat_mul};

/// `computeMemRefRankReductionMask` (`getDroppedDims`): which source dims
/// a subview of `sizes` from `source` to `result` drops. Unit sizes are
/// candidates; when there are more than the rank difference, a candidate
/// whose stride still appears in the result is kept.
pub fn dropped_dims(source: &MemRefType, result: &MemRefType, sizes: &[Ofr]) -> Option<Vec<bool>> {
    let mut unused = vec![false; source.rank()];
    if source.rank() == result.rank() {
        return Some(unused);
    }
    for (i, s) in sizes.iter().enumerate() {
        if s.as_static() == Some(1) {
            if let Some(u) = unused.get_mut(i) {
                *u = true;
            }
        }
    }
    let count = |u: &[bool]| u.iter().filter(|&&x| x).count();
    if count(&unused) + result.rank() == source.rank() {
        return Some(unused);
    }
    let (orig, _) = source.strides_and_offset()?;
    let (cand, _) = result.strides_and_offset()?;
    let occurrences = |s: &[i64]| {
        let mut map: BTreeMap<i64, usize> = BTreeMap::new();
        for &x in s {
            *map.entry(x).or_default() += 1;
        }
        map
    };
    let mut unaccounted = occurrences(&orig);
    let candidate = occurrences(&cand);
    for (dim, u) in unused.iter_mut().enumerate() {
        if !*u {
            continue;
        }
        let stride = orig[dim];
        let have = unaccounted.get(&stride).copied().unwrap_or(0);
        let want = candidate.get(&stride).copied().unwrap_or(0);
        if have > want {
            *unaccounted.entry(stride).or_default() -= 1;
        } else if have == want {
            *u = false;
        } else {
            return None;
        }
    }
    (count(&unused) + result.rank() == source.rank()).then_some(unused)
}

/// The dropped dims of `memref.subview` op `op`.
pub fn subview_dropped_dims(m: &Module, op: OpId) -> Option<Vec<bool>> {
    let parts = m.slice_parts(op)?;
    let source = m.value_type(parts.source).as_memref()?;
    let result = m.value_type(m.op(op).result(0)?).as_memref()?;
    dropped_dims(source, result, &parts.sizes)
}

/// `getPrevAlignDimBeforeDrop`: the source dim of result dim `post`
/// (`None` past the kept dims).
pub fn prev_dim_before_drop(post: usize, dropped: &[bool]) -> Option<usize> {
    dropped
        .iter()
        .enumerate()
        .filter(|(_, &d)| !d)
        .map(|(i, _)| i)
        .nth(post)
}

/// `getPostAlignDimAfterDrop`: the number of kept dims up to and
/// including source dim `prev`, minus one (`-1` when none).
pub fn post_dim_after_drop(prev: usize, dropped: &[bool]) -> i64 {
    dropped
        .iter()
        .enumerate()
        .filter(|(i, &d)| !d && *i <= prev)
        .count() as i64
        - 1
}

/// `SubViewOp::inferResultType` then rank reduction to `result_shape`
/// (`inferRankReducedResultType`): strides multiplied by the subview's
/// steps, the offset moved by the offsets (dynamic once anything is),
/// always a strided layout; unit dims dropped greedily
/// (`computeRankReductionMask`) until the shape matches.
pub fn infer_rank_reduced_subview_type(
    result_shape: &[i64],
    source: &MemRefType,
    offsets: &[Ofr],
    sizes: &[Ofr],
    steps: &[Ofr],
) -> Option<MemRefType> {
    let (src_strides, src_offset) = source.strides_and_offset()?;
    let mut offset = src_offset;
    for (o, &s) in offsets.iter().zip(&src_strides) {
        let term = sat_mul(o.as_static().unwrap_or(DYNAMIC), s);
        offset = if is_dynamic(offset) || is_dynamic(term) {
            DYNAMIC
        } else {
            offset.checked_add(term).unwrap_or(DYNAMIC)
        };
    }
    let shape: Vec<i64> = sizes
        .iter()
        .map(|s| s.as_static().unwrap_or(DYNAMIC))
        .collect();
    let strides: Vec<i64> = steps
        .iter()
        .zip(&src_strides)
        .map(|(st, &s)| sat_mul(s, st.as_static().unwrap_or(DYNAMIC)))
        .collect();
    let (shape, strides) = if result_shape.len() < shape.len() {
        let unused = rank_reduction_mask(&shape, result_shape)?;
        let keep = |i: usize| !unused.contains(&i);
        (
            shape
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, &s)| s)
                .collect(),
            strides
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, &s)| s)
                .collect(),
        )
    } else {
        (shape, strides)
    };
    Some(MemRefType {
        shape,
        layout: Layout::Strided { strides, offset },
        ..source.clone()
    })
}

/// `computeRankReductionMask` (dynamic sizes match anything but 1).
fn rank_reduction_mask(original: &[i64], reduced: &[i64]) -> Option<Vec<usize>> {
    let mut unused = Vec::new();
    let mut j = 0;
    for (i, &s) in original.iter().enumerate() {
        if j < reduced.len() && s != 1 && (is_dynamic(reduced[j]) || is_dynamic(s)) {
            j += 1;
            continue;
        }
        if j < reduced.len() && s == reduced[j] {
            j += 1;
            continue;
        }
        unused.push(i);
        if s != 1 {
            return None;
        }
    }
    (j == reduced.len()).then_some(unused)
}

/// `getReassociationIndicesForCollapse(source, target)` (source of higher
/// rank): greedy groups of source dims whose product is each target size,
/// trailing unit (or dynamic) dims joining the last group.
pub fn collapse_reassociation(source: &[i64], target: &[i64]) -> Option<Vec<Vec<usize>>> {
    if source.len() <= target.len() {
        return None;
    }
    let mut sd = 0usize;
    let mut map: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut prod = 1i64;
    while sd < source.len() {
        let td = map.len();
        if td == target.len() {
            break;
        }
        let t = target[td];
        while sd < source.len() - 1 && !is_dynamic(source[sd]) && prod * source[sd] < t {
            prod *= source[sd];
            cur.push(sd);
            sd += 1;
        }
        if is_dynamic(source[sd]) && (!is_dynamic(t) || prod != 1) {
            return None;
        }
        if is_dynamic(t) && !is_dynamic(source[sd]) {
            return None;
        }
        if !is_dynamic(t) && prod * source[sd] != t {
            return None;
        }
        cur.push(sd);
        sd += 1;
        map.push(std::mem::take(&mut cur));
        prod = 1;
    }
    if map.len() != target.len() {
        return None;
    }
    while sd < source.len() {
        if !is_dynamic(source[sd]) && source[sd] != 1 {
            return None;
        }
        if let Some(last) = map.last_mut() {
            last.push(sd);
        }
        sd += 1;
    }
    Some(map)
}

/// `getReassociationIndicesForReshape(source, target)`: the collapse
/// groups of the higher-rank side; none for equal ranks.
pub fn reshape_reassociation(source: &MemRefType, target: &MemRefType) -> Option<Vec<Vec<usize>>> {
    use std::cmp::Ordering::*;
    match source.rank().cmp(&target.rank()) {
        Greater => collapse_reassociation(&source.shape, &target.shape),
        Less => collapse_reassociation(&target.shape, &source.shape),
        Equal => None,
    }
}

/// `ExpandShapeOp::computeExpandedType`: an identity source stays
/// identity; otherwise each group's stride is expanded by the sizes to its
/// right within the group.
pub fn expanded_type(
    src: &MemRefType,
    result_shape: &[i64],
    reassociation: &[Vec<usize>],
) -> Option<MemRefType> {
    if layout_is_identity(src) {
        return Some(MemRefType {
            shape: result_shape.to_vec(),
            layout: Layout::Identity,
            ..src.clone()
        });
    }
    let (strides, offset) = src.strides_and_offset()?;
    if strides.len() != reassociation.len() {
        return None;
    }
    let mut reverse = Vec::with_capacity(result_shape.len());
    let mut idx = result_shape.len();
    for (g, &s) in reassociation.iter().zip(&strides).rev() {
        let mut cur = s;
        for _ in 0..g.len() {
            reverse.push(cur);
            idx = idx.checked_sub(1)?;
            cur = sat_mul(cur, result_shape[idx]);
        }
    }
    let mut res: Vec<i64> = reverse.into_iter().rev().collect();
    res.resize(result_shape.len(), 1);
    Some(MemRefType {
        shape: result_shape.to_vec(),
        layout: Layout::Strided {
            strides: res,
            offset,
        },
        ..src.clone()
    })
}

/// `memref::CastOp::areCastCompatible` for ranked memrefs: same element,
/// space and rank; sizes, strides and offsets equal wherever both are
/// static.
pub fn cast_compatible(a: &MemRefType, b: &MemRefType) -> bool {
    let agree = |x: i64, y: i64| x == y || is_dynamic(x) || is_dynamic(y);
    let (Some((sa, oa)), Some((sb, ob))) = (a.strides_and_offset(), b.strides_and_offset()) else {
        return false;
    };
    a.elem == b.elem
        && a.memory_space == b.memory_space
        && a.rank() == b.rank()
        && a.shape.iter().zip(&b.shape).all(|(&x, &y)| agree(x, y))
        && sa.iter().zip(&sb).all(|(&x, &y)| agree(x, y))
        && agree(oa, ob)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_groups() {
        assert_eq!(
            collapse_reassociation(&[2, 3, 15], &[6, 15]),
            Some(vec![vec![0, 1], vec![2]])
        );
        assert_eq!(
            collapse_reassociation(&[6, 15, 1], &[6, 15]),
            Some(vec![vec![0], vec![1, 2]])
        );
        assert_eq!(collapse_reassociation(&[2, 3], &[7]), None);
        assert_eq!(
            collapse_reassociation(&[1, 4, 8], &[4, 8]),
            Some(vec![vec![0, 1], vec![2]])
        );
    }

    #[test]
    fn drop_mapping() {
        let dropped = [false, true, false];
        assert_eq!(prev_dim_before_drop(1, &dropped), Some(2));
        assert_eq!(post_dim_after_drop(2, &dropped), 1);
        assert_eq!(post_dim_after_drop(1, &dropped), 0);
    }
}
