"""Python's start on a lesson page: the worker is created before the browser has read any style sheet,
and the course's Python is imported from bytecode built with the site, graphviz waiting for a drawing
(its wheel goes in after the boot has answered, before the first request)."""

from __future__ import annotations

import hashlib
import json
import struct
import zipfile
from pathlib import PurePosixPath

import pytest
from playwright.sync_api import Locator, Page, expect

from .harness import LESSON_10, SITE, Watch
from .learner import BOOT_MS, START_WORKER, refusing, settled, wait_for_lab

# Each Worker the page creates, with how many style sheets the document had by then.
RECORD_WORKERS = """
window.__workers = [];
const Original = window.Worker;
window.Worker = class extends Original {
  constructor(url, options) {
    window.__workers.push([String(url).split("/").pop(), document.styleSheets.length]);
    super(url, options);
  }
};
"""

# When Python became ready, on the page's clock.
RECORD_READY = """
new MutationObserver(() => {
  if (document.documentElement.dataset.python === "ready") window.__readyAt ??= performance.now();
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-python"] });
"""
SEARCH_INDEX = "() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('/search_index.json'))"
WASM = "**/assets/gen/pyodide/pyodide.asm.wasm"  # the route of Pyodide's wasm file, as the page's worker asks for it
WASM_FILE = SITE / "assets/gen/pyodide/pyodide.asm.wasm"


# Run in the page's worker right after its start: the bytecode that the imports used, and what they left out.
INSPECT = """
import _imp, importlib.util, json, sys
import hx.trace, labs.course.model, labs.frontends.session

def header(module):
    with open(module.__spec__.cached, "rb") as handle:
        magic, flags = handle.read(4), int.from_bytes(handle.read(4), "little")
    return magic == importlib.util.MAGIC_NUMBER, flags

imported = sorted({"graphviz", "html"} & set(sys.modules))
import graphviz  # its wheel is unpacked after the boot's answer, before this first request runs

print(json.dumps({"headers": [header(m) for m in (hx.trace, labs.course.model, labs.frontends.session)],
                  "checking": _imp.check_hash_based_pycs, "imported": imported, "graphviz": graphviz.__version__}))
"""


def start_problem(page: Page) -> Locator:
    """The alert at the top of a page whose Python could not start."""
    return page.get_by_role("alert").filter(has_text="Python could not start")


def test_a_lesson_page_creates_its_worker_before_reading_any_style_sheet(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_WORKERS)
    page.goto(base_url + LESSON_10)
    page.wait_for_selector("html[data-python=ready]", state="attached", timeout=BOOT_MS)
    workers = page.evaluate("window.__workers")
    assert workers[0] == ["worker.js", 0], workers
    assert page.evaluate("document.styleSheets.length") > 0  # they came after


FONTS_FETCHED = """performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".woff2"))
  .map((e) => [e.name.split("/").pop(), e.initiatorType])"""


def test_a_lesson_pages_math_fonts_come_from_its_head_not_from_a_late_layout(page: Page, base_url: str) -> None:
    page.goto(base_url + LESSON_10)  # returns at the load event: the page is laid out, the theme still waits
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    fetched = page.evaluate(FONTS_FETCHED)
    assert sorted(fetched) == [["KaTeX_Main-Regular.woff2", "link"], ["KaTeX_Math-Italic.woff2", "link"]], fetched


# Every message the page sends its workers held until the test lets them go (window.__release()), then sent in
# order; when they went, on the page's clock.
HOLD_BOOT_REQUEST = """
const send = Worker.prototype.postMessage;
const held = [];
window.__release = () => {
  window.__sentAt = performance.now();
  for (const [worker, message] of held.splice(0)) send.apply(worker, message);
};
Worker.prototype.postMessage = function (...args) {
  if (window.__sentAt !== undefined) return send.apply(this, args);
  held.push([this, args]);
};
"""

# In the worker: until it has had its manifest (its boot's first request).
MANIFEST_HAD = """() => new Promise((done) => {
  const look = () => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/manifest.json"))
    ? done() : setTimeout(look, 20);
  look();
})"""
# In the worker: when it asked for the manifest (its boot's first request), on the page's clock.
MANIFEST_ASKED = """
(origin) => performance.getEntriesByType("resource").find((e) => e.name.endsWith("/manifest.json")).startTime
  + performance.timeOrigin - origin
"""


