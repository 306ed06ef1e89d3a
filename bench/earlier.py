"""What the search for an earlier lesson's piece at fault (labs/checking/earlier.py) costs a check, in the page's
worker and in CPython.

Run from the repository root with ``.venv/bin/python bench/earlier.py`` (the site must be built into ``site/``).
For lessons 10 and 18, each case is one check request (what Run checks sends) on pieces of its own, in the order
below, in one worker (so that a verdict kept from an earlier request is used, as in a learner's session); the same
requests go to one CPython process. Earlier pieces "of one's own" are the finished ones with a comment added, so
that the search judges them (it skips pieces equal to the finished ones).

1. every piece finished: the lab passes and nothing is searched (the baseline);
2. lesson 10 with lesson 06's toposort broken and called by backward(): the note, found on the first claim;
3. lesson 18 with every earlier piece of one's own and a fault in the lab's own count_pairs: the search runs every
   earlier claim that judges them and finds nothing, then the same with the lab's gap changed (the kept verdict);
4. lesson 18 with lesson 16's rows broken.

Each figure is printed with its ratio to the same lab's baseline in the same place.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labs.checking.learner import finished_pieces  # noqa: E402
from labs.course.model import load_course  # noqa: E402
from site_tests.harness import SITE, launch, served  # noqa: E402
from site_tests.learner import START_WORKER  # noqa: E402

COURSE = load_course(checks=False)
REPEATS = 3  # baseline runs after the first, whose median is the baseline


def catalog(lesson_id: str, file: str, kind: str, name: str) -> dict[str, str]:
    with (COURSE.lesson(lesson_id).folder / file).open("rb") as handle:
        return next(entry for entry in tomllib.load(handle)[kind] if entry["name"] == name)["pieces"]


def own(pieces: dict[str, str]) -> dict[str, str]:
    return {gap_id: body.rstrip("\n") + "\n# mine\n" for gap_id, body in pieces.items()}


def lab_pieces(lab: str) -> dict[str, str]:
    return {gap_id: COURSE.gaps[gap_id].finished for gap_id in COURSE.lesson(lab).gaps}


def cases() -> list[tuple[str, str, dict[str, str]]]:
    """(name, lab, pieces) in the order they are sent."""
    sort_backward = catalog("L10", "also_right.toml", "variants",
                            "lesson 06's toposort, imported from the package beside scalar.py")
    broken_sort = catalog("L06", "known_wrong.toml", "mutants", "the order never reversed")
    swapped = catalog("L18", "known_wrong.toml", "mutants", "count_pairs with rows and columns swapped")
    other = {gap_id: body.replace("    return", "    # the same\n    return", 1) for gap_id, body in swapped.items()}
    leaf_rows = catalog("L16", "known_wrong.toml", "mutants", "rows that returns a new leaf Tensor")
    mine_17 = own(finished_pieces(COURSE, 17))
    return [
        *[("baseline", "L10", finished_pieces(COURSE, 10))] * (REPEATS + 1),
        ("toposort broken", "L10", own(finished_pieces(COURSE, 9)) | sort_backward | broken_sort),
        *[("baseline", "L18", finished_pieces(COURSE, 18))] * (REPEATS + 1),
        ("own earlier pieces, lab at fault: first", "L18", mine_17 | lab_pieces("L18") | swapped),
        ("own earlier pieces, lab at fault: changed", "L18", mine_17 | lab_pieces("L18") | other),
        ("rows broken", "L18", mine_17 | lab_pieces("L18") | leaf_rows),
    ]


CPYTHON = """
import json, sys, time
from labs.checking.pipeline import check_lesson
from labs.checking.learner import module_sources
from labs.course.model import load_course
course = load_course()
for lab, pieces in json.loads(sys.stdin.read()):
    start = time.perf_counter()
    report = check_lesson(lab, module_sources(course, lab, pieces), course=course)
    print(json.dumps({"ms": (time.perf_counter() - start) * 1000, "earlier": report.earlier and report.earlier.gap,
                      "passed": report.passed}))
"""


def in_cpython(requests: list[tuple[str, dict]]) -> list[dict]:
    done = subprocess.run([sys.executable, "-c", CPYTHON], input=json.dumps(requests), text=True, cwd=ROOT,
                          capture_output=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return [json.loads(line) for line in done.stdout.splitlines()]


def in_page(requests: list[tuple[str, dict]]) -> list[dict]:
    with sync_playwright() as driver, served(isolate=True) as url:
        browser = launch(driver)
        try:
            page = browser.new_context().new_page()
            page.goto(url)
            page.evaluate(START_WORKER, {"interrupts": True})
            answers = []
            for lab, pieces in requests:
                answer = page.evaluate("(p) => timed('check', p)", {"lab": lab, "pieces": pieces})
                earlier = answer["result"].get("earlier")
                answers.append({"ms": answer["ms"], "earlier": earlier and earlier["gap"],
                                "passed": answer["result"]["passed"]})
            return answers
        finally:
            browser.close()


def main() -> None:
    if not (SITE / "index.html").exists():
        sys.exit("site/ is not built: run `.venv/bin/python scripts/build_site.py` first")
    load = os.getloadavg()
    plan = cases()
    requests = [(lab, pieces) for _, lab, pieces in plan]
    places = {"CPython": in_cpython(requests), "page": in_page(requests)}
    for place, answers in places.items():
        print(f"== {place}")
        baselines = {}
        for lab in ("L10", "L18"):
            runs = [a["ms"] for (name, at, _), a in zip(plan, answers) if name == "baseline" and at == lab][1:]
            baselines[lab] = statistics.median(runs)
        for (name, lab, _), answer in zip(plan, answers):
            if name == "baseline":
                continue
            print(f"  {lab} {name}: {answer['ms']:.0f} ms ({answer['ms'] / baselines[lab]:.1f}x the passing check, "
                  f"{baselines[lab]:.0f} ms); note on {answer['earlier']}")
        print(f"  baselines: L10 {baselines['L10']:.0f} ms, L18 {baselines['L18']:.0f} ms")
    print(f"load average at the start {load[0]:.2f}, at the end {os.getloadavg()[0]:.2f}; {time.strftime('%H:%M')}")


if __name__ == "__main__":
    main()
