"""tilemem: on-chip memory planning for tile-based NPU compilers.

The same library calls as the ``tilemem`` command line, from Python::

    import tilemem
    planned = tilemem.plan(open("examples/pto/vector_chain.py").read())
    print(planned.program)                 # the program with its addresses
    print(planned.report["functions"][0])  # per-space usage, as JSON objects
    placed = tilemem.solve([("a", 0, 2, 64), ("b", 1, 3, 64, 32)], capacity=256)
    assert tilemem.validate([("a", 0, 2, 64), ("b", 1, 3, 64, 32)], placed.offsets).ok

Functions: :func:`plan` (PyPTO memory passes), :func:`explain` (where the
memory goes, what would make it fit), :func:`fmt` (canonical PyPTO text),
:func:`opt` (HIVM MLIR passes), :func:`solve` (place a buffer problem),
:func:`validate` (check a placement independently) and :func:`bench` (solve
a folder of problems). ``plan``, ``explain``, ``fmt`` and ``opt`` take the
program as text or as a path (a ``pathlib.Path``, or a ``str`` naming an
existing file and holding no newline); ``solve`` and ``validate`` take a
problem file path or a list of buffers. Errors are :class:`ParseError`
(the command line's exit 2), :class:`PlanError` and
:class:`CapacityError` (exit 1) and :class:`InternalError` (exit 3, a
bug), each with ``file``, ``line`` and ``col``; the message names each place once and no Python
class. Planning runs with the GIL released, so threads can plan in
parallel. ``tilemem.pypto.memory_passes`` plugs the planner into a PyPTO
compilation.

The HTML and SVG memory maps are written by the command line
(``tilemem plan --map``, ``tilemem explain --map``).
"""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _tilemem
from .errors import CapacityError, Error, InternalError, ParseError, PlanError

__all__ = [
    "plan",
    "explain",
    "fmt",
    "opt",
    "bench",
    "solve",
    "validate",
    "mlir_passes",
    "Plan",
    "Explanation",
    "BenchRow",
    "Placement",
    "Validation",
    "Error",
    "ParseError",
    "PlanError",
    "CapacityError",
    "InternalError",
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


#: A program: its text, or the path of its file.
Source = Union[str, "os.PathLike[str]"]


def _read(source: Source, file: Optional[str], want: str = "pypto") -> Tuple[str, str]:
    """The text of ``source`` and the name errors use for it.

    A path-like is read; a ``str`` naming an existing file (and holding no
    newline, which no path has but every program does) is read too; any
    other ``str`` is the text itself. A file that is not UTF-8 text raises
    :class:`ParseError`, naming what reads it when its kind is told (a
    MessagePack document given for ``want``, ``"pypto"`` or ``"mlir"``).
    """
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and os.path.isfile(source)
    ):
        path = os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        name = file or path
        try:
            # Universal newlines, as text-mode open() reads.
            text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            return text, name
        except UnicodeDecodeError as e:
            kind = _tilemem.kind_error(data, name, want)
            raise ParseError(kind or f"not UTF-8 text: {e}", file=name) from None
    if not isinstance(source, str):
        raise TypeError(
            f"expected program text or a path, got {type(source).__name__}"
        )
    return source, file or "<string>"


