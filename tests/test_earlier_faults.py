"""A lab whose earlier pieces fail their own lessons' claims says so first (labs/checking/earlier.py): in the report,
in the terminal, in the page's Python and in the notebook kernel."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from labs.checking import earlier, pipeline
from labs.checking.learner import Work, build_modules, exact_texts, finished_pieces, module_sources
from labs.course.gaps import find_gaps
from labs.course.model import load_course
from labs.frontends import notebook
from labs.frontends.cli import main
from labs.frontends.session import Session

COURSE = load_course()


def catalog(lesson_id: str, file: str, kind: str, name: str) -> dict[str, str]:
    """The pieces of one named entry of a lesson folder's known_wrong.toml or also_right.toml."""
    with (COURSE.lesson(lesson_id).folder / file).open("rb") as handle:
        entries = tomllib.load(handle)[kind]
    return next(entry for entry in entries if entry["name"] == name)["pieces"]


BROKEN_SORT = catalog("L06", "known_wrong.toml", "mutants", "the order never reversed")
SORT_BACKWARD = catalog("L10", "also_right.toml", "variants",
                        "lesson 06's toposort, imported as ember.graph (needs the learner's ember package importable "
                        "during checks)")
LEAF_ROWS = catalog("L16", "known_wrong.toml", "mutants", "rows that returns a new leaf Tensor")


def own(pieces: dict[str, str]) -> dict[str, str]:
    """The same pieces as the learner's own code: a comment makes each differ from the finished piece."""
    return {gap_id: body.rstrip("\n") + "\n# mine\n" for gap_id, body in pieces.items()}


def check(lab: str, pieces: dict[str, str]) -> pipeline.Report:
    return pipeline.check_lesson(lab, module_sources(COURSE, lab, pieces), course=COURSE)


@pytest.fixture(autouse=True)
def fresh_verdicts() -> Iterator[None]:
    earlier.forget_verdicts()
    yield
    earlier.forget_verdicts()


def test_a_broken_toposort_is_named_before_lesson_10s_own_failures() -> None:
    pieces = own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT
    report = check("L10", pieces)
    assert sum(not result.passed for result in report.results) >= 5  # the lab fails, describing the wrong order
    fault = report.earlier
    assert fault is not None
    assert (fault.lesson, fault.gap, fault.file) == ("L06", "L06.toposort", "ember/graph.py")
    first = COURSE.lesson("L06").claims[0]
    assert (fault.claim, fault.claim_name) == (first.key, first.name)
    assert "root" in fault.message and "reverse it" in fault.message  # the claim's own message
    assert "lesson 06" in fault.summary and "ember/graph.py" in fault.summary and first.name in fault.summary
    assert report.to_dict()["earlier"]["gap"] == "L06.toposort"


def test_a_correct_graph_adds_nothing_to_a_failing_lab() -> None:
    wrong_seed = {"L10.backward": SORT_BACKWARD["L10.backward"].replace("self.grad = 1.0", "self.grad = 2.0")}
    report = check("L10", own(finished_pieces(COURSE, 9)) | wrong_seed)
    assert not report.passed and report.earlier is None
    assert report.to_dict()["earlier"] is None


@pytest.mark.alone  # lesson 10 times the walk: its verdict depends on how fast the machine runs
def test_a_passing_lab_does_not_run_earlier_lessons_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    searched = []
    monkeypatch.setattr(pipeline, "first_fault", lambda *args: searched.append(args))
    report = check("L10", own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT | {
        "L10.backward": COURSE.gaps["L10.backward"].finished})  # the lab's own walk does not use the broken sort
    assert report.passed and report.earlier is None and searched == []


