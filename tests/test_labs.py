"""The course data, the learner's modules and the check pipeline."""

from __future__ import annotations

import re
import shutil
import textwrap
import tomllib
from pathlib import Path

import pytest

from labs.checking.learner import finished_pieces, module_sources, read_pieces
from labs.checking.oracle import names_shape
from labs.checking.pipeline import ClaimResult, check_lesson
from labs.checking.problems import Problem
from labs.course.gaps import GapSyntaxError, fill_gaps, find_gaps
from labs.course.model import LESSONS_DIR, REFERENCE_DIR, TABLES_FILE, CourseError, load_course, parsed_tables
from tests.known_wrong import MUTANTS, Mutant, breaks_a_timed_lab, mutant_sources

COURSE = load_course()
LESSONS = list(COURSE.lessons)


def reference_sources() -> dict[str, str]:
    return dict(COURSE.reference)


# --- gap markers -----------------------------------------------------------------------------

def test_gaps_are_found_with_their_bodies_dedented() -> None:
    source = "class A:\n    # --- gap L10.x ---\n    def f(self):\n        return 1\n    # --- end gap ---\n"
    (gap,) = find_gaps(source)
    assert gap.id == "L10.x"
    assert gap.indent == "    "
    assert gap.body == "def f(self):\n    return 1\n"
    assert (gap.open_line, gap.close_line) == (2, 5)


def test_fill_gaps_reindents_and_renames() -> None:
    source = "class A:\n    # --- gap L08.x ---\n    pass\n    # --- end gap ---\n"
    filled = fill_gaps(source, {"L08.x": ("L09.x", "def g(self):\n    return 2\n")})
    assert filled == "class A:\n    # --- gap L09.x ---\n    def g(self):\n        return 2\n    # --- end gap ---\n"


@pytest.mark.parametrize("source, problem", [
    ("# --- gap L10.a ---\n# --- gap L10.b ---\n# --- end gap ---\n", "before the gap on line 1 is closed"),
    ("x = 1\n# --- end gap ---\n", "with no open gap"),
    ("# --- gap L10.a ---\nx = 1\n", "never closed"),
    ("# --- gap L10.a ---\n# --- end gap ---\n# --- gap L10.a ---\n# --- end gap ---\n", "appears twice"),
])
def test_broken_markers_are_refused(source: str, problem: str) -> None:
    with pytest.raises(GapSyntaxError, match=problem):
        find_gaps(source)


# --- the course data -------------------------------------------------------------------------

def test_every_lesson_has_a_page_and_the_lessons_are_numbered_without_holes() -> None:
    from labs.course.pages import lesson_page_files

    assert list(lesson_page_files()) == LESSONS  # the pages, in the order of their file names
    assert [f"L{number:02d}" for number in range(1, len(LESSONS) + 1)] == LESSONS


def test_every_lesson_belongs_to_its_part() -> None:
    with (LESSONS_DIR / "parts.toml").open("rb") as handle:
        firsts = [int(part["first"][1:]) for part in tomllib.load(handle)["parts"]]
    bounds = [*firsts, 100]
    assert [part.number for part in COURSE.parts] == list(range(1, len(firsts) + 1))
    for part, low, high in zip(COURSE.parts, bounds, bounds[1:], strict=False):
        assert part.lessons == tuple(lesson for lesson in LESSONS if low <= COURSE.lessons[lesson].number < high)
        assert all(COURSE.lessons[lesson].part == part.number for lesson in part.lessons)
    assert [lesson for part in COURSE.parts for lesson in part.lessons] == LESSONS


def test_every_lesson_has_gaps_claims_questions_and_hints() -> None:
    for lesson in COURSE.lessons.values():
        assert lesson.gaps, lesson.id
        assert lesson.claims, lesson.id
        assert len(lesson.questions) >= 2, lesson.id
        for gap_id in lesson.gaps:
            assert len(COURSE.gaps[gap_id].hints) >= 2
            if lesson.part == 1:  # Part I's ladders have three rungs: the idea, a pointed question, near-code
                assert len(COURSE.gaps[gap_id].hints) == 3, gap_id
        if lesson.part == 1:
            assert len(lesson.claims) >= 3, lesson.id


