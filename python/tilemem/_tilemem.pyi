"""Type stubs of the native module (``python/src/lib.rs``); use the
functions of :mod:`tilemem` instead, which wrap these in classes."""

from typing import Any, Dict, List, Optional, Tuple

def plan(
    text: str,
    target: str = "910b",
    planner: str = "pypto",
    passes: Optional[List[str]] = None,
    stop_after: Optional[str] = None,
    file: str = "<string>",
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    penalty_first: bool = False,
    compat: str = "seed",
) -> Tuple[str, str, List[str]]:
    """(program text, JSON report, diagnostics)."""

def fmt(text: str, file: str = "<string>") -> str:
    """The program in canonical form."""

def explain(
    text: str,
    target: str = "910b",
    planner: str = "pypto",
    all: bool = False,
    file: str = "<string>",
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    compat: str = "seed",
) -> Tuple[str, bool, str]:
    """(the text `tilemem explain` prints, every space fits, the JSON
    `tilemem explain --report` writes)."""

def bench(
    dir: str,
    solver: str = "auto",
    time_limit: float = 10.0,
    capacity: Optional[int] = None,
) -> Tuple[
    str,
    List[
        Tuple[
            str, int, Optional[int], int, Optional[int], bool, float, str, bool, Optional[int], str
        ]
    ],
]:
    """(table, rows: instance, buffers, capacity, lower bound, height,
    proven, seconds, solver, valid)."""

def opt(
    text: str,
    passes: List[str],
    file: str = "<string>",
    split_input_file: bool = False,
    allow_unregistered_dialect: bool = False,
) -> Tuple[str, List[str]]:
    """(output text, rendered warnings and remarks)."""

def solve(
    path: Optional[str] = None,
    text: Optional[str] = None,
    file: str = "<problem>",
    capacity: Optional[int] = None,
    solver: str = "auto",
    time_limit: float = 10.0,
    node_limit: Optional[int] = None,
    fit: bool = False,
    penalty_first: bool = False,
    seed: int = 0,
) -> Tuple[
    List[str], List[int], List[int], int, int, int, bool, str, Optional[int], str, str
]:
    """(names, offsets, sizes, height, lower bound, penalty, proven optimal,
    solver, capacity, CSV with offsets)."""

def validate(
    path: Optional[str] = None,
    text: Optional[str] = None,
    file: str = "<problem>",
    capacity: Optional[int] = None,
    offsets: Optional[List[int]] = None,
) -> Tuple[List[str], int, int, int, int, str]:
    """(violations, height, penalty, lower bound, buffers)."""

def mlir_passes() -> List[Tuple[str, str]]:
    """(name, description) of every HIVM pass."""

def kind_error(data: bytes, file: str, want: str) -> Optional[str]:
    """The ParseError message for a file of another kind than ``want``
    (``"pypto"``, ``"mlir"`` or ``"csv"``), or None when its kind is not told."""