@pytest.mark.alone  # lesson 10's claims run before lesson 16's, and lesson 10 times the walk
def test_a_broken_part_iii_piece_is_named_while_checking_lesson_18() -> None:
    lab_pieces = {gap_id: COURSE.gaps[gap_id].finished for gap_id in COURSE.lesson("L18").gaps}
    pieces = own(finished_pieces(COURSE, 17)) | LEAF_ROWS | lab_pieces
    report = check("L18", pieces)
    assert not report.passed
    fault = report.earlier
    assert fault is not None
    assert (fault.lesson, fault.gap, fault.file) == ("L16", "L16.rows", "ember/tensor.py")
    assert fault.claim == "L16.rows" and "W.grad" in fault.message


@pytest.mark.alone  # lesson 10's claims are among them, and lesson 10 times the walk
@pytest.mark.parametrize("lab", ["L09", "L10", "L16", "L18"])
def test_finished_pieces_written_as_ones_own_fail_no_earlier_claim(lab: str) -> None:
    """Every earlier claim a lab would run holds on the finished pieces, in the files as this lab has them (lessons 09
    and 16 reopen an earlier gap in the lab itself)."""
    number = COURSE.lesson(lab).number
    files = pipeline.learner_files(COURSE, module_sources(COURSE, lab, own(finished_pieces(COURSE, number - 1))))
    lesson = COURSE.lesson(lab)
    judged = earlier.pieces_to_judge(COURSE, lesson, files)
    assert set(lesson.needs) <= set(judged)
    ran: list[str] = []

    def run(built: list, claims: tuple) -> list:
        ran.extend(claim.key for claim in claims)
        return pipeline.run_claims(COURSE, lesson, built, claims, until=pipeline._judged_and_failed).results

    assert earlier.first_fault(COURSE, lesson, files, run) is None
    assert ran  # claims of earlier lessons did run


def test_the_lab_imports_decide_which_earlier_files_are_judged() -> None:
    lesson = COURSE.lesson("L10")
    finished = pipeline.learner_files(COURSE, module_sources(COURSE, "L10", own(finished_pieces(COURSE, 9))))
    assert "L06.toposort" not in earlier.pieces_to_judge(COURSE, lesson, finished)
    sorting = module_sources(COURSE, "L10", own(finished_pieces(COURSE, 9)) | SORT_BACKWARD)
    assert "L06.toposort" in earlier.pieces_to_judge(COURSE, lesson, pipeline.learner_files(COURSE, sorting))
    relative = {"L10.backward": SORT_BACKWARD["L10.backward"].replace("from ember.graph", "from .graph")}
    sorting = module_sources(COURSE, "L10", own(finished_pieces(COURSE, 9)) | relative)
    assert "L06.toposort" in earlier.pieces_to_judge(COURSE, lesson, pipeline.learner_files(COURSE, sorting))


def test_the_verdict_is_kept_while_the_lab_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = pipeline.run_claims

    def counted(course, lesson, files, claims, *args, **kwargs):
        calls.append(claims[0].lesson)
        return real(course, lesson, files, claims, *args, **kwargs)

    monkeypatch.setattr(pipeline, "run_claims", counted)
    base = own(finished_pieces(COURSE, 9)) | BROKEN_SORT
    first = check("L10", base | SORT_BACKWARD)
    changed = SORT_BACKWARD["L10.backward"].replace("self.grad = 1.0", "self.grad = 1.0  # the seed")
    second = check("L10", base | {"L10.backward": changed})
    assert first.earlier == second.earlier and first.earlier is not None
    assert calls.count("L06") == 1 and calls.count("L10") == 2  # lesson 06's claims ran once


def learner_folder(tmp_path: Path, lab: str, pieces: dict[str, str]) -> Path:
    """A terminal folder as `start` writes it, with these pieces; answers its scalar.py."""
    folder = tmp_path / "ember"
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in module_sources(COURSE, lab, pieces).items():
        (folder / name).write_text(source, encoding="utf-8")
    return folder / "scalar.py"


