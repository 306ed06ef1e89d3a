"""What the web site says about the course, made from the course data (the lessons' TOML and parts.toml).

The site's build (``site_hooks/ember_pages.py``) asks this module for the lessons' part of the
navigation, each lesson page's header, the home page's list of each part's lessons, and the page
script's ``course.json``; nothing of it is kept by hand anywhere else.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from labs.course.model import Course, CourseError, Lesson, Part
from labs.work.work_file import MAX_INPUT_BYTES

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")
LESSON_LINK = re.compile(r"\]\((L\d\d)\)")  # [lesson 01](L01) in a lesson's words: a link to that lesson's page


def part_heading(part: Part) -> str:
    """'Part II · Autograd on single numbers'."""
    return f"Part {ROMAN[part.number - 1]} · {part.title}"


def lesson_heading(lesson: Lesson) -> str:
    """'10 · The order of blame'."""
    return f"{lesson.number:02d} · {lesson.title}"


def lessons_nav(course: Course, pages: dict[str, str]) -> list[dict[str, list[dict[str, str]]]]:
    """The lessons' part of MkDocs' nav: one section per part that has lessons, one entry per lesson.

    ``pages`` maps each lesson id to its page's path under docs/; a lesson without a page, or a page
    of no lesson, stops the build.
    """
    missing = [lesson_id for lesson_id in course.lessons if lesson_id not in pages]
    if missing:
        raise CourseError(f"no lesson folder has a page for lesson {', '.join(missing)} in its front matter")
    unknown = sorted(set(pages) - set(course.lessons))
    if unknown:
        raise CourseError(f"pages name lessons the course does not have: {', '.join(unknown)}")
    return [
        {part_heading(part): [{lesson_heading(course.lessons[lid]): pages[lid]} for lid in part.lessons]}
        for part in course.parts if part.lessons
    ]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def page_header(course: Course, lesson: Lesson, link: Callable[[str], str]) -> str:
    """A lesson page's header, as markdown: its number and title, question, minutes, what it builds on.

    ``link(lesson_id)`` is the address of another lesson's page from this one, for a lesson whose
    ``starts_from`` words link to one (``[lesson 01](L01)``).
    """
    if lesson.builds_on:
        before = "builds on " + _and([f"*{lesson_heading(course.lessons[lid])}*" for lid in lesson.builds_on])
    else:
        before = LESSON_LINK.sub(lambda match: f"]({link(match.group(1))})", lesson.starts_from)
    return (f"# {lesson_heading(lesson)}\n\n"
            f"**{lesson.question}** · about {lesson.minutes} minutes ·\n{before}\n\n")


def page_link(pages: dict[str, str], from_lesson_page: str) -> Callable[[str], str]:
    """``link(lesson_id)``: the relative path from one page (a path under docs/) to a lesson's page."""
    folder = posixpath.dirname(from_lesson_page)
    return lambda lesson_id: posixpath.relpath(pages[lesson_id], folder or ".")


def home_list(course: Course, part_number: int, url_of: Callable[[str], str | None]) -> str:
    """The home page's list of a part's lessons, as HTML (the page script adds the learner's progress).

    ``url_of(lesson_id)`` is the address of a lesson's page from the home page.
    """
    part = next((part for part in course.parts if part.number == part_number), None)
    if part is None:
        raise CourseError(f"the home page names part {part_number}, which parts.toml does not have")
    if not part.lessons:
        return "<p>Coming later.</p>"
    items = []
    for lesson_id in part.lessons:
        lesson = course.lessons[lesson_id]
        url = url_of(lesson_id)
        title = html.escape(lesson.title)
        title = f'<a href="{html.escape(url)}">{title}</a>' if url else title
        items.append(f'<li data-lesson="{lesson_id}">{title}'
                     f'<div class="ember-lesson-question">{html.escape(lesson.question)}</div></li>')
    first = course.lessons[part.lessons[0]].number
    return f'<ol class="ember-lessons" start="{first}">{"".join(items)}</ol>'


def course_data(course: Course, urls: dict[str, str], version: str, release: int = 0) -> dict[str, Any]:
    """What the page script reads about the course (web/src/page/page.js, lab.js, quiz.js), and nothing more.

    ``release`` orders the builds of the course (scripts/build_site.py's course_release): the page stores it
    with each piece, so that a tab on an older build never writes over a newer build's work (web/src/work/pieces.js).
    """
    return {
        "version": version,
        "work_file_bytes": MAX_INPUT_BYTES,  # the largest file the page hands Python to read as the learner's work
        "release": release,
        "order": list(course.lessons),
        "parts": [{"number": part.number, "lessons": list(part.lessons)} for part in course.parts],
        "lessons": {
            lesson.id: {
                "id": lesson.id, "number": lesson.number, "title": lesson.title, "question": lesson.question,
                "can_now": lesson.can_now, "url": urls.get(lesson.id), "gaps": list(lesson.gaps),
                # whether an earlier lesson has gaps the lab could fill with finished pieces
                "earlier_gaps": any(gap.number < lesson.number for gap in course.gaps.values()),
                "claims": [{"key": claim.key, "name": claim.name} for claim in lesson.claims],
                "questions": [
                    {"id": q.id, "prompt": q.prompt, "answer": q.answer, "explain": q.explain,
                     "options": [{"id": o.id, "text": o.text, "feedback": o.feedback} for o in q.options]}
                    for q in lesson.questions
                ],
            }
            for lesson in course.lessons.values()
        },
        "gaps": {
            gap.id: {"lesson": gap.lesson, "title": gap.title, "hints": list(gap.hints), "file": gap.file,
                     # the stages of its region that later lessons reopen, in order: a version the learner writes
                     # there is the one those lessons run, whatever changes here
                     "later": [stage.id for stage in course.regions[gap.id].stages if stage.number > gap.number]}
            for gap in course.gaps.values()
        },
    }


def write_course_json(target: Path, course: Course, urls: dict[str, str], version: str, release: int = 0) -> None:
    """Write the page script's course.json."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = course_data(course, urls, version, release)
    target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
