"""A learner who skips ahead in Part I: the finished pieces of earlier lessons, loaded and undone."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from labs.course.model import load_course

from .learner import run_checks, stored_body, stored_piece, wait_for_lab
from .test_journey import fill_every_gap

COURSE = load_course()


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
