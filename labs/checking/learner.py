"""The learner's modules: build them as a lab starts, read the pieces back out, fill earlier gaps.

A learner's work on a gap comes in one of two forms:

- a *piece*: a body as the course stores bodies (dedented), e.g. read from a
  file on the command line, or a finished piece;
- an *exact text*: the lines between the markers verbatim, as typed in the
  page's editor, tabs and all. It goes back into the module byte for byte.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import ModuleType

from labs.checking.problems import Place, Problem
from labs.course.gaps import Fill, Gap, GapSyntaxError, fill, find_gaps, indented, marker_lines, same_piece
from labs.course.model import Course, CourseError, Region

Pieces = dict[str, str]  # gap id -> the learner's code for that gap
# The learner's ember/__init__.py:
INIT_SOURCE = '"""My ember: reverse-mode automatic differentiation, on single numbers and on arrays of them."""\n'
PACKAGE = "ember"  # the learner's package


def forget_ember() -> dict[str, ModuleType]:
    """Drop the package ember and its modules from sys.modules, whichever files they came from, so that
    the next import reads the files afresh; answer what was dropped (to put it back, if need be)."""
    dropped = {name: module for name, module in sys.modules.items()
               if name == PACKAGE or name.startswith(PACKAGE + ".")}
    for name in dropped:
        del sys.modules[name]
    return dropped


def forget_listings() -> None:
    """Make imports see files written since their folder was last listed: what importlib.invalidate_caches()
    does for the folders on the import path, without the import of importlib.metadata it does since Python
    3.12 (half a second in the browser, on every cold start). Its caches are cleared too if it was imported."""
    for path, finder in list(sys.path_importer_cache.items()):
        if finder is None:
            del sys.path_importer_cache[path]  # a folder missing when it was looked for: look again
        elif hasattr(finder, "invalidate_caches"):
            finder.invalidate_caches()
    metadata = sys.modules.get("importlib.metadata")
    if metadata is not None:
        metadata.MetadataPathFinder().invalidate_caches()  # a class method since 3.12, a method before


@dataclass(frozen=True)
class Module:
    """One built learner file: its source and where each of its gaps lies."""

    name: str  # 'scalar.py'
    source: str
    gaps: tuple[Gap, ...]

    def to_dict(self) -> dict[str, object]:
        """Plain data for the page."""
        return {"name": self.name, "source": self.source, "gaps": [gap.to_dict() for gap in self.gaps]}


@dataclass(frozen=True)
class Work:
    """Everything the learner has written: pieces (dedented bodies) and exact texts (verbatim)."""

    pieces: Pieces = field(default_factory=dict)
    exact: Pieces = field(default_factory=dict)

    def written(self, gap_id: str) -> bool:
        """True when the learner has code of their own for this gap."""
        return gap_id in self.exact or gap_id in self.pieces

    def with_pieces(self, more: Pieces) -> Work:
        """This work with more pieces added (they win over earlier entries for the same gaps)."""
        exact = {gap_id: text for gap_id, text in self.exact.items() if gap_id not in more}
        return Work({**self.pieces, **more}, exact)


def _region_fill(region: Region, lab: int, work: Work) -> Fill:
    """What a region holds as lab ``lab`` starts: the learner's latest stage reached, else its start."""
    reached = [stage for stage in region.stages if stage.number <= lab]
    if not reached:
        return Fill(region.stages[0].id, region.starter)
    marker = reached[-1].id
    current = Fill(marker, region.starter)
    for stage in reached:
        if stage.id in work.exact:
            current = Fill(marker, work.exact[stage.id], exact=True)
        elif stage.id in work.pieces:
            current = Fill(marker, work.pieces[stage.id])
    return current


def build_modules(course: Course, lab: str, work: Work) -> dict[str, Module]:
    """Every learner file as lab ``lab`` starts with this work.

    Gaps of earlier lessons and this one hold the learner's code, or what came
    before it (a starter, or the learner's code of an earlier stage); later gaps
    hold their starters.
    """
    number = course.lesson(lab).number
    modules = {}
    for name, reference in course.reference.items():
        fills = {gap.id: _region_fill(course.regions[gap.id], number, work) for gap in find_gaps(reference)}
        filled = fill(reference, fills)
        modules[name] = Module(name, filled.source, tuple(filled.gaps))
    return modules


def module_sources(course: Course, lab: str, pieces: Pieces, finished_earlier: bool = False) -> dict[str, str]:
    """Every module file (name -> source) as lab ``lab`` starts with these pieces.

    With ``finished_earlier``, earlier gaps the learner never wrote hold the finished pieces.
    """
    work = Work(pieces)
    if finished_earlier:
        work = work.with_pieces(earlier_finished(course, lab, work).missing)
    return {name: module.source for name, module in build_modules(course, lab, work).items()}


@dataclass(frozen=True)
class EarlierPieces:
    """The finished pieces for a lab's earlier gaps: those the learner never wrote, and ids of their own."""

    missing: Pieces  # gap id -> finished piece, for earlier gaps the learner left out
    own: tuple[str, ...]  # earlier gaps where the learner's code differs from the finished piece, in lesson order
    matching: int = 0  # earlier gaps the learner wrote whose code is the finished piece

    def changes(self, course: Course, replace_own: bool = False) -> Pieces:
        """The pieces to load: the missing ones, or with ``replace_own`` the learner's own too."""
        if not replace_own:
            return dict(self.missing)
        return {gap_id: course.gaps[gap_id].finished for gap_id in self.own}


