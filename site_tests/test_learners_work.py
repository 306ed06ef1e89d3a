"""The learner's work never breaks or vanishes: exact texts, markers in a gap, damaged or missing
storage, input(), a flood of output, and a lab that opens at its gap. (That every page keeps its width on a
phone once its cells have run is the journey's check, in test_journey.py.)"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, FilePayload, Page, expect

from labs.course.model import load_course

from .harness import LESSON_10, Watch, watched_context
from .learner import (
    BOOT_MS,
    BREADTH_FIRST,
    RUN_MS,
    cell,
    go_to_gap,
    lab_editor,
    load_finished_pieces,
    open_page,
    replace_cell_code,
    run_cell,
    run_checks,
    settled,
    stored_piece,
    type_into_gap,
    wait_for_cells,
    wait_for_lab,
)

COURSE = load_course()
FINISHED_BACKWARD = COURSE.gaps["L10.backward"].finished


def download_module(page: Page) -> str:
    with page.expect_download() as download:
        page.locator(".ember-lab").get_by_role("button", name="Download my ember/scalar.py").click()
    return download.value.path().read_text(encoding="utf-8")


# --- the learner's text, byte for byte ---------------------------------------------------------

def test_tabs_and_trailing_spaces_in_a_gap_survive_a_reload(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    typed = FINISHED_BACKWARD.rstrip("\n") + "\n\t# a tab here  \n  \t# and mixed here"
    type_into_gap(page, "L10.backward", typed)
    saved = stored_piece(page, "L10.backward")
    assert saved is not None and "\n    \t# a tab here  \n      \t# and mixed here" in saved
    page.reload()
    wait_for_lab(page)
    assert stored_piece(page, "L10.backward") == saved
    module = download_module(page)
    assert saved in module  # the module holds the text exactly as typed
    lab = page.locator(".ember-lab")
    claims = run_checks(page)
    expect(claims.first).to_have_attribute("data-state", "pass")
    expect(lab.locator(".ember-problem")).to_be_hidden()


def test_a_marker_typed_in_a_gap_is_named_and_nothing_is_cut(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    marked = FINISHED_BACKWARD.rstrip("\n") + "\n# --- end gap ---\nafter_the_marker = 1"
    type_into_gap(page, "L10.backward", marked)
    saved = stored_piece(page, "L10.backward") or ""
    assert saved.endswith("    # --- end gap ---\n    after_the_marker = 1")
    run_checks(page)
    problem = page.locator(".ember-lab .ember-problem")
    expect(problem).to_have_attribute("data-kind", "marker")
    marker_line = len(FINISHED_BACKWARD.rstrip("\n").split("\n")) + 1
    expect(problem).to_contain_text(f"Line {marker_line} of gap L10.backward looks like a gap marker")
    expect(page.locator(".ember-lab .ember-claims li").first).to_have_attribute("data-state", "fail")
    page.reload()
    wait_for_lab(page)
    expect(go_to_gap(page, "L10.backward")).to_contain_text("after_the_marker = 1")
    expect(page.locator(".ember-lab .ember-problem")).to_contain_text("looks like a gap marker")


BUSY_CELL = """import time
end = time.time() + 4
while time.time() < end:
    pass