def test_the_worker_starts_python_before_the_pages_boot_request_reaches_it(page: Page, base_url: str) -> None:
    """The boot request is a message, which a busy page sends late; the worker's name carries what the boot needs
    first, so Python's files are asked for before the request comes (it brings the shared buffers, needed later)."""
    page.add_init_script(HOLD_BOOT_REQUEST)
    with page.expect_worker(lambda worker: worker.url.endswith("/worker.js"), timeout=BOOT_MS) as started:
        page.goto(base_url + LESSON_10, wait_until="commit")
    worker = started.value
    # With the boot request held back (for as long as it takes: a worker that waited for it would never get here),
    # the worker has asked for its manifest, its boot's first request, and had it.
    worker.evaluate(MANIFEST_HAD)
    page.evaluate("window.__release()")
    page.wait_for_selector("html[data-python=ready]", state="attached", timeout=BOOT_MS)
    sent = page.evaluate("window.__sentAt")
    asked = worker.evaluate(MANIFEST_ASKED, page.evaluate("performance.timeOrigin"))
    assert asked < sent, (asked, sent)


# In the worker: when Python's session was open (the boot's last step before it answers), on the page's clock.
SESSION_OPEN = """
(origin) => performance.getEntriesByName("boot: session")[0].startTime + performance.timeOrigin - origin
"""
# When the page asked for the theme's script (null: not yet), on its clock.
THEME_ASKED = """performance.getEntriesByType("resource")
  .find((e) => /\\/javascripts\\/bundle\\.[0-9a-f]+\\.min\\.js$/.test(e.name))?.startTime ?? null"""


def assert_one_wasm_download(page: Page, watch: Watch) -> None:
    """Pyodide's wasm was asked for once; if not, say how Python started and which workers and pages were asked for."""
    started = page.evaluate("document.documentElement.dataset.pythonStart")
    assert sum(url.endswith("pyodide.asm.wasm") for url in watch.requests) == 1, (started, [
        url for url in watch.requests if url.endswith(("worker.js", ".wasm", "/"))])


def test_a_lesson_pages_theme_script_waits_for_python_then_follows_the_next_page(page: Page, base_url: str,
                                                                                 watch: Watch) -> None:
    """Nobody touches the page: the theme's script is asked for once Python is ready, not beside its start; then
    the theme works (its instant navigation takes the learner to the next lesson on the same Python)."""
    page.goto(base_url + LESSON_10)
    page.wait_for_function("() => window.document$ !== undefined", timeout=BOOT_MS)
    (worker,) = [w for w in page.workers if w.url.endswith("/worker.js")]
    ready = worker.evaluate(SESSION_OPEN, page.evaluate("performance.timeOrigin"))
    asked = page.evaluate(THEME_ASKED)
    assert asked is not None and asked > ready, (asked, ready)
    wait_for_lab(page)
    expect(page.locator(".ember-lab")).to_have_count(1)  # mounted once, not again when the theme came
    page.locator("a.md-footer__link--next").click()
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L11")
    wait_for_lab(page)
    expect(page.locator(".ember-lab")).to_have_count(1)
    assert_one_wasm_download(page, watch)


@pytest.mark.fresh_profile  # a start long enough to click while it lasts
def test_a_link_clicked_while_python_starts_waits_for_the_theme_and_keeps_python(page: Page, base_url: str,
                                                                              watch: Watch) -> None:
    """Without the theme's script a click on a link would load the next page afresh, and start Python again;
    the click brings the theme, which then follows the link without a reload."""
    page.add_init_script(RECORD_READY)
    page.goto(base_url + LESSON_10, wait_until="domcontentloaded")
    assert page.evaluate(f"[{THEME_ASKED}, window.emberRuntime.state]") == [None, "starting"]
    page.locator("a.md-footer__link--next").click()
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L11", timeout=BOOT_MS)
    asked = page.evaluate(THEME_ASKED)
    assert asked is not None, "lesson 11 was loaded afresh: the theme has not run on it"
    wait_for_lab(page)
    assert asked < page.evaluate("window.__readyAt"), "the theme came only with Python"
    assert_one_wasm_download(page, watch)
    expect(page.locator(".ember-lab")).to_have_count(1)


