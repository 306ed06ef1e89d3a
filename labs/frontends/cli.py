"""``python -m labs``: start a lab, check it, list its claims, compare with the finished pieces, and carry
the work to and from a work file (labs/work/work_file.py)."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from labs.checking.files import (
    PATH_LIMIT,
    ReadRefused,
    escaped,
    over,
    read_limited,
    read_or_refuse,
    shown,
    write_atomic,
)
from labs.checking.learner import INIT_SOURCE, Work, earlier_finished, module_sources, read_pieces
from labs.checking.on_disk import UsageError, check_files, read_text, sources_beside
from labs.course.gaps import GapSyntaxError, find_gaps
from labs.course.model import REFERENCE_DIR, Course, CourseError, lesson_number, load_course
from labs.course.shipped import course_version
from labs.course.words import counted
from labs.work.work_file import (
    JSON_NAME,
    MAX_INPUT_BYTES,
    WorkFile,
    WorkFileError,
    document_text,
    learner_sources,
    read_folder,
    read_work_files,
    size_text,
    state_work,
    work_document,
    work_file_name,
    write_work,
)
from labs.work.work_merge import merge, merged_state, preview

WORKING_COPY = Path("ember") / "scalar.py"


def _path(path: Path | str) -> str:
    """A path as the terminal shows it: escaped, so that no name in it can move the cursor, set the window's
    title or write the clipboard, and cut if it is very long."""
    return shown(path, PATH_LIMIT)


def _say(text: str, file: object = None) -> None:
    """Print one line (every control character in it shown as an escape)."""
    print(escaped(text), file=file or sys.stdout)  # type: ignore[arg-type]


def _write(path: Path, text: str) -> None:
    """Write a text file atomically: the old file stays whole until the new one is complete."""
    write_atomic(path, text.encode("utf-8"))


def _is_reference(path: Path) -> bool:
    return path.resolve().parent == REFERENCE_DIR


def _refuse_reference(target: Path) -> None:
    """Refuse to write (or save as the learner's) the course's own ember/ folder."""
    if _is_reference(target / "__init__.py"):
        raise UsageError("that folder holds the course's finished engine; choose another with --dir")


def _existing_pieces(course: Course, folder: Path) -> dict[str, str]:
    pieces: dict[str, str] = {}
    for name in course.reference:
        path = folder / name
        if path.exists():
            try:
                pieces |= read_pieces(course, read_text(path))
            except GapSyntaxError as error:
                raise UsageError(
                    f"{_path(path)}: the gap markers are broken ({error}); fix them or move the file away"
                ) from None
    return pieces


def _copy_aside(path: Path) -> Path:
    """Copy a learner file, byte for byte, to the first free ``<name>.N.bak`` beside it."""
    number = 1
    while (backup := path.with_name(f"{path.name}.{number}.bak")).exists():
        number += 1
    try:
        data = read_limited(path, MAX_INPUT_BYTES)
    except OSError as error:
        raise UsageError(f"cannot copy {_path(path)} aside: {error}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{_path(path)} is {over(len(data), MAX_INPUT_BYTES)}; a learner file has at most "
                         f"{size_text(MAX_INPUT_BYTES)}: move it away, then try again")
    write_atomic(backup, data)
    return backup


def _back_up_if_losing(course: Course, path: Path, kept: dict[str, str], replaced: Sequence[str] = ()) -> None:
    """Copy ``path`` aside when the new files would drop a piece it holds (e.g. going back a lesson).

    ``kept`` holds every piece of the new files, whichever file holds it: a piece whose gap has moved to
    another file is not lost.
    """
    old = read_pieces(course, read_text(path))
    if all(kept.get(gap_id) == body for gap_id, body in old.items()):
        return
    backup = _copy_aside(path)
    mine = [gap_id for gap_id in old if gap_id in replaced]
    why = f"Your {', '.join(mine)} in {_path(path)} is replaced" if mine else \
        f"Some of your pieces in {_path(path)} belong to later lessons"
    _say(f"{why}; the whole file is kept as {_path(backup)}.")


def _replaced(course: Course, lab: str, gap_ids: Sequence[str]) -> dict[str, str]:
    """The finished pieces of earlier gaps named on the command line (to replace the learner's own)."""
    number = course.lesson(lab).number
    for gap_id in gap_ids:
        if gap_id not in course.gaps or course.gaps[gap_id].number >= number:
            raise UsageError(f"--ref-deps takes gaps of lessons before {lab.upper()} (such as those `python -m labs "
                             f"check {lab}` names), not {gap_id!r}")
    return {gap_id: course.gaps[gap_id].finished for gap_id in gap_ids}


def start(course: Course, lab: str, folder: Path, ref_deps: Sequence[str] | None) -> int:
    """Write the learner's modules into ``folder/ember`` as lab ``lab`` starts.

    With ``ref_deps`` (even empty), earlier gaps the learner never wrote get their finished pieces, and so do the
    gaps it names, in place of the learner's own (whose file is copied aside first).
    """
    lesson = course.lesson(lab)
    target = folder / "ember"
    _refuse_reference(target)
    replaced = _replaced(course, lesson.id, ref_deps or ())
    pieces = _existing_pieces(course, target)
    target.mkdir(parents=True, exist_ok=True)
    init = target / "__init__.py"
    if not init.exists():
        _write(init, INIT_SOURCE)
    filled: dict[str, str] = {}
    if ref_deps is not None:
        filled = earlier_finished(course, lesson.id, Work(pieces)).missing
    sources = module_sources(course, lesson.id, pieces | filled | replaced)
    kept: dict[str, str] = {}
    for source in sources.values():
        kept |= read_pieces(course, source)
    for name, source in sources.items():
        path = target / name
        if path.exists():
            _back_up_if_losing(course, path, kept, tuple(replaced))
        _write(path, source)
    earlier = sorted(gap for gap in pieces if lesson_number(gap) < lesson.number and gap not in replaced)
    names = ", ".join(_path(target / name) for name in course.reference)
    _say(f"Wrote {names} as lab {lesson.id} starts: {lesson.title}.")
    print(f"Your gaps in this lab: {', '.join(lesson.gaps)}.")
    if earlier:
        print(f"Kept {len(earlier)} of your pieces from earlier lessons.")
    if filled:
        print(f"{len(filled)} earlier gaps you had not written now hold the finished pieces.")
    if replaced:
        print(f"{', '.join(replaced)} now hold{'s' if len(replaced) == 1 else ''} the finished piece"
              f"{'' if len(replaced) == 1 else 's'} in place of yours.")
    print(f"When you are ready: python -m labs check {lesson.id}")
    return 0


def _folder_work(course: Course, folder: Path) -> WorkFile:
    """The work in a terminal folder; a broken file there is the learner's to fix before anything is written."""
    try:
        return read_folder(course, folder)
    except WorkFileError as error:
        raise UsageError(f"{error}. Nothing was written") from None


def _print_notes(work: WorkFile) -> None:
    for note in work.notes:
        _say(f"Note: {note}.")


def export_work(course: Course, folder: Path, out: Path | None, today: date) -> int:
    """Save the work of a terminal folder (its ember/ files and the ember-work.json kept there) as a work file."""
    _refuse_reference(folder / "ember")
    work = _folder_work(course, folder)
    if not work.files:
        raise UsageError(f"{_path(folder / 'ember')} holds none of your learner files; write them with "
                         f"`python -m labs start L01 --dir {_path(folder)}`")
    data = write_work(course, work, course_version(), today)
    name = work_file_name(today)
    target = out or Path(name)
    if target.is_dir():
        target = target / name
    try:
        write_atomic(target, data)
    except OSError as error:
        raise UsageError(f"cannot write {_path(target)}: {error.strerror}. That file is as it was") from None
    _print_notes(work)
    _say(f"Saved {len(work.pieces)} of your pieces from {_path(folder / 'ember')}, with answers to "
         f"{counted(len(work.answers), 'question')} and progress in {counted(len(work.progress), 'lesson')}, "
         f"in {_path(target)}.")
    return 0


def _read_given(paths: list[Path]) -> list[tuple[str, bytes]]:
    """The files given on the command line, read no further than MAX_INPUT_BYTES in all."""
    files: list[tuple[str, bytes]] = []
    left = MAX_INPUT_BYTES
    for path in paths:
        name = _path(path)
        folder = f"{name} is a folder: give the work file (ember-work-….zip) or your .py files"
        try:
            data = read_or_refuse(path, left, name, folder=folder)
        except ReadRefused as error:
            raise UsageError(str(error)) from None
        if len(data) > left:
            read = MAX_INPUT_BYTES - left + len(data)
            if len(paths) == 1:
                kind = "learner file" if path.suffix.lower() == ".py" else "work file"
                raise UsageError(f"{name} is {over(read, MAX_INPUT_BYTES)}; a {kind} has at most "
                                 f"{size_text(MAX_INPUT_BYTES)}")
            raise UsageError(f"the files given are {over(read, MAX_INPUT_BYTES)} together; learner files hold at "
                             f"most {size_text(MAX_INPUT_BYTES)} in all")
        left -= len(data)
        files.append((path.name, data))
    return files


def _loses_work(course: Course, name: str, current: WorkFile, new_source: str) -> bool:
    """True when writing ``new_source`` over the folder's file ``name`` would drop something: a piece it
    shows, or code outside its gaps that the course's file does not have."""
    if name in current.altered:
        return True
    new_texts = {course.regions[gap.id].final_id: gap.text for gap in find_gaps(new_source)}
    shown = set(current.markers.values())
    return any(new_texts.get(course.regions[gap_id].final_id) != text
               for gap_id, text in current.pieces.items() if course.regions[gap_id].file == name and gap_id in shown)


def import_work(course: Course, given: list[Path], folder: Path) -> int:
    """Write a terminal folder's learner files from a work file (or .py files), keeping aside any file whose
    pieces would be lost, and keep the file's answers and progress in the folder for the next export."""
    target = folder / "ember"
    _refuse_reference(target)
    work = read_work_files(_read_given(given), course)
    current = _folder_work(course, folder)
    state = current.state()
    view = preview(course, state, work)
    result = state_work(course, merged_state(state, merge(course, state, work)),
                        markers={**current.markers, **work.markers})
    sources = learner_sources(course, result, work.files)
    on_disk = [name for name in course.reference if name in sources or (target / name).is_file()]
    kept = folder / JSON_NAME
    # Every byte to write is made before the first is written: a text that cannot be saved stops it here.
    document = document_text(work_document(course, result, course_version(), on_disk))
    try:
        outputs = {name: source.encode("utf-8") for name, source in sources.items()}
        kept_bytes = document.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("the work holds a lone surrogate (half of a character), which cannot be saved as text. "
                         "Nothing was written") from None
    target.mkdir(parents=True, exist_ok=True)
    init = target / "__init__.py"
    if not init.exists():
        _write(init, INIT_SOURCE)
    for name, data in outputs.items():
        path = target / name
        if path.exists() and _loses_work(course, name, current, sources[name]):
            _say(f"Your {_path(path)} held code the work file does not; the whole file is kept as "
                 f"{_path(_copy_aside(path))}.")
        write_atomic(path, data)
    write_atomic(kept, kept_bytes)
    _print_notes(work)
    counts = view["counts"]
    files = ", ".join(sources) or "no learner file"
    _say(f"Wrote {files} in {_path(target)} from {', '.join(_path(path) for path in given)}: "
         f"{counted(counts['new'], 'gap')} new, {counts['changed']} changed, {counts['same']} the same.")
    _say(f"Answers to {counted(len(result.answers), 'question')} and progress in "
         f"{counted(len(result.progress), 'lesson')} are kept "
         f"in {_path(kept)} for your next export.")
    return 0


def list_lessons(course: Course) -> int:
    """Print every lesson as a Markdown table: number and title, its question, its gaps and their files."""
    print("| lesson | question | gaps |")
    print("| --- | --- | --- |")
    for lesson in course.lessons.values():
        files = sorted({course.gaps[gap_id].file for gap_id in lesson.gaps})
        gaps = ", ".join(f"`{gap_id}`" for gap_id in lesson.gaps)
        print(f"| {lesson.number:02d} {lesson.title} | {lesson.question} | {gaps} (in {', '.join(files)}) |")
    return 0


def list_claims(course: Course, lab: str) -> int:
    """Print a lesson's claims and the gaps it opens."""
    lesson = course.lesson(lab)
    print(f"{lesson.id} · {lesson.title}: {lesson.question}")
    print(f"Gaps: {', '.join(lesson.gaps)}")
    for claim in lesson.claims:
        print(f"  - {claim.name}")
    return 0


def diff(course: Course, lab: str, path: Path) -> int:
    """Show the learner's pieces of a lesson next to the finished ones."""
    lesson = course.lesson(lab)
    sources, _ = sources_beside(course, path)
    mine = {gap.id: gap.body for source in sources.values() for gap in find_gaps(source)}
    for gap_id in lesson.gaps:
        finished = course.gaps[gap_id].finished
        body = mine.get(gap_id)
        print(f"== {gap_id}: {course.gaps[gap_id].title}")
        if body is None:
            print("   (not in your file: it opens when you start this lab)")
            continue
        lines = list(difflib.unified_diff(body.splitlines(), finished.splitlines(), "yours", "finished", lineterm=""))
        print("\n".join(lines) if lines else "   (the same as the finished piece)")
    return 0


def hints(course: Course, lab: str) -> int:
    """Print the hint ladder of each gap of a lesson."""
    for gap_id in course.lesson(lab).gaps:
        gap = course.gaps[gap_id]
        print(f"== {gap_id}: {gap.title}")
        for number, hint in enumerate(gap.hints, start=1):
            print(f"  {number}. {hint}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line's arguments."""
    root = argparse.ArgumentParser(prog="python -m labs", description="Work on the ember labs in your own editor.")
    commands = root.add_subparsers(dest="command", required=True)
    p = commands.add_parser("start", help="write your ember/ files as a lab starts, keeping your earlier pieces")
    p.add_argument("lab", help="a lesson id such as L10")
    p.add_argument("--dir", type=Path, default=Path("."), help="folder to write ember/ into (default: here)")
    p.add_argument("--ref-deps", nargs="*", metavar="GAP", default=None,
                   help="fill earlier gaps you have not written with finished pieces; with gap ids (such as "
                        "L06.toposort), put the finished pieces in those gaps too, in place of yours")
    p = commands.add_parser("check", help="run a lesson's checks (or all) against your Value")
    p.add_argument("lab", help="a lesson id such as L10, or 'all'")
    p.add_argument("--file", type=Path, default=WORKING_COPY,
                   help="one of your ember/ files, read with the ones beside it (default: ember/scalar.py)")
    commands.add_parser("lessons", help="list every lesson: its question and its gaps")
    p = commands.add_parser("tests", help="list a lesson's claims")
    p.add_argument("lab")
    p = commands.add_parser("diff", help="show your pieces of a lesson next to the finished ones")
    p.add_argument("lab")
    p.add_argument("--file", type=Path, default=WORKING_COPY)
    p = commands.add_parser("hints", help="show the hints of a lesson's gaps")
    p.add_argument("lab")
    p = commands.add_parser("export", help="save your work, answers and progress in one file, ember-work-DATE.zip")
    p.add_argument("--dir", type=Path, default=Path("."), help="the folder that holds your ember/ (default: here)")
    p.add_argument("--out", type=Path, default=None,
                   help="the file (or folder) to write (default: ember-work-DATE.zip here)")
    p = commands.add_parser("import", help="write your ember/ files from a work file or .py files, keeping "
                                           "earlier pieces aside")
    p.add_argument("files", nargs="+", type=Path, help="a work file (ember-work-….zip), or learner .py files")
    p.add_argument("--dir", type=Path, default=Path("."), help="folder to write ember/ into (default: here)")
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (0 only on success)."""
    args = parser().parse_args(argv)
    try:
        course = load_course()
        if args.command == "start":
            return start(course, args.lab, args.dir, args.ref_deps)
        if args.command == "check":
            return check_files(course, args.lab, args.file)
        if args.command == "lessons":
            return list_lessons(course)
        if args.command == "tests":
            return list_claims(course, args.lab)
        if args.command == "diff":
            return diff(course, args.lab, args.file)
        if args.command == "export":
            return export_work(course, args.dir, args.out, date.today())
        if args.command == "import":
            return import_work(course, args.files, args.dir)
        return hints(course, args.lab)
    except (UsageError, CourseError, GapSyntaxError, WorkFileError) as error:
        _say(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file that could not be written: it is as it was (see write_atomic)
        where = f" {_path(error.filename)}" if error.filename else ""
        _say(f"error: cannot write{where}: {error.strerror or error}. That file is as it was", file=sys.stderr)
        return 2
