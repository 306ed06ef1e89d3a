"""The work file: one zip that carries a learner's whole course between browsers, the terminal and back.

``ember-work-YYYY-MM-DD.zip`` holds one folder of the same name with

- ``ember/``: ``__init__.py`` and every learner file, each gap holding the learner's code (its exact
  text, line ends as LF) or its starter, markers as always. ``python -m labs check L10 --file
  <folder>/ember/scalar.py`` works on the folder as it unpacks;
- ``ember-work.json``: what the files cannot show (format :data:`FORMAT`)::

      {"format": 1, "course": "ember", "course_version": "3f2a…",   # the version it was written under
       "last": "L10", "seed": "9c0d…",                                # the lesson last open; the options' order
       "gaps": {"L10.backward": {"origin": "own"},                    # every gap holding the learner's code
                "L08.add_backward": {"origin": "own", "text": "…"}},  # text: a stage the files do not show
       "answers": {"L10.bfs": {"option", "correct", "everCorrect", "tried", "revealed"}},  # as the page keeps
       "progress": {"L10": {"passed", "total", "done", "at"}}}                             # them (work/store.js)

  A gap's ``origin`` is ``"finished"`` for a finished piece the learner loaded, else ``"own"`` (the
  default wherever nothing says otherwise; a terminal folder keeps ``"finished"`` only while the gap
  still holds the finished piece). A gap reopened by a later lesson shows one stage in the files; an
  earlier stage's code goes in ``text``, so nothing of the page's saved work is lost.
- ``README.txt``: what the folder is, in three lines.

API (plain data in and out; ``state`` is the page's saved state as web/src/work/store.js keeps it)

- :func:`read_work` (a zip's bytes) and :func:`read_work_files` (``[(name, bytes)]``: one zip, or
  learner ``.py`` files) answer a :class:`WorkFile`, or raise :class:`WorkFileError` whose message says
  what was wrong. A file is data: nothing in it is run or imported.
- :func:`state_work` (the page's state) and :func:`read_folder` (a terminal folder and the
  ``ember-work.json`` kept in it) make a :class:`WorkFile`; :func:`write_work` writes one as zip bytes,
  named by :func:`work_file_name`; :func:`learner_sources` are its learner files.
- labs/work/work_merge.py says what reading a work file into a state would do (``preview``), and does it
  (``merge``, ``merged_state``).

Limits, checked before anything is unpacked: :data:`MAX_INPUT_BYTES` for what is given (one work file, or
all the learner files given together, at most :data:`MAX_FILES` of them), :data:`MAX_ENTRIES` entries,
:data:`MAX_ENTRY_BYTES` for an entry and :data:`MAX_TOTAL_BYTES` for all of them as declared, and at most
:data:`MAX_RATIO` times an entry's compressed size past :data:`RATIO_FLOOR`. Entries are read with a bounded
read all the same, and so are a terminal folder's files (labs/checking/files.py: at most the limit and one byte,
never from a device or a pipe).

What is refused besides: ember-work.json nested more than :data:`MAX_DEPTH` deep (measured by a scan of its
brackets before it is parsed, so that no parser recurses into it), or with a lone surrogate in any text or key;
counts past :data:`MAX_COUNT` and times past :data:`MAX_TIME`. Answers and progress are taken only as the
course can mean them (:func:`course_answers`, :func:`course_progress`): the rest is left out or set right, with
a note. Every name a message or note shows is escaped and cut (labs/checking/files.py's ``shown``).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

from labs.checking.files import PATH_LIMIT, ReadRefused, over, read_or_refuse, size_text
from labs.checking.files import shown as _safe
from labs.checking.learner import INIT_SOURCE, PACKAGE
from labs.course.gaps import (
    GAP_ID,
    Fill,
    GapSyntaxError,
    fill,
    find_gaps,
    indented,
    lesson_of,
    marker_lines,
    same_piece,
)
from labs.course.model import Course, Question, Region, lesson_number
from labs.course.questions import is_seed
from labs.work import records

FORMAT = 1  # the newest format of ember-work.json this code reads and writes
COURSE_NAME = "ember"
JSON_NAME = "ember-work.json"
README_NAME = "README.txt"
ORIGINS = ("own", "finished")
MAX_INPUT_BYTES = 4 * 1024 * 1024  # a work file, or learner files together, as given
MAX_FILES = 50  # learner files given at once
MAX_ENTRIES = 200
MAX_ENTRY_BYTES = 1024 * 1024  # one entry, unpacked
MAX_TOTAL_BYTES = 8 * 1024 * 1024  # every entry together, unpacked
MAX_RATIO = 100  # unpacked size / packed size, for an entry above RATIO_FLOOR
RATIO_FLOOR = 64 * 1024
MAX_DEPTH = 16  # lists and tables inside one another in ember-work.json (a work file's go 4 deep)
MAX_COUNT = records.SHAPE["kinds"]["count"]["max"]  # claims passed or in all, in a lesson's progress
MAX_TIME = records.SHAPE["kinds"]["time"]["max"]  # the latest time a browser can keep (milliseconds since 1970)
MAX_LISTED = 10  # names listed in one note or message
_JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError)

State = dict[str, Any]  # the page's saved state: {pieces, answers, progress, last, seed}


class WorkFileError(ValueError):
    """A work file (or a learner file) that cannot be read; the message says what was wrong."""


@dataclass(frozen=True)
class WorkFile:
    """A learner's course as a work file holds it.

    ``pieces`` maps every gap holding the learner's code to its exact text; ``markers`` maps a region
    (by its finished marker's id) to the stage its file shows; ``files`` names the learner files held,
    and ``altered`` those of them with code outside the gaps that the course's file does not have.
    """

    pieces: dict[str, str]
    origins: dict[str, str]
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress: dict[str, dict[str, Any]] = field(default_factory=dict)
    seed: str | None = None
    last: str | None = None
    course_version: str | None = None
    files: tuple[str, ...] = ()
    markers: dict[str, str] = field(default_factory=dict)
    altered: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def state(self) -> State:
        """The work as the page keeps it (every piece an exact text, with its origin)."""
        pieces = {gap_id: {"code": text, "exact": True, "origin": self.origins.get(gap_id, "own")}
                  for gap_id, text in self.pieces.items()}
        return {"pieces": pieces, "answers": dict(self.answers), "progress": dict(self.progress),
                "last": self.last, "seed": self.seed}


# --- names, texts and versions ---------------------------------------------------------------------


def work_file_name(day: date) -> str:
    """'ember-work-2026-12-05.zip'."""
    return f"ember-work-{day.isoformat()}.zip"


def _listed(names: Iterable[object]) -> str:
    """Names for a message, each shown safely, at most MAX_LISTED of them."""
    names = list(names)
    text = ", ".join(_safe(name) for name in names[:MAX_LISTED])
    return text + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether a text holds a lone surrogate (half of a UTF-16 pair: no character, and no UTF-8 either)."""
    return _SURROGATE.search(text) is not None


def _lf(text: str) -> str:
    """A text with its line ends as LF (Python reads CRLF and CR alike)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _starter_text(region: Region, indent: str) -> str:
    return indented(region.starter, indent)


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise WorkFileError(f"{shown} is not UTF-8 text (byte {error.start} is not)") from None


# --- reading learner files ---------------------------------------------------------------------------


@dataclass
class _Read:
    """What the learner files read so far hold."""

    pieces: dict[str, str] = field(default_factory=dict)
    markers: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # course file name -> the name it was read from
    unknown: list[str] = field(default_factory=list)
    altered: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _broken(shown: str, error: GapSyntaxError) -> WorkFileError:
    reason = re.sub(r"^line \d+: ", "", str(error))
    return WorkFileError(f"{shown}, line {error.line}: {reason}. Each gap opens with its '# --- gap …' line "
                         "and closes with '# --- end gap ---', once: put the markers back as they were")


def _read_learner_file(course: Course, role: str, shown: str, text: str, found: _Read) -> None:
    """Read one learner file (course file ``role``, named ``shown`` in messages) into ``found``."""
    if role in found.files:
        raise WorkFileError(f"{found.files[role]} and {shown} both hold ember/{role}: give one of them")
    text = _lf(text)
    try:
        gaps = find_gaps(text)
    except GapSyntaxError as error:
        raise _broken(shown, error) from None
    shown_at: dict[str, tuple[str, int]] = {}
    for gap in gaps:
        region = course.regions.get(gap.id)
        if region is None:
            found.unknown.append(gap.id)
            continue
        if region.file != role:
            raise WorkFileError(f"{shown}, line {gap.open_line}: gap {gap.id} belongs in ember/{region.file}, "
                                f"not in ember/{role}")
        if region.final_id in shown_at:
            other, line = shown_at[region.final_id]
            raise WorkFileError(f"{shown}, line {gap.open_line}: gap {gap.id} marks the same place as {other} "
                                f"on line {line}: keep one of the two")
        shown_at[region.final_id] = (gap.id, gap.open_line)
        found.markers[region.final_id] = gap.id
        if gap.text != _starter_text(region, gap.indent):
            found.pieces[gap.id] = gap.text
    found.files[role] = shown
    reference = course.reference[role]
    places = [gap.id for gap in find_gaps(reference)]
    missing = [place for place in places if place not in shown_at]
    if missing:
        found.altered.append(role)
        found.notes.append(f"{shown} has no markers for {', '.join(missing)}: those gaps were not read")
        return
    rebuilt = fill(reference, {place: Fill(shown_at[place][0], "", exact=True) for place in places})
    own = fill(text, {gap.id: Fill(gap.id, "", exact=True) for gap in gaps})
    if own.source != rebuilt.source:
        found.altered.append(role)
        found.notes.append(f"{shown}: the code outside the gaps differs from this course's; "
                           "only the code inside the gaps is carried")


def _unknown_error(ids: Iterable[str], whose: str = "the work file") -> WorkFileError:
    names = ", ".join(sorted(set(ids)))
    return WorkFileError(f"{whose} holds pieces for gaps this course does not have ({names}): it was made by a "
                         "different or newer course. Load it into the course it came from, or update this one")


# --- reading ember-work.json -------------------------------------------------------------------------


def _where(*path: str) -> str:
    first, *rest = path
    return first + "".join(f"[{_safe(json.dumps(key, ensure_ascii=False))}]" for key in rest)


def _field_error(message: str, *path: str) -> WorkFileError:
    return WorkFileError(f"{JSON_NAME}: {_where(*path)} {message}")


def _record(record: str, where: str, key: str, entry: object) -> dict[str, Any]:
    """An entry of ``where`` as its record kind keeps it (labs/work/records.py), or a WorkFileError naming its field."""
    try:
        return records.check(record, entry)
    except records.RecordError as error:
        raise _field_error(error.says, where, key, *([error.field] if error.field else [])) from None


def _answer(key: str, entry: object) -> dict[str, Any]:
    return _record("answer", "answers", key, entry)


def _progress(key: str, entry: object) -> dict[str, Any]:
    return _record("progress", "progress", key, entry)


def _questions(course: Course) -> dict[str, Question]:
    return {f"{lesson.id}.{question.id}": question for lesson in course.lessons.values()
            for question in lesson.questions}


def _meant(entries: dict[str, dict[str, Any]], judge: Callable[[str, dict[str, Any]], dict[str, Any] | str],
           notes: dict[str, str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The entries the course can mean, each as ``judge`` sets it right, and a note for each kind of the rest:
    ``judge`` answers an entry, or the key of ``notes`` that says why it is left out; ``notes["corrected"]``
    says what setting right means. Unknown keys are listed sorted, the others in the order they came."""
    kept: dict[str, dict[str, Any]] = {}
    found: dict[str, list[str]] = {why: [] for why in notes}
    for key, entry in entries.items():
        judged = judge(key, entry)
        if isinstance(judged, str):
            found[judged].append(key)
            continue
        if judged != entry:
            found["corrected"].append(key)
        kept[key] = judged
    return kept, [f"{notes[why]}: {_listed(sorted(keys) if why == 'unknown' else keys)}"
                  for why, keys in found.items() if keys]


_ANSWER_NOTES = {
    "unknown": "answers to questions this course does not ask were left out",
    "no_option": "answers naming an option their question does not have were left out",
    "corrected": "answers marked right or wrong against the course's answer, or with options tried that are not "
                 "the question's wrong ones, were set right by the course",
}
_PROGRESS_NOTES = {
    "unknown": "progress in lessons this course does not have was left out",
    "impossible": "progress with more claims passed than in all was left out",
    "corrected": "progress marked done without every claim passed, or the other way, was set right",
}


def course_answers(course: Course, answers: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The answers the course can mean (read by :func:`_answer`), and notes on the rest: an answer to a question
    the course does not ask, or naming an option its question does not have, is left out; whether it is right
    is the course's to say, and tried options are the question's wrong ones."""
    questions = _questions(course)

    def judge(key: str, entry: dict[str, Any]) -> dict[str, Any] | str:
        question = questions.get(key)
        if question is None:
            return "unknown"
        options = [option.id for option in question.options]
        if entry["option"] not in options:
            return "no_option"
        fixed = {**entry, "correct": entry["option"] == question.answer}
        if "tried" in entry:
            fixed["tried"] = [option for option in dict.fromkeys(entry["tried"])
                              if option in options and option != question.answer]
        return fixed

    return _meant(answers, judge, _ANSWER_NOTES)


def course_progress(course: Course, progress: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The progress the course can mean (read by :func:`_progress`), and notes on the rest: a lesson the course
    does not have, or more claims passed than in all, is left out; a lesson is done when it passed every claim."""

    def judge(key: str, entry: dict[str, Any]) -> dict[str, Any] | str:
        if key not in course.lessons:
            return "unknown"
        if entry["passed"] > entry["total"]:
            return "impossible"
        return {**entry, "done": entry["passed"] == entry["total"] > 0}

    return _meant(progress, judge, _PROGRESS_NOTES)


def _table(document: dict, name: str) -> dict:
    value = document.get(name, {})
    if not isinstance(value, dict):
        raise _field_error("must be a table", name)
    return value


@dataclass(frozen=True)
class _Document:
    """ember-work.json, checked."""

    course_version: str | None
    last: str | None
    seed: str | None
    origins: dict[str, str]
    texts: dict[str, str]
    answers: dict[str, dict[str, Any]]
    progress: dict[str, dict[str, Any]]
    unknown: tuple[str, ...]
    notes: tuple[str, ...]


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def json_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep a JSON text's lists and tables nest, counted by a scan of its brackets outside strings, without
    recursion (so that a text nested thousands deep is measured before any parser recurses into it). The scan
    stops once past ``limit``."""
    depth = deepest = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in ("]", "}"):
            depth -= 1
    return deepest


def _surrogate_at(value: object) -> list[str] | None:
    """Where in parsed JSON a text (or a table's key) holds a lone surrogate: the path of keys, or None."""
    stack: list[tuple[object, list[str]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return path
        elif isinstance(item, dict):
            for key, entry in item.items():
                if has_surrogate(key):
                    return [*path, key]
                stack.append((entry, [*path, key]))
        elif isinstance(item, list):
            stack.extend((entry, [*path, str(number)]) for number, entry in enumerate(item))
    return None


def _parse(data: bytes, name: str) -> object:
    """ember-work.json parsed: UTF-8 text, nested at most MAX_DEPTH deep, every text free of lone surrogates."""
    text = _decode(data, name)
    if json_depth(text) > MAX_DEPTH:
        raise WorkFileError(f"{name} nests lists or tables more than {MAX_DEPTH} deep, where a work file's nest "
                            "4 deep at most: it was not made by ember")
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise WorkFileError(f"{name} is not valid JSON ({_safe(error, 200)})") from None
    at = _surrogate_at(document)
    if at is not None:
        where = _where(*at) if at else "the text"
        raise WorkFileError(f"{name}: {where} holds a lone surrogate (such as \\ud800), which is half of a "
                            "character and cannot be saved as text: this file was not made by ember")
    return document


def _read_document(course: Course, data: bytes, shown: str = JSON_NAME) -> _Document:
    """Check ember-work.json field by field; a WorkFileError names the first field that is wrong."""
    document = _parse(data, shown)
    if not isinstance(document, dict):
        raise WorkFileError(f"{shown} must hold a JSON table ({{…}})")
    version = document.get("format")
    if type(version) is not int or version < 1:
        raise _field_error("must be the format's number (1)", "format")
    if version > FORMAT:
        raise WorkFileError(f"this work file has format {version}, newer than this course reads ({FORMAT}): "
                            "update the course (or open the page it was saved from)")
    if document.get("course") != COURSE_NAME:
        name = document.get("course")
        if isinstance(name, str):
            raise WorkFileError(f"this work file is from another course ({_safe(repr(name))}), not from {COURSE_NAME}")
        raise _field_error(f"must be {COURSE_NAME!r}", "course")
    course_version = document.get("course_version")
    if course_version is not None and not (isinstance(course_version, str)
                                           and re.fullmatch(r"[0-9A-Za-z._+-]{0,64}", course_version)):
        raise _field_error("must be a version (up to 64 letters, digits, '.', '-', '_' or '+') or null",
                           "course_version")
    last = document.get("last")
    if last is not None and not isinstance(last, str):
        raise _field_error("must be a lesson id or null", "last")
    seed = document.get("seed")
    if seed is not None and not is_seed(seed):
        raise _field_error("must be a learner seed (8 to 64 lower-case hex digits) or null", "seed")
    origins: dict[str, str] = {}
    texts: dict[str, str] = {}
    unknown: list[str] = []
    for gap_id, entry in _table(document, "gaps").items():
        if not re.fullmatch(GAP_ID, gap_id):
            raise _field_error("is not a gap id (such as L10.backward)", "gaps", gap_id)
        if not isinstance(entry, dict):
            raise _field_error("must be a table", "gaps", gap_id)
        origin = entry.get("origin", "own")
        if origin not in ORIGINS:
            raise _field_error("must be 'own' or 'finished'", "gaps", gap_id, "origin")
        if "text" in entry:
            text = entry["text"]
            if not isinstance(text, str):
                raise _field_error("must be the gap's code as text", "gaps", gap_id, "text")
            lines = marker_lines(_lf(text))
            if lines:
                raise _field_error(f"line {lines[0]} looks like a gap marker", "gaps", gap_id, "text")
            texts[gap_id] = _lf(text)
        if gap_id not in course.regions:
            unknown.append(gap_id)
        origins[gap_id] = origin
    answers, notes = course_answers(
        course, {key: _answer(key, entry) for key, entry in _table(document, "answers").items()})
    progress, more = course_progress(
        course, {key: _progress(key, entry) for key, entry in _table(document, "progress").items()})
    return _Document(course_version, last if last in course.lessons else None, seed, origins, texts, answers,
                     progress, tuple(unknown), (*notes, *more))


def _work(course: Course, found: _Read, document: _Document | None, whose: str = "the work file") -> WorkFile:
    """A work file from its learner files and its ember-work.json (if any), refusing unknown gaps."""
    unknown = found.unknown + list(document.unknown if document else ())
    if unknown:
        raise _unknown_error(unknown, whose)
    pieces = dict(found.pieces)
    if document:
        shown = set(found.markers.values())
        pieces |= {gap_id: text for gap_id, text in document.texts.items() if gap_id not in shown}
    origins = {gap_id: (document.origins.get(gap_id, "own") if document else "own") for gap_id in pieces}
    order = sorted(course.gaps, key=lesson_number)  # lesson by lesson, each in the course's order
    return WorkFile(
        pieces={gap_id: pieces[gap_id] for gap_id in order if gap_id in pieces},
        origins={gap_id: origins[gap_id] for gap_id in order if gap_id in origins},
        answers=document.answers if document else {},
        progress=document.progress if document else {},
        seed=document.seed if document else None,
        last=document.last if document else None,
        course_version=document.course_version if document else None,
        files=tuple(name for name in course.reference if name in found.files),
        markers=dict(found.markers),
        altered=tuple(found.altered),
        notes=tuple(found.notes) + (document.notes if document else ()),
    )


# --- reading a zip -------------------------------------------------------------------------------------


def _unsafe(name: str) -> str | None:
    """Why an entry's name would leave the folder it unpacks in, if it would."""
    if "\\" in name:
        return "uses backslashes"
    if "\x00" in name:
        return "holds a NUL character"
    if name.startswith("/"):
        return "is an absolute path"
    if re.match(r"[A-Za-z]:", name):
        return "starts with a drive letter"
    if ".." in name.split("/"):
        return "climbs out of the folder with '..'"
    return None


def _is_junk(name: str) -> bool:
    parts = name.split("/")
    return (parts[0] == "__MACOSX" or parts[-1] in _JUNK_NAMES or "__pycache__" in parts
            or name.endswith((".bak", ".pyc")))


def _check_entries(infos: list[zipfile.ZipInfo]) -> None:
    """Refuse a zip from its directory alone: too many entries, unsafe names, links, sizes, ratios."""
    if len(infos) > MAX_ENTRIES:
        raise WorkFileError(f"the zip holds {len(infos)} entries; a work file holds at most {MAX_ENTRIES}")
    seen: set[str] = set()
    total = 0
    for info in infos:
        entry = _safe(info.filename)
        for name in {info.orig_filename, info.filename}:
            why = _unsafe(name)
            if why:
                raise WorkFileError(f"the zip's entry {_safe(repr(name))} {why}: a work file holds only files inside "
                                    "its folder")
        if info.filename in seen:
            raise WorkFileError(f"the zip holds {entry} twice")
        seen.add(info.filename)
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise WorkFileError(f"the zip's entry {entry} is a link; a work file holds only files")
        if info.flag_bits & 0x1:
            raise WorkFileError(f"the zip's entry {entry} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise WorkFileError(f"the zip's entry {entry} is packed in a way this course does not read "
                                f"(method {info.compress_type}): zip it again with the usual settings")
        if info.file_size > MAX_ENTRY_BYTES:
            raise WorkFileError(f"the zip's entry {entry} unpacks to {over(info.file_size, MAX_ENTRY_BYTES)}; "
                                f"an entry of a work file has at most {size_text(MAX_ENTRY_BYTES)}")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise WorkFileError(f"the zip's entry {entry} unpacks to over {MAX_RATIO} times its packed size: "
                                "that is not a learner's work (it looks like a zip bomb)")
        total += info.file_size
    if total > MAX_TOTAL_BYTES:
        raise WorkFileError(f"the zip unpacks to {over(total, MAX_TOTAL_BYTES)}; a work file unpacks to at most "
                            f"{size_text(MAX_TOTAL_BYTES)}")


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """An entry's bytes, read no further than its declared size (and the limit) allow."""
    try:
        with archive.open(info) as stream:
            data = stream.read(min(info.file_size, MAX_ENTRY_BYTES) + 1)
    except _ZIP_ERRORS as error:
        raise WorkFileError(f"the zip's entry {_safe(info.filename)} is damaged ({_safe(error, 200)})") from None
    if len(data) != info.file_size:
        raise WorkFileError(f"the zip's entry {_safe(info.filename)} is damaged (its size is not the one declared)")
    return data


def _folder_prefix(names: list[str]) -> str:
    """Where the work lies in the zip: '' at its top, or 'one-folder/'."""
    def holds_work(prefix: str) -> bool:
        return any(name == prefix + JSON_NAME or name.startswith(prefix + PACKAGE + "/") for name in names)

    if holds_work(""):
        return ""
    tops = {name.split("/", 1)[0] for name in names}
    if len(tops) == 1 and holds_work(next(iter(tops)) + "/"):
        return next(iter(tops)) + "/"
    raise WorkFileError(f"the zip holds no ember work: neither {JSON_NAME} nor an {PACKAGE}/ folder")


def read_work(data: bytes, course: Course | None = None) -> WorkFile:
    """Read a work file (a zip's bytes); raise WorkFileError saying what was wrong."""
    course = course or _course()
    if len(data) > MAX_INPUT_BYTES:
        raise WorkFileError(f"the file is {over(len(data), MAX_INPUT_BYTES)}; a work file has at most "
                            f"{size_text(MAX_INPUT_BYTES)}")
    if not data.startswith(b"PK"):
        raise WorkFileError("the file is not a zip file: choose the ember-work-….zip you saved, or your .py files")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_ERRORS as error:
        raise WorkFileError(f"the file is not a zip file, or a damaged one ({_safe(error, 200)})") from None
    with archive:
        infos = archive.infolist()
        _check_entries(infos)
        files = [info for info in infos if not info.is_dir() and not _is_junk(info.filename)]
        prefix = _folder_prefix([info.filename for info in files])
        found = _Read()
        document = None
        left: list[str] = []
        for info in files:
            name = info.filename.removeprefix(prefix) if info.filename.startswith(prefix) else None
            path = PurePosixPath(name or ".")
            if name == JSON_NAME:
                document = _read_document(course, _read_entry(archive, info))
            elif name is not None and path.parent.as_posix() == PACKAGE and path.name in course.reference:
                text = _decode(_read_entry(archive, info), _safe(info.filename))
                _read_learner_file(course, path.name, _safe(info.filename), text, found)
            elif name not in (f"{PACKAGE}/__init__.py", README_NAME):
                left.append(info.filename)
        if left:
            found.notes.append(f"left out, as no part of a learner's work: {_listed(left)}")
    if document is None and not found.files:
        raise WorkFileError(f"the zip holds no ember work: no {JSON_NAME} and none of the course's "
                            f"{PACKAGE}/ files ({', '.join(course.reference)})")
    return _work(course, found, document)


def _check_sizes(files: list[tuple[str, bytes]]) -> None:
    """Refuse more files, or more bytes in all, than a learner's work can hold, before reading any of them."""
    if len(files) > MAX_FILES:
        raise WorkFileError(f"{len(files)} files were given; give one work file, or at most {MAX_FILES} learner files")
    total = sum(len(data) for _, data in files)
    if total <= MAX_INPUT_BYTES:
        return
    if len(files) == 1:
        name, data = files[0]
        kind = "learner file" if name.lower().endswith(".py") and not data.startswith(b"PK") else "work file"
        raise WorkFileError(f"{_safe(name)} is {over(total, MAX_INPUT_BYTES)}; a {kind} has at most "
                            f"{size_text(MAX_INPUT_BYTES)}")
    raise WorkFileError(f"the {len(files)} files given are {over(total, MAX_INPUT_BYTES)} together; learner files "
                        f"hold at most {size_text(MAX_INPUT_BYTES)} in all")


def read_work_files(files: list[tuple[str, bytes]], course: Course | None = None) -> WorkFile:
    """Read what a learner hands over: one work file (zip), or one or several learner ``.py`` files.

    A learner file is known by its gap markers, whatever its name ('scalar (1).py' holds ember/scalar.py).
    """
    course = course or _course()
    if not files:
        raise WorkFileError("no file was given")
    _check_sizes(files)
    zips = [name for name, data in files if data.startswith(b"PK") or name.lower().endswith(".zip")]
    if zips:
        if len(files) > 1:
            raise WorkFileError(f"give either one work file ({_safe(zips[0])}) or learner .py files, "
                                "not both together")
        return read_work(files[0][1], course)
    found = _Read()
    for given, data in files:
        name = _safe(given)
        text = _lf(_decode(data, name))
        try:
            gaps = find_gaps(text)
        except GapSyntaxError as error:
            raise _broken(name, error) from None
        if not gaps:
            raise WorkFileError(f"{name} has no gap markers: it is not one of ember's learner files "
                                f"({', '.join(course.reference)})")
        unknown = [gap.id for gap in gaps if gap.id not in course.regions]
        if unknown:
            raise _unknown_error(unknown, name)
        roles = list(dict.fromkeys(course.regions[gap.id].file for gap in gaps))
        if len(roles) > 1:
            raise WorkFileError(f"{name} marks gaps of several learner files ({', '.join(roles)}): "
                                "each file holds its own gaps")
        _read_learner_file(course, roles[0], name, text, found)
    return _work(course, found, None)


# --- a terminal folder, and the page's state -----------------------------------------------------------


def read_file(path: Path, limit: int) -> bytes:
    """A file's bytes, at most ``limit`` of them: a WorkFileError for a larger file, a folder, a device or a pipe."""
    name = _safe(path, PATH_LIMIT)
    try:
        data = read_or_refuse(path, limit, name, folder=f"{name} is a folder, not a file")
    except ReadRefused as error:
        raise WorkFileError(str(error)) from None
    if len(data) > limit:
        raise WorkFileError(f"{name} is {over(len(data), limit)}; at most {size_text(limit)} "
                            "is read from it")
    return data


def read_folder(course: Course, folder: Path) -> WorkFile:
    """The work in a terminal folder: its ``ember/`` files and the ``ember-work.json`` kept beside them.

    A ``"finished"`` origin holds only while its gap still holds the finished piece.
    """
    found = _Read()
    total = 0
    for name in course.reference:
        path = folder / PACKAGE / name
        if path.exists() or path.is_symlink():
            data = read_file(path, MAX_INPUT_BYTES)
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise WorkFileError(f"the learner files in {_safe(folder / PACKAGE, PATH_LIMIT)} are "
                                    f"{over(total, MAX_TOTAL_BYTES)} together; at most {size_text(MAX_TOTAL_BYTES)}")
            shown = _safe(path, PATH_LIMIT)
            _read_learner_file(course, name, shown, _decode(data, shown), found)
    kept = folder / JSON_NAME
    document = None
    if kept.exists() or kept.is_symlink():
        try:
            document = _read_document(course, read_file(kept, MAX_ENTRY_BYTES), _safe(kept, PATH_LIMIT))
        except WorkFileError as error:
            raise WorkFileError(f"{error} (in {_safe(kept, PATH_LIMIT)}: fix it, or move it away)") from None
    work = _work(course, found, document, _safe(folder, PATH_LIMIT))
    origins = {gap_id: "finished" if origin == "finished" and same_piece(work.pieces[gap_id],
                                                                          course.gaps[gap_id].finished) else "own"
               for gap_id, origin in work.origins.items()}
    return replace(work, origins=origins)


def state_texts(course: Course, state: State) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The learner's pieces in a page state as exact texts (starters left out), their origins, and the
    ids of pieces for gaps this course does not have."""
    texts: dict[str, str] = {}
    origins: dict[str, str] = {}
    unknown: list[str] = []
    pieces = state.get("pieces")
    for gap_id, entry in (pieces.items() if isinstance(pieces, dict) else ()):
        if not records.valid("piece", entry):
            continue
        region = course.regions.get(gap_id)
        if region is None:
            unknown.append(gap_id)
            continue
        text = _lf(entry["code"] if entry.get("exact") else indented(entry["code"], region.indent))
        if text != _starter_text(region, region.indent):
            texts[gap_id] = text
            origins[gap_id] = entry["origin"] if entry.get("origin") in ORIGINS else "own"
    return texts, origins, unknown


def state_table(state: State, name: str) -> dict[str, Any]:
    """A table of the state: the entries that read as the page's store reads them (labs/data/work_records.json)."""
    value = state.get(name)
    if not isinstance(value, dict):
        return {}
    if name not in records.SHAPE["tables"]:
        return value
    entries = {}
    for key, entry in value.items():
        try:
            entries[key] = records.table_entry(name, entry)
        except records.RecordError:
            continue
    return entries


def _furthest(course: Course, state: State, pieces: Iterable[str]) -> int:
    """The furthest lesson a state has been to: by its last lesson, its progress and its pieces."""
    kept = state.get("progress")
    progress: dict[str, Any] = kept if isinstance(kept, dict) else {}
    lessons = [key for key in [state.get("last"), *progress, *pieces] if isinstance(key, str)]
    numbers = [lesson_number(key) for key in lessons if lesson_of(key) in course.lessons]
    return max(numbers, default=next(iter(course.lessons.values())).number)


def _markers(course: Course, pieces: dict[str, str], lab: int, shown: dict[str, str]) -> dict[str, str]:
    """The stage each region shows: the latest the learner wrote, else as ``shown``, else the latest lesson
    ``lab`` has reached (a stage's code not shown in the files goes in ember-work.json)."""
    markers = {}
    for region in course.region_list():
        written = [stage.id for stage in region.stages if stage.id in pieces]
        reached = [stage.id for stage in region.stages if stage.number <= lab]
        fallback = shown.get(region.final_id) or (reached or [region.stages[0].id])[-1]
        markers[region.final_id] = written[-1] if written else fallback
    return markers


def state_work(course: Course, state: State, lab: str | None = None,
               markers: dict[str, str] | None = None) -> WorkFile:
    """The page's saved state as a work file. Its files stand as lab ``lab`` starts (default: the furthest
    lesson the state has been to), each region at the latest stage the learner wrote, else at its stage in
    ``markers``. Pieces for gaps this course does not have are noted and left out."""
    texts, origins, unknown = state_texts(course, state)
    number = course.lesson(lab).number if lab else _furthest(course, state, texts)
    answers, _ = course_answers(course, state_table(state, "answers"))  # the page's own: set right quietly
    progress, _ = course_progress(course, state_table(state, "progress"))
    last, seed = state.get("last"), state.get("seed")
    order = sorted(course.gaps, key=lesson_number)  # lesson by lesson, each in the course's order
    return WorkFile(
        pieces={gap_id: texts[gap_id] for gap_id in order if gap_id in texts},
        origins={gap_id: origins[gap_id] for gap_id in order if gap_id in origins},
        answers=answers,
        progress=progress,
        seed=seed if is_seed(seed) else None,
        last=last if isinstance(last, str) and last in course.lessons else None,
        files=tuple(course.reference),
        markers=_markers(course, texts, number, markers or {}),
        notes=(f"pieces for gaps this course does not have were left out: {', '.join(sorted(unknown))}",)
        if unknown else (),
    )


# --- writing --------------------------------------------------------------------------------------------


def learner_sources(course: Course, work: WorkFile, names: Iterable[str] | None = None) -> dict[str, str]:
    """Learner files of the work (name -> source; default: the files it holds): each gap shows its stage,
    with the learner's exact text or its starter."""
    markers = _markers(course, work.pieces, 0, work.markers)
    sources = {}
    for name in work.files if names is None else names:
        fills = {}
        for place in find_gaps(course.reference[name]):
            marker = markers[place.id]
            text = work.pieces.get(marker)
            starter = course.regions[marker].starter
            fills[place.id] = Fill(marker, text, exact=True) if text is not None else Fill(marker, starter)
        sources[name] = fill(course.reference[name], fills).source
    return sources


def work_document(course: Course, work: WorkFile, course_version: str,
                  files: Iterable[str] | None = None) -> dict[str, Any]:
    """ember-work.json of a work file, as plain data, beside learner ``files`` (default: the files it holds):
    a gap's text goes in when those files do not show it."""
    beside = set(work.files if files is None else files)
    shown = {marker for place, marker in _markers(course, work.pieces, 0, work.markers).items()
             if course.regions[place].file in beside}
    gaps: dict[str, dict[str, str]] = {}
    for gap_id, text in work.pieces.items():
        gaps[gap_id] = {"origin": work.origins.get(gap_id, "own")}
        if gap_id not in shown:
            gaps[gap_id]["text"] = text
    return {"format": FORMAT, "course": COURSE_NAME, "course_version": course_version, "last": work.last,
            "seed": work.seed, "gaps": gaps, "answers": work.answers, "progress": work.progress}


def document_text(document: dict[str, Any]) -> str:
    """ember-work.json's text: one line a field, and one line an entry of a table."""
    def line(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    fields = []
    for name, value in document.items():
        if isinstance(value, dict) and value:
            entries = ",\n".join(f"  {line(key)}: {line(entry)}" for key, entry in value.items())
            fields.append(f" {line(name)}: {{\n{entries}\n }}")
        else:
            fields.append(f" {line(name)}: {line(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _readme(day: date) -> str:
    return (f"Your ember work, saved on {day.isoformat()}: every learner file in ember/ (each gap holds your\n"
            f"code or its starter), and your answers and progress in {JSON_NAME}.\n"
            "Check a lesson from the course's folder: python3 -m labs check L10 --file <this folder>/ember/scalar.py\n"
            "Carry it on: load this zip on the course's pages, or python3 -m labs import <this zip> --dir mywork\n")


def write_work(course: Course, work: WorkFile, course_version: str, day: date) -> bytes:
    """The work file's bytes, with every learner file: the same work and day give the same bytes."""
    for gap_id, text in work.pieces.items():
        lines = marker_lines(text)
        if lines:
            raise WorkFileError(f"line {lines[0]} of gap {gap_id} looks like a gap marker: change that line, "
                                "then save your work again")
        if has_surrogate(text):
            line = next(number for number, row in enumerate(text.split("\n"), start=1) if has_surrogate(row))
            raise WorkFileError(f"line {line} of gap {gap_id} holds a lone surrogate (half of a character), which "
                                "cannot be saved as text: retype the characters on that line, then save again")
    folder = work_file_name(day).removesuffix(".zip")
    entries = {
        README_NAME: _readme(day),
        JSON_NAME: document_text(work_document(course, work, course_version, course.reference)),
        f"{PACKAGE}/__init__.py": INIT_SOURCE,
        **{f"{PACKAGE}/{name}": source for name, source in learner_sources(course, work, course.reference).items()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(day.year, day.month, day.day, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


# --- preview and merge --------------------------------------------------------------------------------


def _course() -> Course:
    from labs.course.model import load_course

    return load_course(checks=False)