def earlier_finished(course: Course, lab: str, work: Work) -> EarlierPieces:
    """The one rule for 'fill the earlier gaps with finished pieces', for the page, the CLI and the tests.

    Every gap of a lesson before ``lab`` that the learner has not written gets
    its finished piece; gaps the learner wrote are kept and listed when their
    code differs from the finished piece.
    """
    number = course.lesson(lab).number
    missing: Pieces = {}
    own: list[str] = []
    matching = 0
    for gap_id, gap in sorted(course.gaps.items(), key=lambda item: item[1].number):  # stable: file order within
        if gap.number >= number:
            continue
        if not work.written(gap_id):
            missing[gap_id] = gap.finished
        elif not same_piece(work.exact.get(gap_id, work.pieces.get(gap_id, "")), gap.finished):
            own.append(gap_id)
        else:
            matching += 1
    return EarlierPieces(missing, tuple(own), matching)


def exact_texts(course: Course, pieces: Pieces) -> Pieces:
    """Pieces (dedented bodies) as the exact texts they become in their gaps."""
    return {gap_id: indented(body, course.regions[gap_id].indent) for gap_id, body in pieces.items()}


def _surrogate_line(text: str) -> int | None:
    """The first 1-based line of a text holding a lone surrogate (half of a character, which no file can hold)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if any("\ud800" <= char <= "\udfff" for char in line):
            return number
    return None


def marker_problem(course: Course, lab: str, work: Work) -> Problem | None:
    """A problem when the code of a gap this lab uses cannot go in its file: an exact text holds a line that looks
    like a gap marker, or a text holds a lone surrogate."""
    number = course.lesson(lab).number
    texts = [(gap_id, text, True) for gap_id, text in work.exact.items()]
    texts += [(gap_id, text, False) for gap_id, text in work.pieces.items()]
    for gap_id, text, exact in texts:
        if gap_id not in course.gaps or course.gaps[gap_id].number > number:
            continue
        file = f"ember/{course.gaps[gap_id].file}"
        lines = marker_lines(text) if exact else []
        if lines:
            message = (f"Line {lines[0]} of gap {gap_id} looks like a gap marker. The markers belong to the course "
                       "and a gap cannot hold one: change that line or delete it. Nothing of your code was dropped.")
            return Problem("marker", message, gap_id, Place(file, 0, gap_id, lines[0]))
        line = _surrogate_line(text)
        if line is not None:
            message = (f"Line {line} of gap {gap_id} holds a lone surrogate: half of a character, which no file can "
                       "hold. Retype the characters on that line. Nothing of your code was dropped.")
            return Problem("marker", message, gap_id, Place(file, 0, gap_id, line))
    return None


def read_pieces(course: Course, source: str) -> Pieces:
    """The learner's pieces in a module's source: every gap that no longer holds its region's starter."""
    pieces: Pieces = {}
    for gap in find_gaps(source):
        if gap.id not in course.regions:
            raise CourseError(f"the file marks a gap {gap.id} that the course does not have")
        if not same_piece(gap.body, course.regions[gap.id].starter):
            pieces[gap.id] = gap.body
    return pieces


def finished_pieces(course: Course, up_to: int) -> Pieces:
    """The finished piece of every gap of lessons up to and including ``up_to``."""
    return {gap_id: gap.finished for gap_id, gap in course.gaps.items() if gap.number <= up_to}


def starter_gaps(course: Course, gaps: list[Gap] | tuple[Gap, ...]) -> set[str]:
    """Ids of the gaps that still hold their region's starter."""
    return {
        gap.id for gap in gaps
        if gap.id in course.regions and same_piece(gap.body, course.regions[gap.id].starter)
    }


@dataclass(frozen=True)
class Edits:
    """What changed in learner files edited elsewhere (the notebook): gap id -> (text before, text now).

    ``broken`` names each file whose markers no longer pair up, or that lost a gap it had, with why:
    nothing is taken from such a file.
    """

    changed: dict[str, tuple[str, str]]
    broken: dict[str, str]


def edited_gaps(before: dict[str, str], now: dict[str, str]) -> Edits:
    """Compare files (name -> source) as handed over with the same files now, gap by gap, as exact texts."""
    changed: dict[str, tuple[str, str]] = {}
    broken: dict[str, str] = {}
    for name, source in now.items():
        if name not in before or source == before[name]:
            continue
        try:
            old = {gap.id: gap.text for gap in find_gaps(before[name])}
            new = {gap.id: gap.text for gap in find_gaps(source)}
        except GapSyntaxError as error:
            broken[name] = f"its gap markers no longer pair up ({error})"
            continue
        lost = [gap_id for gap_id in old if gap_id not in new]
        if lost:
            broken[name] = f"the markers of {', '.join(lost)} are gone"
            continue
        changed |= {gap_id: (old[gap_id], new[gap_id]) for gap_id in old if new[gap_id] != old[gap_id]}
    return Edits(changed, broken)
