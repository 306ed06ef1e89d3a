"""Offline use, isolation without headers, and starts from a memory snapshot (the service worker kept)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from labs.course.model import load_course
from scripts import build_site

from .harness import LESSON_10, SITE, Server, Watch
from .learner import (
    BOOT_MS,
    LOOP_THAT_SAYS_SO,
    RUN_MS,
    cell,
    held,
    open_page,
    refusing,
    replace_cell_code,
    run_cell,
    run_checks,
    stored_piece,
    type_into_gap,
    wait_for_lab,
)

LESSON_12 = "lessons/12-downhill/"
SAVED_MS = 240_000  # the snapshot and every file saved, behind other tests on two busy cores
COURSE = load_course()

# Flip bytes in the middle of the stored snapshot (its header stays valid: the damage shows only
# when Python runs on that memory). Answers the snapshot's size, or 0 if there was none.
DAMAGE_SNAPSHOT = """
async () => {
  const db = await new Promise((resolve, reject) => {
    const opening = indexedDB.open("ember-python:/", 1);
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
  });
  const done = (tx, request) => new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
  });
  const reading = db.transaction("snapshots");
  const entry = await done(reading, reading.objectStore("snapshots").get("current"));
  if (!entry) return 0;
  const bytes = new Uint8Array(await entry.bytes.arrayBuffer());  // stored as a Blob
  for (let i = 4096; i < bytes.length; i += 509) bytes[i] ^= 0x5a;
  const writing = db.transaction("snapshots", "readwrite");
  await done(writing, writing.objectStore("snapshots").put({ ...entry, bytes: new Blob([bytes]) }, "current"));
  db.close();
  return bytes.length;
}
"""


@pytest.fixture
def server() -> Iterator[Server]:
    """The built site with the isolation headers, on a port of its own (a fresh origin), stoppable."""
    server = Server(SITE, isolate=True)
    yield server
    server.stop()


@pytest.fixture
def plain_server() -> Iterator[Server]:
    """The built site as a plain static host serves it: no COOP/COEP headers."""
    server = Server(SITE, isolate=False)
    yield server
    server.stop()


def learner_page(context: BrowserContext, watch: Watch) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    return page


def python_start(page: Page) -> str | None:
    """How Python started on this page: "snapshot", "fresh" or "fallback"."""
    return page.evaluate("document.documentElement.dataset.pythonStart || null")


def snapshot_saved(page: Page) -> float | None:
    """When the stored snapshot was saved (ms since the epoch), or None if there is none."""
    return page.evaluate("""() => new Promise((resolve, reject) => {
      const opening = indexedDB.open("ember-python:/", 1);
      opening.onerror = () => reject(opening.error);
      opening.onsuccess = () => {
        const read = opening.result.transaction("snapshots").objectStore("snapshots").get("current");
        read.onsuccess = () => resolve(read.result ? read.result.saved : null);
      };
    })""")


def wait_saved(page: Page) -> None:
    """Until the header says the course is available offline (the snapshot is stored before that)."""
    expect(page.locator("#ember-offline")).to_have_text("Available offline", timeout=SAVED_MS)


def run_print(page: Page, index: int = 2) -> None:
    replace_cell_code(page, index, "print(6 * 7)")
    expect(run_cell(page, index)).to_contain_text("42")


def stop_in_place(page: Page, index: int = 2) -> None:
    """Run an endless loop, press Stop: it is interrupted, and the same Python (its variables) goes on."""
    page.evaluate("""() => { window.__toasts = 0;
      new MutationObserver(() => { window.__toasts += document.querySelectorAll(".ember-toast").length; })
        .observe(document.body, { childList: true }); }""")
    replace_cell_code(page, index, LOOP_THAT_SAYS_SO.format(name="n"))
    box = cell(page, index)
    box.get_by_role("button", name="Run", exact=True).click()
    expect(box.locator(".ember-output")).to_contain_text("looping", timeout=RUN_MS)  # the loop is under way
    box.get_by_role("button", name="Stop").click()
    expect(box.locator(".ember-output")).to_contain_text("Stopped", timeout=10_000)
    expect(box.locator(".ember-output")).not_to_contain_text("restarted")
    replace_cell_code(page, index, "print(n > 0)")  # the loop's variable survived: not a new Python
    expect(run_cell(page, index)).to_contain_text("True")
    assert page.evaluate("window.__toasts") == 0  # no "Python was restarted" notice


@pytest.mark.long
def test_after_one_visit_lessons_load_run_and_check_offline_and_a_damaged_snapshot_falls_back(
        offline_context: BrowserContext, watch: Watch, server: Server) -> None:
    page = learner_page(offline_context, watch)
    open_page(page, server.url + LESSON_10)
    wait_for_lab(page)
    assert python_start(page) == "built"  # a first visit starts from the build's snapshot
    wait_saved(page)
    # Only the service worker asks for offline.json: its requests are watched as well (none may leave 127.0.0.1).
    assert any(url.endswith("/offline.json") for url in watch.requests)
    server.stop()  # the host is gone, and the browser is offline too
    offline_context.set_offline(True)

    page.reload()
    wait_for_lab(page)
    assert python_start(page) == "snapshot"
    assert page.evaluate("navigator.onLine") is False
    run_print(page)
    stop_in_place(page)  # the interrupt buffer works on Python started from its snapshot too
    claims = run_checks(page)
    expect(claims).to_have_count(len(COURSE.lessons["L10"].claims))
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "fail")  # the gap is not written yet

    open_page(page, server.url + LESSON_12)
    wait_for_lab(page)
    run_print(page, 0)
    expect(page.locator("#ember-offline")).to_have_text("Available offline")
    expect(page.locator(".katex").first).to_be_visible()  # the math, from the cache too

    # Still offline, the stored snapshot damaged: Python starts normally from the saved files instead.
    assert page.evaluate(DAMAGE_SNAPSHOT) > 1_000_000
    page.reload()
    wait_for_lab(page)
    assert python_start(page) == "fallback"
    run_print(page, 0)
    # The damaged snapshot was dropped and, once Python was idle, a good one stored in its place.
    reloaded = page.evaluate("performance.timeOrigin")
    expect(page.locator("html")).to_have_attribute("data-snapshot", "stored", timeout=SAVED_MS)
    assert (snapshot_saved(page) or 0) >= reloaded, "no new snapshot was stored"
    page.reload()
    wait_for_lab(page)
    assert python_start(page) == "snapshot"
    run_print(page, 0)


def test_without_headers_the_page_becomes_isolated_and_stop_interrupts(offline_context: BrowserContext,
                                                                       watch: Watch, plain_server: Server) -> None:
    page = learner_page(offline_context, watch)
    response = page.goto(plain_server.url + LESSON_10)
    assert response is not None and "cross-origin-embedder-policy" not in response.headers
    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=BOOT_MS)
    assert page.evaluate("crossOriginIsolated") is True
    # The first load, then the one reload the page made once the service worker controlled it.
    assert page.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
    assert page.evaluate("sessionStorage.getItem('ember:isolation-reload')") == "1"
    wait_for_lab(page)

    stop_in_place(page)
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=BOOT_MS)
    assert page.evaluate("crossOriginIsolated") is True
    origin = page.evaluate("performance.timeOrigin")
    wait_saved(page)  # the page's background work done: the service worker registered, every file saved
    assert page.evaluate("performance.timeOrigin") == origin  # isolated at once: no reload of its own


def test_a_new_version_is_announced_and_taken_on_reload_keeping_the_work(offline_context: BrowserContext,
                                                                        watch: Watch, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    shutil.copytree(SITE, folder)
    server = Server(folder, isolate=True)
    try:
        page = learner_page(offline_context, watch)
        open_page(page, server.url + LESSON_10)
        wait_for_lab(page)
        wait_saved(page)
        type_into_gap(page, "L10.backward", "pass  # mine, typed before the update")
        page.wait_for_function("() => (localStorage.getItem('ember:v1') || '').includes('# mine')")

        # A new version of the course goes up while the page is open: one page changes.
        changed = folder / LESSON_12 / "index.html"
        changed.write_text(changed.read_text().replace("<article", '<p id="new-version">New.</p><article', 1))
        for copy in changed.parent.glob("index.html.*"):
            copy.unlink()
        build_site.offline(folder)
        page.evaluate("navigator.serviceWorker.getRegistration().then((registration) => registration.update())")
        notice = page.locator(".ember-update")
        expect(notice).to_contain_text("A new version of the course is ready", timeout=SAVED_MS)
        expect(page.locator("#ember-offline")).to_have_text("New version ready")
        run_print(page)  # the open page keeps working on the version it has

        notice.get_by_role("button", name="Reload now").click()
        page.wait_for_load_state("load")
        wait_for_lab(page)
        expect(page.locator(".ember-update")).to_have_count(0)
        assert "# mine" in (stored_piece(page, "L10.backward") or "")
        names = page.evaluate("caches.keys()")
        assert len([name for name in names if name.startswith("ember-offline:/:")]) == 1, names  # the old one went

        server.stop()
        offline_context.set_offline(True)
        open_page(page, server.url + LESSON_12)
        expect(page.locator("#new-version")).to_have_text("New.")  # the new version, from the new cache
        wait_for_lab(page)
    finally:
        server.stop()


@pytest.mark.fresh_profile  # a first visit: Python downloads, with no snapshot to start from
def test_the_python_badge_tells_downloading_then_starting_then_ready(page: Page, base_url: str) -> None:
    page.add_init_script("""(() => {
      window.__badge = [];
      new MutationObserver(() => {
        const text = document.getElementById("ember-python")?.textContent;
        if (text && window.__badge[window.__badge.length - 1] !== text) window.__badge.push(text);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    })()""")
    # The largest file is held until the build's snapshot is in (as on a network that brings it first): while it
    # is held, some bytes are missing, and nothing may say Python is starting.
    with held(page.context, "**/pyodide.asm.wasm"), page.context.expect_event(
            "requestfinished", lambda request: "/py/start-" in request.url, timeout=BOOT_MS):
        page.goto(base_url + LESSON_10)
        expect(page.locator("#ember-python")).to_contain_text("Python: downloading", timeout=BOOT_MS)
    expect(page.locator("#ember-python")).to_have_text("Python: ready", timeout=BOOT_MS)
    seen: list[str] = page.evaluate("window.__badge")
    downloads = [text for text in seen if text.startswith("Python: downloading")]
    assert downloads, seen
    first = downloads[0].split()  # "Python: downloading 1.2 of 13.1 MB…"
    assert float(first[2]) < float(first[4]) and 5 < float(first[4]) < 30, downloads
    while_held = seen[seen.index(downloads[0]):seen.index(downloads[-1]) + 1]
    assert while_held == downloads, seen  # no "starting" while a file is still coming
    after = seen[seen.index(downloads[-1]) + 1:]
    assert after[:2] == ["Python: starting…", "Python: ready"], seen  # downloaded, then starting, then ready


def test_the_snapshots_worker_losing_its_downloads_throws_nothing_and_the_course_is_still_saved(
        offline_context: BrowserContext, watch: Watch, server: Server) -> None:
    page = learner_page(offline_context, watch)
    open_page(page, server.url + LESSON_10)
    wait_for_lab(page)
    # Once Python has been idle a moment, a worker of its own boots to store the snapshot (before the service
    # worker is registered): from now on the course's files never come to it, as when a host goes away.
    # It stores the build's snapshot if that comes, else it starts Python to make one: neither comes.
    refused: list[str] = []
    page.route("**/assets/gen/py/start-*.gz", refusing(refused))
    page.route("**/assets/gen/py/course-*.zip", refusing(refused))
    expect(page.locator("html")).to_have_attribute("data-snapshot", "failed", timeout=SAVED_MS)  # it gave up
    asked = sorted(url.rsplit("/", 1)[-1].split("-")[0] for url in refused)
    assert asked == ["course", "course", "start", "start"], refused  # each asked once more, then given up
    wait_saved(page)  # the service worker's save goes on without the snapshot
    assert page.evaluate("localStorage.getItem('ember:snapshot')") is None  # none was stored
    run_print(page)  # and the page's own Python never noticed
    # the downloads that failed threw nothing uncaught: the fixture's watch fails the test on one
