//! Shape arithmetic of `EnableAlignAllocation`: the requirement format
//! ([`AlignInfo`]), the per-dim element targets and the padding units of
//! the replacement allocation (`collectAlignUnits`, `calculateAlignedShape`),
//! plus the integer helpers the passes share. MLIR's layout arithmetic
//! (strides, collapsibility, contiguity) is in [`super::strides`].
//!
//! Everything here is pure: it reads shapes (with [`DYNAMIC`] for `?`) and
//! never touches the IR, so the rules can be unit tested one by one.

use crate::ir::{is_dynamic, DYNAMIC};

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

/// Alignment requirements of one value: `(dim, bytes)` pairs sorted by dim
/// with unique dims.
pub type AlignInfo = Vec<(usize, i64)>;

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
