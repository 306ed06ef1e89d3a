"""Time the lesson site in headless Chromium, against a bare page that only boots the same Pyodide.

Run from the repository root with ``.venv/bin/python bench/site.py`` (the site must be built into
``site/``). One run prints a table of:

1. navigation start → Python ready on lesson 10, cold (fresh profile) and warm (persistent profile,
   reload after a first visit has saved the course for offline use and stored Python's memory
   snapshot), against ``bench/bare/`` booting the same vendored Pyodide (warm: from the HTTP cache), and,
   cold, against that bare page on the lesson pages' standard library (its modules a start imports compiled
   at build time), which tells what the page itself adds;
   the two pages take turns, cold and warm, so that a shared machine's drift hits both alike (cold: which
   goes first alternates, after an uncounted visit that starts the browser), with the ratio round by round
   in the notes; the time lesson 10's lab is up (its editors built: what a learner waits for), cold and warm;
   and the lesson's reload with the browser offline;
2. moving from lesson 10 to the next page and back by the footer's nav links, running the first example
   cell where there is one (click → output), and whether Python booted a second time during the visit;
3. the round trip of a ``print(1)`` cell, Run click → output in the page, and the worker alone; and Stop on
   a cell running an endless loop, Stop click → Run enabled again, against that round trip;
4. lesson 10's checks with the finished pieces, Run checks click → every claim settled; and
   bench/learner_code.py's pure-Python loop in the page's own worker, inside the checks' time limit
   against outside it (worker's clock);
5. the bytes a first visit of lesson 10 transfers with an empty cache: until Python is ready, and in
   all once the course is saved for offline use (sizes as transferred: Chromium asks for Brotli on
   http://127.0.0.1, a trustworthy address, so these are the .br copies' sizes);
6. navigation start → the first cell's output in lesson 10's notebook (the JupyterLite app in
   ``site/notebook/``, its Pyodide kernel on the course's Pyodide), Run pressed as soon as the cell is
   visible: cold (fresh profile) and warm (a new tab in a persistent profile after a first visit that saved the
   notebook for offline use), against
   lesson 10's own cold and warm Python-ready times of the same run; with the page's main thread busy in
   long tasks before the cell was visible, and that plus Shift+Enter → output: how soon the first output
   could come if the app never waited on a file, a worker or storage;
7. the bytes that cold notebook visit transferred until that output, the notebook app's own files
   (``/notebook/``) apart from the course's shared ones, and ``site/notebook/`` on disk;
8. every lab's slowest claim against its time limit (bench/claim_limits.py);
9. lesson 10's cold and warm start in Chromium, Firefox and WebKit (bench/engines.py, which needs Firefox ESR,
   WebKitGTK's driver and Xvfb, as the test command installs them), each engine's ratio to Chromium's.

``--notebook`` measures only 6. and 7., with lesson 10's cold and warm starts taking turns with the notebook's
visits as their baseline, and prints the notebook's start timeline (its page's and its kernel worker's
milestones).

Times are taken on the page's own clock (``performance.now()``) by an init script and small in-page
helpers, so Playwright's round trips are not counted. A copy of the built site and the bare page are
served together from one temporary folder, on 127.0.0.1, with the site's COOP/COEP headers.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    ViewportSize,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from bench import engines
from bench.claim_limits import all_labs, limit_lines, page_claim_times
from bench.learner_code import LOOP, LOOP_TARGET, loop_times
from labs.course.model import load_course
from site_tests.harness import built_for_port, launch, launch_persistent, served
from site_tests.learner import replace_cell_code, stored_piece, type_into_gap

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
BARE = Path(__file__).resolve().parent / "bare"
PYODIDE_STDLIB = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
LESSON = "lessons/10-order-of-blame/"
BARE_PAGE = "bare/"
BARE_COMPILED_PAGE = "bare/?stdlib=course"  # bare Pyodide on the lesson pages' standard library
WASM = "pyodide.asm.wasm"

BOOT_REPEATS = 11  # cold and warm boots of each page (bare Pyodide's cold boots spread over 0.8 s in one run)
NAV_REPEATS = 3  # lesson 10 → Hosting → lesson 10 round trips
CELL_WARMUP = 2  # print(1) runs done before timing
CELL_REPEATS = 20
STOP_REPEATS = 5  # endless loops stopped
STOP_AFTER_MS = 300  # how long each loop runs before Stop is clicked
CHECK_REPEATS = 5
LOOP_REPEATS = 5
TIMEOUT_MS = 120_000  # a cold boot on a busy two-core machine
TOP_FILES = 6

COLD_RATIO_TARGET = 1.1  # issue 16's targets
WARM_RATIO_TARGET = 0.35
FIRST_VISIT_TARGET_MB = 7.0
OFFLINE_REPEATS = 3
CELL_TARGET_MS = 15.0
CHECKS_TARGET_MS = 500.0

NOTEBOOK = "notebook/notebooks/index.html?path=L10.ipynb"
NOTEBOOK_APP = "/notebook/"  # the notebook app's own files; everything else it loads is shared with the lessons
ENGINE_ROUNDS = 3  # 9.: lesson 10's cold and warm start in each engine, a fresh profile each round
NOTEBOOK_REPEATS = 3  # cold and warm notebook visits (each boots a kernel: 15-25 s on this machine)
NOTEBOOK_TIMEOUT_MS = 150_000  # the kernel starts its own Pyodide, with IPython, on a busy two-core machine
START_CELL = "await start('L10')"
START_LINE = "L10 · The order of blame"  # the first line the start cell prints
NOTEBOOK_SETTLE_MS = 15_000  # how long after that line the cell's prompt may still show it running
NOTEBOOK_RUN_TRIES = 3  # Shift+Enter presses, as site_tests/test_notebook.py makes them
NOTEBOOK_SAVED_MS = 300_000  # a first visit's saving of the notebook for offline use (45 MB on a busy machine)
NOTEBOOK_QUEUED_MS = 10_000  # the prompt shows [*] at once after a press that took, even while the kernel starts

# Runs in every document before its own scripts: notes each change of <html data-python> with the
# page's clock, and the moment of every click on a link (kept in sessionStorage, which outlives a reload).
INIT_SCRIPT = """
(() => {
  const bench = (window.__bench = { states: [], ready: null, lab: null });
  new MutationObserver(() => {
    const now = performance.now();
    if (bench.lab === null && document.querySelector(".ember-lab[data-ready=true]")) bench.lab = now;
    const state = document.documentElement.dataset.python;
    const last = bench.states[bench.states.length - 1];
    if (last && last[0] === state) return;
    bench.states.push([state, now]);
    if (state === "ready" && bench.ready === null) bench.ready = now;
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-python", "data-ready"] });
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

# Run an endless loop in one cell `repeats` times; each time: Stop click → Run enabled again, and what the cell shows.
STOP_JS = """
async ({ index, repeats, after }) => {
  const holder = document.querySelectorAll(".ember-cell")[index];
  const run = holder.querySelector(".ember-run");
  const stop = holder.querySelector(".ember-stop");
  const results = [];
  for (let i = 0; i < repeats; i++) {
    run.click();
    await new Promise((resolve) => setTimeout(resolve, after));
    let started = 0;
    const stopped = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (run.disabled) return;
        observer.disconnect();
        resolve(performance.now() - started);
      });
      observer.observe(holder, { subtree: true, childList: true, attributes: true });
    });
    started = performance.now();
    stop.click();
    const ms = await stopped;
    results.push({ ms, text: holder.querySelector(".ember-output").textContent.slice(0, 120) });
    await new Promise((resolve) => setTimeout(resolve, 50));
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
  const post = self.postMessage; // an own property of the worker's global: put it back afterwards
  let reply = null;
  for (let i = 0; i < repeats; i++) {
    const answered = new Promise((resolve) => {
      self.postMessage = (message) => { if (!("progress" in message)) resolve(message); };
    });
    const started = performance.now();
    self.onmessage({ data: { id: -1, type: "run", payload } });
    reply = await answered;
    times.push(performance.now() - started);
  }
  self.postMessage = post;
  return { times, reply };
}
"""


# The page's milestones: its clock's origin, DOMContentLoaded, when some files arrived, and Python ready.
PAGE_MARKS_JS = """
() => {
  const files = {};
  for (const entry of performance.getEntriesByType("resource")) {
    const name = new URL(entry.name).pathname.split("/").pop();
    if (!(name in files)) files[name] = entry.responseEnd;
  }
  const navigation = performance.getEntriesByType("navigation")[0];
  const ready = window.__bench.ready;
  return { origin: performance.timeOrigin, dcl: navigation.domContentLoadedEventEnd, files, ready };
}
"""
PAGE_FILES = ("ember.js", "course.json")

# Runs in every document (acts only in the notebook app's): notes on the page's clock when the start cell is
# in the page, when Shift+Enter is pressed, when its prompt shows it running, when its first line is printed,
# and when it has run, and adds up the main thread's long tasks until the cell is in the page. Its prompt
# shows "*" right after its old outputs are cleared, so a warm visit's saved output cannot count.
NOTEBOOK_INIT_SCRIPT = f"""
(() => {{
  if (!location.pathname.includes("{NOTEBOOK_APP}")) return;
  const marks = (window.__notebook = {{ visible: null, pressed: null, running: null, output: null, done: null,
    busy: 0 }});
  new PerformanceObserver((list) => {{  // the main thread's long tasks (50 ms or more) begun before the cell showed
    for (const task of list.getEntries())
      if (marks.visible === null || task.startTime < marks.visible) marks.busy += task.duration;
  }}).observe({{ type: "longtask", buffered: true }});
  let cell = null;
  const find = () => [...document.querySelectorAll(".jp-Notebook .jp-CodeCell")]
    .find((c) => (c.querySelector(".jp-InputArea") || {{}}).textContent?.includes({json.dumps(START_CELL)}));
  document.addEventListener("keydown", (event) => {{
    if (event.key === "Enter" && event.shiftKey && marks.pressed === null) marks.pressed = performance.now();
  }}, true);
  const observer = new MutationObserver(() => {{
    const now = performance.now();
    if (!cell || !cell.isConnected) cell = find() || null;
    if (!cell) return;
    if (marks.visible === null) marks.visible = now;
    if (marks.pressed === null) return;
    const prompt = (cell.querySelector(".jp-InputPrompt") || {{}}).textContent || "";
    const output = (cell.querySelector(".jp-OutputArea") || {{}}).textContent || "";
    if (marks.running === null) {{
      if (prompt.includes("*")) marks.running = now;
      return;
    }}
    if (marks.output === null && output.includes({json.dumps(START_LINE)})) marks.output = now;
    if (!prompt.includes("*") && prompt.trim() !== "[ ]:") {{
      marks.done = now;
      observer.disconnect();
    }}
  }});
  observer.observe(document, {{ subtree: true, childList: true, characterData: true }});
}})();
"""

# The worker's clock origin (when it started) and its fetches.
WORKER_MARKS_JS = """
() => ({
  origin: performance.timeOrigin,
  entries: performance.getEntriesByType("resource")
    .map((e) => ({ name: e.name, start: e.startTime, end: e.responseEnd })),
  marks: performance.getEntriesByType("mark").map((e) => ({ name: e.name, at: e.startTime })),
})
"""
WORKER_FILES = (  # (label, part of the URL, "start" or "end"); the earliest matching fetch counts
    ("worker: manifest.json loaded", "/manifest.json", "end"),
    ("worker: pyodide.asm.wasm loaded", "/pyodide.asm.wasm", "end"),
    ("worker: stdlib.zip loaded", "/stdlib.zip", "end"),
    ("worker: first wheel asked for", "/wheels/", "start"),
    ("worker: course zip asked for", "/py/course-", "start"),
)


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
        context.on("response", self.answered)
        context.on("weberror", lambda e: self.problems.append(f"page error: {e.error}"))
        context.on("console", self.logged)

    def answered(self, r: Response) -> None:
        """Record an HTTP error."""
        if r.status >= 400:
            self.problems.append(f"HTTP {r.status}: {r.url}")

    def logged(self, m: ConsoleMessage) -> None:
        """Record an error on a page's console."""
        if m.type == "error":
            self.problems.append(f"console error on {urlparse(m.page.url).path if m.page else '?'}: {m.text} "
                                 f"({m.location.get('url')})")

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
    timelines: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    notes: dict[str, int] = field(default_factory=dict)

    def note(self, text: str) -> None:
        """Keep a note, counting repeats of the same one."""
        self.notes[text] = self.notes.get(text, 0) + 1


def median(values: list[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count)."""
    return statistics.median(values)


def p90(values: list[float]) -> float:
    """The 90th percentile by nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


@contextmanager
def serve() -> Iterator[str]:
    """Serve a copy of the built site (a rebuild during the run cannot touch it) with bench/bare/ beside it
    as /bare/: one origin, on 127.0.0.1, with the site's own headers."""
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as folder:
        root = Path(folder)
        shutil.copytree(SITE, root, dirs_exist_ok=True)
        manifest = json.loads((root / "assets/gen/manifest.json").read_text())
        missing = [name for name in [manifest["bundle"], *(f"wheels/{w}" for w in manifest["wheels"])]
                   if not (root / "assets/gen" / name).exists()]
        if missing:
            raise SystemExit(f"site/ looks half-built (missing {missing}): rebuild it and run again")
        (root / "bare").symlink_to(BARE)
        # Bare Pyodide's own standard library, beside its other files: the site ships only the course's.
        shutil.copy2(PYODIDE_STDLIB, root / "assets/gen/pyodide/python_stdlib.zip")
        # on the port the site was built for: instant navigation works only there
        with served(True, built_for_port(), folder=root) as url:
            yield url


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


def lab_up(page: Page) -> float:
    """Wait until the lab's editors are built; answer when they were, in ms since this document's navigation
    start (on a lesson page, the moment a learner can edit a gap and run its checks)."""
    page.wait_for_function("() => window.__bench && window.__bench.lab !== null", polling=100, timeout=TIMEOUT_MS)
    return float(page.evaluate("window.__bench.lab"))


def weigh(page: Page, watch: Watch) -> tuple[int, list[tuple[str, int]]]:
    """Once the page is quiet: the response bodies' total size, and the size of each file."""
    page.wait_for_load_state("networkidle")
    ordered = sizes_by_path(watch.finished)
    return sum(size for _, size in ordered), ordered


def boot_timeline(page: Page) -> list[tuple[str, float]]:
    """Milestones of the boot just done, in ms from navigation start: the page's and its worker's resource timings."""
    marks = page.evaluate(PAGE_MARKS_JS)
    timeline = [("DOMContentLoaded", marks["dcl"])]
    timeline += [(f"page: {name} loaded", marks["files"][name]) for name in PAGE_FILES if name in marks["files"]]
    pythons = [w for w in page.workers if urlparse(w.url).path.endswith("/worker.js")]  # not the timer's worker
    if pythons:
        worker = pythons[-1].evaluate(WORKER_MARKS_JS)
        shift = worker["origin"] - marks["origin"]
        timeline.append(("worker started", shift))
        for label, part, edge in WORKER_FILES:
            found = [entry for entry in worker["entries"] if part in entry["name"]]
            if found:
                timeline.append((label, shift + min(entry[edge] for entry in found)))
        timeline += [(f"worker: {mark['name']}", shift + mark["at"]) for mark in worker["marks"]]
    timeline.append(("Python ready", marks["ready"]))
    return sorted(timeline, key=lambda mark: mark[1])


def cold_ready(browser: Browser, url: str, report: Report, label: str = "", weigh_it: bool = False,
               labs: list[float] | None = None) -> float:
    """Navigation start → ready in a fresh profile; with ``label``, keep its boot timeline under that name,
    with ``labs``, add the time its lab was up to it, and with ``weigh_it``, weigh the visit into the report too."""
    watch = Watch()
    context = new_context(browser, watch)
    try:
        page = context.new_page()
        page.goto(url)
        ready = wait_ready(page)
        if label:
            report.timelines[label] = boot_timeline(page)
        if labs is not None:
            labs.append(lab_up(page))
        if weigh_it:
            wait_lab(page)
            total, files = weigh(page, watch)
            report.rows.append(Row("5. bytes, first visit of lesson 10 until its lab is up (compressed)", [total / 1e6],
                                   unit="MB", target=f"≤ {FIRST_VISIT_TARGET_MB:.0f} MB",
                                   met=total / 1e6 <= FIRST_VISIT_TARGET_MB))
            report.top_files = files[:TOP_FILES]
            report.note(f"first visit: {len(watch.finished)} responses, {len(files)} distinct files, "
                        f"{watch.count(WASM)} request(s) for {WASM}")
            started = time.monotonic()
            wait_saved(page)
            saved_after = time.monotonic() - started
            total, files = weigh(page, watch)
            report.rows.append(Row("   bytes, the same visit once saved for offline use (snapshot, every file)",
                                   [total / 1e6], unit="MB", target="(report)"))
            report.note(f"first visit: saved for offline use {saved_after:.1f} s after its lab was up; "
                        f"{len(watch.finished)} responses in all")
        note_problems(watch, report)
        return ready
    finally:
        context.close()


def wait_saved(page: Page) -> None:
    """Wait until the page says the course is available offline (its snapshot is stored before that)."""
    page.wait_for_selector("html[data-offline=ready]", state="attached", timeout=TIMEOUT_MS)


@dataclass
class WarmProfile:
    """A persistent profile whose first visit of a page filled its caches (for a lesson: saved for offline use,
    snapshot stored), reloaded again and again."""

    label: str
    context: BrowserContext
    page: Page
    watch: Watch
    lesson: bool
    times: list[float] = field(default_factory=list)
    labs: list[float] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)

    def reload(self) -> None:
        self.page.reload()
        self.times.append(wait_ready(self.page))
        if self.lesson:
            self.labs.append(lab_up(self.page))
        self.starts.append(self.page.evaluate("document.documentElement.dataset.pythonStart || 'bare'"))


def warm_profile(playwright: Playwright, folder: str, url: str, label: str, lesson: bool) -> WarmProfile:
    """Open a persistent profile in ``folder`` and make the first visit of ``url``."""
    watch = Watch()
    context = launch_persistent(playwright, folder, viewport=VIEWPORT)
    context.add_init_script(INIT_SCRIPT)
    watch.attach(context)
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(url)
    wait_ready(page)
    if lesson:
        wait_saved(page)
    page.wait_for_load_state("networkidle")
    return WarmProfile(label, context, page, watch, lesson)


def warm_ready(playwright: Playwright, lesson_url: str, bare_url: str,
               report: Report) -> tuple[WarmProfile, WarmProfile, list[float]]:
    """Navigation start → ready on reloads of lesson 10 and of bare Pyodide, each in a persistent profile after a
    first visit filled its caches, taking turns (so that drift of a shared machine hits both alike); then reloads
    of the lesson with the browser offline. Keeps each page's last reload's boot timeline. Answers the lesson's
    profile and bare Pyodide's (their times) and the lesson's offline times."""
    with tempfile.TemporaryDirectory(prefix="ember-profile-") as lesson_folder, \
            tempfile.TemporaryDirectory(prefix="ember-profile-") as bare_folder:
        lesson = warm_profile(playwright, lesson_folder, lesson_url, "lesson 10", lesson=True)
        try:
            bare = warm_profile(playwright, bare_folder, bare_url, "bare", lesson=False)
            try:
                for _ in range(BOOT_REPEATS):
                    lesson.reload()
                    bare.reload()
                for warm in (lesson, bare):
                    report.timelines[f"{warm.label}, warm (last reload)"] = boot_timeline(warm.page)
                note_problems(bare.watch, report)  # the lesson's, once its offline reloads are in too
            finally:
                bare.context.close()
            offline = []
            lesson.context.set_offline(True)
            for _ in range(OFFLINE_REPEATS):
                lesson.page.reload()
                offline.append(wait_ready(lesson.page))
                lesson.starts.append(lesson.page.evaluate("document.documentElement.dataset.pythonStart"))
            lesson.context.set_offline(False)
            report.note(f"lesson 10: warm and offline reloads started Python from: {', '.join(lesson.starts)}")
            note_problems(lesson.watch, report)
            return lesson, bare, offline
        finally:
            lesson.context.close()


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
        report.note("the finished backward did not reach localStorage after typing it into the gap")
    times = []
    for _ in range(CHECK_REPEATS):
        result = page.evaluate(CHECKS_JS)
        times.append(result["ms"])
        if any(state != "pass" for state in result["states"]):
            report.note(f"checks with the finished pieces did not all pass: {result['states']}")
    return times


def time_trivial_cell(page: Page, index: int = 2) -> tuple[list[float], list[float]]:
    """Replace a cell's code with print(1); time Run → "1" in the DOM, and → the next animation frame."""
    replace_cell_code(page, index, "print(1)")
    page.evaluate(CELL_JS, {"index": index, "repeats": CELL_WARMUP, "expected": "1"})
    results = page.evaluate(CELL_JS, {"index": index, "repeats": CELL_REPEATS, "expected": "1"})
    return [r["dom"] for r in results], [r["frame"] for r in results]


def time_stop(page: Page, report: Report, index: int = 2) -> list[float]:
    """Replace a cell's code with an endless loop; time Stop click → Run enabled again, STOP_REPEATS times."""
    replace_cell_code(page, index, "while True:\n    pass")
    results = page.evaluate(STOP_JS, {"index": index, "repeats": STOP_REPEATS, "after": STOP_AFTER_MS})
    for text in sorted({r["text"] for r in results}):
        report.note(f"lesson 10: a stopped endless loop shows {text!r}")
    return [r["ms"] for r in results]


def python_worker(page: Page, report: Report):
    """The page's Python worker (not the timer's), or None with a note."""
    workers = [w for w in page.workers if urlparse(w.url).path.endswith("/worker.js")]
    if not workers:
        report.note(f"no Python worker found among {[w.url for w in page.workers]}")
        return None
    return workers[0]


def run_payload(page: Page, code: str) -> dict:
    """A run request for ``code`` on this page, with the learner's saved pieces, as the page sends one."""
    return page.evaluate("""(code) => {
      const saved = JSON.parse(localStorage.getItem("ember:v1") || '{"pieces":{}}').pieces;
      const pieces = Object.fromEntries(Object.entries(saved).map(([gap, entry]) => [gap, entry.code]));
      const lab = document.querySelector(".ember-page").dataset.lesson;
      return { page: location.pathname, lab, pieces, code };
    }""", code)


def time_worker(page: Page, report: Report) -> list[float]:
    """The Python worker alone handling print(1): its message handler called in the worker, reply caught there."""
    worker = python_worker(page, report)
    if worker is None:
        return []
    payload = run_payload(page, "print(1)")
    worker.evaluate(WORKER_JS, {"payload": payload, "repeats": CELL_WARMUP})
    result = worker.evaluate(WORKER_JS, {"payload": payload, "repeats": CELL_REPEATS})
    reply = result["reply"]
    if not reply.get("ok"):
        report.note(f"the worker's reply to print(1) was not ok: {reply}")
    return result["times"]


def time_loop(page: Page, report: Report) -> list[tuple[float, float]]:
    """bench/learner_code.py's pure-Python loop, in the page's own worker: seconds outside and inside the
    checks' time limit, LOOP_REPEATS times."""
    worker = python_worker(page, report)
    if worker is None:
        return []
    payload = run_payload(page, LOOP)
    times: list[tuple[float, float]] = []
    for _ in range(LOOP_REPEATS):
        reply = worker.evaluate(WORKER_JS, {"payload": payload, "repeats": 1})["reply"]
        answer = reply["result"] if reply.get("ok") else {}
        if not answer or answer.get("error"):
            report.note(f"the loop did not run in the page's worker: {reply}")
            return times
        text = "".join(item.get("text", "") for item in answer["outputs"] if item["kind"] == "stdout")
        how, outside, inside = loop_times(text)
        report.note(f"lesson 10's page: the time limit works through {how}")
        times.append((outside * 1000, inside * 1000))
    return times


@dataclass
class Leg:
    """One move by a footer nav link, timed from the click (ms): the page reached, and its first cell's run."""

    title: str
    reloaded: bool
    to_ready: float | None = None
    to_run: float | None = None
    to_output: float | None = None
    cell: str = ""


def follow(page: Page, link: str) -> Leg:
    """Click a footer nav link; once there, wait for Python if the page boots it, and run the first cell at once."""
    origin, url = page.evaluate("performance.timeOrigin"), page.url
    title = page.title()
    page.locator(link).click()
    page.wait_for_url(lambda now: now != url)
    page.wait_for_load_state("domcontentloaded")
    # With instant navigation the address changes before the new content is in: wait for the new page itself.
    page.wait_for_function("title => document.title !== title", arg=title, timeout=TIMEOUT_MS)
    leg = Leg(page.title().split(" - ")[0], page.evaluate("performance.timeOrigin") != origin)
    clicked = float(page.evaluate("sessionStorage.getItem('bench:click')"))
    if page.locator(".ember-cell").count():
        page.locator(".ember-cell .ember-run").first.wait_for()
        result = page.evaluate(FIRST_CELL_JS)
        leg.to_run, leg.to_output = result["clicked"] - clicked, result["done"] - clicked
        leg.cell = f"state {result['state']}, {result['svg']} drawing(s), output {result['text'][:60]!r}"
    if page.locator(".ember-page").count():
        wait_ready(page)
        leg.to_ready = max(0.0, page.evaluate("performance.timeOrigin + window.__bench.ready") - clicked)
    return leg


def time_navigation(page: Page, report: Report) -> list[Leg]:
    """From lesson 10, NAV_REPEATS times: footer "Next" to the following page, then "Previous" back."""
    legs = []
    for _ in range(NAV_REPEATS):
        legs.append(follow(page, "a.md-footer__link--next"))
        legs.append(follow(page, "a.md-footer__link--prev"))
    for leg in legs:
        if leg.reloaded:
            report.note("navigation: following a footer link reloaded the whole page (instant navigation did not "
                        "take it over)")
        if leg.cell and not leg.cell.startswith("state done"):
            report.note(f"first cell of {leg.title} after navigating: {leg.cell}")
    return legs


def navigation_rows(legs: list[Leg], boots: int) -> list[Row]:
    """Rows for the moves: per page reached, click → first cell output, → Run clicked, → Python ready."""
    rows = []
    titles = list(dict.fromkeys(leg.title for leg in legs))
    for title in sorted(titles, key=lambda t: "10 ·" not in t):  # back to lesson 10 first: the main figure
        mine = [leg for leg in legs if leg.title == title]
        outputs = [leg.to_output for leg in mine if leg.to_output is not None]
        if outputs:
            second = "yes" if boots > 1 else "no"
            rows.append(Row(f"2. nav click → {title}: cell 1 output (second boot: {second})", outputs,
                            target="no second boot", met=boots == 1))
            rows.append(Row("   of which: nav click → cell 1 Run clicked (page up)",
                            [leg.to_run for leg in mine if leg.to_run is not None]))
        else:
            rows.append(Row(f"2. nav click → {title} (no example cell there)", []))
        readies = [leg.to_ready for leg in mine if leg.to_ready is not None]
        if readies:
            rows.append(Row(f"   nav click → Python ready on {title}", readies))
    return rows


def progress(step: str) -> None:
    """Say on stderr which step of the run has finished (a run takes minutes)."""
    print(f"  done: {step}", file=sys.stderr, flush=True)


def session(browser: Browser, base: str, report: Report) -> None:
    """One visit as a learner: lesson 10 booted, its checks, a trivial cell, then away and back."""
    watch = Watch()
    context = new_context(browser, watch)
    try:
        page = context.new_page()
        page.goto(base + LESSON)
        wait_ready(page)
        wait_lab(page)
        wait_saved(page)  # the one-off background work (snapshot, saving every file) done: a steady state
        progress('wait_ready')
        load_finished_pieces(page)
        progress('load_finished_pieces')
        checks = time_checks(page, report)
        progress('time_checks')
        dom, frame = time_trivial_cell(page)
        progress('time_trivial_cell')
        stops = time_stop(page, report)
        progress('time_stop')
        worker = time_worker(page, report)
        progress('time_worker')
        loop = time_loop(page, report)
        progress('time_loop')
        legs = time_navigation(page, report)
        progress('time_navigation')
        # Boots of the page's Python: each one sets the page's state to "starting" (the background worker that
        # makes the snapshot and the service worker's saving also fetch the wasm, so requests do not tell).
        boots = int(page.evaluate("window.__bench.states.filter(([state]) => state === 'starting').length"))
        report.rows += [
            *navigation_rows(legs, boots),
            Row("3. print(1): Run click → output in DOM", dom, target=f"< {CELL_TARGET_MS:.0f} ms",
                met=median(dom) < CELL_TARGET_MS, p90=True),
            Row("   print(1): Run click → next animation frame", frame, p90=True),
            Row("   print(1): worker only (handler, no postMessage)", worker, p90=True),
            Row("   Stop on an endless loop: Stop click → Run enabled (baseline: print(1), Run click → output)",
                stops, baseline=dom, target="(report)", p90=True),
            Row("4. Run checks → all claims settled (finished pieces)", checks, target=f"< {CHECKS_TARGET_MS:.0f} ms",
                met=median(checks) < CHECKS_TARGET_MS),
            Row("   400,000-turn loop inside a check's time limit (baseline: outside it), worker's clock",
                [inside for _, inside in loop], baseline=[outside for outside, _ in loop] or None,
                target=f"≤ {LOOP_TARGET}× outside",
                met=bool(loop) and median([i for _, i in loop]) <= LOOP_TARGET * median([o for o, _ in loop])),
        ]
        pages = ", ".join(dict.fromkeys(leg.title for leg in legs))
        report.note(f"visit with {len(legs)} moves between lesson 10 and the next page ({pages}): {boots} boot(s) of "
                    f"Python; {watch.count(WASM)} request(s) for {WASM}, {watch.count('worker.js')} for worker.js "
                    f"(the snapshot's worker and the saving for offline use too), "
                    f"{watch.count('ember.js')} for ember.js")
        note_problems(watch, report)
    finally:
        context.close()


def note_problems(watch: Watch, report: Report) -> None:
    """Carry a context's failures and off-machine requests into the report, once each."""
    for problem in [*watch.problems, *(f"request off 127.0.0.1: {url}" for url in watch.foreign())]:
        report.note(problem)


@dataclass
class NotebookVisit:
    """One visit of lesson 10's notebook, in ms from its navigation start, and the start cell's output."""

    visible: float
    pressed: float
    output: float
    done: float | None  # None: its prompt still showed it running NOTEBOOK_SETTLE_MS after the output
    text: str
    busy: float  # the main thread's long tasks (≥ 50 ms each) begun before the start cell was visible
    timeline: list[tuple[str, float]] = field(default_factory=list)


KERNEL_WORKER = ".worker."  # the kernel's worker scripts: comlink.worker.<hash>.js, coincident.worker.<hash>.js
KERNEL_FILES = (  # (label, part of the URL, "start" or "end", "first" or "last" of the matching fetches)
    ("kernel: pyodide.mjs asked for", "/pyodide.mjs", "start", "first"),
    ("kernel: pyodide.asm.wasm loaded", "/pyodide.asm.wasm", "end", "first"),
    ("kernel: stdlib.zip loaded", "/stdlib.zip", "end", "first"),
    ("kernel: first wheel asked for", "/wheels/", "start", "first"),
    ("kernel: last wheel loaded", "/wheels/", "end", "last"),
)


def notebook_timeline(page: Page, marks: dict) -> list[tuple[str, float]]:
    """The notebook's start, in ms from navigation start: the page's milestones (DOMContentLoaded, the start cell
    visible, Shift+Enter, its output) and its kernel worker's (started, its files, the end of each step of its
    start, marked by scripts/build_notebook.py)."""
    navigation = page.evaluate("""() => ({ origin: performance.timeOrigin,
      dcl: performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd })""")
    timeline = [("DOMContentLoaded", navigation["dcl"]), ("start cell visible", marks["visible"]),
                ("Shift+Enter", marks["pressed"]), ("start cell's first output", marks["output"])]
    if marks["done"] is not None:
        timeline.append(("start cell done (prompt)", marks["done"]))
    kernels = [w for w in page.workers if KERNEL_WORKER in urlparse(w.url).path.split("/")[-1]]
    if kernels:
        worker = kernels[-1].evaluate(WORKER_MARKS_JS)
        shift = worker["origin"] - navigation["origin"]
        timeline.append(("kernel worker started", shift))
        for label, part, edge, which in KERNEL_FILES:
            found = [entry[edge] for entry in worker["entries"] if part in entry["name"]]
            if found:
                timeline.append((label, shift + (min(found) if which == "first" else max(found))))
        timeline += [(mark["name"], shift + mark["at"]) for mark in worker["marks"]]
    return sorted(timeline, key=lambda mark: mark[1])


@dataclass
class NotebookRuns:
    """Every notebook visit of a run: cold and warm, the cold first visit's responses, and the requests seen."""

    cold: list[NotebookVisit] = field(default_factory=list)
    warm: list[NotebookVisit] = field(default_factory=list)
    first_visit: list[tuple[str, int]] = field(default_factory=list)  # (path, bytes) until the first output
    requests: int = 0
    foreign: list[str] = field(default_factory=list)


def notebook_context(context: BrowserContext, watch: Watch) -> None:
    """Ready a context for notebook visits: both init scripts, and its requests watched."""
    context.add_init_script(INIT_SCRIPT)
    context.add_init_script(NOTEBOOK_INIT_SCRIPT)
    watch.attach(context)


def run_first_cell(page: Page, url: str) -> NotebookVisit:
    """Open the notebook, click into the start cell as soon as it is visible, press Shift+Enter, and wait for its
    first line of output, then (at most NOTEBOOK_SETTLE_MS more) for its prompt to show it has run."""
    page.goto(url)
    cell = page.locator(".jp-Notebook .jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=START_CELL))
    editor = cell.first.locator(".jp-InputArea-editor .cm-content")
    editor.wait_for(state="visible", timeout=NOTEBOOK_TIMEOUT_MS)
    for _ in range(NOTEBOOK_RUN_TRIES):  # as a learner does when the key press did not take: click, press again
        editor.click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function("() => window.__notebook && window.__notebook.running !== null",
                                   polling=100, timeout=NOTEBOOK_QUEUED_MS)
            break
        except PlaywrightTimeoutError:
            continue
    try:
        page.wait_for_function("() => window.__notebook && window.__notebook.output !== null",
                               polling=100, timeout=NOTEBOOK_TIMEOUT_MS)
        page.wait_for_function("() => window.__notebook.done !== null", polling=100, timeout=NOTEBOOK_SETTLE_MS)
    except PlaywrightTimeoutError:
        pass
    marks = page.evaluate("window.__notebook")
    if marks["output"] is None:
        prompt = cell.first.locator(".jp-InputPrompt").inner_text()
        raise RuntimeError(f"the notebook's start cell did not print {START_LINE!r}: prompt {prompt!r}, "
                           f"marks {marks}")
    text = cell.first.locator(".jp-OutputArea").inner_text()
    return NotebookVisit(marks["visible"], marks["pressed"], marks["output"], marks["done"], text, marks["busy"],
                         notebook_timeline(page, marks))


def run_in_new_tab(context: BrowserContext, url: str, saved: bool = False) -> NotebookVisit:
    """``run_first_cell`` in a new tab of the context, closed afterwards (without its unload prompt); with ``saved``,
    only once its status says the notebook is saved for offline use (as a learner's first visit ends)."""
    page = context.new_page()
    try:
        visit = run_first_cell(page, url)
        if saved:
            page.wait_for_function("() => document.querySelector('#ember-notebook-status[data-offline=saved]')",
                                   polling=250, timeout=NOTEBOOK_SAVED_MS)
        return visit
    finally:
        page.close()


def sizes_by_path(requests: list[Request]) -> list[tuple[str, int]]:
    """The response bodies' size of each file asked for, heaviest first."""
    sizes: dict[str, int] = defaultdict(int)
    for request in requests:
        sizes[urlparse(request.url).path] += request.sizes()["responseBodySize"]
    return sorted(sizes.items(), key=lambda item: -item[1])


def notebook_cold(browser: Browser, url: str, runs: NotebookRuns, report: Report) -> None:
    """NOTEBOOK_REPEATS visits, each in a fresh profile; the first one's responses are kept for weighing."""
    for _ in range(NOTEBOOK_REPEATS):
        notebook_cold_visit(browser, url, runs, report)


def notebook_cold_visit(browser: Browser, url: str, runs: NotebookRuns, report: Report) -> None:
    """One visit in a fresh profile; the first cold visit's responses are kept for weighing."""
    watch = Watch()
    context = browser.new_context(viewport=VIEWPORT)
    notebook_context(context, watch)
    try:
        runs.cold.append(run_first_cell(context.new_page(), url))
        if len(runs.cold) == 1:  # the responses that had arrived when the start cell had run
            runs.first_visit = sizes_by_path(list(watch.finished))
        note_watch(watch, runs, report)
    finally:
        context.close()


@contextmanager
def notebook_warmed(playwright: Playwright, url: str, runs: NotebookRuns,
                    report: Report) -> Iterator[Callable[[], None]]:
    """A persistent profile after a first visit (cell run, the notebook saved for offline use, as it is when a
    learner comes back); answers a call that makes one more visit in a new tab, counted warm."""
    watch = Watch()
    with tempfile.TemporaryDirectory(prefix="ember-profile-") as profile:
        context = launch_persistent(playwright, profile, viewport=VIEWPORT)
        try:
            notebook_context(context, watch)
            run_in_new_tab(context, url, saved=True)
            for page in context.pages:  # the blank tab a persistent context opens with
                page.close()
            yield lambda: runs.warm.append(run_in_new_tab(context, url))
            note_watch(watch, runs, report)
        finally:
            context.close()


def notebook_warm(playwright: Playwright, url: str, runs: NotebookRuns, report: Report) -> None:
    """A first visit in a persistent profile (cell run, page quiet), then NOTEBOOK_REPEATS visits in new tabs."""
    with notebook_warmed(playwright, url, runs, report) as visit:
        for _ in range(NOTEBOOK_REPEATS):
            visit()


def note_watch(watch: Watch, runs: NotebookRuns, report: Report) -> None:
    """Count a notebook context's requests, keep any off 127.0.0.1, and carry its problems into the report."""
    runs.requests += len(watch.requests)
    runs.foreign += watch.foreign()
    note_problems(watch, report)


def folder_size(folder: Path) -> tuple[int, int, int]:
    """Files in a folder (all levels), their bytes, and the bytes of the .br and .gz copies among them."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    copies = sum(path.stat().st_size for path in files if path.suffix in (".br", ".gz"))
    return len(files), sum(path.stat().st_size for path in files), copies


def heaviest(files: list[tuple[str, int]], count: int = 3) -> str:
    """The first few of (path, bytes) pairs, heaviest first, as text."""
    return ", ".join(f"{path} {size / 1e6:.2f} MB" for path, size in files[:count])


def notebook_rows(runs: NotebookRuns, cold_lesson: list[float], warm_lesson: list[float],
                  report: Report) -> list[Row]:
    """Rows for the notebook: navigation → first output, cold and warm, against lesson 10's boots; its bytes."""
    rows = []
    for kind, visits, lesson in (("cold", runs.cold, cold_lesson), ("warm", runs.warm, warm_lesson)):
        rows.append(Row(f"6. notebook: navigation → start cell's output, {kind} (baseline: lesson 10 ready, {kind})",
                        [v.output for v in visits], baseline=lesson, target="(report)"))
        rows.append(Row("   of which: navigation → Shift+Enter (start cell visible)", [v.pressed for v in visits]))
        rows.append(Row("   the page's main thread in long tasks before the cell was visible",
                        [v.busy for v in visits]))
        rows.append(Row("   those long tasks + Shift+Enter → output (no waiting at all)",
                        [v.busy + v.output - v.pressed for v in visits], baseline=lesson, target="(report)"))
    app = [(path, size) for path, size in runs.first_visit if path.startswith(NOTEBOOK_APP)]
    shared = [(path, size) for path, size in runs.first_visit if not path.startswith(NOTEBOOK_APP)]
    app_bytes, shared_bytes = sum(size for _, size in app), sum(size for _, size in shared)
    files, on_disk, copies = folder_size(SITE / "notebook")
    rows += [
        Row("7. bytes, cold notebook visit until the start cell has run", [(app_bytes + shared_bytes) / 1e6],
            unit="MB", target="(report)"),
        Row(f"   of which the notebook app's own ({NOTEBOOK_APP})", [app_bytes / 1e6], unit="MB"),
        Row("   of which shared with the lessons (course Pyodide, other course files)", [shared_bytes / 1e6],
            unit="MB"),
        Row(f"   site/notebook/ on disk ({files} files)", [on_disk / 1e6], unit="MB"),
    ]
    pyodide = sum(size for path, size in shared if path.startswith("/assets/gen/pyodide/"))
    report.note(f"cold notebook visit: {len(app)} files of the app and {len(shared)} shared until the start cell "
                f"had run ({pyodide / 1e6:.2f} MB the course's Pyodide); heaviest of the app: {heaviest(app)}; "
                f"heaviest shared: {heaviest(shared)}")
    report.note(f"site/notebook/ on disk: {files} files, {on_disk / 1e6:.1f} MB, of which {copies / 1e6:.1f} MB "
                f"are the .br and .gz copies")
    report.note(f"notebook visits: {runs.requests} requests, {len(runs.foreign)} off 127.0.0.1"
                + (f" ({', '.join(sorted(set(runs.foreign))[:5])})" if runs.foreign else ""))
    for kind, visits in (("cold, first visit", runs.cold[:1]), ("warm, last visit", runs.warm[-1:])):
        if visits:
            report.timelines[f"lesson 10's notebook, {kind}"] = visits[0].timeline
    visits = runs.cold + runs.warm
    lines = sorted({v.text.strip().splitlines()[0] if v.text.strip() else "(none)" for v in visits})
    settled = [v.done - v.output for v in visits if v.done is not None]
    report.note(f"notebook start cell's first line: {' | '.join(lines)}; Shift+Enter → output, median cold "
                f"{median([v.output - v.pressed for v in runs.cold]):.0f} ms, warm "
                f"{median([v.output - v.pressed for v in runs.warm]):.0f} ms; output → prompt shows it has run: "
                + (f"median {median(settled):.0f} ms" if settled else "never")
                + (f"; in {len(visits) - len(settled)} of {len(visits)} visits the prompt still showed [*] "
                   f"{NOTEBOOK_SETTLE_MS / 1000:.0f} s after the output" if len(settled) < len(visits) else ""))
    return rows


def boot_rows(lesson: list[float], bare: list[float], kind: str, target: float) -> Row:
    ratio = median(lesson) / median(bare)
    return Row(f"1. lesson 10 ready, {kind} (baseline: bare Pyodide)", lesson, baseline=bare,
               target=f"≤ {target}× bare", met=ratio <= target)


def lab_row(labs: list[float], ready: list[float], kind: str) -> Row:
    """Navigation start → lesson 10's lab up (its editors built), with how long after Python's ready it came."""
    after = median([lab - at for lab, at in zip(labs, ready)])
    return Row(f"   lesson 10 lab up (editors built), {kind}: {after:.0f} ms after ready", labs, target="(report)")


def paired_ratios(lesson: list[float], bare: list[float], kind: str, baseline: str = "bare Pyodide's") -> str:
    """The lesson's time over the bare page's of the same round, round by round: the spread of the boot ratio."""
    ratios = sorted(a / b for a, b in zip(lesson, bare))
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return (f"lesson 10 ready, {kind}, round by round over {baseline} of the same round: median "
            f"{median(ratios):.2f}×, quartiles {quartiles[0]:.2f}–{quartiles[2]:.2f}×, "
            f"{sum(r <= 1 for r in ratios)} of {len(ratios)} rounds at or under 1×")


def number(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:.2f} MB"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}"


def print_report(report: Report, seconds: float, load: tuple[float, float, float]) -> None:
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
        values = ", ".join(number(v, row.unit) for v in row.values) or "(none)"
        print(f"  {row.name.strip()}: {values}")
        if row.baseline:
            print(f"      bare: {', '.join(number(v, row.unit) for v in row.baseline)}")
    for label, timeline in report.timelines.items():
        print(f"\nBoot timeline, {label} (ms from navigation start):")
        for name, at in timeline:
            print(f"  {at:8.0f}  {name}")
    print("\nHeaviest files of the first visit (response bodies):")
    for path, size in report.top_files:
        print(f"  {size / 1e6:8.3f} MB  {path}")
    print("\nNotes:")
    for note, count in report.notes.items():
        print(f"  - {note}" + (f" (×{count})" if count > 1 else ""))
    loads = (f"{', '.join(f'{x:.2f}' for x in when)}" for when in (load, os.getloadavg()))
    print(f"  - load average (1, 5, 15 min) at the start: {next(loads)}; at the end: {next(loads)} "
          f"({os.cpu_count()} CPUs)")
    print(f"\nTotal run time: {seconds:.0f} s")


def main() -> None:
    """Serve, measure everything once, print the table."""
    if not (SITE / "index.html").exists():
        raise SystemExit("site/ is not built: run `.venv/bin/python scripts/build_site.py` first")
    started, load = time.monotonic(), os.getloadavg()
    report, notebook = Report(), NotebookRuns()
    with serve() as base:
        with sync_playwright() as playwright:
            measured = measure_chromium(playwright, base, report, notebook)
        progress("lesson 10's start in Chromium, Firefox and WebKit")
        engine_times = engines.measure(base + LESSON, ["chromium", *engines.ENGINES], ENGINE_ROUNDS)
    cold_lesson, cold_bare, cold_compiled, cold_labs, warm, warm_bare, offline, claims = measured
    warm_lesson = warm.times
    bytes_rows = [row for row in report.rows if row.unit == "MB"]
    others = [row for row in report.rows if row not in bytes_rows]
    report.note(paired_ratios(cold_lesson, cold_bare, "cold"))
    report.note(paired_ratios(cold_lesson, cold_compiled, "cold", "bare Pyodide's on the course's standard library"))
    report.note(paired_ratios(warm_lesson, warm_bare.times, "warm"))
    report.rows = [boot_rows(cold_lesson, cold_bare, "cold", COLD_RATIO_TARGET),
                   Row("   lesson 10 ready, cold (baseline: bare Pyodide on the course's standard library)",
                       cold_lesson, baseline=cold_compiled, target="(report)"),
                   lab_row(cold_labs, cold_lesson, "cold"),
                   boot_rows(warm_lesson, warm_bare.times, "warm (from its snapshot)", WARM_RATIO_TARGET),
                   lab_row(warm.labs, warm_lesson, "warm"),
                   Row("   lesson 10 ready, reload with the browser offline", offline, target="(report)"),
                   *others, *bytes_rows, *notebook_rows(notebook, cold_lesson, warm_lesson, report)]
    print_report(report, time.monotonic() - started, load)
    print("\n" + "\n".join(limit_lines(claims)))
    print(f"\n9. lesson 10, navigation start → Python ready in each engine, median of {ENGINE_ROUNDS} (a fresh "
          "profile each round; bench/engines.py):")
    print("\n".join(engines.table(engine_times)))


def measure_chromium(playwright: Playwright, base: str, report: Report, notebook: NotebookRuns) -> tuple:
    """1.-8. in Chromium: the boots, the session, the claims, the notebook; answers what the rows are made of."""
    browser = launch(playwright)
    try:
        # The browser's first page pays for the browser's own start (its network service, its first
        # renderer): a bare visit takes it, uncounted. Then the two pages take turns, so that drift hits both
        # alike, and which goes first alternates, so that neither always follows the other's visit.
        warmup = cold_ready(browser, base + BARE_PAGE, report)
        report.note(f"the browser's first page, bare Pyodide, uncounted: ready in {warmup:.0f} ms")
        cold_lesson: list[float] = []
        cold_bare: list[float] = []
        cold_compiled: list[float] = []
        cold_labs: list[float] = []
        for index in range(BOOT_REPEATS):
            turns = [(LESSON, cold_lesson, "lesson 10"), (BARE_PAGE, cold_bare, "bare"),
                     (BARE_COMPILED_PAGE, cold_compiled, "bare on the course's standard library")]
            for path, times, name in turns if index % 2 == 0 else turns[::-1]:
                label = f"{name}, cold (first run)" if index == 0 else ""
                times.append(cold_ready(browser, base + path, report, label, index == 0 and path == LESSON,
                                        labs=cold_labs if path == LESSON else None))
        session(browser, base, report)
        claims = claim_times(browser, base)
        progress("every claim against its time limit")
        notebook_cold(browser, base + NOTEBOOK, notebook, report)
        progress("notebook, cold")
    finally:
        browser.close()
    warm, warm_bare, offline = warm_ready(playwright, base + LESSON, base + BARE_PAGE, report)
    notebook_warm(playwright, base + NOTEBOOK, notebook, report)
    progress("notebook, warm")
    return cold_lesson, cold_bare, cold_compiled, cold_labs, warm, warm_bare, offline, claims


def notebook_only() -> None:
    """``--notebook``: lesson 10's notebook, cold and warm, taking turns with lesson 10's own start (its baseline in
    the same run), and the notebook's start timeline; nothing else."""
    started, load = time.monotonic(), os.getloadavg()
    report, runs = Report(), NotebookRuns()
    cold_lesson: list[float] = []
    with serve() as base, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            cold_ready(browser, base + BARE_PAGE, report)  # the browser's own start, uncounted
            for index in range(NOTEBOOK_REPEATS):
                cold_lesson.append(cold_ready(browser, base + LESSON, report,
                                              "lesson 10, cold (first run)" if index == 0 else ""))
                notebook_cold_visit(browser, base + NOTEBOOK, runs, report)
            progress("notebook and lesson 10, cold")
        finally:
            browser.close()
        with tempfile.TemporaryDirectory(prefix="ember-profile-") as folder:
            lesson = warm_profile(playwright, folder, base + LESSON, "lesson 10", lesson=True)
            try:
                with notebook_warmed(playwright, base + NOTEBOOK, runs, report) as visit:
                    for _ in range(NOTEBOOK_REPEATS):
                        lesson.reload()
                        visit()
                report.timelines["lesson 10, warm (last reload)"] = boot_timeline(lesson.page)
                note_problems(lesson.watch, report)
            finally:
                lesson.context.close()
        progress("notebook and lesson 10, warm")
    report.rows = [Row("1. lesson 10 ready, cold", cold_lesson), Row("   lesson 10 ready, warm", lesson.times),
                   *notebook_rows(runs, cold_lesson, lesson.times, report)]
    print_report(report, time.monotonic() - started, load)


def claim_times(browser: Browser, base: str) -> list[dict]:
    """8. every lab's claims on the finished pieces, timed in a worker of the page's kind (bench/claim_limits.py)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base)
        return page_claim_times(page, all_labs())
    finally:
        context.close()


if __name__ == "__main__":
    if sys.argv[1:] == ["--notebook"]:
        notebook_only()
    else:
        main()
