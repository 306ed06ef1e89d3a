"""The one check pipeline, shared by the command line and the browser.

starter still present -> syntax -> import in a fresh namespace -> each claim
under a time limit. Whatever stops it, the answer has one shape: one result per
claim of the lesson, each with a name, a verdict and a message.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass
from importlib.machinery import ModuleSpec

from labs.checking.claimkit import Env, Fail
from labs.checking.earlier import NOT_JUDGED, EarlierFault, first_fault
from labs.checking.learner import PACKAGE, forget_ember, starter_gaps
from labs.checking.problems import LearnerFile, Problem, describe_error, where
from labs.checking.timelimit import shallow_recursion, time_limit
from labs.course.gaps import GapSyntaxError, find_gaps
from labs.course.model import Claim, Course, Lesson, load_course

IMPORT_SECONDS = 5.0


@dataclass
class ClaimResult:
    """The verdict on one claim: passed, failed with one of its messages, or blocked by a problem."""

    claim: str  # 'L10.trap_graph'
    name: str
    passed: bool
    message: str
    key: str | None = None  # the claim's message key, when the claim itself failed
    problem: Problem | None = None  # what kept the claim from holding, when it is not the claim's own failure


@dataclass
class Report:
    """A lesson's verdict: one result per claim, the problem that stopped the run early, and the first earlier
    lesson whose own claims fail on the pieces this lab runs on (each None when there is none)."""

    lesson: str
    results: list[ClaimResult]
    problem: Problem | None = None
    earlier: EarlierFault | None = None  # an earlier lesson's claim failing on a piece this lab runs on

    @property
    def passed(self) -> bool:
        """True when every claim holds."""
        return self.problem is None and all(result.passed for result in self.results)

    def to_dict(self) -> dict:
        """A plain dict (JSON-ready) of the whole report."""
        return {**asdict(self), "passed": self.passed}


def learner_files(course: Course, sources: dict[str, str], paths: dict[str, str] | None = None) -> list[LearnerFile]:
    """The learner's files from their sources (in the course's order), with the gaps their markers show.

    A file whose markers are broken is still checked, only without gap places. ``paths`` names the
    files in messages; a file not named there is 'ember/<name>'.
    """
    paths = paths or {}
    files = []
    for name in course.reference:
        if name in sources:
            try:
                gaps = tuple(find_gaps(sources[name]))
            except GapSyntaxError:
                gaps = ()
            files.append(LearnerFile(name.removesuffix(".py"), paths.get(name, f"ember/{name}"), sources[name], gaps))
    return files


class _LearnerFiles(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``import ember.X`` (or ``from .X import ...``) with the learner's own file X, in any order.

    Only the learner's files are found under ``ember`` while it is installed: a file they do not
    have is a ModuleNotFoundError, never the course's finished copy.
    """

    def __init__(self, files: list[LearnerFile], compiled: dict[str, types.CodeType]) -> None:
        self.files = {item.module: item for item in files}
        self.compiled = compiled  # each file's code, compiled once by the syntax check before

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != PACKAGE or name not in self.files:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=self.files[name].path)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        item = self.files[module.__name__.partition(".")[2]]
        module.__file__ = item.path
        exec(self.compiled[item.path], module.__dict__)


def _install(files: list[LearnerFile], compiled: dict[str, types.CodeType],
             names: frozenset[str]) -> Generator[Env, None, None]:
    """Import the learner's files as the package ``ember``, for as long as the checks run.

    Whatever ``ember`` modules were imported before (the page's cells, the course's own) are set
    aside and put back afterwards, so a check sees only the learner's files and leaves nothing behind.
    """
    aside = forget_ember()
    root = types.ModuleType(PACKAGE, "The learner's files, as the checks import them.")
    root.__path__ = []
    root.__package__ = PACKAGE
    sys.modules[PACKAGE] = root
    finder = _LearnerFiles(files, compiled)
    sys.meta_path.insert(0, finder)
    try:
        modules = {item.module: importlib.import_module(f"{PACKAGE}.{item.module}") for item in files}
        yield Env(modules, names, {item.module: item.source for item in files})
    finally:
        sys.meta_path.remove(finder)
        forget_ember()
        sys.modules.update(aside)


def _blocked(claim: Claim, problem: Problem) -> ClaimResult:
    return ClaimResult(claim.key, claim.name, False, problem.message, None, problem)


def _starter_results(
    course: Course, claims: tuple[Claim, ...], files: list[LearnerFile], load_hint: str
) -> dict[str, ClaimResult]:
    """Claims that cannot run because a gap they need still holds its starter."""
    starter_regions = set()
    for item in files:
        starter_regions |= {course.regions[gap_id].final_id for gap_id in starter_gaps(course, item.gaps)}
    blocked: dict[str, ClaimResult] = {}
    for claim in claims:
        lesson = course.lessons[claim.lesson]
        for gap_id in lesson.needed_gaps(claim):
            if course.regions[gap_id].final_id not in starter_regions:
                continue
            if gap_id.startswith(lesson.id + "."):
                message = f"Write gap {gap_id} first: it still holds its starter."
            else:
                message = (f"This check needs gap {gap_id} from an earlier lesson, which still holds its "
                           f"starter: write it there, or {load_hint.replace('LAB', lesson.id)}.")
            blocked[claim.key] = _blocked(claim, Problem("starter", message, gap_id))
            break
    return blocked


