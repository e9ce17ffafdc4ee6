//! Helpers shared by the stride-alignment passes: the target chip, the
//! functions a pass visits, stride marks (reading and writing
//! `annotation.mark`), and tracing a buffer back to its root allocation.

use tilemem_soc::{MemSpace, Soc};

use crate::ir::{Attribute, InsertPoint, Location, MemRefType, Module, OpId, Type, ValueId};

use super::layout::AlignInfo;
use super::op_table::{attrs, flow_kind, is_view_like, spaces, FlowKind, MARK_OP};

/// The chip the passes target: the SoC of the module's `hacc.target`
/// (`hacc.target = #hacc.target<"...">`, or a plain string; see
/// [`Soc::from_chip`]), the 910B (memory-based) without the attribute.
pub fn target_of(module: &Module) -> Soc {
    let chip = match module.module_attr(attrs::TARGET) {
        Some(Attribute::String(s)) => s.clone(),
        Some(Attribute::Dialect { params, .. }) => params.clone().unwrap_or_default(),
        Some(Attribute::Opaque(s)) => s.clone(),
        _ => return Soc::ascend910b(),
    };
    Soc::from_chip(chip.trim().trim_matches('"'))
}

/// `util::getHWAlignBytes`: the hardware alignment in bytes of the memory
/// space of `ty` (UB and L1: 32, L0A/L0B/L0C: 512), from the chip's SoC
/// description. A memref without a HIVM space is taken as UB.
pub fn hw_align_bytes(target: &Soc, ty: &MemRefType) -> i64 {
    let space = match ty.address_space() {
        Some(spaces::GM) => MemSpace::Ddr,
        Some(spaces::L1) => MemSpace::Mat,
        Some(spaces::L0A) => MemSpace::Left,
        Some(spaces::L0B) => MemSpace::Right,
        Some(spaces::L0C) => MemSpace::Acc,
        _ => MemSpace::Vec,
    };
    target.hardware_alignment(space) as i64
}

/// `util::BL` / `INTR_BYTES_PER_BLOCK`: the bytes of one vector block,
/// the unified buffer's hardware alignment on the chip.
pub fn block_bytes(target: &Soc) -> i64 {
    target.hardware_alignment(MemSpace::Vec) as i64
}

/// The `func.func` ops with a body that device passes visit: host
/// functions (`hacc.function_kind = #hacc.function_kind<HOST>`) are skipped.
pub fn device_funcs(m: &Module) -> Vec<OpId> {
    m.funcs()
        .into_iter()
        .filter(|&f| !m.func_is_declaration(f) && !is_host(m, f))
        .collect()
}

/// Whether `func` is a host function.
pub fn is_host(m: &Module, func: OpId) -> bool {
    m.attr(func, attrs::FUNCTION_KIND)
        .is_some_and(|a| attr_text(a).contains("HOST"))
}

/// Whether `func` is a vector function (`hivm.vector_function`).
pub fn is_vector_function(m: &Module, func: OpId) -> bool {
    m.op(func).has_attr(attrs::VECTOR_FUNCTION)
}

