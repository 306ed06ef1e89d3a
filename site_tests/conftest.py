"""Browser tests against the built site, served on 127.0.0.1, in Debian's Chromium: the fixtures.

The harness itself (server, browser, watch, shared profile and its template) is ``site_tests/harness.py``, which
the benchmarks use too. Every page is watched: any request that is not to 127.0.0.1 is blocked and fails the
test, and so do a 404 and an uncaught page error (the service worker's requests are watched too).

Tests share one browser profile per process (``context``), a copy of the template of a returning learner's
profile (see the harness); ``another_context`` is a second one, for a second learner. A test marked
``fresh_profile`` gets a new profile of its own, without the snapshot (the ``ember:offline`` flag off);
test_offline.py uses ``offline_context``: a new profile with the service worker and the snapshot as a first
visit has them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from labs.frontends.session import Session
from tests.pages_kit import learner_session

from .cpu_per_test import pytest_runtest_protocol  # noqa: F401 (a hook: each test's CPU, for bench/suite.py)
from .harness import (
    SITE,
    Server,
    SharedProfile,
    SiteNotReady,
    Watch,
    built_for_port,
    launch,
    served,
    template_profile,
    watched_context,
)

_main_server: Server | None = None  # the isolated site on its built port, served by pytest's main process


def pytest_configure(config: pytest.Config) -> None:
    """Serve the isolated site once for the whole run, from the main process: with pytest-xdist, every
    worker process uses the same server (only one can listen on the port the site was built for)."""
    global _main_server
    if not (SITE / "index.html").exists():
        raise pytest.UsageError("site/ is not built: run `bash scripts/test.sh` (it builds the site first)")
    try:
        port = built_for_port()
    except SiteNotReady as error:
        raise pytest.UsageError(str(error)) from None
    if not hasattr(config, "workerinput"):
        _main_server = Server(SITE, isolate=True, port=port)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _main_server is not None:
        _main_server.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In several processes (pytest -n N): long browser tests first, then the other browser tests, then
    the rest, so that the long ones start at once instead of making the others wait for them at the end."""
    # pytest-xdist's worker processes collect (the main one only schedules) and see numprocesses unset.
    if not hasattr(config, "workerinput") and not config.getoption("numprocesses", None):
        return

    def order(item: pytest.Item) -> int:
        in_browser = Path(str(item.path)).is_relative_to(Path(__file__).parent)
        return 0 if item.get_closest_marker("long") else 1 if in_browser else 2
    items.sort(key=order)  # stable: the collection's order within each group


@pytest.fixture
def terminal_session(tmp_path: Path) -> Iterator[Session]:
    """A terminal's session (CPython, in this process) on learner files of the test's own; the import path and
    ember's modules are put back after, so that the CPython tests this process runs later import the course's."""
    with learner_session(tmp_path) as session:
        yield session


@pytest.fixture(scope="session")
def base_url() -> str:
    """The site with cross-origin isolation headers (Stop interrupts in place), on the port it was built for."""
    return f"http://127.0.0.1:{built_for_port()}/"


@pytest.fixture(scope="session")
def plain_url() -> Iterator[str]:
    """The site as a plain static host serves it: no isolation headers (Stop restarts Python)."""
    with served(isolate=False) as url:
        yield url


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = launch(playwright)
    yield browser
    browser.close()


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture(scope="session")
def shared_profile(playwright: Playwright, base_url: str,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedProfile]:
    shared = SharedProfile(playwright, base_url, tmp_path_factory.mktemp("shared-profile"), template_profile())
    yield shared
    shared.context.close()


@pytest.fixture
def context(request: pytest.FixtureRequest, browser: Browser, watch: Watch) -> Iterator[BrowserContext]:
    """The process's shared profile, wiped after the test; a new profile for a test marked ``fresh_profile``.

    A test must not add init scripts to the shared profile: they would run in every later test.
    """
    if request.node.get_closest_marker("fresh_profile"):
        context = watched_context(browser, watch)
        yield context
        context.close()
        watch.check()
        return
    shared: SharedProfile = request.getfixturevalue("shared_profile")
    shared.watch = watch
    try:
        yield shared.context
    finally:
        shared.watch = Watch()  # the wipe's own page is nobody's test
        shared.wipe(watch.requests)
    watch.check()


@pytest.fixture(scope="session")
def another_profile(playwright: Playwright, base_url: str,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedProfile]:
    """A second profile of the process, a copy of the same template: made only for a test that asks for it."""
    shared = SharedProfile(playwright, base_url, tmp_path_factory.mktemp("another-profile"), template_profile())
    yield shared
    shared.context.close()


@pytest.fixture
def another_context(another_profile: SharedProfile, watch: Watch) -> Iterator[BrowserContext]:
    """Another learner's browser beside ``context``: a profile of its own, with none of the work of the first (as
    a returning learner's, Python starts from the stored snapshot, without compiling it all again); wiped after
    the test as ``context`` is. Close none of its pages' context."""
    another_profile.watch = watch
    try:
        yield another_profile.context
    finally:
        another_profile.watch = Watch()
        another_profile.wipe(watch.requests)


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
