"""The one check pipeline, shared by the command line and the browser.

starter still present -> syntax -> import in a fresh namespace -> each claim
under a time limit. Whatever stops it, the answer has one shape: one result per
claim of the lesson, each with a name, a verdict and a message.
"""

from __future__ import annotations

import itertools
import sys
import traceback
import types
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from .claimkit import Env, Fail
from .course import Claim, Course, Lesson, load_course
from .gaps import Gap, GapSyntaxError, find_gaps, gap_at_line
from .learner import starter_gaps
from .timelimit import TimeLimitExceeded, shallow_recursion, time_limit

DEFAULT_NAMES = {"scalar.py": "ember/scalar.py", "nn.py": "ember/nn.py"}
IMPORT_SECONDS = 5.0
_fresh_ids = itertools.count()


@dataclass
class ClaimResult:
    """The verdict on one claim."""

    claim: str  # 'L10.trap_graph'
    name: str
    passed: bool
    message: str
    reason: str  # 'pass', a message key of the claim, or 'starter', 'syntax', 'import', 'error', 'timeout'


@dataclass
class Report:
    """A lesson's verdict: one result per claim, and the problem that stopped the run early, if any."""

    lesson: str
    results: list[ClaimResult]
    problem: str | None = None
    location: dict | None = field(default=None)  # {'file', 'line', 'gap', 'gap_line'} of a syntax/import error

    @property
    def passed(self) -> bool:
        """True when every claim holds."""
        return self.problem is None and all(result.passed for result in self.results)

    def to_dict(self) -> dict:
        """A plain dict (JSON-ready) of the whole report."""
        return {**asdict(self), "passed": self.passed}


@dataclass(frozen=True)
class LearnerFile:
    """One of the learner's module files: its name in the package, shown path and source."""

    module: str  # 'scalar' or 'nn'
    path: str  # the name tracebacks and messages use
    source: str

    @property
    def gaps(self) -> list[Gap]:
        """The gaps marked in this file (none for a file without markers)."""
        try:
            return find_gaps(self.source)
        except GapSyntaxError:
            return []


def where(files: list[LearnerFile], path: str, line: int) -> dict:
    """Describe a file line for a learner: which gap holds it, and its line within the gap."""
    for item in files:
        if item.path == path:
            gap = gap_at_line(item.gaps, line)
            if gap is not None:
                return {"file": path, "line": line, "gap": gap.id, "gap_line": line - gap.open_line}
            return {"file": path, "line": line, "gap": None, "gap_line": None}
    return {"file": path, "line": line, "gap": None, "gap_line": None}


def describe_place(place: dict) -> str:
    """'line 3 of gap L10.backward' or 'line 120 of ember/scalar.py (outside the gaps)'."""
    if place["gap"]:
        return f"line {place['gap_line']} of gap {place['gap']}"
    return f"line {place['line']} of {place['file']}"


def learner_place(exc: BaseException, files: list[LearnerFile]) -> dict | None:
    paths = {item.path for item in files}
    place = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in paths and frame.lineno is not None:
            place = where(files, frame.filename, frame.lineno)
    return place


def describe_error(exc: BaseException, files: list[LearnerFile]) -> tuple[str, str, dict | None]:
    """A short learner-facing (reason, message) for an exception raised by the learner's code, and its place."""
    place = learner_place(exc, files)
    at = f" (at {describe_place(place)})" if place else ""
    if isinstance(exc, TimeLimitExceeded):
        return "timeout", f"Stopped{at}: it was {exc}. Is there a loop that never ends?", place
    if isinstance(exc, NotImplementedError):
        text = str(exc)
        if place and place["gap"] and text.startswith(f"{place['gap']}: "):
            text = text[len(place["gap"]) + 2:]  # the starter's hint repeats the gap's id
        return "error", f"Not written yet{at}: {text}", place
    if isinstance(exc, RecursionError):
        return "error", f"RecursionError{at}: the code called itself deeper than Python allows.", place
    text = str(exc)
    return "error", f"{type(exc).__name__}{at}" + (f": {text}" if text else ""), place


def _install(files: list[LearnerFile]) -> Iterator[Env]:
    """Import the learner's files as a fresh package; remove it from sys.modules afterwards."""
    package = f"_ember_learner_{next(_fresh_ids)}"
    root = types.ModuleType(package)
    root.__path__ = []
    names = [package]
    sys.modules[package] = root
    modules: dict[str, types.ModuleType] = {}
    try:
        for item in files:
            name = f"{package}.{item.module}"
            module = types.ModuleType(name)
            module.__file__ = item.path
            module.__package__ = package
            sys.modules[name] = module
            names.append(name)
            code = compile(item.source, item.path, "exec")
            exec(code, module.__dict__)
            setattr(root, item.module, module)
            modules[item.module] = module
        yield Env(scalar=modules["scalar"], nn=modules.get("nn"))
    finally:
        for name in names:
            sys.modules.pop(name, None)


