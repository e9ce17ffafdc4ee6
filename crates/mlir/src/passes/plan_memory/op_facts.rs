//! What memory planning asks an operation, in one place: destination-style
//! inputs and inits, temporary (extra) buffers, the elementwise traits the
//! in-place rules test, and the pipe an op runs on.
//!
//! HIVM ops answer from the table generated from their ODS trait lists
//! ([`crate::ir::ods::traits_of`], read through [`PlanTraits`]); `hivm.hir.copy` and `hivm.hir.vbrc`
//! compute their pipe from their memory spaces (`GetPipe.cpp`); upstream
//! destination-style ops (linalg, hfusion, `tensor.insert_slice`,
//! `bufferization.materialize_in_destination`) are listed here.

use crate::ir::ods::traits_of;
use crate::ir::{Attribute, Module, OpId, Type, ValueId};

/// A hardware pipe (HIVM's `PIPE` enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// Scalar unit.
    S,
    /// Vector unit.
    V,
    /// Cube unit.
    M,
    /// L1 to L0 moves.
    Mte1,
    /// GM to UB/L1 loads.
    Mte2,
    /// UB to GM/L1 stores.
    Mte3,
    /// Fixpipe (L0C out).
    Fix,
    /// Any other pipe.
    Other,
}

impl Pipe {
    fn from_name(s: &str) -> Pipe {
        match s {
            "PIPE_S" => Pipe::S,
            "PIPE_V" => Pipe::V,
            "PIPE_M" => Pipe::M,
            "PIPE_MTE1" => Pipe::Mte1,
            "PIPE_MTE2" => Pipe::Mte2,
            "PIPE_MTE3" => Pipe::Mte3,
            "PIPE_FIX" => Pipe::Fix,
            _ => Pipe::Other,
        }
    }

    /// The name HIVM prints (`PIPE_MTE2`).
    pub fn name(self) -> &'static str {
        match self {
            Pipe::S => "PIPE_S",
            Pipe::V => "PIPE_V",
            Pipe::M => "PIPE_M",
            Pipe::Mte1 => "PIPE_MTE1",
            Pipe::Mte2 => "PIPE_MTE2",
            Pipe::Mte3 => "PIPE_MTE3",
            Pipe::Fix => "PIPE_FIX",
            Pipe::Other => "PIPE_UNASSIGNED",
        }
    }
}

/// The HIVM address space of a memref value's type (`ub`, `gm`, `cbuf`,
/// `cc`, ...), if any.
pub fn address_space(m: &Module, v: ValueId) -> Option<String> {
    address_space_of(m.value_type(v))
}

/// The HIVM address space of a memref type.
pub fn address_space_of(t: &Type) -> Option<String> {
    let space = match t {
        Type::MemRef(mt) => mt.memory_space.as_deref(),
        Type::UnrankedMemRef { memory_space, .. } => memory_space.as_deref(),
        _ => None,
    }?;
    match space {
        Attribute::Dialect {
            dialect,
            mnemonic,
            params: Some(p),
        } if dialect == "hivm" && mnemonic == "address_space" => Some(p.trim().to_string()),
        _ => None,
    }
}

/// The interfaces and traits of an HIVM op that memory planning asks
/// about, read from its ODS trait list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanTraits {
    /// `HIVMStructuredOpInterface`.
    pub structured: bool,
    /// `DestinationStyleOpInterface` (every structured op is one).
    pub dps: bool,
    /// `ExtraBufferOpInterface` (temporary buffers).
    pub extra_buffer: bool,
    /// `ElementwiseNaryOpTrait<N>` (0: not elementwise).
    pub elementwise_nary: u8,
    /// `SameOperandsElementType`.
    pub same_operands_element_type: bool,
    /// `BroadcastableOTF`: may broadcast inline (`broadcast` attribute).
    pub broadcastable_otf: bool,
    /// `TransposableOTF`: may transpose inline (`transpose` attribute).
    pub transposable_otf: bool,
    /// `OpPipeTrait<"PIPE::X">`: the op's pipe (`PIPE_V`, `PIPE_MTE2`, ...).
    pub pipe: Option<&'static str>,
}

