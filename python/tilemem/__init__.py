"""tilemem: on-chip memory planning for tile-based NPU compilers.

The same library calls as the ``tilemem`` command line, from Python::

    import tilemem
    planned = tilemem.plan(open("examples/pto/vector_chain.py").read())
    print(planned.program)                 # the program with its addresses
    print(planned.report["functions"][0])  # per-space usage, as JSON objects
    placed = tilemem.solve([("a", 0, 2, 64), ("b", 1, 3, 64, 32)], capacity=256)
    assert tilemem.validate([("a", 0, 2, 64), ("b", 1, 3, 64, 32)], placed.offsets).ok

Functions: :func:`plan` (PyPTO memory passes), :func:`opt` (HIVM MLIR
passes), :func:`solve` (place a buffer problem) and :func:`validate` (check a
placement independently). Errors are :class:`ParseError`,
:class:`PlanError` and :class:`CapacityError`, each with ``file``, ``line``
and ``col``. Planning runs with the GIL released, so threads can plan in
parallel. ``tilemem.pypto.memory_passes`` plugs the planner into a PyPTO
compilation.

``Plan.explain()`` and ``Plan.html()`` are not offered yet: they arrive with
the library's explanation output.
"""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _tilemem
from .errors import CapacityError, Error, ParseError, PlanError

__all__ = [
    "plan",
    "opt",
    "solve",
    "validate",
    "mlir_passes",
    "explain",
    "Plan",
    "Placement",
    "Validation",
    "Error",
    "ParseError",
    "PlanError",
    "CapacityError",
]

__version__ = "0.1.0"

#: A buffer of a problem given as a list: ``(id, lower, upper, size)`` or
#: ``(id, lower, upper, size, alignment)``; the lifetime is the half-open
#: ``[lower, upper)``.
BufferRow = Union[Tuple[str, int, int, int], Tuple[str, int, int, int, int]]
Problem = Union[str, "os.PathLike[str]", Sequence[BufferRow]]