def _starter_results(course: Course, lesson: Lesson, files: list[LearnerFile]) -> dict[str, ClaimResult]:
    """Claims that cannot run because a gap they need still holds its starter."""
    starter_regions = set()
    for item in files:
        starter_regions |= {course.regions[gap_id].final_id for gap_id in starter_gaps(course, item.source)}
    blocked: dict[str, ClaimResult] = {}
    for claim in lesson.claims:
        for gap_id in lesson.needed_gaps(claim):
            if course.regions[gap_id].final_id not in starter_regions:
                continue
            if gap_id.startswith(lesson.id + "."):
                message = f"Write gap {gap_id} first: it still holds its starter."
            else:
                message = (f"This check needs gap {gap_id} from an earlier lesson, which still holds its "
                           "starter: write it there, or load the finished pieces of earlier lessons.")
            blocked[claim.key] = ClaimResult(claim.key, claim.name, False, message, "starter")
            break
    return blocked


def _missing_nn(course: Course, lesson: Lesson, claim: Claim) -> bool:
    return any(course.gaps[gap_id].file == "nn.py" for gap_id in lesson.needed_gaps(claim))


def run_claim(claim: Claim, env: Env, course: Course, files: list[LearnerFile]) -> ClaimResult:
    """Run one claim's check function against the learner's modules."""
    function = course.functions[(claim.lesson, claim.id)]
    watched = frozenset(item.path for item in files)
    try:
        with time_limit(claim.seconds, watched), shallow_recursion():
            function(env)
    except Fail as failure:
        return ClaimResult(claim.key, claim.name, False, claim.message(failure.key, failure.values), failure.key)
    except Exception as exc:
        reason, message, _ = describe_error(exc, files)
        return ClaimResult(claim.key, claim.name, False, message, reason)
    return ClaimResult(claim.key, claim.name, True, "", "pass")


def check_lesson(
    lesson_id: str,
    sources: dict[str, str],
    paths: dict[str, str] | None = None,
    detect_starters: bool = True,
    course: Course | None = None,
) -> Report:
    """Run the whole pipeline for one lesson on the learner's sources ('scalar.py', optional 'nn.py')."""
    course = course or load_course()
    lesson = course.lesson(lesson_id)
    paths = {**DEFAULT_NAMES, **(paths or {})}
    files = [
        LearnerFile(name.removesuffix(".py"), paths[name], sources[name])
        for name in ("scalar.py", "nn.py") if name in sources
    ]
    blocked = _starter_results(course, lesson, files) if detect_starters else {}

    for item in files:
        try:
            compile(item.source, item.path, "exec")
        except SyntaxError as error:
            place = where(files, item.path, error.lineno or 0)
            message = f"Syntax error at {describe_place(place)}: {error.msg}"
            return Report(lesson.id, _merge(lesson, blocked, "syntax", message), message, place)

    loader = _install(files)
    try:
        with time_limit(IMPORT_SECONDS, frozenset(item.path for item in files)):
            env = next(loader)
    except Exception as exc:
        _, text, place = describe_error(exc, files)
        message = f"Importing your module failed: {text}"
        return Report(lesson.id, _merge(lesson, blocked, "import", message), message, place)
    try:
        results: list[ClaimResult] = []
        for claim in lesson.claims:
            if results and results[-1].reason == "timeout":
                results.append(ClaimResult(claim.key, claim.name, False,
                                           "Not run: the check before it had to be stopped.", "timeout"))
            elif claim.key in blocked:
                results.append(blocked[claim.key])
            elif env.nn is None and _missing_nn(course, lesson, claim):
                results.append(ClaimResult(claim.key, claim.name, False,
                                           "This check needs ember/nn.py beside your scalar.py.", "missing"))
            else:
                results.append(run_claim(claim, env, course, files))
        return Report(lesson.id, results)
    finally:
        loader.close()


def _merge(lesson: Lesson, blocked: dict[str, ClaimResult], reason: str, message: str) -> list[ClaimResult]:
    return [blocked.get(claim.key) or ClaimResult(claim.key, claim.name, False, message, reason)
            for claim in lesson.claims]