def test_the_terminal_says_it_first_and_offers_the_finished_piece(tmp_path: Path, capsys,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    scalar = learner_folder(tmp_path, "L10", own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT)
    assert main(["check", "L10", "--file", str(scalar)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("L10 ·")
    assert "lesson 06" in lines[1] and "ember/graph.py" in lines[1] and "L06.toposort" in lines[1]
    assert "reverse it" in lines[2]
    command = f"python -m labs start L10 --dir {tmp_path} --ref-deps L06.toposort"
    assert command in lines[3]
    assert not any(line.lstrip().startswith(("[pass]", "[FAIL]")) for line in lines[:4])  # before any claim
    monkeypatch.chdir(tmp_path)
    assert main(command.split()[3:]) == 0
    out = capsys.readouterr().out
    assert "graph.py.1.bak" in out and "L06.toposort now holds the finished piece" in out
    graph = {gap.id: gap.body for gap in find_gaps((tmp_path / "ember" / "graph.py").read_text())}
    assert graph["L06.toposort"] == COURSE.gaps["L06.toposort"].finished
    assert BROKEN_SORT["L06.toposort"].strip() in (tmp_path / "ember" / "graph.py.1.bak").read_text()
    main(["check", "L10", "--file", str(scalar)])
    out = capsys.readouterr().out
    assert "[pass] the trap graph gives w.grad = 28" in out and " ! " not in out


def test_ref_deps_takes_only_earlier_gaps(tmp_path: Path, capsys) -> None:
    assert main(["start", "L10", "--dir", str(tmp_path), "--ref-deps", "L10.backward"]) == 2
    assert "lessons before L10" in capsys.readouterr().err
    assert not (tmp_path / "ember").exists()


def test_the_page_gets_the_fault_and_the_one_finished_piece(session: Session) -> None:
    exact = exact_texts(COURSE, own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT)
    report = json.loads(session.handle("check", json.dumps({"lab": "L10", "exact": exact})))
    assert report["earlier"]["gap"] == "L06.toposort" and report["earlier"]["lesson"] == "L06"
    answer = json.loads(session.handle("earlier", json.dumps({"lab": "L10", "exact": exact, "gaps": ["L06.toposort"]})))
    assert list(answer["changes"]) == ["L06.toposort"]  # the learner's own code there is replaced, nothing else
    fixed = {**exact, **answer["changes"]}
    report = json.loads(session.handle("check", json.dumps({"lab": "L10", "exact": fixed})))
    assert report["earlier"] is None
    assert {result["claim"] for result in report["results"] if result["passed"]} >= {"L10.trap_graph", "L10.seed"}
    modules = build_modules(COURSE, "L10", Work({}, fixed))
    assert "order.reverse()" in modules["graph.py"].source


def test_the_notebook_prints_it_first_and_can_take_the_finished_piece(tmp_path: Path, capsys) -> None:
    scalar = learner_folder(tmp_path, "L10", own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT)
    (tmp_path / "ember" / "__init__.py").write_text("", encoding="utf-8")
    notebook._state["folder"] = tmp_path
    try:
        notebook.check("L10")
        lines = capsys.readouterr().out.splitlines()
        assert "L06.toposort" in lines[1] and 'use_finished("L06.toposort")' in lines[3]
        notebook.use_finished("L06.toposort")
        assert "graph.py.1.bak" in capsys.readouterr().out
        notebook.check("L10")
        out = capsys.readouterr().out
        assert "[pass] the trap graph gives w.grad = 28" in out and " ! " not in out
    finally:
        notebook._state["folder"] = None
    assert scalar.exists()



def test_files_outside_an_ember_folder_are_offered_the_diff(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    pieces = own(finished_pieces(COURSE, 9)) | SORT_BACKWARD | BROKEN_SORT
    for name, source in module_sources(COURSE, "L10", pieces).items():
        (folder / name).write_text(source, encoding="utf-8")
    assert main(["check", "L10", "--file", str(folder / "scalar.py")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "L06.toposort" in lines[1]
    assert f"python -m labs diff L06 --file {folder / 'scalar.py'}" in lines[3]