impl PlanTraits {
    /// The traits of HIVM op `name`.
    pub fn of(name: &str) -> Option<PlanTraits> {
        let t = traits_of(name)?;
        let structured = t.has("HIVMStructuredOpInterface");
        let arg = |trait_name: &str| {
            t.traits.iter().find_map(|s| {
                s.strip_prefix(trait_name)?
                    .strip_prefix('<')?
                    .strip_suffix('>')
            })
        };
        Some(PlanTraits {
            structured,
            dps: structured || t.has("DestinationStyleOpInterface"),
            extra_buffer: t.has("ExtraBufferOpInterface"),
            elementwise_nary: arg("ElementwiseNaryOpTrait")
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0),
            same_operands_element_type: t.has("SameOperandsElementType"),
            broadcastable_otf: t.has("BroadcastableOTF"),
            transposable_otf: t.has("TransposableOTF"),
            pipe: arg("OpPipeTrait").map(|p| p.trim_matches('"').trim_start_matches("PIPE::")),
        })
    }
}

/// The ODS traits of `op`, for HIVM ops.
pub fn traits(m: &Module, op: OpId) -> Option<PlanTraits> {
    PlanTraits::of(m.op(op).name())
}

/// Whether `op` implements `DestinationStyleOpInterface`.
pub fn is_dps(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    let name = d.name();
    if let Some(t) = PlanTraits::of(name) {
        return t.dps;
    }
    if name.starts_with("linalg.") || name.starts_with("hfusion.") {
        return d.group("outs").is_some();
    }
    matches!(
        name,
        "tensor.insert_slice" | "bufferization.materialize_in_destination"
    )
}

/// The operand index range of ODS operand `name` of `op`, when `op` is read
/// by its ODS format.
fn ods_segment(m: &Module, op: OpId, name: &str) -> Option<Vec<ValueId>> {
    let d = m.op(op);
    let (ods, _) = crate::ir::format::op_format(d.name())?;
    let i = ods.operand_index(name)?;
    if d.segments.len() != ods.operands.len() {
        return None;
    }
    Some(d.segment(i).to_vec())
}

/// `getDpsInits`: the destination operands of a destination-style op.
pub fn dps_inits(m: &Module, op: OpId) -> Vec<ValueId> {
    let d = m.op(op);
    if let Some(outs) = d.group("outs") {
        return outs.to_vec();
    }
    match d.name() {
        "tensor.insert_slice" | "bufferization.materialize_in_destination" => {
            d.operand(1).into_iter().collect()
        }
        _ => ods_segment(m, op, "dst").unwrap_or_default(),
    }
}

/// `getDpsInputs`: the operands that are not inits (scalars and temporary
/// buffers included).
pub fn dps_inputs(m: &Module, op: OpId) -> Vec<ValueId> {
    let inits = dps_inits(m, op);
    let d = m.op(op);
    let mut rest = Vec::new();
    let mut skipped = vec![false; inits.len()];
    for &v in d.operands() {
        // Remove each init once, by value, from the operand list.
        if let Some(k) = inits
            .iter()
            .enumerate()
            .position(|(k, &i)| i == v && !skipped[k])
        {
            skipped[k] = true;
            continue;
        }
        rest.push(v);
    }
    rest
}

/// `ExtraBufferOpInterface::getExtraBuffers`: the temporary buffers of
/// `op` (`None`: the op does not implement the interface).
pub fn extra_buffers(m: &Module, op: OpId) -> Option<Vec<ValueId>> {
    let t = traits(m, op)?;
    if !t.extra_buffer {
        return None;
    }
    let d = m.op(op);
    for name in ["temp_buffer", "temp_buffers"] {
        if let Some(g) = d.group(name) {
            return Some(g.to_vec());
        }
        if let Some(s) = ods_segment(m, op, name) {
            return Some(s);
        }
    }
    Some(Vec::new())
}

/// What `IsReuseHIVMOp` asks of an op by its kind, beyond its traits
/// (`PlanMemory.cpp:1366-1398`, `regbase/PlanMemory.cpp:1240-1271`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InplaceKind {
    /// The ISA documents in-place execution (`vadd`, `vsub`, `vmax`,
    /// `vmin`, `vor`, `vand`, `vmul`) unless it broadcasts or transposes
    /// inline.
    Isa,
    /// `vcast`: a narrowing cast reuses in place only in rank 1 with a
    /// contiguous last dimension (`isReusableCastOp`).
    Cast,
    /// `vsel`: the memory-based pass never gives an `i64` select's output
    /// the `i1` condition's buffer (`isReusableVSelOp`).
    Select,
    /// Every other op: its traits alone decide.
    Other,
}

