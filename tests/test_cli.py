"""``python -m labs``: exit codes, messages, and the learner's files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from labs.course.gaps import fill_gaps, find_gaps
from labs.course.model import REFERENCE_DIR, load_course
from labs.frontends.cli import main
from tests.known_wrong import MUTANTS, Mutant, mutant_sources

REPO = Path(__file__).resolve().parent.parent
COURSE = load_course()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the real command line in a child process."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "labs", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def write_gap(path: Path, gap_id: str, body: str) -> None:
    source = path.read_text()
    path.write_text(fill_gaps(source, {gap_id: (gap_id, body)}))


def test_start_then_check_then_write_the_gap_then_pass(tmp_path: Path) -> None:
    started = run("start", "L10", "--ref-deps", cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    scalar = tmp_path / "ember" / "scalar.py"
    assert (tmp_path / "ember" / "nn.py").exists() and (tmp_path / "ember" / "__init__.py").exists()

    first = run("check", "L10", cwd=tmp_path)
    assert first.returncode == 1
    assert "[FAIL] the trap graph gives w.grad = 28" in first.stdout
    assert "Write gap L10.backward first: it still holds its starter." in first.stdout

    write_gap(scalar, "L10.backward", COURSE.gaps["L10.backward"].finished)
    second = run("check", "L10", cwd=tmp_path)
    assert second.returncode == 0, second.stdout
    claims = len(COURSE.lesson("L10").claims)
    assert f"{claims} of {claims} claims hold." in second.stdout


def test_the_finished_engine_passes_every_lesson() -> None:
    done = run("check", "all", "--file", str(REFERENCE_DIR / "scalar.py"), cwd=REPO)
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("[FAIL]") == 0
    assert done.stdout.count("claims hold.") == len(COURSE.lessons)


# The command line prints what the pipeline answers: one known-wrong piece per lesson shows it
# (tests/test_labs.py checks every piece's messages, site_tests/test_verdicts.py the page's verdicts).
ONE_PER_LESSON = list({mutant.breaks[0][0]: mutant for mutant in reversed(MUTANTS)}.values())


@pytest.mark.parametrize("mutant", ONE_PER_LESSON, ids=[m.name for m in ONE_PER_LESSON])
def test_check_fails_on_a_known_wrong_piece_with_its_message(
    mutant: Mutant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lesson, claim_id, key = mutant.breaks[0]
    folder = tmp_path / "ember"
    folder.mkdir()
    for name, source in mutant_sources(COURSE, mutant, lesson).items():
        (folder / name).write_text(source)
    assert main(["check", lesson, "--file", str(folder / "scalar.py")]) == 1
    out = capsys.readouterr().out
    claim = COURSE.lesson(lesson).claim(claim_id)
    assert f"[FAIL] {claim.name}" in out
    fixed_text = claim.messages[key].split("{")[0]
    assert fixed_text in out


def test_from_the_repository_root_a_check_runs_the_learners_files_not_the_courses(tmp_path: Path) -> None:
    """mywork/ember/scalar.py imports ember.graph: the learner's graph.py beside it, never ember/graph.py."""
    assert run("start", "L10", "--ref-deps", "--dir", str(tmp_path), cwd=REPO).returncode == 0
    scalar, graph = tmp_path / "ember" / "scalar.py", tmp_path / "ember" / "graph.py"
    write_gap(scalar, "L10.backward", (
        "def backward(self):\n    from ember.graph import toposort\n    self.grad = 1.0\n"
        "    for node in toposort(self, lambda v: v._prev):\n        node._backward()\n"))
    right = run("check", "L10", "--file", str(scalar), cwd=REPO)
    assert "[pass] the trap graph gives w.grad = 28" in right.stdout, right.stdout
    write_gap(graph, "L06.toposort", (  # breadth-first: the trap graph's order is wrong
        "def toposort(root, parents):\n    order = [root]\n    for node in order:\n"
        "        order += [p for p in parents(node) if p not in order]\n    return order\n"))
    wrong = run("check", "L10", "--file", str(scalar), cwd=REPO)
    assert wrong.returncode == 1
    assert "[FAIL] the trap graph gives w.grad = 28" in wrong.stdout


