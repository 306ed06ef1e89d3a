"""Every example cell of Parts I and II names, in its first comment, exactly the gaps it needs.

A cell *needs* a gap when a learner who reads the page from the top, with every gap finished but that
one, sees the cell go wrong: it fails, or it shows something other than it shows with every gap
finished. The test finds them by running each page with every gap finished (twice, to see that its
outputs do not change from run to run) and once more for each gap left at its starter: the gaps
that count are those of the lesson's own lab and of earlier labs, in the files the page imports. A gap
reopened in a later lesson (L09.add_backward reopens L08.add_backward) is left at what the learner had
before it: the earlier stage's finished piece.

The cell's first comment says which gaps it needs, in three groups of ids, each ending with where
those gaps are written::

    # Needs your L07.init and L07.mul from the lab below: run it once the lab's checks pass.
    # Needs your L10.backward from the lab above, and your L07.init from earlier lessons.

"the lab below" for gaps of the page's lab in a cell above it, "the lab above" for them in a cell
below it, "earlier lessons" for gaps of earlier labs. A cell that needs none of them says nothing.
Part III's pages put every cell that needs their lab after it (``tests/test_cell_order.py``).

To keep the runs short, only gaps of the files the page imports count, and of those only gaps whose
code runs in the page with every gap finished (a starter that defines the same names as the finished
piece, none of whose code runs, changes nothing). What the runs of a page found is kept in pytest's
cache, under a digest of everything that could change it.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest

from labs.checking.learner import PACKAGE, Pieces, finished_pieces
from labs.course.gaps import Gap, find_gaps
from labs.course.model import LESSONS_DIR, lesson_number
from labs.course.pages import CELLS_AFTER_THE_LAB_FROM, FENCE
from tests.pages_kit import COURSE, PAGES, learner_session

pytestmark = pytest.mark.xdist_group("cell-needs")  # one process runs the pages once, for every test here

ROOT = Path(__file__).resolve().parent.parent
DECLARING = [lesson for lesson in PAGES if lesson_number(lesson) < lesson_number(CELLS_AFTER_THE_LAB_FROM)]

GAP_ID = r"L\d\d\.\w+"
# "L07.init, L07.add and L07.mul from the lab below": a list of ids, then where they are written.
DECLARATION = re.compile(rf"({GAP_ID}(?:, {GAP_ID})*(?:,? and {GAP_ID})?) from (the lab below|the lab above|"
                         r"earlier lessons)")
BELOW, ABOVE, EARLIER = "the lab below", "the lab above", "earlier lessons"
# What a cell prints about time ("41 calls in 0.26 ms") changes from run to run; the rest must not.
TIMING = re.compile(r"\d+(?:\.\d+)? ?(?:ms|µs|s)\b")


@dataclass(frozen=True)
class PageCell:
    """One example cell of a page, and whether it stands below the page's lab."""

    code: str
    below_the_lab: bool


def page_cells(page: Path) -> list[PageCell]:
    """The example cells of a page, in page order."""
    cells, below = [], False
    for kind, body in FENCE.findall(page.read_text()):
        if kind == "ember-lab":
            below = True
        elif kind == "ember-cell":
            cells.append(PageCell(body, below))
    return cells


def first_comment(code: str) -> str:
    """The comment lines a cell opens with, joined into one line of text (their '#'s dropped)."""
    lines = []
    for line in code.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def without_first_comment(code: str) -> str:
    """A cell's code after the comment lines it opens with."""
    lines = code.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "".join(lines)


def declared(code: str) -> dict[str, set[str]]:
    """The gaps a cell's first comment says it needs, by where they are written (BELOW, ABOVE, EARLIER).

    An id of the first comment outside such a list is put under "" so that a test sees it.
    """
    comment = first_comment(code)
    said: dict[str, set[str]] = {BELOW: set(), ABOVE: set(), EARLIER: set(), "": set()}
    for ids, where in DECLARATION.findall(comment):
        said[where] |= set(re.findall(GAP_ID, ids))
    said[""] = set(re.findall(GAP_ID, DECLARATION.sub("", comment)))
    return said


