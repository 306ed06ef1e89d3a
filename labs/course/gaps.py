"""The gap format, owned here and nowhere else: find, read and fill the gap regions of a module.

A gap is the text between a ``# --- gap L10.backward ---`` line and the next
``# --- end gap ---`` line. A gap has two readings:

- its *text*: the lines between the markers exactly as they stand, tabs and
  trailing spaces included (what the learner typed, byte for byte);
- its *body*: the text dedented and tidied, which is how the course stores
  starters and finished pieces, so a piece looks the same in every file.

Filling a gap writes either kind back: a body is indented to the marker's column,
a text goes in verbatim. Either way the result says where every gap ended up,
so nobody has to parse the file again to find them.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

GAP_ID = r"L\d\d\.[a-z][a-z0-9_]*"
_OPEN = re.compile(rf"^(?P<indent>[ \t]*)# --- gap (?P<id>{GAP_ID}) ---[ \t]*$")
_CLOSE = re.compile(r"^[ \t]*# --- end gap ---[ \t]*$")
_ANY_MARKER = re.compile(r"^[ \t]*# --- (gap \S+|end gap) ---[ \t]*$")
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends Python reads (str.splitlines also splits at \f, \x1c, \u2028, ...)


def lesson_of(gap_id: str) -> str:
    """The lesson a gap (or a claim, or a question) belongs to: 'L10' for 'L10.backward', and 'L10' for 'L10'.

    The one place that reads a lesson out of an id: everything else asks this function (or the course).
    """
    return gap_id.partition(".")[0]


class GapSyntaxError(ValueError):
    """The gap markers of a file do not pair up."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Gap:
    """One gap region of a file: its id, the marker's indentation, where it lies, and its text."""

    id: str
    indent: str
    open_line: int  # 1-based line of the opening marker
    close_line: int  # 1-based line of the closing marker
    text: str  # the lines between the markers, verbatim, without the final newline

    @property
    def body(self) -> str:
        """The text dedented and tidied (see :func:`normalize`)."""
        return normalize(textwrap.dedent(self.text))

    @property
    def first_body_line(self) -> int:
        """The 1-based file line of the body's first line."""
        return self.open_line + 1

    def contains(self, line: int) -> bool:
        """True when a 1-based file line lies inside this gap's body."""
        return self.open_line < line < self.close_line

    def to_dict(self) -> dict[str, object]:
        """Where the gap lies, as plain data for the page (lines are 1-based)."""
        return {"id": self.id, "open_line": self.open_line, "close_line": self.close_line}


@dataclass(frozen=True)
class Fill:
    """What to put in a gap: the id its marker shows, and a body (indented on write) or an exact text."""

    id: str
    content: str
    exact: bool = False

    def lines(self, indent: str) -> list[str]:
        """The lines to write between the markers (always at least one)."""
        if self.exact:
            lines = self.content.split("\n")
        else:
            body = normalize(textwrap.dedent(self.content))
            lines = [indent + line if line.strip() else "" for line in body.splitlines()]
        return lines or [""]


@dataclass(frozen=True)
class Filled:
    """A filled source and the gaps it holds."""

    source: str
    gaps: list[Gap]


def source_lines(source: str) -> list[str]:
    """A source's lines as Python counts them (at \\n, \\r\\n or \\r), without their ends.

    A form feed or a U+2028 inside a line (in a string, say) stays in its line, as it does for Python,
    so line numbers agree with tracebacks and a gap's text keeps those characters.
    """
    lines = _NEWLINE.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def find_gaps(source: str) -> list[Gap]:
    """Return the gaps of a source text in file order, checking that markers pair up."""
    gaps: list[Gap] = []
    lines = source_lines(source)
    open_at: int | None = None
    indent = gap_id = ""
    for number, line in enumerate(lines, start=1):
        opened = _OPEN.match(line)
        if opened:
            if open_at is not None:
                raise GapSyntaxError(f"line {number}: a gap opens before the gap on line {open_at} is closed", number)
            open_at, indent, gap_id = number, opened["indent"], opened["id"]
        elif _CLOSE.match(line):
            if open_at is None:
                raise GapSyntaxError(f"line {number}: '# --- end gap ---' with no open gap", number)
            gaps.append(Gap(gap_id, indent, open_at, number, "\n".join(lines[open_at:number - 1])))
            open_at = None
    if open_at is not None:
        raise GapSyntaxError(f"line {open_at}: gap is never closed with '# --- end gap ---'", open_at)
    seen: set[str] = set()
    for gap in gaps:
        if gap.id in seen:
            raise GapSyntaxError(f"gap {gap.id} appears twice", gap.open_line)
        seen.add(gap.id)
    return gaps


def normalize(body: str) -> str:
    """Strip trailing spaces and blank edge lines; end with one newline (or be empty)."""
    lines = [line.rstrip() for line in body.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def same_piece(a: str, b: str) -> bool:
    """True when two bodies differ only in indentation and trailing whitespace."""
    return normalize(textwrap.dedent(a)) == normalize(textwrap.dedent(b))


def indented(body: str, indent: str) -> str:
    """A body as the exact text it becomes in a gap whose marker is indented by ``indent``."""
    return "\n".join(Fill("", body).lines(indent))


def marker_lines(text: str) -> list[int]:
    """The 1-based lines of a gap's text that look like gap markers (they would break the file)."""
    return [number for number, line in enumerate(text.split("\n"), start=1) if _ANY_MARKER.match(line)]


def fill(source: str, fills: dict[str, Fill]) -> Filled:
    """Rewrite the gaps of ``source`` named in ``fills`` (by the id found in ``source``).

    A gap not named keeps its id and text. The answer lists where every gap now lies.
    """
    lines = source_lines(source)
    out: list[str] = []
    gaps: list[Gap] = []
    position = 0
    for gap in find_gaps(source):
        new = fills.get(gap.id, Fill(gap.id, gap.text, exact=True))
        out.extend(lines[position:gap.open_line - 1])
        out.append(f"{gap.indent}# --- gap {new.id} ---")
        open_line = len(out)
        body = new.lines(gap.indent)
        out.extend(body)
        out.append(f"{gap.indent}# --- end gap ---")
        gaps.append(Gap(new.id, gap.indent, open_line, len(out), "\n".join(body)))
        position = gap.close_line
    out.extend(lines[position:])
    return Filled("\n".join(out) + "\n", gaps)


def fill_gaps(source: str, bodies: dict[str, tuple[str, str]]) -> str:
    """Rewrite gaps with bodies: ``bodies`` maps a gap id found in ``source`` to (new id, new body)."""
    return fill(source, {old: Fill(new_id, body) for old, (new_id, body) in bodies.items()}).source


def gap_at_line(gaps: list[Gap], line: int) -> Gap | None:
    """The gap whose body holds a 1-based file line, if any."""
    for gap in gaps:
        if gap.contains(line):
            return gap
    return None
