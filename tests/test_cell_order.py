"""Every cell runs when the page reaches it: no cell above a lab calls a gap of that lab.

A learner reads a page from the top, having finished the lessons before it. A cell above the lab
runs on those pieces and on this lesson's starters, so a cell that reaches one of this lesson's
gaps there shows "Not written yet" (or a starter's simpler, earlier form) instead of what the prose
says. Each cell above the lab is run as that learner has it, and every function it calls in the
learner's files is matched with the gap it was written in.

A cell may show a starter's refusal on purpose; it then says so in a comment that holds
``STARTER_ON_PURPOSE``, and the test checks that the refusal is what it shows. In Parts I and II,
whose labs close their pages, a cell above the lab may use what that lab writes if it says so first:
its first comment names every gap it needs ("# Needs your L07.init and L07.mul from the lab below:
..."), which ``tests/test_cell_needs.py`` holds it to. In Part III every cell that needs the lab
comes after it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from labs.checking.learner import finished_pieces
from labs.course.gaps import find_gaps, gap_at_line
from labs.course.model import lesson_number
from labs.course.pages import CELLS_AFTER_THE_LAB_FROM, FENCE
from tests.pages_kit import COURSE, PAGES, learner_session

pytestmark = pytest.mark.xdist_group("page-cells")

STARTER_ON_PURPOSE = "shows the starter on purpose"


def cells_above_the_lab(page: Path) -> list[str]:
    """The example cells of a page that come before its lab, in page order (all of them if it has no lab)."""
    cells = []
    for kind, body in FENCE.findall(page.read_text()):
        if kind == "ember-lab":
            break
        if kind == "ember-cell":
            cells.append(body)
    return cells


@contextmanager
def gaps_called(folder: Path, lesson: str) -> Iterator[set[str]]:
    """The ids of ``lesson``'s gaps whose code runs inside the block, by where each called function was written."""
    called: set[str] = set()
    regions: dict[str, list] = {}

    def gap_of(filename: str, line: int) -> str | None:
        if filename not in regions:
            path = Path(filename)
            inside = path.suffix == ".py" and folder in path.parents and path.exists()
            regions[filename] = find_gaps(path.read_text()) if inside else []
        gap = gap_at_line(regions[filename], line)
        return gap.id if gap is not None else None

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            gap = gap_of(frame.f_code.co_filename, frame.f_code.co_firstlineno)
            if gap is not None and gap.startswith(f"{lesson}."):
                called.add(gap)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(previous)


def reached_above_the_lab(lesson: str) -> list[tuple[int, list[str], dict | None, str]]:
    """For each cell above the lab: its number, the lab's gaps it called, its error, and its code."""
    page = PAGES[lesson]
    pieces = finished_pieces(COURSE, COURSE.lesson(lesson).number - 1)
    found = []
    with tempfile.TemporaryDirectory(prefix="ember-order-") as name, learner_session(Path(name)) as session:
        folder = Path(name).resolve()
        for number, code in enumerate(cells_above_the_lab(page), start=1):
            request = json.dumps({"page": page.name, "lab": lesson, "pieces": pieces, "code": code})
            with gaps_called(folder, lesson) as called:
                result = json.loads(session.handle("run", request))
            error = result["error"]
            if error and error["kind"] == "not_written" and str(error["gap"]).startswith(f"{lesson}."):
                called.add(error["gap"])
            found.append((number, sorted(called), error, code))
    return found


@pytest.mark.parametrize("lesson", sorted(PAGES))
def test_no_cell_above_a_lab_calls_a_gap_of_that_lab(lesson: str) -> None:
    name = PAGES[lesson].name
    for number, called, error, code in reached_above_the_lab(lesson):
        if STARTER_ON_PURPOSE in code:
            assert error is not None and error["kind"] == "not_written", (
                f"cell {number} of {name} says it shows a starter, but it ran without one")
            continue
        if lesson_number(lesson) < lesson_number(CELLS_AFTER_THE_LAB_FROM) and called:
            continue  # it names the gaps it needs: tests/test_cell_needs.py
        assert not called, (f"cell {number} of {name} comes before the lab but calls "
                            f"{', '.join(called)}, which the learner has not written yet")
        assert error is None, f"cell {number} of {name}, before the lab: {error}"


def test_the_rule_sees_a_cell_that_calls_a_gap_of_the_lab_below_it(tmp_path: Path) -> None:
    """The check itself: lesson 10's lab opens L10.backward, and a cell calling backward() is seen."""
    page = tmp_path / "10-order-of-blame.md"
    page.write_text("---\nlesson: L10\n---\n\n```ember-cell\nfrom ember.scalar import Value\n"
                    "a = Value(2.0)\nb = a * a\nb.backward()\nprint(a.grad)\n```\n\n```ember-lab\nL10\n```\n")
    kept = dict(PAGES)
    try:
        PAGES["L10"] = page
        (number, called, error, _code), = reached_above_the_lab("L10")
    finally:
        PAGES.clear()
        PAGES.update(kept)
    assert number == 1 and called == ["L10.backward"]
    assert error is not None and error["kind"] == "not_written"
