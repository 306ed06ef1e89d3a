"""A new learner's whole journey through Part I, lessons 01 to 06, on one start of Python."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from labs.course import load_course

from .conftest import Watch
from .learner import run_checks, stored_body, stored_piece, wait_for_lab
from .test_journey import answer_every_question, fill_every_gap, run_every_cell

COURSE = load_course()
PART_ONE = [lesson for lesson in COURSE.lessons.values() if lesson.part == 1]
PICTURES = {  # what each page draws from the learner's own code once its cells have run
    "L01": ".ember-plot svg path.ember-line",
    "L02": ".ember-output .ember-table td",
    "L03": ".ember-field svg polygon.ember-arrow-head",
    "L04": ".ember-output .ember-table td",
    "L05": ".ember-output .ember-table td",
    "L06": '.ember-stepper[data-kind="sort-steps"] svg g.node',
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
    walk = page.locator('.ember-stepper[data-kind="sort-steps"]')
    walk.get_by_role("button", name="Next").click()
    expect(walk.locator(".ember-step-text")).to_contain_text("Call 2: your sort asks parents(")
    expect(walk.locator("g.node.ember-current")).to_have_count(1)

    page.goto(base_url)
    for lesson in PART_ONE:
        expect(page.locator(f'.ember-lessons li[data-lesson="{lesson.id}"]')).to_have_attribute("data-state", "done")


def test_a_learner_who_skips_to_lesson_04_loads_lesson_03s_pieces_undoes_it_and_downloads(
        page: Page, base_url: str) -> None:
    page.goto(base_url + "lessons/04-vectors-in-vectors-out/")
    wait_for_lab(page)
    lab = page.locator(".ember-lab")
    lab.get_by_role("button", name="Load the finished pieces of earlier lessons").click()
    expect(lab.locator(".ember-notice")).to_contain_text("Loaded")
    assert stored_body(page, "L03.gradient") == COURSE.gaps["L03.gradient"].finished
    assert stored_body(page, "L01.slope") == COURSE.gaps["L01.slope"].finished
    lab.get_by_role("button", name="Undo").click()
    expect(lab.locator(".ember-notice")).to_have_text("Undone.")
    assert stored_piece(page, "L03.gradient") is None
    fill_every_gap(page, "L04")
    claims = run_checks(page)
    expect(lab.locator('.ember-claims li[data-claim="L04.vjp"]')).to_have_attribute("data-state", "fail")
    expect(lab.locator('.ember-claims li[data-claim="L04.vjp"]')).to_contain_text("needs gap L03.partial")
    expect(claims.first).to_have_attribute("data-state", "pass")
    with page.expect_download() as download:
        lab.get_by_role("button", name="Download my ember/nudge.py").click()
    assert download.value.suggested_filename == "nudge.py"
    text = download.value.path().read_text(encoding="utf-8")
    assert "# --- gap L04.vjp ---" in text and 'raise NotImplementedError("L03.partial' in text
