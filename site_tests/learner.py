"""What a learner does on a lesson page, as small steps the tests share."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from playwright.sync_api import BrowserContext, Locator, Page, Route, expect

from .harness import LESSON_10

# The lesson 10 trap: a walk that runs each node's step the first time it reaches the node.
BREADTH_FIRST = '''
def backward(self) -> None:
    self.grad = 1.0
    queue = [self]
    seen = {self}
    while queue:
        node = queue.pop(0)
        node._backward()
        for parent in node._prev:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
'''
# A worker of the page's own kind (assets/gen/worker.js), booted as the page boots it, with the interrupt buffer
# when asked and the page is isolated; window.ask(type, payload) sends one request, window.timed times one.
# Evaluate it on a page at the site's root, with {"interrupts": bool}; it answers crossOriginIsolated.
START_WORKER = """async ({ interrupts: wanted, snapshot = "off" }) => {
  const interrupts = wanted && crossOriginIsolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
  const worker = new Worker(new URL("assets/gen/worker.js", location.href), { type: "module" });
  let next = 1;
  const waiting = new Map();
  worker.onmessage = ({ data }) => {
    if (!("ok" in data)) return;  // progress: display items and text while a cell runs
    const { resolve, reject } = waiting.get(data.id);
    waiting.delete(data.id);
    data.ok ? resolve(data.result) : reject(new Error(data.error));
  };
  window.ask = (type, payload) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve, reject });
    if (interrupts) interrupts[0] = 0;
    worker.postMessage({ id, type, payload });
  });
  window.timed = async (type, payload) => {
    const start = performance.now();
    const result = await window.ask(type, payload);
    return { ms: performance.now() - start, result };
  };
  await window.ask("boot", { interruptBuffer: interrupts, inputBuffer: null, snapshot });
  return crossOriginIsolated;
}"""
# An endless loop that says, now and then, that it is under way (a cell's printed lines reach the page in batches
# while it runs): a test presses Stop once it shows, rather than after a guessed length of time.
LOOP_THAT_SAYS_SO = "{name} = 0\nwhile True:\n    {name} += 1\n    if {name} % 100_000 == 0:\n        print('looping')"
BOOT_MS = 90_000  # a cold Pyodide start on a busy two-core machine
RUN_MS = 30_000


@contextmanager
def held(context: BrowserContext, pattern: str) -> Iterator[None]:
    """Hold every request of ``context`` (workers' too) that matches ``pattern`` until the block ends, then let
    it go on (through the context's other routes). A start of Python can be kept from finishing this way."""
    waiting: list[Route] = []

    def hold(route: Route) -> None:
        waiting.append(route)

    context.route(pattern, hold)
    try:
        yield
    finally:
        context.unroute(pattern, hold)
        for route in waiting:
            route.fallback()


def refusing(asked: list[str]) -> Callable[[Route], None]:
    """A route handler that drops every request it gets, as a network that lost them, noting each URL in ``asked``."""
    def refuse(route: Route) -> None:
        asked.append(route.request.url)
        route.abort()

    return refuse


def open_page(page: Page, url: str) -> None:
    """Open a page and wait until its questions are drawn (they need no Python)."""
    page.goto(url)
    expect(page.locator(".ember-question fieldset").first).to_be_visible()


def wait_for_lab(page: Page) -> Locator:
    """The lab, once Python has built the learner's module into its editor."""
    lab = page.locator(".ember-lab")
    expect(lab).to_have_attribute("data-ready", "true", timeout=BOOT_MS)
    return lab


def lab_editor(page: Page, index: int = 0) -> Locator:
    """A lab editor's text, its box scrolled into view as a learner would (the editor draws the lines it shows).

    The box, not its text: the text is taller than the box, and bringing it into view scrolls the box away from
    the gap that the lab scrolled it to."""
    page.locator(".ember-lab .cm-editor").nth(index).scroll_into_view_if_needed()
    return page.locator(".ember-lab .cm-content").nth(index)


def go_to_gap(page: Page, gap_id: str) -> Locator:
    """Press the gap's "Go to the gap", as a learner looking for their code would; its editor, which then draws
    the gap's lines (a long module's editor draws only the lines in view, and a reload may keep no scroll)."""
    page.locator(f'.ember-gap[data-gap="{gap_id}"]').get_by_role("button", name="Go to the gap").click()
    return page.locator(".ember-lab .cm-editor.cm-focused .cm-content")


def load_finished_pieces(page: Page) -> None:
    """Press the lab's button that fills earlier gaps with finished pieces, and see it confirmed."""
    page.locator(".ember-lab").get_by_role("button", name="Load the finished pieces of earlier lessons").click()
    # The notice comes once Python has rebuilt the module: a worker's round trip, which a busy machine can stretch.
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("Loaded", timeout=RUN_MS)


def stored_piece(page: Page, gap_id: str) -> str | None:
    """The learner's piece for a gap as saved in the browser, if any."""
    entry = stored_work(page)
    return entry.exact.get(gap_id, entry.pieces.get(gap_id))


def stored_body(page: Page, gap_id: str) -> str | None:
    """The learner's saved piece for a gap, dedented and tidied as the course compares pieces."""
    from labs.course.gaps import normalize

    piece = stored_piece(page, gap_id)
    return None if piece is None else normalize(textwrap.dedent(piece))


def stored_work(page: Page):  # -> labs.checking.learner.Work
    """The learner's work as saved in the browser, in the form Python builds modules from."""
    from labs.checking.learner import Work

    raw = page.evaluate("() => { try { return localStorage.getItem('ember:v1'); } catch { return null; } }")
    entries = (json.loads(raw).get("pieces") or {}) if raw else {}
    exact = {gap: entry["code"] for gap, entry in entries.items() if entry.get("exact")}
    older = {gap: entry["code"] for gap, entry in entries.items() if not entry.get("exact")}
    return Work(older, exact)


def gap_body(page: Page, gap_id: str) -> str:
    """What a gap holds now, as the lab shows it (built by the same code that builds the learner's module)."""
    from labs.checking.learner import build_modules
    from labs.course.model import load_course

    course = load_course()
    lesson = course.gaps[gap_id].lesson
    for module in build_modules(course, lesson, stored_work(page)).values():
        for gap in module.gaps:
            if gap.id == gap_id:
                return gap.text
    raise KeyError(gap_id)


def gap_indent(gap_id: str) -> str:
    """The indentation of a gap's marker in the finished module."""
    from labs.course.gaps import find_gaps
    from labs.course.model import load_course

    course = load_course()
    final = course.regions[gap_id].final_id
    for source in course.reference.values():
        for gap in find_gaps(source):
            if gap.id == final:
                return gap.indent
    raise KeyError(gap_id)


def type_into_gap(page: Page, gap_id: str, code: str, indent: str | None = None) -> None:
    """Select the whole body of a gap in the lab editor and type new code in its place."""
    indent = gap_indent(gap_id) if indent is None else indent
    lines = gap_body(page, gap_id).split("\n")
    page.locator(f'.ember-gap[data-gap="{gap_id}"]').get_by_role("button", name="Go to the gap").click()
    for _ in range(len(lines) - 1):
        page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+End")
    body = textwrap.indent(textwrap.dedent(code).strip("\n"), indent)
    page.keyboard.insert_text(body)


def run_checks(page: Page) -> Locator:
    """Press Run checks and wait for the claims to settle; answer the claim list."""
    lab = page.locator(".ember-lab")
    lab.get_by_role("button", name="Run checks").click()
    claims = lab.locator(".ember-claims li")
    expect(claims.first).not_to_have_attribute("data-state", "running", timeout=RUN_MS)
    expect(claims.first).not_to_have_attribute("data-state", "idle", timeout=RUN_MS)
    return claims


def check_a_backward(page: Page, url: str, code: str) -> Locator:
    """On lesson 10 with the earlier finished pieces loaded, type ``code`` as backward() and run the checks."""
    open_page(page, url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", code)
    return run_checks(page)


def cell(page: Page, index: int) -> Locator:
    return page.locator(".ember-cell").nth(index)


def wait_for_cells(page: Page) -> None:
    """Wait until every example cell has its editor: they are built after the lab, and each one moves
    what is below it, so a click aimed before then can land on something else."""
    expect(page.locator(".ember-cell .cm-editor")).to_have_count(page.locator(".ember-cell").count(), timeout=RUN_MS)


# Mark whether the next click reaches this button (a listener after the page's own, in the same dispatch).
WATCH_CLICK = """button => {
  button.emberTestClicked = false;
  button.addEventListener("click", () => { button.emberTestClicked = true; }, { once: true });
}"""


def click_run(button: Locator) -> None:
    """Click a Run button as a learner does; if the click landed elsewhere (a drawing above, finished a moment
    earlier, moved the page between the aim and the press), click it once more, and then it must arrive."""
    for _ in range(2):
        button.evaluate(WATCH_CLICK)
        button.click()
        if button.evaluate("button => button.emberTestClicked"):
            return
    raise AssertionError("two clicks on Run did not reach the button")


def run_cell(page: Page, index: int) -> Locator:
    """Run one example cell and wait for it to finish; answer its output area."""
    box = cell(page, index)
    click_run(box.get_by_role("button", name="Run", exact=True))
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=BOOT_MS)
    return box.locator(".ember-output")


def replace_cell_code(page: Page, index: int, code: str) -> None:
    """Replace all the code of an example cell."""
    editor = cell(page, index).locator(".cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(code)


# Every picture of the page loaded or failed, then a few frames drawn: what the page's last change set going (an
# image's error handler, an animation's start, a link's navigation) has had its turn. A wait on the browser's own
# events, not on a length of time.
SETTLED = """async () => {
  await Promise.all([...document.images].map((image) => image.complete ? null : new Promise((done) => {
    image.addEventListener("load", done, { once: true });
    image.addEventListener("error", done, { once: true });
  })));
  for (let frame = 0; frame < 3; frame += 1) await new Promise((done) => requestAnimationFrame(done));
  await new Promise((done) => requestIdleCallback(done, { timeout: 5000 }));
}"""


def settled(page: Page) -> None:
    """Until what the page's last change set going has run (SETTLED): pictures loaded or failed, frames drawn,
    the main thread idle once."""
    page.evaluate(SETTLED)


def frames_drawn(page: Page, count: int = 2) -> None:
    """Until the browser has drawn ``count`` more frames (a new colour scheme's palette is painted)."""
    page.evaluate("async (count) => { for (let i = 0; i < count; i += 1) "
                  "await new Promise((done) => requestAnimationFrame(done)); }", count)
