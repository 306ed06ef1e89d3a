"""The page's types of what Python makes, held to what Python makes.

`course.json` (labs/frontends/website.py's course_data) is declared in web/src/base/course-data.d.ts, and the worker's
answers (labs/frontends/session.py), kind by kind, in web/src/runtime/protocol.js's typedefs (a read work file's in
your-work.js). Both are written by hand. Here the real data, made in CPython, is written into a TypeScript file that
assigns each value to its declared type, and TypeScript's checker reads it (tsc --noEmit):

- each value as an object literal assigned to the type: a key it lacks, a key the type does not name, or a value of
  another kind fails;
- every value of a kind `as const`, against the type (tests/types_match.d.ts's Unproduced): a key the type names,
  optional or not, that no real value has fails, with its path ("check.results[].problem").
"""

from __future__ import annotations

import base64
import json
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labs.checking.learner import finished_pieces
from labs.course.model import Course, load_course
from labs.frontends.session import Session
from labs.frontends.website import course_data
from tests.pages_kit import learner_session

ROOT = Path(__file__).resolve().parent.parent
TSC = ROOT / "node_modules" / ".bin" / "tsc"
HELPERS = ROOT / "tests" / "types_match"  # .d.ts
COURSE = load_course()

# What each kind of data is declared as: the file under web/src that declares it, and the type's name.
DECLARED = {
    "course": ("course-data.d.ts", "Course"),
    "run": ("protocol.js", "RunAnswer"),
    "check": ("protocol.js", "CheckReport"),
    "module": ("protocol.js", "ModuleAnswer"),
    "earlier": ("protocol.js", "EarlierAnswer"),
    "edits": ("protocol.js", "EditsAnswer"),
    "save_work": ("protocol.js", "SaveWorkAnswer"),
    "read_work": ("your-work.js", "ReadAnswer"),
}
# Keys a type names that Python never makes, on purpose: what the page itself adds to a record Python also passes on.
PAGE_ONLY = {
    "read_work.preview.lessons[].progress.mine.at": "the time of a check run, which only the page stores",
    "read_work.preview.lessons[].progress.file.at": "the same",
    "read_work.preview.lessons[].progress.merged.at": "the same",
    "read_work.changes.progress.*.at": "the same",
}


def web_file(name: str) -> Path:
    """The one file of this name in the page code (in whichever folder of web/src it lives)."""
    found = sorted((ROOT / "web" / "src").rglob(name))
    assert len(found) == 1, f"web/src should hold one {name}: {found}"
    return found[0]


def module_path(path: Path) -> str:
    """An import specifier for a file: .d.ts files are imported without their suffix."""
    text = str(path)
    return text.removesuffix(".d.ts") if text.endswith(".d.ts") else text


def catalog_pieces(lesson_id: str, file: str, kind: str, name: str) -> dict[str, str]:
    """The pieces of a named entry of a lesson folder's known_wrong.toml or also_right.toml, as the learner's own."""
    with (COURSE.lesson(lesson_id).folder / file).open("rb") as handle:
        pieces = next(entry for entry in tomllib.load(handle)[kind] if entry["name"] == name)["pieces"]
    return {gap: body.rstrip("\n") + "\n# mine\n" for gap, body in pieces.items()}


