//! What the stride-alignment passes know about operations, in one place.
//!
//! Every pass asks this table ("is this a view?", "is this a UB DMA?",
//! "does this op take part in operand-to-operand propagation?") instead of
//! comparing op names itself, so supporting a new op is one table row.

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

/// The part an HIVM structured op plays for stride alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HivmKind {
    /// `hivm.hir.load` (GM to UB DMA).
    Load,
    /// `hivm.hir.store` (UB to GM DMA).
    Store,
    /// `hivm.hir.copy` (local copy, UB DMA rules; operand 0 is the source).
    Copy,
    /// `hivm.hir.fixpipe` (L0C to UB/GM).
    Fixpipe,
    /// Vector computation ops (`vadd`, `vexp`, ...).
    Vector,
    /// `hivm.hir.custom`: per-operand `align_dim` in `arg_attrs`.
    Custom,
    /// Cube ops (`mix_matmul`, ...): no UB row rule of their own.
    Cube,
}

/// Extra per-op facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HivmFlags {
    /// A broadcast over the last dim moves the mark to the previous
    /// discontinuous dim (`vbrc` on non-i8/i1 types).
    pub last_dim_broadcast_shifts: bool,
    /// A reduction over the last axis moves the init's mark to the previous
    /// discontinuous dim (`vreduce`).
    pub last_axis_reduce_shifts: bool,
    /// Alignment of one output half is alignment of the previous dim
    /// (`vdeinterleave`).
    pub deinterleave_shifts: bool,
    /// A last-dim transpose is skipped by the mark pass and sized by
    /// `hivm-align-alloc-size` (`vtranspose`).
    pub transpose: bool,
    /// Narrowing casts to i8 need padded allocs (`vcast`).
    pub cast: bool,
    /// Sorted in groups of 32 elements (`vsort`).
    pub sort: bool,
}

/// One HIVM structured op.
#[derive(Clone, Copy, Debug)]
pub struct HivmOp {
    /// Full op name.
    pub name: &'static str,
    /// Its role.
    pub kind: HivmKind,
    /// Extra facts.
    pub flags: HivmFlags,
}

const NONE: HivmFlags = HivmFlags {
    last_dim_broadcast_shifts: false,
    last_axis_reduce_shifts: false,
    deinterleave_shifts: false,
    transpose: false,
    cast: false,
    sort: false,
};

const fn op(name: &'static str, kind: HivmKind) -> HivmOp {
    HivmOp {
        name,
        kind,
        flags: NONE,
    }
}

const fn op_with(name: &'static str, kind: HivmKind, flags: HivmFlags) -> HivmOp {
    HivmOp { name, kind, flags }
}

use HivmKind::*;

/// The HIVM structured ops, sorted by name (binary searched).
pub const HIVM_OPS: &[HivmOp] = &[
    op("hivm.hir.copy", Copy),
    op("hivm.hir.custom", Custom),
    op("hivm.hir.fixpipe", Fixpipe),
    op("hivm.hir.load", Load),
    op("hivm.hir.matmul", Cube),
    op("hivm.hir.mix_matmul", Cube),
    op("hivm.hir.mmad", Cube),
    op("hivm.hir.store", Store),
    op("hivm.hir.vabs", Vector),
    op("hivm.hir.vadd", Vector),
    op("hivm.hir.vand", Vector),
    op_with(
        "hivm.hir.vbrc",
        Vector,
        HivmFlags {
            last_dim_broadcast_shifts: true,
            ..NONE
        },
    ),
    op_with("hivm.hir.vcast", Vector, HivmFlags { cast: true, ..NONE }),
    op("hivm.hir.vcmp", Vector),
    op("hivm.hir.vconcat", Vector),
    op("hivm.hir.vcumprod", Vector),
    op("hivm.hir.vcumsum", Vector),
    op_with(
        "hivm.hir.vdeinterleave",
        Vector,
        HivmFlags {
            deinterleave_shifts: true,
            ..NONE
        },
    ),
    op("hivm.hir.vdiv", Vector),
    op("hivm.hir.vexp", Vector),
    op("hivm.hir.vgather", Vector),
    op("hivm.hir.vinterleave", Vector),
    op("hivm.hir.vln", Vector),
    op("hivm.hir.vmax", Vector),
    op("hivm.hir.vmin", Vector),
    op("hivm.hir.vmul", Vector),
    op("hivm.hir.vnot", Vector),
    op("hivm.hir.vor", Vector),
    op("hivm.hir.vpad", Vector),
    op("hivm.hir.vrec", Vector),
    op_with(
        "hivm.hir.vreduce",
        Vector,
        HivmFlags {
            last_axis_reduce_shifts: true,
            ..NONE
        },
    ),
    op("hivm.hir.vrelu", Vector),
    op("hivm.hir.vrsqrt", Vector),
    op("hivm.hir.vsel", Vector),
    op_with("hivm.hir.vsort", Vector, HivmFlags { sort: true, ..NONE }),
    op("hivm.hir.vsqrt", Vector),
    op("hivm.hir.vsub", Vector),
    op_with(
        "hivm.hir.vtranspose",
        Vector,
        HivmFlags {
            transpose: true,
            ..NONE
        },
    ),
    op("hivm.hir.vxor", Vector),
];

