//! The pipe recognizer: which hardware pipe executes the op of a statement,
//! as far as the reuse-penalty model needs it.
//!
//! The op table gives each op's pipe. Transfers ([`Pipe::Route`]:
//! `tile.load`, `tile.store`, `tile.move`) take the pipe of the SoC
//! memory-graph edge they move data along ([`crate::ops::route_pipe`]):
//! `tile.move` is an MTE1 transfer from Mat into Left/Right/Bias, a fixpipe
//! transfer out of Acc, a vector copy inside one space; `tile.store` is
//! fixpipe from Acc and MTE3 from Vec. An assemble ([`Pipe::Insert`])
//! writes its source into the target's space ([`crate::ops::insert_pipe`]).
//! `None` means "no pipe" (views,
//! allocations, scalar ops, cross-core pushes and pops, routes the SoC
//! lacks, non-op statements): such accesses never create a penalty.

use tilemem_soc::Family;

use crate::ir::{Expr, Function, MemSpace, StmtId, Type};
use crate::ops::{Evidence, OpClass, OutSpace, Pipe};

/// Memory space of a variable's tile type.
pub(crate) fn tile_space(f: &Function, v: crate::ir::VarId) -> Option<MemSpace> {
    match f.ty(v)? {
        Type::Tile(t, _) => t.space,
        _ => None,
    }
}

/// The space of tile `v`, when it is one the SoC knows.
fn soc_space(f: &Function, v: Option<crate::ir::VarId>) -> Option<MemSpace> {
    tile_space(f, v?).filter(|s| s.is_known())
}

/// The pipe of statement `s` (an assignment or expression statement with a
/// call) on `family`, or `None` when it has none or is not an access.
pub(crate) fn stmt_pipe(f: &Function, s: StmtId, family: Family) -> Option<Pipe> {
    let st = &f.stmts[s];
    let call = st.call()?;
    let info = crate::ops::lookup(call.op_name())?;
    // PyPTO's TryInferPipe: no pipe for an op without execution memory
    // access (views, allocations, `tile.create`).
    if info.is_view() || info.evidence == Evidence::NoAccess {
        return None;
    }
    match info.pipe {
        Pipe::Route => {
            // A load reads GM and a store writes it (the op's class and
            // result space); a move's ends are its tiles' spaces.
            let from = match info.class {
                OpClass::Load => tilemem_soc::MemSpace::Ddr,
                _ => soc_space(f, call.args.first().and_then(Expr::as_var))?,
            };
            let to = match info.out_space {
                OutSpace::Ddr => tilemem_soc::MemSpace::Ddr,
                _ => soc_space(f, st.def())?,
            };
            crate::ops::route_pipe(from, to, family)
        }
        Pipe::Insert => {
            let from = soc_space(f, call.args.get(1).and_then(Expr::as_var))?;
            let to = soc_space(
                f,
                st.def()
                    .or_else(|| call.args.first().and_then(Expr::as_var)),
            )?;
            crate::ops::insert_pipe(from, to, family)
        }
        Pipe::Scalar => None,
        pipe => Some(pipe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each statement's pipe: the table's for most ops, the memory-graph
    /// route for loads, stores and moves and the window-write rule for
    /// assembles (target aware); views and `tile.create` have none.
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
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        za: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.assemble(z, a, [0, 0])
        zv: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.assemble(za, w, [0, 0])
        zm: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.assemble(zv, m, [0, 0])
        return t
";
        let p = crate::parse(src).expect("parses");
        let f = &p.functions[0];
        let pipes = |family: Family| -> Vec<Option<&str>> {
            f.walk()
                .into_iter()
                .filter(|&(_, s)| f.stmts[s].call().is_some())
                .map(|(_, s)| stmt_pipe(f, s, family).map(Pipe::name))
                .collect()
        };
        let a5 = [
            Some("MTE2"),
            Some("MTE1"),
            Some("MTE1"),
            Some("M"),
            Some("FIX"),
            Some("V"),
            Some("FIX"),
            Some("MTE3"),
            None,
            None,
            Some("FIX"),
            Some("MTE3"),
            None,
        ];
        assert_eq!(pipes(Family::A5), a5);
        // 910B has no Acc -> Vec nor Vec -> Mat route: that move and the
        // Vec -> Mat assemble have no pipe.
        let mut a2a3 = a5;
        a2a3[4] = None;
        a2a3[11] = None;
        assert_eq!(pipes(Family::A2A3), a2a3);
    }
}