def answers(session: Session, course: Course) -> dict[str, list[Any]]:
    """Real answers of every kind of request, each kind with its shapes: errors, problems, places, live keys."""

    def ask(kind: str, payload: dict[str, Any]) -> Any:
        return json.loads(session.handle(kind, json.dumps(payload), lambda _text: None))

    done = finished_pieces(course, 10)
    broken_sort = catalog_pieces("L06", "known_wrong.toml", "mutants", "the order never reversed")
    # lesson 10's backward on the learner's own toposort, so that a broken one is the earlier piece at fault
    sort_backward = catalog_pieces("L10", "also_right.toml", "variants",
                                   "lesson 06's toposort, imported as ember.graph (needs the learner's ember package "
                                   "importable during checks)")
    marker = {"L10.backward": "    # --- end gap ---\n"}  # an exact text holding a gap's marker
    question = course.lesson("L10").questions[0]
    answer_id, options = f"L10.{question.id}", [option.id for option in question.options]
    cells = ["print('\\n'.join(map(str, range(5000))))", "import sys\nprint('e', file=sys.stderr)", "1 / 0", "x = (1,",
             "from ember.scalar import Value\na = Value(2.0)\nb = a * a\nb.backward()\nshow(b)",
             "plot({'loss': [(0, 1.0), (1, 0.5)]}, key='live')", "show_table(['a'], [[1]])"]
    run = [ask("run", {"page": "/p/", "lab": "L10", "pieces": done, "code": code}) for code in cells]
    run.append(ask("run", {"page": "/p/", "lab": "L10", "pieces": {}, "code": "from ember.scalar import Value\n"
                                                                              "Value(1.0) + 2"}))
    module = ask("module", {"lab": "L10", "pieces": done})
    scalar = module["files"]["scalar.py"]["source"]
    state = {"pieces": {"L10.backward": {"code": "    pass\n"}}, "answers": {answer_id: {"option": options[1],
             "correct": False, "tried": options[1:2]}}, "progress": {"L10": {"passed": 1, "total": 5, "done": False}},
             "last": "L10", "seed": "7"}
    right = {"option": question.answer, "correct": True, "everCorrect": True, "tried": options[1:2], "revealed": False}
    saved = ask("save_work", {"state": {"pieces": {gap: {"code": code} for gap, code in done.items()},
                                        "answers": {answer_id: right},
                                        "progress": {"L10": {"passed": 5, "total": 5, "done": True}},
                                        "last": "L10", "seed": "9"}, "version": "v1", "today": "2026-12-06"})
    return {
        "run": run,
        "check": [ask("check", {"lab": "L10", "pieces": done}), ask("check", {"lab": "L10", "pieces": {}}),
                  ask("check", {"lab": "L10", "pieces": finished_pieces(course, 9) | sort_backward | broken_sort}),
                  ask("check", {"lab": "L10", "pieces": done | {"L10.backward": "    def (:\n"}}),
                  ask("check", {"lab": "L10", "pieces": done, "exact": marker})],
        "module": [module, ask("module", {"lab": "L10", "pieces": done, "exact": marker})],
        "earlier": [ask("earlier", {"lab": "L10", "pieces": {}, "replace_own": True}),
                    ask("earlier", {"lab": "L10", "pieces": broken_sort, "replace_own": False,
                                    "gaps": ["L06.toposort"]})],
        "edits": [ask("edits", {"before": {"scalar.py": scalar},
                                "now": {"scalar.py": scalar.replace("def backward(self)", "def backward(self)  # mine"),
                                        "graph.py": "# --- gap L06.toposort ---\n"}})],
        "save_work": [saved, ask("save_work", {"state": {}, "version": "v1", "today": "not a day"})],
        "read_work": [ask("read_work", {"state": state, "files": [{"name": saved["name"], "data": saved["data"]}]}),
                      ask("read_work", {"state": state, "files": [{"name": "w.zip",
                                                                    "data": base64.b64encode(b"no zip").decode()}]})],
    }


def course_json(course: Course) -> dict[str, Any]:
    """course.json as the build writes it (one lesson without a page, as a lesson in preparation has)."""
    urls = {lesson_id: f"lessons/{lesson_id.lower()}/" for lesson_id in list(course.lessons)[1:]}
    return course_data(course, urls, "0123456789abcdef", 1765000000)


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Any]]]:
    """Every kind of data, as Python makes it: course.json and the session's answers."""
    with learner_session(tmp_path_factory.mktemp("learner")) as session:
        yield {"course": [course_json(COURSE)], **answers(session, COURSE)}