impl HivmOp {
    /// Whether this is a UB DMA for the row rule (`load`, `store`, `copy`).
    pub fn is_ub_dma(&self) -> bool {
        matches!(self.kind, Load | Store | Copy)
    }

    /// Whether operand marks are unioned across this op's UB operands
    /// (vector ops and `copy`, not `load`/`store`).
    pub fn propagates_among_operands(&self) -> bool {
        matches!(self.kind, Vector | Copy)
    }
}

/// The table row of an HIVM structured op, if `name` is one.
pub fn hivm_op(name: &str) -> Option<&'static HivmOp> {
    HIVM_OPS
        .binary_search_by(|o| o.name.cmp(name))
        .ok()
        .map(|i| &HIVM_OPS[i])
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
/// Vector loads (`vlds`) that need contiguous buffers.
pub const VECTOR_LOAD_OPS: &[&str] = &["vector.transfer_read", "vector.load"];
/// The vector load `hivm-pre-mark-stride-align` looks for in callees.
pub const TRANSFER_READ: &str = "vector.transfer_read";
/// The vector store `vsstb` marking looks for in callees.
pub const TRANSFER_WRITE: &str = "vector.transfer_write";
/// Vector stores, candidates for `vsstb`.
pub const VECTOR_STORE_OPS: &[&str] = &["vector.transfer_write", "vector.store"];

/// Operand groups and attributes of the HIVM structured op syntax.
pub mod hivm_syntax {
    /// Name prefix of HIVM ops.
    pub const PREFIX: &str = "hivm.hir.";
    /// Input operand group.
    pub const INS: &str = "ins";
    /// Output operand group.
    pub const OUTS: &str = "outs";
    /// Scratch buffers: never marked, never part of operand unions.
    pub const TEMP_BUFFER: &str = "temp_buffer";
    /// `vtranspose` permutation.
    pub const PERMUTATION: &str = "permutation";
    /// `vbrc` broadcast dims.
    pub const BROADCAST_DIMS: &str = "broadcast_dims";
    /// `vreduce` reduction dims.
    pub const REDUCE_DIMS: &str = "reduce_dims";
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
    /// The sum reduction kind.
    pub const SUM: &str = "<sum>";
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
    fn table_is_sorted_and_unique() {
        for w in HIVM_OPS.windows(2) {
            assert!(w[0].name < w[1].name, "{} !< {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(hivm_op("hivm.hir.load").map(|o| o.kind), Some(Load));
        assert!(hivm_op("hivm.hir.copy").unwrap().is_ub_dma());
        assert!(hivm_op("hivm.hir.copy")
            .unwrap()
            .propagates_among_operands());
        assert!(!hivm_op("hivm.hir.load")
            .unwrap()
            .propagates_among_operands());
        assert!(
            hivm_op("hivm.hir.vbrc")
                .unwrap()
                .flags
                .last_dim_broadcast_shifts
        );
        assert!(hivm_op("hivm.hir.pointer_cast").is_none());
        assert_eq!(view_kind("memref.subview"), Some(ViewKind::Subview));
        assert_eq!(view_kind("memref.alloc"), None);
        assert_eq!(flow_kind("scf.for"), Some(FlowKind::For));
    }
}
