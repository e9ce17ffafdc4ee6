# A hand-written kernel: plain tiles, no MemRefs yet.
import pypto.language as pl


@pl.program
class Hand:
  # the only kernel
  @pl.function(type=pl.FunctionType.InCore)
  def kernel(x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],) -> pl.Tensor[[64, 64], pl.FP32]:
    a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(
        x, [0, 0], [64, 64], [64, 64],  # offsets and shapes
        target_memory=pl.Mem.Vec,
    )

    # square it
    b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(a, a)  # b = a * a
    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = \
        pl.tile.add(b, (a))
    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
    return r
