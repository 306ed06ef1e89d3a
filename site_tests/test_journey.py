"""A new learner's whole journey from the course's first lesson to its last on a phone, and learners who jump straight
to a lesson."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from labs.course.model import load_course
from labs.course.pages import lesson_page_files
from tests.pages_kit import fences

from .harness import Scheme, Watch
from .learner import (
    BOOT_MS,
    BREADTH_FIRST,
    load_finished_pieces,
    replace_cell_code,
    run_cell,
    run_checks,
    type_into_gap,
    wait_for_cells,
    wait_for_lab,
)

COURSE = load_course()
LESSON_12 = lesson_page_files()["L12"]
LESSONS = list(COURSE.lessons.values())
PICTURES = {  # what a page draws from the learner's own code once its cells have run
    "L01": ".ember-plot svg path.ember-line",
    "L02": ".ember-output .ember-table td",
    "L03": ".ember-field svg polygon.ember-arrow-head",
    "L04": ".ember-output .ember-table td",
    "L05": ".ember-output .ember-table td",
    "L06": '.ember-stepper[data-kind="sort-steps"] svg g.node',
    "L14": ".ember-tensor-heat svg",
    "L15": ".ember-broadcast svg",
    "L16": ".ember-plot svg path.ember-line",
    "L17": ".ember-tensor-heat svg",
    "L18": ".ember-plot svg path.ember-line",
}
ANY_PICTURE = ".ember-output svg, .ember-output table"
NAMES_WRITTEN = "of 200 more names from W"  # lesson 18's last cell, after twelve names in a table
TRAINING_MS = 120_000
SHOTS = Path(os.environ.get("EMBER_SHOTS", tempfile.gettempdir()))
PHONE: ViewportSize = {"width": 390, "height": 844}
# Colours do not change a width: the journey goes in the dark scheme (every other test sees the light one), and
# in both when EMBER_SCREENSHOTS names a folder for a full-page picture of each lesson after its cells ran.
SCREENSHOTS = os.environ.get("EMBER_SCREENSHOTS")
SCHEMES: list[Scheme] = ["light", "dark"] if SCREENSHOTS else ["dark"]


def lesson_18_trains_w_and_writes_names(page: Page) -> None:
    """Lesson 18's W trained live to the count model's line, then wrote twelve names in a table."""
    trained = page.locator(".ember-output", has_text="at the target")
    expect(trained).to_have_count(1)
    expect(trained.locator(".ember-plot svg path.ember-line")).to_have_count(3)  # the curve, the target, the floor
    text = trained.inner_text()
    reached = re.search(r"step (\d+): loss ([\d.]+), at the target ([\d.]+), after ([\d.]+) s of training", text)
    assert reached, text
    assert float(reached[2]) <= float(reached[3]) and int(reached[1]) > 1, reached[0]
    written = page.locator(".ember-output", has_text=NAMES_WRITTEN)
    rows = written.locator(".ember-table tbody tr")
    expect(rows).to_have_count(12)
    expect(rows.first.locator("td").first).not_to_be_empty()


RAN = {"L18": lesson_18_trains_w_and_writes_names}  # what a page shows once its cells have run, beyond a picture


def answer_every_question(page: Page, lesson_id: str) -> None:
    """Pick the right option of each question of the lesson and see it confirmed."""
    for question in COURSE.lesson(lesson_id).questions:
        holder = page.locator(f'.ember-question[data-question="{lesson_id}.{question.id}"]')
        holder.locator(f'input[value="{question.answer}"]').check()
        expect(holder.locator(".ember-feedback")).to_contain_text("Right.")


def fill_every_gap(page: Page, lesson_id: str) -> None:
    """Type the finished piece into each of the lesson's gaps."""
    for gap_id in COURSE.lesson(lesson_id).gaps:
        type_into_gap(page, gap_id, COURSE.gaps[gap_id].finished)


def run_every_cell(page: Page) -> None:
    """Run each example cell of the page; none may end in an error."""
    for index in range(page.locator(".ember-cell").count()):
        output = run_cell(page, index)
        errors = output.locator(".ember-error")
        assert errors.count() == 0, f"cell {index} of {page.url}: {errors.first.inner_text()}"
        # Its run finished without an error (a click that started no run would leave no state), and drew.
        expect(page.locator(".ember-cell").nth(index)).to_have_attribute("data-state", "done")
        expect(output.locator("> *")).not_to_have_count(0)