def printed_by_a_worker(page: Page, base_url: str, code: str, snapshot: str = "off"):
    """Boot a worker of the page's own kind at the site's root (from the build's snapshot, or as ``snapshot`` says),
    run ``code`` as a cell in it, and answer the JSON its last printed line holds."""
    page.goto(base_url)
    page.evaluate(START_WORKER, {"interrupts": True, "snapshot": snapshot})
    answer = page.evaluate("(p) => ask('run', p)", {"page": "/", "lab": "L01", "pieces": {}, "code": code})
    assert answer["error"] is None, answer["error"]
    printed = "".join(item["text"] for item in answer["outputs"] if item["kind"] == "stdout")
    return json.loads(printed.strip().splitlines()[-1])


def test_the_course_archive_holds_unchecked_bytecode_for_every_module() -> None:
    manifest = json.loads((SITE / "assets/gen/manifest.json").read_text())
    with zipfile.ZipFile(SITE / "assets/gen" / manifest["bundle"]) as archive:
        names = archive.namelist()
        sources = [PurePosixPath(name) for name in names if name.endswith(".py")]
        for source in sources:
            compiled = [name for name in names
                        if name.startswith(f"{source.parent}/__pycache__/{source.stem}.cpython-")]
            assert len(compiled) == 1, (source, compiled)
            flags = struct.unpack("<I", archive.read(compiled[0])[4:8])[0]
            assert flags == 0b01, (compiled[0], flags)  # hash-based, never checked against the source
    assert len(sources) > 50


def test_a_normal_start_imports_the_shipped_bytecode_and_leaves_graphviz_for_later(page: Page, base_url: str) -> None:
    """The start a failed snapshot falls back to (the build's snapshot has graphviz imported already)."""
    found = printed_by_a_worker(page, base_url, INSPECT, snapshot="fresh")
    assert found == {"headers": [[True, 1]] * 3, "checking": "default", "imported": [], "graphviz": "0.21"}, found


# Run in the page's worker: where a module of each kind came from, and the last frame of a traceback
# through a compiled one.
STDLIB_ORIGINS = """
import calendar, json, sys, traceback
try:
    json.loads("{bad")
except ValueError:
    last = traceback.extract_tb(sys.exc_info()[2])[-1]
print(json.dumps({"json": json.__spec__.origin, "calendar": calendar.__spec__.origin,
                  "frame": [last.filename, last.lineno > 0]}))
"""


def test_the_worker_starts_on_a_standard_library_whose_start_modules_are_compiled(page: Page, base_url: str) -> None:
    """py/stdlib.zip is Pyodide's own archive with every module a start imports as unchecked-hash bytecode made by
    the same Pyodide (web/precompile-stdlib.mjs); every other file is Pyodide's, byte for byte. The site ships no
    other standard library."""
    with zipfile.ZipFile(SITE / "assets/gen/py/stdlib.zip") as ours, \
            zipfile.ZipFile(SITE.parent / "node_modules/pyodide/python_stdlib.zip") as pyodides:
        compiled = [name for name in ours.namelist() if name.endswith(".pyc")]
        assert len(compiled) > 100
        assert {name.removesuffix("c") for name in ours.namelist()} == set(pyodides.namelist())
        assert not set(compiled) & set(pyodides.namelist()), "a module is there both as source and as bytecode"
        for name in compiled:
            assert struct.unpack("<I", ours.read(name)[4:8])[0] == 0b01, name  # hash-based, never checked
        kept = [name for name in pyodides.namelist() if name + "c" not in compiled]
        assert all(ours.read(name) == pyodides.read(name) for name in kept)
    assert not list(SITE.rglob("python_stdlib.zip"))
    found = printed_by_a_worker(page, base_url, STDLIB_ORIGINS)
    assert found["json"].endswith(".zip/json/__init__.pyc"), found  # imported by Pyodide's own start
    assert found["calendar"].endswith(".zip/calendar.py"), found  # by nothing on the way to ready
    assert found["frame"] == [found["json"].replace("__init__.pyc", "decoder.py"), True], found


# Run in the page's worker: the sha256 of every file in the folder the course's archive was written into.
DIGESTS = """
import hashlib, json, pathlib
folder = pathlib.Path({folder!r})
print(json.dumps({{path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
                  for path in folder.rglob("*") if path.is_file()}}))
"""


