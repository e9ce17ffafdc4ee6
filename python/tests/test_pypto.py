"""tilemem.pypto: the adapter on program text, and on PyPTO programs when
PyPTO is installed (skipped visibly otherwise: `pytest -rs` lists why)."""

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


def test_adapter_on_a_pypto_program():
    pl = pytest.importorskip("pypto.language", reason="PyPTO is not installed")
    program = pl.parse_program(KERNEL)
    planned = tilemem.pypto.memory_passes(planner="pypto")(program)
    text = tilemem.pypto.program_text(planned)
    assert "pl.tile.alloc(pl.Mem.Vec, 256)" in text
