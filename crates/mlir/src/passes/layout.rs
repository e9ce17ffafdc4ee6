//! Layout arithmetic shared by the stride-alignment passes: strides,
//! collapsibility, the "last discontinuous dimension" searches, the
//! "already aligned" tests and the padding units of `EnableAlignAllocation`.
//!
//! Everything here is pure: it reads shapes and strides (with
//! [`DYNAMIC`] for `?`) and never touches the IR, so the rules can be unit
//! tested one by one. The hardware alignment is always an argument: it
//! comes from the chip's [`tilemem_soc::Soc`] (`common::hw_align_bytes`).

use crate::ir::{is_dynamic, MemRefType, DYNAMIC};

/// Shape, strides and element width of a ranked strided memref: the view of a
/// type that the rules need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strided {
    /// Sizes, [`DYNAMIC`] for `?`.
    pub shape: Vec<i64>,
    /// Strides in elements, [`DYNAMIC`] for `?`.
    pub strides: Vec<i64>,
    /// Element width in bits.
    pub bits: i64,
}

impl Strided {
    /// The strided view of a memref type; `None` for affine-map layouts or
    /// element types without a width.
    pub fn of(ty: &MemRefType) -> Option<Strided> {
        let (strides, _) = ty.strides_and_offset()?;
        if strides.len() != ty.shape.len() {
            return None;
        }
        let bits = i64::from(ty.element_bit_width()?);
        Some(Strided {
            shape: ty.shape.clone(),
            strides,
            bits,
        })
    }

    /// Rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Whether dimension `d` has static size 1.
    pub fn is_unit(&self, d: usize) -> bool {
        self.shape.get(d) == Some(&1)
    }

    /// Whether every dimension has static size 1 (rank 0 included).
    pub fn all_ones(&self) -> bool {
        self.shape.iter().all(|&s| s == 1)
    }

    /// The last dimension whose size is not a static 1.
    pub fn last_non_unit(&self) -> Option<usize> {
        (0..self.rank()).rev().find(|&d| !self.is_unit(d))
    }

    /// Whether dims `i` and `i + 1` are strictly collapsible:
    /// `stride[i] == stride[i+1] * shape[i+1]`, all static.
    pub fn collapsible(&self, i: usize) -> bool {
        if i + 1 >= self.rank() {
            return false;
        }
        let (s0, s1, n1) = (self.strides[i], self.strides[i + 1], self.shape[i + 1]);
        !is_dynamic(s0) && !is_dynamic(s1) && !is_dynamic(n1) && s1.checked_mul(n1) == Some(s0)
    }

    /// Groups of consecutive dims that collapse into one (pairwise strict
    /// collapsibility).
    pub fn contiguous_groups(&self) -> Vec<Vec<usize>> {
        groups_where(self.rank(), |i| self.collapsible(i))
    }

    /// Whether the stride of dim `d` is a static multiple of `align_bits`
    /// bits, or the dims `d..` are strictly collapsible and the static
    /// volume of `shape[d+1..]` is such a multiple.
    pub fn stride_aligned(&self, d: usize, align_bits: i64) -> bool {
        if d >= self.rank() || align_bits <= 0 {
            return false;
        }
        let s = self.strides[d];
        if !is_dynamic(s) && (s * self.bits) % align_bits == 0 {
            return true;
        }
        let collapsible = (d..self.rank().saturating_sub(1)).all(|i| self.collapsible(i));
        if !collapsible {
            return false;
        }
        match static_volume(&self.shape[d + 1..]) {
            Some(v) => (v * self.bits) % align_bits == 0,
            None => false,
        }
    }
}

/// Product of static sizes; `None` when any is dynamic.
pub fn static_volume(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |acc, &d| {
        if is_dynamic(d) {
            None
        } else {
            acc.checked_mul(d)
        }
    })
}

/// Splits `0..rank` into runs of consecutive dims; `joined(i)` says whether
/// `i` and `i + 1` belong to the same run.
pub fn groups_where(rank: usize, joined: impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for d in 0..rank {
        match groups.last_mut() {
            Some(g) if joined(d - 1) => g.push(d),
            _ => groups.push(vec![d]),
        }
    }
    groups
}

/// Greatest common divisor.
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Least common multiple (of positive numbers).
pub fn lcm(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    a / gcd(a, b) * b
}

/// Rounds `v` up to a multiple of `unit`.
pub fn align_up(v: i64, unit: i64) -> i64 {
    if unit <= 1 {
        return v;
    }
    (v + unit - 1) / unit * unit
}

/// The last index in `0..rank` where some type has a size other than a
/// static 1; types of other ranks are looked at by their own index.
fn last_non_unit_any(types: &[Strided]) -> Option<usize> {
    types.iter().filter_map(Strided::last_non_unit).max()
}

