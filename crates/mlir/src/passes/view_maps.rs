//! How a marked dim maps across a view-like op: up (from the view to its
//! source) and down (from the source to the view), and how a view's result
//! type follows a retyped source.

use crate::ir::{is_dynamic, Layout, MemRefType, Module, OpId, DYNAMIC};

use super::layout::{normalize_info, AlignInfo};
use super::op_table::ViewKind;

/// The source dims a `memref.subview` keeps, in order (dropped dims are
/// static unit sizes that the result rank leaves out, matched greedily from
/// the left like MLIR's rank-reduction mask).
pub fn subview_kept_dims(m: &Module, op: OpId) -> Option<Vec<usize>> {
    let parts = m.slice_parts(op)?;
    let result = m.value_type(m.op(op).result(0)?).as_memref()?;
    let source = m.value_type(parts.source).as_memref()?;
    if parts.sizes.len() != source.rank()
        || parts.offsets.len() != source.rank()
        || parts.strides.len() != source.rank()
    {
        return None;
    }
    let sizes: Vec<i64> = parts
        .sizes
        .iter()
        .map(|o| o.as_static().unwrap_or(DYNAMIC))
        .collect();
    kept_dims(&sizes, &result.shape)
}

/// Greedy rank-reduction matching of subview `sizes` against the result
/// shape.
pub fn kept_dims(sizes: &[i64], result: &[i64]) -> Option<Vec<usize>> {
    let mut kept = Vec::with_capacity(result.len());
    let mut j = 0;
    for (i, &s) in sizes.iter().enumerate() {
        if j < result.len() && (s == result[j] || is_dynamic(s) || is_dynamic(result[j])) {
            kept.push(i);
            j += 1;
            continue;
        }
        if s != 1 {
            return None;
        }
    }
    (j == result.len()).then_some(kept)
}

/// Reassociation groups of a collapse/expand (or inferred for a reshape):
/// each group lists dims of the larger-rank side.
pub fn groups(m: &Module, op: OpId, kind: ViewKind) -> Option<Vec<Vec<usize>>> {
    match kind {
        ViewKind::Collapse | ViewKind::Expand => {
            let src = m.value_type(m.op(op).operand(0)?).as_memref()?;
            let res = m.value_type(m.op(op).result(0)?).as_memref()?;
            let (small, big) = if kind == ViewKind::Collapse {
                (res.rank(), src.rank())
            } else {
                (src.rank(), res.rank())
            };
            let gs: Vec<Vec<usize>> = m
                .reassociation(op)?
                .into_iter()
                .map(|g| g.into_iter().map(|d| d as usize).collect())
                .collect();
            // Malformed reassociations (wrong group count, dims out of
            // range or out of order) carry nothing.
            let flat: Vec<usize> = gs.iter().flatten().copied().collect();
            let ordered = flat.iter().copied().eq(0..big);
            (gs.len() == small && ordered && gs.iter().all(|g| !g.is_empty())).then_some(gs)
        }
        ViewKind::Reshape => {
            let src = m.value_type(m.op(op).operand(0)?).as_memref()?;
            let res = m.value_type(m.op(op).result(0)?).as_memref()?;
            let (small, big) = if src.rank() <= res.rank() {
                (&src.shape, &res.shape)
            } else {
                (&res.shape, &src.shape)
            };
            infer_reassociation(small, big)
        }
        _ => None,
    }
}

/// Groups of `big` dims whose static products give the `small` sizes.
pub fn infer_reassociation(small: &[i64], big: &[i64]) -> Option<Vec<Vec<usize>>> {
    let mut out = Vec::with_capacity(small.len());
    let mut j = 0;
    for (i, &s) in small.iter().enumerate() {
        if is_dynamic(s) {
            return None;
        }
        let mut g = Vec::new();
        let mut prod = 1i64;
        while j < big.len() && (prod != s || g.is_empty()) {
            if is_dynamic(big[j]) {
                return None;
            }
            prod = prod.checked_mul(big[j])?;
            g.push(j);
            j += 1;
        }
        if prod != s {
            return None;
        }
        if i + 1 == small.len() {
            while j < big.len() && big[j] == 1 {
                g.push(j);
                j += 1;
            }
        }
        out.push(g);
    }
    (j == big.len()).then_some(out)
}

fn last_non_unit(shape: &[i64], group: &[usize]) -> Option<usize> {
    group
        .iter()
        .rev()
        .copied()
        .find(|&d| shape.get(d) != Some(&1))
        .or(group.last().copied())
}