def test_a_reopened_gap_shares_one_region_with_its_first_form() -> None:
    region = COURSE.regions["L08.add_backward"]
    assert region is COURSE.regions["L09.add_backward"]
    assert [stage.id for stage in region.stages] == ["L08.add_backward", "L09.add_backward"]
    assert "self.grad = out.grad" in region.stages[0].finished
    assert "self.grad += out.grad" in region.stages[1].finished


def copy_course(tmp_path: Path) -> tuple[Path, Path]:
    lessons, reference = tmp_path / "lessons", tmp_path / "ember"
    shutil.copytree(LESSONS_DIR, lessons)
    shutil.copytree(REFERENCE_DIR, reference)
    return lessons, reference


def test_the_built_tables_are_read_only_for_the_toml_bytes_they_were_made_from(tmp_path: Path) -> None:
    """The page's Python reads the lessons' TOML files as the build parsed them (TABLES_FILE); a file
    changed since is parsed again."""
    lessons, reference = copy_course(tmp_path)
    (lessons / TABLES_FILE).write_text(parsed_tables(lessons))
    assert load_course(lessons, reference).lessons == COURSE.lessons
    tables = (lessons / TABLES_FILE).read_text()
    marked = tables.replace('"title": "The order of blame"', '"title": "From the tables"', 1)
    assert marked != tables
    (lessons / TABLES_FILE).write_text(marked)
    load_course.cache_clear()
    assert load_course(lessons, reference).lesson("L10").title == "From the tables"  # read, not parsed
    toml = lessons / "10-order-of-blame" / "lesson.toml"
    toml.write_text(toml.read_text().replace('title = "The order of blame"', 'title = "From the TOML"', 1))
    load_course.cache_clear()
    assert load_course(lessons, reference).lesson("L10").title == "From the TOML"  # changed since: parsed


L10, L09 = "10-order-of-blame/lesson.toml", "09-many-paths-one-sum/lesson.toml"


@pytest.mark.parametrize("edit, problem", [
    ((L10, 'uses = ["L10.backward"]', 'uses = ["L10.nothing"]'), "uses unknown gap L10.nothing"),
    ((L10, 'uses = ["L10.backward"]', 'uses = ["L11.exp"]'), "a gap of a later lesson"),
    ((L10, "wrong = \"After y.backward()", "right = \"After y.backward()"), None),
    ((L10, 'id = "trap_graph"', 'id = "trap_graph_renamed"'), "has no check function"),
    ((L10, 'answer = "four"', 'answer = "five"'), "is not one of its options"),
    ((L10, "revealed_by = ['breadth_first_backward(c)']", "revealed_by = 'breadth_first_backward(c)'"),
     "'revealed_by' must be a list"),
    ((L09, "giveaways = ['never assign']", "giveaways = ['never assign', ' ']"), "'giveaways' must be a list"),
    ((L09, 'reopens = "L08.add_backward"', 'reopens = "L08.nothing"'), "reopens unknown gap"),
    (("scalar.py", "# --- gap L10.backward ---", "# --- gap L10.backwards ---"), "which no lesson defines"),
    ((L10, 'feedback = "Two shares of 4', 'feedback = "Right. Two shares of 4'), "starts with a verdict"),
    (("parts.toml", 'first = "L07"', 'first = "L01"'), "must come after L01"),
    (("parts.toml", "number = 2", "number = 5"), "numbered 1, 2, ... in order"),
    (("parts.toml", 'first = "L01"', 'first = "L03"'), "L01 comes before the first part"),
])
def test_inconsistent_data_is_refused(tmp_path: Path, edit: tuple[str, str, str], problem: str | None) -> None:
    lessons, reference = copy_course(tmp_path)
    name, old, new = edit
    path = (reference if name.endswith(".py") else lessons) / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    if problem is None:  # a renamed message loads, but the check asking for it reports the gap in the data
        course = load_course(lessons, reference)
        with pytest.raises(CourseError, match="has no message 'wrong'"):
            course.lesson("L10").claim("seed").message("wrong", {})
        return
    with pytest.raises(CourseError, match=problem):
        load_course(lessons, reference)


