"""Time the lesson site in headless Chromium, against a bare page that only boots the same Pyodide.

Run from the repository root with ``.venv/bin/python bench/site.py`` (the site must be built into
``site/``). One run prints a table of:

1. navigation start → Python ready on lesson 10, cold (fresh profile) and warm (persistent profile,
   reload after a first visit), against ``bench/bare/`` booting the same vendored Pyodide;
2. moving away from lesson 10 and back by the footer's nav links, then running its first example cell
   (click → output), and whether Python booted a second time during the visit;
3. the round trip of a ``print(1)`` cell, Run click → output in the page, and the worker alone;
4. lesson 10's checks with the finished pieces, Run checks click → every claim settled;
5. the bytes a first visit of lesson 10 transfers with an empty cache.

Times are taken on the page's own clock (``performance.now()``) by an init script and small in-page
helpers, so Playwright's round trips are not counted. The built site and the bare page are served
together from one temporary folder of symlinks, on 127.0.0.1, with the site's COOP/COEP headers.
"""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Request, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from labs.course import load_course
from scripts.serve import make_server
from site_tests.learner import replace_cell_code, stored_piece, type_into_gap

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
BARE = Path(__file__).resolve().parent / "bare"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 900}
LESSON = "lessons/10-order-of-blame/"
BARE_PAGE = "bare/"
WASM = "pyodide.asm.wasm"

BOOT_REPEATS = 3  # cold and warm boots of each page
NAV_REPEATS = 3  # lesson 10 → Hosting → lesson 10 round trips
CELL_WARMUP = 2  # print(1) runs done before timing
CELL_REPEATS = 20
CHECK_REPEATS = 5
TIMEOUT_MS = 120_000  # a cold boot on a busy two-core machine
TOP_FILES = 6

READY_RATIO_TARGET = 1.2
CELL_TARGET_MS = 20.0
CHECKS_TARGET_MS = 1000.0

# Runs in every document before its own scripts: notes each change of <html data-python> with the
# page's clock, and the moment of every click on a link (kept in sessionStorage, which outlives a reload).
INIT_SCRIPT = """
(() => {
  const bench = (window.__bench = { states: [], ready: null });
  new MutationObserver(() => {
    const state = document.documentElement.dataset.python;
    const last = bench.states[bench.states.length - 1];
    if (last && last[0] === state) return;
    const now = performance.now();
    bench.states.push([state, now]);
    if (state === "ready" && bench.ready === null) bench.ready = now;
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-python"] });
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (link) sessionStorage.setItem("bench:click", String(performance.timeOrigin + performance.now()));
  }, true);
})();
"""

# Click Run checks in the lab and answer the time until every claim has settled, with the claims' states.
CHECKS_JS = """
async () => {
  const lab = document.querySelector(".ember-lab");
  const button = [...lab.querySelectorAll("button")].find((b) => b.textContent === "Run checks");
  const claims = [...lab.querySelectorAll(".ember-claims li")];
  const settled = () => !button.disabled && claims.every((li) => !["running", "idle"].includes(li.dataset.state));
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!settled()) return;
      observer.disconnect();
      resolve({ ms: performance.now() - started, states: claims.map((li) => li.dataset.state) });
    });
    observer.observe(lab, { subtree: true, attributes: true, attributeFilter: ["data-state", "disabled"] });
    const started = performance.now();
    button.click();
  });
}
"""

# Run one example cell `repeats` times; each time: Run click → expected output in the DOM, and → next frame.
CELL_JS = """
async ({ index, repeats, expected }) => {
  const holder = document.querySelectorAll(".ember-cell")[index];
  const run = holder.querySelector(".ember-run");
  const output = holder.querySelector(".ember-output");
  const once = () => new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (run.disabled || output.textContent.trim() !== expected) return;
      observer.disconnect();
      const dom = performance.now() - started;
      requestAnimationFrame(() => resolve({ dom, frame: performance.now() - started }));
    });
    observer.observe(holder, { subtree: true, childList: true, characterData: true, attributes: true });
    const started = performance.now();
    run.click();
  });
  const results = [];
  for (let i = 0; i < repeats; i++) {
    results.push(await once());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return results;
}
"""

