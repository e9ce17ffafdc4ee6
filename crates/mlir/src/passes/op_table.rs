//! The names the stride-alignment passes know operations and attributes
//! by: view-like ops and how marks cross them, control flow, marks,
//! address spaces and attribute names. What an HIVM op itself answers
//! (structured, DPS roles, iterator types, flattening, ...) comes from its
//! ODS traits ([`crate::ir::ods::traits_of`]) through
//! [`super::interfaces::Structured`], not from here.

/// How alignment information and memref types flow through a view-like op
/// (result aliases operand 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// `memref.subview`: offsets/sizes/strides, possibly rank-reducing.
    Subview,
    /// `memref.cast`, `hivm.hir.bitcast`: same dims.
    Cast,
    /// `memref.collapse_shape`: reassociation groups of the source.
    Collapse,
    /// `memref.expand_shape`: reassociation groups of the result.
    Expand,
    /// `memref.reshape`: collapse/expand with an inferred reassociation.
    Reshape,
    /// `memref.view`: a byte-offset view of an `i8` buffer; alignment cannot
    /// be carried through it.
    ByteView,
    /// `memref.reinterpret_cast`: explicit layout; treated like a cast.
    Reinterpret,
}

/// The view kind of `name`, if it is a view-like op (the result aliases
/// operand 0).
pub fn view_kind(name: &str) -> Option<ViewKind> {
    Some(match name {
        "hivm.hir.bitcast" | "memref.cast" => ViewKind::Cast,
        "memref.collapse_shape" => ViewKind::Collapse,
        "memref.expand_shape" => ViewKind::Expand,
        "memref.reinterpret_cast" => ViewKind::Reinterpret,
        "memref.reshape" => ViewKind::Reshape,
        "memref.subview" => ViewKind::Subview,
        "memref.view" => ViewKind::ByteView,
        _ => return None,
    })
}

/// Ops implementing MLIR's `ViewLikeOpInterface` (their result views
/// operand 0): the memref dialect's views and casts, and the HIVM ops whose
/// ODS declares the interface (`hivm.hir.convert_layout`). Not
/// `hivm.hir.bitcast`, which is only `Pure`.
pub fn is_view_like(name: &str) -> bool {
    matches!(
        name,
        "memref.subview"
            | "memref.view"
            | "memref.cast"
            | "memref.reinterpret_cast"
            | "memref.collapse_shape"
            | "memref.expand_shape"
            | "memref.reshape"
            | "memref.memory_space_cast"
            | "memref.transpose"
            | "memref.extract_strided_metadata"
    ) || crate::ir::ods::traits_of(name).is_some_and(|t| t.has("ViewLikeOpInterface"))
}

/// Ops that create a root buffer.
pub fn is_root_alloc(name: &str) -> bool {
    matches!(name, "memref.alloc" | "memref.alloca")
}

/// Control-flow and call ops the propagation walks through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// `scf.for`: inits are the operands after lb/ub/step.
    For,
    /// `scf.if`: results come from both branches' yields.
    If,
    /// `scf.yield`
    Yield,
    /// `scope.scope`
    Scope,
    /// `scope.return`
    ScopeReturn,
    /// `func.call`
    Call,
    /// `scf.while`: memrefs through it are not supported.
    While,
}

/// The flow kind of `name`.
pub fn flow_kind(name: &str) -> Option<FlowKind> {
    Some(match name {
        "scf.for" => FlowKind::For,
        "scf.if" => FlowKind::If,
        "scf.yield" => FlowKind::Yield,
        "scope.scope" => FlowKind::Scope,
        "scope.return" => FlowKind::ScopeReturn,
        "func.call" | "call" => FlowKind::Call,
        "scf.while" => FlowKind::While,
        _ => return None,
    })
}

/// The annotation op carrying marks.
pub const MARK_OP: &str = "annotation.mark";
/// The vector load `hivm-pre-mark-stride-align` looks for in callees.
pub const TRANSFER_READ: &str = "vector.transfer_read";
/// The vector store `vsstb` marking looks for in callees.
pub const TRANSFER_WRITE: &str = "vector.transfer_write";

