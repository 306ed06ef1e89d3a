"""The work file (labs/work/work_file.py, work_merge.py): round trips, refusals with their messages, preview
and merge, and ``python -m labs export`` / ``import``."""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from labs.checking.learner import exact_texts, finished_pieces
from labs.course.gaps import Fill, fill, fill_gaps, find_gaps, indented
from labs.course.model import REFERENCE_DIR, load_course
from labs.frontends.cli import main
from labs.frontends.session import Session
from labs.work.work_file import (
    JSON_NAME,
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    MAX_INPUT_BYTES,
    MAX_RATIO,
    WorkFile,
    WorkFileError,
    learner_sources,
    read_folder,
    read_work,
    read_work_files,
    state_work,
    work_file_name,
    write_work,
)
from labs.work.work_merge import merge, merged_state, preview

COURSE = load_course()
DAY = date(2026, 12, 5)
FOLDER = "ember-work-2026-12-05"
VERSION = "0123456789ab"


def page_state(texts: dict[str, str], **more: object) -> dict:
    """A page's saved state holding these exact texts."""
    pieces = {gap_id: {"code": text, "version": "old", "saved": 1, "exact": True} for gap_id, text in texts.items()}
    return {"pieces": pieces, "answers": {}, "progress": {}, "last": None, "seed": None, **more}


def question(lesson: str, index: int = 0) -> str:
    """The id of one of a lesson's questions, as the page keys answers: 'L10.bfs'."""
    return f"{lesson}.{COURSE.lesson(lesson).questions[index].id}"


def option(key: str, right: bool = True, index: int = 0) -> str:
    """An option of question ``key``: its answer, or its ``index``-th wrong option."""
    lesson, question_id = key.split(".")
    found = next(q for q in COURSE.lesson(lesson).questions if q.id == question_id)
    return found.answer if right else [o.id for o in found.options if o.id != found.answer][index]


def finished_texts(lesson: int) -> dict[str, str]:
    return exact_texts(COURSE, finished_pieces(COURSE, lesson))


