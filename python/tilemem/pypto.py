"""A PyPTO adapter: tilemem's planner as PyPTO's memory passes.

``memory_passes(planner=...)`` returns a function that takes a PyPTO
``Program`` (or its DSL text), plans its memory with tilemem and returns the
planned program, read back with ``pypto.language.parse_program``::

    import tilemem.pypto
    run = tilemem.pypto.memory_passes(planner="dsa-rp", target="950")
    planned = run(program)          # a pypto Program in, a pypto Program out

The program text is taken from the first of: a ``str`` given directly,
``program.as_python()``, ``pypto.ir.python_print(program)``, ``str(program)``.
Given a ``str``, the planned text is returned as a ``str`` and PyPTO is not
needed at all.
"""

from typing import Any, Callable, Optional, Sequence

from . import plan as _plan

__all__ = ["memory_passes", "program_text"]


def program_text(program: Any) -> str:
    """The ``@pl.program`` DSL text of a PyPTO program (or the text itself)."""
    if isinstance(program, str):
        return program
    as_python = getattr(program, "as_python", None)
    if callable(as_python):
        return str(as_python())
    try:
        from pypto import ir  # type: ignore[import-not-found]

        printer = getattr(ir, "python_print", None)
        if callable(printer):
            return str(printer(program))
    except ImportError:
        pass
    return str(program)


def memory_passes(
    planner: str = "pypto",
    target: str = "910b",
    passes: Optional[Sequence[str]] = None,
    **options: Any,
) -> Callable[[Any], Any]:
    """The memory passes as one callable ``run(program) -> program``.

    Args:
        planner: ``"pypto"``, ``"dsa-rp"``, ``"ptoas"`` or ``"optimal"``.
        target: ``"910b"``, ``"950"``, ``"310b"`` or ``"none"``.
        passes: the passes to run (default: the planner's pipeline).
        **options: further keywords of :func:`tilemem.plan`
            (``time_limit``, ``node_limit``, ``penalty_first``, ``compat``).

    The callable raises tilemem's exceptions (``ParseError``,
    ``PlanError``, ``CapacityError``); planning diagnostics are on its
    ``last_diagnostics`` attribute after each call.
    """

    def run(program: Any) -> Any:
        planned = _plan(
            program_text(program), target=target, planner=planner, passes=passes, **options
        )
        run.last_diagnostics = planned.diagnostics  # type: ignore[attr-defined]
        if isinstance(program, str):
            return planned.program
        from pypto.language import parse_program  # type: ignore[import-not-found]

        return parse_program(planned.program)

    run.last_diagnostics = []  # type: ignore[attr-defined]
    run.__name__ = f"tilemem_memory_passes_{planner.replace('-', '_')}"
    return run