/// A2/A3 (membase) `getLastDiscontinuousDim` on the op's flattening
/// `groups` (see `adjust::flatten_groups`): if some operand's last stride
/// is not 1 (and its last dim is not unit), the last non-unit dim of any
/// group; a single group: no dim; otherwise the last non-unit dim of the
/// groups before the last one (its row stride is what the hardware walks).
/// Operands of different ranks give no dim.
pub fn last_discontinuous_dim_membase(types: &[Strided], groups: &[Vec<usize>]) -> Option<usize> {
    let rank = types.iter().map(Strided::rank).max()?;
    if rank == 0 || types.iter().any(|t| t.rank() != rank) || groups.is_empty() {
        return None;
    }
    let last_non_unit_before = |end: usize| {
        groups[..end]
            .iter()
            .flatten()
            .rev()
            .copied()
            .find(|&d| types.iter().any(|t| !t.is_unit(d)))
    };
    if types
        .iter()
        .any(|t| t.strides[rank - 1] != 1 && !t.is_unit(rank - 1))
    {
        return last_non_unit_before(groups.len());
    }
    if groups.len() <= 1 {
        return None;
    }
    last_non_unit_before(groups.len() - 1)
}

/// Ascend950-style (regbase) search over the UB operand types; the memrefs
/// are taken as already flattened (identity reassociation). `align_bits`
/// is the UB's hardware alignment.
///
/// 1. Some last stride is not 1: the last non-unit dim.
/// 2. UB DMA (`load`/`store`/`copy`): none if some type has an aligned
///    sub-low dim and no tail jump (see [`ub_dma_row_aligned`]).
/// 3. Rank 1: none; otherwise the last non-unit dim.
pub fn last_discontinuous_dim_regbase(
    types: &[Strided],
    is_ub_dma: bool,
    align_bits: i64,
) -> Option<usize> {
    let rank = types.iter().map(Strided::rank).max()?;
    if rank == 0 {
        return None;
    }
    if types
        .iter()
        .any(|t| t.rank() > 0 && t.strides[t.rank() - 1] != 1)
    {
        return last_non_unit_any(types).or(Some(rank - 1));
    }
    if is_ub_dma && types.iter().any(|t| ub_dma_row_aligned(t, align_bits)) {
        return None;
    }
    if rank == 1 {
        return None;
    }
    last_non_unit_any(types).or(Some(rank - 1))
}

/// The UB DMA exemption: the stride of dim `r-3` is aligned to
/// `align_bits` (or rank ≤ 2), and the last dim has no tail jump
/// (`shape[r-1] == stride[r-2]`) or `stride[r-2]` is aligned (or rank 1).
pub fn ub_dma_row_aligned(t: &Strided, align_bits: i64) -> bool {
    let r = t.rank();
    if r == 0 {
        return false;
    }
    let aligned = |s: i64| !is_dynamic(s) && (s * t.bits) % align_bits == 0;
    let sub_low = r <= 2 || aligned(t.strides[r - 3]);
    let no_tail_jump = r == 1
        || (!is_dynamic(t.shape[r - 1])
            && (t.shape[r - 1] == t.strides[r - 2] || aligned(t.strides[r - 2])));
    sub_low && no_tail_jump
}

/// Alignment requirements of one value: `(dim, bytes)` pairs sorted by dim
/// with unique dims.
pub type AlignInfo = Vec<(usize, i64)>;

/// Sorts by dim and merges duplicate dims by the lcm of their bytes.
pub fn normalize_info(mut info: AlignInfo) -> AlignInfo {
    info.sort();
    let mut out: AlignInfo = Vec::with_capacity(info.len());
    for (d, b) in info {
        match out.last_mut() {
            Some((ld, lb)) if *ld == d => *lb = lcm(*lb, b),
            _ => out.push((d, b)),
        }
    }
    out
}

/// Union of two infos (same dim: lcm of the bytes).
pub fn union_info(a: &AlignInfo, b: &AlignInfo) -> AlignInfo {
    normalize_info(a.iter().chain(b.iter()).copied().collect())
}

/// The entries of `info` that `t`'s layout does not meet yet: drops those
/// out of range, on all-unit prefixes, or whose stride already is a
/// multiple of the entry's own bytes; merges and sorts. (The op-aware
/// `adjustAlignInfo` is `adjust::adjust_align_info`.)
pub fn unmet_info(t: &Strided, info: &AlignInfo) -> AlignInfo {
    let kept = info
        .iter()
        .copied()
        .filter(|&(d, b)| {
            d < t.rank() && !(0..=d).all(|i| t.is_unit(i)) && !t.stride_aligned(d, b * 8)
        })
        .collect();
    normalize_info(kept)
}

