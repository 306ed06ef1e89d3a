"""How fast and how lean the learner's code runs in the page's Python worker.

Run from the repository root with ``.venv/bin/python bench/learner_code.py`` (the site must be built
into ``site/``). The built site is served twice on 127.0.0.1, with the cross-origin isolation headers
(the page shares an interrupt buffer with its worker) and without them, and in each a worker of the
page's own kind (``assets/gen/worker.js``) is booted as the page boots it. One run prints:

1. a pure-Python loop run inside the checks' time limit against the same loop outside it, in the same
   worker: the time limit's cost (isolated: the interrupt buffer; not isolated: sys.monitoring);
2. lesson 10's checks on the finished pieces, request → report, on both kinds of page;
3. ``print(1)`` as a cell, request → answer;
4. lesson 12's training cell (30 steps of the page's own code, finished pieces) run ten times in a row
   in one worker, and Pyodide's memory (its WebAssembly heap) after each run (measured first, in the
   fresh worker, after the page's earlier cells).

Times are medians taken on the page's clock (or Python's, for the loop), each figure against its
baseline from the same run, since the machine is shared and noisy.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from labs.checking.learner import finished_pieces
from labs.course.model import load_course
from labs.course.pages import example_cells, lesson_pages
from site_tests.harness import launch, served
from site_tests.learner import START_WORKER

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"

LOOP_REPEATS = 7
CHECK_REPEATS = 7
CELL_REPEATS = 20
TRAININGS = 10
TRAINING_CELL = 9  # lesson 12's "Your turn" training cell; the cells before it set up the model and data
MIB = 1024 * 1024

LOOP_TARGET = 1.2  # the loop inside the time limit, against outside it
CHECKS_TARGET_S = 0.5
CELL_TARGET_MS = 15.0
MEMORY_TARGET_MIB = 160.0
MEMORY_GROWTH_TARGET_MIB = 16.0  # from the sixth run to the tenth

LOOP = """
import time
from labs.checking.timelimit import mechanism, time_limit


def loop():
    total = 0.0
    for i in range(400_000):
        total += (i % 7) * 0.5
    return total


def timed():
    start = time.perf_counter()
    loop()
    return time.perf_counter() - start


outside = timed()
with time_limit(60, frozenset({"<cell>"})):  # "<cell>": the time limit watches this cell's code
    inside = timed()
print(mechanism(), outside, inside)
"""



def loop_times(text: str) -> tuple[str, float, float]:
    """What LOOP printed: the time limit's mechanism, and the loop's seconds outside and inside it."""
    how, outside, inside = text.split()
    return how, float(outside), float(inside)


MEMORY = "import pyodide_js\nprint(pyodide_js._module.HEAP8.length)"


def step(text: str) -> None:
    """Say on stderr what the run is doing (a run takes minutes)."""
    print(f"  {text}", file=sys.stderr, flush=True)


def cell(page: Page, lab: str, code: str, pieces: dict[str, str], where: str = "/bench/") -> dict:
    payload = {"page": where, "lab": lab, "pieces": pieces, "code": code}
    step(f"cell: {code.strip().splitlines()[0][:50]}")
    answer = page.evaluate("(p) => timed('run', p)", payload)
    error = answer["result"]["error"]
    if error:
        raise RuntimeError(f"the cell failed: {error['message']}\n{code}")
    return answer


def printed(answer: dict) -> str:
    return "".join(item.get("text", "") for item in answer["result"]["outputs"] if item["kind"] == "stdout")


def train_lesson_12(page: Page, course) -> list[int]:
    """Run lesson 12's cells up to its training cell, then that cell TRAININGS times: the memory after each."""
    pieces_12 = finished_pieces(course, 12)
    cells = example_cells(lesson_pages()["L12"])
    memory = [int(printed(cell(page, "L12", MEMORY, pieces_12)))]
    for code in cells[:TRAINING_CELL]:
        cell(page, "L12", code.code, pieces_12, "/lessons/12/")
    for _ in range(TRAININGS):
        cell(page, "L12", cells[TRAINING_CELL].code, pieces_12, "/lessons/12/")
        memory.append(int(printed(cell(page, "L12", MEMORY, pieces_12))))
    return memory


# The baseline for the memory figure: the same worker with the session's collection after a cell turned off.
NO_COLLECTION = "import labs.frontends.session\nlabs.session._CollectAfter.__exit__ = lambda self, *exc: None"


def memory_without_collection(page: Page, course) -> list[int]:
    """Lesson 12's training as in train_lesson_12, in a fresh worker that never collects after a cell."""
    assert page.evaluate(START_WORKER, {"interrupts": True}) is not None
    cell(page, "L12", NO_COLLECTION, finished_pieces(course, 12))
    return train_lesson_12(page, course)