/// The memref types of a view's source (operand 0) and result (result 0);
/// `None` when either is missing or not a memref (nothing to map).
fn memref_ends(m: &Module, op: OpId) -> Option<(&MemRefType, &MemRefType)> {
    let d = m.op(op);
    let src = m.value_type(d.operand(0)?).as_memref()?;
    let res = m.value_type(d.result(0)?).as_memref()?;
    Some((src, res))
}

/// Maps an info on a view's result to its source. `Err` carries the
/// reason the view cannot carry the requirement.
pub fn up(m: &Module, op: OpId, kind: ViewKind, info: &AlignInfo) -> Result<AlignInfo, String> {
    let d = m.op(op);
    let Some((src_ty, res_ty)) = memref_ends(m, op) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    match kind {
        ViewKind::Cast | ViewKind::Reinterpret => {
            if src_ty.rank() == res_ty.rank() {
                out = info.clone();
            }
        }
        ViewKind::Subview => {
            let Some(kept) = subview_kept_dims(m, op) else {
                return Ok(Vec::new());
            };
            for &(dim, b) in info {
                if let Some(&s) = kept.get(dim) {
                    out.push((s, b));
                }
            }
        }
        ViewKind::Collapse | ViewKind::Reshape if src_ty.rank() >= res_ty.rank() => {
            let Some(gs) = groups(m, op, kind) else {
                return Ok(Vec::new());
            };
            for &(dim, b) in info {
                if let Some(s) = gs.get(dim).and_then(|g| last_non_unit(&src_ty.shape, g)) {
                    out.push((s, b));
                }
            }
        }
        ViewKind::Expand | ViewKind::Reshape | ViewKind::Collapse => {
            let Some(gs) = groups(m, op, kind) else {
                return Ok(Vec::new());
            };
            for &(dim, b) in info {
                let Some(i) = gs.iter().position(|g| g.last().is_some_and(|&l| l >= dim)) else {
                    continue;
                };
                let g = &gs[i];
                let lnu = g.iter().rev().copied().find(|&x| res_ty.shape[x] != 1);
                match lnu {
                    None => out.push((i, b)),
                    Some(l) if l <= dim => out.push((i, b)),
                    Some(_) => {
                        let start = g[0];
                        let units = (start..=dim).all(|x| res_ty.shape[x] == 1);
                        let earlier = (0..i)
                            .rev()
                            .find(|&k| gs[k].iter().any(|&x| res_ty.shape[x] != 1));
                        match earlier {
                            Some(k) if units && res_ty.has_identity_layout() => out.push((k, b)),
                            _ => {
                                return Err(format!(
                                    "cannot align {dim} axis for the result of {}",
                                    d.name()
                                ))
                            }
                        }
                    }
                }
            }
        }
        ViewKind::ByteView => {
            for &(dim, b) in info {
                let inner =
                    super::layout::static_volume(&res_ty.shape[(dim + 1).min(res_ty.rank())..]);
                let bits = i64::from(res_ty.element_bit_width().unwrap_or(8));
                match inner {
                    Some(v) if (v * bits / 8) % b == 0 => {}
                    _ => {
                        return Err(format!(
                        "Alignment cannot be satisfied for the result of {} (dim {dim}, {b} bytes)",
                        d.name()
                    ))
                    }
                }
            }
        }
    }
    Ok(normalize_info(out))
}

/// Maps an info on a view's source to its result.
pub fn down(m: &Module, op: OpId, kind: ViewKind, info: &AlignInfo) -> AlignInfo {
    let Some((src_ty, res_ty)) = memref_ends(m, op) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match kind {
        ViewKind::Cast | ViewKind::Reinterpret => {
            if src_ty.rank() == res_ty.rank() {
                out = info.clone();
            }
        }
        ViewKind::Subview => {
            let Some(kept) = subview_kept_dims(m, op) else {
                return Vec::new();
            };
            for &(dim, b) in info {
                let n = kept.iter().filter(|&&k| k <= dim).count();
                if n > 0 {
                    out.push((n - 1, b));
                }
            }
        }
        ViewKind::Collapse | ViewKind::Reshape if src_ty.rank() >= res_ty.rank() => {
            let Some(gs) = groups(m, op, kind) else {
                return Vec::new();
            };
            for &(dim, b) in info {
                if let Some(g) = gs.iter().position(|g| g.contains(&dim)) {
                    out.push((g, b));
                }
            }
        }
        ViewKind::Expand | ViewKind::Reshape | ViewKind::Collapse => {
            let Some(gs) = groups(m, op, kind) else {
                return Vec::new();
            };
            for &(dim, b) in info {
                if let Some(r) = gs.get(dim).and_then(|g| last_non_unit(&res_ty.shape, g)) {
                    out.push((r, b));
                }
            }
        }
        ViewKind::ByteView => {}
    }
    normalize_info(out)
}

