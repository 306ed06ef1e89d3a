"""The lesson pages: every id they name exists, and every example cell runs on the finished pieces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.pages_kit import COURSE, PAGES, fences, lesson_of, page_outputs

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILES = list(PAGES.values())


@pytest.mark.parametrize("page", PAGE_FILES, ids=[p.parent.name for p in PAGE_FILES])
def test_every_example_cell_runs_on_the_finished_pieces_of_its_lesson(page: Path) -> None:
    assert fences(page, "ember-cell"), f"{page.name} has no example cell"
    for number, outputs in enumerate(page_outputs(lesson_of(page)), start=1):  # a cell's error fails the run
        assert outputs, f"cell {number} of {page.name} shows nothing"


@pytest.mark.parametrize("page", PAGE_FILES, ids=[p.parent.name for p in PAGE_FILES])
def test_a_page_asks_each_of_its_lessons_questions_and_opens_its_lab(page: Path) -> None:
    lesson = COURSE.lesson(lesson_of(page))
    asked = [body.strip() for body in fences(page, "ember-question")]
    assert sorted(asked) == sorted(f"{lesson.id}.{q.id}" for q in lesson.questions)
    assert [body.strip() for body in fences(page, "ember-lab")] == [lesson.id]


class _File:
    src_uri = "lessons/test.md"


class _Page:
    def __init__(self, lesson: str | None) -> None:
        self.meta = {"lesson": lesson} if lesson else {}
        self.file = _File()
        self.url = "lessons/test/"


@pytest.mark.parametrize("markdown, lesson, problem", [
    ("```ember-question\nL10.nope\n```\n", "L10", "unknown question 'L10.nope'"),
    ("```ember-lab\nL42\n```\n", "L10", "unknown lab 'L42'"),
    ("text\n", "L99", "unknown lesson 'L99'"),
])
def test_the_build_refuses_unknown_ids(markdown: str, lesson: str, problem: str) -> None:
    from mkdocs.exceptions import PluginError

    from site_hooks import ember_pages

    with pytest.raises(PluginError, match=re.escape(problem)):
        ember_pages.on_page_markdown(markdown, _Page(lesson), None, None)


def test_the_build_turns_fences_into_escaped_placeholders() -> None:
    from site_hooks import ember_pages

    html = ember_pages.on_page_markdown("```ember-cell\nprint('<b>')\n\nx = 1\n```\n", _Page("L10"), None, None)
    assert '<div class="ember-page" data-lesson="L10" hidden></div>' in html
    assert "print(&#x27;&lt;b&gt;&#x27;)&#10;&#10;x = 1" in html


def test_a_lesson_pages_theme_script_is_held_for_the_first_script_to_load() -> None:
    from mkdocs.exceptions import PluginError

    from site_hooks import ember_pages

    bundle = "../../assets/javascripts/bundle.a5f9d56c.min.js"
    page = f'<body><p>x</p><script src="{bundle}"></script><script src=a.js></script></body>'
    held = ember_pages._hold_theme_script(page, "L10.md")
    placeholder = f'<script id="ember-theme" type="text/plain" data-src="{bundle}">'
    assert held == f"<body><p>x</p>{placeholder}</script><script src=a.js></script></body>"
    with pytest.raises(PluginError, match="the theme's script"):
        ember_pages._hold_theme_script("<body><script src=a.js></script></body>", "L10.md")


def test_course_json_holds_only_what_the_page_script_reads() -> None:
    from labs.frontends.website import course_data

    data = course_data(COURSE, {"L10": "lessons/10-order-of-blame/"}, "v1")
    script = "\n".join(path.read_text() for path in (ROOT / "web" / "src").glob("**/*.js"))
    lesson, gap = data["lessons"]["L10"], data["gaps"]["L10.backward"]
    fields = {*data, *data["parts"][0], *lesson, *lesson["claims"][0], *lesson["questions"][0],
              *lesson["questions"][0]["options"][0], *gap}
    unread = sorted(name for name in fields if not re.search(rf"\.{name}\b", script))
    assert not unread, f"course.json carries fields no page code reads: {unread}"
    assert "finished" not in gap and lesson["url"] == "lessons/10-order-of-blame/" and data["version"] == "v1"