/// The [`InplaceKind`] of op `name`.
pub fn inplace_kind(name: &str) -> InplaceKind {
    match name {
        "hivm.hir.vadd" | "hivm.hir.vand" | "hivm.hir.vmax" | "hivm.hir.vmin" | "hivm.hir.vmul"
        | "hivm.hir.vor" | "hivm.hir.vsub" => InplaceKind::Isa,
        "hivm.hir.vcast" => InplaceKind::Cast,
        "hivm.hir.vsel" => InplaceKind::Select,
        _ => InplaceKind::Other,
    }
}

/// The binary and unary vector ops whose extra buffer exists for scalar
/// or on-the-fly broadcast operands (`GetExtraBuffers.cpp`).
const EXTRA_FOR_SCALAR_OR_BRC: &[&str] = &[
    "hivm.hir.vabs",
    "hivm.hir.vadd",
    "hivm.hir.vand",
    "hivm.hir.vdiv",
    "hivm.hir.vexp",
    "hivm.hir.vln",
    "hivm.hir.vmax",
    "hivm.hir.vmin",
    "hivm.hir.vmul",
    "hivm.hir.vnot",
    "hivm.hir.vor",
    "hivm.hir.vrec",
    "hivm.hir.vrelu",
    "hivm.hir.vrsqrt",
    "hivm.hir.vshl",
    "hivm.hir.vshr",
    "hivm.hir.vsqrt",
    "hivm.hir.vsub",
];

/// `shouldAllocExtraBufferForScalarOrOTFBrc`: the op's one extra buffer
/// serves a scalar operand or an inline broadcast.
pub fn extra_buffer_for_scalar_or_brc(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    if !EXTRA_FOR_SCALAR_OR_BRC.contains(&d.name()) {
        return false;
    }
    !broadcast_dims(m, op).is_empty()
        || d.operands()
            .iter()
            .any(|&v| matches!(m.value_type(v), Type::Integer { .. } | Type::Float(_)))
}

