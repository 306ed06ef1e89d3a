"""The page and the terminal agree: every known-wrong piece gets the same verdict from the checks run
by the page's own worker (Pyodide) as from `python -m labs check` (CPython), and a lab that imports
between the learner's files passes in the page before any example cell has run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from labs.course import load_course
from labs.learner import finished_pieces
from labs.session import Session
from tests.mutants import MUTANTS, Mutant
from tests.test_labs import BACKWARD_WITH_TOPOSORT

from .learner import BOOT_MS, START_WORKER, check_a_backward

COURSE = load_course()
CLAIMS = Path(__file__).resolve().parent.parent / "labs" / "claims"


def verdict(report: dict) -> list[tuple]:
    """Each claim's verdict: passed or not, the message it failed with (its key), and the kind of problem.

    The messages' texts are the same templates filled with what each Python observed: the last bits of
    a nudged slope, an object's address, the order of a set of Values, a timed claim's times.
    """
    return [(r["claim"], r["passed"], r["key"], (r["problem"] or {}).get("kind")) for r in report["results"]]


def part_of(mutant: Mutant) -> int:
    """The part whose labs a known-wrong piece breaks (one part each: tested below)."""
    parts = {COURSE.lessons[lesson].part for lesson, _, _ in mutant.breaks}
    assert len(parts) == 1, mutant.name
    return parts.pop()


def times_the_code(lesson: str) -> bool:
    """Whether a lesson's claims time the learner's code: their verdicts may depend on how fast it runs."""
    source = (CLAIMS / f"{lesson.lower()}.py").read_text(encoding="utf-8")
    return any(clock in source for clock in ("perf_counter", "monotonic", "time.time"))


@pytest.mark.long
@pytest.mark.parametrize("part", [part.number for part in COURSE.parts])
def test_every_known_wrong_piece_gets_the_same_verdict_in_the_page_and_the_terminal(
        page: Page, context: BrowserContext, base_url: str, tmp_path: Path, part: int) -> None:
    """Every piece of a part's labs in a worker whose time limit works through the interrupt buffer (an
    isolated page: every host after one reload); in a worker watched by sys.monitoring instead, which makes
    the code several times slower, again each piece whose verdict could depend on that: one that times out
    or recurses too deep in the terminal, or one checked by claims that time the code."""
    page.goto(base_url)
    assert page.evaluate(START_WORKER, {"interrupts": True})
    watched = context.new_page()
    watched.goto(base_url)
    assert watched.evaluate(START_WORKER, {"interrupts": False})  # the slower path: sys.monitoring watches
    session = Session(tmp_path)
    compared, both_ways = 0, 0
    mutants = [mutant for mutant in MUTANTS if part_of(mutant) == part]
    for mutant in mutants:
        for lesson in sorted({lesson for lesson, _, _ in mutant.breaks}):
            payload = {"lab": lesson, "pieces": finished_pieces(COURSE, COURSE.lessons[lesson].number) | mutant.pieces}
            in_terminal = json.loads(session.handle("check", json.dumps(payload)))
            pages = [page]
            if times_the_code(lesson) or {kind for *_, kind in verdict(in_terminal)} & {"timeout", "recursion"}:
                pages.append(watched)
                both_ways += 1
            for where in pages:
                in_page = where.evaluate("(p) => ask('check', p)", payload)
                assert verdict(in_page) == verdict(in_terminal), (mutant.name, where is watched)
                assert not in_page["passed"], mutant.name
            compared += 1
    assert compared >= len(mutants) > 0
    if any(times_the_code(lesson) for mutant in mutants for lesson, _, _ in mutant.breaks):
        assert both_ways > 0  # the watched worker's verdicts were compared too


def test_every_known_wrong_piece_breaks_labs_of_one_part() -> None:
    """So that the parts' tests above compare every piece between them."""
    assert sorted({part_of(mutant) for mutant in MUTANTS}) == [part.number for part in COURSE.parts]


def test_backward_calls_the_learners_own_toposort_before_any_cell_has_run(page: Page, base_url: str) -> None:
    claims = check_a_backward(page, base_url, BACKWARD_WITH_TOPOSORT)
    expect(claims).to_have_count(len(COURSE.lesson("L10").claims))
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass", timeout=BOOT_MS)