/// Whether `extra` adds something to `have` (a new dim, or bytes that are
/// not already implied).
pub fn adds_info(have: &AlignInfo, extra: &AlignInfo) -> bool {
    extra.iter().any(|&(d, b)| {
        !have
            .iter()
            .any(|&(hd, hb)| hd == d && b != 0 && hb % b == 0)
    })
}

/// Per-dim alignment targets in elements from an info (`alignTargets`):
/// `bytes * 8 / bits`, lcm-merged; entries whose byte count the element
/// width already meets are skipped. `Err(bytes)` when the bytes are not a
/// whole number of elements.
pub fn align_targets(rank: usize, bits: i64, info: &AlignInfo) -> Result<Vec<i64>, i64> {
    let mut targets = vec![1i64; rank];
    for &(d, bytes) in info {
        if d >= rank || bytes <= 0 {
            continue;
        }
        let align_bits = bytes * 8;
        if bits % align_bits == 0 {
            continue;
        }
        if align_bits % bits != 0 {
            return Err(bytes);
        }
        targets[d] = lcm(targets[d], align_bits / bits);
    }
    Ok(targets)
}

/// Padding units for `rank + 1` slots (the shape with a unit dim appended).
///
/// Walking dims from the innermost out, `acc` is the static volume below
/// the current dim and `inner` the lcm of what is already guaranteed; a
/// dim whose target is not yet met by `acc` gets a unit `n / inner`.
/// Membase pads slot `d + 1` for a target on `d` (the stride of `d` is the
/// volume right of it); regbase pads `d` itself. Slot 0 is never padded.
pub fn align_units(shape: &[i64], targets: &[i64], regbase: bool) -> Vec<i64> {
    let rank = shape.len();
    let mut units = vec![1i64; rank + 1];
    let mut inner = 1i64;
    let mut acc = 1i64;
    for dim in (0..rank).rev() {
        let (t, u) = if regbase { (dim, dim) } else { (dim, dim + 1) };
        let n = lcm(inner, targets[t]);
        units[u] = if acc % n == 0 { 1 } else { n / inner };
        inner = inner.max(lcm(acc, inner));
        if !is_dynamic(shape[t]) {
            acc = acc.saturating_mul(lcm(shape[t], units[u]).max(1));
        }
    }
    units[0] = 1;
    units
}

/// The shape with a unit dim appended (`subShape`).
pub fn sub_shape(shape: &[i64]) -> Vec<i64> {
    let mut s = shape.to_vec();
    s.push(1);
    s
}

