"""Find, read and fill the gap regions of a module.

A gap is the text between a ``# --- gap L10.backward ---`` line and the next
``# --- end gap ---`` line. Its body is stored dedented and re-indented to the
marker's column when written back, so a piece looks the same in every file.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

GAP_ID = r"L\d\d\.[a-z][a-z0-9_]*"
_OPEN = re.compile(rf"^(?P<indent>[ \t]*)# --- gap (?P<id>{GAP_ID}) ---[ \t]*$")
_CLOSE = re.compile(r"^[ \t]*# --- end gap ---[ \t]*$")


class GapSyntaxError(ValueError):
    """The gap markers of a file do not pair up."""


@dataclass(frozen=True)
class Gap:
    """One gap region found in a file: its id, indentation and body lines."""

    id: str
    indent: str
    open_line: int  # 1-based line of the opening marker
    close_line: int  # 1-based line of the closing marker
    body: str  # dedented, ends with a newline unless empty

    @property
    def first_body_line(self) -> int:
        """The 1-based file line of the body's first line."""
        return self.open_line + 1

    def contains(self, line: int) -> bool:
        """True when a 1-based file line lies inside this gap's body."""
        return self.open_line < line < self.close_line


def find_gaps(source: str) -> list[Gap]:
    """Return the gaps of a source text in file order, checking that markers pair up."""
    gaps: list[Gap] = []
    lines = source.splitlines()
    open_at: int | None = None
    for number, line in enumerate(lines, start=1):
        opened = _OPEN.match(line)
        if opened:
            if open_at is not None:
                raise GapSyntaxError(f"line {number}: a gap opens before the gap on line {open_at} is closed")
            open_at, indent, gap_id = number, opened["indent"], opened["id"]
        elif _CLOSE.match(line):
            if open_at is None:
                raise GapSyntaxError(f"line {number}: '# --- end gap ---' with no open gap")
            body = "\n".join(lines[open_at:number - 1])
            gaps.append(Gap(gap_id, indent, open_at, number, normalize(textwrap.dedent(body))))
            open_at = None
    if open_at is not None:
        raise GapSyntaxError(f"line {open_at}: gap is never closed with '# --- end gap ---'")
    seen: set[str] = set()
    for gap in gaps:
        if gap.id in seen:
            raise GapSyntaxError(f"gap {gap.id} appears twice")
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


def fill_gaps(source: str, bodies: dict[str, tuple[str, str]]) -> str:
    """Rewrite gaps: ``bodies`` maps a gap id found in ``source`` to (new id, new body).

    A gap not named in ``bodies`` keeps its id and body.
    """
    lines = source.splitlines()
    out: list[str] = []
    position = 0
    for gap in find_gaps(source):
        new_id, body = bodies.get(gap.id, (gap.id, gap.body))
        out.extend(lines[position:gap.open_line - 1])
        out.append(f"{gap.indent}# --- gap {new_id} ---")
        out.extend(_indent(line, gap.indent) for line in normalize(textwrap.dedent(body)).splitlines())
        out.append(f"{gap.indent}# --- end gap ---")
        position = gap.close_line
    out.extend(lines[position:])
    return "\n".join(out) + "\n"


def _indent(line: str, indent: str) -> str:
    return indent + line if line.strip() else ""


def gap_at_line(gaps: list[Gap], line: int) -> Gap | None:
    """The gap whose body holds a 1-based file line, if any."""
    for gap in gaps:
        if gap.contains(line):
            return gap
    return None
