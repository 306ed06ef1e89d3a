"""Stop keeps what the page promises: a stopped cell ends through its own clean-up, in the same Python.

Lesson 12's and lesson 18's training cells are stopped at several moments (each waited for by what the cell has
drawn, never by a clock): the model is kept, the output names its step, Python is not restarted, and the cells
after it run on it. A cell that ignores Stop gets a "Restart Python" choice; after it the cell names the cells
whose results were lost and runs them again in one click. Where the page cannot interrupt in place (no
isolation headers), Stop restarts at once, and the same offer follows.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from labs.course.model import load_course
from labs.course.pages import lesson_page_files
from tests.pages_kit import fences

from .harness import viewport_width
from .learner import (
    BOOT_MS,
    cell,
    click_run,
    load_finished_pieces,
    open_page,
    replace_cell_code,
    run_cell,
    type_into_gap,
    wait_for_cells,
    wait_for_lab,
)
from .test_access import LOOKS, serious_violations, use_scheme

COURSE = load_course()
PAGES = lesson_page_files()
LESSON_10 = "lessons/10-order-of-blame/"
LESSON_12 = "lessons/12-downhill/"
LESSON_18 = "lessons/18-a-bigram-that-writes-names/"
TRAINING_MS = 180_000  # a 2-core machine shared with other builds and tests
RUN_GRACE_MS = 20_000  # beyond the patience: a busy machine's timers run late
PATIENCE_MS = 10_000  # web/src/runtime/runtime.js's STOP_PATIENCE_MS: when a cell that has not stopped gets the choice
SHOTS = Path(os.environ.get("EMBER_SHOTS", tempfile.gettempdir()))

# Count the "Python was restarted" notices, and keep every text a cell's status shows (it may pass in a moment).
WATCH = """() => {
  window.__toasts = 0;
  new MutationObserver(() => { window.__toasts += document.querySelectorAll(".ember-toast").length; })
    .observe(document.body, { childList: true });
  window.__statuses = [];
  for (const status of document.querySelectorAll(".ember-cell .ember-status")) {
    new MutationObserver(() => window.__statuses.push(status.textContent))
      .observe(status, { childList: true, characterData: true, subtree: true });
  }
}"""
# How many times a cell has drawn its live loss curve while it runs (each draw replaces the last).
COUNT_DRAWS = """box => {
  box.__draws = 0;
  if (box.__counting) return;
  box.__counting = true;
  new MutationObserver((changes) => {
    for (const change of changes)
      for (const node of change.addedNodes) if (node.dataset?.key === "loss") box.__draws += 1;
  }).observe(box.querySelector(".ember-output"), { childList: true, subtree: true });
}"""
IGNORES_STOP = """while True:
    try:
        while True:
            pass
    except KeyboardInterrupt:
        pass"""


def fill_lab(page: Page, url: str, lesson_id: str) -> None:
    open_page(page, url)
    wait_for_lab(page)
    load_finished_pieces(page)
    for gap_id in COURSE.lesson(lesson_id).gaps:
        type_into_gap(page, gap_id, COURSE.gaps[gap_id].finished)
    wait_for_cells(page)


def training_cell(lesson_id: str) -> tuple[int, str]:
    """The index and the source (as the page's file has it) of the lesson's training cell: the one that draws
    its loss live."""
    cells = fences(PAGES[lesson_id], "ember-cell")
    index = next(number for number, code in enumerate(cells) if 'key="loss"' in code)
    return index, cells[index].rstrip("\n")


def run_cells_before(page: Page, index: int) -> None:
    for earlier in range(index):
        expect(run_cell(page, earlier).locator(".ember-error")).to_have_count(0)


def longer_training(page: Page, url: str, lesson_id: str, line: str, longer: str) -> tuple[int, str, Locator, Locator]:
    """The lab finished, the cells above the training cell run, and its ``line`` made ``longer``, watched (WATCH):
    the training cell's index, its source as the page's file has it, its box and its output."""
    fill_lab(page, url, lesson_id)
    index, source = training_cell(lesson_id)
    run_cells_before(page, index)
    page.evaluate(WATCH)
    assert line in source
    replace_cell_code(page, index, source.replace(line, longer))
    box = cell(page, index)
    return index, source, box, box.locator(".ember-output")


def stop_after_draws(page: Page, box: Locator, draws: int) -> None:
    """Run the cell, wait until it has drawn its live curve ``draws`` times, and press Stop."""
    box.evaluate(COUNT_DRAWS)
    click_run(box.get_by_role("button", name="Run", exact=True))
    box.evaluate(f"box => new Promise((done) => {{ const look = () => box.__draws >= {draws} ? done() : "
                 "requestAnimationFrame(look); look(); })")
    box.get_by_role("button", name="Stop").click()


def stopped_in_place(page: Page, box: Locator) -> None:
    """The run ended through its clean-up, with the status saying so, and no restart."""
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=TRAINING_MS)
    expect(box.locator(".ember-status")).to_have_text("stopped")
    assert "stopping: the cell is cleaning up…" in page.evaluate("window.__statuses")
    expect(box.locator(".ember-output")).not_to_contain_text("restarted")
    expect(box.locator(".ember-output .ember-error")).to_have_count(0)
    assert page.evaluate("window.__toasts") == 0


@pytest.mark.long
def test_lesson_12s_training_stopped_twice_keeps_the_model_and_trains_on(page: Page, base_url: str) -> None:
    index, source, box, output = longer_training(page, base_url + LESSON_12, "L12",
                                                 "learning_rate, steps = 0.5, 30", "learning_rate, steps = 0.5, 3000")

    steps = 0
    for draws in (1, 3):  # after its first progress output, then later, each time on from where it was
        stop_after_draws(page, box, draws)
        stopped_in_place(page, box)
        text = output.inner_text()
        found = re.search(r"Stopped: the model is as it was after step (\d+)\.", text)
        assert found, text
        stopped_at = int(found.group(1))
        # The curve is drawn at every fifth step of the history, so the model got at least this far.
        assert stopped_at >= 5 * (steps // 5 + draws), (steps, stopped_at)
        expect(output).to_contain_text(f"after step {stopped_at}: ")
        steps = stopped_at

    replace_cell_code(page, index, source)  # 30 more steps, on from the model it kept
    expect(run_cell(page, index).locator(".ember-error")).to_have_count(0, timeout=TRAINING_MS)
    expect(output).to_contain_text(f"after step {steps + 30}: ")
    after = run_cell(page, index + 1)
    expect(after.locator(".ember-error")).to_have_count(0)
    expect(after).to_contain_text(f"after {steps + 30} steps: ")
    assert page.evaluate("window.__toasts") == 0


@pytest.mark.long
def test_lesson_18s_training_stopped_twice_keeps_w_and_trains_on(page: Page, base_url: str) -> None:
    # A slower rate, so that the curve does not reach its target line before Stop lands.
    _, _, box, output = longer_training(page, base_url + LESSON_18, "L18", "learning_rate, most_steps = 70.0, 400",
                                        "learning_rate, most_steps = 5.0, 100000")
    names_index = next(n for n, code in enumerate(fences(PAGES["L18"], "ember-cell")) if "import sample" in code)
    names_source = fences(PAGES["L18"], "ember-cell")[names_index].rstrip("\n")

    previous = 0
    for draws in (1, 3):  # after its first progress output, then later, on from where the first Stop left W
        stop_after_draws(page, box, draws)
        stopped_in_place(page, box)
        text = output.inner_text()
        found = re.search(r"Stopped: W keeps the weights of step (\d+), its last finished step\.", text)
        assert found, text
        step = int(found.group(1))
        assert step >= previous + 10 * draws  # each run draws its live curve every 10 of its own steps
        expect(output).to_contain_text("W's loss now:")
        # W is where its last finished step left it (that step's loss was measured before it, so W's is lower),
        # and the curve runs on from the first run's steps without a gap.
        probe = ("print(len(history), history[-1][0], [s for s, _ in history] == list(range(1, len(history) + 1)),"
                 " bigram_loss(W.data, counts) < history[-1][1], any(W.data))")
        replace_cell_code(page, names_index, probe)
        expect(run_cell(page, names_index)).to_contain_text(f"{step} {step} True True True")
        previous = step

    replace_cell_code(page, names_index, names_source)
    names = run_cell(page, names_index)
    expect(names.locator(".ember-error")).to_have_count(0)
    expect(names.locator(".ember-table tbody tr")).to_have_count(12)
    assert page.evaluate("window.__toasts") == 0


def shoot_and_check(page: Page, box: Locator, name: str, axe: bool = True) -> None:
    """A picture of the cell in each scheme and width (kept in SHOTS), and axe clean in each."""
    for scheme, width in LOOKS:
        use_scheme(page, scheme)
        resize(page, width)
        box.scroll_into_view_if_needed()
        box.screenshot(path=str(SHOTS / f"stop-{name}-{scheme}-{width}.png"))
        assert not axe or serious_violations(page) == [], (name, scheme, width)
    use_scheme(page, "light")
    resize(page, 1280)


def resize(page: Page, width: int) -> None:
    """The window this wide, once the page has looked at its sideways-scrolling boxes (web/src/page/access.js)."""
    if viewport_width(page) == width:
        return
    looked = page.evaluate("Number(document.documentElement.dataset.emberScrollBoxes || 0)")
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function(f"() => Number(document.documentElement.dataset.emberScrollBoxes || 0) > {looked}")


def make_two_cells_and(page: Page, code: str) -> Locator:
    """Cells 1 and 2 make a name and use it; cell 3 gets ``code``. Answers cell 3."""
    replace_cell_code(page, 0, "kept = 6 * 7\nprint('made', kept)")
    expect(run_cell(page, 0)).to_contain_text("made 42")
    replace_cell_code(page, 1, "print('uses', kept + 1)")
    expect(run_cell(page, 1)).to_contain_text("uses 43")
    for index in (0, 1):  # a mark that a new run of the cell wipes
        cell(page, index).locator(".ember-output").evaluate(
            "output => output.append(Object.assign(document.createElement('p'), { className: 'old-run' }))")
    replace_cell_code(page, 2, code)
    return cell(page, 2)


def lost_cells_run_again(page: Page, box: Locator) -> None:
    """The restarted cell names the cells whose results were lost; its one button runs them again, in order."""
    note = box.locator(".ember-restarted")
    expect(note).to_contain_text("Your code is safe, but what example cells 1 and 2 above made")
    expect(note).not_to_contain_text("run the cell again")
    again = note.get_by_role("button", name="Run cells 1 and 2 again")
    again.focus()
    page.keyboard.press("Enter")
    expect(note).to_contain_text("Example cells 1 and 2 ran again. Run this cell when you are ready.", timeout=BOOT_MS)
    for index, text in ((0, "made 42"), (1, "uses 43")):
        output = cell(page, index).locator(".ember-output")
        expect(output).to_contain_text(text)
        expect(output.locator(".old-run")).to_have_count(0)
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_focused()
    replace_cell_code(page, 2, "print('still', kept)")
    expect(run_cell(page, 2)).to_contain_text("still 42")


def test_a_cell_that_ignores_stop_gets_the_restart_choice_then_the_lost_cells_offer(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    wait_for_cells(page)
    page.evaluate(WATCH)
    box = make_two_cells_and(page, IGNORES_STOP)
    click_run(box.get_by_role("button", name="Run", exact=True))
    stop = box.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    stop.click()
    status = box.locator(".ember-status")
    expect(status).to_have_text("stopping: the cell is cleaning up…")
    shoot_and_check(page, box, "stopping", axe=False)  # quick: the status lasts PATIENCE_MS
    restart = box.get_by_role("button", name="Restart Python")
    expect(restart).to_be_visible(timeout=PATIENCE_MS + RUN_GRACE_MS)
    expect(status).to_contain_text("The cell has not stopped")
    shoot_and_check(page, box, "restart-choice")
    again = box.get_by_role("button", name="Stop again")
    again.click()  # one more interrupt: this cell ignores that too, and keeps running
    expect(status).to_have_text("stopping: the cell was interrupted again…")
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_disabled()
    assert page.evaluate("window.__toasts") == 0

    restart.focus()  # reachable from the keyboard
    page.keyboard.press("Enter")
    expect(box.locator(".ember-restarted")).to_contain_text("Stopped: Python was restarted")
    shoot_and_check(page, box, "lost-cells")
    lost_cells_run_again(page, box)


def test_without_isolation_stop_restarts_and_offers_the_lost_cells(page: Page, plain_url: str) -> None:
    open_page(page, plain_url + LESSON_10)
    wait_for_lab(page)
    wait_for_cells(page)
    box = make_two_cells_and(page, "while True:\n    pass")
    click_run(box.get_by_role("button", name="Run", exact=True))
    box.get_by_role("button", name="Stop").click()
    expect(box.locator(".ember-restarted")).to_contain_text("Stopped: Python was restarted", timeout=BOOT_MS)
    # A cell run before the cells above it ran again misses their name, and is told why, with the same offer.
    uses = run_cell(page, 1)
    expect(uses).to_contain_text("NameError")
    expect(uses.locator(".ember-restarted")).to_contain_text(
        "Python was restarted since example cell 1 above ran, so what it made")
    expect(uses.get_by_role("button", name="Run cell 1 again")).to_be_visible()
    shoot_and_check(page, cell(page, 1), "lost-since")
    lost_cells_run_again(page, box)
    expect(cell(page, 1).locator(".ember-restarted")).to_have_count(0)

    # The first cell has no cells above it: running it again is all it takes.
    replace_cell_code(page, 0, "while True:\n    pass")
    first = cell(page, 0)
    click_run(first.get_by_role("button", name="Run", exact=True))
    first.get_by_role("button", name="Stop").click()
    note = first.locator(".ember-restarted")
    expect(note).to_have_text("Stopped: Python was restarted. Your code is safe; run the cell again.", timeout=BOOT_MS)
    expect(note.get_by_role("button")).to_have_count(0)


def test_a_clean_up_of_seconds_ends_in_the_same_python(page: Page, base_url: str) -> None:
    """A cell whose `except KeyboardInterrupt` works for three seconds (a slow device's clean-up) is let finish:
    what it made is kept, and Python is not restarted."""
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    wait_for_cells(page)
    page.evaluate(WATCH)
    code = """import time
made = 0
try:
    while True:
        made += 1
except KeyboardInterrupt:
    until = time.monotonic() + 3
    while time.monotonic() < until:
        pass
    print("cleaned up after", made > 0)"""
    replace_cell_code(page, 2, code)
    box = cell(page, 2)
    click_run(box.get_by_role("button", name="Run", exact=True))
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "running")
    box.get_by_role("button", name="Stop").click()
    stopped_in_place(page, box)
    expect(box.locator(".ember-output")).to_contain_text("cleaned up after True")
    replace_cell_code(page, 2, "print('still here', made > 0)")
    expect(run_cell(page, 2)).to_contain_text("still here True")
    assert page.evaluate("window.__toasts") == 0

