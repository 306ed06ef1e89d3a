"""A new learner's whole journey through Part I, lessons 01 to 06, on one start of Python."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from labs.course import load_course

from .conftest import Watch
from .learner import run_checks, wait_for_lab
from .test_journey import answer_every_question, fill_every_gap, run_every_cell

COURSE = load_course()
PART_ONE = [lesson for lesson in COURSE.lessons.values() if lesson.part == 1]
PICTURES = {  # what each page draws from the learner's own code once its cells have run
    "L01": ".ember-plot svg path.ember-line",
    "L02": ".ember-output .ember-table td",
    "L03": ".ember-field svg polygon.ember-arrow-head",
    "L04": ".ember-output .ember-table td",
    "L05": ".ember-output .ember-table td",
    "L06": '.ember-stepper[data-kind="walk"] svg g.node',
}


def test_a_new_learner_walks_through_lessons_01_to_06(page: Page, base_url: str, watch: Watch) -> None:
    page.goto(base_url)
    page.locator('.ember-lessons li[data-lesson="L01"] a').click()
    for lesson in PART_ONE:
        expect(page.locator(".ember-page")).to_have_attribute("data-lesson", lesson.id)
        answer_every_question(page, lesson.id)
        wait_for_lab(page)
        fill_every_gap(page, lesson.id)
        claims = run_checks(page)
        for index in range(claims.count()):
            expect(claims.nth(index)).to_have_attribute("data-state", "pass")
        expect(page.locator(".ember-closing")).to_have_attribute("data-lit", "true")
        run_every_cell(page)
        expect(page.locator(PICTURES[lesson.id])).not_to_have_count(0)
        if lesson is not PART_ONE[-1]:
            page.locator(".ember-closing a", has_text="Next:").click()  # instant navigation: Python stays
    boots = [url for url in watch.requests if url.endswith("pyodide.asm.wasm")]
    assert len(boots) == 1, f"Python booted {len(boots)} times"
    walk = page.locator('.ember-stepper[data-kind="walk"]')
    walk.get_by_role("button", name="Next").click()
    expect(walk.locator(".ember-step-text")).to_contain_text("Call 2: your sort asks parents(")
    expect(walk.locator("g.node.ember-current")).to_have_count(1)

    page.goto(base_url)
    for lesson in PART_ONE:
        expect(page.locator(f'.ember-lessons li[data-lesson="{lesson.id}"]')).to_have_attribute("data-state", "done")
