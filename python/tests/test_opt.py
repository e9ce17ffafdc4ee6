"""tilemem.opt: the HIVM passes, as tests/lit runs them through the CLI."""

import pytest

import tilemem
from conftest import ROOT

UNALIGNED = (ROOT / "examples/mlir/unaligned_rows.mlir").read_text()
PASSES = ["hivm-mark-stride-align", "hivm-enable-stride-align"]


def test_pads_unaligned_rows():
    out = tilemem.opt(UNALIGNED, PASSES)
    # 13 i8 rows are padded to 32 bytes; 3 i32 rows to 8 elements.
    assert "memref.alloc() : memref<3x32x1xi8, #hivm.address_space<ub>>" in out
    assert "memref.alloc() : memref<37x5x8x1xi32, #hivm.address_space<ub>>" in out
    assert "attributes {hivm.storage_aligned}" in out
    # Leading dashes are accepted, as on the command line; the pass is
    # idempotent on its output.
    assert tilemem.opt(UNALIGNED, ["-" + p for p in PASSES]) == out
    assert tilemem.opt(out, PASSES) == out


def test_pass_failure_is_a_plan_error_at_the_op():
    text = (ROOT / "tests/lit/stride-align/mark-errors.mlir").read_text()
    with pytest.raises(tilemem.PlanError) as info:
        tilemem.opt(text, ["hivm-mark-stride-align"], file="m.mlir", split_input_file=True)
    e = info.value
    assert e.file == "m.mlir" and e.line is not None and e.col == 3
    assert "Not bufferized." in e.message


def test_syntax_error_and_unknown_pass():
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt("func.func @f( {\n", PASSES, file="x.mlir")
    assert info.value.file == "x.mlir" and info.value.line == 1
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
        tilemem.opt(UNALIGNED, ["no-such-pass"])
    names = [name for name, _ in tilemem.mlir_passes()]
    assert set(PASSES) <= set(names)
