# pypto.program: Misc
import pypto.language as pl

@pl.program
class Misc:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.BF16, pl.MemRef("mem_ddr_0", 0, 512)], k: pl.Scalar[pl.INT32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_acc_1: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=4096, base=-1)
        acc: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_1, pl.const(0, pl.INT64), 1024, slots=2)[k % 2], pl.Mem.Acc] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        s: pl.Tile[[8, 16], pl.BF16, pl.MemRef(mem_vec_2, k * 256 + 64, 256), pl.Mem.Vec, pl.TileView(valid_shape=[8, k], pad=pl.PadValue.max)] = pl.tile.slice(acc, [8, 16], [0, 0])
        d: pl.Tile[[16, 16], pl.FP32, pl.MemRef("l0c", slots=2)[0], pl.Mem.Acc] = acc
        pair: pl.Tuple[pl.Scalar[pl.INT32], pl.Scalar[pl.INT32]] = pl.tile.sort32(s, s, reverse=False, tag=None, note="a \"b\"\n")
        first: pl.Scalar[pl.INT32] = pair[0]
        neg: pl.Scalar[pl.INT32] = -(first + 1) * -2 ** 3
        flag: pl.Scalar[pl.BOOL] = pl.const(128, pl.INDEX) == pl.const(0, pl.INDEX)
        pl.tile.store(d, [0, 0], o)
        return first, neg