/// The result type a view op gets when its source becomes `src`; `None`
/// when the view cannot express the new layout (the caller falls back to
/// a dense mirror).
pub fn retyped_result(
    m: &Module,
    op: OpId,
    kind: ViewKind,
    src: &MemRefType,
) -> Option<MemRefType> {
    let old = m.value_type(m.op(op).result(0)?).as_memref()?.clone();
    let (strides, offset) = src.strides_and_offset()?;
    match kind {
        ViewKind::Cast => Some(old.with_layout(Layout::Strided { strides, offset })),
        ViewKind::Reinterpret | ViewKind::ByteView => Some(old),
        ViewKind::Subview => {
            let parts = m.slice_parts(op)?;
            let kept = subview_kept_dims(m, op)?;
            let mut off = offset;
            for (o, &s) in parts.offsets.iter().zip(&strides) {
                off = match (o.as_static(), off) {
                    (Some(o), off) if !is_dynamic(off) && !is_dynamic(s) => off + o * s,
                    (Some(0), off) => off,
                    _ => DYNAMIC,
                };
            }
            let new_strides = kept
                .iter()
                .map(
                    |&k| match (parts.strides.get(k).and_then(|o| o.as_static()), strides[k]) {
                        (Some(step), s) if !is_dynamic(s) => s * step,
                        _ => DYNAMIC,
                    },
                )
                .collect();
            Some(old.with_layout(Layout::Strided {
                strides: new_strides,
                offset: off,
            }))
        }
        ViewKind::Collapse => {
            let gs = groups(m, op, kind)?;
            if strides.len() != src.rank() {
                return None;
            }
            let mut new_strides = Vec::with_capacity(gs.len());
            for g in &gs {
                let non_unit: Vec<usize> =
                    g.iter().copied().filter(|&d| src.shape[d] != 1).collect();
                for w in non_unit.windows(2) {
                    let (a, b) = (w[0], w[1]);
                    let ok = !is_dynamic(strides[a])
                        && !is_dynamic(strides[b])
                        && !is_dynamic(src.shape[b])
                        && strides[a] == strides[b] * src.shape[b];
                    if !ok {
                        return None;
                    }
                }
                let inner = non_unit.last().or(g.last()).copied()?;
                new_strides.push(strides[inner]);
            }
            Some(old.with_layout(Layout::Strided {
                strides: new_strides,
                offset,
            }))
        }
        ViewKind::Expand => {
            let gs = groups(m, op, kind)?;
            if strides.len() != gs.len() {
                return None;
            }
            let mut new_strides = vec![0i64; old.rank()];
            for (i, g) in gs.iter().enumerate() {
                let mut s = strides[i];
                for &d in g.iter().rev() {
                    new_strides[d] = s;
                    s = if is_dynamic(s) || is_dynamic(old.shape[d]) {
                        DYNAMIC
                    } else {
                        s * old.shape[d]
                    };
                }
            }
            Some(old.with_layout(Layout::Strided {
                strides: new_strides,
                offset,
            }))
        }
        ViewKind::Reshape => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_reduction_matching() {
        assert_eq!(kept_dims(&[4, 1, 15], &[4, 15]), Some(vec![0, 2]));
        assert_eq!(kept_dims(&[1, 1, 1], &[1, 1]), Some(vec![0, 1]));
        assert_eq!(kept_dims(&[2, 15, 1], &[2, 15]), Some(vec![0, 1]));
        assert_eq!(kept_dims(&[1, 15], &[15]), Some(vec![1]));
        assert_eq!(kept_dims(&[3, 15], &[15]), None);
    }

    #[test]
    fn reassociation_inference() {
        assert_eq!(
            infer_reassociation(&[6, 15], &[2, 3, 15]),
            Some(vec![vec![0, 1], vec![2]])
        );
        assert_eq!(
            infer_reassociation(&[6, 15], &[6, 15, 1]),
            Some(vec![vec![0], vec![1, 2]])
        );
        assert_eq!(infer_reassociation(&[7], &[2, 3]), None);
    }
}