@pytest.mark.long
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_new_learner_walks_through_every_lesson_on_a_phone(page: Page, base_url: str, watch: Watch,
                                                             scheme: Scheme) -> None:
    """From the home page through every lesson of the course, on one start of Python, at 390 px: questions, every
    gap, green checks, every cell (lesson 18's W trains live to the count model's line, then writes names); and no
    page is wider than the phone once its cells have drawn."""
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme=scheme)
    page.goto(base_url)
    assert page.evaluate("document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default")
    page.locator('.ember-lessons li[data-lesson="L01"] a').click()
    too_wide = []
    for lesson in LESSONS:
        expect(page.locator(".ember-page")).to_have_attribute("data-lesson", lesson.id)
        wait_for_lab(page)
        wait_for_cells(page)
        fill_every_gap(page, lesson.id)
        claims = run_checks(page)
        for index in range(claims.count()):
            expect(claims.nth(index)).to_have_attribute("data-state", "pass")
        expect(page.locator(".ember-closing")).to_have_attribute("data-lit", "true")
        run_every_cell(page)
        expect(page.locator(PICTURES.get(lesson.id, ANY_PICTURE))).not_to_have_count(0)
        if lesson.id in RAN:
            RAN[lesson.id](page)
        answer_every_question(page, lesson.id)  # once the editors are in: they move what is below them
        if lesson.id == "L06":  # the step-through of the learner's own sort answers Next
            walk = page.locator('.ember-stepper[data-kind="sort-steps"]')
            walk.get_by_role("button", name="Next").click()
            expect(walk.locator(".ember-step-text")).to_contain_text("Call 2: your sort asks parents(")
            expect(walk.locator("g.node.ember-current")).to_have_count(1)
        width, window = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width > window:
            too_wide.append(f"{lesson.id}: {width} px in a {window} px window")
        if SCREENSHOTS:
            page.screenshot(path=str(Path(SCREENSHOTS) / f"{lesson.id}-{scheme}-390.png"), full_page=True)
        if lesson is not LESSONS[-1]:
            page.locator(".ember-closing a", has_text="Next:").click()  # instant navigation: Python stays
    assert not too_wide, too_wide
    boots = [url for url in watch.requests if url.endswith("pyodide.asm.wasm")]
    assert len(boots) == 1, f"Python booted {len(boots)} times"
    page.goto(base_url)
    for lesson in LESSONS:
        expect(page.locator(f'.ember-lessons li[data-lesson="{lesson.id}"]')).to_have_attribute("data-state", "done")


def test_a_learner_jumps_to_lesson_12_loads_the_finished_pieces_and_trains(page: Page, base_url: str) -> None:
    page.goto(base_url)
    page.locator('.ember-lessons li[data-lesson="L12"] a').click()
    wait_for_lab(page)
    load_finished_pieces(page)
    fill_every_gap(page, "L12")
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "ready", timeout=BOOT_MS)
    # The training cell, found by its source on the page's file: an editor draws only the lines near the window,
    # so once the cell has run and its output pushed them away its text is not all there to read.
    cells = fences(LESSON_12, "ember-cell")
    index = next(number for number, code in enumerate(cells) if 'key="loss"' in code)
    source = cells[index].rstrip("\n")
    training = page.locator(".ember-cell").nth(index)
    for earlier in range(index):
        run_cell(page, earlier)
    output = run_cell(page, index)
    expect(output.locator(".ember-error")).to_have_count(0, timeout=TRAINING_MS)
    expect(output).to_contain_text("40 of 40")
    expect(output.locator(".ember-plot svg path.ember-line")).not_to_have_count(0)
    expect(output.locator(".ember-boundary svg rect")).not_to_have_count(0)

    # Train longer, press Stop midway: the model stays as it was after its last finished step.
    assert "learning_rate, steps = 0.5, 30" in source
    replace_cell_code(page, index, source.replace("learning_rate, steps = 0.5, 30", "learning_rate, steps = 0.5, 3000"))
    training.get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".ember-live .ember-plot")).to_have_count(1, timeout=TRAINING_MS)  # drawn while it runs
    training.get_by_role("button", name="Stop").click()
    expect(output).to_contain_text("Stopped: the model is as it was after step", timeout=10_000)
    expect(output.locator(".ember-boundary svg rect")).not_to_have_count(0)


CALLED = "Your backward() called _backward on:"


def test_lesson_10_shows_the_order_of_the_learners_own_walk_right_or_wrong(page: Page, base_url: str) -> None:
    page.goto(base_url + "lessons/10-order-of-blame/")
    wait_for_lab(page)
    load_finished_pieces(page)
    last = page.locator(".ember-cell").count() - 1

    type_into_gap(page, "L10.backward", COURSE.gaps["L10.backward"].finished)
    output = run_cell(page, last)
    cards = output.locator('.ember-cards[data-source="yours"]')
    expect(cards.locator(".ember-walk-order")).to_have_text(f"{CALLED} c, d, e, x, w, #1, #0")
    expect(cards.locator(".ember-seed")).to_contain_text("c.grad = 1")
    expect(cards.locator(".ember-card-title").nth(1)).to_have_text("step 1 · c → x")
    expect(output).to_contain_text("x.grad = 7.0, w.grad = 28.0")
    expect(output.locator("svg text", has_text="14")).not_to_have_count(0)  # w's share on each of its edges

    type_into_gap(page, "L10.backward", BREADTH_FIRST)
    output = run_cell(page, last)
    expect(output.locator(".ember-walk-order")).to_have_text(f"{CALLED} c, x, d, w, e, #0, #1")  # x before e
    expect(output).to_contain_text("w.grad = 4.0")
    page.locator(".ember-cell").nth(last).screenshot(path=str(SHOTS / "lesson10-wrong-walk.png"))


def test_lesson_13_draws_the_two_sets_of_cards_side_by_side(page: Page, base_url: str) -> None:
    page.goto(base_url + "lessons/13-one-operation-or-four/")
    wait_for_lab(page)
    load_finished_pieces(page)
    fill_every_gap(page, "L13")
    pair = page.locator(".ember-cell", has=page.locator(".cm-content", has_text="show_backward_pair"))
    index = page.locator(".ember-cell").evaluate_all("(cells, target) => cells.indexOf(target)", pair.element_handle())
    for earlier in range(index):
        run_cell(page, earlier)
    output = run_cell(page, index)
    sides = output.locator(".ember-cards-pair > .ember-cards")
    expect(sides).to_have_count(2)
    expect(sides.nth(0).locator(".ember-card-title", has_text="s → z")).to_have_count(1)
    expect(sides.nth(1).locator(".ember-card-title", has_text="1/d →")).not_to_have_count(0)
    pair.screenshot(path=str(SHOTS / "lesson13-cards.png"))
