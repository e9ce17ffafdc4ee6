//! What several end-to-end suites share.

/// A one-function kernel: `a` loaded, `b = exp(a)` in place, `b` stored.
pub const KERNEL: &str = "# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)
        return r
";