def test_the_worker_writes_every_file_of_the_stored_course_archive_byte_for_byte(page: Page, base_url: str) -> None:
    """The worker writes the archive's files itself (web/src/runtime/unzip.js), which reads stored entries only;
    the host's compression of the whole archive (its .br copy here) makes up for storing."""
    manifest = json.loads((SITE / "assets/gen/manifest.json").read_text())
    bundle = SITE / "assets/gen" / manifest["bundle"]
    with zipfile.ZipFile(bundle) as archive:
        files = [info for info in archive.infolist() if not info.is_dir()]
        assert {info.compress_type for info in files} == {zipfile.ZIP_STORED}
        expected = {info.filename: hashlib.sha256(archive.read(info)).hexdigest() for info in files}
    assert bundle.with_name(bundle.name + ".br").stat().st_size < bundle.stat().st_size / 2
    written = printed_by_a_worker(page, base_url, DIGESTS.format(folder=manifest["folder"]))
    assert len(expected) > 100
    assert {name: written.get(name) for name in expected} == expected


@pytest.mark.parametrize(("where", "reach"), [("", "click"), (LESSON_10, "key")], ids=["home-click", "lesson-key"])
def test_the_search_index_waits_for_the_learner_to_reach_for_search_then_finds_a_lesson(
        page: Page, base_url: str, where: str, reach: str) -> None:
    """Nobody asks for the index while the learner reads (Python is up, the page idle); a click on the search
    field or a key brings it."""
    page.goto(base_url + where)
    if where:
        wait_for_lab(page)
    page.wait_for_load_state("networkidle")
    settled(page)  # the page's own work done: its pictures, its frames, the main thread idle
    assert page.evaluate(SEARCH_INDEX) is None
    if reach == "key":
        page.keyboard.press("/")
    else:
        page.locator("input[data-md-component=search-query]").click()
    page.wait_for_function(SEARCH_INDEX, timeout=10_000)
    page.locator("input[data-md-component=search-query]").press_sequentially("order of blame", delay=50)
    expect(page.locator(".md-search-result__item a[href*='10-order-of-blame']").first).to_be_visible(timeout=10_000)


@pytest.mark.fresh_profile  # a start long enough to reach for search while it lasts
def test_a_learner_who_reaches_for_search_while_python_starts_gets_the_index_at_once(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_READY)
    page.goto(base_url + LESSON_10, wait_until="domcontentloaded")
    assert page.evaluate("document.documentElement.dataset.python") != "ready"
    page.keyboard.press("/")
    asked = page.wait_for_function(SEARCH_INDEX, timeout=BOOT_MS).json_value()["startTime"]
    page.wait_for_selector("html[data-python=ready]", state="attached", timeout=BOOT_MS)
    assert asked < page.evaluate("window.__readyAt")
    page.locator("input[data-md-component=search-query]").press_sequentially("order of blame", delay=50)
    expect(page.locator(".md-search-result__item a[href*='10-order-of-blame']").first).to_be_visible(timeout=10_000)


def test_a_page_whose_course_data_cannot_be_fetched_says_so_and_throws_nothing(page: Page, base_url: str) -> None:
    asked: list[str] = []
    page.route("**/assets/gen/course.json", refusing(asked))
    page.goto(base_url + LESSON_10)
    problem = page.get_by_role("alert").filter(has_text="could not load the course's data")
    expect(problem).to_be_visible(timeout=BOOT_MS)
    expect(problem).to_contain_text("Reload the page")
    assert len(asked) == 2  # tried once more before saying so
    expect(page.locator(".ember-lab[data-ready=true]")).to_have_count(0)
    # the page's own errors are none: the fixture's watch fails the test on an uncaught one


def test_a_boot_download_the_network_drops_once_is_asked_for_again(page: Page, base_url: str) -> None:
    asked: dict[str, int] = {}

    def drop_the_first(route) -> None:
        name = PurePosixPath(route.request.url).name
        asked[name] = asked.get(name, 0) + 1
        if asked[name] == 1:
            route.abort()
        else:
            route.continue_()

    # One file Pyodide asks for itself, one the worker reads for the course.
    page.route("**/assets/gen/py/stdlib.zip", drop_the_first)
    page.route("**/assets/gen/py/course-*.zip", drop_the_first)
    page.goto(base_url + LESSON_10)
    wait_for_lab(page)
    assert sorted(asked.values()) == [2, 2], asked
    expect(page.locator(".ember-python-problem")).to_have_count(0)