def measure(page: Page, course) -> dict:
    """Every figure of one kind of page (isolated or not), from one worker."""
    pieces_10 = finished_pieces(course, 10)
    figures: dict = {"loop": [], "checks": [], "cell": [], "memory": []}
    figures["memory"] = train_lesson_12(page, course)  # first, in the fresh worker, as a learner opening lesson 12
    for _ in range(LOOP_REPEATS):
        how, outside, inside = loop_times(printed(cell(page, "L10", LOOP, pieces_10)))
        figures["mechanism"] = how
        figures["loop"].append((outside, inside))
    for _ in range(CHECK_REPEATS):
        answer = page.evaluate("(p) => timed('check', p)", {"lab": "L10", "pieces": pieces_10})
        if not answer["result"]["passed"]:
            raise RuntimeError("lesson 10's checks failed on the finished pieces")
        figures["checks"].append(answer["ms"] / 1000)
    for _ in range(CELL_REPEATS + 2):
        figures["cell"].append(cell(page, "L10", "print(1)", pieces_10)["ms"])
    figures["cell"] = figures["cell"][2:]
    return figures


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def report(label: str, figures: dict) -> list[str]:
    outside = statistics.median(o for o, _ in figures["loop"])
    inside = statistics.median(i for _, i in figures["loop"])
    ratio = inside / outside
    checks = statistics.median(figures["checks"])
    cell_ms = statistics.median(figures["cell"])
    memory = [m / MIB for m in figures["memory"]]
    growth = memory[-1] - memory[5]
    baseline = [m / MIB for m in figures.get("memory_uncollected", [])]
    p90 = sorted(figures["cell"])[int(0.9 * len(figures["cell"]))]
    return [
        f"## {label} (time limit through {figures['mechanism']})",
        f"1. loop of 400,000 turns: outside the time limit {outside * 1000:.0f} ms, inside {inside * 1000:.0f} ms: "
        f"{ratio:.2f}x (target <= {LOOP_TARGET}x: {met(ratio <= LOOP_TARGET)})",
        f"2. lesson 10's checks, finished pieces: median {checks:.2f} s "
        f"(runs {', '.join(f'{s:.2f}' for s in figures['checks'])}; target < {CHECKS_TARGET_S} s: "
        f"{met(checks < CHECKS_TARGET_S)})",
        f"3. print(1) as a cell: median {cell_ms:.1f} ms, p90 {p90:.1f} ms "
        f"(target < {CELL_TARGET_MS:.0f} ms: {met(cell_ms < CELL_TARGET_MS)})",
        f"4. Pyodide's memory (MiB) before lesson 12's training and after each of {TRAININGS} runs: "
        + ", ".join(f"{m:.0f}" for m in memory)
        + f"; max {max(memory):.0f} (target < {MEMORY_TARGET_MIB:.0f}: {met(max(memory) < MEMORY_TARGET_MIB)}), "
        f"runs 6 to 10 add {growth:.1f} (target <= {MEMORY_GROWTH_TARGET_MIB:.0f}: "
        f"{met(growth <= MEMORY_GROWTH_TARGET_MIB)})",
        *(["   the same without the collection after each cell (baseline): "
           + ", ".join(f"{m:.0f}" for m in baseline)] if baseline else []),
    ]


def main() -> None:
    if not (SITE / "index.html").exists():
        sys.exit("site/ is not built: run `bash scripts/test.sh` or `.venv/bin/python scripts/build_site.py` first")
    course = load_course()
    lines = [f"load average at the start: {load_average()}"]
    results = {}
    with sync_playwright() as driver:
        browser = launch(driver)
        for label, isolate in (("isolated page", True), ("page without isolation", False)):
            with served(isolate) as url:
                context = browser.new_context()
                context.add_init_script("try { localStorage.setItem('ember:offline', 'off'); } catch {}")
                page = context.new_page()
                page.goto(url)  # the home page: the worker is at assets/gen/worker.js from there
                assert page.evaluate(START_WORKER, {"interrupts": True}) == isolate
                results[label] = measure(page, course)
                if isolate:
                    results[label]["memory_uncollected"] = memory_without_collection(page, course)
                context.close()
            lines += report(label, results[label])
        browser.close()
    lines.append(f"load average at the end: {load_average()}")
    print("\n".join(lines))
    Path(ROOT / "bench" / "learner_code.json").write_text(json.dumps(results))


if __name__ == "__main__":
    main()
