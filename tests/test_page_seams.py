"""Facts the page's JavaScript shares with the course's Python, each written once on each side and held together
here: the kinds of problem and the fields of an earlier lesson's fault (labs/checking/problems.py and earlier.py,
web/src/runtime/protocol.js), the verdict words before a question's feedback (labs/course/questions.py,
web/src/page/quiz.js) and how an id names its lesson (labs/course/gaps.py, web/src/base/ids.js)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from labs.checking.problems import KINDS
from labs.course.gaps import lesson_of
from labs.course.model import load_course
from labs.course.questions import FALLBACK_SEED, answer_view

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web" / "src"
NODE = shutil.which("node")


def frozen_object(module: str, name: str) -> dict[str, str]:
    """``export const NAME = Object.freeze({ KEY: "text", ... })`` of a page module, as {KEY: text}."""
    source = (WEB / module).read_text(encoding="utf-8")
    body = re.search(rf"export const {name} = Object\.freeze\(\{{(.*?)\}}\);", source, re.DOTALL)
    assert body, f"{module} no longer defines {name} as Object.freeze({{...}})"
    return dict(re.findall(r'\b([A-Z_]+): "([^"]*)"', body.group(1)))


def test_the_page_names_every_kind_of_problem_python_makes_and_no_other() -> None:
    kinds = frozen_object("runtime/protocol.js", "PROBLEM")
    assert sorted(kinds.values()) == sorted(KINDS)
    assert all(name == kind.upper() for name, kind in kinds.items()), kinds


def test_the_page_and_the_notebook_open_a_verdict_with_the_same_words() -> None:
    words = frozen_object("page/quiz.js", "VERDICT")
    assert set(words) == {"RIGHT", "WRONG"}
    course = load_course()
    lesson = next(lesson for lesson in course.lessons.values() if lesson.questions)
    question = lesson.questions[0]
    key = f"{lesson.id}.{question.id}"
    for option in question.options:
        said = answer_view(question, key, FALLBACK_SEED, option.text).text
        lead = words["RIGHT"] if option.id == question.answer else words["WRONG"]
        assert said.startswith(f"{lead} {option.feedback}"), (option.id, said)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_page_reads_the_lesson_of_every_id_as_python_does() -> None:
    course = load_course()
    ids = [*course.gaps, *course.lessons]
    for lesson in course.lessons.values():
        ids += [claim.key for claim in lesson.claims] + [f"{lesson.id}.{q.id}" for q in lesson.questions]
    script = ('import { lessonOf, splitId } from "./web/src/base/ids.js"; let input = ""; '
              "for await (const chunk of process.stdin) input += chunk; const ids = JSON.parse(input); "
              "console.log(JSON.stringify(ids.map((id) => [lessonOf(id), splitId(id)])));")
    result = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(ids), text=True,
                            capture_output=True, cwd=ROOT, check=True)
    read = json.loads(result.stdout)
    assert len(read) == len(ids) > 100
    for id_, (lesson, parts) in zip(ids, read):
        assert lesson == lesson_of(id_), id_
        assert parts == list(id_.partition(".")[::2]), id_


def test_the_page_reads_the_fields_of_an_earlier_fault_python_sends() -> None:
    from dataclasses import fields

    from labs.checking.earlier import EarlierFault

    source = (WEB / "runtime" / "protocol.js").read_text(encoding="utf-8")
    typedef = re.search(r"@typedef \{\{((?:(?!\}\}).)*)\}\} EarlierFault", source, re.DOTALL)
    assert typedef, "protocol.js no longer defines the EarlierFault typedef"
    keys = re.findall(r"(\w+): string", typedef.group(1))
    assert keys == [field.name for field in fields(EarlierFault)]


def test_the_page_refuses_a_work_file_nested_as_deep_as_python_does() -> None:
    """web/src/work/work-checks.js scans ember-work.json before Python reads it; both stop at the same depth."""
    from labs.work.work_file import MAX_DEPTH

    source = (WEB / "work" / "work-checks.js").read_text(encoding="utf-8")
    found = re.search(r"export const MAX_JSON_DEPTH = (\d+);", source)
    assert found, "work-checks.js no longer defines MAX_JSON_DEPTH as a number"
    assert int(found.group(1)) == MAX_DEPTH
