"""The page and the terminal agree: every known-wrong piece gets the same verdict from the checks run
by the page's own worker (Pyodide) as from `python -m labs check` (CPython), every correct piece written
another way passes in the page as in the terminal, and a lab that imports between the learner's files
passes in the page before any example cell has run."""

from __future__ import annotations

import gc
import hashlib
import json
import multiprocessing
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from labs.checking.learner import finished_pieces
from labs.course.model import load_course
from labs.frontends.session import Session
from tests.also_right import VARIANTS, Variant
from tests.known_wrong import MUTANTS, Mutant, times_the_code
from tests.test_labs import BACKWARD_WITH_TOPOSORT

from .harness import ROOT
from .learner import BOOT_MS, START_WORKER, check_a_backward

COURSE = load_course()


def verdict(report: dict) -> list[tuple]:
    """Each claim's verdict: passed or not, the message it failed with (its key), and the kind of problem.

    The messages' texts are the same templates filled with what each Python observed: the last bits of
    a nudged slope, an object's address, the order of a set of Values, a timed claim's times.
    """
    verdicts = []
    for r in report["results"]:
        verdicts.append(too_slow_as_one(r["claim"], r["passed"], r["key"], (r["problem"] or {}).get("kind")))
        if verdicts[-1][2] == "too slow":  # the claims after it ran, or were skipped when the time limit ended
            break                          # the check: that too depends on which way it was too slow
    return verdicts


def too_slow_as_one(claim: str, passed: bool, key: str | None, kind: str | None) -> tuple:
    """A claim that times the code fails a slow piece either with its own message (a length took too long) or,
    where the machine ran that length fast enough to go on, by the time limit at the next one: which of the
    two depends on the machine's speed, so both count as one verdict, too slow."""
    if not passed and (key == "slow" or kind == "timeout"):
        return (claim, passed, "too slow", None)
    return (claim, passed, key, kind)


def part_of(mutant: Mutant) -> int:
    """The part whose labs a known-wrong piece breaks (one part each: tested below)."""
    parts = {COURSE.lessons[lesson].part for lesson, _, _ in mutant.breaks}
    assert len(parts) == 1, mutant.name
    return parts.pop()


class Comparison:
    """Checks a part's known-wrong pieces in the terminal (CPython, in this process) and in page workers,
    and asserts that each piece gets the same verdict in both."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.compared = 0
        self.pending: dict[Page, tuple[str, list[tuple]]] = {}  # a page's check under way, and what to expect

    def terminal(self, payload: dict) -> dict:
        return json.loads(self.session.handle("check", json.dumps(payload)))

    def start(self, page: Page, payload: dict, name: str) -> None:
        """Send a check to a page's worker without waiting for it (the worker has the only one under way)."""
        self.finish(page)
        page.evaluate("(p) => { window.underWay = ask('check', p); }", payload)
        self.pending[page] = (name, [])

    def expect(self, page: Page, in_terminal: dict) -> None:
        name, _ = self.pending[page]
        self.pending[page] = (name, verdict(in_terminal))

    def finish(self, page: Page) -> None:
        """Wait for a page's check under way, if any, and compare its verdict with the terminal's."""
        if page not in self.pending:
            return
        name, expected = self.pending.pop(page)
        in_page = page.evaluate("() => window.underWay")
        assert verdict(in_page) == expected, name
        assert not in_page["passed"], name
        self.compared += 1

    def both(self, page: Page, payload: dict, name: str, in_terminal: dict) -> None:
        """One check in a page, with nothing else running, compared with the terminal's verdict."""
        self.start(page, payload, name)
        self.expect(page, in_terminal)
        self.finish(page)


@pytest.fixture
def heap_set_aside() -> Iterator[None]:
    """The objects earlier tests left in this process, set aside from the cycle collector while this test
    runs the terminal's checks: after the CPython tests there are some 300,000, and collections that walk
    them made those checks about seven times slower (25 pieces: 9.5 s, against 1.4 s set aside)."""
    gc.freeze()
    yield
    gc.unfreeze()


def checks_of_part(part: int) -> list[tuple[str, str, dict]]:
    """Each known-wrong piece of a part's labs, once per lab it breaks: (its name, the lab, the check's payload)."""
    return [(mutant.name, lesson, {"lab": lesson, "pieces": finished_pieces(COURSE, COURSE.lessons[lesson].number)
                                   | mutant.pieces})
            for mutant in MUTANTS if part_of(mutant) == part
            for lesson in sorted({lesson for lesson, _, _ in mutant.breaks})]


