# pypto.program: M
import pypto.language as pl

@pl.program
class M:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(x: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INT32], out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        if n == 0:
            b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
            r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
        elif n == 1:
            c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, a)
            r2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)
        else:
            d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(a, a)
            r2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(d)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        z: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(e, r2)
        res: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(z, [0, 0], out)
        return res
