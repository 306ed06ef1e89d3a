"""Earlier lessons' pieces a lab runs on, judged by their own lessons' claims.

When a lab's claims fail, the fault may lie in a piece written in an earlier lesson (lesson 10's
``backward()`` calling lesson 06's ``toposort``). Before the lab's own messages, the learner is
told so: :func:`first_fault` finds the first earlier lesson whose own claims fail on the pieces
this lab runs on, and the report carries it as an :class:`EarlierFault`.

Which pieces: the gaps the lab ``needs``, and the earlier gaps of any learner file that the
lab's own gaps (or those pieces) import; only the ones the learner wrote differently from the
finished piece (a finished piece only fails through another piece, found on its own).
Which claims: those of the pieces' lessons that judge them, in lesson order, run on the files as
this lab has them but with the lab's own gaps as they were before it; the search stops at the
first that fails. That verdict depends only on the text of those files, not on what the learner
types in this lab, so it is kept, keyed by that text, for the rest of the session (the page's
Python): checks run again while the learner works on the lab cost nothing more.
It runs only when a claim of the lab fails: a lab that passes costs nothing.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from dataclasses import asdict, dataclass

from labs.checking.learner import PACKAGE
from labs.checking.problems import LearnerFile
from labs.course.gaps import Fill, Gap, fill, lesson_of, same_piece
from labs.course.model import Claim, Course, Lesson, lesson_number

# The kinds of problem that keep a claim from judging a piece, rather than show a fault in it.
NOT_JUDGED = frozenset({
    "starter", "not_written", "skipped", "missing_file", "syntax", "import", "marker", "markers", "stopped",
})
_CACHE_SIZE = 64


@dataclass(frozen=True)
class EarlierFault:
    """An earlier lesson's claim that fails on a piece this lab runs on: which lesson, gap, file and claim."""

    lesson: str  # 'L06'
    title: str  # the lesson's title
    gap: str  # 'L06.toposort'
    file: str  # 'ember/graph.py'
    claim: str  # 'L06.diamond'
    claim_name: str
    message: str  # the claim's own failure message
    summary: str  # one sentence for the learner, shown first

    def to_dict(self) -> dict[str, str]:
        """Plain data (JSON-ready)."""
        return asdict(self)


# (the claims' keys, the built files' paths and sources) -> the first earlier claim that fails, or None
_verdicts: dict[tuple, EarlierFault | None] = {}

RunClaims = Callable[[list[LearnerFile], tuple[Claim, ...]], list]


def _imported_modules(text: str) -> set[str]:
    """The learner modules a gap's code imports (``from ember.graph import``, ``from .graph import``, ...)."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith(PACKAGE + ".")}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 and module:
                found.add(module.split(".")[0])
            elif node.level == 1 or module == PACKAGE:
                found |= {alias.name for alias in node.names}
            elif module.startswith(PACKAGE + "."):
                found.add(module.split(".")[1])
    return found


def _earlier_gaps(course: Course, lesson: Lesson, files: list[LearnerFile]) -> dict[str, tuple[Gap, LearnerFile]]:
    """Every gap of the learner's files from a lesson before this one, by the id its marker shows."""
    return {
        gap.id: (gap, item) for item in files for gap in item.gaps
        if gap.id in course.gaps and lesson_number(gap.id) < lesson.number
    }


def pieces_to_judge(course: Course, lesson: Lesson, files: list[LearnerFile]) -> list[str]:
    """The earlier gaps this lab runs on that hold the learner's own code, in lesson order."""
    earlier = _earlier_gaps(course, lesson, files)
    needed = {course.regions[gap_id].final_id for gap_id in lesson.needs if gap_id in course.regions}
    chosen = {gap_id for gap_id in earlier if course.regions[gap_id].final_id in needed}
    by_module: dict[str, list[str]] = {}
    for gap_id, (_, item) in earlier.items():
        by_module.setdefault(item.module, []).append(gap_id)
    read: set[str] = set()
    to_read = [gap.text for item in files for gap in item.gaps if gap.id in lesson.gaps]
    to_read += [earlier[gap_id][0].text for gap_id in chosen]
    while to_read:
        for module in _imported_modules(to_read.pop()) - read:
            read.add(module)
            for gap_id in by_module.get(module, ()):
                if gap_id not in chosen:
                    chosen.add(gap_id)
                    to_read.append(earlier[gap_id][0].text)
    own = [gap_id for gap_id in chosen if _written_own(course, earlier[gap_id][0])]
    return sorted(own, key=lambda gap_id: (lesson_number(gap_id), gap_id))