def normalised(result: dict) -> str:
    """A cell's outputs and error as one text, what it printed about time masked."""
    return TIMING.sub("<time>", json.dumps(result, sort_keys=True))


class GapsRun:
    """Watches which gaps of the learner files in a folder run inside a function, through sys.setprofile.

    A function's code runs when it is called; the lines of a module or a class run once, as it is imported.
    Python drops a profile function that fails (as in a RecursionError a cell shows on purpose): ``lost``
    then says that some calls went unseen.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ran: set[str] = set()
        self.lost = False
        self._gaps: dict[str, list[Gap]] = {}
        self._spans: dict[CodeType, list[str]] = {}

    def _gaps_of(self, code: CodeType) -> list[str]:
        if code not in self._spans:
            path, self._spans[code] = Path(code.co_filename), []
            if code.co_flags & inspect.CO_OPTIMIZED and self.folder in path.parents and path.suffix == ".py":
                if code.co_filename not in self._gaps:
                    self._gaps[code.co_filename] = find_gaps(path.read_text())
                lines = [line for _, _, line in code.co_lines() if line is not None] or [code.co_firstlineno]
                self._spans[code] = [gap.id for gap in self._gaps[code.co_filename]
                                     if gap.open_line < max(lines) and gap.close_line > min(lines)]
        return self._spans[code]

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.ran.update(self._gaps_of(frame.f_code))

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Watch the calls of the block."""
        previous = sys.getprofile()
        sys.setprofile(self._profile)
        try:
            yield
        finally:
            self.lost = self.lost or sys.getprofile() != self._profile
            sys.setprofile(previous)


@dataclass(frozen=True)
class PageRun:
    """What one run of a page gave: each cell's result, the learner files it imported, the gaps whose code ran
    (None when the run did not watch, or some calls went unseen)."""

    results: list[dict]
    imported: set[str]
    ran: set[str] | None


def run_page(lesson: str, pieces: Pieces, watch: bool = False) -> PageRun:
    """Run a page's cells from the top on a learner's files holding ``pieces``; with ``watch``, see which gaps
    run (which slows the run down)."""
    page = PAGES[lesson]
    results = []
    with tempfile.TemporaryDirectory(prefix="ember-needs-") as name, learner_session(Path(name)) as session:
        gaps = GapsRun(Path(name).resolve())
        for cell in page_cells(page):
            request = {"page": page.name, "lab": lesson, "pieces": pieces, "code": cell.code}
            with gaps.watching() if watch else nullcontext():
                results.append(json.loads(session.handle("run", json.dumps(request))))
        imported = {module.split(".")[1] + ".py" for module in sys.modules if module.startswith(PACKAGE + ".")}
    return PageRun(results, imported, gaps.ran if watch and not gaps.lost else None)


def defined_names(piece: str) -> set[str]:
    """The names a gap's piece defines or assigns at its own top level."""
    names = set()
    for node in ast.parse(piece).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            names |= {ast.unparse(target) for target in getattr(node, "targets", [getattr(node, "target", None)])}
    return names


def left_at_start(gap_id: str) -> str:
    """What a gap holds before the learner writes it: the starter, or the earlier stage's finished piece."""
    region = COURSE.regions[gap_id]
    stages = [stage.id for stage in region.stages]
    at = stages.index(gap_id)
    return COURSE.gaps[stages[at - 1]].finished if at else region.starter


def candidate_gaps(lesson: str, run: PageRun, prune: bool = True) -> list[str]:
    """The gaps whose starter could change what the page shows: of each region the latest stage a learner at
    ``lesson`` has written, in a file the page imports, whose code ran in the finished page or whose starter
    defines other names than its finished piece. (With the same names and none of its code run, a gap's
    starter cannot change a thing: every difference would have to start inside it.) Every gap of those files
    when some calls of the page went unseen, or without ``prune``."""
    number = lesson_number(lesson)
    found: list[str] = []
    for region in COURSE.regions.values():
        reached = [stage.id for stage in region.stages if COURSE.gaps[stage.id].number <= number]
        if not reached or region.file not in run.imported or reached[-1] in found:
            continue
        gap = reached[-1]
        renames = defined_names(left_at_start(gap)) != defined_names(COURSE.gaps[gap].finished)
        if not prune or run.ran is None or gap in run.ran or renames:
            found.append(gap)
    return found