def gap_texts(folder: Path) -> dict[str, str]:
    """Every gap's exact text in a folder's ember/ files."""
    return {gap.id: gap.text for path in sorted((folder / "ember").glob("*.py")) for gap in find_gaps(path.read_text())}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def zip_of(entries: dict[str, bytes | str], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            archive.writestr(info, data)
    return buffer.getvalue()


def with_declared_size(data: bytes, file_size: int, compress_size: int | None = None) -> bytes:
    """A zip whose (first) central directory entry declares other sizes than its data has."""
    at = data.index(b"PK\x01\x02")
    patched = bytearray(data)
    if compress_size is not None:
        struct.pack_into("<I", patched, at + 20, compress_size)
    struct.pack_into("<I", patched, at + 24, file_size)
    return bytes(patched)


def work_zip(json_doc: dict | None = None, files: dict[str, str] | None = None) -> bytes:
    """A work file as a learner might hand one over: a folder with ember-work.json and ember/ files."""
    entries: dict[str, bytes | str] = {}
    if json_doc is not None:
        entries[f"{FOLDER}/{JSON_NAME}"] = json.dumps(json_doc)
    for name, source in (files or {}).items():
        entries[f"{FOLDER}/ember/{name}"] = source
    return zip_of(entries)


def document(**fields: object) -> dict:
    return {"format": 1, "course": "ember", "course_version": VERSION, "gaps": {}, "answers": {}, "progress": {},
            **fields}


def starter_sources(lab: str = "L10") -> dict[str, str]:
    from labs.checking.learner import module_sources

    return module_sources(COURSE, lab, {})


# --- round trips -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lesson", list(COURSE.lessons))
def test_every_lessons_finished_pieces_go_through_a_work_file_byte_for_byte(lesson: str) -> None:
    texts = finished_texts(COURSE.lesson(lesson).number)
    work = state_work(COURSE, page_state(texts, last=lesson))
    data = write_work(COURSE, work, VERSION, DAY)
    read = read_work(data, COURSE)
    assert read.pieces == texts
    assert read.notes == ()
    assert write_work(COURSE, read, VERSION, DAY) == data  # the same work and day give the same bytes


ODD = {
    "L10.backward": "\tx = 1   \n\t\ty = 'é中😀'  \n",  # tabs, trailing spaces, a blank line at the end
    "L05.init": "",  # an empty gap
    "L05.add_mul": "   \n\n",  # blank lines only
    "L02.rules": "        s = 'a\u2028b\x0cc'  # U+2028 and a form feed stay in the line\n        return s",
}


def test_odd_learner_code_goes_through_a_work_file_byte_for_byte() -> None:
    texts = finished_texts(10) | ODD
    read = read_work(write_work(COURSE, state_work(COURSE, page_state(texts)), VERSION, DAY), COURSE)
    assert read.pieces == texts


def test_crlf_line_ends_are_read_as_lf_once_and_then_kept() -> None:
    crlf = {"L10.backward": "        a = 1\r\n        b = 2\r\n", "L05.init": "        x = 'é'\r        y = 1"}
    read = read_work(write_work(COURSE, state_work(COURSE, page_state(crlf)), VERSION, DAY), COURSE)
    assert read.pieces == {gap: text.replace("\r\n", "\n").replace("\r", "\n") for gap, text in crlf.items()}
    again = read_work(write_work(COURSE, read, VERSION, DAY), COURSE)
    assert again.pieces == read.pieces


def write_exact(folder: Path, texts: dict[str, str]) -> None:
    """Put exact texts in the gaps of a folder's ember/ files."""
    for path in (folder / "ember").glob("*.py"):
        source = path.read_text()
        fills = {gap.id: Fill(gap.id, texts[gap.id], exact=True) for gap in find_gaps(source) if gap.id in texts}
        path.write_text(fill(source, fills).source)


def test_a_terminal_folder_with_odd_code_and_crlf_files_exports_imports_and_exports_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L10", "--dir", "mine"]) == 0
    write_exact(tmp_path / "mine", ODD)
    before = gap_texts(tmp_path / "mine")
    assert {gap_id: before[gap_id] for gap_id in ODD} == ODD
    scalar = tmp_path / "mine" / "ember" / "scalar.py"
    scalar.write_bytes(scalar.read_bytes().replace(b"\n", b"\r\n"))  # as an editor on Windows saves it
    assert main(["export", "--dir", "mine", "--out", "one.zip"]) == 0
    assert main(["import", "one.zip", "--dir", "fresh"]) == 0
    assert gap_texts(tmp_path / "fresh") == before
    assert main(["export", "--dir", "fresh", "--out", "two.zip"]) == 0
    first, second = (zipfile.ZipFile(tmp_path / name) for name in ("one.zip", "two.zip"))
    assert first.namelist() == second.namelist()
    for name in first.namelist():
        if name.endswith(".py"):
            assert first.read(name) == second.read(name), name
    out = capsys.readouterr().out
    assert "Saved 4 of your pieces from mine/ember" in out
    assert f"Wrote {', '.join(COURSE.reference)} in fresh/ember" in out


def test_a_folder_made_by_start_exported_and_imported_into_a_fresh_folder_checks_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L12", "--dir", "mine", "--ref-deps"]) == 0
    scalar = tmp_path / "mine" / "ember" / "scalar.py"
    scalar.write_text(fill_gaps(scalar.read_text(), {"L10.backward": ("L10.backward", "        pass  # not yet")}))
    assert main(["export", "--dir", "mine"]) == 0
    assert main(["import", work_file_name(date.today()), "--dir", "fresh"]) == 0
    assert snapshot(tmp_path / "mine") == {name: data for name, data in snapshot(tmp_path / "fresh").items()
                                           if name != JSON_NAME}
    capsys.readouterr()
    verdicts = []
    for folder in ("mine", "fresh"):
        codes = [main(["check", lesson, "--file", f"{folder}/ember/scalar.py"]) for lesson in ("L09", "L10", "L12")]
        verdicts.append((codes, capsys.readouterr().out.replace(f"{folder}/ember", "<folder>/ember")))
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][0] == [0, 1, 1]  # L10's gap is not written, and L12 needs it