@dataclass(frozen=True)
class Plan:
    """The result of :func:`plan`.

    Attributes:
        program: the planned program text (what ``tilemem plan`` prints).
        report: the JSON report (what ``tilemem plan --report`` writes) as
            Python objects: per function and memory space, the buffers,
            bytes used, capacity, lower bound, address ranges and lifetimes.
        diagnostics: warnings and performance hints, one string each, in
            PyPTO's format (``[perf_hint CODE] ...``, ``[warning] ...``).
    """

    program: str
    report: Dict[str, Any]
    diagnostics: List[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.program


def plan(
    text: str,
    target: str = "910b",
    planner: str = "pypto",
    passes: Union[None, str, Sequence[str]] = None,
    *,
    stop_after: Optional[str] = None,
    file: str = "<string>",
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    penalty_first: bool = False,
) -> Plan:
    """Plans the on-chip memory of a PyPTO program (``tilemem plan``).

    Args:
        text: the program text (the ``@pl.program`` DSL, at any stage of the
            memory pipeline).
        target: ``"910b"`` (A2/A3), ``"950"`` (A5), ``"310b"`` or ``"none"``.
        planner: ``"pypto"`` (reuse, then sequential addresses), ``"dsa-rp"``
            (joint placement), ``"ptoas"`` (addresses left to the
            assembler) or ``"optimal"`` (exact solver).
        passes: run exactly these passes, in pipeline order
            (``init_memref``, ``materialize_semantic_aliases``,
            ``memory_reuse``, ``allocate_memory_addr``), as a list or a
            comma-separated string; default: the planner's pipeline.
        stop_after: run the planner's pipeline up to this pass.
        file: the name used in error messages.
        time_limit: optimal planner: seconds per (function, space); default 10.
        node_limit: optimal planner: search nodes per (function, space), a
            reproducible budget; 0 for none; default the CLI's.
        penalty_first: optimal planner: fewest reuse penalties before bytes.

    Raises:
        ParseError: the program does not read, or breaks a rule of the DSL.
        CapacityError: the buffers exceed the chip's on-chip memory.
        PlanError: any other planning failure.
        ValueError: an unknown target, planner or pass name.
    """
    if isinstance(passes, str):
        passes = passes.split(",")  # "init_memref,memory_reuse", as on the command line
    program, report, diagnostics = _tilemem.plan(
        text,
        target=target,
        planner=planner,
        passes=None if passes is None else list(passes),
        stop_after=stop_after,
        file=file,
        time_limit=time_limit,
        node_limit=node_limit,
        penalty_first=penalty_first,
    )
    return Plan(program=program, report=json.loads(report), diagnostics=diagnostics)


def opt(
    mlir_text: str,
    passes: Sequence[str],
    *,
    file: str = "<string>",
    split_input_file: bool = False,
    allow_unregistered_dialect: bool = False,
) -> str:
    """Runs HIVM passes over MLIR text and returns the result (``tilemem opt``).

    Args:
        mlir_text: the module text.
        passes: pass names in run order, with or without the leading dash,
            e.g. ``["hivm-mark-stride-align", "hivm-enable-stride-align"]``,
            each optionally with options as on the command line:
            ``"hivm-plan-memory=planner=optimal"`` or
            ``"hivm-plan-memory{restrict-inplace-as-isa=true}"``
            (:func:`mlir_passes` lists them). The chip comes from the
            module's ``hacc.target`` attribute, as for the command line.
        file: the name used in error messages.
        split_input_file: process each ``// -----`` chunk on its own.
        allow_unregistered_dialect: accept ops of unknown dialects.

    Raises:
        ParseError: the text does not read.
        PlanError: a pass failed (the message holds every diagnostic).
        ValueError: an unknown pass name.
    """
    out, _notes = _tilemem.opt(
        mlir_text,
        list(passes),
        file=file,
        split_input_file=split_input_file,
        allow_unregistered_dialect=allow_unregistered_dialect,
    )
    return out


def explain(
    mlir_text: str,
    *,
    planner: str = "bishengir",
    all: bool = False,
    file: str = "<string>",
) -> str:
    """Explains the local memory of HIVM MLIR text (``tilemem explain FILE.mlir``).

    Per (function, space) that does not fit (every one with ``all``): the
    peak op, the allocations live there largest first, the lower bound
    and whether it proves nothing fits, and remedies, each re-planned.

    Args:
        mlir_text: the module text (the chip from its ``hacc.target``).
        planner: ``"bishengir"`` (PlanMemory's allocator) or ``"optimal"``.
        all: explain every space, not only those that do not fit.
        file: the name used in locations.

    Raises:
        ParseError: the text does not read, or PlanMemory rejects it.
        ValueError: an unknown planner.
    """
    return _tilemem.explain_mlir(mlir_text, file=file, planner=planner, all=all)


def mlir_passes() -> List[Tuple[str, str]]:
    """The HIVM passes :func:`opt` accepts, as ``(name, description)``."""
    return _tilemem.mlir_passes()


@dataclass(frozen=True)
class Placement:
    """The result of :func:`solve`.

    Attributes:
        offsets: buffer id to byte offset, in problem order.
        height: highest ``offset + size``: the bytes the placement needs.
        lower_bound: no placement can be lower than this.
        penalty: summed weight of the penalty pairs that share a byte.
        proven_optimal: whether no lower placement exists.
        solver: the solver that found it.
        capacity: the capacity it was placed in (``None``: unlimited).
        csv: the problem with an ``offset`` column (what ``tilemem solve -o``
            writes), readable by :func:`validate` and ``tilemem validate``.
    """

    offsets: Dict[str, int]
    height: int
    lower_bound: int
    penalty: int
    proven_optimal: bool
    solver: str
    capacity: Optional[int]
    csv: str
    sizes: Dict[str, int] = field(default_factory=dict, repr=False)


def _problem_args(problem: Problem) -> Dict[str, Any]:
    """A problem file path, or the rows of a problem list as CSV text."""
    if isinstance(problem, (str, os.PathLike)):
        return {"path": os.fspath(problem)}
    lines = ["id,lower,upper,size,alignment"]
    for i, row in enumerate(problem):
        if len(row) not in (4, 5):
            raise ValueError(
                f"problem[{i}]: expected (id, lower, upper, size[, alignment]), got {row!r}"
            )
        name, lower, upper, size = row[0], row[1], row[2], row[3]
        align = row[4] if len(row) == 5 else 1
        if not isinstance(name, str) or not name or any(c in name for c in ",:\n\r\t "):
            raise ValueError(
                f"problem[{i}]: the id must be a non-empty string without ',', ':' or spaces"
            )
        for v in (lower, upper, size, align):
            if not isinstance(v, int) or isinstance(v, bool):
                raise ValueError(f"problem[{i}]: lower, upper, size and alignment must be ints")
        lines.append(f"{name},{lower},{upper},{size},{align}")
    # Line 1 is the header, so row i is line i + 2 in error messages.
    return {"text": "\n".join(lines) + "\n", "file": "<problem list: row i is line i+2>"}


def solve(
    problem: Problem,
    *,
    capacity: Optional[int] = None,
    solver: str = "auto",
    time_limit: float = 10.0,
    node_limit: Optional[int] = None,
    fit: bool = False,
    penalty_first: bool = False,
    seed: int = 0,
) -> Placement:
    """Places the buffers of a problem (``tilemem solve``).

    Args:
        problem: a problem file (MiniMalloc CSV with optional tilemem
            columns) or a list of ``(id, lower, upper, size[, alignment])``
            with half-open lifetimes ``[lower, upper)``.
        capacity: bytes available (overrides a file's ``# capacity=`` line).
        solver: ``auto``, ``exact``, ``canonical``, ``handoff``,
            ``first-fit``, ``best-fit`` or ``sequential``.
        time_limit: seconds the search may take.
        node_limit: search nodes the search may take: a reproducible budget.
        fit: stop at the first placement within the capacity.
        penalty_first: with penalty pairs, least penalty before least height.
        seed: seed of the shuffled orders.

    Every placement is checked by the independent validator before it is
    returned.

    Raises:
        ParseError: the problem does not read (file, line).
        CapacityError: no placement within the capacity was found.
        ValueError: an unknown solver or a bad budget.
    """
    names, offsets, sizes, height, lb, penalty, proven, used, cap, csv = _tilemem.solve(
        **_problem_args(problem),
        capacity=capacity,
        solver=solver,
        time_limit=time_limit,
        node_limit=node_limit,
        fit=fit,
        penalty_first=penalty_first,
        seed=seed,
    )
    return Placement(
        offsets=dict(zip(names, offsets)),
        height=height,
        lower_bound=lb,
        penalty=penalty,
        proven_optimal=proven,
        solver=used,
        capacity=cap,
        csv=csv,
        sizes=dict(zip(names, sizes)),
    )


@dataclass(frozen=True)
class Validation:
    """The result of :func:`validate`.

    Attributes:
        violations: every broken rule, one sentence each (empty when valid).
        height: highest ``offset + size`` (0 when invalid).
        penalty: summed weight of penalty pairs sharing a byte.
        lower_bound: the floor of any placement of the problem.
        buffers: number of buffers.
    """

    violations: List[str]
    height: int
    penalty: int
    lower_bound: int
    buffers: int

    @property
    def ok(self) -> bool:
        """Whether the placement breaks no rule."""
        return not self.violations

    def __bool__(self) -> bool:
        return self.ok


def validate(
    problem: Problem,
    offsets: Union[None, Sequence[int], Dict[str, int], Placement] = None,
    *,
    capacity: Optional[int] = None,
) -> Validation:
    """Checks a placement independently of the solvers (``tilemem validate``).

    Args:
        problem: a problem file with an ``offset`` column (as ``solve``
            writes), or a problem as for :func:`solve`.
        offsets: the placement, when not in the file: a list in problem
            order, a dict by id, or a :class:`Placement`.
        capacity: bytes available (overrides the file's).

    Returns a :class:`Validation`; an invalid placement is a result, not an
    exception (``validation.ok`` is false and ``violations`` says why).

    Raises:
        ParseError: the problem does not read, or has no offsets.
    """
    args = _problem_args(problem)
    if isinstance(offsets, Placement):
        offsets = offsets.offsets
    if isinstance(offsets, dict):
        if "text" not in args:
            raise ValueError("offsets by id need a problem list; give a list for a file")
        try:
            offsets = [offsets[row[0]] for row in problem]  # type: ignore[index]
        except KeyError as e:
            raise ValueError(f"no offset for buffer {e.args[0]!r}") from None
    violations, height, penalty, lb, n = _tilemem.validate(
        **args,
        capacity=capacity,
        offsets=None if offsets is None else [int(o) for o in offsets],
    )
    return Validation(
        violations=violations, height=height, penalty=penalty, lower_bound=lb, buffers=n
    )