@pytest.mark.parametrize("args, message", [
    (("check", "L99"), "there is no lesson 'L99'; the lessons are L01, L02"),
    (("check", "L10", "--file", "missing.py"), "no such file: missing.py"),
    (("start", "L42"), "there is no lesson 'L42'"),
    (("tests", "nope"), "there is no lesson 'nope'"),
])
def test_bad_requests_get_a_message_and_exit_2(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_syntax_error_is_placed_inside_the_gap(tmp_path: Path) -> None:
    assert run("start", "L10", "--ref-deps", cwd=tmp_path).returncode == 0
    write_gap(tmp_path / "ember" / "scalar.py", "L10.backward", "def backward(self):\n    order = [\n")
    done = run("check", "L10", cwd=tmp_path)
    assert done.returncode == 1
    assert "Syntax error at line 2 of gap L10.backward" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_file_that_never_returns_is_stopped(tmp_path: Path) -> None:
    endless = tmp_path / "endless.py"
    endless.write_text("class Value:\n    pass\n\nwhile True:\n    pass\n")
    done = run("check", "L07", "--file", str(endless), cwd=tmp_path)
    assert done.returncode == 1
    assert "Importing your module failed: Stopped (at line " in done.stdout
    assert "Is there a loop that never ends?" in done.stdout


def test_a_file_without_markers_and_without_value_fails_clearly(tmp_path: Path) -> None:
    other = tmp_path / "other.py"
    other.write_text("x = 1\n")
    done = run("check", "L07", "--file", str(other), cwd=tmp_path)
    assert done.returncode == 1
    assert "AttributeError" in done.stdout and "Traceback" not in done.stdout


def test_start_keeps_earlier_pieces_and_backs_up_later_ones(tmp_path: Path) -> None:
    assert run("start", "L10", "--ref-deps", cwd=tmp_path).returncode == 0
    scalar = tmp_path / "ember" / "scalar.py"
    mine = COURSE.gaps["L10.backward"].finished.replace("order: list[Value] = []", "order: list[Value] = []  # mine")
    write_gap(scalar, "L10.backward", mine)

    ahead = run("start", "L11", cwd=tmp_path)
    assert ahead.returncode == 0
    assert {g.id: g.body for g in find_gaps(scalar.read_text())}["L10.backward"] == mine
    assert not list((tmp_path / "ember").glob("*.bak"))

    back = run("start", "L09", cwd=tmp_path)
    assert back.returncode == 0
    assert "kept as" in back.stdout
    backup = tmp_path / "ember" / "scalar.py.1.bak"
    assert "# mine" in backup.read_text()


def test_start_refuses_to_overwrite_the_finished_engine() -> None:
    done = run("start", "L10", "--dir", str(REPO), cwd=REPO)
    assert done.returncode == 2
    assert "finished engine" in done.stderr


def test_lessons_lists_every_lesson_with_its_question_and_gaps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lessons"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == len(COURSE.lessons)
    for row, lesson in zip(rows, COURSE.lessons.values(), strict=True):
        assert row.startswith(f"| {lesson.number:02d} {lesson.title} | {lesson.question} | ")
        assert all(f"`{gap_id}`" in row for gap_id in lesson.gaps)
    assert "`L10.backward` (in scalar.py)" in rows[9]


def test_tests_lists_claims_and_diff_shows_the_difference(tmp_path: Path) -> None:
    listed = run("tests", "L10", cwd=tmp_path)
    assert listed.returncode == 0
    assert "  - the trap graph gives w.grad = 28" in listed.stdout
    assert run("start", "L10", "--ref-deps", cwd=tmp_path).returncode == 0
    shown = run("diff", "L10", cwd=tmp_path)
    assert shown.returncode == 0
    assert "-    raise NotImplementedError" in shown.stdout and "+    self.grad = 1.0" in shown.stdout


def test_lesson_12_without_nn_beside_the_file_says_what_is_missing(tmp_path: Path) -> None:
    alone = tmp_path / "scalar.py"
    alone.write_text((REFERENCE_DIR / "scalar.py").read_text())
    done = run("check", "L12", "--file", str(alone), cwd=tmp_path)
    assert done.returncode == 1
    assert "This check needs ember/nn.py beside your scalar.py." in done.stdout
