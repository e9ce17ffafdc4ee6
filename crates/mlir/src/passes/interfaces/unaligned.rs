//! `getUnAlignSizeInfo` (`ir-impl/IR/HIVMImpl.cpp`): the sizes an op's
//! hardware implementation needs in whole blocks, as `(operand, dim,
//! bytes)` entries (`OperAlignInfo`): the operand's size along `dim`
//! must become a multiple of `bytes`. `hivm-align-alloc-size` asks it of
//! last-dim transposes, narrowing casts to `i8` and sorts.

use crate::ir::{is_dynamic, ValueId};

use super::super::common::{block_bytes, hw_align_bytes, target_of};
use super::super::op_table::spaces;
use super::{IteratorType, Structured};

/// One requirement: `(operand, dim, bytes)`.
pub type UnalignInfo = (ValueId, usize, i64);

/// `VBITSORT_NUM_PER_REPEAT`: elements one bit-sort repeat handles.
const VBITSORT_NUM_PER_REPEAT: i64 = 32;

/// `CEIL_FACTOR(x, f)`: `x` rounded up to a multiple of `f`.
fn ceil_factor(x: i64, f: i64) -> i64 {
    if f <= 0 {
        return x;
    }
    (x + f - 1) / f * f
}

/// `CEIL_FACTOR` on the unsigned 64-bit values the C++ computes with.
fn ceil_factor_u64(x: u64, f: u64) -> u64 {
    if f == 0 {
        return x;
    }
    x.wrapping_add(f - 1) / f * f
}

/// The element width in whole bytes of a shaped value, as the C++ takes
/// it (`getIntOrFloatBitWidth() / 8`): 0 for `i1`, whose sizes are then
/// always whole blocks.
fn elem_bytes(op: &Structured, v: ValueId) -> i64 {
    op.m.value_type(v)
        .element_type()
        .and_then(|t| t.bit_width())
        .map_or(1, |b| i64::from(b / 8))
}

/// The shape of a shaped value (empty otherwise).
fn shape(op: &Structured, v: ValueId) -> Vec<i64> {
    op.m.value_type(v)
        .shape()
        .map(<[_]>::to_vec)
        .unwrap_or_default()
}

/// `getHWAlignBytes(Type)`: a block for a memref in UB or L1; `None`
/// (the rule fails) for any other value. The C++ aborts on another HIVM
/// space ("Unsupported address space") and asserts on a memref without
/// one; tilemem fails the rule on the first and takes the second as UB,
/// as every other stride rule here does.
fn hw_of(op: &Structured, v: ValueId) -> Option<i64> {
    let t = op.memref(v)?;
    match t.address_space() {
        Some(spaces::UB) | Some(spaces::L1) => Some(hw_align_bytes(&target_of(op.m), t)),
        None if t.memory_space.is_none() => Some(hw_align_bytes(&target_of(op.m), t)),
        _ => None,
    }
}

/// `collectOpAlignInfo`: for every operand of the op (extra buffers
/// included) and every dim of `check`, an entry when the size is dynamic
/// or not a multiple of the operand's bytes.
fn collect(
    op: &Structured,
    check: &[usize],
    bytes_of: impl Fn(ValueId) -> i64,
) -> Vec<UnalignInfo> {
    let mut out = Vec::new();
    for &v in op.m.op(op.op).operands() {
        let s = shape(op, v);
        let eb = elem_bytes(op, v);
        let align = bytes_of(v);
        for &d in check {
            let Some(&n) = s.get(d) else { continue };
            if align != 0 && (is_dynamic(n) || (n * eb) % align != 0) {
                out.push((v, d, align));
            }
        }
    }
    out
}

/// `getUnAlignSizeInfo` returned `failure()`: the op's shape is one the
/// rule does not handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported;