/// Aligned static shape of `sub_shape` under `units` (dynamic sizes stay
/// [`DYNAMIC`]; the caller materializes them).
pub fn aligned_shape(sub: &[i64], units: &[i64]) -> Vec<i64> {
    sub.iter()
        .zip(units)
        .map(|(&s, &u)| {
            if is_dynamic(s) {
                DYNAMIC
            } else {
                align_up(s, u)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UB's hardware alignment in bits on every chip of `tilemem_soc`.
    const UB: i64 = 256;

    /// The membase search with the groups of an op that merges freely.
    fn membase(types: &[Strided]) -> Option<usize> {
        let rank = types.iter().map(Strided::rank).max().unwrap_or(0);
        let groups = groups_where(rank, |i| {
            types.iter().all(|t| t.collapsible(i) || t.is_unit(i))
        });
        last_discontinuous_dim_membase(types, &groups)
    }

    fn t(shape: &[i64], strides: &[i64], bits: i64) -> Strided {
        Strided {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            bits,
        }
    }

    fn contiguous(shape: &[i64], bits: i64) -> Strided {
        t(shape, &crate::ir::identity_strides(shape), bits)
    }

    #[test]
    fn membase_search_uses_flattened_groups() {
        // GM 2x15 with row stride 16, UB contiguous: two groups, dim 0.
        let gm = t(&[2, 15], &[16, 1], 16);
        let ub = contiguous(&[2, 15], 16);
        assert_eq!(membase(&[gm, ub.clone()]), Some(0));
        // Everything contiguous: one group, nothing to align.
        assert_eq!(membase(&[ub.clone(), ub]), None);
        // 37x5x3 with GM strides [150, 30, 1]: groups [[0,1],[2]] -> dim 1.
        let gm = t(&[37, 5, 3], &[150, 30, 1], 32);
        let ub = contiguous(&[37, 5, 3], 32);
        assert_eq!(membase(&[gm, ub]), Some(1));
        // Non-unit last stride: the last non-unit dim.
        let a = t(&[4, 8, 1], &[64, 2, 1], 16);
        let b = t(&[4, 8, 1], &[16, 2, 2], 16);
        assert_eq!(membase(&[a, b]), Some(1));
    }

    #[test]
    fn regbase_search_and_dma_exemption() {
        let ub = contiguous(&[37, 5, 3], 32);
        assert_eq!(
            last_discontinuous_dim_regbase(std::slice::from_ref(&ub), true, UB),
            Some(2)
        );
        assert_eq!(last_discontinuous_dim_regbase(&[ub], false, UB), Some(2));
        // Rank 2 contiguous load: no tail jump -> exempt.
        let ub = contiguous(&[3, 741], 32);
        assert_eq!(
            last_discontinuous_dim_regbase(std::slice::from_ref(&ub), true, UB),
            None
        );
        assert_eq!(last_discontinuous_dim_regbase(&[ub], false, UB), Some(1));
        // Already padded rows: exempt.
        let ub = t(&[37, 5, 3], &[40, 8, 1], 32);
        assert_eq!(last_discontinuous_dim_regbase(&[ub], true, UB), None);
        // Rank 1: never.
        assert_eq!(
            last_discontinuous_dim_regbase(&[contiguous(&[7], 32)], false, UB),
            None
        );
        // Last stride 2: last non-unit dim.
        let ub = t(&[4, 3, 1], &[6, 2, 1], 16);
        assert_eq!(last_discontinuous_dim_regbase(&[ub], true, UB), Some(1));
    }

    #[test]
    fn unmet_drops_aligned_and_unit_prefixes() {
        let one = |t: &Strided, d: usize| unmet_info(t, &vec![(d, 32)]);
        assert_eq!(one(&t(&[2, 15], &[16, 1], 16), 0), vec![]);
        assert_eq!(one(&contiguous(&[2, 15], 16), 0), vec![(0, 32)]);
        assert_eq!(one(&contiguous(&[1, 1, 15], 16), 1), vec![]);
        // Collapsible tail whose volume is aligned.
        assert_eq!(one(&contiguous(&[3, 4, 8], 16), 0), vec![]);
        let info = unmet_info(&contiguous(&[4, 15], 16), &vec![(0, 32), (0, 64), (7, 32)]);
        assert_eq!(info, vec![(0, 64)]);
    }

    #[test]
    fn units_membase_examples() {
        // 2x15xf16 dims=[0] 32B -> 2x16x1.
        let tg = align_targets(2, 16, &vec![(0, 32)]).unwrap();
        let u = align_units(&[2, 15], &tg, false);
        assert_eq!(aligned_shape(&sub_shape(&[2, 15]), &u), vec![2, 16, 1]);
        // dims=[1] -> 2x15x16.
        let tg = align_targets(2, 16, &vec![(1, 32)]).unwrap();
        let u = align_units(&[2, 15], &tg, false);
        assert_eq!(aligned_shape(&sub_shape(&[2, 15]), &u), vec![2, 15, 16]);
        // 256x1x2x3x4xi8 dims=[0] -> 256x4x2x3x4x1.
        let s = [256, 1, 2, 3, 4];
        let tg = align_targets(5, 8, &vec![(0, 32)]).unwrap();
        let u = align_units(&s, &tg, false);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![256, 4, 2, 3, 4, 1]);
        // 15x15x15xf32 dims=[1] -> 15x15x16x1.
        let s = [15, 15, 15];
        let tg = align_targets(3, 32, &vec![(1, 32)]).unwrap();
        let u = align_units(&s, &tg, false);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![15, 15, 16, 1]);
        // 37x5x3xi32 dims=[1] -> 37x5x8x1.
        let s = [37, 5, 3];
        let tg = align_targets(3, 32, &vec![(1, 32)]).unwrap();
        let u = align_units(&s, &tg, false);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![37, 5, 8, 1]);
    }

    #[test]
    fn units_regbase_examples() {
        let s = [37, 5, 3];
        let tg = align_targets(3, 32, &vec![(2, 32)]).unwrap();
        let u = align_units(&s, &tg, true);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![37, 5, 8, 1]);
        let s = [3, 741];
        let tg = align_targets(2, 32, &vec![(1, 32)]).unwrap();
        let u = align_units(&s, &tg, true);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![3, 744, 1]);
        // vsstb: 8x64x16xf16 dims=[1] 130B -> rows of 65.
        let s = [8, 64, 16];
        let tg = align_targets(3, 16, &vec![(1, 130)]).unwrap();
        let u = align_units(&s, &tg, true);
        assert_eq!(aligned_shape(&sub_shape(&s), &u), vec![8, 65, 16, 1]);
        // Dim 0 is never padded.
        let tg = align_targets(2, 32, &vec![(0, 32)]).unwrap();
        assert_eq!(align_units(&[3, 5], &tg, true), vec![1, 1, 1]);
    }

    #[test]
    fn targets_reject_fractional_elements() {
        assert_eq!(align_targets(2, 32, &vec![(0, 6)]), Err(6));
        assert_eq!(align_targets(2, 64, &vec![(0, 4)]).unwrap(), vec![1, 1]);
    }
}
