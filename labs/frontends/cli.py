"""``python -m labs``: start a lab, check it, list its claims, compare with the finished pieces."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

from labs.checking.learner import INIT_SOURCE, Work, earlier_finished, module_sources, read_pieces
from labs.checking.on_disk import UsageError, check_files, learner_sources, read_text
from labs.course.gaps import GapSyntaxError, find_gaps
from labs.course.model import REFERENCE_DIR, Course, CourseError, lesson_number, load_course

WORKING_COPY = Path("ember") / "scalar.py"


def _is_reference(path: Path) -> bool:
    return path.resolve().parent == REFERENCE_DIR


def _existing_pieces(course: Course, folder: Path) -> dict[str, str]:
    pieces: dict[str, str] = {}
    for name in course.reference:
        path = folder / name
        if path.exists():
            try:
                pieces |= read_pieces(course, read_text(path))
            except GapSyntaxError as error:
                raise UsageError(
                    f"{path}: the gap markers are broken ({error}); fix them or move the file away"
                ) from None
    return pieces


def _back_up_if_losing(course: Course, path: Path, kept: dict[str, str]) -> None:
    """Copy ``path`` aside when the new files would drop a piece it holds (e.g. going back a lesson).

    ``kept`` holds every piece of the new files, whichever file holds it: a piece whose gap has moved to
    another file is not lost.
    """
    old = read_pieces(course, read_text(path))
    if all(kept.get(gap_id) == body for gap_id, body in old.items()):
        return
    number = 1
    while (backup := path.with_name(f"{path.name}.{number}.bak")).exists():
        number += 1
    backup.write_text(read_text(path), encoding="utf-8")
    print(f"Some of your pieces in {path} belong to later lessons; the whole file is kept as {backup}.")


def start(course: Course, lab: str, folder: Path, finished_earlier: bool) -> int:
    """Write the learner's modules into ``folder/ember`` as lab ``lab`` starts."""
    lesson = course.lesson(lab)
    target = folder / "ember"
    if any(_is_reference(target / name) for name in course.reference):
        raise UsageError("that folder holds the course's finished engine; choose another with --dir")
    pieces = _existing_pieces(course, target)
    target.mkdir(parents=True, exist_ok=True)
    init = target / "__init__.py"
    if not init.exists():
        init.write_text(INIT_SOURCE, encoding="utf-8")
    filled: dict[str, str] = {}
    if finished_earlier:
        filled = earlier_finished(course, lesson.id, Work(pieces)).missing
    sources = module_sources(course, lesson.id, pieces | filled)
    kept: dict[str, str] = {}
    for source in sources.values():
        kept |= read_pieces(course, source)
    for name, source in sources.items():
        path = target / name
        if path.exists():
            _back_up_if_losing(course, path, kept)
        path.write_text(source, encoding="utf-8")
    kept = sorted(gap for gap in pieces if lesson_number(gap) < lesson.number)
    names = ", ".join(str(target / name) for name in course.reference)
    print(f"Wrote {names} as lab {lesson.id} starts: {lesson.title}.")
    print(f"Your gaps in this lab: {', '.join(lesson.gaps)}.")
    if kept:
        print(f"Kept {len(kept)} of your pieces from earlier lessons.")
    if filled:
        print(f"{len(filled)} earlier gaps you had not written now hold the finished pieces.")
    print(f"When you are ready: python -m labs check {lesson.id}")
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
    sources, _ = learner_sources(course, path)
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
    p.add_argument("--ref-deps", action="store_true",
                   help="fill earlier gaps you have not written with finished pieces")
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
        return hints(course, args.lab)
    except (UsageError, CourseError, GapSyntaxError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