fn int_array(a: Option<&Attribute>) -> Vec<i64> {
    match a {
        Some(Attribute::DenseArray { values, .. }) => values.clone(),
        Some(Attribute::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The inline broadcast dims (`broadcast` attribute) of an op.
pub fn broadcast_dims(m: &Module, op: OpId) -> Vec<i64> {
    int_array(m.op(op).attr("broadcast"))
}

/// `existInlineBroadcastLoopDims`: broadcastable on the fly, with dims.
pub fn has_inline_broadcast(m: &Module, op: OpId) -> bool {
    traits(m, op).is_some_and(|t| t.broadcastable_otf) && !broadcast_dims(m, op).is_empty()
}

/// `existInlineTransposeLoopDims`: transposable on the fly, with a
/// permutation.
pub fn has_inline_transpose(m: &Module, op: OpId) -> bool {
    traits(m, op).is_some_and(|t| t.transposable_otf)
        && !int_array(m.op(op).attr("transpose")).is_empty()
}

/// The pipe `op` runs on, when it has one (`OpPipeInterface::getPipe`).
pub fn pipe(m: &Module, op: OpId) -> Option<Pipe> {
    let d = m.op(op);
    match d.name() {
        "hivm.hir.copy" => {
            let src = address_space(m, d.operand(0)?)?;
            let dst = address_space(m, d.operand(1)?)?;
            return match (src.as_str(), dst.as_str()) {
                ("ub", "ub") => Some(Pipe::V),
                ("cc", "gm") => Some(Pipe::Fix),
                ("gm", "cbuf") => Some(Pipe::Mte2),
                ("ub", "cbuf") => Some(Pipe::Mte3),
                _ => None,
            };
        }
        "hivm.hir.vbrc" => {
            let dst = address_space(m, *dps_inits(m, op).first()?)?;
            return match dst.as_str() {
                "cbuf" => Some(Pipe::Mte2),
                "ub" => Some(Pipe::V),
                _ => None,
            };
        }
        "memref.load" | "memref.store" => return Some(Pipe::S),
        _ => {}
    }
    traits(m, op).and_then(|t| t.pipe).map(Pipe::from_name)
}

/// `hivm::isVFCall`: a `func.call` marked `hivm.vector_function`.
pub fn is_vf_call(m: &Module, op: OpId) -> bool {
    let d = m.op(op);
    d.is("func.call") && d.has_attr("hivm.vector_function")
}

/// `hivm::isVF`: a function marked `hivm.vector_function`.
pub fn is_vf(m: &Module, func: OpId) -> bool {
    m.op(func).has_attr("hivm.vector_function")
}

/// `hacc::utils::isHost`: a function of kind `HOST`.
pub fn is_host(m: &Module, func: OpId) -> bool {
    matches!(
        m.op(func).attr("hacc.function_kind"),
        Some(Attribute::Dialect { params: Some(p), .. }) if p.trim() == "HOST"
    )
}

/// The function's core type (`hivm.func_core_type`: `AIC`, `AIV`, `MIX`).
pub fn func_core_type(m: &Module, func: OpId) -> Option<String> {
    match m.op(func).attr("hivm.func_core_type") {
        Some(Attribute::Dialect {
            params: Some(p), ..
        }) => Some(p.trim().to_string()),
        _ => None,
    }
}

/// Whether `op` is loop-like (`LoopLikeOpInterface`).
pub fn is_loop_like(name: &str) -> bool {
    matches!(
        name,
        "scf.for" | "scf.while" | "scf.forall" | "scf.parallel" | "affine.for" | "affine.parallel"
    )
}

#[cfg(test)]
mod tests {
    use super::{inplace_kind, InplaceKind, PlanTraits};

    #[test]
    fn inplace_kinds_follow_is_reuse_hivm_op() {
        // PlanMemory.cpp:1366-1367: the seven ops the ISA documents.
        for op in ["vadd", "vsub", "vmax", "vmin", "vor", "vand", "vmul"] {
            assert_eq!(
                inplace_kind(&format!("hivm.hir.{op}")),
                InplaceKind::Isa,
                "{op}"
            );
        }
        // vxor and vdiv are elementwise but not in the ISA list.
        assert_eq!(inplace_kind("hivm.hir.vxor"), InplaceKind::Other);
        assert_eq!(inplace_kind("hivm.hir.vdiv"), InplaceKind::Other);
        assert_eq!(inplace_kind("hivm.hir.vcast"), InplaceKind::Cast);
        assert_eq!(inplace_kind("hivm.hir.vsel"), InplaceKind::Select);
    }

    fn t(name: &str) -> PlanTraits {
        PlanTraits::of(name).expect("an HIVM op")
    }

    #[test]
    fn plan_traits_read_the_ods_trait_lists() {
        let vadd = t("hivm.hir.vadd");
        assert!(vadd.structured && vadd.dps && vadd.extra_buffer);
        assert_eq!(vadd.elementwise_nary, 2);
        assert!(vadd.same_operands_element_type && vadd.broadcastable_otf && vadd.transposable_otf);
        assert_eq!(vadd.pipe, Some("PIPE_V"));
        let vsel = t("hivm.hir.vsel");
        assert_eq!(vsel.elementwise_nary, 3);
        assert!(!vsel.same_operands_element_type);
        assert_eq!(t("hivm.hir.load").pipe, Some("PIPE_MTE2"));
        assert_eq!(t("hivm.hir.store").pipe, Some("PIPE_MTE3"));
        assert_eq!(t("hivm.hir.fixpipe").pipe, Some("PIPE_FIX"));
        // A macro op names several pipes, not one.
        assert_eq!(t("hivm.hir.mmadL1").pipe, None);
        let vreduce = t("hivm.hir.vreduce");
        assert_eq!(vreduce.elementwise_nary, 0);
        assert!(vreduce.extra_buffer && !vreduce.broadcastable_otf);
        assert!(!t("hivm.hir.load").extra_buffer);
        assert_eq!(PlanTraits::of("memref.alloc"), None);
    }
}
