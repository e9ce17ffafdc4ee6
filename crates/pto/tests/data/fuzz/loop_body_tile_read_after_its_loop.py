# pypto.program: M
import pypto.language as pl

@pl.program
class M:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(x: pl.Tensor[[256, 64], pl.FP32], out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(u)
        w: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(nxt)
        z: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(w, t)
        res: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(z, [0, 0], out)
        return res
