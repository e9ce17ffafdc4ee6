//! `ImplByScalarOpInterface::shouldLowerToScalarLoops`
//! (`ir-impl/IR/ImplByScalarOpInterface/ShouldLowerToScalarLoops.cpp`):
//! whether an op will be decomposed into scalar loops on the target, in
//! which case no stride alignment is needed for it.

use crate::ir::{Attribute, Type};

use super::flatten::{get_flattened, FlattenOptions};
use super::Structured;

/// Whether `t` (an element type) is an integer of `width` bits.
fn is_int(t: Option<&Type>, width: u32) -> bool {
    matches!(t, Some(Type::Integer { width: w, .. }) if *w == width)
}

/// The element type of operand 0 (`getOperandTypes()[0]`).
fn elem0<'a>(op: &Structured<'a>) -> Option<&'a Type> {
    let v = *op.m.op(op.op).operands().first()?;
    let t = op.m.value_type(v);
    Some(t.element_type().unwrap_or(t))
}

/// The element type of `dst`.
fn dst_elem<'a>(op: &Structured<'a>) -> Option<&'a Type> {
    let v = *op.inits().first()?;
    let t = op.m.value_type(v);
    Some(t.element_type().unwrap_or(t))
}

/// `util::isSIMTVF`: the op carries `hivm.vf_mode = #hivm.vf_mode<SIMT>`.
fn is_simt_vf(op: &Structured) -> bool {
    op.attr("hivm.vf_mode").is_some_and(|a| match a {
        Attribute::Dialect {
            params: Some(p), ..
        } => p.trim() == "SIMT",
        Attribute::Opaque(s) | Attribute::String(s) => s.contains("SIMT"),
        _ => false,
    })
}

/// `hasHWUnsupportedScalarOperandImpl`: a shaped HIVM operand at an index
/// the op's `ScalarOnlyHWTrait<i>` reserves for scalars.
fn has_hw_unsupported_scalar_operand(op: &Structured) -> bool {
    op.hivm_operands(false)
        .into_iter()
        .enumerate()
        .any(|(pos, i)| {
            let shaped = op.m.value_type(op.operand(i)).shape().is_some();
            shaped
                && ((pos == 0 && op.traits.has("ScalarOnlyHWTrait<0>"))
                    || (pos == 1 && op.traits.has("ScalarOnlyHWTrait<1>")))
        })
}

/// Whether the module targets a register-based chip.
fn regbase(op: &Structured) -> bool {
    super::super::common::target_of(op.m).is_regbase()
}

/// `shouldLowerToScalarLoops`; `false` for ops without the interface.
pub fn should_lower_to_scalar_loops(op: &Structured) -> bool {
    if !op.traits.has("ImplByScalarOpInterface") || !op.has_pure_buffer_semantics() {
        return false;
    }
    let Some(mnemonic) = op.name().strip_prefix("hivm.hir.") else {
        return false;
    };
    match mnemonic {
        "vinterleave" | "vdeinterleave" | "vmul" | "vadd" | "vsub" | "vmin" | "vmax" | "vabs"
        | "vshl" | "vdiv" => default_rule(op),
        "vshr" => {
            if default_rule(op) {
                return true;
            }
            let inputs = op.inputs();
            !regbase(op) && inputs.len() > 1 && op.m.value_type(inputs[1]).shape().is_some()
        }
        "vmod" => {
            has_hw_unsupported_scalar_operand(op) || is_int(elem0(op), 64) || is_int(elem0(op), 32)
        }
        "vmulext" | "vmulextui" => is_int(elem0(op), 32) || is_int(elem0(op), 64),
        "vcmp" => vcmp(op),
        "vcumsum" => {
            if !regbase(op) {
                return cum_rule(op);
            }
            let cum = op.int_array("cum_dims");
            if cum.len() > 1 {
                return false;
            }
            let src = op.named("src").first().map(|&v| op.m.value_type(v));
            let src_rank1 = src.and_then(Type::shape).is_some_and(|s| s.len() == 1);
            if is_int(dst_elem(op), 64) && src_rank1 && cum.first() == Some(&0) {
                let se = src.and_then(Type::element_type);
                if is_int(se, 64) || is_int(se, 32) {
                    return false;
                }
            }
            is_int(dst_elem(op), 64)
        }
        "vcummax" | "vcummin" => {
            if !regbase(op) {
                return cum_rule(op);
            }
            op.int_array("cum_dims").len() <= 1 && is_int(dst_elem(op), 64)
        }
        "vcumprod" => {
            if !regbase(op) {
                return cum_rule(op);
            }
            op.int_array("cum_dims").len() <= 1 && is_int(dst_elem(op), 64)
        }
        "vreduce" => vreduce(op),
        _ => false,
    }
}

/// `ENABLE_DEFAULT_OP_SHOULD_LOWER_TO_SCALAR_LOOPS_IMPL`.
fn default_rule(op: &Structured) -> bool {
    is_simt_vf(op) || has_hw_unsupported_scalar_operand(op) || is_int(elem0(op), 64)
}

