"""Where the browser's storage refuses the memory snapshot as a Blob (WebKit's ephemeral storage: Safari's private
windows, its WebDriver sessions, with no reason given), it is stored as bytes and a reload starts from it; where
it refuses it every way, the page says why in its console and Python starts from the build's snapshot each time.

Chromium takes Blobs, so its worker (assets/gen/worker.js, the page's and the snapshot's) is given a first line
that makes IndexedDB refuse them as WebKit does: the transaction aborts, its error null. WebKit itself walks the
same reload in test_other_engines.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route

from .harness import LESSON_10, VIEWPORT, Watch, watching
from .learner import BOOT_MS

# Abort a transaction that stores a snapshot (an entry with bytes) the way WebKit's does: no error given.
REFUSE = """{
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (value, key) {
    const request = put.call(this, value, key);
    const transaction = this.transaction;  // aborted once the request is done, as WebKit's is, not at once
    if (value && value.bytes !== undefined && (%s)) request.addEventListener("success", () => transaction.abort());
    return request;
  };
}
"""
BLOBS = "value.bytes instanceof Blob"
EVERYTHING = "true"
STORED_AS = """() => new Promise((resolve, reject) => {
  const opening = indexedDB.open("ember-python:/", 1);
  opening.onerror = () => reject(opening.error);
  opening.onsuccess = () => {
    const read = opening.result.transaction("snapshots").objectStore("snapshots").get("current");
    read.onsuccess = () => resolve(read.result ? Object.prototype.toString.call(read.result.bytes) : null);
  };
})"""


@pytest.fixture
def refusing(browser: Browser, watch: Watch) -> Iterator[Callable[[str], tuple[Page, list[str]]]]:
    """A page in a fresh profile (no service worker: the snapshot is stored all the same) whose workers' IndexedDB
    refuses what the condition names; answers it and the console's warnings."""
    contexts: list[BrowserContext] = []

    def open_refusing(condition: str) -> tuple[Page, list[str]]:
        context = watching(browser.new_context(viewport=VIEWPORT, service_workers="block"), lambda: watch)
        contexts.append(context)

        def patched(route: Route) -> None:
            response = route.fetch()
            route.fulfill(response=response, body=REFUSE % condition + response.text())

        context.route("**/assets/gen/worker.js", patched)
        page = context.new_page()
        page.on("pageerror", lambda error: watch.errors.append(str(error)))
        warnings: list[str] = []
        page.on("console", lambda message: warnings.append(message.text) if is_warning(message) else None)
        return page, warnings

    yield open_refusing
    for context in contexts:
        context.close()
    watch.check()


def is_warning(message: ConsoleMessage) -> bool:
    return message.type in ("warning", "error")


def wait_ready(page: Page) -> None:
    page.wait_for_function("() => document.documentElement.dataset.python === 'ready'", timeout=BOOT_MS)


@pytest.mark.fresh_profile
def test_a_snapshot_refused_as_a_blob_is_stored_as_bytes_and_a_reload_starts_from_it(
        refusing, base_url: str) -> None:
    page, warnings = refusing(BLOBS)
    page.goto(base_url + LESSON_10)
    wait_ready(page)
    page.wait_for_function("() => localStorage.getItem('ember:snapshot')", timeout=BOOT_MS)
    assert page.evaluate(STORED_AS) == "[object ArrayBuffer]"
    page.reload()
    wait_ready(page)
    assert page.evaluate("document.documentElement.dataset.pythonStart") == "snapshot"
    assert not [text for text in warnings if "snapshot" in text], warnings


@pytest.mark.fresh_profile
def test_a_snapshot_refused_every_way_is_reported_with_a_reason_and_python_still_starts(
        refusing, base_url: str) -> None:
    page, warnings = refusing(EVERYTHING)
    page.goto(base_url + LESSON_10)
    wait_ready(page)
    page.wait_for_function("() => window.emberRuntime.snapshot === 'off'", timeout=BOOT_MS)  # it gave up
    said = [text for text in warnings if "snapshot" in text]
    assert said, warnings
    assert "Python's memory snapshot was not stored" in said[0]
    assert "refused it without giving a reason" in said[0]
    assert "null" not in said[0]
    assert page.evaluate("localStorage.getItem('ember:snapshot')") is None
    page.reload()
    wait_ready(page)
    assert page.evaluate("document.documentElement.dataset.pythonStart") == "built"  # never a stored one
