"""The lesson notebooks made from the lessons' data, and what the notebook changed, gap by gap."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shutil
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from labs.checking.learner import Work, build_modules, edited_gaps, exact_texts, finished_pieces, starter_gaps
from labs.course.gaps import find_gaps
from labs.course.model import load_course
from labs.course.pages import example_cells, lesson_pages
from labs.frontends import notebook
from labs.frontends.notebook_files import SCRATCH_LINE, notebook_contents
from labs.frontends.session import Session

T = TypeVar("T")

COURSE = load_course()
PAGES = lesson_pages()
CONTENTS = notebook_contents(COURSE, PAGES)


def source(cell: dict) -> str:
    return "".join(cell["source"])


def code_cells(book: dict) -> list[str]:
    return [source(cell) for cell in book["cells"] if cell["cell_type"] == "code"]


def test_every_lesson_with_a_lab_has_a_notebook_and_the_drive_holds_every_learner_file() -> None:
    lessons = [lesson.id for lesson in COURSE.lessons.values() if lesson.gaps]
    assert lessons == list(COURSE.lessons)  # every lesson has a lab, so every lesson has a notebook
    assert sorted(name for name in CONTENTS if name.endswith(".ipynb")) == sorted(f"{id_}.ipynb" for id_ in lessons)
    assert {f"ember/{name}" for name in COURSE.reference} | {"ember/__init__.py"} == {
        name for name in CONTENTS if name.startswith("ember/")}


def test_the_drive_files_as_built_hold_only_starters() -> None:
    for name in COURSE.reference:
        gaps = find_gaps(CONTENTS[f"ember/{name}"])
        assert gaps, name
        assert starter_gaps(COURSE, gaps) == {gap.id for gap in gaps}, name


@pytest.mark.parametrize("lesson_id", ["L01", "L06", "L10", "L12"])
def test_a_notebook_has_title_question_start_examples_checks_and_scratch_in_that_order(lesson_id: str) -> None:
    lesson = COURSE.lesson(lesson_id)
    book = json.loads(CONTENTS[f"{lesson_id}.ipynb"])
    assert book["nbformat"] == 4 and book["metadata"]["ember"]["lesson"] == lesson_id
    opening = source(book["cells"][0])
    assert lesson.title in opening and lesson.question in opening
    assert "Restart Kernel" in opening
    assert "cannot stop a cell that is running" in opening  # Interrupt does nothing to it (JupyterLite 0.8.6)
    # the start cell may be run at once (the build's RUN_WAITS_FOR_START); nothing to watch for at the top right,
    # which a phone's width does not show
    assert "runs as soon as Python is ready" in opening and "top right" not in opening
    codes = code_cells(book)
    assert codes[0] == f"from labs.frontends.notebook import start\n\nawait start({lesson_id!r})"
    examples = [cell.code for cell in example_cells(PAGES[lesson_id])]
    asked = ("ask(", "answer(")  # the page's questions sit among them (tests/test_questions.py)
    assert examples and [code for code in codes[1:-2] if not code.startswith(asked)] == examples
    assert codes[-2] == f"check({lesson_id!r})"
    assert codes[-1].startswith(SCRATCH_LINE)
    lab = next(source(cell) for cell in book["cells"] if source(cell).startswith("## Your lab"))
    for gap_id in lesson.gaps:
        assert gap_id in lab
    assert lab.count("<details>") == sum(len(COURSE.gaps[gap_id].hints) for gap_id in lesson.gaps)
    for cell in book["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None  # nothing has run


def test_example_cells_carry_the_heading_of_their_section() -> None:
    cells = example_cells(PAGES["L10"])
    assert cells[0].section == "A graph with a trap"
    assert any(cell.section == "Sorting without running out of stack" for cell in cells)


def scalar_as_lab_10_starts(exact: dict[str, str]) -> str:
    return build_modules(COURSE, "L10", Work({}, exact))["scalar.py"].source


def test_a_gap_changed_in_the_notebook_is_found_with_its_text_before_and_now() -> None:
    before = scalar_as_lab_10_starts({})
    gap = next(gap for gap in find_gaps(before) if gap.id == "L10.backward")
    edited = before.replace(gap.text, gap.text + "\n        # from the notebook")
    found = edited_gaps({"scalar.py": before}, {"scalar.py": edited})
    assert found.broken == {}
    assert found.changed == {"L10.backward": (gap.text, gap.text + "\n        # from the notebook")}
    # what the page saves is that exact text, and it builds the same file again, byte for byte
    assert scalar_as_lab_10_starts({"L10.backward": found.changed["L10.backward"][1]}) == edited


def test_an_unchanged_file_and_a_change_outside_the_gaps_give_nothing() -> None:
    before = scalar_as_lab_10_starts({})
    outside = before.replace('"""', '"""Edited outside the gaps. ', 1)
    assert edited_gaps({"scalar.py": before}, {"scalar.py": before}).changed == {}
    found = edited_gaps({"scalar.py": before}, {"scalar.py": outside})
    assert found.changed == {} and found.broken == {}


def test_a_file_that_lost_a_marker_is_named_and_gives_nothing_back() -> None:
    before = scalar_as_lab_10_starts({})
    lines = before.splitlines(keepends=True)
    gap = next(gap for gap in find_gaps(before) if gap.id == "L10.backward")
    without_close = "".join(lines[: gap.close_line - 1] + lines[gap.close_line:])
    markers = (gap.open_line, gap.close_line)
    without_both = "".join(line for number, line in enumerate(lines, 1) if number not in markers)
    unpaired = edited_gaps({"scalar.py": before}, {"scalar.py": without_close})
    assert unpaired.changed == {} and "no longer pair up" in unpaired.broken["scalar.py"]
    lost = edited_gaps({"scalar.py": before}, {"scalar.py": without_both})
    assert lost.changed == {} and "L10.backward" in lost.broken["scalar.py"]


def test_the_session_answers_the_pages_edits_request(session: Session) -> None:
    """Through the ``session`` fixture, which puts sys.path and ember's modules back: a session of the test's own
    left its learner folder first on the path, and later tests in the process imported that ember."""
    before = scalar_as_lab_10_starts({})
    gap = next(gap for gap in find_gaps(before) if gap.id == "L10.backward")
    now = before.replace(gap.text, "        pass")
    answer = json.loads(session.handle("edits", json.dumps({"before": {"scalar.py": before},
                                                            "now": {"scalar.py": now}})))
    assert answer == {"changed": {"L10.backward": {"before": gap.text, "now": "        pass"}}, "broken": {}}


def write_drive(folder: Path, exact: dict[str, str]) -> None:
    (folder / "ember").mkdir()
    for name, module in build_modules(COURSE, "L10", Work({}, exact)).items():
        (folder / "ember" / name).write_text(module.source, encoding="utf-8")


def run_alone(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run in a thread of its own: a browser test that ran earlier in this process leaves
    Playwright's event loop running in this thread until the session ends."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_the_notebook_finds_the_engine_in_its_drive_and_checks_it_as_the_terminal_does(tmp_path: Path, capsys) -> None:
    write_drive(tmp_path, {})
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        folder, origin = run_alone(notebook.find_engine())
    finally:
        os.chdir(here)
    assert folder == tmp_path and "drive" in origin
    notebook._state["folder"] = folder
    try:
        notebook.check("L10")
        starter = capsys.readouterr().out
        assert "L10 · The order of blame" in starter and "0 of" in starter
        shutil.rmtree(tmp_path / "ember")
        write_drive(tmp_path, exact_texts(COURSE, finished_pieces(COURSE, 10)))
        notebook.check("L10")
        out = capsys.readouterr().out
        claims = len(COURSE.lesson("L10").claims)
        assert f"{claims} of {claims} claims hold." in out and "FAIL" not in out
    finally:
        notebook._state["folder"] = None


def test_check_before_start_says_to_run_the_first_cell(capsys) -> None:
    notebook._state["folder"] = None
    notebook.check("L10")
    assert "Run the notebook's first cell" in capsys.readouterr().out


def test_forgetting_ember_drops_only_ember_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    monkeypatch.setattr(sys, "modules", dict(sys.modules))  # the other tests keep their imported ember
    sys.modules["ember.fake_for_test"] = types.ModuleType("ember.fake_for_test")
    notebook.forget_ember()
    assert "ember.fake_for_test" not in sys.modules and "ember" not in sys.modules
    assert "labs.frontends.notebook" in sys.modules


def test_without_a_drive_or_a_stored_copy_the_first_cell_says_where_to_open_it(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async def nothing_stored() -> dict[str, str]:
        return {}

    monkeypatch.setattr(notebook, "_stored_files", nothing_stored)
    monkeypatch.chdir(tmp_path)  # a working folder with no ember/ in it: no drive
    with pytest.raises(RuntimeError, match="Open as notebook button"):
        run_alone(notebook.find_engine())


def test_a_graph_drawn_before_the_first_cell_asks_for_it() -> None:
    notebook._state["viz"] = None
    with pytest.raises(RuntimeError, match="run the notebook's first cell"):
        notebook.svg("digraph { a -> b }")
