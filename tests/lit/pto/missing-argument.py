# RUN: not tilemem fmt %s 2>&1 | FileCheck %s
# An argument a registry memory fact names must be given, positionally or
# by name.
# CHECK: error: 'tile.matmul_acc' needs argument 'rhs' (position 2 of acc, lhs, rhs, init_cond), found 2 positional arguments: pass it positionally or as `rhs=`
# CHECK-NEXT: --> {{.*}}missing-argument.py:[[@LINE+8]]:53
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc], a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc]:
        d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, a)
        return d
