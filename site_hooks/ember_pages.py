"""MkDocs hooks: the lessons' nav, headers and home-page lists from the course data; the fences; course.json.

In a page, three fences stand for interactive pieces:

    ```ember-cell        an example cell (Python code, runnable in the page)
    ```ember-question    one line: a question id such as L10.bfs
    ```ember-lab         one line: a lesson id such as L10

A lesson page is ``page.md`` in its lesson's folder (labs/lessons/10-order-of-blame/), added to the site's
pages as lessons/10-order-of-blame.md (``on_files``). It names its lesson in its front matter
(``lesson: L10``) and starts with its text: the header (number, title, question, minutes, what it builds
on) is made from the lesson's data, and the lessons' part of the nav from the course's parts
(``on_config``). On the home page, ``<div class="ember-parts" markdown="0"></div>`` becomes each part's
heading, its intro from parts.toml and its list of lessons.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from labs.course.model import Course, CourseError, load_course  # noqa: E402 - needs the repository on sys.path first
from labs.course.pages import FENCE, lesson_page_files  # noqa: E402
from labs.frontends.website import home_list, lessons_nav, page_header, page_link, part_heading, write_course_json  # noqa: E402

LESSONS_FOLDER = "lessons"  # the lesson pages' folder in the site, as in their addresses: /lessons/10-order-of-blame/
HOME_LIST = re.compile(r'<div class="ember-home" data-part="(\d+)" markdown="0"></div>')
PARTS = '<div class="ember-parts" markdown="0"></div>'  # on the home page: each part, its intro and its lessons
PAGE_SCRIPT = "assets/gen/ember.js"
FIRST_SCRIPT = "assets/gen/boot.js"  # written into each page's head (web/src/runtime/boot.js), not served as a file
GEN_FOLDER = "assets/gen/"
_urls: dict[str, str] = {}  # lesson id -> its page's address, from the site's root (on_files)
_pages: dict[str, str] = {}  # lesson id -> its page's path among the site's pages (on_config)
_page_files: dict[str, Path] = {}  # lesson id -> its page.md in its folder (on_config)
_first_script = ""  # the text of FIRST_SCRIPT (on_files)


def _course() -> Course:
    return load_course()


def _lesson_pages() -> dict[str, Path]:
    """Each lesson's page (page.md in its folder of labs/lessons/), by lesson id."""
    try:
        return lesson_page_files()
    except (ValueError, CourseError) as error:
        raise PluginError(str(error)) from error


def _page_uri(path: Path) -> str:
    """Where a lesson's page sits in the site's pages: lessons/10-order-of-blame.md for its folder, so that its
    address is /lessons/10-order-of-blame/."""
    return f"{LESSONS_FOLDER}/{path.parent.name}.md"


def on_config(config: Any) -> Any:
    """Put the lessons into the nav, part by part, right after its first entry (the home page).

    mkdocs.yml's nav lists only the other pages: a lesson listed there by hand stops the build.
    """
    global _pages, _page_files
    _page_files = _lesson_pages()
    _pages = {lesson: _page_uri(path) for lesson, path in _page_files.items()}
    nav = list(config["nav"] or [])
    by_hand = [entry for entry in nav if LESSONS_FOLDER + "/" in json.dumps(entry)]
    if by_hand:
        raise PluginError(f"mkdocs.yml's nav lists lesson pages by hand ({by_hand}); the course data lists them")
    try:
        lessons = lessons_nav(_course(), _pages)
    except CourseError as error:
        raise PluginError(str(error)) from error
    config["nav"] = nav[:1] + lessons + nav[1:]
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the lesson pages from their folders, and note each one's address, for links and course.json."""
    for path in _page_files.values():
        files.append(File.generated(config, _page_uri(path), abs_src_path=str(path)))
    _urls.clear()
    for lesson, src in _pages.items():
        found = files.get_file_from_path(src)
        if found is not None:
            _urls[lesson] = found.url
    first = files.get_file_from_path(FIRST_SCRIPT)
    if first is None:
        raise PluginError(f"docs/{FIRST_SCRIPT} is missing: build the page code first (node web/build.mjs)")
    global _first_script
    _first_script = Path(first.abs_src_path).read_text(encoding="utf-8")
    if re.search(r"</script|<!--", _first_script, re.IGNORECASE):
        raise PluginError(f"docs/{FIRST_SCRIPT} cannot be written into a page: it holds '</script' or '<!--'")
    files.remove(first)
    return files


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
        course = _course()
        if lesson_id not in course.lessons:
            raise PluginError(f"{where}: front matter names unknown lesson {lesson_id!r}")
        if re.match(r"\s*# ", markdown):
            raise PluginError(f"{where}: starts with its own header; the build writes it from {lesson_id}'s data")
        pages = _pages or {lesson: _page_uri(path) for lesson, path in _lesson_pages().items()}
        head = (f'<div class="ember-page" data-lesson="{lesson_id}" hidden></div>\n\n'
                + page_header(course, course.lessons[lesson_id], page_link(pages, where)))
    markdown = markdown.replace(PARTS, _parts_markdown())
    markdown = HOME_LIST.sub(lambda match: _home_list(int(match.group(1)), page.url, where), markdown)

    def replace(match: re.Match[str]) -> str:
        kind, body = match.group(1), match.group(2)
        if kind == "ember-cell":
            return _cell(body)
        if kind == "ember-question":
            return _question(body, where)
        return _lab(body, where)

    return head + FENCE.sub(replace, markdown)


