"""The page and the terminal agree: every known-wrong piece gets the same verdict from the checks run
by the page's own worker (Pyodide) as from `python -m labs check` (CPython), and a lab that imports
between the learner's files passes in the page before any example cell has run."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from labs.course import load_course
from labs.learner import finished_pieces
from labs.session import Session
from tests.mutants import MUTANTS
from tests.test_labs import BACKWARD_WITH_TOPOSORT

from .learner import BOOT_MS, START_WORKER, check_a_backward

COURSE = load_course()

def verdict(report: dict) -> list[tuple]:
    """Each claim's verdict: passed or not, the message it failed with (its key), and the kind of problem.

    The messages' texts are the same templates filled with what each Python observed: the last bits of
    a nudged slope, an object's address, the order of a set of Values, a timed claim's times.
    """
    return [(r["claim"], r["passed"], r["key"], (r["problem"] or {}).get("kind")) for r in report["results"]]


def test_every_known_wrong_piece_gets_the_same_verdict_in_the_page_and_the_terminal(
        page: Page, base_url: str, tmp_path: Path) -> None:
    page.goto(base_url)
    assert page.evaluate(START_WORKER, {"interrupts": False})  # the slower path: sys.monitoring watches the checks
    session = Session(tmp_path)
    compared = 0
    for mutant in MUTANTS:
        for lesson in sorted({lesson for lesson, _, _ in mutant.breaks}):
            payload = {"lab": lesson, "pieces": finished_pieces(COURSE, COURSE.lessons[lesson].number) | mutant.pieces}
            in_page = page.evaluate("(p) => ask('check', p)", payload)
            in_terminal = json.loads(session.handle("check", json.dumps(payload)))
            assert verdict(in_page) == verdict(in_terminal), mutant.name
            assert not in_page["passed"], mutant.name
            compared += 1
    assert compared >= len(MUTANTS)


def test_backward_calls_the_learners_own_toposort_before_any_cell_has_run(page: Page, base_url: str) -> None:
    claims = check_a_backward(page, base_url, BACKWARD_WITH_TOPOSORT)
    expect(claims).to_have_count(len(COURSE.lesson("L10").claims))
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass", timeout=BOOT_MS)
