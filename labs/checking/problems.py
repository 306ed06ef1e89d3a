"""Errors as data: what went wrong with the learner's code, where, and what to tell them.

Every problem that stops a check or a cell is a :class:`Problem`: a kind from
:data:`KINDS`, the gap it concerns, a place in the learner's files, and one
message for a person. The command line prints the message; the page renders
the record and decides what to offer from its kind, never from its words.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import asdict, dataclass

from labs.checking.timelimit import TimeLimitExceeded
from labs.course.gaps import Gap, gap_at_line

KINDS = {
    "starter": "a gap the check needs still holds its starter",
    "marker": "a gap's text holds a line no file can: one that looks like a gap marker, or a lone surrogate",
    "markers": "the gap markers of a file do not pair up",
    "syntax": "the module does not compile",
    "import": "importing the module raised",
    "not_written": "the code reached a starter that is not written yet",
    "timeout": "the code ran past its time limit",
    "recursion": "the code recursed deeper than Python allows",
    "stopped": "the learner stopped the run",
    "skipped": "not run, because the check before it had to be stopped",
    "missing_file": "a learner file the check needs is missing",
    "error": "the code raised an exception",
}


@dataclass(frozen=True)
class Place:
    """A line of one of the learner's files, and the gap that holds it (if any)."""

    file: str
    line: int
    gap: str | None = None
    gap_line: int | None = None  # 1-based line within the gap's text

    def describe(self) -> str:
        """'line 3 of gap L10.backward' or 'line 120 of ember/scalar.py'."""
        if self.gap:
            return f"line {self.gap_line} of gap {self.gap}"
        return f"line {self.line} of {self.file}"


@dataclass(frozen=True)
class Problem:
    """One thing that went wrong: its kind, the gap it concerns, its place, and the message."""

    kind: str
    message: str
    gap: str | None = None
    place: Place | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown problem kind {self.kind!r}")

    def to_dict(self) -> dict[str, object]:
        """Plain data (JSON-ready)."""
        return asdict(self)


@dataclass(frozen=True)
class LearnerFile:
    """One of the learner's module files: its name in the package, shown path, source and gaps."""

    module: str  # 'scalar' or 'nn'
    path: str  # the name tracebacks and messages use
    source: str
    gaps: tuple[Gap, ...] = ()


def where(files: list[LearnerFile], path: str, line: int) -> Place:
    """Describe a file line for a learner: which gap holds it, and its line within the gap."""
    for item in files:
        if item.path == path:
            gap = gap_at_line(list(item.gaps), line)
            if gap is not None:
                return Place(path, line, gap.id, line - gap.open_line)
    return Place(path, line)


def learner_place(exc: BaseException, files: list[LearnerFile]) -> Place | None:
    """The innermost place in the learner's files that the exception's traceback passes through."""
    paths = {item.path for item in files}
    place = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in paths and frame.lineno is not None:
            place = where(files, frame.filename, frame.lineno)
    return place


_NO_ATTRIBUTE = re.compile(r"^'(?P<kind>\w+)' object has no attribute '(?P<name>\w+)'")


def _slots_hint(exc: AttributeError) -> str | None:
    """A hint for assigning an attribute that a class with ``__slots__`` does not list."""
    owner = getattr(exc, "obj", None)
    if owner is not None:  # a failed read, not an assignment
        return None
    found = _NO_ATTRIBUTE.match(str(exc))
    if not found:
        return None
    kind, name = found["kind"], found["name"]
    return (f"a {kind} cannot take a new attribute {name!r}. {kind} lists the attributes it can hold in "
            f"__slots__ (ember's Value does, to save memory): add {name!r} there, or check the spelling.")


def describe_error(exc: BaseException, files: list[LearnerFile]) -> Problem:
    """A short learner-facing problem for an exception raised by the learner's code."""
    place = learner_place(exc, files)
    gap = place.gap if place else None
    at = f" (at {place.describe()})" if place else ""
    if isinstance(exc, TimeLimitExceeded):
        return Problem("timeout", f"Stopped{at}: it was {exc}. Is there a loop that never ends?", gap, place)
    if isinstance(exc, KeyboardInterrupt):
        return Problem("stopped", f"Stopped{at}.", gap, place)
    if isinstance(exc, NotImplementedError):
        text = str(exc)
        if gap and text.startswith(f"{gap}: "):
            text = text[len(gap) + 2:]  # the starter's hint repeats the gap's id
        return Problem("not_written", f"Not written yet{at}: {text}", gap, place)
    if isinstance(exc, SystemExit):
        message = (f"SystemExit{at}: the code called exit() or sys.exit(), which would end Python itself. "
                   "Return a value, or raise an error such as ValueError, instead.")
        return Problem("error", message, gap, place)
    if isinstance(exc, RecursionError):
        message = f"RecursionError{at}: the code called itself deeper than Python allows."
        return Problem("recursion", message, gap, place)
    if isinstance(exc, AttributeError) and (hint := _slots_hint(exc)):
        return Problem("error", f"AttributeError{at}: {hint}", gap, place)
    text = str(exc)
    return Problem("error", f"{type(exc).__name__}{at}" + (f": {text}" if text else ""), gap, place)