@cache
def own_session() -> Session:
    """A terminal session of this process, on learner files of its own."""
    return Session(Path(tempfile.mkdtemp(prefix="ember-verdicts-")))


def check_in_terminal(payload: dict) -> dict:
    """One check in this process's terminal session (run in the processes of ``terminal_reports``)."""
    return json.loads(own_session().handle("check", json.dumps(payload)))


def terminal_reports(payloads: list[dict]) -> list[dict]:
    """The terminal's reports of many checks whose claims do not time the code, on every core at once."""
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: this one runs the browser's threads
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2, mp_context=spawn) as pool:
        return list(pool.map(check_in_terminal, payloads, chunksize=1))


def could_depend_on_speed(in_terminal: dict) -> bool:
    """A verdict that a slower worker might change: a timeout, or recursion too deep."""
    return bool({(r["problem"] or {}).get("kind") for r in in_terminal["results"]} & {"timeout", "recursion"})


@cache
def checker_digest() -> str:
    """A digest of the code and course data the terminal's checks run on (the learner's pieces come apart)."""
    digest = hashlib.sha256()
    for folder in ("labs", "ember", "hx"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".toml", ".json", ".txt") and path.is_file():
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def payload_digest(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def speed_key(part: int) -> str:
    """Where a part's test below keeps which of its pieces could depend on speed in the terminal, for the test
    that runs alone (pytest's cache: the same run's first phase, or an earlier run on the same code)."""
    return f"ember/verdicts/{checker_digest()}/could-depend-on-speed/part-{part}"


def isolated_pages(context: BrowserContext, base_url: str, count: int, interrupts: bool = True) -> list[Page]:
    """Isolated pages of the site, each with a worker of the page's own kind booted (with the interrupt buffer, or
    without it: then sys.monitoring watches the checks)."""
    pages = [context.new_page() for _ in range(count)]
    for where in pages:
        where.goto(base_url)
        assert where.evaluate(START_WORKER, {"interrupts": interrupts})  # the page is isolated either way
    return pages


@pytest.mark.long
@pytest.mark.parametrize("part", [part.number for part in COURSE.parts])
def test_every_known_wrong_piece_gets_the_same_verdict_in_the_page_and_the_terminal(
        context: BrowserContext, base_url: str, terminal_session: Session, part: int, heap_set_aside: None,
        request: pytest.FixtureRequest) -> None:
    """Every piece of a part's labs whose claims do not time the code, in workers whose time limit works
    through the interrupt buffer (isolated pages: every host after one reload): two pages and the terminal
    check at once (two cores do three checks). The pieces whose verdicts could depend on speed are
    checked again, with nothing else running, by the test below."""
    pages = isolated_pages(context, base_url, 2)
    comparison = Comparison(terminal_session)
    checks = [(name, payload) for name, lesson, payload in checks_of_part(part) if not times_the_code(lesson)]
    speed = {}
    for index, (name, payload) in enumerate(checks):
        where = pages[index % len(pages)]
        comparison.start(where, payload, name)
        in_terminal = comparison.terminal(payload)
        speed[payload_digest(payload)] = could_depend_on_speed(in_terminal)
        comparison.expect(where, in_terminal)
    for where in pages:
        comparison.finish(where)
    assert comparison.compared == len(checks) > 0
    # Without pytest's cache (-p no:cacheprovider) the test below checks every piece in the terminal itself.
    if cache := getattr(request.config, "cache", None):
        cache.set(speed_key(part), speed)


@pytest.mark.alone
@pytest.mark.long
def test_every_piece_whose_verdict_could_depend_on_speed_gets_the_same_verdict_with_nothing_else_running(
        context: BrowserContext, base_url: str, terminal_session: Session, heap_set_aside: None,
        request: pytest.FixtureRequest) -> None:
    """The pieces checked by claims that time the code, in an isolated page; then those and every piece that
    times out or recurses too deep in the terminal, in a worker watched by sys.monitoring instead (a page
    without shared memory), which makes the code several times slower. One check at a time, so that their
    times are the times of a quiet machine. Which pieces time out or recurse too deep in the terminal, the
    parts' tests above found on the same code; the terminal checks those found by neither first, on every core."""
    checks = [check for part in COURSE.parts for check in checks_of_part(part.number)]
    untimed = [(name, payload, payload_digest(payload)) for name, lesson, payload in checks
               if not times_the_code(lesson)]
    # What the parts' tests above found (a busy machine finds more pieces that time out, never fewer).
    known: dict[str, bool] = {}
    if cache := getattr(request.config, "cache", None):
        for part in COURSE.parts:
            known |= cache.get(speed_key(part.number), {})
    unknown = [(payload, digest) for _, payload, digest in untimed if digest not in known]
    reports = terminal_reports([payload for payload, _ in unknown])  # on every core, before anything is timed
    for (_, digest), in_terminal in zip(unknown, reports, strict=True):
        known[digest] = could_depend_on_speed(in_terminal)
    comparison = Comparison(terminal_session)
    # The terminal's report of each piece that could depend on speed, made again with nothing else running.
    watched_too = [(name, payload, in_terminal) for name, payload, digest in untimed if known[digest]
                   if could_depend_on_speed(in_terminal := comparison.terminal(payload))]
    page, = isolated_pages(context, base_url, 1)
    watched, = isolated_pages(context, base_url, 1, interrupts=False)
    for name, lesson, payload in checks:
        if times_the_code(lesson):
            in_terminal = comparison.terminal(payload)
            comparison.both(page, payload, name, in_terminal)
            watched_too.append((name, payload, in_terminal))
    timed = comparison.compared
    for name, payload, in_terminal in watched_too:
        comparison.both(watched, payload, f"{name} (watched by sys.monitoring)", in_terminal)
    assert timed > 0 and comparison.compared == timed + len(watched_too) > timed


def variant_check(variant: Variant) -> dict:
    """The payload that checks a correct piece's lab with it, every other piece finished."""
    return {"lab": variant.lesson,
            "pieces": finished_pieces(COURSE, COURSE.lessons[variant.lesson].number) | variant.pieces}


def failed_claims(report: dict) -> list[tuple]:
    return [(r["claim"], r["key"], (r["problem"] or {}).get("kind")) for r in report["results"] if not r["passed"]]


@pytest.mark.long
def test_every_correct_piece_written_another_way_passes_in_the_page(context: BrowserContext, base_url: str) -> None:
    """The variants of labs whose claims do not time the code, in two isolated pages at once. Pyodide runs
    Python two to three times slower than the terminal: a correct but slow piece must still finish within
    its claims' time limits there."""
    pages = isolated_pages(context, base_url, 2)
    variants = [variant for variant in VARIANTS if not times_the_code(variant.lesson)]
    failures = []
    for start in range(0, len(variants), len(pages)):
        batch = list(zip(pages, variants[start:start + len(pages)]))
        for where, variant in batch:
            where.evaluate("(p) => { window.underWay = ask('check', p); }", variant_check(variant))
        for where, variant in batch:
            if failed := failed_claims(where.evaluate("() => window.underWay")):
                failures.append((variant.lesson, variant.name, failed))
    assert variants and not failures, failures


@pytest.mark.alone
@pytest.mark.long
def test_every_correct_piece_of_a_lab_that_times_the_code_passes_in_the_page_with_nothing_else_running(
        context: BrowserContext, base_url: str) -> None:
    """The variants of labs whose claims time the code, one at a time in an isolated page."""
    page, = isolated_pages(context, base_url, 1)
    variants = [variant for variant in VARIANTS if times_the_code(variant.lesson)]
    failures = [(variant.lesson, variant.name, failed) for variant in variants
                if (failed := failed_claims(page.evaluate("(p) => ask('check', p)", variant_check(variant))))]
    assert variants and not failures, failures


def test_every_known_wrong_piece_breaks_labs_of_one_part() -> None:
    """So that the parts' tests above compare every piece between them."""
    assert sorted({part_of(mutant) for mutant in MUTANTS}) == [part.number for part in COURSE.parts]


def test_backward_calls_the_learners_own_toposort_before_any_cell_has_run(page: Page, base_url: str) -> None:
    claims = check_a_backward(page, base_url, BACKWARD_WITH_TOPOSORT)
    expect(claims).to_have_count(len(COURSE.lesson("L10").claims))
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass", timeout=BOOT_MS)