/// `shouldCumOpLowerToScalarLoops`: one cum dim; an `i64` destination, or
/// the cum dim is the last dim after flattening.
fn cum_rule(op: &Structured) -> bool {
    if op.int_array("cum_dims").len() > 1 {
        return false;
    }
    if is_int(dst_elem(op), 64) {
        return true;
    }
    let f = get_flattened(
        op,
        FlattenOptions {
            check_mark_stride: true,
            ..FlattenOptions::default()
        },
    );
    f.barrier_dims.first() == Some(&(f.rank() as i64 - 1))
}

/// `shouldVCmpOpLowerToScalarLoopsImpl`: integer compares, except `eq`
/// and `ne` on `i32`.
fn vcmp(op: &Structured) -> bool {
    let Some(&v) = op.m.op(op.op).operands().first() else {
        return false;
    };
    let t = op.m.value_type(v);
    if !matches!(t, Type::MemRef(_) | Type::Tensor { .. }) {
        return false;
    }
    let elem = t.element_type();
    if !elem.is_some_and(Type::is_integer) {
        return false;
    }
    // `compare_mode` defaults to `eq` (`DefaultValuedAttr<..., "CompareMode::EQ">`).
    let mode = op
        .enum_param("compare_mode")
        .unwrap_or_else(|| "eq".to_string());
    !is_int(elem, 32) || (mode != "ne" && mode != "eq")
}

/// `shouldVReduceOpDecomposeToScalarImpl`.
fn vreduce(op: &Structured) -> bool {
    let arith = op.enum_param("arith").unwrap_or_default();
    let with_index_left = matches!(
        arith.as_str(),
        "max_with_index_left" | "min_with_index_left"
    );
    let with_index_right = matches!(
        arith.as_str(),
        "max_with_index_right" | "min_with_index_right"
    );
    if regbase(op) {
        let block = super::super::common::block_bytes(&super::super::common::target_of(op.m));
        return (with_index_left || with_index_right) && !reduce_geometry_legal(op, block);
    }
    let elem = elem0(op);
    let float = matches!(
        elem,
        Some(Type::Float(
            crate::ir::FloatKind::F16 | crate::ir::FloatKind::F32 | crate::ir::FloatKind::BF16
        ))
    );
    let int_16_to_64 = is_int(elem, 64) || is_int(elem, 32) || is_int(elem, 16);
    let flat_rank_over_2 = || {
        get_flattened(
            op,
            FlattenOptions {
                check_mark_stride: true,
                ..FlattenOptions::default()
            },
        )
        .rank()
            > 2
    };
    match arith.as_str() {
        "min" | "max" | "sum" | "prod" | "xori" => is_int(elem, 64),
        _ if with_index_left => int_16_to_64 || (float && flat_rank_over_2()),
        _ if with_index_right => {
            let src = op.named("src").first().and_then(|&v| op.memref(v));
            let rank = src.map_or(0, |t| t.rank()) as i64;
            let dims = op.int_array("reduce_dims");
            let last_axis = dims.first() == Some(&(rank - 1));
            let r_or_ar = rank == 1 || last_axis;
            int_16_to_64 || (r_or_ar && float) || (float && flat_rank_over_2())
        }
        _ => false,
    }
}

/// `isTLReduceGeometryLegal`: every memref operand passes
/// `isLegalAccessAlignment`.
fn reduce_geometry_legal(op: &Structured, block: i64) -> bool {
    let dims = op.int_array("reduce_dims");
    op.m.op(op.op).operands().iter().all(|&v| {
        let Some(t) = op.memref(v) else { return true };
        legal_access_alignment(t, &dims, block)
    })
}

/// `isLegalAccessAlignment`: rank 1 is legal; otherwise the layout must be
/// strided and, per reduce dim, the first (last-dim reduce) or every
/// corner element of the access pattern must start on a `block`-byte
/// block.
fn legal_access_alignment(t: &crate::ir::MemRefType, reduce_dims: &[i64], block: i64) -> bool {
    let n = t.rank();
    if n == 1 {
        return true;
    }
    let elem_bytes = i64::from(t.element_bit_width().unwrap_or(8) / 8);
    reduce_dims.iter().all(|&rd| {
        // Checked per reduce dim, as `reduceDimValid` does: no reduce dim,
        // no question asked of the layout.
        let crate::ir::Layout::Strided { strides, .. } = &t.layout else {
            return false;
        };
        let leading = rd == n as i64 - 1;
        if leading {
            return true;
        }
        // Every 0/1 combination of per-dim counters. The C++ sums into an
        // `int` (`accessAddr += ctr * stride * elemSize`): each term is
        // 64-bit and the sum truncates to 32 bits, so a dynamic stride
        // (`INT64_MIN`) adds 0.
        (0..(1u64 << n)).all(|bits| {
            let mut addr = 0i32;
            for (j, &s) in strides.iter().enumerate() {
                if bits >> (n - 1 - j) & 1 == 1 {
                    let term = s.wrapping_mul(elem_bytes);
                    addr = i64::from(addr).wrapping_add(term) as i32;
                }
            }
            (addr as u32).is_multiple_of(block as u32)
        })
    })
}
