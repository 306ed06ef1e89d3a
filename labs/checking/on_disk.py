"""Check a lesson against the learner's files on disk, and print the report: the command line's ``check`` and the
notebook kernel's ``%check`` both do it this way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labs.checking.earlier import EarlierFault
from labs.checking.files import PATH_LIMIT, ReadRefused, over, read_or_refuse, shown, size_text
from labs.checking.pipeline import LOAD_HINT_CLI, Report, check_lesson
from labs.course.model import Course, Lesson

MAX_INPUT_BYTES = 4 * 1024 * 1024  # a learner file read from disk (as labs/work/work_file.py's)

# How a front end offers the finished piece of an earlier gap at fault: (lab, fault) -> one sentence.
TakeFinished = Callable[[str, EarlierFault], str]


class UsageError(Exception):
    """Something the learner asked for cannot be done; the message says why."""


def read_text(path: Path) -> str:
    """A learner file's text (line ends as Python reads them), read no further than its limit."""
    name = shown(path, PATH_LIMIT)
    try:
        data = read_or_refuse(path, MAX_INPUT_BYTES, name, " (write one with `python -m labs start L01`)")
    except ReadRefused as error:
        raise UsageError(str(error)) from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{name} is {over(len(data), MAX_INPUT_BYTES)}; a learner file has at most "
                         f"{size_text(MAX_INPUT_BYTES)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{name} is not a UTF-8 text file") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def terminal_offer(path: Path) -> TakeFinished:
    """The terminal's offer of a finished piece for files checked through ``path``: `start` again with
    ``--ref-deps GAP`` (for files in an ember/ folder), else `diff`, which shows it."""

    def offer(lab: str, fault: EarlierFault) -> str:
        if path.parent.name != "ember":
            return (f"`python -m labs diff {fault.lesson} --file {shown(path, PATH_LIMIT)}` shows the finished piece "
                    "beside yours.")
        folder = path.parent.parent
        where = "" if folder.resolve() == Path.cwd().resolve() else f" --dir {shown(folder, PATH_LIMIT)}"
        return (f"To take the finished piece instead (your file is copied aside first): "
                f"python -m labs start {lab}{where} --ref-deps {fault.gap}")

    return offer


def print_earlier(fault: EarlierFault, lab: str, offer: TakeFinished) -> None:
    """The note on an earlier lesson's piece at fault, printed before the claims."""
    print(f"  ! {fault.summary}")
    print(f"    {fault.message}")
    print(f"    {offer(lab, fault)}")


def print_report(report: Report, lesson: Lesson, offer: TakeFinished | None = None) -> None:
    print(f"{lesson.id} · {lesson.title}")
    if report.earlier:
        print_earlier(report.earlier, lesson.id, offer or terminal_offer(Path("ember") / "scalar.py"))
    if report.problem:
        print(f"  {report.problem.message}")
    for result in report.results:
        mark = "pass" if result.passed else "FAIL"
        print(f"  [{mark}] {result.name}")
        if not result.passed and (report.problem is None or result.message != report.problem.message):
            print(f"         {result.message}")
    passed = sum(result.passed for result in report.results)
    print(f"  {passed} of {len(report.results)} claims hold.")


def check_files(course: Course, which: str, path: Path, offer: TakeFinished | None = None) -> int:
    """Check one lesson (or all of them, in order) against the Value in ``path``; ``offer`` says how to take a
    finished piece (by default, the terminal's command)."""
    lessons = list(course.lessons.values()) if which.lower() == "all" else [course.lesson(which)]
    sources, paths = sources_beside(course, path)
    offer = offer or terminal_offer(path)
    verdict = 0
    for lesson in lessons:
        report = check_lesson(lesson.id, sources, paths, course=course, load_hint=LOAD_HINT_CLI)
        print_report(report, lesson, offer)
        verdict |= 0 if report.passed else 1
    return verdict


def sources_beside(course: Course, path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The learner's files for a check: ``path`` and every learner file beside it (sources, shown paths).

    A file whose name is not one of the course's files stands for ember/scalar.py (any file with a Value).
    """
    role = path.name if path.name in course.reference else "scalar.py"
    sources, paths = {role: read_text(path)}, {role: str(path)}
    for name in course.reference:
        beside = path.parent / name
        if name not in sources and beside.exists():
            sources[name], paths[name] = read_text(beside), str(beside)
    return sources, paths
