"""Hostile files handed to ``python -m labs import`` and to the page's Python (the session's ``read_work``):
each is refused with its own message and leaves the learner's folder byte for byte as it was; names are shown
escaped and cut; reads stop at their limits; every file the terminal writes is written atomically; answers and
progress are taken only as the course can mean them."""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labs.checking import files as files_module
from labs.checking.files import escaped, over, read_limited, shown, write_atomic
from labs.frontends.cli import main
from labs.frontends.session import Session
from labs.work.work_file import (
    JSON_NAME,
    MAX_DEPTH,
    MAX_ENTRY_BYTES,
    MAX_INPUT_BYTES,
    WorkFileError,
    json_depth,
    read_work,
    state_work,
    write_work,
)
from tests.test_work_file import (
    BAD,
    COURSE,
    DAY,
    FOLDER,
    VERSION,
    bad_bytes,
    document,
    finished_texts,
    option,
    page_state,
    question,
    snapshot,
    starter_sources,
    work_zip,
    zip_of,
)

Given = list[tuple[str, bytes]]  # the files handed over: (name, bytes)
OSC_TITLE = "\x1b]0;owned\x07"
OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
FAKE_LINE = "\rWrote everything: all is well\n"


def raw_json(text: str) -> Given:
    """A work file whose ember-work.json is exactly ``text``."""
    return [("work.zip", zip_of({f"{FOLDER}/{JSON_NAME}": text}))]


def with_doc(**fields: object) -> Given:
    return [("work.zip", work_zip(document(**fields)))]


def known_bad(case: str) -> Given:
    """A work file the work file's own tests refuse (tests/test_work_file.py)."""
    return [("work.zip", bad_bytes(case))]


def nested(depth: int) -> str:
    """A JSON text of ``depth`` lists inside one another, in ember-work.json's 'gaps' (10 kB for 5,000)."""
    return '{"format": 1, "course": "ember", "gaps": ' + "[" * depth + "]" * depth + "}"


def cesu_surrogate() -> bytes:
    """scalar.py with a lone surrogate written as UTF-8 would write it, were that allowed (CESU-8 bytes)."""
    return starter_sources()["scalar.py"].encode() + b"s = '\xed\xa0\x80'\n"


def answer(key: str, **fields: object) -> dict[str, object]:
    return {"option": option(key), "correct": True, "everCorrect": True, "tried": [], "revealed": False, **fields}


HUGE = int("9" * 401)

