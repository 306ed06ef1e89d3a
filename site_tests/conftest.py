"""Browser tests against the built site, served on 127.0.0.1, in Debian's Chromium.

Every page is watched: any request that is not to 127.0.0.1 is blocked and fails the test,
and so do a 404 and an uncaught page error (the service worker's requests are watched too).

Tests that are not about offline use leave the service worker and the snapshot out (the
``ember:offline`` flag); test_offline.py uses ``offline_context``, which keeps them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from scripts.serve import make_server

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LESSON_10 = "lessons/10-order-of-blame/"


_main_server: Server | None = None  # the isolated site on its built port, served by pytest's main process


def pytest_configure(config: pytest.Config) -> None:
    """Serve the isolated site once for the whole run, from the main process: with pytest-xdist, every
    worker process uses the same server (only one can listen on the port the site was built for)."""
    global _main_server
    if not (SITE / "index.html").exists():
        raise pytest.UsageError("site/ is not built: run `bash scripts/test.sh` (it builds the site first)")
    if not hasattr(config, "workerinput"):
        _main_server = Server(SITE, isolate=True, port=built_for_port())


def pytest_unconfigure(config: pytest.Config) -> None:
    if _main_server is not None:
        _main_server.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In several processes (pytest -n N): long browser tests first, then the other browser tests, then
    the rest, so that the long ones start at once instead of making the others wait for them at the end."""
    if not config.pluginmanager.hasplugin("xdist") or not config.getoption("numprocesses", None):
        return

    def order(item: pytest.Item) -> int:
        in_browser = Path(str(item.path)).is_relative_to(Path(__file__).parent)
        return 0 if item.get_closest_marker("long") else 1 if in_browser else 2
    items.sort(key=order)  # stable: the collection's order within each group


def built_for_port() -> int:
    """The port the site was built for (its site_url): instant navigation works only there."""
    match = re.search(r"<loc>http://127\.0\.0\.1:(\d+)/</loc>", (SITE / "sitemap.xml").read_text())
    if not match:
        raise pytest.UsageError("site/ was not built for http://127.0.0.1:PORT/ (see EMBER_SITE_URL)")
    return int(match.group(1))


class Server:
    """The built site (or a copy of it) served on 127.0.0.1 in a thread, until ``stop()``."""

    def __init__(self, folder: Path, isolate: bool, port: int = 0) -> None:
        try:
            self.server = make_server(folder, port, isolate=isolate, quiet=True)
        except OSError as error:
            message = f"cannot serve the site on 127.0.0.1:{port} ({error}): is another server on it?"
            raise RuntimeError(message) from None
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.running = True

    def stop(self) -> None:
        """Stop answering, and close the listening socket (the host is gone)."""
        if self.running:
            self.server.shutdown()
            self.server.server_close()
            self.running = False


def serve(isolate: bool, port: int = 0) -> Iterator[str]:
    server = Server(SITE, isolate, port)
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def base_url() -> str:
    """The site with cross-origin isolation headers (Stop interrupts in place), on the port it was built for."""
    return f"http://127.0.0.1:{built_for_port()}/"


@pytest.fixture(scope="session")
def plain_url() -> Iterator[str]:
    """The site as a plain static host serves it: no isolation headers (Stop restarts Python)."""
    yield from serve(isolate=False)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    yield browser
    browser.close()


@dataclass
class Watch:
    """What a test's pages asked for and what went wrong."""

    requests: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def check(self) -> None:
        assert not self.foreign, f"requests off 127.0.0.1: {self.foreign}"
        assert not self.missing, f"404s: {self.missing}"
        assert not self.errors, f"uncaught page errors: {self.errors}"
        assert self.requests, "no request was recorded at all"


OPT_OUT = "try { localStorage.setItem('ember:offline', 'off'); } catch {}"


def watched_context(browser: Browser, watch: Watch, offline: bool = False, **options: object) -> BrowserContext:
    """A fresh profile whose every request (workers' too) is recorded, and blocked unless local.

    Unless ``offline``, the pages register no service worker and store no snapshot.
    """
    context = browser.new_context(**{"viewport": {"width": 1200, "height": 900}, **options})
    if not offline:
        context.add_init_script(OPT_OUT)

    def route(route_, request) -> None:
        watch.requests.append(request.url)
        url = urlparse(request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname != "127.0.0.1":
            watch.foreign.append(request.url)
            route_.abort()
        else:
            route_.continue_()

    context.route("**/*", route)
    context.on("response", lambda response: response.status == 404 and watch.missing.append(response.url))
    context.on("weberror", lambda error: watch.errors.append(str(error.error)))
    return context


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def context(browser: Browser, watch: Watch) -> Iterator[BrowserContext]:
    context = watched_context(browser, watch)
    yield context
    context.close()
    watch.check()


@pytest.fixture
def offline_context(browser: Browser, watch: Watch) -> Iterator[BrowserContext]:
    """Like ``context``, with the service worker and the snapshot as a learner's browser has them."""
    context = watched_context(browser, watch, offline=True)
    yield context
    context.close()
    watch.check()


@pytest.fixture
def page(context: BrowserContext, watch: Watch) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    return page