def plan(
    text: Source,
    target: str = "910b",
    planner: str = "pypto",
    passes: Union[None, str, Sequence[str]] = None,
    *,
    stop_after: Optional[str] = None,
    file: Optional[str] = None,
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    penalty_first: bool = False,
    compat: str = "seed",
) -> Plan:
    """Plans the on-chip memory of a PyPTO program (``tilemem plan``).

    Args:
        text: the program (the ``@pl.program`` DSL, at any stage of the
            memory pipeline): its text or its path.
        target: ``"910b"`` (A2/A3), ``"950"`` (A5), ``"310b"`` or ``"none"``.
        planner: ``"pypto"`` (reuse, then sequential addresses), ``"dsa-rp"``
            (joint placement), ``"ptoas"`` (addresses left to the
            assembler) or ``"optimal"`` (exact solver).
        passes: run exactly these passes, in pipeline order
            (``init_memref``, ``materialize_semantic_aliases``,
            ``memory_reuse``, ``allocate_memory_addr``), as a list or a
            comma-separated string; default: the planner's pipeline.
        stop_after: run the planner's pipeline up to this pass.
        file: the name used in error messages (default: the path, or
            ``<string>``).
        time_limit: optimal planner: seconds per (function, space); default 10.
        node_limit: optimal planner: search nodes per (function, space), a
            reproducible budget; 0 for none; default the CLI's.
        penalty_first: optimal planner: fewest reuse penalties before bytes.
        compat: ``"seed"`` (every rule of the specification) or
            ``"pypto-e2d0f78"`` (the PyPTO build that printed the reference
            data: without the rules newer than it), as ``--compat``.

    Raises:
        ParseError: the program does not read, or breaks a rule of the DSL.
        CapacityError: the buffers exceed the chip's on-chip memory; its
            line is the allocation that alone exceeds its space or, when
            none does, the function's ``def`` line (as the command line
            reports it; ``explain`` shows the peak statement).
        PlanError: any other planning failure.
        InternalError: a check inside tilemem failed (a bug to report).
        ValueError: an unknown target, planner, pass or compat name.
    """
    if isinstance(passes, str):
        passes = passes.split(",")  # "init_memref,memory_reuse", as on the command line
    text, file = _read(text, file)
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
        compat=compat,
    )
    return Plan(program=program, report=json.loads(report), diagnostics=diagnostics)


@dataclass(frozen=True)
class Explanation:
    """The result of :func:`explain`.

    Attributes:
        text: what ``tilemem explain`` prints: per (function, space) the
            peak statement, the tiles live there, the lower bound, the
            sharings a rule refuses and the remedies (each re-planned).
        fits: whether every space fits its capacity.
        report: what ``tilemem explain --report`` writes, as Python objects:
            ``planner``, ``error`` (the planner's error or ``None``),
            ``replan_budget_exhausted``, ``remedy_searches_cut_short`` (remedy
            re-plans whose exact search, 1/10 of the run's limits, stopped
            without a fit) and ``spaces`` (PyPTO; HIVM MLIR:
            ``planner``, ``chip``, ``errors``, ``spaces``).
        spaces: ``report["spaces"]``, the facts of each space explained, with
            the report's keys: for PyPTO ``function``, ``space``,
            ``capacity``, ``fits``, ``planned_bytes``, ``reserved``,
            ``co_live``, ``lower_bound``, ``proven_over_capacity``, ``peak``
            (``statement``, ``line``, ``op``), ``live`` (each tile's
            ``name``, ``bytes``, ``shape``, ``dtype``, ``line``, ``def``,
            ``last``), ``live_total``, ``refused_sharings`` (``a``, ``b``,
            ``rule``, ``line``, ``bytes``, ``never_together``) and
            ``remedies`` (``change``, ``bytes_after``, ``saved``).
    """

    text: str
    fits: bool
    spaces: List[Dict[str, Any]]
    report: Dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


def explain(
    text: Source,
    target: str = "910b",
    planner: str = "pypto",
    *,
    all: bool = False,
    file: Optional[str] = None,
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    compat: str = "seed",
) -> Explanation:
    """Explains where a program's memory goes and what would make it fit
    (``tilemem explain``).

    Args:
        text: the program: its text or its path; PyPTO, or HIVM MLIR (a
            ``.mlir`` path or text with ``func.func``).
        target: as for :func:`plan` (MLIR: the module's ``hacc.target``).
        planner: ``"pypto"``, ``"dsa-rp"`` or ``"optimal"``; for MLIR
            ``"bishengir"`` (or ``"pypto"``) or ``"optimal"``.
        all: explain every (function, space), not only those that do not fit.
        file: the name used in error messages.
        time_limit, node_limit, compat: as for :func:`plan` (PyPTO only;
            ``tilemem explain --time-limit``, ``--node-limit``,
            ``--compat``): every part of the explanation follows them, the
            plan, the refused sharings, the remedies (each with 1/10 of the
            limits) and the buffers of ``all``.

    Raises:
        ParseError: the program does not read, or breaks a rule of its
            language.
        InternalError: a check inside tilemem failed (a bug to report).
        ValueError: an unknown target or planner.
    """
    text, file = _read(text, file)
    if (file or "").endswith(".mlir") or "func.func" in text:
        # HIVM MLIR: PlanMemory's explanation (the chip from the module's
        # hacc.target; planner "bishengir", PyPTO's default name meaning
        # the same, or "optimal").
        mlir_planner = "bishengir" if planner == "pypto" else planner
        rendered, fits, report = _tilemem.explain_mlir(
            text, file=file or "<string>", planner=mlir_planner, all=all
        )
    else:
        rendered, fits, report = _tilemem.explain(
            text,
            target=target,
            planner=planner,
            all=all,
            file=file,
            time_limit=time_limit,
            node_limit=node_limit,
            compat=compat,
        )
    facts = json.loads(report)
    return Explanation(text=rendered, fits=fits, spaces=facts["spaces"], report=facts)


