"""The same verdict on a slow device: the page's checks, run by a worker slowed at least four times (a CPU quota on
every Chromium process, measured in the worker before and after), agree claim by claim with the terminal's, on the
finished pieces of every lab and on the pieces of the claims whose verdicts could depend on time.

Time limits are a guard against endless loops: a correct piece passes and a wrong one that ends fails with its
own message on a slower machine too, never by the limit. Chromium's own CPU throttling slows only a page's main
thread, not the worker where Python runs, hence the quota (``site_tests/cpu_quota.py``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright

from labs.checking.learner import finished_pieces
from labs.frontends.session import Session
from tests.also_right import VARIANTS
from tests.known_wrong import MUTANTS

from .cpu_quota import CpuQuota, make_quota
from .harness import CHROMIUM, FLAGS, Watch, watched_context
from .learner import START_WORKER
from .test_verdicts import COURSE

pytestmark = [pytest.mark.alone, pytest.mark.long]  # it slows the browser and compares what the slowing changes

SLOWER = 4.0  # the least slowdown of the worker's Python that counts as a slow device
SHARES = (0.4, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05)  # of one core, tried in turn until the worker is AIM times slower
# The quota's slowdown wanes a little as the page's compiled code warms up over the checks (2.7x at the end of a
# run that began above 4x): aim high enough that the end, allowed a quarter less, is still SLOWER.
AIM = SLOWER / 0.75
DEFAULT_SECONDS = 5.0  # a claim's time limit when its lesson.toml sets none
TIME_SENSITIVE = {"slow"}  # message keys that say a piece took too long
# Known-wrong pieces beside those chosen below: the table of one row repeated 256 times (every row of W
# then trains), and the slowest wrong pieces that end, for lesson 18's training and lesson 06's long chain.
EXTRA_WRONG = ("count_pairs with one row repeated 256 times",
               "pair_loss whose softmax sums the row again for every number",
               "the nodes on the current path kept in a list and searched")
# The slowest correct piece of a claim with a time limit: its sample makes a Tensor of every row it draws from.
SLOW_RIGHT = ("count_pairs over a memoryview with pairwise; count_loss expanded pair by pair with fsum; sample through "
              "the engine's own rows, exp and sum",)
LOOP = """import time
def turns():
    start = time.perf_counter()
    total = 0
    for i in range(1_000_000):
        total += i
    return time.perf_counter() - start
print(min(turns() for _ in range(3)))"""
# A block of LOOP's turns inside a time limit it fits within at full speed, not at the slowed speed.
STRETCHED = """from labs.checking.timelimit import TimeLimitExceeded, time_limit
try:
    with time_limit({limit}, frozenset()):
        for _ in range({count}):
            turns()
    print("finished")
except TimeLimitExceeded as error:
    print(error)"""


def limited_claims() -> set[tuple[str, str]]:
    """(lesson, claim) of every claim with a time limit of its own."""
    return {(lesson.id, claim.id) for lesson in COURSE.lessons.values() for claim in lesson.claims
            if claim.seconds != DEFAULT_SECONDS}


def wrong_pieces() -> list[tuple[str, str]]:
    """(known-wrong piece, lab): for each claim with a time limit of its own, the first piece that breaks it; every
    piece that breaks a claim with a message about time; and EXTRA_WRONG."""
    chosen: dict[tuple[str, str], None] = {}
    for lesson, claim_id in sorted(limited_claims()):
        name = next(m.name for m in MUTANTS if any(broken[:2] == (lesson, claim_id) for broken in m.breaks))
        chosen[(name, lesson)] = None
    for mutant in MUTANTS:
        for lesson, _, key in mutant.breaks:
            if key in TIME_SENSITIVE or mutant.name in EXTRA_WRONG:
                chosen[(mutant.name, lesson)] = None
    return list(chosen)


def payload(lesson: str, pieces: dict[str, str]) -> dict:
    return {"lab": lesson, "pieces": finished_pieces(COURSE, COURSE.lessons[lesson].number) | pieces}


def checks() -> list[tuple[str, dict]]:
    """What the slowed worker checks: every lab's finished pieces, SLOW_RIGHT, then the wrong pieces."""
    by_name = {mutant.name: mutant for mutant in MUTANTS}
    chosen = [(f"{lesson}'s finished pieces", payload(lesson, {})) for lesson in COURSE.lessons]
    chosen += [(variant.name, payload(variant.lesson, variant.pieces)) for variant in VARIANTS
               if variant.name in SLOW_RIGHT]
    chosen += [(name, payload(lesson, by_name[name].pieces)) for name, lesson in wrong_pieces()]
    return chosen