def find_needs(lesson: str, prune: bool = True) -> list[list[str]]:
    """For each cell of the lesson's page, the gaps whose starter makes it go wrong (see candidate_gaps)."""
    finished = finished_pieces(COURSE, lesson_number(lesson))
    base, again = run_page(lesson, finished).results, run_page(lesson, finished).results
    for number, (one, other) in enumerate(zip(base, again, strict=True), start=1):
        assert one["error"] is None, f"cell {number} of {lesson}'s page fails with every gap finished: {one['error']}"
        assert normalised(one) == normalised(other), (
            f"cell {number} of {lesson}'s page shows something else each time it runs, so a changed output "
            "cannot tell which gaps it needs")
    needs: list[list[str]] = [[] for _ in base]
    watched = run_page(lesson, finished, watch=True)  # apart: the watch changes what a RecursionError says
    for gap in candidate_gaps(lesson, watched, prune):
        results = run_page(lesson, {gap_id: piece for gap_id, piece in finished.items() if gap_id != gap}).results
        for number, (result, expected) in enumerate(zip(results, base, strict=True)):
            if result["error"] is not None or normalised(result) != normalised(expected):
                needs[number].append(gap)
    return needs


def digest(lesson: str) -> str:
    """A digest of all that decides what the runs of a lesson's page find: the engine, the course and its code,
    this test, and the page's cells (without their first comments: writing a declaration changes nothing)."""
    files = sorted([*ROOT.glob("ember/*.py"), *ROOT.glob("hx/*.py"), *ROOT.glob("labs/**/*.py"),
                    *LESSONS_DIR.glob("*/lesson.toml"), Path(__file__), ROOT / "tests" / "pages_kit.py"])
    hashed = hashlib.sha256()
    for path in files:
        hashed.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    for cell in page_cells(PAGES[lesson]):
        hashed.update(f"{cell.below_the_lab}\0{without_first_comment(cell.code)}\0".encode())
    return hashed.hexdigest()[:16]


def kept_needs(config: pytest.Config, lesson: str) -> list[list[str]]:
    """find_needs, from pytest's cache when nothing it depends on has changed since it was kept."""
    cache = getattr(config, "cache", None)  # none with -p no:cacheprovider
    key = f"ember/cell-needs/{lesson}-{digest(lesson)}"
    kept = cache.get(key, None) if cache is not None else None
    if kept is None:
        kept = find_needs(lesson)
        if cache is not None:
            cache.set(key, kept)
    return kept


def needs_problems(lesson: str, cells: list[PageCell], found: list[list[str]]) -> list[str]:
    """Each cell whose first comment does not name exactly the gaps it needs, with what it should say."""
    problems = []
    for number, (cell, gaps) in enumerate(zip(cells, found, strict=True), start=1):
        own = {gap for gap in gaps if gap.startswith(f"{lesson}.")}
        expected = {BELOW: set() if cell.below_the_lab else own, ABOVE: own if cell.below_the_lab else set(),
                    EARLIER: set(gaps) - own, "": set()}
        said = declared(cell.code)
        for where, gap_ids in expected.items():
            if said[where] != gap_ids:
                place = f"from {where}" if where else "outside a list 'Needs your ... from ...'"
                problems.append(f"cell {number} of {lesson}'s page: needs {sorted(gap_ids)} {place}, but its "
                                f"first comment says {sorted(said[where])}")
    return problems


@pytest.mark.parametrize("lesson", DECLARING)
def test_every_cell_names_every_gap_it_needs_and_no_other(lesson: str, request: pytest.FixtureRequest) -> None:
    assert needs_problems(lesson, page_cells(PAGES[lesson]), kept_needs(request.config, lesson)) == []


