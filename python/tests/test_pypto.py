"""tilemem.pypto: the adapter on program text, and on PyPTO programs when
PyPTO is installed (skipped visibly otherwise: `pytest -rs` lists why)."""

import os

import pytest

import tilemem
import tilemem.pypto
from conftest import KERNEL


def test_adapter_plans_text_without_pypto():
    run = tilemem.pypto.memory_passes(planner="pypto", target="910b")
    assert run(KERNEL) == tilemem.plan(KERNEL).program
    assert run.last_diagnostics == []
    dsa = tilemem.pypto.memory_passes(planner="dsa-rp")(KERNEL)
    assert dsa == tilemem.plan(KERNEL, planner="dsa-rp").program


def test_adapter_takes_any_printable_program():
    class Program:
        def as_python(self):
            return KERNEL

    assert tilemem.pypto.program_text(Program()) == KERNEL
    assert tilemem.pypto.program_text(KERNEL) == KERNEL


SHARED = os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "data", "pto", "msgpack", "kernels"
)


def shared_document(kernel, planner, stage):
    d = os.path.join(SHARED, kernel, planner)
    if not os.path.isdir(d):
        pytest.skip(f"no ../shared: {d} not found")
    name = next(f for f in sorted(os.listdir(d)) if f.startswith(stage))
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def test_adapter_plans_documents_as_pypto_does():
    # PyPTO's own document after MaterializeSemanticAliases in, tilemem's
    # MemoryReuse + AllocateMemoryAddr, PyPTO's own document after
    # AllocateMemoryAddr out: byte for byte.
    before = shared_document("tile_add", "pypto", "33_")
    after = shared_document("tile_add", "pypto", "35_")
    run = tilemem.pypto.memory_passes(
        planner="pypto", passes=["memory_reuse", "allocate_memory_addr"]
    )
    assert run(before) == after
    assert run(bytearray(before)) == after
    full = tilemem.pypto.memory_passes(planner="pypto")
    assert full(shared_document("tile_add", "pypto", "31_")) == after


def test_adapter_rejects_a_truncated_document():
    with pytest.raises(tilemem.ParseError, match="byte"):
        tilemem.pypto.memory_passes()(bytes([0x83, 0xA6]) + b"fields")


def pypto_ir():
    ir = pytest.importorskip("pypto.ir", reason="PyPTO is not installed")
    if not hasattr(ir, "serialize"):
        pytest.skip("the installed pypto has no pypto.ir.serialize (not hw-native-sys/pypto)")
    return ir


def test_adapter_on_a_pypto_program():
    ir = pypto_ir()
    import pypto.language as pl  # type: ignore[import-not-found]

    program = pl.parse_program(KERNEL)
    planned = tilemem.pypto.memory_passes(planner="pypto")(program)
    # PyPTO reads back what tilemem writes, and prints the planned program.
    again = ir.deserialize(ir.serialize(planned))
    text = tilemem.pypto.program_text(again)
    assert "pl.tile.alloc(pl.Mem.Vec, 256)" in text


def test_pypto_reads_every_planned_document():
    # PyPTO's own documents after its passes are the reference: each
    # document tilemem writes must deserialize, and print as PyPTO's does.
    ir = pypto_ir()
    if not os.path.isdir(SHARED):
        pytest.skip(f"no ../shared: {SHARED} not found")
    same = differ = 0
    for kernel in sorted(os.listdir(SHARED)):
        d = os.path.join(SHARED, kernel, "pypto")
        names = sorted(os.listdir(d))
        before = [n for n in names if n.startswith("33_")]
        after = [n for n in names if n.startswith("35_")]
        if not before or not after:
            continue
        with open(os.path.join(d, before[0]), "rb") as f:
            doc = f.read()
        with open(os.path.join(d, after[0]), "rb") as f:
            want = ir.deserialize(f.read())
        try:
            out = tilemem.pypto.plan_document(
                doc, target="950" if kernel.endswith("__a5") else "910b",
                passes=["memory_reuse", "allocate_memory_addr"],
            )[0]
        except tilemem.Error:
            continue
        got = ir.deserialize(out)
        if ir.python_print(got) == ir.python_print(want):
            same += 1
        else:
            differ += 1
    print(f"pypto printed equal: {same} passed, {differ} failed")
    assert same > 0
