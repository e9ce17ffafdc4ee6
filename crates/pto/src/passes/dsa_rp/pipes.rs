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
use crate::ops::Pipe;

/// Ops that only re-describe existing bytes: they neither read nor write
/// storage for the penalty model.
pub(crate) fn is_view_op(op: &str) -> bool {
    crate::ops::lookup(op).is_some_and(|o| o.is_view())
        || matches!(op, "tile.reshape" | "tile.slice")
}

/// Memory space of a variable's tile type.
pub(crate) fn tile_space(f: &Function, v: crate::ir::VarId) -> Option<MemSpace> {
    match f.ty(v)? {
        Type::Tile(t) => t.space,
        _ => None,
    }
}

/// The pipe of statement `s` (an assignment or expression statement with a
/// call), or `None` when uncertain or not an access.
pub(crate) fn stmt_pipe(f: &Function, s: StmtId) -> Option<Pipe> {
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
    // The op table knows each op's pipe; only stores and moves depend on
    // the spaces involved, and cross-core pushes and pops are uncertain.
    if op.starts_with("tile.tpop") || op.starts_with("tile.tpush") {
        return None;
    }
    // Tile ops missing from the table take its conservative default row
    // (vector); anything else is not a tile access.
    let info = match crate::ops::lookup(op) {
        Some(info) => info,
        None if op.starts_with("tile.") => &crate::ops::DEFAULT_OP,
        None => return None,
    };
    match (info.pipe, op.strip_prefix("pl.").unwrap_or(op)) {
        (_, "tile.store") => match arg_space(0) {
            Some(MemSpace::Acc) => Some(Pipe::Fixpipe),
            _ => Some(Pipe::Mte3),
        },
        (_, "tile.move") => match (arg_space(0), out_space) {
            (Some(MemSpace::Mat), Some(MemSpace::Left | MemSpace::Right | MemSpace::Bias)) => {
                Some(Pipe::Mte1)
            }
            (Some(MemSpace::Acc), _) => Some(Pipe::Fixpipe),
            (Some(MemSpace::Vec), Some(MemSpace::Vec)) => Some(Pipe::Vector),
            (Some(MemSpace::Vec), Some(MemSpace::Mat)) => Some(Pipe::Mte3),
            _ => None,
        },
        (Pipe::Scalar, _) => None,
        (pipe, _) => Some(pipe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each statement's pipe: the table's for most ops, refined by the
    /// spaces for stores and moves; views, allocations and cross-core
    /// pops are uncertain.
    #[test]
    fn pipes_follow_the_op_table_and_the_spaces() {
        let src = "# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def main(x: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        m: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        l: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
        r: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(v, v)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(a, [0, 0], y)
        t: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(w, [0, 0], y)
        q: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(w, [8, 32])
        return t
";
        let p = crate::parse(src).expect("parses");
        let f = &p.functions[0];
        let got: Vec<Option<&str>> = f
            .walk()
            .into_iter()
            .filter(|&(_, s)| f.stmts[s].call().is_some())
            .map(|(_, s)| stmt_pipe(f, s).map(Pipe::name))
            .collect();
        assert_eq!(
            got,
            [
                Some("MTE2"),
                Some("MTE1"),
                Some("MTE1"),
                Some("M"),
                Some("FIX"),
                Some("V"),
                Some("FIX"),
                Some("MTE3"),
                None,
            ]
        );
    }
}
