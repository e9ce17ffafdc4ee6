# RUN: not tilemem plan %s 2>&1 | FileCheck %s
# RUN: sed -e 's/BF16\] = pl.tile.load/BF16, pl.Mem.Mat] = pl.tile.load/' -e 's/\[16, 16\])$/[16, 16], target_memory=pl.Mem.Mat)/' %s > %t.py
# RUN: tilemem plan %t.py -q -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
# A constrained operand without a space gets no storage: bad input. A
# declared space the registry does not allow is planned as written (PyPTO's
# memory passes do the same), with a warning.
# CHECK: input-space.py:[[@LINE+11]]:9: ValueError: 'tile.matmul' argument 0 (lhs) 'a' is a tile without a memory space, so it gets no storage; PyPTO e2d0f78 registers the argument for Left (set_input_memory): declare the space in its type (`pl.Mem.Left`)
# WARN: [warning] line [[@LINE+10]]: 'tile.matmul' argument 0 (lhs) 'a' is in Mat, but PyPTO e2d0f78 registers the argument for Left only (set_input_memory); planned as declared: move it first (`pl.tile.move(a, target_memory=pl.Mem.Left)`) unless the target reads it there
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.BF16] = pl.tile.load(x, [0, 0], [16, 16], [16, 16])
        b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
