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


def test_a_pass_rejecting_its_input_is_a_parse_error_at_the_op():
    # The command line's exit 2: the module is not bufferized.
    text = (ROOT / "tests/lit/stride-align/mark-errors.mlir").read_text()
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt(text, ["hivm-mark-stride-align"], file="m.mlir", split_input_file=True)
    e = info.value
    assert (e.file, e.line, e.col) == ("m.mlir", 9, 3)
    assert e.message == "Not bufferized."  # the first chunk fails; the others are not run


def test_an_op_whose_sizes_cannot_be_aligned_is_a_parse_error_at_the_op():
    # The command line's exit 2 (it was 1, a PlanError): markAllocAlign
    # fails only on properties of the module.
    text = (ROOT / "tests/lit/stride-align/align-alloc-size-errors.mlir").read_text()
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt(text, ["hivm-align-alloc-size"], file="a.mlir")
    e = info.value
    assert (e.file, e.line, e.col) == ("a.mlir", 12, 3)
    assert e.message.startswith(
        "cannot align the allocation sizes this op needs: a transpose of 32-bit elements"
    ), e.message


def test_a_pass_that_fails_on_its_own_is_a_plan_error():
    # The command line's exit 1: the propagation does not converge.
    text = (ROOT / "tests/lit/stride-align/enable-max-iterations-error.mlir").read_text()
    with pytest.raises(tilemem.PlanError) as info:
        tilemem.opt(text, ["hivm-enable-stride-align"], file="i.mlir")
    assert not isinstance(info.value, ValueError)
    assert info.value.message.startswith(
        "propagate storage align failure and match the max iterations10"
    ), info.value.message


def test_syntax_error_and_unknown_pass():
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt("func.func @f( {\n", PASSES, file="x.mlir")
    assert info.value.file == "x.mlir" and info.value.line == 1
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
        tilemem.opt(UNALIGNED, ["no-such-pass"])
    names = [name for name, _ in tilemem.mlir_passes()]
    assert set(PASSES) <= set(names)


FRAGMENTED = """
func.func @fragmented(%ga: memref<32768xf16, #hivm.address_space<gm>>, %gd: memref<65536xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  %c = memref.alloc() : memref<32768xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%a : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%b : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.load ins(%ga : memref<32768xf16, #hivm.address_space<gm>>) outs(%c : memref<32768xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%a : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%c : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  %d = memref.alloc() : memref<65536xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gd : memref<65536xf16, #hivm.address_space<gm>>) outs(%d : memref<65536xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%d : memref<65536xf16, #hivm.address_space<ub>>) outs(%gd : memref<65536xf16, #hivm.address_space<gm>>)
  hivm.hir.store ins(%b : memref<32768xf16, #hivm.address_space<ub>>) outs(%ga : memref<32768xf16, #hivm.address_space<gm>>)
  return
}
"""
SPEC = "hacc-append-device-spec=target=Ascend910B1"


def test_plan_memory_options_and_the_optimal_planner():
    # bishengir's first-fit order overflows; the optimal planner places it.
    with pytest.raises(tilemem.PlanError, match="ub overflow, requires 2097152 bits"):
        tilemem.opt(FRAGMENTED, [SPEC, "hivm-plan-memory"])
    out = tilemem.opt(FRAGMENTED, [SPEC, "hivm-plan-memory=planner=optimal"])
    assert "hivm.hir.pointer_cast(%c131072_i64) : memref<32768xf16" in out
    assert tilemem.opt(FRAGMENTED, [SPEC, "hivm-plan-memory{planner=optimal}"]) == out
    with pytest.raises(ValueError, match="option 'planner' takes bishengir or optimal"):
        tilemem.opt(FRAGMENTED, ["hivm-plan-memory=planner=best"])


def test_explain_mlir_text():
    ex = tilemem.explain(FRAGMENTED, file="k.mlir")
    assert not ex.fits
    text = ex.text
    assert "@fragmented/ub: does not fit: planner bishengir overflows" in text
    assert "peak: k.mlir:8:3 (hivm.hir.load)" in text
    assert "lower bound: 196608 bytes <= capacity 196608" in text
    assert "- use the optimal planner (-hivm-plan-memory=planner=optimal): then 196608 bytes" in text
    fixed = tilemem.explain(FRAGMENTED, planner="optimal")
    assert fixed.fits and "every space fits" in fixed.text
    with pytest.raises(ValueError, match="unknown planner 'dsa-rp'"):
        tilemem.explain(FRAGMENTED, planner="dsa-rp")