print("busy no more")
"""


def test_code_typed_while_python_is_busy_rebuilding_the_lab_is_kept(page: Page, base_url: str) -> None:
    """A reset waits for Python, busy with a cell; what the learner types meanwhile stays in the editor."""
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    wait_for_cells(page)
    replace_cell_code(page, 0, BUSY_CELL)
    cell(page, 0).get_by_role("button", name="Run", exact=True).click()
    expect(cell(page, 0).locator(".ember-status")).to_have_text("running…")
    page.locator('.ember-gap[data-gap="L10.backward"]').get_by_role("button", name="Reset this gap").click()
    type_into_gap(page, "L10.backward", BREADTH_FIRST)  # the reset's module is not built yet: Python is busy
    expect(cell(page, 0).locator(".ember-output")).to_contain_text("busy no more", timeout=RUN_MS)
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("holds its starting code again")
    expect(lab_editor(page)).to_contain_text("queue.pop(0)")
    assert "queue.pop(0)" in (stored_piece(page, "L10.backward") or "")


# --- storage of any shape ----------------------------------------------------------------------

DAMAGED = {
    "nulls": '{"pieces":null,"answers":null,"progress":null,"last":null}',
    "progress-number": '{"pieces":{},"answers":{},"progress":7,"last":null}',
    "not-json": '{"pieces": {"L10.backward": {"code": "def backward(self',
    "array": "[1, 2, 3]",
    "wrong-entries": json.dumps({
        "pieces": {"L10.backward": {"code": 5}, "L09.neg": {"code": "    def __neg__(self):\n        return self * -1",
                                                            "exact": True, "saved": 1}},
        "answers": {"L10.bfs": "four", "L10.depth": {"option": 3}},
        "progress": {"L10": {"passed": "x"}}, "last": 3,
    }),
}


def set_storage(page: Page, base_url: str, raw: str) -> None:
    page.goto(base_url + "hosting/")
    page.evaluate("raw => { localStorage.clear(); localStorage.setItem('ember:v1', raw); }", raw)


@pytest.mark.parametrize("shape", list(DAMAGED), ids=list(DAMAGED))
def test_damaged_storage_leaves_every_page_working_and_the_learner_told(page: Page, base_url: str,
                                                                        shape: str) -> None:
    raw = DAMAGED[shape]
    set_storage(page, base_url, raw)
    open_page(page, base_url + LESSON_10)
    notice = page.locator(".ember-storage")
    expect(notice).to_contain_text("could not be read")
    question = page.locator('.ember-question[data-question="L10.bfs"]')
    expect(question.locator("input")).to_have_count(len(COURSE.lesson("L10").questions[0].options))
    wait_for_lab(page)
    replace_cell_code(page, 0, "print(6 * 7)")
    expect(run_cell(page, 0)).to_contain_text("42")
    question.locator("input").first.check()
    expect(question.locator(".ember-feedback")).not_to_be_empty()
    if shape == "wrong-entries":  # the readable piece is in use, the unreadable one is kept aside
        expect(page.locator(".ember-lab")).to_be_visible()
        assert "return self * -1" in (stored_piece(page, "L09.neg") or "")
    with page.expect_download() as download:
        notice.get_by_role("button", name="Download what was kept aside").click()
    aside = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert [item["raw"] for item in aside] == [raw]
    page.locator("a.md-logo").first.dispatch_event("click")  # the home page and another lesson by the site's links
    expect(page.locator(".ember-lessons li")).to_have_count(len(COURSE.lessons))
    page.locator('.ember-lessons li[data-lesson="L07"] a').click()
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L07")
    wait_for_lab(page)


def context_with(browser: Browser, watch: Watch, script: str) -> BrowserContext:
    context = watched_context(browser, watch)
    context.add_init_script(script)
    return context


NO_STORAGE = """Object.defineProperty(window, "localStorage", {
  get() { throw new DOMException("The user denied access to storage", "SecurityError"); } });"""
FULL_STORAGE = """Storage.prototype.setItem = function () {
  throw new DOMException("The quota has been exceeded.", "QuotaExceededError"); };"""


@pytest.fixture(params=["unavailable", "full"])
def limited(request: pytest.FixtureRequest, browser: Browser, watch: Watch) -> Iterator[tuple[str, Page]]:
    context = context_with(browser, watch, NO_STORAGE if request.param == "unavailable" else FULL_STORAGE)
    page = context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    yield request.param, page
    context.close()
    watch.check()


def test_without_storage_the_work_lasts_the_visit_and_the_learner_is_told(limited: tuple[str, Page], base_url: str,
                                                                          another_context: BrowserContext) -> None:
    kind, page = limited
    open_page(page, base_url + LESSON_10)
    expect(page.locator(".ember-storage")).to_have_attribute("data-problems", kind)
    expect(page.locator(".ember-storage")).to_contain_text("only while this tab stays open" if kind == "full"
                                                           else "not letting the course save")
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", FINISHED_BACKWARD)
    claims = run_checks(page)
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass")
    page.locator(".ember-closing a", has_text="Next:").click()  # instant navigation keeps the visit's memory
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L11")
    wait_for_lab(page)
    page.locator(".ember-closing a", has_text="Previous:").click()
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L10")
    wait_for_lab(page)
    expect(lab_editor(page)).to_contain_text("stack: list[tuple[Value, bool]]")
    with page.expect_download(timeout=BOOT_MS) as download:
        page.locator(".ember-storage").get_by_role("button", name="Download my work as it is now").click()
    # A work file, as "Download all my work" makes: the learner's files and ember-work.json, which "Bring my work
    # here" takes back in a browser that can keep it.
    data = Path(download.value.path()).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        (scalar,) = [name for name in archive.namelist() if name.endswith("/ember/scalar.py")]
        assert "stack: list[tuple[Value, bool]]" in archive.read(scalar).decode()
    fresh = another_context.new_page()  # a browser that can keep it
    try:
        open_page(fresh, base_url + LESSON_10)
        wait_for_lab(fresh)
        box = fresh.locator(".ember-your-work")
        payload: FilePayload = {"name": download.value.suggested_filename, "mimeType": "application/zip",
                                "buffer": data}
        box.locator("input[type=file]").set_input_files([payload])
        shown = box.get_by_role("region", name=re.compile(r"^Bring in "))
        expect(shown).to_be_visible(timeout=BOOT_MS)
        shown.get_by_role("button", name="Apply").click()
        expect(lab_editor(fresh)).to_contain_text("stack: list[tuple[Value, bool]]", timeout=RUN_MS)
    finally:
        fresh.close()


# --- cells behave like Python ------------------------------------------------------------------

ASKING = "name = input('Your name? ')\nprint('Hello,', name)"


def test_input_asks_in_the_page_when_isolated(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    replace_cell_code(page, 0, ASKING)
    box = cell(page, 0)
    box.get_by_role("button", name="Run", exact=True).click()
    field = box.get_by_role("textbox", name="Your answer to: Your name?")
    expect(field).to_be_visible(timeout=RUN_MS)
    expect(box.locator(".ember-output")).to_contain_text("Your name?")
    field.fill("Ada")
    field.press("Enter")
    expect(box.locator(".ember-output")).to_contain_text("Hello, Ada", timeout=RUN_MS)
    expect(box.locator(".ember-error")).to_have_count(0)
    # Stop while input() waits: the cell stops in place, Python is not restarted.
    box.get_by_role("button", name="Run", exact=True).click()
    expect(field).to_be_visible(timeout=RUN_MS)
    box.get_by_role("button", name="Stop").click()
    expect(box.locator(".ember-error")).to_contain_text("Stopped", timeout=RUN_MS)
    expect(page.locator(".ember-toast")).to_have_count(0)


def test_input_without_isolation_says_why_it_cannot_wait(page: Page, plain_url: str) -> None:
    open_page(page, plain_url + LESSON_10)
    wait_for_lab(page)
    replace_cell_code(page, 0, ASKING)
    output = run_cell(page, 0)
    expect(output.locator(".ember-error")).to_contain_text("input() cannot wait for your answer on this page")


FLOOD_MS = 120_000  # 600,000 lines printed and sent in batches: a few seconds quiet, over 30 s on a crowded machine


def test_a_flood_of_output_is_capped_and_the_page_answers_while_it_runs(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    replace_cell_code(page, 0, "for i in range(600_000):\n    print(i)")
    box = cell(page, 0)
    box.get_by_role("button", name="Run", exact=True).click()
    expect(box.locator(".ember-live-text")).to_contain_text("lines so far", timeout=RUN_MS)  # batches arrive
    question = page.locator('.ember-question[data-question="L10.bfs"]')
    question.locator("input").first.check()
    expect(question.locator(".ember-feedback")).not_to_be_empty()
    assert box.get_by_role("button", name="Run", exact=True).is_disabled()  # the page answered while Python ran
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=FLOOD_MS)
    output = box.locator(".ember-output")
    expect(output).to_contain_text("599,000 more lines (600,000 in all)")
    assert output.locator("pre").first.inner_text().count("\n") <= 1000
    with page.expect_download() as download:
        output.get_by_role("button", name="Download it").click()
    assert download.value.path().read_text(encoding="utf-8").count("\n") == 600_000


def test_the_lab_opens_at_its_gap_without_moving_the_page(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    scroller = page.locator(".ember-lab .cm-scroller").first
    scroller.evaluate("box => new Promise((done) => box.scrollTop > 0 ? done() : "
                      "box.addEventListener('scroll', done, { once: true }))")  # the editor brought its gap in
    settled(page)
    assert page.evaluate("window.scrollY") == 0  # the learner is still reading the top of the lesson
    assert scroller.evaluate("box => box.scrollTop") > 0
    scroller.scroll_into_view_if_needed()
    marker = page.locator(".ember-lab .cm-line", has_text="# --- gap L10.backward ---")
    expect(marker).to_be_visible()
    box, line = scroller.bounding_box(), marker.bounding_box()
    assert box and line and box["y"] <= line["y"] <= box["y"] + box["height"]