/// Operand groups and attributes of the HIVM structured op syntax.
pub mod hivm_syntax {
    /// Output operand group.
    pub const OUTS: &str = "outs";
    /// Fixpipe channel split flag.
    pub const CHANNEL_SPLIT: &str = "channel_split";
    /// Fixpipe `#hivm.dma_mode<nz2nd|nz2dn>`.
    pub const DMA_MODE: &str = "dma_mode";
    /// Fixpipe `#hivm.fixpipe_dual_dst_mode<ROW_SPLIT|COLUMN_SPLIT>`.
    pub const DUAL_DST_MODE: &str = "dual_dst_mode";
    /// Dual-destination value splitting M.
    pub const ROW_SPLIT: &str = "ROW_SPLIT";
    /// Dual-destination value splitting N.
    pub const COLUMN_SPLIT: &str = "COLUMN_SPLIT";
    /// DMA mode NZ to ND.
    pub const NZ2ND: &str = "nz2nd";
    /// DMA mode NZ to DN.
    pub const NZ2DN: &str = "nz2dn";
    /// Reduction kinds that also produce an index (`<max_with_index>`).
    pub const WITH_INDEX: &str = "with_index";
    /// `hivm.hir.custom` per-operand attributes.
    pub const ARG_ATTRS: &str = "arg_attrs";
    /// The dim a custom op asks to align, in its `arg_attrs` entry.
    pub const ALIGN_DIM: &str = "align_dim";
}

/// The copy op the passes create (mirror buffers).
pub const COPY_OP: &str = "hivm.hir.copy";
/// The Fixpipe op (AIC to AIV propagation only runs with one).
pub const FIXPIPE_OP: &str = "hivm.hir.fixpipe";

/// HIVM address space keywords.
pub mod spaces {
    /// Unified buffer.
    pub const UB: &str = "ub";
    /// Global memory.
    pub const GM: &str = "gm";
    /// L0C (cube accumulator).
    pub const L0C: &str = "cc";
    /// L1 (cube buffer).
    pub const L1: &str = "cbuf";
    /// L0A (left matmul operand).
    pub const L0A: &str = "ca";
    /// L0B (right matmul operand).
    pub const L0B: &str = "cb";
}

/// Arithmetic ops used to round dynamic sizes up.
pub mod arith {
    /// Addition.
    pub const ADD: &str = "arith.addi";
    /// Signed remainder.
    pub const REM: &str = "arith.remsi";
    /// Subtraction.
    pub const SUB: &str = "arith.subi";
}

/// Attribute names.
pub mod attrs {
    /// Marked dims.
    pub const DIMS: &str = "hivm.stride_align_dims";
    /// Marked bytes, one per dim.
    pub const BYTES: &str = "hivm.stride_align_value_in_byte";
    /// Root allocs whose buffer is read by a contiguous vector load.
    pub const SKIP_VLOAD: &str = "hivm.skip_stride_align_for_vload";
    /// Size-alignment dims (`hivm-align-alloc-size`).
    pub const ALLOC_DIMS: &str = "hivm.alloc_align_dims";
    /// Size-alignment bytes.
    pub const ALLOC_BYTES: &str = "hivm.alloc_align_value_in_byte";
    /// Buffer byte size annotation, scaled with padding.
    pub const BUFFER_SIZE: &str = "buffer_size_in_byte";
    /// Set on membase functions once aligned.
    pub const STORAGE_ALIGNED: &str = "hivm.storage_aligned";
    /// Disables the i8-cast size alignment for a function.
    pub const DISABLE_CAST_SIZE_ALIGN: &str = "hivm.disable_size_align_for_cast";
    /// Marks a function as a vector function (VF).
    pub const VECTOR_FUNCTION: &str = "hivm.vector_function";
    /// Core type of a function (`#hivm.func_core_type<AIC|AIV>`).
    pub const FUNC_CORE_TYPE: &str = "hivm.func_core_type";
    /// Function kind (`#hacc.function_kind<HOST|DEVICE>`).
    pub const FUNCTION_KIND: &str = "hacc.function_kind";
    /// Tightly coupled buffer id (`#hivm.tightly_coupled_buffer<N>`).
    pub const TIGHTLY_COUPLED: &str = "hivm.tightly_coupled_buffer";
    /// Tiling dim of a tightly coupled buffer.
    pub const TILING_DIM: &str = "hivm.tiling_dim";
    /// Module target (`#hacc.target<"Ascend950PR_9589">`).
    pub const TARGET: &str = "hacc.target";
    /// Loops whose stores are unrolled into `vsstb`.
    pub const UNROLL_FOR_VSSTB: &str = "unroll_for_vsstb";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert!(is_view_like("memref.cast"));
        assert!(is_view_like("hivm.hir.convert_layout"));
        assert!(!is_view_like("hivm.hir.bitcast"));
        assert_eq!(view_kind("memref.subview"), Some(ViewKind::Subview));
        assert_eq!(view_kind("memref.alloc"), None);
        assert_eq!(flow_kind("scf.for"), Some(FlowKind::For));
    }
}
