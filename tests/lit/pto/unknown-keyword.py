# RUN: not tilemem fmt %s 2>&1 | FileCheck %s
# An op that declares keyword attributes rejects any other keyword, at the
# keyword, listing what it accepts.
# CHECK: error: 'tile.load' has no keyword argument 'pad': PyPTO e2d0f78 accepts the attributes target_memory (MemorySpace), clamp (bool), the arguments tensor, offsets, shapes, valid_shape by name, `attrs=`
# CHECK-NEXT: --> {{.*}}unknown-keyword.py:[[@LINE+8]]:113
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec, pad=0)
        return x