def test_the_unpacked_work_file_is_a_folder_the_checks_run_on(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    data = write_work(COURSE, state_work(COURSE, page_state(finished_texts(11))), VERSION, DAY)
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    assert sorted(path.name for path in (tmp_path / FOLDER / "ember").iterdir()) == sorted(
        ["__init__.py", *COURSE.reference])
    assert main(["check", "L11", "--file", str(tmp_path / FOLDER / "ember" / "scalar.py")]) == 0
    assert "of" in capsys.readouterr().out


# --- what the json carries ----------------------------------------------------------------------------


def test_answers_progress_seed_origins_and_earlier_stages_are_carried() -> None:
    texts = finished_texts(10)
    wrong = option(question("L10"), right=False)
    state = page_state(texts, last="L10", seed="0123abcd",
                       answers={question("L10"): {"option": wrong, "correct": False, "everCorrect": False,
                                                  "tried": [wrong], "revealed": True}},
                       progress={"L10": {"passed": 2, "total": 5, "done": False, "at": 1_700_000_000_000}})
    state["pieces"]["L07.add"]["origin"] = "finished"
    data = write_work(COURSE, state_work(COURSE, state), VERSION, DAY)
    stored = json.loads(zipfile.ZipFile(io.BytesIO(data)).read(f"{FOLDER}/{JSON_NAME}"))
    assert stored["gaps"]["L08.add_backward"]["text"] == texts["L08.add_backward"]  # a stage the files do not show
    assert "text" not in stored["gaps"]["L09.add_backward"]
    read = read_work(data, COURSE)
    assert read.answers == state["answers"] and read.progress == state["progress"]
    assert (read.seed, read.last, read.course_version) == ("0123abcd", "L10", VERSION)
    assert read.origins["L07.add"] == "finished" and read.origins["L10.backward"] == "own"
    assert read.pieces["L08.add_backward"] == texts["L08.add_backward"]


def test_a_region_shows_the_latest_stage_the_learner_wrote() -> None:
    only_first = {"L08.add_backward": finished_texts(8)["L08.add_backward"]}
    work = state_work(COURSE, page_state(only_first, last="L12"))
    scalar = learner_sources(COURSE, work, ["scalar.py"])["scalar.py"]
    assert "# --- gap L08.add_backward ---" in scalar
    assert read_work(write_work(COURSE, work, VERSION, DAY), COURSE).pieces == only_first


def test_a_finished_origin_in_a_folder_lasts_while_the_gap_holds_the_finished_piece(tmp_path: Path) -> None:
    texts = finished_texts(10)
    state = page_state(texts)
    for gap_id in ("L09.add_backward", "L10.backward"):
        state["pieces"][gap_id]["origin"] = "finished"
    assert main(["import", str(save(tmp_path, state)), "--dir", str(tmp_path / "mine")]) == 0
    scalar = tmp_path / "mine" / "ember" / "scalar.py"
    scalar.write_text(fill_gaps(scalar.read_text(), {"L10.backward": ("L10.backward", "pass")}))
    origins = read_folder(COURSE, tmp_path / "mine").origins
    assert origins["L09.add_backward"] == "finished"
    assert origins["L10.backward"] == "own"


def save(folder: Path, state: dict, name: str = "work.zip") -> Path:
    path = folder / name
    path.write_bytes(write_work(COURSE, state_work(COURSE, state), VERSION, DAY))
    return path


def test_import_keeps_the_json_so_that_the_next_export_carries_answers_and_progress(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = f"L03.{COURSE.lesson('L03').questions[0].id}"
    answer = {"option": option(key), "correct": True, "everCorrect": True, "tried": [], "revealed": False}
    state = page_state(finished_texts(3), answers={key: answer}, seed="abcdef012345",
                       progress={"L03": {"passed": 4, "total": 4, "done": True, "at": 5}})
    assert main(["import", str(save(tmp_path, state)), "--dir", str(tmp_path / "mine")]) == 0
    assert "Answers to 1 question and progress in 1 lesson are kept" in capsys.readouterr().out
    out = tmp_path / "again.zip"
    assert main(["export", "--dir", str(tmp_path / "mine"), "--out", str(out)]) == 0
    read = read_work(out.read_bytes(), COURSE)
    assert read.answers == {key: answer} and read.progress == state["progress"] and read.seed == "abcdef012345"
    assert read.pieces == finished_texts(3)


# --- zip layouts and notes ----------------------------------------------------------------------------


def test_a_zip_of_a_bare_ember_folder_or_a_folder_with_junk_reads() -> None:
    sources = starter_sources()
    sources["scalar.py"] = fill_gaps(sources["scalar.py"], {"L10.backward": ("L10.backward", "x = 1")})
    bare = zip_of({f"ember/{name}": source for name, source in sources.items()})
    indent = COURSE.regions["L10.backward"].indent
    assert read_work(bare, COURSE).pieces == {"L10.backward": f"{indent}x = 1"}
    junk = zip_of({"mine/ember/scalar.py": sources["scalar.py"], "__MACOSX/mine/._scalar.py": b"\0\1",
                   "mine/.DS_Store": b"\0", "mine/ember/scalar.py.1.bak": "old", "mine/notes.txt": "hello"})
    read = read_work(junk, COURSE)
    assert read.files == ("scalar.py",)
    assert read.notes == ("left out, as no part of a learner's work: mine/notes.txt",)


def test_code_changed_outside_the_gaps_is_noted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    source = starter_sources()["scalar.py"] + "\nprint('mine')\n"
    read = read_work_files([("scalar.py", source.encode())], COURSE)
    assert read.notes == ("scalar.py: the code outside the gaps differs from this course's; "
                          "only the code inside the gaps is carried",)
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L10", "--dir", "mine"]) == 0
    (tmp_path / "mine" / "ember" / "scalar.py").write_text(source)
    assert main(["export", "--dir", "mine"]) == 0
    assert "Note: mine/ember/scalar.py: the code outside the gaps differs" in capsys.readouterr().out


def test_single_learner_files_are_known_by_their_markers() -> None:
    sources = starter_sources()
    scalar = fill_gaps(sources["scalar.py"], {"L10.backward": ("L10.backward", "y = 2")})
    read = read_work_files([("scalar (1).py", scalar.encode()), ("nn.py", sources["nn.py"].encode())], COURSE)
    assert read.files == ("scalar.py", "nn.py")
    assert read.pieces == {"L10.backward": indented("y = 2", COURSE.regions["L10.backward"].indent)}
    assert (read.answers, read.progress, read.seed) == ({}, {}, None)


# --- refusals ------------------------------------------------------------------------------------------


def broken_markers() -> str:
    """scalar.py as lab L10 starts, its first gap never closed."""
    lines = starter_sources()["scalar.py"].splitlines()
    first = find_gaps(starter_sources()["scalar.py"])[0]
    del lines[first.close_line - 1]
    return "\n".join(lines) + "\n"


def duplicated_markers() -> str:
    source = starter_sources()["scalar.py"]
    first = find_gaps(source)[0]
    lines = source.splitlines()
    block = lines[first.open_line - 1:first.close_line]
    return "\n".join(lines + block) + "\n"


def unknown_gap() -> str:
    return starter_sources()["scalar.py"] + "# --- gap L99.nope ---\npass\n# --- end gap ---\n"


def many_entries() -> bytes:
    return zip_of({f"ember/x{number}.txt": "" for number in range(MAX_ENTRIES + 1)})


def ratio_bomb() -> bytes:
    return zip_of({"ember/scalar.py": b"\0" * (MAX_ENTRY_BYTES - 1)})


def huge_declared() -> bytes:
    return with_declared_size(zip_of({"ember/scalar.py": "x"}), 2**31 - 1)


def too_much_in_all() -> bytes:
    data = zip_of({f"ember/x{number}.py": "x" for number in range(9)})
    patched = bytearray(data)
    at = 0
    while (at := data.find(b"PK\x01\x02", at + 1)) != -1:
        struct.pack_into("<II", patched, at + 20, MAX_ENTRY_BYTES, MAX_ENTRY_BYTES)
    return bytes(patched)


def link_entry() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("ember/scalar.py")
        info.external_attr = 0o120777 << 16
        archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


BAD: dict[str, tuple[bytes | Callable[[], bytes], str]] = {
    "not a zip": (b"hello, not a zip", "not a zip file"),
    "a damaged zip": (b"PK\x03\x04 and then nothing", "not a zip file, or a damaged one"),
    "too large": (b"PK" + b"\0" * MAX_INPUT_BYTES, "; a work file has at most 4 MiB"),
    "too many entries": (many_entries, f"a work file holds at most {MAX_ENTRIES}"),
    "a high ratio": (ratio_bomb, f"over {MAX_RATIO} times its packed size"),
    "a huge declared size": (huge_declared, "unpacks to 2 GiB; an entry of a work file has at most 1 MiB"),
    "too much in all": (too_much_in_all, "the zip unpacks to 9 MiB; a work file unpacks to at most 8 MiB"),
    "dot-dot": (lambda: zip_of({"ember/../../evil.py": "x"}), "climbs out of the folder with '..'"),
    "absolute": (lambda: zip_of({"/etc/evil.py": "x"}), "is an absolute path"),
    "backslashes": (lambda: zip_of({"ember\\..\\evil.py": "x"}), "uses backslashes"),
    "drive letter": (lambda: zip_of({"C:/evil.py": "x"}), "starts with a drive letter"),
    "a link": (link_entry, "is a link"),
    "twice": (lambda: _twice(), "holds ember/scalar.py twice"),
    "no work": (lambda: zip_of({"photos/cat.txt": "x"}), "holds no ember work"),
    "another course": (lambda: work_zip(document(course="torchlings")), "from another course ('torchlings')"),
    "newer format": (lambda: work_zip(document(format=2)), "format 2, newer than this course reads (1)"),
    "format missing": (lambda: work_zip({"course": "ember"}), "format must be the format's number"),
    "wrong answer field": (lambda: work_zip(document(answers={"L03.q": {"option": "a", "correct": True,
                                                                       "tried": "a"}})),
                           'answers["L03.q"]["tried"] must be a list of option ids'),
    "wrong progress field": (lambda: work_zip(document(progress={"L03": {"passed": -1, "total": 2, "done": False}})),
                             'progress["L03"]["passed"] must be a whole number'),
    "wrong origin": (lambda: work_zip(document(gaps={"L10.backward": {"origin": "borrowed"}})),
                     'gaps["L10.backward"]["origin"] must be \'own\' or \'finished\''),
    "a seed": (lambda: work_zip(document(seed="XYZ")), "seed must be a learner seed"),
    "not json": (lambda: zip_of({f"{FOLDER}/{JSON_NAME}": "{nope"}), "ember-work.json is not valid JSON"),
    "NaN": (lambda: zip_of({f"{FOLDER}/{JSON_NAME}": '{"format": NaN}'}), "NaN is not a JSON number"),
    "deep JSON": (lambda: zip_of({f"{FOLDER}/{JSON_NAME}": "[" * 60_000}),
                  "ember-work.json nests lists or tables more than 16 deep"),
    "broken markers": (lambda: work_zip(document(), {"scalar.py": broken_markers()}),
                       f"{FOLDER}/ember/scalar.py, line"),
    "duplicated markers": (lambda: work_zip(document(), {"scalar.py": duplicated_markers()}), "appears twice"),
    "unknown gaps": (lambda: work_zip(document(), {"scalar.py": unknown_gap()}),
                     "the work file holds pieces for gaps this course does not have (L99.nope): it was made by a "
                     "different or newer course"),
    "unknown gaps in the json": (lambda: work_zip(document(gaps={"L10.zzz": {"origin": "own", "text": "x"}})),
                                 "pieces for gaps this course does not have (L10.zzz)"),
    "a gap in the wrong file": (lambda: work_zip(document(), {"nn.py": starter_sources()["scalar.py"]}),
                                "belongs in ember/scalar.py, not in ember/nn.py"),
    "not utf-8": (lambda: zip_of({f"{FOLDER}/ember/scalar.py": "s = 'é'".encode("latin-1")}),
                  f"{FOLDER}/ember/scalar.py is not UTF-8 text"),
}


def _twice() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning):
        archive.writestr("ember/scalar.py", "a")
        archive.writestr("ember/scalar.py", "b")
    return buffer.getvalue()


def bad_bytes(case: str) -> bytes:
    made = BAD[case][0]
    return made() if callable(made) else made


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_work_file_is_refused_with_what_was_wrong(case: str) -> None:
    with pytest.raises(WorkFileError) as refused:
        read_work(bad_bytes(case), COURSE)
    assert BAD[case][1] in str(refused.value)


@pytest.mark.parametrize("case", list(BAD))
def test_importing_a_bad_work_file_changes_nothing_on_disk(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L10", "--dir", "mine"]) == 0
    (tmp_path / "bad.zip").write_bytes(bad_bytes(case))
    before = snapshot(tmp_path / "mine")
    capsys.readouterr()
    assert main(["import", "bad.zip", "--dir", "mine"]) == 2
    assert BAD[case][1] in capsys.readouterr().err
    assert snapshot(tmp_path / "mine") == before


@pytest.mark.parametrize("case", ["a high ratio", "a huge declared size", "too much in all", "dot-dot", "a link"])
def test_a_zip_bomb_or_an_unsafe_entry_is_refused_before_anything_is_unpacked(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = bad_bytes(case)

    def no_unpacking(*args: object, **kwargs: object) -> None:
        raise AssertionError("an entry was opened")

    monkeypatch.setattr(zipfile.ZipFile, "open", no_unpacking)
    with pytest.raises(WorkFileError, match=BAD[case][1].replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        read_work(data, COURSE)


def test_an_entry_larger_than_it_declares_is_read_no_further() -> None:
    data = with_declared_size(zip_of({"ember/scalar.py": starter_sources()["scalar.py"]}, zipfile.ZIP_STORED), 10, 10)
    with pytest.raises(WorkFileError, match="is damaged"):
        read_work(data, COURSE)


SINGLE_BAD = {
    "no markers": ([("notes.py", b"print('hi')\n")], "notes.py has no gap markers: it is not one of ember's"),
    "not utf-8": ([("scalar.py", "é".encode("latin-1"))], "scalar.py is not UTF-8 text"),
    "broken": ([("scalar.py", broken_markers().encode())], "scalar.py, line"),
    "two files' gaps": ([("both.py", (starter_sources()["scalar.py"] + starter_sources()["nn.py"]).encode())],
                        "marks gaps of several learner files (scalar.py, nn.py)"),
    "one file twice": ([("scalar.py", starter_sources()["scalar.py"].encode()),
                        ("scalar (1).py", starter_sources()["scalar.py"].encode())],
                       "scalar.py and scalar (1).py both hold ember/scalar.py"),
    "a zip and a file": ([("w.zip", work_zip(document())), ("scalar.py", b"")], "give either one work file"),
    "nothing": ([], "no file was given"),
    "unknown": ([("scalar.py", unknown_gap().encode())], "scalar.py holds pieces for gaps this course does not have "
                                                          "(L99.nope): it was made by a different or newer course"),
}


@pytest.mark.parametrize("case", list(SINGLE_BAD))
def test_bad_learner_files_are_refused_with_what_was_wrong(case: str) -> None:
    files, message = SINGLE_BAD[case]
    with pytest.raises(WorkFileError) as refused:
        read_work_files(files, COURSE)
    assert message in str(refused.value)


def test_the_broken_markers_message_names_the_file_and_the_line() -> None:
    with pytest.raises(WorkFileError) as refused:
        read_work_files([("scalar.py", duplicated_markers().encode())], COURSE)
    first = find_gaps(starter_sources()["scalar.py"])[0]
    line = len(starter_sources()["scalar.py"].splitlines()) + 1
    assert str(refused.value).startswith(f"scalar.py, line {line}: gap {first.id} appears twice")


def test_export_of_a_broken_folder_or_the_courses_own_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--dir", "empty"]) == 2
    assert "holds none of your learner files" in capsys.readouterr().err
    assert main(["start", "L10", "--dir", "mine"]) == 0
    (tmp_path / "mine" / "ember" / "scalar.py").write_text(broken_markers())
    assert main(["export", "--dir", "mine"]) == 2
    assert "mine/ember/scalar.py, line" in capsys.readouterr().err
    (tmp_path / "mine" / "ember" / "scalar.py").write_text(starter_sources()["scalar.py"])
    (tmp_path / "mine" / JSON_NAME).write_text(json.dumps(document(progress={"L01": []})))
    assert main(["export", "--dir", "mine"]) == 2
    assert 'progress["L01"] must be a table' in capsys.readouterr().err
    assert main(["export", "--dir", str(REFERENCE_DIR.parent)]) == 2
    assert "finished engine" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.zip"))


# --- preview, merge, and the terminal's backups ---------------------------------------------------------


def test_preview_and_merge_say_and_do_what_the_docstring_says() -> None:
    texts = finished_texts(10)
    q1, q2, q3 = question("L10"), question("L10", 1), question("L09")
    a, b, c, r, z = option(q1, False, 0), option(q1, False, 1), option(q1), option(q2), option(q3, False)
    mine = page_state({"L10.backward": "        mine", "L09.add_backward": texts["L09.add_backward"]}, seed="aaaaaaaa",
                      answers={q1: {"option": a, "correct": False, "everCorrect": False, "tried": [a],
                                    "revealed": False},
                               q2: {"option": r, "correct": True, "everCorrect": True, "tried": [],
                                    "revealed": False}},
                      progress={"L10": {"passed": 1, "total": 5, "done": False, "at": 9},
                                "L09": {"passed": 4, "total": 4, "done": True, "at": 1}})
    theirs = state_work(COURSE, page_state(
        {"L10.backward": texts["L10.backward"], "L09.add_backward": texts["L09.add_backward"],
         "L08.add_backward": texts["L08.add_backward"]}, seed="bbbbbbbb",
        answers={q1: {"option": c, "correct": True, "everCorrect": False, "tried": [b], "revealed": True},
                 q2: {"option": r, "correct": True, "everCorrect": True, "tried": [], "revealed": False},
                 q3: {"option": z, "correct": False, "tried": [z]}},
        progress={"L10": {"passed": 5, "total": 5, "done": True, "at": 2},
                  "L09": {"passed": 0, "total": 4, "done": False, "at": 99}}))
    view = preview(COURSE, mine, theirs)
    by_lesson = {item["lesson"]: item for item in view["lessons"]}
    assert [item["lesson"] for item in view["lessons"]] == ["L08", "L09", "L10"]
    assert by_lesson["L10"]["gaps"] == [{"gap": "L10.backward", "status": "changed", "origin": "own"}]
    assert by_lesson["L09"]["gaps"][0]["status"] == "same"
    assert by_lesson["L08"]["gaps"][0]["status"] == "new"
    assert view["counts"] == {"new": 1, "changed": 1, "same": 1}
    assert {a["question"]: a["status"] for a in by_lesson["L10"]["answers"]} == {q1: "merged", q2: "kept"}
    assert by_lesson["L09"]["answers"] == [{"question": q3, "status": "new"}]
    assert by_lesson["L10"]["progress"]["status"] == "better"
    assert by_lesson["L09"]["progress"]["status"] == "kept"
    json.dumps(view)  # plain data for the page

    changes = merge(COURSE, mine, theirs)
    assert set(changes["pieces"]) == {"L10.backward", "L08.add_backward"}
    assert changes["aside"] == {"L10.backward": "        mine"}
    assert changes["answers"][q1] == {"option": c, "correct": True, "everCorrect": False, "tried": [a, b],
                                      "revealed": True}
    assert set(changes["answers"]) == {q1, q3}
    assert changes["progress"] == {"L10": {"passed": 5, "total": 5, "done": True, "at": 2}}
    assert changes["seed"] is None  # the state has answers, so its own order stays
    kept = merge(COURSE, mine, theirs, keep_mine=["L10.backward"])
    assert "L10.backward" not in kept["pieces"] and kept["aside"] == {}
    fresh = merge(COURSE, page_state({}), theirs)
    assert fresh["seed"] == "bbbbbbbb" and set(fresh["pieces"]) == set(theirs.pieces)
    after = merged_state(mine, changes, "v2")
    assert after["pieces"]["L10.backward"] == {"code": texts["L10.backward"], "exact": True, "origin": "own",
                                               "version": "v2"}
    assert merge(COURSE, after, theirs)["pieces"] == {}


def test_starter_texts_in_the_state_count_as_no_piece() -> None:
    region = COURSE.regions["L10.backward"]
    state = page_state({"L10.backward": indented(region.starter, region.indent)})
    assert state_work(COURSE, state).pieces == {}
    work = WorkFile({"L10.backward": "        x"}, {"L10.backward": "own"})
    assert preview(COURSE, state, work)["lessons"][0]["gaps"][0]["status"] == "new"


def test_import_keeps_a_file_aside_when_its_pieces_would_be_lost_and_only_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L10", "--dir", "mine"]) == 0
    scalar = tmp_path / "mine" / "ember" / "scalar.py"
    scalar.write_text(fill_gaps(scalar.read_text(), {"L10.backward": ("L10.backward", "mine = 1")}))
    mine = scalar.read_bytes()
    work = save(tmp_path, page_state(finished_texts(10)))
    assert main(["import", str(work), "--dir", "mine"]) == 0
    assert (tmp_path / "mine" / "ember" / "scalar.py.1.bak").read_bytes() == mine
    assert "the whole file is kept as mine/ember/scalar.py.1.bak" in capsys.readouterr().out
    assert main(["import", str(work), "--dir", "mine"]) == 0
    assert not (tmp_path / "mine" / "ember" / "scalar.py.2.bak").exists()
    assert "0 gaps new, 0 changed" in capsys.readouterr().out


def test_import_keeps_a_file_aside_when_it_has_code_outside_its_gaps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L12", "--dir", "mine"]) == 0
    nn = tmp_path / "mine" / "ember" / "nn.py"
    nn.write_text(nn.read_text() + "\n# my own helper\n")
    mine = nn.read_bytes()
    assert main(["import", str(save(tmp_path, page_state(finished_texts(12)))), "--dir", "mine"]) == 0
    assert (tmp_path / "mine" / "ember" / "nn.py.1.bak").read_bytes() == mine
    assert b"my own helper" not in nn.read_bytes()
    assert not (tmp_path / "mine" / "ember" / "scalar.py.1.bak").exists()  # its pieces were starters only


def test_importing_one_learner_file_writes_that_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start", "L12", "--dir", "mine"]) == 0
    nn = tmp_path / "mine" / "ember" / "nn.py"
    nn.write_text(nn.read_text() + "\n# my note\n")
    before = nn.read_bytes()
    scalar = fill_gaps(starter_sources("L12")["scalar.py"], {"L10.backward": ("L10.backward", "z = 3")})
    (tmp_path / "scalar (1).py").write_text(scalar)
    assert main(["import", "scalar (1).py", "--dir", "mine"]) == 0
    assert nn.read_bytes() == before
    assert gap_texts(tmp_path / "mine")["L10.backward"] == indented("z = 3", COURSE.regions["L10.backward"].indent)


# --- the version, and the page's requests ---------------------------------------------------------------


def test_the_course_version_follows_what_ships_and_nothing_else(tmp_path: Path) -> None:
    """The terminal's work files and the site's build name the course by one digest (labs/course/shipped.py):
    it changes with a shipped file, and not with a lesson's page or known-wrong pieces, which never ship."""
    import shutil

    from labs.course.shipped import PACKAGES, ROOT, course_version

    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert course_version(tmp_path) == course_version()
    folder = tmp_path / "labs" / "lessons" / "10-order-of-blame"
    for name in ("page.md", "known_wrong.toml", "also_right.toml"):
        (folder / name).write_text((folder / name).read_text() + "\n# changed\n")
    assert course_version(tmp_path) == course_version()
    (folder / "checks.py").write_text((folder / "checks.py").read_text() + "\n# changed\n")
    assert course_version(tmp_path) != course_version()


def test_the_page_saves_and_reads_a_work_file_through_the_session(session: Session) -> None:
    q = question("L10")
    state = page_state(finished_texts(10), answers={q: {"option": option(q), "correct": True}}, seed="0a0a0a0a")
    saved = json.loads(session.handle("save_work", json.dumps({"state": state, "version": VERSION,
                                                               "today": "2026-12-05"})))
    assert saved["name"] == "ember-work-2026-12-05.zip" and saved["notes"] == []
    files = [{"name": saved["name"], "data": saved["data"]}]
    answer = json.loads(session.handle("read_work", json.dumps({"state": page_state({}), "files": files})))
    assert answer["preview"]["counts"]["new"] == len(state_work(COURSE, state).pieces)
    assert answer["changes"]["answers"] == {q: {"option": option(q), "correct": True}}
    bad = [{"name": "x.zip", "data": base64.b64encode(b"nope").decode()}]
    refused = json.loads(session.handle("read_work", json.dumps({"state": {}, "files": bad})))
    assert "not a zip file" in refused["error"]
    garbled = json.loads(session.handle("read_work", json.dumps({"state": {}, "files": [{"name": "a", "data": "%"}]})))
    assert garbled == {"error": "a could not be read from the page"}
    marker = page_state({"L10.backward": "        # --- end gap ---"})
    refused = json.loads(session.handle("save_work", json.dumps({"state": marker, "version": VERSION})))
    assert refused["error"].startswith("line 1 of gap L10.backward looks like a gap marker")