def fmt(text: Source, *, file: Optional[str] = None) -> str:
    """Reads a PyPTO program and prints it back in canonical form
    (``tilemem fmt``).

    Raises:
        ParseError: the program does not read.
    """
    text, file = _read(text, file)
    return _tilemem.fmt(text, file=file)


@dataclass(frozen=True)
class BenchRow:
    """One problem of :func:`bench`: its size, the co-live bound (what the
    table's height ÷ bound divides by), the height reached (``None``: not
    placed), whether proven optimal, the time in seconds, the solver that
    placed it, whether the validator accepted it, and the best lower bound
    the solve supports (``None``: not solved) with where it came from (the
    table's "best bound (source)" column)."""

    instance: str
    buffers: int
    capacity: Optional[int]
    lower_bound: int
    height: Optional[int]
    proven: bool
    seconds: float
    solver: str
    valid: bool
    best_bound: Optional[int]
    bound_source: str


def bench(
    folder: Source,
    *,
    solver: str = "auto",
    time_limit: float = 10.0,
    capacity: Optional[int] = None,
) -> Tuple[List[BenchRow], str]:
    """Solves every problem file (``*.csv``) of a folder (``tilemem
    bench DIR``): the rows and the table the command prints.

    Raises:
        ParseError: the folder or a problem file does not read.
        ValueError: an unknown solver or a bad time limit.
    """
    table, rows = _tilemem.bench(
        os.fspath(folder), solver=solver, time_limit=time_limit, capacity=capacity
    )
    return [BenchRow(*r) for r in rows], table


def opt(
    mlir_text: Source,
    passes: Sequence[str],
    *,
    file: Optional[str] = None,
    split_input_file: bool = False,
    allow_unregistered_dialect: bool = False,
) -> str:
    """Runs HIVM passes over MLIR text and returns the result (``tilemem opt``).

    Args:
        mlir_text: the module: its text or its path.
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
    mlir_text, file = _read(mlir_text, file, "mlir")
    out, _notes = _tilemem.opt(
        mlir_text,
        list(passes),
        file=file,
        split_input_file=split_input_file,
        allow_unregistered_dialect=allow_unregistered_dialect,
    )
    return out


def mlir_passes() -> List[Tuple[str, str]]:
    """The HIVM passes :func:`opt` accepts, as ``(name, description)``."""
    return _tilemem.mlir_passes()


@dataclass(frozen=True)
class Placement:
    """The result of :func:`solve`.

    Attributes:
        offsets: buffer id to byte offset, in problem order.
        height: highest ``offset + size``: the bytes the placement needs.
        lower_bound: no placement can be lower than this: the best bound
            the solve supports (what ``tilemem solve`` prints).
        bound_source: where ``lower_bound`` came from, in words (the
            co-live peak and its instant, an aligned stack, buffers that can
            never share, a window the repair proved, the exact search).
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
    bound_source: str = ""
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
        InternalError: the solver's placement failed the validator (a bug
            to report; nothing is returned).
        ValueError: an unknown solver or a bad budget.
    """
    names, offsets, sizes, height, lb, penalty, proven, used, cap, csv, source = _tilemem.solve(
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
        bound_source=source,
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
        bound_source: where ``lower_bound`` came from, in words.
    """

    violations: List[str]
    height: int
    penalty: int
    lower_bound: int
    buffers: int
    bound_source: str = ""

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
    violations, height, penalty, lb, n, source = _tilemem.validate(
        **args,
        capacity=capacity,
        offsets=None if offsets is None else [int(o) for o in offsets],
    )
    return Validation(
        violations=violations,
        height=height,
        penalty=penalty,
        lower_bound=lb,
        buffers=n,
        bound_source=source,
    )
