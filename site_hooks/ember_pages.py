"""MkDocs hooks: turn the course's fences into page elements, refuse unknown ids, publish course.json.

In a page, three fences stand for interactive pieces:

    ```ember-cell        an example cell (Python code, runnable in the page)
    ```ember-question    one line: a question id such as L10.bfs
    ```ember-lab         one line: a lesson id such as L10

A lesson page names its lesson in its front matter (``lesson: L10``).
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from labs.course import Course, load_course  # noqa: E402 - needs the repository on sys.path first
from labs.pages import FENCE  # noqa: E402

PAGE_SCRIPT = "assets/gen/ember.js"
_urls: dict[str, str] = {}


def _course() -> Course:
    return load_course()


def _cell(body: str) -> str:
    code = html.escape(body.rstrip("\n")).replace("\n", "&#10;")
    return f'<div class="ember-cell"><pre><code class="language-python">{code}</code></pre></div>'


def _question(body: str, where: str) -> str:
    key = body.strip()
    lesson_id, _, question_id = key.partition(".")
    course = _course()
    lesson = course.lessons.get(lesson_id)
    if lesson is None or question_id not in [q.id for q in lesson.questions]:
        raise PluginError(f"{where}: unknown question {key!r}")
    prompt = html.escape(_prompt(lesson, question_id))
    return f'<div class="ember-question" data-question="{html.escape(key)}"><p>{prompt}</p></div>'


def _prompt(lesson: Any, question_id: str) -> str:
    return next(q.prompt for q in lesson.questions if q.id == question_id)


def _lab(body: str, where: str) -> str:
    lesson_id = body.strip()
    if lesson_id not in _course().lessons:
        raise PluginError(f"{where}: unknown lab {lesson_id!r}")
    return f'<div class="ember-lab" data-lab="{lesson_id}"><p>The lab needs JavaScript and a web server.</p></div>'


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace the course's fences with placeholders the page script fills in; check every id."""
    where = page.file.src_uri
    lesson_id = page.meta.get("lesson")
    head = ""
    if lesson_id is not None:
        if lesson_id not in _course().lessons:
            raise PluginError(f"{where}: front matter names unknown lesson {lesson_id!r}")
        _urls[lesson_id] = page.url
        head = f'<div class="ember-page" data-lesson="{lesson_id}" hidden></div>\n\n'

    def replace(match: re.Match[str]) -> str:
        kind, body = match.group(1), match.group(2)
        if kind == "ember-cell":
            return _cell(body)
        if kind == "ember-question":
            return _question(body, where)
        return _lab(body, where)

    return head + FENCE.sub(replace, markdown)


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Load the page script from the head, and name a lesson page's lesson there.

    The script is small and async: on a lesson page it starts Python while the browser is still
    reading the body, then loads the rest of the page code.
    """
    script = get_relative_url(PAGE_SCRIPT, page.url)
    head = f'<script type="module" async src="{html.escape(script)}"></script>\n'
    lesson_id = page.meta.get("lesson")
    if lesson_id is not None:
        head = f'<meta name="ember-lesson" content="{html.escape(lesson_id)}">\n' + head
    return _guard_theme_storage(output.replace("</head>", head + "</head>", 1))


# The theme reads its saved palette through __md_get, whose default argument touches localStorage:
# where the browser blocks storage, that throws before any page code runs. Wrap it so that a page
# without storage simply starts in the default palette.
STORAGE_GUARD = ("<script>(()=>{const get=__md_get,set=__md_set;"
                 "__md_get=(...a)=>{try{return get(...a)}catch{return null}};"
                 "__md_set=(...a)=>{try{set(...a)}catch{}}})()</script>")


def _guard_theme_storage(output: str) -> str:
    at = output.find("__md_set=")
    end = output.find("</script>", at) if at != -1 else -1
    if end == -1:
        raise PluginError("the theme no longer defines __md_set in the page head; review STORAGE_GUARD")
    end += len("</script>")
    return output[:end] + STORAGE_GUARD + output[end:]


def course_json(course: Course, urls: dict[str, str]) -> dict[str, Any]:
    """Everything the page script needs to know about the course, as plain data."""
    order = list(course.lessons)
    return {
        "version": _version(),
        "order": order,
        "parts": [{"number": part.number, "title": part.title, "lessons": list(part.lessons)} for part in course.parts],
        "lessons": {
            lesson.id: {
                "id": lesson.id, "number": lesson.number, "part": lesson.part, "title": lesson.title,
                "question": lesson.question, "minutes": lesson.minutes, "builds_on": list(lesson.builds_on),
                "can_now": lesson.can_now,
                "url": urls.get(lesson.id), "gaps": list(lesson.gaps),
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
            gap.id: {"id": gap.id, "lesson": gap.lesson, "number": gap.number, "title": gap.title,
                     "hints": list(gap.hints), "finished": gap.finished, "file": gap.file}
            for gap in course.gaps.values()
        },
    }


def _version() -> str:
    manifest = ROOT / "docs" / "assets" / "gen" / "manifest.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else "dev"


def on_post_build(config: Any) -> None:
    """Write assets/gen/course.json into the built site."""
    target = Path(config["site_dir"]) / "assets" / "gen" / "course.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(course_json(_course(), _urls), ensure_ascii=False))