def test_a_cell_that_needs_the_lab_below_stands_above_it_and_says_when_to_run() -> None:
    """Every cell above a lab runs before the lab is done, or says why not: the gaps of the lab it needs (held
    exact by the test above), and when to run it."""
    for lesson in DECLARING:
        for cell in page_cells(PAGES[lesson]):
            said = declared(cell.code)
            if said[BELOW]:
                assert not cell.below_the_lab, f"a cell below {lesson}'s lab says the lab is below it"
                assert "once the lab's checks pass" in first_comment(cell.code), (
                    f"a cell above {lesson}'s lab needs its gaps but does not say when to run it")


def test_the_rule_reads_declarations_and_sees_what_is_missing_or_extra() -> None:
    """The test's own parts: a declaration is read group by group, and a missing or extra id is reported."""
    code = ("# Needs your L07.init, L07.repr and L07.mul from the lab below:\n"
            "# run it once the lab's checks pass. It also needs your L06.toposort from earlier lessons.\n"
            "from ember.scalar import Value  # L07.add is not read here\n")
    assert declared(code) == {BELOW: {"L07.init", "L07.repr", "L07.mul"}, ABOVE: set(), EARLIER: {"L06.toposort"},
                              "": set()}
    assert declared("# Needs your L10.backward from the lab above, and your L07.init and L07.add from earlier "
                    "lessons.\nx = 1\n") == {BELOW: set(), ABOVE: {"L10.backward"},
                                             EARLIER: {"L07.init", "L07.add"}, "": set()}
    assert declared("# See L07.init.\nx = 1\n")[""] == {"L07.init"}
    cells = [PageCell(code, below_the_lab=False)]
    assert needs_problems("L07", cells, [["L07.init", "L07.repr", "L07.mul", "L06.toposort"]]) == []
    missing = needs_problems("L07", cells, [["L07.init", "L07.repr", "L07.mul", "L07.add", "L06.toposort"]])
    assert missing == ["cell 1 of L07's page: needs ['L07.add', 'L07.init', 'L07.mul', 'L07.repr'] from the lab "
                       "below, but its first comment says ['L07.init', 'L07.mul', 'L07.repr']"]
    extra = needs_problems("L07", [PageCell(code, below_the_lab=True)], [["L07.init", "L07.repr", "L07.mul"]])
    assert len(extra) == 3  # the lab's gaps are above this cell, and it needs no earlier gap


def test_a_starter_that_only_changes_what_a_cell_shows_counts_as_needed() -> None:
    """Lesson 09's first backward cell runs with L09.mul_backward's earlier stage (= instead of +=), but shows
    other gradients: the run sees it, so the rule does not rest on errors alone."""
    finished = finished_pieces(COURSE, 9)
    base = run_page("L09", finished).results
    earlier = run_page("L09", {gap: piece for gap, piece in finished.items() if gap != "L09.mul_backward"}).results
    changed = [number for number, (one, other) in enumerate(zip(base, earlier, strict=True), start=1)
               if normalised(one) != normalised(other)]
    assert changed and all(result["error"] is None for result in earlier)


@pytest.mark.parametrize("lesson", ["L05", "L09"])
def test_leaving_out_gaps_whose_code_never_runs_changes_no_answer(lesson: str) -> None:
    """Two cheap pages where most gaps never run: trying every gap of their files finds the same needs."""
    finished = finished_pieces(COURSE, lesson_number(lesson))
    run = run_page(lesson, finished, watch=True)
    assert len(candidate_gaps(lesson, run)) < len(candidate_gaps(lesson, run, prune=False))
    assert find_needs(lesson) == find_needs(lesson, prune=False)


def test_a_lost_watch_is_seen(tmp_path: Path) -> None:
    """A profile function Python dropped inside a cell leaves no gap pruned: the watch says it lost sight."""
    watch = GapsRun(tmp_path)
    with watch.watching():
        pass
    assert not watch.lost
    with watch.watching():
        sys.setprofile(None)
    assert watch.lost