def verdicts(report: dict) -> list[tuple]:
    """Each claim's verdict exactly: passed or not, its message key, and the kind of problem (a time limit's too)."""
    return [(r["claim"], r["passed"], r["key"], (r["problem"] or {}).get("kind")) for r in report["results"]]


def printed(page: Page, code: str) -> str:
    """What a cell of ``code`` printed in the page's worker."""
    answer = page.evaluate("(p) => ask('run', p)", {"page": "/", "lab": "L01", "pieces": {}, "code": code})
    assert answer["error"] is None, answer["error"]
    return "".join(item["text"] for item in answer["outputs"] if item["kind"] == "stdout").strip()


def python_seconds(page: Page) -> float:
    """The least of three timings of a fixed loop of Python in the page's worker."""
    return float(printed(page, LOOP).split()[-1])


def slow_down(page: Page, quota: CpuQuota) -> float:
    """Lower the quota until Python in the worker runs at least AIM times slower than with none: that factor.

    The loop runs once before it is timed: the browser compiles Pyodide's hot code again, faster, as it runs."""
    quota.limit(None)
    python_seconds(page)
    fast = python_seconds(page)
    for share in SHARES:
        quota.limit(share)
        factor = python_seconds(page) / fast
        print(f"a share of {share} of a core: {factor:.1f} times slower")
        if factor >= AIM:
            return factor
    return factor


@pytest.fixture
def quota() -> Iterator[CpuQuota]:
    made = make_quota(f"ember-slow-device-{os.getpid()}")
    if made is None:
        pytest.skip("cannot make a cgroup with a CPU quota here (it needs root and cgroups' cpu controller)")
    try:
        yield made
    finally:
        made.remove()


@pytest.fixture
def slowed_page(playwright: Playwright, quota: CpuQuota, base_url: str, tmp_path: Path) -> Iterator[Page]:
    """An isolated page of the site in a Chromium of its own, every process of it inside the quota's cgroup, with a
    worker of the page's own kind booted (at full speed: the test slows it afterwards)."""
    watch = Watch()
    browser = playwright.chromium.launch(executable_path=str(quota.launcher(tmp_path, CHROMIUM)), args=FLAGS)
    try:
        context = watched_context(browser, watch)
        page = context.new_page()
        page.on("pageerror", lambda error: watch.errors.append(str(error)))
        page.goto(base_url)
        assert page.evaluate(START_WORKER, {"interrupts": True})  # isolated: the time limit interrupts in place
        assert quota.processes(), "Chromium's processes are not in the cgroup"
        yield page
        quota.limit(None)
        context.close()
    finally:
        browser.close()
    watch.check()


def test_the_chosen_pieces_cover_every_claim_with_a_time_limit_or_a_message_about_time() -> None:
    by_name = {mutant.name: mutant for mutant in MUTANTS}
    broken = {(lesson, claim) for name, lab in wrong_pieces() for lesson, claim, _ in by_name[name].breaks
              if lesson == lab}
    limited = limited_claims()
    assert limited and limited <= broken
    slow = {(lesson, claim) for m in MUTANTS for lesson, claim, key in m.breaks if key in TIME_SENSITIVE}
    assert slow and slow <= broken
    names = {mutant.name for mutant in MUTANTS} | {variant.name for variant in VARIANTS}
    assert set(EXTRA_WRONG) | set(SLOW_RIGHT) <= names


def test_a_worker_slowed_four_times_gives_every_verdict_the_terminal_gives(
        slowed_page: Page, quota: CpuQuota, terminal_session: Session) -> None:
    factor = slow_down(slowed_page, quota)
    assert factor >= SLOWER, f"the worker ran only {factor:.1f} times slower under the quota"
    print(f"the worker runs Python {factor:.1f} times slower")  # shown with -s, and with a failure
    # Work of a second at full speed, under a limit of two: slowed, it runs past the limit, which stretches.
    full_speed = python_seconds(slowed_page) / factor
    work = LOOP.split("\nprint")[0] + "\n" + STRETCHED.format(limit=2.0, count=max(1, round(1.0 / full_speed)))
    assert printed(slowed_page, work) == "finished"
    apart = []
    for name, request in checks():
        in_terminal = json.loads(terminal_session.handle("check", json.dumps(request)))
        in_page = slowed_page.evaluate("(p) => ask('check', p)", request)
        if verdicts(in_page) != verdicts(in_terminal):
            apart.append((name, [v for v in verdicts(in_page) if v not in verdicts(in_terminal)]))
        right = name.endswith("finished pieces") or name in SLOW_RIGHT
        assert in_terminal["passed"] == right, (name, verdicts(in_terminal))
    slower = python_seconds(slowed_page)  # still slowed at the end
    quota.limit(None)
    assert not apart, apart
    assert slower / python_seconds(slowed_page) >= SLOWER * 0.75, "the quota stopped slowing the worker"
