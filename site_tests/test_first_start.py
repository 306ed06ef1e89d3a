"""A first visit's Python starts from the memory snapshot the build made (web/make-snapshot.mjs), shipped gzipped
beside Pyodide and named by the manifest: nothing of the building machine is in it, the background worker stores
its bytes without starting a second Python, and a damaged one, or one the host unzipped already, still gives a
working Python."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from .harness import LESSON_10, ROOT, SITE, VIEWPORT, Watch, watching
from .learner import BOOT_MS, RUN_MS, replace_cell_code, run_cell, wait_for_lab

GEN = SITE / "assets" / "gen"
SNAPSHOT_MS = 120_000  # until the background worker stored the snapshot, on a busy machine


def built() -> dict:
    """The manifest's entry for the build's snapshot: its path (under assets/gen/) and size."""
    return json.loads((GEN / "manifest.json").read_text())["snapshot"]


def test_the_site_ships_the_snapshot_its_manifest_names_with_the_course_in_it_and_nothing_of_the_build_machine(
) -> None:
    entry = built()
    zipped = (GEN / entry["path"]).read_bytes()
    assert len(zipped) == entry["size"]
    assert zipped[:2] == b"\x1f\x8b"  # gzipped: a host that compresses nothing still sends it small
    memory = gzip.decompress(zipped)
    assert len(memory) > 5 * len(zipped)
    assert b"labs.frontends.session" in memory  # the course's Python is imported in it
    assert str(ROOT).encode() not in memory  # no path of the machine that built it
    assert b"make-snapshot" not in memory  # nor the name of the script (Emscripten names the program after it)
    assert len(list((GEN / "py").glob("start-*.gz"))) == 1  # one build's snapshot, not every build's


@pytest.fixture
def fresh_page(browser: Browser, watch: Watch) -> Iterator[Callable[..., Page]]:
    """A page in a fresh profile without service workers (nothing stored: a first visit), its requests watched;
    ``answer`` routes the build's snapshot."""
    contexts: list[BrowserContext] = []

    def open_fresh(answer: Callable[[Route], None] | None = None) -> Page:
        context = watching(browser.new_context(viewport=VIEWPORT, service_workers="block"), lambda: watch)
        contexts.append(context)
        if answer is not None:
            context.route(f"**/assets/gen/{built()['path']}", answer)
        page = context.new_page()
        page.on("pageerror", lambda error: watch.errors.append(str(error)))
        return page

    yield open_fresh
    for context in contexts:
        context.close()
    watch.check()


def python_start(page: Page) -> list:
    return page.evaluate("[document.documentElement.dataset.pythonStart, window.emberRuntime.bootInfo.fallback]")


@pytest.mark.fresh_profile
def test_a_first_visit_starts_from_the_builds_snapshot_and_stores_it_without_starting_a_second_python(
        fresh_page, base_url: str, watch: Watch) -> None:
    page = fresh_page()
    page.goto(base_url + LESSON_10)
    wait_for_lab(page)
    assert python_start(page) == ["built", None]
    replace_cell_code(page, 0, "import os, sys\nprint(sys.executable, os.environ.get('_'), os.environ['HOME'])")
    expect(run_cell(page, 0)).to_contain_text("/home/pyodide/this.program ./this.program /home/pyodide",
                                              timeout=RUN_MS)
    expect(page.locator("html")).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
    # The background worker stored the build's bytes: it did not start Pyodide (no second download of its wasm).
    assert sum(url.endswith("pyodide.asm.wasm") for url in watch.requests) == 1
    assert sum(url.endswith(built()["path"]) for url in watch.requests) == 2  # the page's worker's, the storer's
    page.reload()
    wait_for_lab(page)
    assert python_start(page) == ["snapshot", None]


@pytest.mark.fresh_profile
def test_a_damaged_builds_snapshot_gives_a_normal_start_that_says_why(fresh_page, base_url: str) -> None:
    zipped = (GEN / built()["path"]).read_bytes()

    def cut(route: Route) -> None:
        route.fulfill(status=200, body=zipped[: len(zipped) // 2], content_type="application/octet-stream")

    page = fresh_page(cut)
    page.goto(base_url + LESSON_10)
    wait_for_lab(page)
    start, why = python_start(page)
    assert start == "fallback" and why == "the course's snapshot is damaged: it could not be unzipped", (start, why)
    replace_cell_code(page, 0, "print(6 * 7)")
    expect(run_cell(page, 0)).to_contain_text("42", timeout=RUN_MS)  # a Python that works
    # The background worker finds the same damage and makes a snapshot by a normal start; a reload starts from it.
    expect(page.locator("html")).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
    page.reload()
    wait_for_lab(page)
    assert python_start(page) == ["snapshot", None]


@contextmanager
def gzip_encoding_host(zipped: Path) -> Iterator[str]:
    """A host that sends the snapshot's .gz file as it is with ``Content-Encoding: gzip`` (as a server that maps
    the .gz suffix to an encoding does): the browser unzips it on the way. Its address, while the block runs."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = zipped.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/snapshot"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.fresh_profile
def test_a_snapshot_the_host_unzipped_on_the_way_is_taken_as_it_comes(fresh_page, base_url: str) -> None:
    with gzip_encoding_host(GEN / built()["path"]) as host:
        page = fresh_page(lambda route: route.continue_(url=host))  # the worker's request, answered by that host
        page.goto(base_url + LESSON_10)
        page.wait_for_function("() => document.documentElement.dataset.python === 'ready'", timeout=BOOT_MS)
        assert python_start(page) == ["built", None]
        expect(page.locator("html")).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)  # as it came
        # What a fetch of the snapshot hands over on this host is the memory itself, unzipped by the browser.
        came = page.evaluate("async (path) => (await (await fetch(path)).arrayBuffer()).byteLength",
                             f"assets/gen/{built()['path']}")
        assert came == len(gzip.decompress((GEN / built()["path"]).read_bytes()))
