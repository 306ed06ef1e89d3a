"""Each claim's time on the page with the finished pieces, against its time limit.

A claim's time limit (``seconds`` in lesson.toml, 5 s when not given) only stops an endless loop; it must never
judge a correct piece. So on this machine every claim, with the finished pieces, has to finish within a fifth of
its limit in the page: a device five times slower still gets the verdict the claim's own code gives.

``page_claim_times`` times every claim inside the worker's own check request (what Run checks sends, with the
checks' time limit watched through the interrupt buffer, as on an isolated page): a cell first wraps
``labs.checking.pipeline.run_claim`` to note each claim's seconds, then the check runs, then a cell reads the
notes. ``bench/part3.py`` and ``bench/site.py`` print the lines of ``limit_lines``; run alone
(``.venv/bin/python bench/claim_limits.py``, the site built into ``site/``) it prints every lab's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from labs.checking.learner import finished_pieces
from labs.checking.timelimit import slowness
from labs.course.model import load_course
from site_tests.harness import built_for_port, launch, served
from site_tests.learner import START_WORKER

SHARE = 5  # a claim with the finished pieces must finish within 1/SHARE of its limit
REPEATS = 3  # check runs per lab; the slowest time of each claim is kept
WHERE = "/bench/claims/"

# Wraps run_claim once per worker: each claim's key, seconds (Python's clock) and limit, appended to a list.
WRAP = """
import time
import labs.checking.pipeline as pipeline

if not hasattr(pipeline, "bench_claim_times"):
    pipeline.bench_claim_times = []
    untimed = pipeline.run_claim

    def run_claim(claim, env, course, files):
        started = time.perf_counter()
        try:
            return untimed(claim, env, course, files)
        finally:
            pipeline.bench_claim_times.append([claim.key, time.perf_counter() - started, claim.seconds])

    pipeline.run_claim = run_claim
pipeline.bench_claim_times.clear()
"""
READ = ("import json, labs.checking.pipeline as pipeline, labs.checking.timelimit as timelimit\n"
        "print(json.dumps({'times': pipeline.bench_claim_times, 'slowness': timelimit.slowness()}))")


def _cell(page: Page, lab: str, code: str) -> str:
    payload = {"page": WHERE, "lab": lab, "pieces": {}, "code": code}
    answer = page.evaluate("(p) => ask('run', p)", payload)
    if answer["error"]:
        raise RuntimeError(f"the cell failed: {answer['error']['message']}")
    return "".join(item.get("text", "") for item in answer["outputs"] if item["kind"] == "stdout")


def page_claim_times(page: Page, labs: list[str], repeats: int = REPEATS) -> list[dict]:
    """Every claim of ``labs`` run ``repeats`` times on the finished pieces through the worker's check request:
    one dict per claim, {lab, claim, seconds (the slowest run), limit, passed, slowness (the most measured after
    its lab's runs: labs.checking.timelimit.slowness, above 1 a limit stretches)}. Boots its own worker on ``page``
    (an isolated page of the built site), as the page boots Python."""
    assert page.evaluate(START_WORKER, {"interrupts": True}), "the page is not cross-origin isolated"
    course = load_course()
    found: list[dict] = []
    for lab in labs:
        payload = {"lab": lab, "pieces": finished_pieces(course, int(lab[1:]))}
        slowest: dict[str, dict] = {}
        for _ in range(repeats):
            _cell(page, lab, WRAP)
            report = page.evaluate("(p) => ask('check', p)", payload)
            verdicts = {result["claim"]: result["passed"] for result in report["results"]}
            read = json.loads(_cell(page, lab, READ))
            for key, seconds, limit in read["times"]:
                mine = slowest.setdefault(key, {"lab": lab, "claim": key, "seconds": 0.0, "limit": limit,
                                                "passed": True, "slowness": 0.0})
                mine["seconds"] = max(mine["seconds"], seconds)
                mine["slowness"] = max(mine["slowness"], read["slowness"])
                mine["passed"] = mine["passed"] and verdicts.get(key, False)
        found += slowest.values()
    return found


def limit_lines(times: list[dict]) -> list[str]:
    """Each lab's slowest claim against its limit, and whether every claim is within 1/SHARE of its own."""
    lines = [f"each lab's slowest claim on the page with the finished pieces (slowest of {REPEATS} runs), against "
             f"its time limit; the target: every claim within 1/{SHARE} of its limit"]
    over = [t for t in times if t["seconds"] * SHARE > t["limit"]]
    for lab in dict.fromkeys(t["lab"] for t in times):
        mine = [t for t in times if t["lab"] == lab]
        worst = max(mine, key=lambda t: t["seconds"] / t["limit"])
        failed = [t["claim"] for t in mine if not t["passed"]]
        lines.append(f"   {lab}: {worst['claim']} {worst['seconds']:.2f} s of {worst['limit']:g} s "
                     f"= 1/{worst['limit'] / max(worst['seconds'], 1e-6):.0f} of its limit "
                     f"({len(mine)} claims){' NOT PASSED: ' + ', '.join(failed) if failed else ''}")
    page = [t["slowness"] for t in times]
    lines.append(f"   Python's measured slowness against the machine the limits were set for (a limit stretches "
                 f"above 1): the page {min(page):.2f}-{max(page):.2f}, the terminal {slowness():.2f}")
    lines.append(f"   target (every claim within 1/{SHARE} of its limit): "
                 + ("met" if not over else "NOT met: " + ", ".join(f"{t['claim']} {t['seconds']:.2f} s of "
                                                                    f"{t['limit']:g} s" for t in over)))
    return lines


def all_labs() -> list[str]:
    """Every lab of the course that has claims, in order."""
    return [lesson.id for lesson in load_course().lessons.values() if lesson.claims]


def main() -> None:
    with sync_playwright() as driver, served(True, built_for_port()) as url:
        browser = launch(driver)
        try:
            page = browser.new_context().new_page()
            page.goto(url)
            times = page_claim_times(page, all_labs())
        finally:
            browser.close()
    print("\n".join(limit_lines(times)))


if __name__ == "__main__":
    main()
