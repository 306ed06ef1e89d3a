"""Every example cell of Parts I and II names, in its first comment, exactly the gaps it needs.

A cell *needs* a gap when a learner who reads the page from the top, with every gap finished but that
one, sees the cell go wrong: it fails, or it shows something other than it shows with every gap
finished. The test finds them by running each page once with every gap finished (twice, to see that
its outputs do not change from run to run) and once more for each gap left at its starter: the gaps
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

The runs take a minute or two, most of it lesson 12's training; what they found is kept in pytest's
cache, under a digest of every file that could change it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from labs.checking.learner import PACKAGE, Pieces, finished_pieces
from labs.course.model import LESSONS_DIR, lesson_number
from labs.course.pages import CELLS_AFTER_THE_LAB_FROM, FENCE
from tests.pages_kit import COURSE, PAGES, learner_session

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


def run_page(lesson: str, pieces: Pieces) -> tuple[list[dict], set[str]]:
    """Each cell's result on a learner's files holding ``pieces``, read from the top; and the learner files
    the page imported."""
    page = PAGES[lesson]
    results = []
    with tempfile.TemporaryDirectory(prefix="ember-needs-") as name, learner_session(Path(name)) as session:
        for cell in page_cells(page):
            request = {"page": page.name, "lab": lesson, "pieces": pieces, "code": cell.code}
            results.append(json.loads(session.handle("run", json.dumps(request))))
        imported = {module.split(".")[1] + ".py" for module in sys.modules if module.startswith(PACKAGE + ".")}
    return results, imported


def candidate_gaps(lesson: str, files: set[str]) -> list[str]:
    """The gaps a learner at ``lesson`` has written in these files: of each region, its latest stage so far."""
    number = lesson_number(lesson)
    found: list[str] = []
    for region in COURSE.regions.values():
        reached = [stage.id for stage in region.stages if COURSE.gaps[stage.id].number <= number]
        if reached and region.file in files and reached[-1] not in found:
            found.append(reached[-1])
    return found


def find_needs(lesson: str) -> list[list[str]]:
    """For each cell of the lesson's page, the gaps whose starter makes it go wrong."""
    finished = finished_pieces(COURSE, lesson_number(lesson))
    base, files = run_page(lesson, finished)
    again, _ = run_page(lesson, finished)
    for number, (one, other) in enumerate(zip(base, again, strict=True), start=1):
        assert one["error"] is None, f"cell {number} of {lesson}'s page fails with every gap finished: {one['error']}"
        assert normalised(one) == normalised(other), (
            f"cell {number} of {lesson}'s page shows something else each time it runs, so a changed output "
            "cannot tell which gaps it needs")
    needs: list[list[str]] = [[] for _ in base]
    for gap in candidate_gaps(lesson, files):
        results, _ = run_page(lesson, {gap_id: piece for gap_id, piece in finished.items() if gap_id != gap})
        for number, (result, expected) in enumerate(zip(results, base, strict=True)):
            if result["error"] is not None or normalised(result) != normalised(expected):
                needs[number].append(gap)
    return needs


def digest() -> str:
    """A digest of all that decides what the pages' cells show: the engine, the course and its code, and the
    cells (without their first comments, so that writing a declaration does not make the runs start over)."""
    files = sorted([*ROOT.glob("ember/*.py"), *ROOT.glob("hx/*.py"), *ROOT.glob("labs/**/*.py"),
                    *LESSONS_DIR.glob("*/lesson.toml")])
    hashed = hashlib.sha256()
    for path in files:
        hashed.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    for lesson in DECLARING:
        for cell in page_cells(PAGES[lesson]):
            hashed.update(f"{lesson}\0{cell.below_the_lab}\0".encode() + without_first_comment(cell.code).encode())
    return hashed.hexdigest()[:16]


@pytest.fixture(scope="module")
def needs(request: pytest.FixtureRequest) -> dict[str, list[list[str]]]:
    """find_needs for every lesson that declares, from pytest's cache when nothing it depends on changed."""
    key = f"ember/cell-needs/{digest()}"
    kept = request.config.cache.get(key, None)
    if kept is None:
        kept = {lesson: find_needs(lesson) for lesson in DECLARING}
        request.config.cache.set(key, kept)
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
                problems.append(f"cell {number} of {lesson}'s page: needs {sorted(gap_ids)} from "
                                f"{where or 'nowhere else'}, but its first comment says {sorted(said[where])}")
    return problems


@pytest.mark.parametrize("lesson", DECLARING)
def test_every_cell_names_every_gap_it_needs_and_no_other(lesson: str, needs: dict[str, list[list[str]]]) -> None:
    assert needs_problems(lesson, page_cells(PAGES[lesson]), needs[lesson]) == []


def test_a_cell_above_the_lab_that_needs_it_says_so() -> None:
    """Every cell above a lab runs before the lab is done, or says why not: it names the lab's gaps it needs."""
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
    base, _ = run_page("L09", finished)
    earlier, _ = run_page("L09", {gap: piece for gap, piece in finished.items() if gap != "L09.mul_backward"})
    changed = [number for number, (one, other) in enumerate(zip(base, earlier, strict=True), start=1)
               if normalised(one) != normalised(other)]
    assert changed and all(result["error"] is None for result in earlier)
