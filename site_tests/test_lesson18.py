"""Lesson 18 in the browser: the finished pieces pass, and Stop leaves a W that the later cells can use (the journey
in test_journey.py trains W to the count model's line and writes names)."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from labs.course.model import load_course
from labs.course.pages import lesson_page_files
from tests.pages_kit import fences

from .harness import SITE
from .learner import (
    BOOT_MS,
    cell,
    load_finished_pieces,
    open_page,
    replace_cell_code,
    run_cell,
    run_checks,
    type_into_gap,
    wait_for_lab,
)

COURSE = load_course()
LESSON_18 = "lessons/18-a-bigram-that-writes-names/"
PAGE = lesson_page_files()["L18"]
TRAINING_MS = 180_000  # a 2-core machine shared with other builds and tests
STEPS_LINE = "learning_rate, most_steps = 70.0, 400"


def finished_lab(page: Page, url: str) -> None:
    """Open lesson 18, load the earlier finished pieces, type this lab's, and see every check pass."""
    open_page(page, url + LESSON_18)
    wait_for_lab(page)
    load_finished_pieces(page)
    for gap_id in COURSE.lesson("L18").gaps:
        type_into_gap(page, gap_id, COURSE.gaps[gap_id].finished)
    claims = run_checks(page)
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass")


def index_of(page: Page, text: str) -> int:
    """The index of the first example cell whose code (as the page's file has it) holds ``text``: the editor
    draws only the lines in view, so the page's own text may not hold it."""
    return next(number for number, code in enumerate(fences(PAGE, "ember-cell")) if text in code)


def run_cells_before(page: Page, index: int) -> None:
    for earlier in range(index):
        output = run_cell(page, earlier)
        expect(output.locator(".ember-error")).to_have_count(0)


def training_output(page: Page) -> tuple[int, Locator]:
    index = index_of(page, 'key="loss"')
    return index, cell(page, index).locator(".ember-output")


def test_stop_keeps_the_weights_and_names_still_come(page: Page, base_url: str) -> None:
    finished_lab(page, base_url)
    training, output = training_output(page)
    run_cells_before(page, training)
    (source,) = [code for code in fences(PAGE, "ember-cell") if 'key="loss"' in code]  # as the page's file has it
    assert STEPS_LINE in source
    replace_cell_code(page, training, source.replace(STEPS_LINE, "learning_rate, most_steps = 70.0, 100000"))
    cell(page, training).get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".ember-live .ember-plot")).to_have_count(1, timeout=TRAINING_MS)  # drawn while it runs
    cell(page, training).get_by_role("button", name="Stop").click()
    expect(output).to_contain_text("its last finished step", timeout=20_000)
    expect(output).to_contain_text("Stopped: W keeps the weights of step")
    expect(output).to_contain_text("W's loss now:")
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "ready", timeout=BOOT_MS)

    names = index_of(page, "from ember.bigram import sample")
    output = run_cell(page, names)
    expect(output.locator(".ember-error")).to_have_count(0)
    expect(output.locator(".ember-table tbody tr")).to_have_count(12)


def test_the_data_set_ships_in_the_pages_bundle_its_offline_copy_and_the_notebooks_wheel() -> None:
    import json
    import zipfile

    from labs.course.datasets import NAMES, NAMES_LICENSE

    gen = SITE / "assets" / "gen"
    (bundle,) = (gen / "py").glob("course-*.zip")
    (wheel,) = (SITE / "notebook" / "wheels").glob("ember_course-*.whl")
    for archive in (bundle, wheel):
        with zipfile.ZipFile(archive) as opened:
            assert opened.read("labs/data/names.txt") == NAMES.read_bytes(), archive.name
            assert opened.read("labs/data/names.LICENSE") == NAMES_LICENSE.read_bytes(), archive.name
            assert "labs/course/datasets.py" in opened.namelist(), archive.name
    offline = {entry["path"] for entry in json.loads((SITE / "offline.json").read_text())["files"]}
    assert f"assets/gen/py/{bundle.name}" in offline  # the offline copy holds the data with the course's Python