# Click the first cell's Run as soon as this runs; answer absolute times (ms since the epoch) and the outcome.
FIRST_CELL_JS = """
async () => {
  const clock = () => performance.timeOrigin + performance.now();
  const holder = document.querySelector(".ember-cell");
  const run = holder.querySelector(".ember-run");
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (run.disabled || !holder.dataset.state) return;
      observer.disconnect();
      const output = holder.querySelector(".ember-output");
      resolve({ clicked, done: clock(), state: holder.dataset.state, svg: output.querySelectorAll("svg").length,
                text: output.textContent.slice(0, 120) });
    });
    observer.observe(holder, { subtree: true, childList: true, attributes: true });
    const clicked = clock();
    run.click();
  });
}
"""

# In the Python worker: hand it a run request directly and catch its reply, `repeats` times (no postMessage).
WORKER_JS = """
async ({ payload, repeats }) => {
  const times = [];
  let reply = null;
  for (let i = 0; i < repeats; i++) {
    const answered = new Promise((resolve) => { self.postMessage = resolve; });
    const started = performance.now();
    self.onmessage({ data: { id: -1, type: "run", payload } });
    reply = await answered;
    times.push(performance.now() - started);
  }
  delete self.postMessage;
  return { times, reply };
}
"""


@dataclass
class Watch:
    """The requests of one browser context, and anything that went wrong on its pages."""

    requests: list[Request] = field(default_factory=list)
    finished: list[Request] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def attach(self, context: BrowserContext) -> None:
        """Record the context's requests (its workers' too), failures and page errors."""
        context.on("request", lambda r: self.requests.append(r))
        context.on("requestfinished", lambda r: self.finished.append(r))
        context.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} ({r.failure})"))
        context.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))
        context.on("weberror", lambda e: self.problems.append(f"page error: {e.error}"))
        context.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))

    def count(self, name: str) -> int:
        """How many requests asked for a file of this name."""
        return sum(urlparse(r.url).path.endswith("/" + name) for r in self.requests)

    def foreign(self) -> list[str]:
        """Requests that went anywhere but 127.0.0.1."""
        return [r.url for r in self.requests
                if urlparse(r.url).scheme in ("http", "https", "ws", "wss") and urlparse(r.url).hostname != "127.0.0.1"]


@dataclass
class Row:
    """One figure of the table: its values, and the bare baseline's if it has one."""

    name: str
    values: list[float]
    unit: str = "ms"
    baseline: list[float] | None = None
    target: str = ""
    met: bool | None = None
    p90: bool = False


