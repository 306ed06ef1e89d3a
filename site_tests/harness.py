"""The browser harness the tests and the benchmarks share: the built site served on 127.0.0.1, Debian's Chromium
launched on it, every request watched, and the template of a returning learner's profile.

Nothing here is pytest's: ``site_tests/conftest.py`` makes fixtures of it, and the scripts of ``bench/`` import it.

A profile of the tests (``SharedProfile``) is a learner's browser on a return visit to a host without service
workers, where Python starts from the memory snapshot stored by the first visit. It is a copy of a template made
once for each build of the site (in .cache/test-profiles/), by the first process that needs it: the others, and
the next run, copy it instead of making their own. Between tests everything the site stored is wiped but that
snapshot, so each test starts as a new learner. Its requests are recorded, not routed (routing turns off the HTTP
cache), so that a start from the snapshot takes Pyodide's compiled wasm from Chromium's code cache, as a
returning learner's browser does: about half a CPU-second less per lesson page.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import re
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Request, Response, Route, ViewportSize

from scripts.serve import make_server

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
CHROMIUM = "/usr/bin/chromium"
# Chromium keeps only the last --disable-features switch, and Playwright passes one of its own before ours: ours
# repeats Playwright's list (test_harness.py checks that nothing of it is lost), then adds the address bar's pop-up,
# which headless Chromium still builds for every new tab (two WebUI pages in a renderer of their own, about 1.2
# CPU-seconds a tab), though no test or benchmark has an address bar to type into.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
DISABLED_FEATURES = (*PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-features=" + ",".join(DISABLED_FEATURES)]
LESSON_10 = "lessons/10-order-of-blame/"
VIEWPORT: ViewportSize = {"width": 1200, "height": 900}
Scheme = Literal["light", "dark"]  # a colour scheme a learner's system asks for


def viewport_width(page: Page) -> int:
    """The width of the page's window (every context the tests and benchmarks open has a viewport)."""
    size = page.viewport_size
    assert size is not None, "the page has no viewport"
    return size["width"]


class SiteNotReady(RuntimeError):
    """site/ is not built, or not for http://127.0.0.1:PORT/."""


def built_for_port() -> int:
    """The port the site was built for (its site_url): instant navigation works only there."""
    sitemap = SITE / "sitemap.xml"
    match = re.search(r"<loc>http://127\.0\.0\.1:(\d+)/</loc>", sitemap.read_text()) if sitemap.exists() else None
    if not match:
        raise SiteNotReady("site/ was not built for http://127.0.0.1:PORT/ (see EMBER_SITE_URL)")
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


@contextmanager
def served(isolate: bool, port: int = 0, folder: Path = SITE) -> Iterator[str]:
    """The built site (or ``folder``) served on 127.0.0.1 while the block runs: its address."""
    server = Server(folder, isolate, port)
    try:
        yield server.url
    finally:
        server.stop()


