# pypto.program: WideChain
# 96 x 256 FP32 tiles: two of them (98304 bytes each) are live together
# at line 12, 8 KiB more than the 184 KiB of a 910B vector buffer.
# Try: tilemem explain examples/pto/over_capacity.py --map out/over.html
import pypto.language as pl

@pl.program
class WideChain:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def softmax_rows(a: pl.Tensor[[96, 256], pl.FP32], output: pl.Out[pl.Tensor[[96, 256], pl.FP32]]) -> pl.Tensor[[96, 256], pl.FP32]:
        tile_a: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [96, 256], [96, 256], target_memory=pl.Mem.Vec)
        max_tmp: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.create([96, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_max: pl.Tile[[96, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(tile_a, max_tmp)
        shifted: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(tile_a, row_max)
        exp_shifted: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.exp(shifted)
        sum_tmp: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.create([96, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_sum: pl.Tile[[96, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(exp_shifted, sum_tmp)
        result: pl.Tile[[96, 256], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(exp_shifted, row_sum)
        stored: pl.Tensor[[96, 256], pl.FP32] = pl.tile.store(result, [0, 0], output)
        return stored
