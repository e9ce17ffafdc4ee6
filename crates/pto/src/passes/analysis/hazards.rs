//! Target hazards and no-alias facts, read from the op table only (seed
//! 000: "ops that are not in-place safe", the split-AIV load + tpop hazard;
//! seed 002: the same rules as hard separations).
//!
//! Every planner asks these functions; none keeps its own list of ops.

use tilemem_soc::Family;

use crate::ir::{Call, Expr, Function, Type, VarId};
use crate::ops::{self, CastWidths};

/// Element width in bits of a tile or tensor variable.
pub fn elem_bits(f: &Function, v: VarId) -> Option<u32> {
    match f.vars[v].ty.as_ref()? {
        Type::Tile(t, _) => t.dtype.bits(),
        Type::Tensor(t, _) => t.dtype.bits(),
        _ => None,
    }
}

/// The widths of a conversion from `input` to `output`, when both are known.
pub fn cast_widths(f: &Function, input: VarId, output: VarId) -> Option<CastWidths> {
    Some(CastWidths {
        src_bits: elem_bits(f, input)?,
        dst_bits: elem_bits(f, output)?,
    })
}

/// The argument positions of `call` (defining `out`) whose storage must not
/// be shared with `out`'s, on a target of `family`: the op table's alias
/// rule, with a conversion's widths taken from its first argument and `out`.
pub fn forbidden_operands(f: &Function, call: &Call, out: VarId, family: Family) -> Vec<usize> {
    forbidden_operands_with(f, call, out, family, true)
}

/// [`forbidden_operands`], choosing whether the seed's A2/A3 narrowing-cast
/// rule applies (off reproduces PyPTO e2d0f78).
pub fn forbidden_operands_with(
    f: &Function,
    call: &Call,
    out: VarId,
    family: Family,
    narrowing_casts: bool,
) -> Vec<usize> {
    let widths = call
        .args
        .first()
        .and_then(Expr::as_var)
        .and_then(|x| cast_widths(f, x, out));
    ops::lookup_or_default(call.op_name()).forbidden_alias_args_with(
        family,
        call.args.len(),
        widths,
        narrowing_casts,
    )
}

/// The `pipeline_membership` tags (`"g:s;g:s"`) of a call's `attrs=`.
pub fn pipeline_membership(call: &Call) -> Vec<(u32, i64)> {
    let Some(Expr::Dict(items)) = call.kwarg("attrs") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, v) in items {
        if k.as_str() != Some("pipeline_membership") {
            continue;
        }
        let Some(text) = v.as_str() else { continue };
        for part in text.split(';') {
            let mut it = part.trim().splitn(2, ':');
            let (Some(g), Some(s)) = (it.next(), it.next()) else {
                continue;
            };
            if let (Ok(g), Ok(s)) = (g.trim().parse::<u32>(), s.trim().parse::<i64>()) {
                out.push((g, s));
            }
        }
    }
    out
}