def launch(playwright: Playwright, extra_args: Sequence[str] = ()) -> Browser:
    """Debian's Chromium, headless, with the flags every test and benchmark uses."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[*FLAGS, *extra_args])


def launch_persistent(playwright: Playwright, folder: Path | str, extra_args: Sequence[str] = (),
                      **options: Any) -> BrowserContext:
    """Debian's Chromium on a profile kept in ``folder``, with the same flags (and Playwright's ``options``)."""
    return playwright.chromium.launch_persistent_context(
        folder, executable_path=CHROMIUM, args=[*FLAGS, *extra_args], headless=True, **options)


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


def watched_context(browser: Browser, watch: Watch, offline: bool = False, **options: Any) -> BrowserContext:
    """A fresh profile whose every request (workers' too) is recorded, and blocked unless local.

    Unless ``offline``, the pages register no service worker and store no snapshot.
    """
    context = browser.new_context(**{"viewport": VIEWPORT, **options})
    if not offline:
        context.add_init_script(OPT_OUT)
    return watching(context, lambda: watch)


def is_foreign(address: str) -> bool:
    """Whether a request goes off 127.0.0.1."""
    url = urlparse(address)
    return url.scheme in ("http", "https", "ws", "wss") and url.hostname != "127.0.0.1"


def watching(context: BrowserContext, now: Callable[[], Watch], routed: bool = True) -> BrowserContext:
    """Record the context's requests, 404s and errors in the watch of the moment; block requests off 127.0.0.1.

    ``routed`` blocks them by routing every request, which turns off the browser's HTTP cache (and with it
    the cache of compiled wasm); without it they are only recorded, for a browser whose resolver
    (``NO_OTHER_HOSTS``) finds no host but 127.0.0.1.
    """
    def record(request: Request) -> None:
        now().requests.append(request.url)
        if is_foreign(request.url):
            now().foreign.append(request.url)

    def route(route_: Route, request: Request) -> None:
        record(request)
        if is_foreign(request.url):
            route_.abort()
        else:
            route_.continue_()

    def answered(response: Response) -> None:
        if response.status == 404:
            now().missing.append(response.url)

    if routed:
        context.route("**/*", route)
    else:
        context.on("request", record)
    context.on("response", answered)
    context.on("weberror", lambda error: now().errors.append(str(error.error)))
    return context


# Everything the site stored in a profile, wiped but Python's snapshot (its database, and the flag that
# says it is there, given as `flag` where the first visit stored one): run on a blank page of an origin.
WIPE = """async (flag) => {
  localStorage.clear();
  sessionStorage.clear();
  if (flag) localStorage.setItem("ember:snapshot", flag);
  for (const { name } of await indexedDB.databases()) {
    if (name.startsWith("ember-python:")) continue;
    await new Promise((done) => {
      const ask = indexedDB.deleteDatabase(name);
      ask.onsuccess = ask.onerror = ask.onblocked = done;
    });
  }
  for (const key of await caches.keys()) await caches.delete(key);
  const files = await navigator.storage.getDirectory();
  for await (const name of files.keys()) await files.removeEntry(name, { recursive: true });
  const left = (await indexedDB.databases()).map((db) => db.name);
  const stored = await new Promise((done) => {  // the snapshot's key entry (web/src/runtime/snapshot.js)
    const opening = indexedDB.open(`ember-python:${location.pathname.replace(/[^/]*$/, "")}`);
    opening.onerror = () => done(false);
    opening.onsuccess = () => {
      const db = opening.result;
      if (!db.objectStoreNames.contains("snapshots")) { db.close(); return done(false); }
      const ask = db.transaction("snapshots").objectStore("snapshots").get("current-key");
      ask.onsuccess = () => { db.close(); done(Boolean(ask.result)); };
      ask.onerror = () => { db.close(); done(false); };
    };
  });
  return { left, keys: Object.keys(localStorage), stored };
}"""
BLANK = "ember-tests-blank"  # a page of the site's origin with nothing on it (answered by the tests, not the site)
NO_OTHER_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"  # no host name but 127.0.0.1 resolves


FLAG_FILE = "ember-snapshot-flag"  # in a template profile: the flag its first visit stored
TEMPLATE_FORMAT = 3  # change it when the way a template is made changes (2: with the HTTP cache on; 3: checked)
CODE_CACHE_FILE = "ember-code-cache"  # in a template profile: whether a start from it found the compiled wasm
CODE_CACHE_TRIES = 2
# Chromium keeps more of the wasm's optimized code when the start that checks the cache stays open a while:
# later starts then compile 30-100 ms of it again, against about 400 ms when that page closes at once.
CODE_CACHE_SETTLE_MS = 3000
CODE_CACHE_TRACE = ["v8.wasm", "disabled-by-default-v8.wasm.detailed", "devtools.timeline",
                    "disabled-by-default-devtools.timeline"]  # the categories that show the cache hit
PROFILES = ROOT / ".cache" / "test-profiles"


class SharedProfile:
    """One browser profile on disk for the tests of this process, as a returning learner's browser has it on a
    host without service workers: the first start of Python stores the memory snapshot that later starts use.

    The profile is a copy of ``template``, made once for this build of the site (and this Chromium) by
    whichever test process came first: every other process, and the next run, copies it instead of starting
    Python afresh and making a snapshot of its own.
    """

    def __init__(self, playwright: Playwright, base_url: str, folder: Path, template: Path) -> None:
        self.base_url = base_url
        self.watch = Watch()
        self.playwright = playwright
        self.wiper: Page | None = None
        with exclusive(template.with_name(template.name + ".lock")):
            if not (template / FLAG_FILE).is_file():
                self.make(template)
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(template, folder, symlinks=True)
        self.flag = (folder / FLAG_FILE).read_text()
        self.open(folder)

    def make(self, template: Path) -> None:
        """Make the template profile: a first visit stores the snapshot, then everything else is wiped.

        The first visit compiles Pyodide's wasm twice at once (the page's worker and the one that makes the
        snapshot), and only some first visits leave compiled code that later starts find (five templates of
        eight); without it each start compiles the wasm again, about 0.4 CPU-seconds more per lesson page. So
        the template is opened again, a start from the snapshot traced, and the template made anew (up to
        CODE_CACHE_TRIES times) until one finds it. The outcome is kept in the template (CODE_CACHE_FILE).
        """
        for old in template.parent.glob("profile-*"):  # other builds' templates, and a making left half done
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        making = template.with_name(template.name + ".making")
        visits, found = 0, False
        while not found and visits < CODE_CACHE_TRIES:
            visits += 1
            shutil.rmtree(making, ignore_errors=True)
            self.open(making)
            self.flag = self.first_visit()
            self.close_wiped()  # what the first visit left (the theme's palette, the progress) is not the next test's
            self.open(making)  # a browser of its own, as a returning learner's
            found = self.finds_compiled_wasm()
            self.close_wiped()
        (making / CODE_CACHE_FILE).write_text(f"{'found' if found else 'not found'} after {visits} first visit(s)\n")
        (making / FLAG_FILE).write_text(self.flag)
        making.rename(template)

    def close_wiped(self) -> None:
        """Wipe what the visits stored (but the snapshot) and close the browser."""
        self.wipe([])
        self.context.close()
        self.wiper = None

    def finds_compiled_wasm(self) -> bool:
        """Whether a start of lesson 10 from the snapshot takes Pyodide's compiled wasm from Chromium's code cache
        (a browser-wide trace shows v8.wasm.moduleCacheHit)."""
        page = self.context.new_page()
        tracing = self.context.new_cdp_session(page)
        ended: dict = {}
        tracing.on("Tracing.tracingComplete", lambda event: ended.update(event))
        tracing.send("Tracing.start", {"traceConfig": {"includedCategories": CODE_CACHE_TRACE},
                                       "transferMode": "ReturnAsStream"})
        page.goto(self.base_url + LESSON_10)
        page.wait_for_function("() => document.documentElement.dataset.python === 'ready'", timeout=180_000)
        tracing.send("Tracing.end")
        while not ended:
            page.wait_for_timeout(50)
        chunks = []
        while True:
            chunk = tracing.send("IO.read", {"handle": ended["stream"], "size": 1 << 20})
            chunks.append(base64.b64decode(chunk["data"]) if chunk.get("base64Encoded") else chunk["data"].encode())
            if chunk.get("eof"):
                break
        tracing.send("IO.close", {"handle": ended["stream"]})
        page.wait_for_timeout(CODE_CACHE_SETTLE_MS)  # the page's hot code compiled again, for the cache to keep
        page.close()
        self.watch.check()
        self.watch = Watch()
        return b"v8.wasm.moduleCacheHit" in b"".join(chunks)

    def open(self, folder: Path) -> None:
        """Start Chromium on the profile in ``folder``, watched without routing: no host name resolves but
        127.0.0.1's, and the HTTP cache stays on."""
        self.context = watching(launch_persistent(self.playwright, folder, [NO_OTHER_HOSTS], viewport=VIEWPORT,
                                                  service_workers="block"), lambda: self.watch, routed=False)

    def first_visit(self) -> str:
        """Open lesson 10 as a first visit: Python starts, then stores its snapshot once idle; answer the flag."""
        page = self.context.new_page()
        page.goto(self.base_url + LESSON_10)
        flag = page.wait_for_function("() => localStorage.getItem('ember:snapshot')", timeout=180_000).json_value()
        page.close()
        self.watch.check()
        self.watch = Watch()
        return flag

    def wipe_origin(self, page: Page, origin: str) -> bool:
        """Forget what the site stored on one origin, but the snapshot; answer whether the snapshot is there."""
        page.goto(origin + BLANK)
        left = page.evaluate(WIPE, self.flag if origin == self.base_url else None)
        if [name for name in left["left"] if not name.startswith("ember-python:")] or \
                set(left["keys"]) - {"ember:snapshot"}:
            raise RuntimeError(f"the shared profile was not wiped on {origin}: {left}")
        return bool(left["stored"])

    def wipe(self, visited: list[str]) -> None:
        """Close every page and forget what the site stored on every origin a test visited, but the snapshot:
        the next test is a new learner.

        The blank page that wipes stays open from one wipe to the next (it runs nothing between them): a new
        page each time cost a renderer process's start, about 0.8 CPU-seconds per test.
        """
        for page in self.context.pages:
            if page is not self.wiper:
                page.close()
        self.context.clear_cookies()
        self.context.clear_permissions()
        self.context.set_offline(False)
        origins = {self.base_url} | {f"{url.scheme}://{url.netloc}/" for url in map(urlparse, visited)
                                     if url.scheme == "http" and url.hostname == "127.0.0.1"}
        if self.wiper is None or self.wiper.is_closed():
            self.wiper = self.context.new_page()
            self.wiper.route(f"**/{BLANK}", lambda route: route.fulfill(body="<!doctype html><title>blank</title>",
                                                                        content_type="text/html"))
        page = self.wiper
        for origin in sorted(origins):
            if not self.wipe_origin(page, origin) and origin == self.base_url:  # a test dropped the snapshot
                page.evaluate("() => localStorage.clear()")                    # (a damaged start falls back)
                self.flag = self.first_visit()
                if not self.wipe_origin(page, origin):
                    raise RuntimeError("the shared profile's first visit stored no snapshot")


@contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold a lock on a file (other processes wait for it) while the block runs."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def template_profile() -> Path:
    """Where the template profile of this build of the site, for this Chromium, is kept."""
    chromium = Path(CHROMIUM).resolve().stat()
    built = (SITE / "assets/gen/manifest.json").read_bytes() + (SITE / "sitemap.xml").read_bytes()
    made = f"{chromium.st_size}/{chromium.st_mtime_ns}/{TEMPLATE_FORMAT}".encode()
    key = hashlib.sha256(built + made).hexdigest()[:16]
    return PROFILES / f"profile-{key}"