def test_a_boot_download_that_keeps_failing_is_named_and_try_again_starts_python(page: Page, base_url: str) -> None:
    refused: list[str] = []
    page.route(WASM, refusing(refused))  # Pyodide alone would wait for it for ever
    page.add_init_script(RECORD_WORKERS)
    page.goto(base_url + LESSON_10)
    problem = start_problem(page)
    expect(problem).to_contain_text("could not download pyodide/pyodide.asm.wasm", timeout=BOOT_MS)
    expect(page.locator("#ember-python")).to_have_text("Python: failed to start", timeout=BOOT_MS)
    # The lab asked for the learner's files, which started Python once more: it failed the same way.
    lab = page.locator(".ember-lab")
    expect(lab).to_contain_text("Could not build your module: Python could not start", timeout=BOOT_MS)
    expect(page.locator("#ember-python")).to_have_text("Python: failed to start", timeout=BOOT_MS)
    # Each start of Python asked twice (once more, then gave up). The page's first start and the lab's request
    # make two starts at least; on a busy machine the first may fail before the page waits on it, and the page's
    # wait then makes a start of its own: three.
    starts = [name for name, _ in page.evaluate("window.__workers")].count("worker.js")
    assert starts >= 2 and len(refused) == 2 * starts, (starts, refused)
    page.unroute(WASM)
    problem.get_by_role("button", name="Try again").click()
    wait_for_lab(page)
    expect(page.locator(".ember-python-problem")).to_have_count(0)
    # the downloads that failed threw nothing uncaught: the fixture's watch fails the test on one


def test_a_damaged_wasm_file_ends_the_start_at_once_and_is_named(page: Page, base_url: str) -> None:
    wasm = WASM_FILE.read_bytes()
    half = wasm[: len(wasm) // 2]  # as a download that broke off would leave it
    page.route(WASM, lambda route: route.fulfill(status=200, body=half, content_type="application/wasm"))
    page.goto(base_url + LESSON_10)
    # Pyodide alone only warns and waits; the page's limit for a start would have ended it after two minutes.
    problem = start_problem(page)
    expect(problem).to_contain_text("could not compile pyodide/pyodide.asm.wasm (", timeout=BOOT_MS)
    expect(page.locator("#ember-python")).to_have_text("Python: failed to start", timeout=BOOT_MS)


def test_a_host_that_sends_the_wasm_file_with_another_type_is_told_which(page: Page, base_url: str) -> None:
    wasm = WASM_FILE.read_bytes()
    page.route(WASM, lambda route: route.fulfill(status=200, body=wasm, content_type="application/octet-stream"))
    page.goto(base_url + LESSON_10)
    problem = start_problem(page)
    expect(problem).to_contain_text("could not compile pyodide/pyodide.asm.wasm (", timeout=BOOT_MS)
    # what a teacher hosting the course must fix (the page's next start, the lab's, may have taken the alert away
    # for as long as it lasts: it fails the same way and says so again)
    expect(problem).to_contain_text("Expected 'application/wasm'", timeout=BOOT_MS)


@pytest.mark.parametrize("missing", ["pyodide/pyodide.asm.mjs", "py/stdlib.zip"])
def test_a_file_the_host_does_not_have_ends_the_start_and_is_named(page: Page, base_url: str, watch: Watch,
                                                                     missing: str) -> None:
    # Pyodide alone waited for ever on the first and stopped with "exit(1)" and an uncaught error on the second.
    page.route(f"**/assets/gen/{missing}", lambda route: route.fulfill(status=404, body="Not Found"))
    page.goto(base_url + LESSON_10)
    problem = start_problem(page)
    expect(problem).to_contain_text(f"could not download {missing} (HTTP 404)", timeout=BOOT_MS)
    lab = page.locator(".ember-lab")
    expect(lab).to_contain_text(f"Could not build your module: Python could not start: could not download {missing}")
    assert {url.split("/assets/gen/")[-1] for url in watch.missing} == {missing}
    watch.missing.clear()  # the 404s this test made; any uncaught error still fails it
