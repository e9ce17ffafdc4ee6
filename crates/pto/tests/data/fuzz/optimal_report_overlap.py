# pypto.program: ControlFlow
import pypto.language as pl

@pl.program
class ControlFlow:
    @pl.function(type=pl.FunctionType.InCore, levdl=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            if i < 2:
                u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
                r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(u)
            else:
                v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile
            pl.cond(n > 0 and not n == 3)
            w2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(acc)
            w_out: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(w2)
        for u in pl.parallel(2):
            k: pl.Scalar[pl.INDEX] = 1 << 6 + u * 2 - (u - 1) % 3 // 2
        res: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(w_out, [0, 0], out)
        return res