def _written_own(course: Course, gap: Gap) -> bool:
    """True when a gap holds neither its starter nor its finished piece."""
    region = course.regions[gap.id]
    return not same_piece(gap.body, region.starter) and not same_piece(gap.body, course.gaps[gap.id].finished)


def files_without_lab(course: Course, lesson: Lesson, files: list[LearnerFile]) -> list[LearnerFile]:
    """The learner's files with this lab's own gaps as they were before it: a gap that reopens an earlier one
    holds that one's finished piece, any other its starter. Earlier lessons' claims run on these."""
    built = []
    for item in files:
        before = {}
        for gap in item.gaps:
            if gap.id in lesson.gaps:
                stages = course.regions[gap.id].stages
                earlier = [stage for stage in stages if stage.number < lesson.number]
                before[gap.id] = Fill(gap.id, earlier[-1].finished if earlier else stages[0].starter or "")
        if not before:
            built.append(item)
            continue
        done = fill(item.source, before)
        built.append(LearnerFile(item.module, item.path, done.source, tuple(done.gaps)))
    return built


def _summary(lesson: Lesson, gap: str, file: str, claim: Claim) -> str:
    number = f"{lesson.number:02d}"
    return (f"This lab runs on your gap {gap} from lesson {number} ({file}), which fails lesson {number}'s own check "
            f"\"{claim.name}\": the failures below may come from there.")


def _fault(course: Course, claim: Claim, message: str, pieces: list[str]) -> EarlierFault:
    """The fault record for an earlier lesson's claim that failed, naming the first of its gaps it judges."""
    earlier = course.lesson(claim.lesson)
    gap = next(gap_id for gap_id in claim.uses if gap_id in pieces)
    file = f"ember/{course.gaps[gap].file}"
    return EarlierFault(earlier.id, earlier.title, gap, file, claim.key, claim.name, message,
                        _summary(earlier, gap, file, claim))


def first_fault(course: Course, lesson: Lesson, files: list[LearnerFile], run_claims: RunClaims) -> EarlierFault | None:
    """The first claim of an earlier lesson that fails on the earlier pieces this lab runs on, if any.

    ``run_claims(files, claims)`` runs claims in order as the pipeline does, stopping after the first that fails
    on the learner's code, and answers their results.
    """
    pieces = pieces_to_judge(course, lesson, files)
    claims = tuple(
        claim for lesson_id in sorted({lesson_of(gap_id) for gap_id in pieces}, key=lesson_number)
        for claim in course.lesson(lesson_id).claims if set(claim.uses) & set(pieces)
    )
    if not claims:
        return None
    built = files_without_lab(course, lesson, files)
    key = (tuple(claim.key for claim in claims), tuple((item.path, item.source) for item in built))
    if key not in _verdicts:
        _verdicts[key] = _judge(course, built, claims, pieces, run_claims)
        while len(_verdicts) > _CACHE_SIZE:
            del _verdicts[next(iter(_verdicts))]
    return _verdicts[key]


def _judge(course: Course, built: list[LearnerFile], claims: tuple[Claim, ...], pieces: list[str],
           run_claims: RunClaims) -> EarlierFault | None:
    """Run earlier lessons' claims on the files; the first that fails by a fault of the learner's code, if any."""
    for claim, result in zip(claims, run_claims(built, claims)):
        if result.passed:
            continue
        problem = result.problem
        if problem is not None and problem.kind in NOT_JUDGED:
            continue
        return _fault(course, claim, result.message, pieces)
    return None


def forget_verdicts() -> None:
    """Forget the verdicts kept this session (for tests)."""
    _verdicts.clear()
