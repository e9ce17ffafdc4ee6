"""A PyPTO adapter: tilemem's planner as PyPTO's memory passes.

``memory_passes(planner=...)`` returns a function that takes a PyPTO
``Program``, plans its memory with tilemem and returns the planned
``Program``::

    import tilemem.pypto
    run = tilemem.pypto.memory_passes(planner="dsa-rp", target="950")
    planned = run(program)          # a pypto Program in, a pypto Program out

The program goes through PyPTO's own binary IR, not its text: it is
serialized with ``pypto.ir.serialize``, planned in Rust with the GIL
released, and the planned document is read back with
``pypto.ir.deserialize``. Nothing is parsed, so the result keeps the
user's source spans and the constant types PyPTO's passes give (MemRef
offsets are ``INT64``), and PyPTO's parser never runs.

Given ``bytes`` (a document of ``pypto.ir.serialize``), the planned document
is returned as ``bytes``; given a ``str`` (the ``@pl.program`` text), the
planned text is returned as a ``str``. Neither needs PyPTO.
"""

from typing import Any, Callable, Optional, Sequence

from . import _tilemem
from . import plan as _plan

__all__ = ["memory_passes", "program_text", "plan_document"]


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


def plan_document(
    data: bytes,
    target: str = "910b",
    planner: str = "pypto",
    passes: Optional[Sequence[str]] = None,
    **options: Any,
):
    """Plans a PyPTO MessagePack document; returns ``(document, report,
    diagnostics)`` with ``report`` as JSON text (``tilemem plan K.msgpack``).
    """
    if isinstance(passes, str):
        passes = passes.split(",")
    return _tilemem.plan_document(
        bytes(data),
        target=target,
        planner=planner,
        passes=None if passes is None else list(passes),
        **options,
    )


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
        if isinstance(program, str):
            planned = _plan(program, target=target, planner=planner, passes=passes, **options)
            run.last_diagnostics = planned.diagnostics  # type: ignore[attr-defined]
            return planned.program
        if isinstance(program, (bytes, bytearray, memoryview)):
            out, _report, diagnostics = plan_document(
                bytes(program), target=target, planner=planner, passes=passes, **options
            )
            run.last_diagnostics = diagnostics  # type: ignore[attr-defined]
            return out
        from pypto import ir  # type: ignore[import-not-found]

        out, _report, diagnostics = plan_document(
            ir.serialize(program), target=target, planner=planner, passes=passes, **options
        )
        run.last_diagnostics = diagnostics  # type: ignore[attr-defined]
        return ir.deserialize(out)

    run.last_diagnostics = []  # type: ignore[attr-defined]
    run.__name__ = f"tilemem_memory_passes_{planner.replace('-', '_')}"
    return run