def test_a_check_function_registered_from_another_lessons_module_is_refused(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The page imports a lesson's check functions from its own folder's checks.py, with its first check."""
    from labs.course.registry import REGISTRY

    def elsewhere(env: object) -> None:
        """Stands for a function of lesson 10 written in lesson 11's module."""

    elsewhere.__module__ = "labs.lessons.l11"
    load_course()  # every lesson's checks.py imported, so that its registrations are in
    monkeypatch.setitem(REGISTRY, ("L10", "trap_graph"), elsewhere)
    lessons, reference = copy_course(tmp_path)
    with pytest.raises(CourseError, match=re.escape("L10.trap_graph is in labs.lessons.l11, not in labs.lessons.l10")):
        load_course(lessons, reference)


def test_a_claim_without_messages_is_refused(tmp_path: Path) -> None:
    lessons, reference = copy_course(tmp_path)
    path = lessons / "10-order-of-blame" / "lesson.toml"
    text = path.read_text()
    start = text.index("[claims.messages]\nwrong = \"After")
    end = text.index("\n", text.index("wrong = ", start)) + 1
    path.write_text(text[:start] + text[end:])
    with pytest.raises(CourseError, match="has no failure message"):
        load_course(lessons, reference)


# --- the learner's modules -------------------------------------------------------------------

def test_a_module_as_a_lab_starts_has_earlier_pieces_this_lessons_starters_and_later_starters() -> None:
    pieces = {"L07.init": COURSE.gaps["L07.init"].finished, "L09.neg": "def __neg__(self):\n    return self * -1\n"}
    scalar = module_sources(COURSE, "L09", pieces)["scalar.py"]
    gaps = {gap.id: gap.body for gap in find_gaps(scalar)}
    assert gaps["L07.init"] == COURSE.gaps["L07.init"].finished
    assert gaps["L07.add"] == COURSE.gaps["L07.add"].starter  # never written, no finished pieces asked for
    assert gaps["L09.neg"] == pieces["L09.neg"]
    assert "L08.add_backward" not in gaps and gaps["L09.add_backward"] == COURSE.gaps["L08.add_backward"].starter
    assert gaps["L10.backward"] == COURSE.gaps["L10.backward"].starter


def test_a_reopened_gap_starts_from_the_learners_earlier_piece() -> None:
    mine = "def _backward() -> None:\n    self.grad = out.grad  # mine\n    other.grad = out.grad\n"
    mine += "out._backward = _backward\n"

    def gaps_at(lab: str) -> dict[str, str]:
        scalar = module_sources(COURSE, lab, {"L08.add_backward": mine})["scalar.py"]
        return {gap.id: gap.body for gap in find_gaps(scalar)}

    at_08, at_09 = gaps_at("L08"), gaps_at("L09")
    assert at_08["L08.add_backward"] == mine
    assert at_09["L09.add_backward"] == mine


def test_finished_earlier_pieces_fill_only_what_the_learner_left_out() -> None:
    mine = "def __neg__(self):\n    return self * -1  # mine\n"
    scalar = module_sources(COURSE, "L10", {"L09.neg": mine}, finished_earlier=True)["scalar.py"]
    gaps = {gap.id: gap.body for gap in find_gaps(scalar)}
    assert gaps["L09.neg"] == mine
    assert gaps["L09.add_backward"] == COURSE.gaps["L09.add_backward"].finished
    assert gaps["L10.backward"] == COURSE.gaps["L10.backward"].starter
    assert gaps["L11.exp"] == COURSE.gaps["L11.exp"].starter


def test_pieces_read_back_from_a_module_skip_untouched_starters() -> None:
    scalar = module_sources(COURSE, "L10", finished_pieces(COURSE, 9))["scalar.py"]
    pieces = read_pieces(COURSE, scalar)
    assert "L09.neg" in pieces and "L10.backward" not in pieces and "L11.exp" not in pieces


def test_every_generated_module_imports() -> None:
    """As every lab starts, the learner's files compile and import: nothing stops the checks early."""
    for lesson in LESSONS:
        number = COURSE.lessons[lesson].number
        report = check_lesson(lesson, module_sources(COURSE, lesson, finished_pieces(COURSE, number - 1)))
        assert report.problem is None, (lesson, report.problem)
        assert {r.problem.kind for r in report.results if r.problem} <= {"starter"}, lesson


# --- finished pieces pass, starters fail -----------------------------------------------------

def test_the_finished_modules_pass_every_lesson() -> None:
    for lesson in LESSONS:
        report = check_lesson(lesson, reference_sources())
        assert report.passed, [r for r in report.results if not r.passed]


@pytest.mark.parametrize("lesson", LESSONS)
def test_finished_pieces_up_to_a_lesson_pass_it(lesson: str) -> None:
    number = COURSE.lessons[lesson].number
    report = check_lesson(lesson, module_sources(COURSE, lesson, finished_pieces(COURSE, number)))
    assert report.passed, [r for r in report.results if not r.passed]


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lessons_starters_fail_every_one_of_its_claims(lesson: str) -> None:
    number = COURSE.lessons[lesson].number
    sources = module_sources(COURSE, lesson, finished_pieces(COURSE, number - 1))
    report = check_lesson(lesson, sources, detect_starters=False)
    assert not [r.claim for r in report.results if r.passed]


def problem_of(result: ClaimResult) -> Problem:
    """The problem a claim's result reports: it must report one."""
    assert result.problem is not None, f"{result.claim} reports no problem"
    return result.problem


def test_a_claim_needing_an_untouched_starter_says_so() -> None:
    sources = module_sources(COURSE, "L10", finished_pieces(COURSE, 9))
    report = check_lesson("L10", sources)
    assert {problem_of(r).kind for r in report.results} == {"starter"}
    assert "Write gap L10.backward first" in report.results[0].message


def test_a_missing_earlier_piece_points_at_loading_the_finished_ones() -> None:
    pieces = finished_pieces(COURSE, 10)
    del pieces["L08.add_backward"], pieces["L09.add_backward"]
    report = check_lesson("L10", module_sources(COURSE, "L10", pieces))
    assert all(problem_of(r).kind == "starter" and problem_of(r).gap for r in report.results)
    assert "needs gap L09.add_backward from an earlier lesson" in report.results[0].message
    assert "load the finished pieces" in report.results[0].message


# --- errors in the learner's code ------------------------------------------------------------

def with_backward(body: str) -> dict[str, str]:
    pieces = finished_pieces(COURSE, 9) | {"L10.backward": textwrap.dedent(body)}
    return module_sources(COURSE, "L10", pieces)


def test_a_syntax_error_points_at_the_line_inside_the_gap() -> None:
    report = check_lesson("L10", with_backward("def backward(self) -> None:\n    x = 1\n    for node in\n"))
    assert report.problem is not None and report.problem.kind == "syntax"
    place = report.problem.place
    assert place is not None and place.gap == "L10.backward" and place.gap_line == 3
    assert report.problem.message.startswith("Syntax error at line 3 of gap L10.backward")
    assert all(problem_of(r).kind == "syntax" and not r.passed for r in report.results)


def test_an_error_at_import_is_reported_with_its_place() -> None:
    pieces = finished_pieces(COURSE, 9) | {"L09.rmul": "1 / 0\n"}
    report = check_lesson("L09", module_sources(COURSE, "L09", pieces))
    assert report.problem is not None
    assert report.problem.message == (
        "Importing your module failed: ZeroDivisionError (at line 1 of gap L09.rmul): division by zero"
    )
    assert report.problem.kind == "import" and report.problem.gap == "L09.rmul"


def test_an_error_inside_a_check_names_the_gap_line() -> None:
    broken = "def backward(self) -> None:\n    self.grad = 1.0\n    raise KeyError('x')\n"
    report = check_lesson("L10", with_backward(broken))
    assert problem_of(report.results[0]).kind == "error" and report.results[0].key is None
    assert report.results[0].message == "KeyError (at line 3 of gap L10.backward): 'x'"


def test_an_endless_loop_is_stopped_by_the_time_limit() -> None:
    report = check_lesson("L10", with_backward("def backward(self) -> None:\n    while True:\n        pass\n"))
    assert problem_of(report.results[0]).kind == "timeout"
    assert all(problem_of(r).kind == "skipped" for r in report.results[1:])
    assert "Is there a loop that never ends?" in report.results[0].message
    assert {r.message for r in report.results[1:]} == {"Not run: the check before it had to be stopped."}


def test_endless_recursion_gets_a_short_message_with_its_place() -> None:
    report = check_lesson("L10", with_backward("def backward(self) -> None:\n    self.backward()\n"))
    seed = report.results[0]
    assert problem_of(seed).kind == "recursion"
    assert seed.message == (
        "RecursionError (at line 2 of gap L10.backward): the code called itself deeper than Python allows."
    )


@pytest.mark.parametrize(("message", "shape", "named"), [
    ("cannot combine (2, 3) and (2,)", (2,), True),
    ("cannot combine shapes (2, 3) and (3, 2).", (3, 2), True),
    ("cannot combine (shapes (2, 3) and (3, 2))", (3, 2), True),
    ("shapes [(2, 3), (3, 2)]", (2, 3), True),
    ("a 3x2 tensor and one of 4.", (4,), True),
    ("2 × 3 against 3 × 2", (2, 3), True),
    ("shape [3] and [4]", (4,), True),
    ("this tensor, of shape (2, 3), cannot be combined", (2,), False),
    ("shape (12, 7)", (2,), False),
    ("20 numbers", (2,), False),
    ("a 12x3 tensor", (2, 3), False),
    ("shape (1, 2, 3)", (2, 3), False),
    ("a length of 4.5", (4,), False),
])
def test_an_error_message_names_a_shape_in_any_usual_form_and_only_that_shape(
        message: str, shape: tuple[int, ...], named: bool) -> None:
    assert names_shape(message, shape) is named


EXITING_SLOPE = """
def slope(f, x, h=1e-6):
    if h <= 0:
        exit(f"h must be positive, got {h}")
    return (f(x + h) - f(x - h)) / (2 * h)
"""


def test_exit_in_a_learners_piece_ends_its_check_not_python() -> None:
    """exit() raises SystemExit, which is no Exception: caught like one, it fails the claim that met it."""
    report = check_lesson("L01", module_sources(COURSE, "L01", {"L01.slope": EXITING_SLOPE}))
    failed = {r.claim: r.message for r in report.results if not r.passed}
    assert list(failed) == ["L01.bad_h"], failed
    assert failed["L01.bad_h"].startswith("SystemExit (at line 3 of gap L01.slope): the code called exit()")
    at_import = check_lesson("L01", module_sources(COURSE, "L01", {"L01.slope": EXITING_SLOPE + "\nexit()\n"}))
    assert at_import.problem is not None and at_import.problem.kind == "import"
    assert "SystemExit (at line 6 of gap L01.slope)" in at_import.problem.message


POPPING_SORT = '''
def toposort(root: Node, parents: Callable[[Node], Iterable[Node]]) -> list[Node]:
    """Every node reachable from root once, root first, each node before all of its parents."""
    order, finished, waiting = [], set(), set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            waiting.discard(node)
            finished.add(node)
            order.append(node)
        elif node in waiting:
            raise ValueError(f"cycle through {node!r}")
        elif node not in finished:
            waiting.add(node)
            stack.append((node, True))
            todo = parents(node)
            while todo:
                stack.append((todo.pop(), False))
    order.reverse()
    return order
'''


def test_a_sort_that_changes_the_parents_it_is_handed_cannot_change_the_graphs_of_later_checks() -> None:
    finished = finished_pieces(COURSE, 6)
    popped = check_lesson("L06", module_sources(COURSE, "L06", finished | {"L06.toposort": POPPING_SORT}))
    assert "'tuple' object has no attribute 'pop'" in popped.results[0].message
    assert check_lesson("L06", module_sources(COURSE, "L06", finished)).passed  # the graphs as they were


def test_a_file_without_markers_is_checked_too() -> None:
    plain = "\n".join(line for line in COURSE.reference["scalar.py"].splitlines() if "# --- " not in line)
    assert check_lesson("L10", {"scalar.py": plain}).passed


def test_a_check_leaves_the_ember_modules_it_found_as_they_were() -> None:
    import sys

    import ember.scalar

    before = {name: module for name, module in sys.modules.items() if name.split(".")[0] == "ember"}
    check_lesson("L10", reference_sources())
    after = {name: module for name, module in sys.modules.items() if name.split(".")[0] == "ember"}
    assert after == before and sys.modules["ember.scalar"] is ember.scalar


# --- imports between the learner's files -----------------------------------------------------

BACKWARD_WITH_TOPOSORT = """
def backward(self) -> None:
    from ember.graph import toposort
    order = toposort(self, lambda v: v._prev)
    for node in order:
        if node._prev:
            node.grad = 0.0
    self.grad = 1.0
    for node in order:
        node._backward()
"""
BREADTH_FIRST_TOPOSORT = """
def toposort(root, parents):
    order, seen = [root], {root}
    for node in order:
        for parent in parents(node):
            if parent not in seen:
                seen.add(parent)
                order.append(parent)
    return order
"""


def with_pieces(lab: str, **pieces: str) -> dict[str, str]:
    """The learner's files as ``lab`` starts: every earlier piece finished, and these pieces."""
    number = COURSE.lessons[lab].number
    mine = {gap.replace("_", ".", 1): textwrap.dedent(code) for gap, code in pieces.items()}
    return module_sources(COURSE, lab, finished_pieces(COURSE, number - 1) | mine)


def test_backward_may_call_the_learners_own_toposort() -> None:
    report = check_lesson("L10", with_pieces("L10", L10_backward=BACKWARD_WITH_TOPOSORT))
    assert report.passed, [r.message for r in report.results if not r.passed]


def test_a_relative_import_of_the_learners_own_sort_works_too() -> None:
    body = BACKWARD_WITH_TOPOSORT.replace("from ember.graph import", "from .graph import")
    assert check_lesson("L10", with_pieces("L10", L10_backward=body)).passed


def test_the_learners_own_sort_is_the_one_imported_wrong_or_right() -> None:
    sources = with_pieces("L10", L06_toposort=BREADTH_FIRST_TOPOSORT, L10_backward=BACKWARD_WITH_TOPOSORT)
    report = check_lesson("L10", sources)
    (trap,) = [r for r in report.results if r.claim == "L10.trap_graph"]
    assert not trap.passed and "28" in trap.message


def test_a_learner_file_may_import_a_file_that_comes_later() -> None:
    sources = with_pieces("L10", L10_backward=BACKWARD_WITH_TOPOSORT)
    sources["graph.py"] += "\nfrom ember.scalar import Value as _Value  # a file that comes later\n"
    assert check_lesson("L10", sources).passed


def test_a_learner_file_that_is_missing_is_never_the_courses_copy() -> None:
    sources = with_pieces("L10", L10_backward=BACKWARD_WITH_TOPOSORT)
    del sources["graph.py"]
    report = check_lesson("L10", sources)
    assert not report.passed
    assert "No module named 'ember.graph'" in report.results[0].message


# --- known-wrong pieces ----------------------------------------------------------------------

# A piece that breaks a lab whose claims time the code is checked alone (the test command's second phase), so
# that its "too slow" claim fails with its own message, as on a learner's quiet machine, not by the time limit.
KNOWN_WRONG = [pytest.param(m, id=m.name, marks=[pytest.mark.alone] if breaks_a_timed_lab(m) else []) for m in MUTANTS]


@pytest.mark.parametrize("mutant", KNOWN_WRONG)
def test_a_known_wrong_piece_breaks_its_claims_with_messages_that_name_its_fault(mutant: Mutant) -> None:
    """Each claim a mutant lists fails with the message it lists, filled from its template; and each word the
    mutant lists (its fault, in the learner's terms) is in a message of a claim it breaks. Each lab is checked
    once."""
    assert mutant.words, f"mutant {mutant.name!r} lists no words naming its fault"
    messages = []
    for lesson in sorted({lesson for lesson, _, _ in mutant.breaks}):
        report = check_lesson(lesson, mutant_sources(COURSE, mutant, lesson))
        for item_lesson, claim_id, key in mutant.breaks:
            if item_lesson != lesson:
                continue
            (result,) = [r for r in report.results if r.claim == f"{lesson}.{claim_id}"]
            assert not result.passed and result.key == key, (result.key, result.message)
            assert matches_template(result.message, COURSE.lesson(lesson).claim(claim_id).messages[key])
            messages.append(result.message)
    text = " ".join(messages).lower()
    missing = [word for word in mutant.words if word.lower() not in text]
    assert not missing, (missing, messages)


def matches_template(message: str, template: str) -> bool:
    """True when a message is its template with each {field} filled in."""
    import re
    import string

    pattern = "".join(re.escape(text) + (".*?" if field is not None else "")
                      for text, field, _, _ in string.Formatter().parse(template))
    return re.fullmatch(pattern, message, flags=re.DOTALL) is not None


def test_every_failure_message_is_triggered_by_some_known_wrong_piece() -> None:
    covered = {item for mutant in MUTANTS for item in mutant.breaks}
    missing = [
        f"{lesson.id}.{claim.id}:{key}"
        for lesson in COURSE.lessons.values()
        for claim in lesson.claims
        for key in claim.messages
        if (lesson.id, claim.id, key) not in covered
    ]
    assert not missing