@dataclass
class Report:
    """Everything one run measured, plus notes on what looked slow or broken."""

    rows: list[Row] = field(default_factory=list)
    top_files: list[tuple[str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    """The 90th percentile by nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


@contextmanager
def serve() -> Iterator[str]:
    """Serve the built site with bench/bare/ beside it (as /bare/), same origin, on 127.0.0.1."""
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as folder:
        root = Path(folder)
        for entry in SITE.iterdir():
            (root / entry.name).symlink_to(entry)
        (root / "bare").symlink_to(BARE)
        server = make_server(root, 0, isolate=True, quiet=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()


def new_context(browser: Browser, watch: Watch) -> BrowserContext:
    """A fresh, empty profile (cold HTTP cache) with the timing init script."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(INIT_SCRIPT)
    watch.attach(context)
    return context


def wait_ready(page: Page) -> float:
    """Wait for Python to be ready; answer when it became so, in ms since this document's navigation start."""
    page.wait_for_function(
        """() => window.__bench
          && (window.__bench.ready !== null || document.documentElement.dataset.python === "failed")""",
        polling=100, timeout=TIMEOUT_MS)
    ready = page.evaluate("window.__bench.ready")
    if ready is None:
        raise RuntimeError(f"Python failed to start on {page.url}: {page.locator('body').inner_text()[:300]}")
    return float(ready)


def wait_idle(page: Page, since: int) -> None:
    """Wait until Python went through "running" after the ``since``-th state change and is ready again."""
    page.wait_for_function(
        """since => {
          const states = window.__bench.states;
          return states.slice(since).some(([s]) => s === "running") && states[states.length - 1][0] === "ready";
        }""",
        arg=since, polling=50, timeout=TIMEOUT_MS)


def state_count(page: Page) -> int:
    return int(page.evaluate("window.__bench.states.length"))


def wait_lab(page: Page) -> None:
    """Wait until the lab's editors are built by Python."""
    page.wait_for_selector(".ember-lab[data-ready=true]", state="attached", timeout=TIMEOUT_MS)


def weigh(page: Page, watch: Watch) -> tuple[int, list[tuple[str, int]]]:
    """Once the page is quiet: the response bodies' total size, and the size of each file."""
    page.wait_for_load_state("networkidle")
    sizes: dict[str, int] = defaultdict(int)
    for request in watch.finished:
        sizes[urlparse(request.url).path] += request.sizes()["responseBodySize"]
    ordered = sorted(sizes.items(), key=lambda item: -item[1])
    return sum(sizes.values()), ordered


def cold_ready(browser: Browser, url: str, report: Report, weigh_it: bool = False) -> float:
    """Navigation start → ready in a fresh profile; with ``weigh_it``, also weigh the visit into the report."""
    watch = Watch()
    context = new_context(browser, watch)
    try:
        page = context.new_page()
        page.goto(url)
        ready = wait_ready(page)
        if weigh_it:
            wait_lab(page)
            total, files = weigh(page, watch)
            report.rows.append(Row("5. bytes, first visit of lesson 10, empty cache", [total / 1e6], unit="MB",
                                   target="(report)"))
            report.top_files = files[:TOP_FILES]
            report.notes.append(f"first visit: {len(watch.finished)} responses, {len(files)} distinct files, "
                                f"{watch.count(WASM)} request(s) for {WASM}")
        note_problems(watch, report)
        return ready
    finally:
        context.close()


def warm_ready(playwright: Playwright, url: str, repeats: int, report: Report) -> list[float]:
    """Navigation start → ready on reloads in a persistent profile, after a first visit filled its cache."""
    watch = Watch()
    with tempfile.TemporaryDirectory(prefix="ember-profile-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=FLAGS, headless=True, viewport=VIEWPORT)
        try:
            context.add_init_script(INIT_SCRIPT)
            watch.attach(context)
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(url)
            wait_ready(page)
            page.wait_for_load_state("networkidle")
            times = []
            for _ in range(repeats):
                page.reload()
                times.append(wait_ready(page))
            note_problems(watch, report)
            return times
        finally:
            context.close()


def load_finished_pieces(page: Page) -> None:
    """Press the lab's "Load the finished pieces…" and wait until Python rebuilt the module."""
    since = state_count(page)
    page.locator(".ember-lab").get_by_role("button", name="Load the finished pieces of earlier lessons").click()
    page.locator(".ember-lab .ember-notice", has_text="Loaded").wait_for()
    wait_idle(page, since)


def time_checks(page: Page, report: Report) -> list[float]:
    """Type the finished backward into its gap, then time Run checks → every claim settled."""
    type_into_gap(page, "L10.backward", load_course().gaps["L10.backward"].finished)
    if stored_piece(page, "L10.backward") is None:
        report.notes.append("the finished backward did not reach localStorage after typing it into the gap")
    times = []
    for _ in range(CHECK_REPEATS):
        result = page.evaluate(CHECKS_JS)
        times.append(result["ms"])
        if any(state != "pass" for state in result["states"]):
            report.notes.append(f"checks with the finished pieces did not all pass: {result['states']}")
    return times


def time_trivial_cell(page: Page, index: int = 2) -> tuple[list[float], list[float]]:
    """Replace a cell's code with print(1); time Run → "1" in the DOM, and → the next animation frame."""
    replace_cell_code(page, index, "print(1)")
    page.evaluate(CELL_JS, {"index": index, "repeats": CELL_WARMUP, "expected": "1"})
    results = page.evaluate(CELL_JS, {"index": index, "repeats": CELL_REPEATS, "expected": "1"})
    return [r["dom"] for r in results], [r["frame"] for r in results]


def time_worker(page: Page, report: Report) -> list[float]:
    """The Python worker alone handling print(1): its message handler called in the worker, reply caught there."""
    workers = [w for w in page.workers if urlparse(w.url).path.endswith("/worker.js")]
    if not workers:
        report.notes.append(f"no Python worker found among {[w.url for w in page.workers]}")
        return []
    payload = page.evaluate("""() => {
      const saved = JSON.parse(localStorage.getItem("ember:v1") || '{"pieces":{}}').pieces;
      const pieces = Object.fromEntries(Object.entries(saved).map(([gap, entry]) => [gap, entry.code]));
      const lab = document.querySelector(".ember-page").dataset.lesson;
      return { page: location.pathname, lab, pieces, code: "print(1)" };
    }""")
    workers[0].evaluate(WORKER_JS, {"payload": payload, "repeats": CELL_WARMUP})
    result = workers[0].evaluate(WORKER_JS, {"payload": payload, "repeats": CELL_REPEATS})
    reply = result["reply"]
    if not reply.get("ok"):
        report.notes.append(f"the worker's reply to print(1) was not ok: {reply}")
    return result["times"]


def time_navigation(page: Page, watch: Watch, report: Report) -> tuple[list[float], list[float], list[float]]:
    """Lesson 10 → Hosting → lesson 10 by the footer links, then run cell 1 at once; answer, per round trip,
    the ms from the click back to lesson 10 to: the Run click, the cell's output, and Python ready."""
    to_output, to_run, to_ready = [], [], []
    for _ in range(NAV_REPEATS):
        origin = page.evaluate("performance.timeOrigin")
        page.get_by_role("link", name="Next: Hosting the course").click()
        page.wait_for_url("**/hosting/")
        page.get_by_role("link", name="Previous: 10 · The order of blame").click()
        page.wait_for_url("**/" + LESSON)
        page.locator(".ember-cell .ember-run").first.wait_for()
        result = page.evaluate(FIRST_CELL_JS)
        clicked = float(page.evaluate("sessionStorage.getItem('bench:click')"))
        to_run.append(result["clicked"] - clicked)
        to_output.append(result["done"] - clicked)
        ready = page.evaluate("performance.timeOrigin + window.__bench.ready")
        to_ready.append(max(0.0, ready - clicked))
        if result["state"] != "done" or not result["svg"]:
            report.notes.append(f"cell 1 after navigating back: state {result['state']}, "
                                f"{result['svg']} drawing(s), output {result['text']!r}")
        if page.evaluate("performance.timeOrigin") != origin:
            report.notes.append("navigation: following a footer link reloaded the whole page (instant navigation "
                                "did not take it over)")
    return to_run, to_output, to_ready


def session(browser: Browser, base: str, report: Report) -> None:
    """One visit as a learner: lesson 10 booted, its checks, a trivial cell, then away and back."""
    watch = Watch()
    context = new_context(browser, watch)
    try:
        page = context.new_page()
        page.goto(base + LESSON)
        wait_ready(page)
        wait_lab(page)
        load_finished_pieces(page)
        checks = time_checks(page, report)
        dom, frame = time_trivial_cell(page)
        worker = time_worker(page, report)
        to_run, to_output, to_ready = time_navigation(page, watch, report)
        boots = watch.count(WASM)
        second = "yes" if boots > 1 else "no"
        report.rows += [
            Row(f"2. nav click back to lesson 10 → cell 1 output (second boot: {second})", to_output,
                target="no second boot", met=boots == 1),
            Row("   of which: nav click → cell 1 Run clicked (page up)", to_run),
            Row("   nav click → Python ready again", to_ready),
            Row("3. print(1): Run click → output in DOM", dom, target=f"< {CELL_TARGET_MS:.0f} ms",
                met=median(dom) < CELL_TARGET_MS, p90=True),
            Row("   print(1): Run click → next animation frame", frame, p90=True),
            Row("   print(1): worker only (handler, no postMessage)", worker, p90=True),
            Row("4. Run checks → all claims settled (finished pieces)", checks, target=f"< {CHECKS_TARGET_MS:.0f} ms",
                met=median(checks) < CHECKS_TARGET_MS),
        ]
        report.notes.append(f"visit with navigation: {boots} request(s) for {WASM}, "
                            f"{watch.count('worker.js')} for worker.js, {watch.count('ember.js')} for ember.js")
        note_problems(watch, report)
    finally:
        context.close()


def note_problems(watch: Watch, report: Report) -> None:
    """Carry a context's failures and off-machine requests into the report, once each."""
    for problem in [*watch.problems, *(f"request off 127.0.0.1: {url}" for url in watch.foreign())]:
        if problem not in report.notes:
            report.notes.append(problem)


def boot_rows(lesson: list[float], bare: list[float], kind: str) -> Row:
    ratio = median(lesson) / median(bare)
    return Row(f"1. lesson 10 ready, {kind} (baseline: bare Pyodide)", lesson, baseline=bare,
               target=f"≤ {READY_RATIO_TARGET}× bare", met=ratio <= READY_RATIO_TARGET)


def number(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:.2f} MB"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}"


def print_report(report: Report, seconds: float) -> None:
    """The table, each figure's values, the heaviest files, and the notes."""
    header = ["figure", "median", "p90", "baseline", "ratio", "target", "met"]
    lines = []
    for row in report.rows:
        if not row.values:
            lines.append([row.name, "n/a", "", "", "", row.target, ""])
            continue
        base = number(median(row.baseline), row.unit) if row.baseline else ""
        ratio = f"{median(row.values) / median(row.baseline):.2f}×" if row.baseline else ""
        met = "" if row.met is None else ("yes" if row.met else "NO")
        lines.append([row.name, number(median(row.values), row.unit),
                      number(p90(row.values), row.unit) if row.p90 else "", base, ratio, row.target, met])
    widths = [max(len(str(line[i])) for line in [header, *lines]) for i in range(len(header))]
    rule = "  ".join("-" * w for w in widths)
    print("\nTimes in ms on the page's clock unless marked; medians of the values listed below.")
    print(rule)
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
    print(rule)
    for line in lines:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
    print(rule)
    print("\nValues:")
    for row in report.rows:
        values = ", ".join(number(v, row.unit) for v in row.values)
        print(f"  {row.name.strip()}: {values}")
        if row.baseline:
            print(f"      bare: {', '.join(number(v, row.unit) for v in row.baseline)}")
    print("\nHeaviest files of the first visit (response bodies):")
    for path, size in report.top_files:
        print(f"  {size / 1e6:8.3f} MB  {path}")
    print("\nNotes:")
    for note in report.notes or ["(none)"]:
        print(f"  - {note}")
    print(f"\nTotal run time: {seconds:.0f} s")


def main() -> None:
    """Serve, measure everything once, print the table."""
    if not (SITE / "index.html").exists():
        raise SystemExit("site/ is not built: run `.venv/bin/python scripts/build_site.py` first")
    started = time.monotonic()
    report = Report()
    with serve() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            cold_lesson, cold_bare = [], []
            for index in range(BOOT_REPEATS):  # the two pages take turns, so drift hits both alike
                cold_lesson.append(cold_ready(browser, base + LESSON, report, weigh_it=index == 0))
                cold_bare.append(cold_ready(browser, base + BARE_PAGE, report))
            session(browser, base, report)
        finally:
            browser.close()
        warm_lesson = warm_ready(playwright, base + LESSON, BOOT_REPEATS, report)
        warm_bare = warm_ready(playwright, base + BARE_PAGE, BOOT_REPEATS, report)
    bytes_row = next(row for row in report.rows if row.unit == "MB")
    others = [row for row in report.rows if row is not bytes_row]
    report.rows = [boot_rows(cold_lesson, cold_bare, "cold"), boot_rows(warm_lesson, warm_bare, "warm"),
                   *others, bytes_row]
    print_report(report, time.monotonic() - started)


if __name__ == "__main__":
    main()
