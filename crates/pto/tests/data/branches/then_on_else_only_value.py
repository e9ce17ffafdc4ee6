import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 8], pl.FP32], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        if c < 1:
            b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
            e: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)
            p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(e)
        else:
            d: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
            p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(d)
        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p, [0, 0], y)
        return r
