"""A lab whose earlier pieces fail their own lessons' checks says so first, on the page: lesson 06's sort broken,
lesson 10's walk calling it (labs/checking/earlier.py, web/src/page/lab.js's showEarlier)."""

from __future__ import annotations

import re
import textwrap
import tomllib

from playwright.sync_api import Page, expect

from labs.course.gaps import normalize
from labs.course.model import load_course

from .harness import LESSON_10
from .learner import (
    RUN_MS,
    frames_drawn,
    load_finished_pieces,
    open_page,
    run_checks,
    stored_body,
    type_into_gap,
    wait_for_lab,
)
from .test_access import serious_violations, use_scheme

COURSE = load_course()
LESSON_06 = "lessons/06-which-comes-first/"


def catalog(lesson_id: str, file: str, kind: str, name: str) -> str:
    """The one piece of a named entry of a lesson folder's known_wrong.toml or also_right.toml."""
    with (COURSE.lesson(lesson_id).folder / file).open("rb") as handle:
        entries = tomllib.load(handle)[kind]
    (piece,) = next(entry for entry in entries if entry["name"] == name)["pieces"].values()
    return piece


BROKEN_SORT = catalog("L06", "known_wrong.toml", "mutants", "the order never reversed")
SORT_BACKWARD = catalog("L10", "also_right.toml", "variants", "lesson 06's toposort, imported from the package beside "
                                                              "scalar.py")


def test_a_broken_sort_is_named_first_and_its_finished_piece_mends_lesson_10(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_06)
    wait_for_lab(page)
    type_into_gap(page, "L06.toposort", BROKEN_SORT)
    assert stored_body(page, "L06.toposort") == normalize(textwrap.dedent(BROKEN_SORT))  # saved as typed

    open_page(page, base_url + LESSON_10)
    lab = wait_for_lab(page)
    load_finished_pieces(page)  # lessons 07 and 09, never written here; the learner's own sort is kept
    type_into_gap(page, "L10.backward", SORT_BACKWARD)
    run_checks(page)
    expect(lab.locator('.ember-claims li[data-state="fail"]')).to_have_count(9, timeout=RUN_MS)

    note = lab.locator(".ember-earlier")
    expect(note).to_be_visible()
    expect(note).to_have_accessible_name("Look at lesson 06 first")
    expect(note).to_contain_text("ember/graph.py")
    expect(note).to_contain_text("L06.toposort")
    expect(note).to_contain_text(COURSE.lesson("L06").claims[0].name)
    expect(note).to_contain_text("reverse it")  # lesson 06's own message
    # said first: before the checks, and first in the sentence read out
    assert lab.evaluate("lab => lab.querySelector('.ember-earlier').compareDocumentPosition("
                        "lab.querySelector('.ember-claims')) & Node.DOCUMENT_POSITION_FOLLOWING")
    expect(lab.locator(".ember-check-summary")).to_contain_text("First: your L06.toposort fails")
    expect(note.get_by_role("link", name="Open lesson 06")).to_have_attribute("href", re.compile(f"{LESSON_06}$"))

    for scheme in ("dark", "light"):
        use_scheme(page, scheme)
        frames_drawn(page)  # the palette, painted
        found = [v for v in serious_violations(page) if "ember-earlier" in v["target"]]
        assert not found, (scheme, found)

    # the keyboard reaches the button from the lab's toolbar, and presses it
    load = note.get_by_role("button", name="Load the finished L06.toposort")
    lab.get_by_role("button", name="Open as notebook").focus()
    for _ in range(8):
        page.keyboard.press("Tab")
        if load.evaluate("button => button === document.activeElement"):
            break
    expect(load).to_be_focused()
    page.keyboard.press("Enter")

    expect(note).to_be_hidden(timeout=RUN_MS)
    # the walk is right again (one claim of lesson 10 times it, so "every claim" would depend on the machine's load)
    expect(lab.locator('.ember-claims li[data-claim="L10.trap_graph"]')).to_have_attribute("data-state", "pass",
                                                                                          timeout=RUN_MS)
    expect(lab.locator('.ember-claims li[data-state="pass"]')).not_to_have_count(1)
    expect(lab.get_by_role("button", name="Run checks")).to_be_focused()
    assert stored_body(page, "L06.toposort") == COURSE.gaps["L06.toposort"].finished
    expect(lab.locator(".ember-notice")).to_contain_text("Loaded the finished L06.toposort")
