"""Adding a lesson is one folder of labs/lessons/ and its gap markers in ember/: nothing else lists it.

In a copy of the course, a scratch lesson 19 is added that way, and then found in everything made from the
course: the command line's list, the site's nav, its page with the header made from its data, course.json,
the home page's list of its part, and the lesson notebooks. The CPython tests that hold every lesson to the
course's rules (its pages, questions, cells, notebooks and data) run in the copy too, and hold lesson 19 to them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("labs", "ember", "hx", "site_hooks", "docs", "mkdocs.yml", "tests", "web", "pyproject.toml")
SKIPPED = shutil.ignore_patterns("__pycache__", "gen", "vendor", "reference")

SCRATCH_MODULE = '''"""A scratch lesson's module."""


# --- gap L19.double ---
def double(x: float) -> float:
    """Twice x."""
    return 2 * x
# --- end gap ---
'''

SCRATCH_DATA = '''id = "L19"
title = "A scratch lesson"
question = "Is a lesson one folder?"
minutes = 5
builds_on = ["L18"]
can_now = "add a lesson to the course"

[[gaps]]
id = "L19.double"
title = "twice a number"
starter = \'\'\'
def double(x: float) -> float:
    """Twice x."""
    raise NotImplementedError("L19.double: multiply by two")
\'\'\'
hints = ["Twice is two times.", "What does 2 * 3 give?", "return 2 * x"]

[[questions]]
id = "recall_previous_byte"
prompt = "From lesson 18: what does a bigram model guess each byte of a name from?"
answer = "previous"
explain = "A bigram looks one byte back: the row of its table for that byte scores every byte that may follow."
[[questions.options]]
id = "previous"
text = "The byte just before it"
feedback = "One byte back is all a bigram sees: the row of W for that byte."
[[questions.options]]
id = "whole"
text = "The whole name so far"
feedback = "That would take far more than one row per byte; a bigram remembers one byte only."

[[questions]]
id = "twice"
prompt = "What will double(21) print once your gap is filled?"
answer = "fortytwo"
explain = "Twice 21 is 21 + 21."
revealed_by = ['print(double(21))']
giveaways = ['double(21) is 42']
[[questions.options]]
id = "fortytwo"
text = "42"
feedback = "Two times 21."
[[questions.options]]
id = "twentythree"
text = "23"
feedback = "That adds two; twice a number multiplies it by two."

[[claims]]
id = "six"
name = "double(3) is 6"
uses = ["L19.double"]
[claims.messages]
wrong = "double(3.0) should be 6.0; got {got}."
'''

SCRATCH_CHECKS = '''"""Checks of the scratch lesson."""

from labs.checking.claimkit import Env, Fail, claim


@claim("L19", "six")
def six(env: Env) -> None:
    got = env.scratch.double(3.0)
    if got != 6.0:
        raise Fail("wrong", got=got)
'''

SCRATCH_PAGE = '''---
lesson: L19
---

A lesson made of one folder. First, a question on the last lesson:

```ember-question
L19.recall_previous_byte
```

Predict before you write it:

```ember-question
L19.twice
```

```ember-lab
L19
```

Your piece, run:

```ember-cell
from ember.scratch import double

print(double(21))
```
'''

SCRATCH_WRONG = """[[mutants]]
name = "L19: double adds one"
breaks = ["L19.six:wrong"]
words = ["should be 6.0", "got 4.0"]
[mutants.pieces]
"L19.double" = '''
def double(x: float) -> float:
    \"\"\"Twice x.\"\"\"
    return x + 1
