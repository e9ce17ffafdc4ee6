# pypto.program: Branches
import pypto.language as pl

@pl.program
class Branches:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 32], pl.FP32]:
        t: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        if c < 1:  # small
            r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        else:
            # between the branches
            if c == 1:
                r2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
            else:
                # nothing to do
                pl.yield_()
        for i, (acc,) in pl.range(4, init_values=(t,)):
            nxt: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            out: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        # trailing comment of the body
    # a comment after the last function