/// `getUnAlignSizeInfo(VTransposeOp)`: every operand's transpose loop
/// dims in whole blocks; for 32-bit elements, unless one of those dims is
/// already a multiple of two blocks, exactly two dims are doubled
/// crosswise (the source's second and the destination's first), and more
/// than two transpose dims fail.
pub fn transpose(op: &Structured) -> Result<Vec<UnalignInfo>, Unsupported> {
    let src = *op.named("src").first().ok_or(Unsupported)?;
    let dst = *op.named("dst").first().ok_or(Unsupported)?;
    let hw = hw_of(op, src).ok_or(Unsupported)?;
    let dims: Vec<usize> = op
        .loop_dims(IteratorType::Transpose)
        .into_iter()
        .filter_map(|d| usize::try_from(d).ok())
        .collect();
    let out = collect(op, &dims, |_| hw);
    let eb = elem_bytes(op, src);
    if eb != 4 {
        return Ok(out);
    }
    let s = shape(op, src);
    // The C++ multiplies the size as an unsigned 64-bit number, so a
    // dynamic size (`kDynamic`, i64::MIN) times 4 wraps to 0 bytes: a
    // dynamic transpose dim counts as already doubled.
    let doubled = dims.iter().any(|&d| {
        s.get(d).is_some_and(|&n| {
            let bytes = (n as u64).wrapping_mul(eb as u64);
            ceil_factor_u64(bytes, hw as u64).is_multiple_of(hw as u64 * 2)
        })
    });
    if doubled {
        return Ok(out);
    }
    if dims.len() != 2 {
        return Err(Unsupported);
    }
    Ok(vec![
        (src, dims[0], hw),
        (src, dims[1], hw * 2),
        (dst, dims[0], hw * 2),
        (dst, dims[1], hw),
    ])
}

/// `getUnAlignSizeInfo(VSortOp)`: the last dim of every operand in whole
/// bit-sort repeats (`hw · 32 / elements per block` bytes).
pub fn sort(op: &Structured) -> Result<Vec<UnalignInfo>, Unsupported> {
    let src = *op.named("src").first().ok_or(Unsupported)?;
    let hw = hw_of(op, src).ok_or(Unsupported)?;
    let rank = shape(op, src).len();
    if rank == 0 {
        return Err(Unsupported);
    }
    let block = block_bytes(&target_of(op.m));
    Ok(collect(op, &[rank - 1], |v| {
        let per_block = block.checked_div(elem_bytes(op, v)).unwrap_or(0);
        if per_block == 0 {
            0
        } else {
            hw * (VBITSORT_NUM_PER_REPEAT / per_block)
        }
    }))
}

/// `getUnAlignSizeInfo(VCastOp)` for a narrowing cast to `i8`
/// (`getCastSrcUnAlignSizeInfo`, `getCastDstUnAlignSizeInfo`). With `f`
/// the byte ratio of source to destination elements and `n = f · block /
/// source bytes` (source elements per destination block):
/// - rank 1: the source's dim 0 in blocks of `ceil(size · f, n) · n`
///   bytes when its static size is at most `n`, else of `n · n · f`;
///   the destination's dim 0 in blocks of `block²` bytes;
/// - rank ≥ 2: the source's last dim in whole blocks and its dim before
///   in `n · f` bytes; both of the destination's dims in whole blocks.
pub fn cast(op: &Structured) -> Result<Vec<UnalignInfo>, Unsupported> {
    let src = *op.named("src").first().ok_or(Unsupported)?;
    let dst = *op.named("dst").first().ok_or(Unsupported)?;
    let block = block_bytes(&target_of(op.m));
    let (src_b, dst_b) = (elem_bytes(op, src), elem_bytes(op, dst));
    let factor = src_b.checked_div(dst_b).unwrap_or(0).max(1);
    let s = shape(op, src);
    let rank = s.len();
    let dims: Vec<usize> = match rank {
        0 => return Err(Unsupported),
        1 => vec![0],
        r => vec![r - 2, r - 1],
    };
    let mut out = Vec::new();
    // Source.
    let mut hw = hw_of(op, src).ok_or(Unsupported)?;
    let per_block_dst = block.checked_div(src_b).unwrap_or(0) * factor;
    let unaligned = |n: i64, align: i64| align != 0 && (is_dynamic(n) || (n * src_b) % align != 0);
    if rank == 1 {
        hw = if !is_dynamic(s[0]) && s[0] <= per_block_dst {
            ceil_factor(s[0] * factor, per_block_dst) * per_block_dst
        } else {
            per_block_dst * per_block_dst * factor
        };
        if unaligned(s[0], hw) {
            out.push((src, 0, hw));
        }
    } else {
        if unaligned(s[dims[1]], hw) {
            out.push((src, dims[1], hw));
        }
        let hw0 = per_block_dst * factor;
        if unaligned(s[dims[0]], hw0) {
            out.push((src, dims[0], hw0));
        }
    }
    // Destination.
    let ds = shape(op, dst);
    let mut hw = hw_of(op, dst).ok_or(Unsupported)?;
    if rank == 1 {
        let per_block = block.checked_div(dst_b).unwrap_or(0);
        hw = per_block * per_block;
    }
    for &d in &dims {
        let Some(&n) = ds.get(d) else { continue };
        if hw != 0 && (is_dynamic(n) || (n * dst_b) % hw != 0) {
            out.push((dst, d, hw));
        }
    }
    Ok(out)
}