def _missing_file(course: Course, claim: Claim, files: list[LearnerFile]) -> str | None:
    """The first learner file a claim needs that is not among ``files``, if any."""
    present = {item.module for item in files}
    for gap_id in course.lessons[claim.lesson].needed_gaps(claim):
        name = course.gaps[gap_id].file
        if name.removesuffix(".py") not in present:
            return name
    return None


def run_claim(claim: Claim, env: Env, course: Course, files: list[LearnerFile]) -> ClaimResult:
    """Run one claim's check function against the learner's modules."""
    function = course.check_function(claim)
    watched = frozenset(item.path for item in files)
    try:
        with time_limit(claim.seconds, watched), shallow_recursion():
            function(env)
    except Fail as failure:
        return ClaimResult(claim.key, claim.name, False, claim.message(failure.key, failure.values), failure.key)
    except (Exception, SystemExit) as exc:  # exit() in the learner's code ends the check, not Python
        return _blocked(claim, describe_error(exc, files))
    return ClaimResult(claim.key, claim.name, True, "")


LOAD_HINT_PAGE = "load the finished pieces of earlier lessons"
LOAD_HINT_CLI = "start the lab again with `python -m labs start LAB --ref-deps` to fill it with the finished piece"


def check_lesson(
    lesson_id: str,
    sources: dict[str, str],
    paths: dict[str, str] | None = None,
    detect_starters: bool = True,
    course: Course | None = None,
    load_hint: str = LOAD_HINT_PAGE,
) -> Report:
    """Run the whole pipeline for one lesson on the learner's sources ({'scalar.py': ..., 'nn.py': ...})."""
    course = course or load_course()
    return check_files(lesson_id, learner_files(course, sources, paths), detect_starters, course, load_hint)


def check_files(
    lesson_id: str,
    files: list[LearnerFile],
    detect_starters: bool = True,
    course: Course | None = None,
    load_hint: str = LOAD_HINT_PAGE,
) -> Report:
    """Run the pipeline for one lesson on learner files whose gaps are already known.

    When a claim fails on the learner's code, the report also names the first earlier lesson whose own
    claims fail on the pieces this lab runs on (labs/checking/earlier.py), if there is one.
    """
    course = course or load_course()
    lesson = course.lesson(lesson_id)
    report = run_claims(course, lesson, files, lesson.claims, detect_starters, load_hint)
    if report.problem is None and any(_judged_and_failed(result) for result in report.results):
        report.earlier = first_fault(course, lesson, files, lambda built, claims: run_claims(
            course, lesson, built, claims, until=_judged_and_failed).results)
    return report


def _judged_and_failed(result: ClaimResult) -> bool:
    """True when a claim ran on the learner's code and did not hold (not when it could not run at all)."""
    return not result.passed and (result.problem is None or result.problem.kind not in NOT_JUDGED)


def run_claims(
    course: Course,
    lesson: Lesson,
    files: list[LearnerFile],
    claims: tuple[Claim, ...],
    detect_starters: bool = True,
    load_hint: str = LOAD_HINT_PAGE,
    until: Callable[[ClaimResult], bool] | None = None,
) -> Report:
    """Run claims (of ``lesson``, or of earlier ones) on learner files, in order; stop after the first result
    ``until`` picks. The report is ``lesson``'s."""
    blocked = _starter_results(course, claims, files, load_hint) if detect_starters else {}

    compiled = {}
    for item in files:
        try:
            compiled[item.path] = compile(item.source, item.path, "exec")
        except SyntaxError as error:
            place = where(files, item.path, error.lineno or 0)
            problem = Problem("syntax", f"Syntax error at {place.describe()}: {error.msg}", place.gap, place)
            return stopped_early(lesson, problem, blocked, claims)

    loader = _install(files, compiled, frozenset(name.removesuffix(".py") for name in course.reference))
    try:
        with time_limit(IMPORT_SECONDS, frozenset(item.path for item in files)):
            env = next(loader)
    except (Exception, SystemExit) as exc:
        cause = describe_error(exc, files)
        problem = Problem("import", f"Importing your module failed: {cause.message}", cause.gap, cause.place)
        return stopped_early(lesson, problem, blocked, claims)
    try:
        results: list[ClaimResult] = []
        for claim in claims:
            last = results[-1].problem if results else None
            if last is not None and last.kind in ("timeout", "skipped"):
                results.append(_blocked(claim, Problem("skipped", "Not run: the check before it had to be stopped.")))
            elif claim.key in blocked:
                results.append(blocked[claim.key])
            elif missing := _missing_file(course, claim, files):
                beside = f" beside your {files[0].path.rsplit('/', 1)[-1]}" if files else ""
                results.append(_blocked(claim, Problem("missing_file", f"This check needs ember/{missing}{beside}.")))
            else:
                results.append(run_claim(claim, env, course, files))
            if until is not None and until(results[-1]):
                break
        return Report(lesson.id, results)
    finally:
        loader.close()


def stopped_early(lesson: Lesson, problem: Problem, blocked: dict[str, ClaimResult] | None = None,
                  claims: tuple[Claim, ...] | None = None) -> Report:
    """A report for a run that stopped before the claims: every claim not blocked otherwise gets the problem."""
    blocked = blocked or {}
    results = [blocked.get(claim.key) or _blocked(claim, problem) for claim in (claims or lesson.claims)]
    return Report(lesson.id, results, problem)