# name -> (the files handed over, the words the refusal must hold). Generated, so that nothing hostile is stored.
HOSTILE: dict[str, tuple[Callable[[], Given], str]] = {
    # lone surrogates, wherever a text is
    "surrogate in a gap's text": (lambda: raw_json(json.dumps(document(gaps={"L08.add_backward": {
        "origin": "own", "text": "        x = '\ud800'"}}))),
                                  'gaps["L08.add_backward"]["text"] holds a lone surrogate'),
    "surrogate in an answer's key": (lambda: raw_json(json.dumps(document(answers={"L10.\udc00": {}}))),
                                     "holds a lone surrogate"),
    "surrogate in an option": (lambda: raw_json(json.dumps(document(answers={question("L10"): answer(
        question("L10"), option="\udbff")}))), 'answers["L10.recall_twice"]["option"] holds a lone surrogate'),
    "surrogate in the course's name": (lambda: raw_json(json.dumps(document(course="\ud83d"))),
                                       "ember-work.json: course holds a lone surrogate"),
    "surrogate in a .py entry": (lambda: [("work.zip", zip_of({f"{FOLDER}/ember/scalar.py": cesu_surrogate()}))],
                                 f"{FOLDER}/ember/scalar.py is not UTF-8 text"),
    "surrogate in a .py file": (lambda: [("scalar.py", cesu_surrogate())], "scalar.py is not UTF-8 text"),
    # nesting
    "5,000 nested lists": (lambda: raw_json(nested(5000)), f"nests lists or tables more than {MAX_DEPTH} deep"),
    "nested just too deep": (lambda: raw_json(nested(MAX_DEPTH)), f"more than {MAX_DEPTH} deep"),
    # sizes, for one file and for all together
    "a work file just too large": (lambda: [("work.zip", b"PK" + b"\0" * (MAX_INPUT_BYTES - 1))],
                                   "is more than 4 MiB; a work file has at most 4 MiB"),
    "a .py file just too large": (lambda: [("scalar.py", b"#" * (MAX_INPUT_BYTES + 1))],
                                  "scalar.py is more than 4 MiB"),
    "six large .py files together": (lambda: [(f"f{number}.py", b"#" * (MAX_INPUT_BYTES // 5))
                                              for number in range(6)],
                                     "together; learner files hold at most 4 MiB in all"),
    "51 files at once": (lambda: [(f"f{number}.py", b"#") for number in range(51)],
                         "51 files were given; give one work file, or at most 50 learner files"),
    # names that would drive the terminal, and names without end
    "an escape in an entry's name": (lambda: [("work.zip", zip_of({f"ember/../{OSC_TITLE}.py": "x"}))],
                                     "'ember/../\\x1b]0;owned\\x07.py' climbs out of the folder"),
    "a clipboard write in a name": (lambda: [(f"{OSC_CLIPBOARD}.py", b"print('hi')\n")],
                                    "\\x1b]52;c;cm0gLXJmIH4=\\x07.py has no gap markers"),
    "a made-up line in a name": (lambda: [(f"x{FAKE_LINE}.py", b"print('hi')\n")],
                                 "x\\rWrote everything: all is well\\n.py has no gap markers"),
    "a name without end": (lambda: [("n" * 60_000 + ".py", b"print('hi')\n")],
                           f"{'n' * 39}…{'n' * 37}.py has no gap markers"),
    "an entry's name without end": (lambda: [("work.zip", zip_of({"ember/" + "../" * 20_000 + "x.py": "x"}))],
                                    "climbs out of the folder"),
    # answers and progress the course cannot mean: numbers without end
    "a 401-digit count": (lambda: with_doc(progress={"L10": {"passed": HUGE, "total": HUGE, "done": True}}),
                          'progress["L10"]["passed"] must be a whole number from 0 to 10000'),
    "a 401-digit time": (lambda: with_doc(progress={"L10": {"passed": 1, "total": 2, "done": False, "at": HUGE}}),
                         'progress["L10"]["at"] must be a time'),
    "a time past the end of time": (lambda: with_doc(progress={"L10": {"passed": 1, "total": 2, "done": False,
                                                                       "at": 1e300}}),
                                    'progress["L10"]["at"] must be a time'),
    "a version that is not one": (lambda: with_doc(course_version=OSC_TITLE), "course_version must be a version"),
    # every refusal the work file already had
    **{f"known: {case}": (functools.partial(known_bad, case), BAD[case][1]) for case in BAD},
}


def shows_nothing_hostile(text: str) -> None:
    """Printed text that cannot drive a terminal: no control character but line ends, no line without end."""
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]", text), repr(text[:300])
    assert max((len(line) for line in text.splitlines()), default=0) < 2000


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A learner's folder 'mine' with their own pieces, answers and progress (ember-work.json), in tmp_path."""
    monkeypatch.chdir(tmp_path)
    q = question("L10")
    state = page_state(finished_texts(9), answers={q: answer(q)}, seed="0123abcd",
                       progress={"L09": {"passed": 3, "total": 3, "done": True, "at": 1_700_000_000_000}})
    (tmp_path / "start.zip").write_bytes(write_work(COURSE, state_work(COURSE, state), VERSION, DAY))
    assert main(["import", "start.zip", "--dir", "mine"]) == 0
    capsys.readouterr()
    return tmp_path / "mine"


def hand_over(tmp_path: Path, given: Given) -> tuple[list[str], bool]:
    """Write the given files in their own folder, each under its own name where a file on disk can have it (else
    under a short one); answer their paths, and whether a name had to change."""
    where = tmp_path / "given"
    where.mkdir()
    paths, renamed = [], False
    for number, (name, data) in enumerate(given):
        fits = "/" not in name and len(name.encode()) < 250
        renamed |= not fits
        path = where / (name if fits else f"long{number}{Path(name[-10:]).suffix}")
        path.write_bytes(data)
        paths.append(str(path))
    return paths, renamed


@pytest.mark.parametrize("case", list(HOSTILE))
def test_the_terminal_refuses_a_hostile_file_and_changes_nothing(
        case: str, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make, words = HOSTILE[case]
    given = make()
    paths, renamed = hand_over(tmp_path, given)
    before = snapshot(folder)
    assert main(["import", *paths, "--dir", "mine"]) == 2
    out, err = capsys.readouterr()
    shows_nothing_hostile(out + err)
    assert (words if not renamed else "has no gap markers") in err
    assert snapshot(folder) == before
    assert out == ""


@pytest.mark.parametrize("case", list(HOSTILE))
def test_the_pages_python_refuses_a_hostile_file_with_its_message(case: str, session: Session) -> None:
    make, words = HOSTILE[case]
    files = [{"name": name, "data": base64.b64encode(data).decode()} for name, data in make()]
    state = page_state(finished_texts(9))
    answered = json.loads(session.handle("read_work", json.dumps({"state": state, "files": files})))
    assert set(answered) == {"error"}
    assert words in answered["error"]
    assert len(answered["error"]) < 2000
    assert "\x1b" not in answered["error"] and "\r" not in answered["error"]


def test_a_name_is_shown_escaped_and_cut() -> None:
    assert shown(OSC_CLIPBOARD) == "\\x1b]52;c;cm0gLXJmIH4=\\x07"
    assert shown("a\u202ecod.exe\ud800\n") == "a\\u202ecod.exe\\ud800\\n"
    cut = shown("x" * 900_000 + "end.py")
    assert len(cut) == 80 and cut.startswith("xxx") and cut.endswith("end.py") and "…" in cut
    assert shown("scalar (1).py") == "scalar (1).py"
    assert escaped("élan ∂") == "élan ∂"


def test_a_hostile_name_left_out_of_a_work_file_is_noted_escaped(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = [f"{FOLDER}/{OSC_TITLE}.txt", f"{FOLDER}/{OSC_CLIPBOARD}", f"{FOLDER}/x{FAKE_LINE}"]
    (tmp_path / "w.zip").write_bytes(zip_of({f"{FOLDER}/ember/scalar.py": starter_sources()["scalar.py"],
                                             **{name: "x" for name in names}}))
    assert main(["import", "w.zip", "--dir", "mine"]) == 0
    out = capsys.readouterr().out
    shows_nothing_hostile(out)
    assert "\\x1b]0;owned\\x07.txt" in out and "\\x1b]52;c;" in out
    assert "Wrote everything: all is well\\n" in out
    wrote = [line for line in out.splitlines() if line.startswith("Wrote")]
    assert len(wrote) == 1 and wrote[0].startswith("Wrote scalar.py in mine/ember from w.zip")


# --- reads stop at their limits ------------------------------------------------------------------------


def test_dev_zero_and_a_named_pipe_are_refused_before_a_byte_is_read(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    pipe = tmp_path / "pipe.zip"
    os.mkfifo(pipe)
    read = []
    real_read = os.read

    def reading(fd: int, n: int) -> bytes:
        read.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", reading)
    before = snapshot(folder)
    for given in ("/dev/zero", str(pipe)):
        done: list[int] = []
        worker = threading.Thread(target=lambda given=given, done=done: done.append(
            main(["import", given, "--dir", "mine"])), daemon=True)
        worker.start()
        worker.join(60)  # a reader that waited for a writer would never end
        assert done == [2]
        err = capsys.readouterr().err
        assert "is not a regular file (a device, a pipe or a socket)" in err
    assert read == []
    assert snapshot(folder) == before


def test_a_read_takes_at_most_its_limit_and_one_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.zip"
    with big.open("wb") as stream:  # sparse: a gigabyte on paper
        stream.truncate(2**30)
    taken = []
    real_read = os.read

    def reading(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        taken.append(len(data))
        return data

    monkeypatch.setattr(os, "read", reading)
    assert len(read_limited(big, 1000)) == 1001
    assert sum(taken) == 1001
    taken.clear()
    assert main(["import", str(big), "--dir", str(tmp_path / "mine")]) == 2
    assert sum(taken) == MAX_INPUT_BYTES + 1
    assert not (tmp_path / "mine").exists()


def test_several_files_are_read_no_further_than_the_limit_for_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for number in range(6):
        path = tmp_path / f"f{number}.py"
        with path.open("wb") as stream:
            stream.truncate(MAX_INPUT_BYTES)
        paths.append(str(path))
    taken = []
    real_read = os.read

    def reading(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        taken.append(len(data))
        return data

    monkeypatch.setattr(os, "read", reading)
    assert main(["import", *paths, "--dir", str(tmp_path / "mine")]) == 2
    assert "the files given are more than 4 MiB together" in capsys.readouterr().err
    assert sum(taken) == MAX_INPUT_BYTES + 1


def test_a_folder_whose_learner_file_is_a_pipe_or_too_large_is_refused(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nn = folder / "ember" / "nn.py"
    nn.unlink()
    os.mkfifo(nn)
    assert main(["export", "--dir", "mine"]) == 2
    assert "mine/ember/nn.py is not a regular file" in capsys.readouterr().err
    assert main(["check", "L10", "--file", "mine/ember/scalar.py"]) == 2
    assert "mine/ember/nn.py is not a regular file" in capsys.readouterr().err
    nn.unlink()
    nn.write_bytes(b"#" * (MAX_INPUT_BYTES + 10))
    assert main(["export", "--dir", "mine"]) == 2
    assert "mine/ember/nn.py is more than 4 MiB" in capsys.readouterr().err
    (folder / JSON_NAME).write_bytes(b" " * (MAX_ENTRY_BYTES + 1))
    nn.unlink()
    assert main(["export", "--dir", "mine"]) == 2
    assert "mine/ember-work.json is more than 1 MiB" in capsys.readouterr().err
    assert not list(folder.parent.glob("ember-work-*.zip"))


# --- lone surrogates and deep nesting ----------------------------------------------------------------------


def test_a_folder_left_with_a_lone_surrogate_is_refused_and_nothing_is_written(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = folder / JSON_NAME
    stored = json.loads(kept.read_text())
    stored["gaps"]["L08.add_backward"] = {"origin": "own", "text": "        x = '\ud800'"}
    kept.write_text(json.dumps(stored))
    before = snapshot(folder)
    assert main(["export", "--dir", "mine"]) == 2
    assert main(["import", str(folder.parent / "start.zip"), "--dir", "mine"]) == 2
    err = capsys.readouterr().err
    assert err.count('gaps["L08.add_backward"]["text"] holds a lone surrogate') == 2
    assert "fix it, or move it away" in err
    assert snapshot(folder) == before
    assert not list(folder.parent.glob("ember-work-*.zip"))


def test_the_page_cannot_save_a_piece_with_a_lone_surrogate(session: Session) -> None:
    state = page_state({"L10.backward": "        x = 1\n        y = '\ud800'"})
    answered = json.loads(session.handle("save_work", json.dumps({"state": state, "version": VERSION})))
    assert answered == {"error": "line 2 of gap L10.backward holds a lone surrogate (half of a character), which "
                                 "cannot be saved as text: retype the characters on that line, then save again"}


def test_the_depth_scan_skips_strings_and_stops_past_its_limit() -> None:
    assert json_depth('{"a": [1, {"b": "[[[[{{{{"}], "c": "\\"[[["}') == 3
    assert json_depth("[" * 5000, limit=16) == 17
    deep_text = document(gaps={"L08.add_backward": {"origin": "own", "text": "        x = " + "[" * 5000}})
    read = read_work(zip_of({f"{FOLDER}/{JSON_NAME}": json.dumps(deep_text)}), COURSE)
    assert read.pieces["L08.add_backward"].endswith("[" * 5000)
    with pytest.raises(WorkFileError, match="more than 16 deep"):
        read_work(raw_json(nested(5000))[0][1], COURSE)


# --- answers and progress are what the course can mean ---------------------------------------------------


def test_answers_and_progress_outside_the_course_are_dropped_or_set_right_with_a_note(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], session: Session) -> None:
    q1, q2, q3 = question("L10"), question("L10", 1), question("L09")
    wrong = option(q2, right=False)
    doc = document(
        answers={q1: answer(q1, option="made_up"),  # no such option: left out
                 q2: answer(q2, option=wrong, correct=True, tried=[wrong, "nope", option(q2)]),  # set right
                 q3: answer(q3),  # as it is
                 "L99.ghost": answer(q3)},  # no such question: left out
        progress={"L10": {"passed": 9, "total": 5, "done": True, "at": 1},  # more passed than in all: left out
                  "L08": {"passed": 2, "total": 5, "done": True, "at": 1},  # done without every claim: set right
                  "L77": {"passed": 1, "total": 1, "done": True, "at": 1}})  # no such lesson: left out
    data = work_zip(doc)
    read = read_work(data, COURSE)
    assert read.answers == {q2: answer(q2, option=wrong, correct=False, tried=[wrong]), q3: answer(q3)}
    assert read.progress == {"L08": {"passed": 2, "total": 5, "done": False, "at": 1}}
    notes = "\n".join(read.notes)
    for words in (f"answers naming an option their question does not have were left out: {q1}",
                  f"were set right by the course: {q2}", "questions this course does not ask were left out: L99.ghost",
                  "more claims passed than in all was left out: L10", "was set right: L08",
                  "lessons this course does not have was left out: L77"):
        assert words in notes
    files = [{"name": "w.zip", "data": base64.b64encode(data).decode()}]
    answered = json.loads(session.handle("read_work", json.dumps({"state": page_state({}), "files": files})))
    assert answered["preview"]["notes"] == list(read.notes)
    assert set(answered["changes"]["answers"]) == {q2, q3}
    assert answered["changes"]["answers"][q2]["correct"] is False
    assert answered["changes"]["progress"] == {"L08": {"passed": 2, "total": 5, "done": False, "at": 1}}
    (tmp_path / "w.zip").write_bytes(data)
    assert main(["import", "w.zip", "--dir", "mine"]) == 0
    out = capsys.readouterr().out
    assert f"Note: answers naming an option their question does not have were left out: {q1}." in out
    stored = json.loads((folder / JSON_NAME).read_text())
    assert stored["answers"][q2]["correct"] is False and q1 in stored["answers"]  # q1: the folder's own, kept
    assert stored["answers"][q1]["option"] == option(q1)
    assert "L10" not in stored["progress"] and "L77" not in stored["progress"]
    assert stored["progress"]["L08"]["done"] is False


def test_the_pages_own_state_is_saved_only_as_the_course_can_mean_it() -> None:
    q = question("L10")
    state = page_state({}, answers={q: answer(q, option=option(q, right=False)), "L10.nope": answer(q)},
                       progress={"L10": {"passed": 3, "total": 2, "done": True, "at": 5}})
    work = state_work(COURSE, state)
    assert work.answers == {q: answer(q, option=option(q, right=False), correct=False)}
    assert work.progress == {}


# --- every write is whole, or not at all -------------------------------------------------------------------


def temporary_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.name.endswith(".tmp")]


def failing_replace(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Make every os.replace of labs/checking/files.py fail once the temporary file is written; answer what it saw."""
    seen: list[Path] = []

    def replace(source: str | Path, target: str | Path) -> None:
        seen.append(Path(source))
        assert Path(source).read_bytes()  # the new text is complete in the temporary file
        raise OSError(28, "No space left on device", str(target))

    monkeypatch.setattr(files_module.os, "replace", replace)
    return seen


def test_write_atomic_leaves_the_old_file_whole_and_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scalar.py"
    path.write_bytes(b"old bytes\n")
    path.chmod(0o640)
    write_atomic(path, b"new bytes\n")
    assert path.read_bytes() == b"new bytes\n" and path.stat().st_mode & 0o777 == 0o640
    assert sorted(tmp_path.iterdir()) == [path]
    seen = failing_replace(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, b"newer bytes\n")
    assert seen and seen[0].parent == tmp_path
    assert path.read_bytes() == b"new bytes\n"
    assert sorted(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("command", ["import", "export", "start", "start --ref-deps L09.add_backward"])
def test_a_write_that_fails_midway_leaves_every_file_as_it_was(
        command: str, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (folder.parent / "ember-work-2026-12-05.zip").write_bytes(b"an earlier export")
    scalar = folder / "ember" / "scalar.py"
    scalar.write_text(scalar.read_text().replace("# --- end gap ---", "# mine\n# --- end gap ---", 1))
    other = finished_texts(10)
    (folder.parent / "other.zip").write_bytes(write_work(COURSE, state_work(COURSE, page_state(other)), VERSION, DAY))
    before, outside = snapshot(folder), snapshot(folder.parent)
    seen = failing_replace(monkeypatch)
    args = {"import": ["import", "other.zip", "--dir", "mine"],
            "export": ["export", "--dir", "mine", "--out", "ember-work-2026-12-05.zip"],
            "start": ["start", "L11", "--dir", "mine"],
            "start --ref-deps L09.add_backward": ["start", "L10", "--dir", "mine", "--ref-deps", "L09.add_backward"]}
    assert main(args[command]) == 2
    assert "No space left on device. That file is as it was" in capsys.readouterr().err
    assert seen
    assert snapshot(folder.parent) == outside and snapshot(folder) == before
    assert temporary_files(folder.parent) == []


def test_a_piece_with_a_lone_surrogate_in_the_pages_state_is_a_problem_not_a_crash(session: Session) -> None:
    exact = {"L10.backward": "        x = 1\n        y = '\ud800'"}
    for kind in ("check", "run", "module"):
        payload = {"lab": "L10", "page": "L10", "code": "print(1)", "pieces": {}, "exact": exact}
        answered = json.loads(session.handle(kind, json.dumps(payload)))
        problem = answered.get("problem") or answered.get("error") or answered["results"][0]
        assert "Line 2 of gap L10.backward holds a lone surrogate" in problem["message"], kind
    assert not list((session.package_dir).glob("scalar.py"))  # nothing was written


def test_the_page_saves_and_reads_back_a_work_file_without_a_version(session: Session) -> None:
    saved = json.loads(session.handle("save_work", json.dumps({"state": page_state(finished_texts(3))})))
    files = [{"name": saved["name"], "data": saved["data"]}]
    answered = json.loads(session.handle("read_work", json.dumps({"state": page_state({}), "files": files})))
    assert answered["preview"]["course_version"] == ""


def test_write_atomic_writes_through_a_link_as_a_plain_write_would(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere.py"
    real.write_bytes(b"old")
    link = tmp_path / "scalar.py"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["elsewhere.py", "scalar.py"]


def test_the_page_refuses_files_far_past_the_limit_before_decoding_them(
        session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    decoded = []
    real = base64.b64decode

    def decoding(data: str | bytes, **kw: Any) -> bytes:
        decoded.append(len(data))
        return real(data, **kw)

    monkeypatch.setattr(base64, "b64decode", decoding)
    huge = [{"name": "huge.zip", "data": "A" * (12 * 2**20)}]
    answered = json.loads(session.handle("read_work", json.dumps({"state": {}, "files": huge})))
    assert answered == {"error": "huge.zip is more than 4 MiB; a work file, or learner files together, hold at most "
                                 "4 MiB"}
    several = [{"name": f"f{number}.py", "data": "IyMj" * (2**20 // 2)} for number in range(6)]
    answered = json.loads(session.handle("read_work", json.dumps({"state": {}, "files": several})))
    assert answered["error"].startswith("the files given are more than 4 MiB")
    assert sum(decoded) <= 2 * 4 * 2**20 * 4 // 3


def test_a_size_past_its_limit_never_reads_as_the_limit() -> None:
    assert over(MAX_INPUT_BYTES + 1, MAX_INPUT_BYTES) == "more than 4 MiB"
    assert over(5 * 2**20, MAX_INPUT_BYTES) == "5 MiB"
    assert over(int(4.06 * 2**20), MAX_INPUT_BYTES) == "4.1 MiB"


def test_every_reader_of_a_given_path_says_what_is_wrong_with_it(tmp_path: Path) -> None:
    from labs.checking.on_disk import UsageError, read_text
    from labs.frontends.cli import _read_given
    from labs.work.work_file import WorkFileError, read_file

    folder, missing = tmp_path / "dir", tmp_path / "nope"
    folder.mkdir()
    readers: list[tuple[Callable[[Path], object], type[Exception], str, str]] = [
        (lambda path: read_file(path, 10), WorkFileError, "is a folder, not a file", "$"),
        (read_text, UsageError, "cannot read .*: Is a directory", r" \(write one with `python -m labs start L01`\)$"),
        (lambda path: _read_given([path]), UsageError, "is a folder: give the work file", "$"),
    ]
    for read, error, on_folder, after_missing in readers:
        with pytest.raises(error, match=on_folder):
            read(folder)
        with pytest.raises(error, match="^no such file: .*nope" + after_missing):
            read(missing)
        with pytest.raises(error, match="is not a regular file"):
            read(Path("/dev/null"))
