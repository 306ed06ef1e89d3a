"""The lesson notebooks, made from the lessons' data at build time, and the files served beside them.

Each lesson with a lab gets ``LNN.ipynb``: its title and question, a first cell that finds the
learner's engine, the page's example cells and multiple-choice questions in its order under its section
headings (each question: its prompt, ``ask`` for the options, ``answer``), the lab's gaps with their
hint ladders, a cell that runs the lab's checks, and a scratch section. Nothing in it runs on open.
Beside the notebooks, ``ember/`` holds the learner files as they start, for a notebook opened
without the lesson page's button (the button writes the learner's own files over them).
"""

from __future__ import annotations

import html
import json

from labs.checking.learner import INIT_SOURCE, module_sources
from labs.course.model import Course, Lesson
from labs.course.pages import ExampleCell, QuestionPlace, page_pieces
from labs.course.questions import find_question

APP_FOLDER = "notebook"  # the app's folder in the built site
SCRATCH_LINE = "# Scratch: try anything here."
RESTART_NOTE = (
    "Changed a file in `ember/`? Run the first cell again: it forgets the `ember` modules imported so far, "
    "so the next `import` reads your files afresh. Objects made before that keep their old class. "
    "For a clean start, restart the kernel (**Kernel → Restart Kernel**), then run the first cell. "
    "A cell that never ends is stopped the same way: in this notebook the Interrupt button (■) cannot stop a cell "
    "that is running (the lesson page's Stop can). A restart keeps your files in `ember/`; the names your cells made "
    "are gone."
)


def notebook_name(lesson_id: str) -> str:
    """The notebook's path in the app's drive, e.g. 'L10.ipynb'."""
    return f"{lesson_id}.ipynb"


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def _code(text: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": _lines(text)}


def _lines(text: str) -> list[str]:
    """Source as nbformat keeps it: a list of lines, each but the last ending in a newline."""
    return text.splitlines(keepends=True)


def _files_of(course: Course, lesson: Lesson) -> list[str]:
    return list(dict.fromkeys(course.gaps[gap_id].file for gap_id in lesson.gaps))


def _opening(course: Course, lesson: Lesson) -> str:
    files = ", ".join(f"[`ember/{name}`](ember/{name})" for name in _files_of(course, lesson))
    return (
        f"# {lesson.number:02d} · {lesson.title}\n\n"
        f"**{lesson.question}**\n\n"
        "This notebook runs on your own engine: the files in `ember/` beside it. The lesson page's "
        "**Open as notebook** button writes them from your saved work each time you press it, and when you "
        "go back to the lesson page, what you changed in a gap here is taken into your saved work there.\n\n"
        f"This lab's gaps are in {files}. Nothing here runs until you run it: start with the cell below. "
        "Run it at once if you like: while Python is still starting, it runs as soon as Python is ready.\n\n"
        f"{RESTART_NOTE}"
    )


def _lab(course: Course, lesson: Lesson) -> str:
    lines = [
        f"## Your lab: {lesson.title}\n",
        "Edit a gap between its two marker lines, save the file (**Ctrl+S**), then run the checks cell. "
        "The checks read your files afresh each time.\n",
    ]
    for gap_id in lesson.gaps:
        gap = course.gaps[gap_id]
        lines.append(f"- `{gap_id}` in [`ember/{gap.file}`](ember/{gap.file}): {html.escape(gap.title)}")
        for rung, hint in enumerate(gap.hints, 1):
            lines.append(f"  <details><summary>Hint {rung} of {len(gap.hints)}</summary>\n\n"
                         f"  {html.escape(hint)}\n\n  </details>")
    lines.append("\nThe claims the checks make:\n")
    lines.extend(f"{number}. {html.escape(claim.name)}" for number, claim in enumerate(lesson.claims, 1))
    return "\n".join(lines)


def _question_cells(course: Course, key: str) -> list[dict]:
    """A question as the notebook asks it: its prompt, a cell that lists its options, a cell to answer in."""
    question = find_question(course, key)
    prompt = html.escape(question.prompt, quote=False).replace("$", "&#36;")  # an HTML block: no emphasis, no math
    return [
        _markdown(f"#### Question\n\n<p>{prompt}</p>\n\n"
                  "Run the next cell for the options, then answer in the one after it."),
        _code(f"ask({key!r})"),
        _code(f"answer({key!r}, '')  # a letter, or the option's text, between the quotes"),
    ]


def _page_cells(course: Course, lesson: Lesson, page_markdown: str) -> list[dict]:
    """The page's example cells and questions, in its order under its section headings; questions the
    page does not ask come after them."""
    pieces = page_pieces(page_markdown)
    cells = []
    if pieces:
        cells.append(_markdown("## The lesson's example cells and questions\n\nThe same cells and questions as on "
                               "the lesson page, in its order (the page explains each). Later cells may use names "
                               "an earlier one made. The options are listed in the order your page shows them."))
    section = None
    for piece in pieces:
        if piece.section and piece.section != section:
            cells.append(_markdown(f"### {piece.section}"))
            section = piece.section
        if isinstance(piece, ExampleCell):
            cells.append(_code(piece.code))
        else:
            cells.extend(_question_cells(course, piece.key))
    asked = {piece.key for piece in pieces if isinstance(piece, QuestionPlace)}
    rest = [f"{lesson.id}.{q.id}" for q in lesson.questions if f"{lesson.id}.{q.id}" not in asked]
    if rest:
        cells.append(_markdown("## Questions"))
        for key in rest:
            cells.extend(_question_cells(course, key))
    return cells


def lesson_notebook(course: Course, lesson_id: str, page_markdown: str) -> dict:
    """The notebook (nbformat 4, as a dict) of one lesson, from its data and its page's cells and questions."""
    lesson = course.lesson(lesson_id)
    first = _code(f"from labs.frontends.notebook import start\n\nawait start({lesson.id!r})")
    cells = [_markdown(_opening(course, lesson)), first, *_page_cells(course, lesson, page_markdown)]
    cells.append(_markdown(_lab(course, lesson)))
    cells.append(_code(f"check({lesson.id!r})"))
    cells.append(_markdown("## Scratch\n\nYour own experiments. The display functions of the lesson cells "
                           "(`show`, `show_walk`, `plot`, `show_table`, …) work here too, and so do `ask`, `answer` "
                           "and `show_answer` for the lesson's questions."))
    cells.append(_code(f"{SCRATCH_LINE}\nfrom ember.scalar import Value\n\n"))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python (Pyodide)", "language": "python", "name": "python"},
            "language_info": {"name": "python"},
            "ember": {"lesson": lesson.id},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def notebook_contents(course: Course, pages: dict[str, str]) -> dict[str, str]:
    """Every file of the app's drive as built: path -> text (one notebook per lesson with a lab, and ember/)."""
    files = {
        notebook_name(lesson.id): json.dumps(lesson_notebook(course, lesson.id, pages.get(lesson.id, "")),
                                             indent=1, ensure_ascii=False) + "\n"
        for lesson in course.lessons.values() if lesson.gaps
    }
    first = next(iter(course.lessons))
    files["ember/__init__.py"] = INIT_SOURCE
    for name, source in module_sources(course, first, {}).items():
        files[f"ember/{name}"] = source
    return files
