"""The lesson pages' own markup: the fences that stand for cells, questions and labs, and each page's lesson.

A lesson page (``page.md`` in its lesson's folder of ``labs/lessons/``) names its lesson in its front
matter (``lesson: L10``) and marks its interactive pieces with three fences:

    ```ember-cell        an example cell (Python code, runnable in the page)
    ```ember-question    one line: a question id such as L10.bfs
    ```ember-lab         one line: a lesson id such as L10

A question may name, as ``revealed_by`` in its lesson's data, the text of its page that shows its answer: it is
then a prediction, and stands above every such text. Two conventions start at some lesson of the course, each
stated once below (``QUESTIONS_FIRST_FROM``, ``CELLS_AFTER_THE_LAB_FROM``); the tests hold every page to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from labs.course.model import LESSONS_DIR, folder_lesson, lesson_folders

PAGE_FILE = "page.md"  # in each lesson's folder
FENCE = re.compile(r"^```(ember-cell|ember-question|ember-lab)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FRONT_LESSON = re.compile(r"\A---\n(?:.*\n)*?lesson:[ \t]*(\S+)[ \t]*\n(?:.*\n)*?---\n")
HEADING = re.compile(r"^## (.+)$", re.MULTILINE)

# From this lesson on, a page opens with a question on an earlier lesson (its prompt starts "From lesson 07:"),
# and asks for at least one prediction.
QUESTIONS_FIRST_FROM = "L08"
# From this lesson on (Part III), no cell above a page's lab needs one of the lab's gaps, even one that says so.
CELLS_AFTER_THE_LAB_FROM = "L14"


@dataclass(frozen=True)
class ExampleCell:
    """One example cell of a page, with the section (## heading) it sits in."""

    section: str
    code: str


def page_lesson(markdown: str) -> str | None:
    """The lesson a page's front matter names, or None for a page that is not a lesson."""
    match = FRONT_LESSON.match(markdown)
    return match.group(1) if match else None


def lesson_page_files(lessons_dir: Path = LESSONS_DIR) -> dict[str, Path]:
    """Every lesson's page, by lesson id, in the order of the folders; its front matter must name its lesson."""
    pages: dict[str, Path] = {}
    for folder in lesson_folders(lessons_dir):
        path = folder / PAGE_FILE
        lesson = folder_lesson(folder)
        if not path.is_file():
            raise ValueError(f"{folder.name}/ has no {PAGE_FILE}")
        named = page_lesson(path.read_text(encoding="utf-8"))
        if named != lesson:
            raise ValueError(f"{folder.name}/{PAGE_FILE}: its front matter must say 'lesson: {lesson}', not {named!r}")
        pages[lesson] = path
    return pages


def lesson_pages(lessons_dir: Path = LESSONS_DIR) -> dict[str, str]:
    """Every lesson page's markdown, by lesson id."""
    return {lesson: path.read_text(encoding="utf-8") for lesson, path in lesson_page_files(lessons_dir).items()}


@dataclass(frozen=True)
class QuestionPlace:
    """One multiple-choice question of a page ('L10.bfs'), with the section (## heading) it sits in."""

    section: str
    key: str


def page_pieces(markdown: str) -> list[ExampleCell | QuestionPlace]:
    """The page's example cells and questions in its order, each with the heading of its section."""
    headings = [(match.start(), match.group(1).strip()) for match in HEADING.finditer(markdown)]
    pieces: list[ExampleCell | QuestionPlace] = []
    for match in FENCE.finditer(markdown):
        section = next((title for start, title in reversed(headings) if start < match.start()), "")
        if match.group(1) == "ember-cell":
            pieces.append(ExampleCell(section, match.group(2).rstrip("\n")))
        elif match.group(1) == "ember-question":
            pieces.append(QuestionPlace(section, match.group(2).strip()))
    return pieces


def example_cells(markdown: str) -> list[ExampleCell]:
    """The page's example cells in order, each with the heading of its section ('' before the first)."""
    return [piece for piece in page_pieces(markdown) if isinstance(piece, ExampleCell)]
