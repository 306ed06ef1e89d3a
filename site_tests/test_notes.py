"""Notes said once: storage the browser may delete (persistent storage asked for after the first saved work, not
as the page opens), and what a browser without SharedArrayBuffer or File System Access gets instead. A hidden note
stays hidden. The browser's answers are stubbed in the page (an init script of the page, not of the profile)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .harness import LESSON_10
from .learner import RUN_MS, open_page, replace_cell_code, run_cell, settled, type_into_gap, wait_for_lab
from .test_access import serious_violations

# The browser keeps no storage for sure (persisted() false), and persist() says no; the calls are counted.
STORAGE_NOT_KEPT = """
window.__persistAsked = 0;
StorageManager.prototype.persist = async function () { window.__persistAsked += 1; return false; };
StorageManager.prototype.persisted = async function () { return false; };
"""
STORAGE_KEPT = STORAGE_NOT_KEPT.replace("return false", "return true")
# A browser like WebKit with its default settings: no SharedArrayBuffer on an isolated page, no folders of the
# learner's (in the page: the worker keeps its own globals, and learns of the lack from the page's boot request).
LACKING = """
delete window.SharedArrayBuffer;
delete Window.prototype.showDirectoryPicker;
delete window.showDirectoryPicker;
"""
STORAGE_WORDS = "This browser may delete the work you save here if you do not visit the course for a while"


def storage_note(page: Page):
    return page.locator('.ember-note[data-note="storage"]')


def test_where_storage_may_be_deleted_the_learner_is_told_once_after_saving_and_can_download(
        page: Page, base_url: str) -> None:
    page.add_init_script(STORAGE_NOT_KEPT)
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    expect(storage_note(page)).to_have_count(0)  # not as the page opens: nothing is saved yet
    assert page.evaluate("window.__persistAsked") == 0
    type_into_gap(page, "L10.backward", "    # my first line")
    note = storage_note(page)
    expect(note).to_contain_text(STORAGE_WORDS, timeout=RUN_MS)
    expect(note).to_have_attribute("role", "status")
    assert page.evaluate("window.__persistAsked") == 1
    assert not [v for v in serious_violations(page) if "ember-note" in v["target"]]
    with page.expect_download() as download:
        note.get_by_role("button", name="Download all my work").click()
    assert download.value.suggested_filename.endswith(".zip")
    type_into_gap(page, "L10.backward", "    # another line")
    assert page.evaluate("window.__persistAsked") == 1  # asked once

    page.reload()  # a later visit: still not kept, still said, until hidden
    wait_for_lab(page)
    expect(storage_note(page)).to_be_visible()
    assert page.evaluate("window.__persistAsked") == 0  # not asked again
    storage_note(page).get_by_role("button", name="Hide this note").click()
    expect(storage_note(page)).to_have_count(0)
    page.reload()
    wait_for_lab(page)
    type_into_gap(page, "L10.backward", "    # a third line")
    settled(page)  # the page's look at the storage's answer (before the lab was up) and its drawing done
    expect(storage_note(page)).to_have_count(0)


def test_where_storage_is_kept_nothing_is_said(page: Page, base_url: str) -> None:
    page.add_init_script(STORAGE_KEPT)
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    type_into_gap(page, "L10.backward", "    # my first line")
    page.wait_for_function("() => window.__persistAsked === 1")
    page.reload()
    wait_for_lab(page)
    expect(page.locator(".ember-your-work")).to_be_visible()
    expect(storage_note(page)).to_have_count(0)


def test_a_browser_without_shared_memory_or_folders_is_told_once_what_it_gets_instead(
        page: Page, base_url: str) -> None:
    page.add_init_script(LACKING)
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    assert page.evaluate("crossOriginIsolated") is True
    note = page.locator('.ember-note[data-note="browser:shared-memory,folders"]')
    expect(note).to_contain_text("Stop restarts Python")
    expect(note).to_contain_text("input() cannot wait")
    expect(note).to_contain_text("cannot keep your files in a folder")
    assert not [v for v in serious_violations(page) if "ember-note" in v["target"]]
    expect(page.locator(".ember-lab").get_by_role("button", name="Work in a folder on this computer")).to_have_count(0)
    # input() says the real reason: this browser, not the host's headers (which were sent)
    replace_cell_code(page, 0, "name = input('Your name? ')")
    error = run_cell(page, 0).locator(".ember-error")
    expect(error).to_contain_text("input() cannot wait for your answer in this browser")
    expect(error).not_to_contain_text("server")
    note.get_by_role("button", name="Hide this note").click()
    expect(note).to_have_count(0)
    page.reload()
    wait_for_lab(page)
    expect(page.locator(".ember-note")).to_have_count(0)