def typescript(data: dict[str, list[Any]], page_only: dict[str, str]) -> str:
    """A TypeScript file that holds every value to its declared type, both ways."""
    files: dict[str, list[str]] = {}
    for file, name in DECLARED.values():
        files.setdefault(module_path(web_file(file)), []).append(name)
    lines = [f'import type {{ NoneLeft, Unproduced }} from "{HELPERS}";']
    lines += [f'import type {{ {", ".join(names)} }} from "{path}";' for path, names in files.items()]
    exempt = " | ".join(json.dumps(path) for path in page_only) or "never"
    for kind, values in data.items():
        declared = DECLARED[kind][1]
        for number, value in enumerate(values):
            literal = json.dumps(value)
            lines.append(f"export const {kind}_{number}: {declared} = {literal};")
            lines.append(f"const {kind}_{number}_as_made = {literal} as const;")
        produced = " | ".join(f"typeof {kind}_{number}_as_made" for number in range(len(values)))
        lines.append(f'type {kind}_missing = Unproduced<{declared}, {produced}, "{kind}">;')
        lines.append(f"export type {kind}_unproduced = NoneLeft<Exclude<{kind}_missing, {exempt}>>;")
    # and every key let off is one Python does not make: one it makes now is let off no more
    missing = " | ".join(f"{kind}_missing" for kind in data)
    lines.append(f"export type let_off_but_made = NoneLeft<Exclude<{exempt}, {missing}>>;")
    return "\n".join(lines) + "\n"


def type_errors(folder: Path, sources: dict[str, str]) -> dict[str, list[str]]:
    """TypeScript's errors for each of these files (name -> text), checked in one run of tsc."""
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    # The page code's own options (web/jsconfig.json), its files read for their types, not checked again here.
    config = {"extends": str(ROOT / "web" / "jsconfig.json"),
              "compilerOptions": {"checkJs": False, "noErrorTruncation": True},
              "files": sorted(sources), "include": []}
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run([str(TSC), "--noEmit", "--pretty", "false", "-p", "."], cwd=folder, capture_output=True,
                          text=True, timeout=120)
    errors: dict[str, list[str]] = {name: [] for name in sources}
    current = None
    for line in done.stdout.splitlines():
        if not line.startswith(" "):
            current = next((name for name in sources if line.startswith(name + "(")), None)
            assert current is not None or not line.strip(), f"an error outside the checked files: {line}"
        if current is not None:
            errors[current].append(line)
    assert done.returncode == (1 if any(errors.values()) else 0), done.stdout + done.stderr
    return {name: found for name, found in errors.items()}


@pytest.fixture(scope="module")
def checked(real: dict[str, list[Any]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """tsc's errors on the real data, and on three changed copies of it (each should fail, and say why)."""
    if not TSC.exists():
        pytest.skip("TypeScript is not installed (npm ci)")
    renamed = json.loads(json.dumps(real))
    for lesson in renamed["course"][0]["lessons"].values():
        lesson["name"] = lesson.pop("title")  # a key renamed: "name" not declared, and "title" never made
    retyped = json.loads(json.dumps(real))
    retyped["check"][0]["results"][0]["passed"] = "yes"  # a value of another kind
    unseen = json.loads(json.dumps(real))
    for answer in unseen["run"]:
        for item in answer["outputs"]:
            item.pop("key", None)  # an optional key the type names, never made
    folder = tmp_path_factory.mktemp("types-match")
    return type_errors(folder, {"real.ts": typescript(real, PAGE_ONLY), "renamed.ts": typescript(renamed, PAGE_ONLY),
                                "retyped.ts": typescript(retyped, PAGE_ONLY),
                                "unseen.ts": typescript(unseen, PAGE_ONLY)})


def test_every_kind_of_request_has_a_declared_answer() -> None:
    assert set(Session.REQUESTS) | {"course"} == set(DECLARED)


def test_course_json_and_every_answer_are_what_the_page_declares(checked: dict[str, list[str]]) -> None:
    assert not checked["real.ts"], "the page's types and Python's data differ:\n" + "\n".join(checked["real.ts"])


def test_a_renamed_key_fails_both_ways(checked: dict[str, list[str]]) -> None:
    errors = "\n".join(checked["renamed.ts"])
    assert """'"name"' does not exist in type 'Lesson'""" in errors
    assert '"course.lessons.*.title"' in errors


def test_a_value_of_another_kind_fails(checked: dict[str, list[str]]) -> None:
    errors = "\n".join(checked["retyped.ts"])
    assert "Type 'string' is not assignable to type 'boolean'" in errors


def test_a_declared_key_python_never_makes_fails(checked: dict[str, list[str]]) -> None:
    errors = "\n".join(checked["unseen.ts"])
    assert '"run.outputs[].key"' in errors
    assert len(checked["unseen.ts"]) == 1, errors
