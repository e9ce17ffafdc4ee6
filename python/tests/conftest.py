"""Shared inputs: the repository's examples and the small programs of the
Rust tests (crates/cli/tests/plan.rs, solve.rs)."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The kernel of crates/cli/tests/plan.rs.
KERNEL = """# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)
        return r
"""

#: The problem of crates/cli/tests/solve.rs.
PROBLEM = "id,lower,upper,size\na,0,2,64\nb,1,3,64\nc,2,4,64\n"


@pytest.fixture
def kernel() -> str:
    return KERNEL


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT
