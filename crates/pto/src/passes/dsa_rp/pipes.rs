//! The pipe recognizer: which hardware pipe executes the op of a statement,
//! as far as the reuse-penalty model needs it.
//!
//! The answer depends on the memory spaces involved, not only on the op:
//! `tile.move` is an MTE1 transfer from Mat into Left/Right/Bias, a fixpipe
//! transfer out of Acc, a vector copy inside Vec; `tile.store` is fixpipe
//! from Acc and MTE3 otherwise. `None` means "uncertain" (cross-core pipe
//! pops and pushes, moves between unusual spaces, views, non-op statements):
//! such accesses never create a penalty.

use crate::ir::{Expr, Function, MemSpace, StmtId, Type};

/// A hardware pipe, as far as the penalty model distinguishes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum HwPipe {
    /// GM -> UB/L1.
    Mte2,
    /// UB/L1 -> GM.
    Mte3,
    /// L1 -> L0A/L0B.
    Mte1,
    /// Vector unit.
    Vector,
    /// Cube unit.
    Cube,
    /// L0C -> anywhere.
    Fixpipe,
}

impl HwPipe {
    /// Short name used in exported side files.
    pub fn name(self) -> &'static str {
        match self {
            HwPipe::Mte2 => "MTE2",
            HwPipe::Mte3 => "MTE3",
            HwPipe::Mte1 => "MTE1",
            HwPipe::Vector => "V",
            HwPipe::Cube => "M",
            HwPipe::Fixpipe => "FIX",
        }
    }
}

/// Ops that only re-describe existing bytes: they neither read nor write
/// storage for the penalty model.
pub(crate) fn is_view_op(op: &str) -> bool {
    crate::ops::lookup(op).is_some_and(|o| o.is_view())
        || matches!(op, "tile.reshape" | "tile.slice")
}

/// Memory space of a variable's tile type.
pub(crate) fn tile_space(f: &Function, v: crate::ir::VarId) -> Option<MemSpace> {
    match f.ty(v)? {
        Type::Tile(t) => t.space.clone(),
        _ => None,
    }
}

/// The pipe of statement `s` (an assignment or expression statement with a
/// call), or `None` when uncertain or not an access.
pub(crate) fn stmt_pipe(f: &Function, s: StmtId) -> Option<HwPipe> {
    let st = &f.stmts[s];
    let call = st.call()?;
    let op = call.op_name();
    if is_view_op(op) {
        return None;
    }
    let arg_space = |i: usize| {
        call.args
            .get(i)
            .and_then(Expr::as_var)
            .and_then(|v| tile_space(f, v))
    };
    let out_space = st.def().and_then(|v| tile_space(f, v));
    match op {
        "tile.load" => Some(HwPipe::Mte2),
        "tile.store" => match arg_space(0) {
            Some(MemSpace::Acc) => Some(HwPipe::Fixpipe),
            _ => Some(HwPipe::Mte3),
        },
        "tile.move" => match (arg_space(0), out_space) {
            (Some(MemSpace::Mat), Some(MemSpace::Left | MemSpace::Right | MemSpace::Bias)) => {
                Some(HwPipe::Mte1)
            }
            (Some(MemSpace::Acc), _) => Some(HwPipe::Fixpipe),
            (Some(MemSpace::Vec), Some(MemSpace::Vec)) => Some(HwPipe::Vector),
            (Some(MemSpace::Vec), Some(MemSpace::Mat)) => Some(HwPipe::Mte3),
            _ => None,
        },
        "tile.matmul" | "tile.matmul_acc" | "tile.matmul_bias" | "tile.gemv" | "tile.gemv_acc"
        | "tile.gemv_bias" => Some(HwPipe::Cube),
        _ if op.starts_with("tile.tpop") || op.starts_with("tile.tpush") => None,
        "tile.alloc" => None,
        _ if op.starts_with("tile.") => Some(HwPipe::Vector),
        _ => None,
    }
}
