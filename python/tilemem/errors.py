"""Exceptions raised by tilemem, each with the place of the problem.

Every exception carries ``file``, ``line`` and ``col`` (``None`` when the
problem has no single place, e.g. a whole function that does not fit) and
the plain ``message``; ``str(e)`` reads ``file:line:col: message`` like the
command line's diagnostics.
"""

from typing import Optional


class Error(Exception):
    """Base class of every tilemem error."""

    def __init__(
        self,
        message: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        col: Optional[int] = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        super().__init__(self._render())

    def _render(self) -> str:
        place = [str(p) for p in (self.file, self.line, self.col) if p is not None]
        return ":".join(place) + ": " + self.message if place else self.message


class ParseError(Error, ValueError):
    """Bad input: a syntax error, or a rule of the input language broken,
    including a program PyPTO rejects with its own ``InternalError`` (the
    command line's exit code 2)."""


class PlanError(Error):
    """The input was understood but the request cannot be met: a planning
    error, or a pass that failed (exit code 1)."""


class InternalError(Error):
    """A check inside tilemem failed whatever the input (the independent
    validator rejected a placement a planner or solver made): a bug to
    report, never a property of the input (exit code 3). Not PyPTO's
    ``InternalError`` on a wrong program, which is a :class:`ParseError`."""


class CapacityError(PlanError):
    """The buffers do not fit the memory: over the chip's on-chip capacity,
    or no placement within a problem's capacity."""