/// The attribute `name` of `op` as the text inside `#dialect.mnemonic<..>`.
pub(super) fn enum_param(m: &Module, op: OpId, name: &str) -> Option<String> {
    match m.attr(op, name)? {
        Attribute::Dialect { params, .. } => params.clone(),
        Attribute::Opaque(s) | Attribute::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The text of a dialect/opaque/string attribute (params for dialect ones).
pub fn attr_text(a: &Attribute) -> String {
    match a {
        Attribute::Dialect { params, .. } => params.clone().unwrap_or_default(),
        Attribute::String(s) | Attribute::Opaque(s) => s.clone(),
        _ => String::new(),
    }
}

/// The ranked memref type of a value.
pub fn memref_of(m: &Module, v: ValueId) -> Option<&MemRefType> {
    m.value_type(v).as_memref()
}

/// Whether a memref type lives in UB.
pub fn is_ub(ty: &MemRefType) -> bool {
    ty.address_space() == Some(spaces::UB)
}

/// Whether a memref type lives in an on-chip (non-GM) space.
pub fn is_local(ty: &MemRefType) -> bool {
    matches!(ty.address_space(), Some(s) if s != spaces::GM)
}

/// The `annotation.mark` ops on `v`.
pub fn marks_of(m: &Module, v: ValueId) -> Vec<OpId> {
    m.users(v)
        .into_iter()
        .filter(|&u| m.op(u).is(MARK_OP) && m.op(u).operand(0) == Some(v))
        .collect()
}

/// The attributes of a stride mark for `info`.
pub fn info_attrs(info: &AlignInfo) -> [(String, Attribute); 2] {
    [
        (
            attrs::DIMS.to_string(),
            Attribute::dense_i32(info.iter().map(|&(d, _)| d as i64)),
        ),
        (
            attrs::BYTES.to_string(),
            Attribute::dense_i32(info.iter().map(|&(_, b)| b)),
        ),
    ]
}

/// `builder.setInsertionPointAfterValue(v)`: right after the defining op,
/// or first in the block for a block argument.
pub fn after_value(m: &Module, v: ValueId) -> Option<InsertPoint> {
    match m.defining_op(v) {
        Some(op) => {
            m.op(op).parent_block()?;
            Some(InsertPoint::After(op))
        }
        None => m
            .block_arg_owner(v)
            .map(|(b, _)| InsertPoint::BlockStart(b)),
    }
}

/// `createAlignMarkOp`: writes `annotation.mark %v {hivm.stride_align_dims
/// = array<i32: ..>, hivm.stride_align_value_in_byte = array<i32: ..>}`
/// right after the definition of `v` (so a later mark on the same value
/// comes before an earlier one), in the order `info` lists; nothing when
/// `info` is empty. Marks are never merged or de-duplicated: each call
/// writes one.
pub fn create_align_mark(m: &mut Module, v: ValueId, info: &AlignInfo, loc: Location) {
    if info.is_empty() {
        return;
    }
    if let Some(at) = after_value(m, v) {
        m.build_mark(v, info_attrs(info), at, loc);
    }
}

/// `traceToRoot` (Util.h): follows view-like ops (`ViewLikeOpInterface`,
/// `memref.cast`) from `v` up to the value they view; stops at the first
/// other definition or a block argument.
pub fn trace_root(m: &Module, mut v: ValueId) -> ValueId {
    for _ in 0..10_000 {
        let Some(op) = m.defining_op(v) else {
            return v;
        };
        if !is_view_like(m.op(op).name()) {
            return v;
        }
        match m.op(op).operand(0) {
            Some(src) => v = src,
            None => return v,
        }
    }
    v
}

/// `traceDefOp<OpType>(v)`: the op defining `v` when `is_op` accepts its
/// name, else the same question asked of the value it derives from:
/// the source of a view, reshape, cast or bufferization conversion, the
/// init of an `scf.for` iter arg, the yielded value of an `scf.for`
/// result or of an `scf.if` result's then branch.
pub fn trace_def_op(m: &Module, mut v: ValueId, is_op: impl Fn(&str) -> bool) -> Option<OpId> {
    for _ in 0..10_000 {
        match m.value_def(v) {
            crate::ir::ValueDef::OpResult { op, index } => {
                let d = m.op(op);
                let name = d.name();
                if is_op(name) {
                    return Some(op);
                }
                let through = matches!(
                    name,
                    "tensor.reshape"
                        | "memref.collapse_shape"
                        | "tensor.collapse_shape"
                        | "memref.subview"
                        | "bufferization.to_memref"
                        | "bufferization.to_buffer"
                        | "bufferization.to_tensor"
                        | "memref.view"
                        | "memref.reshape"
                        | "memref.expand_shape"
                        | "tensor.expand_shape"
                        | "memref.extract_strided_metadata"
                        | "memref.cast"
                        | "memref.reinterpret_cast"
                        | "memref.memory_space_cast"
                        | "tensor.extract_slice"
                );
                if through {
                    v = d.operand(0)?;
                    continue;
                }
                match flow_kind(name) {
                    Some(FlowKind::For) => {
                        let parts = m.for_parts(op)?;
                        v = m.op(parts.yield_op?).operand(index as usize)?;
                    }
                    Some(FlowKind::If) => {
                        let then = *m.op(op).regions().first()?;
                        let b = *m.region_blocks(then).first()?;
                        v = m.op(m.last_op(b)?).operand(index as usize)?;
                    }
                    _ => return None,
                }
            }
            crate::ir::ValueDef::BlockArg { block, index } => {
                let parent = m.block_parent_op(block);
                if flow_kind(m.op(parent).name()) != Some(FlowKind::For) || index == 0 {
                    return None;
                }
                v = *m.op(parent).operands().get(3 + index as usize - 1)?;
            }
        }
    }
    None
}

/// Whether the root allocation of `v` carries the skip-for-vload mark.
pub fn root_skips_vload(m: &Module, v: ValueId) -> bool {
    let root = trace_root(m, v);
    marks_of(m, root)
        .into_iter()
        .any(|o| m.op(o).has_attr(attrs::SKIP_VLOAD))
}

/// The callee `func.func` of a call op.
pub fn callee_of(m: &Module, call: OpId) -> Option<OpId> {
    m.lookup_func(m.call_callee(call)?)
}

/// The `func.call` ops of the module, in program order.
pub fn calls(m: &Module, ops: &[OpId]) -> Vec<OpId> {
    ops.iter()
        .copied()
        .filter(|&o| flow_kind(m.op(o).name()) == Some(FlowKind::Call))
        .collect()
}

/// Element width in bits of a memref-typed value.
pub fn elem_bits(ty: &MemRefType) -> Option<i64> {
    ty.element_bit_width().map(i64::from)
}

/// Whether a type is a tensor (not bufferized).
pub fn is_tensor(ty: &Type) -> bool {
    matches!(ty, Type::Tensor { .. } | Type::UnrankedTensor(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardware_alignment_comes_from_the_soc() {
        use crate::ir::MemRefType;
        let ty = |space: &str| {
            let t = format!("memref<4x16xf16, #hivm.address_space<{space}>>");
            let m = crate::parse::parse_module(
                &format!("func.func @f(%a: {t}) {{\n  return\n}}\n"),
                &Default::default(),
            )
            .unwrap();
            let f = m.funcs()[0];
            let arg = m.block_args(m.func_body(f).unwrap())[0];
            m.value_type(arg).as_memref().cloned().unwrap()
        };
        let ub: MemRefType = ty("ub");
        for target in [Soc::ascend910b(), Soc::ascend950(), Soc::ascend310b()] {
            assert_eq!(hw_align_bytes(&target, &ub), 32);
            assert_eq!(hw_align_bytes(&target, &ty("cbuf")), 32);
            assert_eq!(hw_align_bytes(&target, &ty("cc")), 512);
            assert_eq!(hw_align_bytes(&target, &ty("ca")), 512);
        }
    }

    #[test]
    fn a_module_without_hacc_target_is_membase() {
        assert_eq!(target_of(&Module::new()), Soc::ascend910b());
    }
}