'''
"""

NOTEBOOKS = """
import json
from labs.course.model import load_course
from labs.course.pages import lesson_pages
from labs.frontends.notebook_files import notebook_contents
print(json.dumps(sorted(notebook_contents(load_course(), lesson_pages()))))
"""


def run(copy: Path, *args: str, code: int = 0) -> str:
    """Run Python in the copy of the course, as a learner or the build would there; answer what it printed."""
    done = subprocess.run([sys.executable, *args], cwd=copy, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(copy)})
    assert done.returncode == code, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course with lesson 19 added: one folder, and its gap markers in a module of ember/."""
    copy = tmp_path_factory.mktemp("course")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=SKIPPED)
        else:
            shutil.copy2(source, copy / name)
    before = {path.relative_to(copy) for path in copy.rglob("*")}
    folder = copy / "labs" / "lessons" / "19-a-scratch-lesson"
    folder.mkdir()
    (folder / "lesson.toml").write_text(SCRATCH_DATA, encoding="utf-8")
    (folder / "checks.py").write_text(SCRATCH_CHECKS, encoding="utf-8")
    (folder / "page.md").write_text(SCRATCH_PAGE, encoding="utf-8")
    (folder / "known_wrong.toml").write_text(SCRATCH_WRONG, encoding="utf-8")
    (copy / "ember" / "scratch.py").write_text(SCRATCH_MODULE, encoding="utf-8")
    added = {path.relative_to(copy) for path in copy.rglob("*")} - before
    assert added == {Path("labs/lessons/19-a-scratch-lesson"), *(Path("labs/lessons/19-a-scratch-lesson") / name
                     for name in ("lesson.toml", "checks.py", "page.md", "known_wrong.toml")),
                     Path("ember/scratch.py")}
    gen = copy / "docs" / "assets" / "gen"  # the page code's first script, which the build makes before MkDocs
    gen.mkdir(parents=True)
    (gen / "boot.js").write_text("/* the first script */\n", encoding="utf-8")
    return copy


def test_the_command_line_lists_the_new_lesson_and_checks_it(copy: Path, tmp_path: Path) -> None:
    listed = run(copy, "-m", "labs", "lessons")
    assert "L19" in listed and "A scratch lesson" in listed
    work = tmp_path / "work"
    run(copy, "-m", "labs", "start", "L19", "--dir", str(work), "--ref-deps")
    scratch = work / "ember" / "scratch.py"
    check = ("-m", "labs", "check", "L19", "--file", str(scratch))
    out = run(copy, *check, code=1)
    assert "[FAIL] double(3) is 6" in out and "still holds its starter" in out
    text = scratch.read_text(encoding="utf-8")
    scratch.write_text(text.replace('raise NotImplementedError("L19.double: multiply by two")', "return x + x"))
    assert "[pass] double(3) is 6" in run(copy, *check)


def test_the_site_has_its_page_header_nav_and_course_data(copy: Path) -> None:
    run(copy, "-m", "mkdocs", "build", "-q", "-d", "out")
    page = (copy / "out" / "lessons" / "19-a-scratch-lesson" / "index.html").read_text(encoding="utf-8")
    assert "A scratch lesson" in page and "Is a lesson one folder?" in page  # the header, from its data
    assert 'data-lab="L19"' in page
    home = (copy / "out" / "index.html").read_text(encoding="utf-8")
    assert 'href="lessons/19-a-scratch-lesson/"' in home  # in the nav and in its part's list
    assert 'data-lesson="L19"' in home
    course = json.loads((copy / "out" / "assets" / "gen" / "course.json").read_text(encoding="utf-8"))
    assert course["order"][-1] == "L19"
    assert course["parts"][-1]["lessons"][-1] == "L19"
    assert not list((copy / "out").rglob("known_wrong.toml"))


def test_the_notebooks_have_one_for_the_new_lesson(copy: Path) -> None:
    names = json.loads(run(copy, "-c", NOTEBOOKS))
    assert any("19" in name and name.endswith(".ipynb") for name in names), names


# The CPython tests that hold each lesson to the course's rules, run in the copy: every case of lesson 19 in them,
# and their tests that are not one case a lesson: all of a file's (None), or only those named, over the whole course
# (the others there test the pipeline or the page's Python, not the lessons).
COURSE_RULES: dict[str, tuple[str, ...] | None] = {
    "tests/test_page_rules.py": None,
    "tests/test_cell_order.py": None,
    "tests/test_questions.py": None,
    "tests/test_pages.py": None,
    "tests/test_notebook_files.py": None,
    "tests/test_labs.py": ("numbered_without_holes", "belongs_to_its_part", "gaps_claims_questions_and_hints",
                           "every_generated_module_imports", "finished_modules_pass_every_lesson",
                           "every_failure_message_is_triggered"),
    "tests/test_session.py": ("module_request_builds_the_learners_files",),
    "tests/test_tensor_files.py": (),
}


def held_to_lesson_19(test_id: str) -> bool:
    """Whether a test of COURSE_RULES runs in the copy: one of lesson 19's cases, or one over the whole course."""
    if "[" in test_id:
        return "L19" in test_id or "19-a-scratch-lesson" in test_id
    named = COURSE_RULES[test_id.split("::")[0]]
    return named is None or any(name in test_id for name in named)


def pytest_in(copy: Path, *args: str) -> str:
    """Run pytest in the copy (none of this run's own pytest settings) and answer what it printed."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=copy, capture_output=True, text=True, timeout=300, env={**env, "PYTHONPATH": str(copy)})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    return done.stdout


def test_the_tests_of_the_courses_rules_hold_the_new_lesson_to_them(copy: Path) -> None:
    collected = [line for line in pytest_in(copy, "--collect-only", "-q", *COURSE_RULES).splitlines() if "::" in line]
    chosen = [test_id for test_id in collected if held_to_lesson_19(test_id)]
    lesson_19 = [test_id for test_id in chosen if "[" in test_id]
    for file in set(COURSE_RULES) - {"tests/test_notebook_files.py", "tests/test_session.py"}:
        assert any(test_id.startswith(file) for test_id in lesson_19), (file, lesson_19)
    assert any("known_wrong" in test_id and "L19" in test_id for test_id in lesson_19), lesson_19
    assert any("module_request" in test_id for test_id in chosen)  # which lists scratch.py among the learner files
    ran = pytest_in(copy, "-q", *chosen)
    assert f"{len(chosen)} passed" in ran, ran[-2000:]
