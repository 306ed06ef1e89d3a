"""The notebook offline after one visit: lesson 10's notebook opened once, then with the host gone and the browser
offline it opens again, runs the start cell and the checks, and an edit saved in it comes back to the lab; and a new
version of the course replaces the notebook's saved files as it replaces the lessons'."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from labs.course.model import load_course
from scripts import build_site

from .harness import LESSON_10, SITE, Server, Watch
from .learner import BOOT_MS, go_to_gap, open_page, stored_piece, wait_for_lab
from .test_notebook import (
    EDIT_MARK,
    KERNEL_MS,
    code_cell,
    drive_file,
    edit_in_the_notebooks_editor,
    kernel_idle,
    open_lesson_10_with_breadth_first_walk,
    open_notebook,
    run_notebook_cell,
)

SAVED_MS = 300_000  # the course and then the notebook saved, behind other tests on two busy cores
COURSE = load_course()
NOTEBOOK_L10 = "notebook/notebooks/index.html?path=L10.ipynb"
OFFLINE_CACHES = "caches.keys().then((names) => names.filter((name) => name.startsWith('ember-offline:/:')))"


@pytest.fixture
def server() -> Iterator[Server]:
    """The built site with the isolation headers, on a port of its own (a fresh origin), stoppable."""
    server = Server(SITE, isolate=True)
    yield server
    server.stop()


def status(notebook: Page):
    return notebook.locator("#ember-notebook-status")


def first_notebook_visit(page: Page, context: BrowserContext, url: str, lesson_saved_first: bool = True) -> Page:
    """Lesson 10 with the learner's breadth-first walk, saved for offline (before the notebook opens, or while it
    starts); its notebook opened from the lab, its kernel started, and the notebook saved for offline too (its
    status says so)."""
    open_lesson_10_with_breadth_first_walk(page, url)
    if lesson_saved_first:
        expect(page.locator("#ember-offline")).to_have_text("Available offline", timeout=SAVED_MS)
    notebook = open_notebook(page, context)
    kernel_idle(notebook)
    expect(status(notebook)).to_contain_text("Python: ready", timeout=KERNEL_MS)
    expect(status(notebook)).to_contain_text("Available offline", timeout=SAVED_MS)
    return notebook


def notebook_page(context: BrowserContext, url: str, watch: Watch) -> Page:
    """The notebook opened in a new tab by its address, as a learner's bookmark or history opens it."""
    notebook = context.new_page()
    notebook.on("pageerror", lambda error: watch.errors.append(str(error)))
    notebook.goto(url + NOTEBOOK_L10)
    return notebook


@pytest.mark.long
def test_the_notebook_opened_once_opens_runs_checks_and_saves_back_offline(
        offline_context: BrowserContext, watch: Watch, server: Server) -> None:
    page = offline_context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    # The notebook opened at once: the course may still be being saved when the notebook asks for its own files.
    notebook = first_notebook_visit(page, offline_context, server.url, lesson_saved_first=False)
    expect(page.locator("#ember-offline")).to_have_text("Available offline", timeout=SAVED_MS)
    # JupyterLite unregisters every service worker of a site it finds new: the course's must still be there.
    scopes = notebook.evaluate("navigator.serviceWorker.getRegistrations().then((all) => all.map((r) => r.scope))")
    assert sorted(scopes) == [server.url, server.url + "notebook/"], scopes
    notebook.close()

    server.stop()  # the host is gone, and the browser is offline too
    offline_context.set_offline(True)
    notebook = notebook_page(offline_context, server.url, watch)
    expect(notebook.locator(".jp-Notebook .jp-CodeCell").first).to_be_visible(timeout=BOOT_MS)
    assert notebook.evaluate("navigator.onLine") is False
    kernel_idle(notebook)
    expect(status(notebook)).to_contain_text("Python: ready", timeout=KERNEL_MS)
    start = run_notebook_cell(notebook, code_cell(notebook, "await start('L10')"))
    expect(start).to_contain_text("Your engine: ember/nudge.py")
    expect(start).to_contain_text("the notebook's drive")
    checks = run_notebook_cell(notebook, code_cell(notebook, "check('L10')"))
    expect(checks).to_contain_text("[FAIL] the trap graph gives w.grad = 28")  # the learner's breadth-first walk
    expect(checks).to_contain_text(f"of {len(COURSE.lesson('L10').claims)} claims hold.")

    # An edit saved in the notebook's editor (its own app, from the saved copy too) comes back to the lab.
    edited = ("ember/scalar.py", "node = queue.pop(0)", f"node = queue.pop(0)  {EDIT_MARK}")
    edit_in_the_notebooks_editor(notebook, *edited)
    assert EDIT_MARK in (drive_file(notebook, "ember/scalar.py") or "")
    page.reload()
    back = page.locator(".ember-from-notebook")
    expect(back).to_contain_text("Taken from the notebook into your saved work: L10.backward", timeout=BOOT_MS)
    wait_for_lab(page)
    expect(go_to_gap(page, "L10.backward")).to_contain_text(EDIT_MARK)
    assert EDIT_MARK in (stored_piece(page, "L10.backward") or "")


@pytest.mark.long
def test_a_new_version_replaces_the_notebooks_saved_files(offline_context: BrowserContext, watch: Watch,
                                                          tmp_path: Path) -> None:
    folder = tmp_path / "site"
    shutil.copytree(SITE, folder)
    server = Server(folder, isolate=True)
    try:
        page = offline_context.new_page()
        page.on("pageerror", lambda error: watch.errors.append(str(error)))
        notebook = first_notebook_visit(page, offline_context, server.url)
        notebook.close()
        (old,) = page.evaluate(OFFLINE_CACHES)

        # A new version goes up: the notebook app's page changes.
        changed = folder / "notebook" / "notebooks" / "index.html"
        changed.write_text(changed.read_text().replace("<title>", '<meta name="ember-test" content="new"><title>', 1))
        for copy in changed.parent.glob("index.html.*"):
            copy.unlink()
        build_site.offline(folder)
        page.evaluate("navigator.serviceWorker.getRegistration().then((registration) => registration.update())")
        notice = page.locator(".ember-update")
        expect(notice).to_contain_text("A new version of the course is ready", timeout=SAVED_MS)
        with page.expect_navigation(wait_until="load", timeout=SAVED_MS):  # the page reloads on the new version
            notice.get_by_role("button", name="Reload now").click()
        wait_for_lab(page)
        (new,) = page.evaluate(OFFLINE_CACHES)  # the old version's cache, the old notebook files with it, went
        assert new != old
        saved = page.evaluate("""(name) => caches.open(name).then(async (cache) =>
            Boolean(await cache.match(new URL('__ember/notebook-complete', location.origin).href)))""", new)
        assert saved, "the new version did not save the notebook's files before taking over"

        server.stop()
        offline_context.set_offline(True)
        notebook = notebook_page(offline_context, server.url, watch)
        expect(notebook.locator('meta[name="ember-test"]')).to_have_attribute("content", "new")  # the new file
        kernel_idle(notebook)
        start = run_notebook_cell(notebook, code_cell(notebook, "await start('L10')"))
        expect(start).to_contain_text("Your engine: ember/nudge.py")
        open_page(page, server.url + LESSON_10)  # and the lessons, offline as before
        wait_for_lab(page)
    finally:
        server.stop()
