"""What the tests of the lesson pages share: the course and its pages, their fences, and each page's cells run once.

A test module that reads ``page_outputs`` marks itself ``pytest.mark.xdist_group("page-cells")``, so that
when the tests run in several processes the modules that read one run share it.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from labs.checking.learner import finished_pieces, forget_ember
from labs.course.model import load_course
from labs.course.pages import FENCE, lesson_page_files, page_lesson
from labs.frontends.session import Session

COURSE = load_course()
PAGES = lesson_page_files()  # lesson id -> its page.md, in the course's order


def lesson_of(page: Path) -> str:
    """The lesson a page's front matter names."""
    lesson = page_lesson(page.read_text())
    assert lesson, f"{page.name} names no lesson in its front matter"
    return lesson


def fences(page: Path, kind: str) -> list[str]:
    """The bodies of a page's fences of one kind ('ember-cell', 'ember-question' or 'ember-lab'), in page order."""
    return [body for found, body in FENCE.findall(page.read_text()) if found == kind]


def question_fence(key: str) -> str:
    """The fence that places question ``key`` ('L10.bfs') on its page."""
    return f"```ember-question\n{key}\n```"


def position(lesson: str, needle: str) -> int:
    """Where ``needle`` first stands on a lesson's page; it must stand there."""
    text = PAGES[lesson].read_text()
    assert needle in text, needle
    return text.index(needle)


@contextmanager
def learner_session(folder: Path) -> Iterator[Session]:
    """A browser-side session whose learner package lives in ``folder``; sys.path and ember's modules are put back."""
    path = list(sys.path)
    modules = {name: module for name, module in sys.modules.items() if name == "ember" or name.startswith("ember.")}
    try:
        yield Session(folder)
    finally:
        sys.path[:] = path
        forget_ember()
        sys.modules.update(modules)


def run_cells(session: Session, lesson: str) -> list[list[dict]]:
    """The outputs of every cell of a lesson's page, run in order on the finished pieces."""
    page = PAGES[lesson]
    pieces = finished_pieces(COURSE, COURSE.lesson(lesson).number)
    outputs = []
    for number, code in enumerate(fences(page, "ember-cell"), start=1):
        result = json.loads(session.handle("run", json.dumps({"page": page.name, "lab": lesson, "pieces": pieces,
                                                              "code": code})))
        assert result["error"] is None, f"cell {number} of {page.name}: {result['error']}"
        outputs.append(result["outputs"])
    return outputs


@functools.cache
def page_outputs(lesson: str) -> tuple[list[dict], ...]:
    """run_cells on a session of its own, once per process: every test of a page's words reads the same run."""
    with tempfile.TemporaryDirectory(prefix="ember-page-") as folder, learner_session(Path(folder)) as session:
        return tuple(run_cells(session, lesson))


def text_of(outputs: list[dict]) -> str:
    """What one cell printed to stdout."""
    return "".join(item["text"] for item in outputs if item["kind"] == "stdout")


def group_of(pattern: str, text: str) -> str:
    """The first group of the first match of ``pattern`` in ``text``, which must have one."""
    match = re.search(pattern, text)
    assert match is not None, f"{pattern!r} is not in {text!r}"
    return match.group(1)