def _parts_markdown() -> str:
    """Each part of the course as a section of the home page: its heading, its intro and its list of lessons."""
    return "\n\n".join(f'## {part_heading(part)}\n\n{part.intro}\n\n'
                       f'<div class="ember-home" data-part="{part.number}" markdown="0"></div>'
                       for part in _course().parts)


def _home_list(part: int, from_url: str, where: str) -> str:
    url_of = (lambda lesson: get_relative_url(_urls[lesson], from_url) if lesson in _urls else None)
    try:
        listed = home_list(_course(), part, url_of)
    except CourseError as error:
        raise PluginError(f"{where}: {error}") from error
    return f'<div class="ember-home" data-part="{part}" markdown="0">{listed}</div>'


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Start the page with its first script, and load the rest of the page code from the head.

    The first script comes right after the charset, before the style sheets: on a lesson page (named
    by its data-lesson) it starts Python while the browser is still reading the page. The page code
    (async) follows once the browser has it. On a lesson page the theme's script is held for the first script
    to load later (THEME_SCRIPT).
    """
    gen = get_relative_url(GEN_FOLDER, page.url)
    lesson_id = page.meta.get("lesson")
    named = "" if lesson_id is None else f' data-lesson="{html.escape(str(lesson_id))}"'
    first = f'<script data-gen="{html.escape(gen)}"{named}>{_first_script}</script>'
    charset = re.search(r"<meta charset=[^>]*>", output)
    if charset is None:
        raise PluginError(f"{page.file.src_uri}: the theme's page has no <meta charset> to put the first script after")
    output = output[:charset.end()] + first + output[charset.end():]
    script = get_relative_url(PAGE_SCRIPT, page.url)
    head = f'<script type="module" async src="{html.escape(script)}"></script>\n'
    if lesson_id is not None:
        output = _hold_theme_script(output, page.file.src_uri)
    return _guard_theme_storage(output.replace("</head>", head + "</head>", 1))


# On a lesson page the theme's script waits (web/src/runtime/boot.js loads it when Python is ready, the learner reaches
# for the page, or THEME_WAIT_MS has passed): on a first visit it took about a third of a CPU-second of the page's
# thread, beside Python's start.
THEME_SCRIPT = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')


def _hold_theme_script(output: str, where: str) -> str:
    found = THEME_SCRIPT.search(output)
    if found is None:
        raise PluginError(f"{where}: the theme's script (assets/javascripts/bundle.*.min.js) is not in the page")
    held = f'<script id="ember-theme" type="text/plain" data-src="{found[1]}"></script>'
    return output[:found.start()] + held + output[found.end():]


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


def _version() -> tuple[str, int]:
    """The course's version and release, as the build's manifest has them (a site built without it: "dev", 0)."""
    manifest = ROOT / "docs" / "assets" / "gen" / "manifest.json"
    if not manifest.exists():
        return "dev", 0
    data = json.loads(manifest.read_text())
    return data["version"], int(data.get("release", 0))


def on_post_build(config: Any) -> None:
    """Write assets/gen/course.json into the built site."""
    version, release = _version()
    write_course_json(Path(config["site_dir"]) / "assets" / "gen" / "course.json", _course(), _urls, version, release)
