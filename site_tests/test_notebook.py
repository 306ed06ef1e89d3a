"""Open as notebook: lesson 10's lab handed to the JupyterLite notebook and back, with and without isolation;
lesson 18 there with its data."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Response, expect

from labs.course.datasets import names_text
from labs.course.model import load_course
from labs.course.questions import option_order
from labs.frontends.notebook import DRIVE as NOTEBOOK_DRIVE
from labs.frontends.notebook_files import SCRATCH_LINE

from .harness import LESSON_10, SITE, Server, launch
from .learner import (
    BOOT_MS,
    BREADTH_FIRST,
    RUN_MS,
    gap_body,
    go_to_gap,
    lab_editor,
    load_finished_pieces,
    open_page,
    stored_piece,
    type_into_gap,
    wait_for_lab,
)

COURSE = load_course()
KERNEL_MS = 150_000  # the notebook's kernel starts its own Pyodide, with IPython, on a busy two-core machine
QUEUED_MS = 10_000  # Shift+Enter shows a cell as queued at once, even while the kernel is busy
RUN_TRIES = 3
EDIT_MARK = "# walked again in the notebook"
DATA = names_text()


def saved_soon(page: Page, gap_id: str, text: str) -> None:
    """Wait until the browser has saved a piece for ``gap_id`` that holds ``text`` (the editor saves as one types)."""
    page.wait_for_function("""([gap, text]) => {
        const pieces = JSON.parse(localStorage.getItem("ember:v1") || "{}").pieces || {};
        return Boolean(pieces[gap] && pieces[gap].code.includes(text));
    }""", arg=[gap_id, text], timeout=10_000)


def code_cell(notebook: Page, text: str):
    """The notebook's code cell whose source holds ``text``."""
    source = notebook.locator(".jp-InputArea", has_text=text)
    return notebook.locator(".jp-Notebook .jp-CodeCell").filter(has=source).first


def run_notebook_cell(notebook: Page, cell, code: str | None = None):
    """Select a code cell (typing ``code`` over its source first, if given), run it, answer its output area."""
    editor = cell.locator(".jp-InputArea-editor .cm-content")
    prompt = cell.locator(".jp-InputPrompt")
    editor.click()
    if code is not None:
        notebook.keyboard.press("ControlOrMeta+a")
        notebook.keyboard.insert_text(code)
    for _ in range(RUN_TRIES):  # as a learner does when a key press did not take: select the cell again
        notebook.keyboard.press("Shift+Enter")
        try:
            expect(prompt).not_to_have_text("[ ]:", timeout=QUEUED_MS)  # queued ([*]) or run ([n])
            break
        except AssertionError:
            editor.click()
    expect(prompt).not_to_have_text("[ ]:", timeout=QUEUED_MS)
    expect(prompt).not_to_contain_text("*", timeout=KERNEL_MS)
    return cell.locator(".jp-OutputArea")


def kernel_idle(notebook: Page) -> None:
    """Wait until the notebook's kernel has started and is idle, as the course's status line and the toolbar's
    indicator show the learner (the indicator alone says "idle" before there is a kernel too)."""
    expect(notebook.locator("#ember-notebook-status")).to_have_attribute("data-python", "ready", timeout=KERNEL_MS)
    expect(notebook.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]')).to_have_count(1, timeout=KERNEL_MS)


# The toolbar's execution indicator as a busy page can show it: React may draw the kernel's "starting" and "idle" in
# one go, so the indicator never leaves "idle" while the kernel starts (seen under load). Here it never does.
INDICATOR_ALWAYS_IDLE = """(() => {
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    const indicator = name === "data-status" && this.classList.contains("jp-Notebook-ExecutionIndicator");
    return setAttribute.call(this, name, indicator ? "idle" : value);
  };
})();"""


def edit_in_the_notebooks_editor(notebook: Page, path: str, old: str, new: str) -> None:
    """Open a drive file in the notebook app's editor, change ``old`` to ``new`` in it, and save (Ctrl+S)."""
    notebook.goto(notebook.url.split("/notebook/")[0] + f"/notebook/edit/index.html?path={path}")
    editor = notebook.locator(".jp-FileEditor .cm-content")
    expect(editor).to_be_visible(timeout=BOOT_MS)
    notebook.wait_for_function("""(old) => {  // CodeMirror draws only the lines in view: ask its document
        const content = document.querySelector(".jp-FileEditor .cm-content");
        return Boolean(content && content.cmView && content.cmView.view.state.doc.toString().includes(old));
    }""", arg=old, timeout=BOOT_MS)
    notebook.evaluate("""([old, replacement]) => {
        const view = document.querySelector(".jp-FileEditor .cm-content").cmView.view;  // CodeMirror's own view
        const at = view.state.doc.toString().indexOf(old);
        if (at < 0) throw new Error("the editor does not show " + old);
        view.dispatch({ changes: { from: at, to: at + old.length, insert: replacement } });
    }""", [old, new])
    editor.click()
    notebook.keyboard.press("ControlOrMeta+s")
    expect(notebook.locator(".jp-mod-dirty")).to_have_count(0, timeout=RUN_MS)
    notebook.wait_for_function("""([name, path, text]) => new Promise((resolve) => {
        const open = indexedDB.open(name.database);
        open.onsuccess = () => {
            const request = open.result.transaction(name.store).objectStore(name.store).get(path);
            request.onsuccess = () => {
                open.result.close();
                resolve(Boolean(request.result && request.result.content.includes(text)));
            };
        };
    })""", arg=[NOTEBOOK_DRIVE, path, new], timeout=RUN_MS)


def open_lesson_10_with_breadth_first_walk(page: Page, url: str) -> None:
    open_page(page, url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", BREADTH_FIRST)
    expect(lab_editor(page)).to_contain_text("queue.pop(0)")
    saved_soon(page, "L10.backward", "queue.pop(0)")


def open_notebook(page: Page, context: BrowserContext) -> Page:
    with context.expect_page() as opened:
        page.locator(".ember-lab").get_by_role("button", name="Open as notebook").click()
    notebook = opened.value
    expect(notebook.locator(".jp-Notebook .jp-CodeCell").first).to_be_visible(timeout=BOOT_MS)
    return notebook


@pytest.mark.long
@pytest.mark.fresh_profile  # JupyterLite's drive needs its service worker, which the shared profile blocks
@pytest.mark.parametrize("headers", ["isolated", "plain"])
def test_lesson_10_opens_as_a_notebook_on_the_learners_own_backward_and_comes_back(
    page: Page, context: BrowserContext, request: pytest.FixtureRequest, headers: str,
) -> None:
    url = request.getfixturevalue("base_url" if headers == "isolated" else "plain_url")
    open_lesson_10_with_breadth_first_walk(page, url)
    notebook = open_notebook(page, context)
    assert "path=L10.ipynb" in notebook.url
    assert notebook.locator(".jp-InputPrompt", has_text="[1]").count() == 0  # nothing ran on open

    kernel_idle(notebook)
    start = run_notebook_cell(notebook, code_cell(notebook, "await start('L10')"))
    expect(start).to_contain_text("Your engine: ember/nudge.py")
    expect(start).to_contain_text("the notebook's drive")
    # The notebook app, its editor too, is served alike either way (scripts/serve.py): once is enough. Without
    # isolation the learner's change is written into the drive as the editor saves it.
    edited = ("ember/scalar.py", "node = queue.pop(0)", f"node = queue.pop(0)  {EDIT_MARK}")
    if headers == "isolated":
        works_in_the_notebook(page, notebook)
        edit_in_the_notebooks_editor(notebook, *edited)
    else:
        edit_in_drive(notebook, *edited)
    assert EDIT_MARK in (drive_file(notebook, "ember/scalar.py") or "")

    page.reload()  # the learner comes back to the lesson later
    back = page.locator(".ember-from-notebook")
    expect(back).to_contain_text("Taken from the notebook into your saved work: L10.backward", timeout=BOOT_MS)
    wait_for_lab(page)
    expect(go_to_gap(page, "L10.backward")).to_contain_text(EDIT_MARK)
    assert EDIT_MARK in (stored_piece(page, "L10.backward") or "")
    assert "queue.pop(0)" in gap_body(page, "L10.backward")  # the rest of the learner's walk is as it was


def works_in_the_notebook(page: Page, notebook: Page) -> None:
    """In the notebook, on the learner's breadth-first walk: a question, the checks, and a scratch cell."""
    asks_in_the_pages_order(page, notebook)

    checks = run_notebook_cell(notebook, code_cell(notebook, "check('L10')"))
    expect(checks).to_contain_text("L10 · The order of blame")
    expect(checks).to_contain_text("[pass] backward() sets the output's own gradient to 1.0")
    expect(checks).to_contain_text("[FAIL] the trap graph gives w.grad = 28")
    expect(checks).to_contain_text("w.grad should be 28.0")
    claims = len(COURSE.lesson("L10").claims)
    expect(checks).to_contain_text(f"of {claims} claims hold.")

    scratch = run_notebook_cell(notebook, code_cell(notebook, SCRATCH_LINE), (
        f'{SCRATCH_LINE}\nfrom ember.scalar import Value\nx = Value(3.0, label="x")\ny = x * x + x\n'
        'y.label = "y"\ny.backward()\nprint("dy/dx", x.grad)\nshow(y)\n'
        'import json\nprint("json from", json.__spec__.origin)'))
    expect(scratch).to_contain_text("dy/dx 7.0")
    expect(scratch).to_contain_text("json/__init__.pyc")  # the kernel starts on the lessons' compiled standard library
    expect(scratch.locator("svg").first).to_be_visible()
    assert scratch.locator("svg text", has_text="y").count() >= 1  # the picture names the learner's own nodes


def asks_in_the_pages_order(page: Page, notebook: Page) -> None:
    """A question's options in the notebook, lettered in the order the lesson page shows them; a wrong answer."""
    key = "L10.bfs"
    inputs = page.locator(f'.ember-question[data-question="{key}"] input')
    shown = inputs.evaluate_all("(all) => all.map((input) => input.value)")
    seed = json.loads(page.evaluate("localStorage.getItem('ember:v1')"))["seed"]
    question = next(q for q in COURSE.lesson("L10").questions if q.id == "bfs")
    assert shown == option_order(seed, key, [option.id for option in question.options])
    texts = {option.id: option.text for option in question.options}
    options = run_notebook_cell(notebook, code_cell(notebook, f"ask('{key}')")).locator("li")
    expect(options).to_have_text([f"{letter}. {texts[option_id]}" for letter, option_id in zip("abc", shown)])
    wrong = next(at for at, option_id in enumerate(shown) if option_id != question.answer)
    verdict = run_notebook_cell(notebook, code_cell(notebook, f"answer('{key}'"), f"answer('{key}', '{'abc'[wrong]}')")
    feedback = next(option.feedback for option in question.options if option.id == shown[wrong])
    expect(verdict).to_contain_text(f"Not quite. {feedback}")
    expect(verdict).not_to_contain_text(question.explain)


def drive_file(page: Page, path: str) -> str | None:
    """A file of the notebook's drive as IndexedDB holds it (what the notebook sees)."""
    return page.evaluate("""([name, path]) => new Promise((resolve, reject) => {
        const open = indexedDB.open(name.database);
        open.onsuccess = () => {
            const request = open.result.transaction(name.store).objectStore(name.store).get(path);
            request.onsuccess = () => { open.result.close(); resolve(request.result ? request.result.content : null); };
            request.onerror = () => reject(request.error);
        };
        open.onerror = () => reject(open.error);
    })""", [NOTEBOOK_DRIVE, path])


def edit_in_drive(page: Page, path: str, old: str, new: str) -> None:
    """Change a drive file as the notebook's editor saves it: the stored contents model, replaced."""
    page.evaluate("""([name, path, old, replacement]) => new Promise((resolve, reject) => {
        const open = indexedDB.open(name.database);
        open.onsuccess = () => {
            const store = open.result.transaction(name.store, "readwrite").objectStore(name.store);
            const request = store.get(path);
            request.onsuccess = () => {
                const model = request.result;
                if (!model.content.includes(old)) {
                    reject(new Error("the drive's file does not hold " + old));
                    return;
                }
                model.content = model.content.replace(old, replacement);
                store.put(model, path).onsuccess = () => { open.result.close(); resolve(); };
            };
        };
        open.onerror = () => reject(open.error);
    })""", [NOTEBOOK_DRIVE, path, old, new])


def hand_over_without_opening(page: Page, context: BrowserContext) -> None:
    """Press Open as notebook and close the notebook's tab at once (the drive now holds the files)."""
    with context.expect_page() as opened:
        page.locator(".ember-lab").get_by_role("button", name="Open as notebook").click()
    opened.value.close()
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("Your files are in the notebook's ember/ folder")


# Each window.open call: its address, and whether it came while the click that asked for it was still being handled
# (a pop-up blocker, WebKit's, lets through only a tab opened then).
RECORD_OPENS = """() => {
  window.__opens = [];
  let clicking = false;
  document.addEventListener("click", () => { clicking = true; }, { capture: true });
  window.addEventListener("click", () => { clicking = false; });
  const open = window.open.bind(window);
  window.open = (url, ...rest) => {
    window.__opens.push([String(url), clicking]);
    return open(url, ...rest);
  };
}"""


def test_open_as_notebook_opens_its_tab_within_the_click_and_the_lesson_stays(page: Page, context: BrowserContext,
                                                                              base_url: str) -> None:
    open_lesson_10_with_breadth_first_walk(page, base_url)
    lesson = page.url
    page.evaluate(RECORD_OPENS)
    with context.expect_page() as opened:
        page.locator(".ember-lab").get_by_role("button", name="Open as notebook").click()
    tab = opened.value
    tab.wait_for_url("**/notebook/notebooks/index.html?path=L10.ipynb", wait_until="commit", timeout=RUN_MS)
    tab.close()
    assert page.evaluate("window.__opens") == [["about:blank", True]]  # one tab, opened within the click
    assert page.url == lesson
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("Your files are in the notebook's ember/ folder")


def test_a_refused_notebook_tab_leaves_the_lesson_and_offers_a_link(page: Page, base_url: str) -> None:
    open_lesson_10_with_breadth_first_walk(page, base_url)
    lesson = page.url
    page.evaluate("() => { window.open = () => null; }")  # as a pop-up blocker answers
    page.locator(".ember-lab").get_by_role("button", name="Open as notebook").click()
    notice = page.locator(".ember-lab .ember-notice")
    expect(notice).to_contain_text("Your browser did not let this page open a new tab", timeout=RUN_MS)
    expect(notice.get_by_role("link", name="Open the notebook")).to_have_attribute(
        "href", re.compile(r"notebook/notebooks/index\.html\?path=L10\.ipynb$"))
    assert page.url == lesson  # the lesson stays
    assert drive_file(page, "ember/scalar.py") is not None  # the files were handed over all the same


def test_the_hand_over_writes_the_learners_files_into_the_drive(page: Page, context: BrowserContext,
                                                                base_url: str) -> None:
    open_lesson_10_with_breadth_first_walk(page, base_url)
    hand_over_without_opening(page, context)
    scalar = drive_file(page, "ember/scalar.py")
    assert scalar is not None and "queue.pop(0)" in scalar
    assert drive_file(page, "ember/nudge.py") is not None and drive_file(page, "ember/__init__.py") is not None
    record = json.loads(page.evaluate("localStorage.getItem('ember:notebook')"))
    assert record["files"]["scalar.py"] == scalar
    seed = json.loads(page.evaluate("localStorage.getItem('ember:v1')"))["seed"]
    learner = drive_file(page, "ember/.learner.json")
    assert learner is not None and json.loads(learner) == {"seed": seed}  # the notebook's order of options


def test_a_gap_changed_in_both_places_keeps_both_and_asks(page: Page, context: BrowserContext, base_url: str) -> None:
    open_lesson_10_with_breadth_first_walk(page, base_url)
    hand_over_without_opening(page, context)
    edit_in_drive(page, "ember/scalar.py", "queue = [self]", "queue = [self]  # notebook")
    type_into_gap(page, "L10.backward", BREADTH_FIRST.replace("seen = {self}", "seen = {self}  # lab"))
    saved_soon(page, "L10.backward", "# lab")

    page.reload()
    conflict = page.locator('.ember-from-notebook .ember-conflict[data-gap="L10.backward"]')
    expect(conflict).to_contain_text("changed both here and in the notebook", timeout=BOOT_MS)
    expect(conflict.locator("pre").first).to_contain_text("# lab")
    expect(conflict.locator("pre").nth(1)).to_contain_text("# notebook")
    assert "# lab" in (stored_piece(page, "L10.backward") or "")  # nothing changes before the learner chooses

    page.reload()  # the question stays until it is answered
    expect(conflict).to_be_visible(timeout=BOOT_MS)
    wait_for_lab(page)
    conflict.get_by_role("button", name="Use the notebook's").click()
    expect(page.locator(".ember-from-notebook")).to_have_count(0)
    expect(lab_editor(page)).to_contain_text("# notebook")
    assert "# notebook" in (stored_piece(page, "L10.backward") or "")
    record = json.loads(page.evaluate("localStorage.getItem('ember:notebook')"))
    assert record["conflicts"] == {}
    assert any("# lab" in entry["text"] and entry["from"] == "lab" for entry in record["setAside"])


def test_a_notebook_file_with_a_lost_marker_gives_nothing_back_and_says_why(page: Page, context: BrowserContext,
                                                                          base_url: str) -> None:
    open_lesson_10_with_breadth_first_walk(page, base_url)
    hand_over_without_opening(page, context)
    scalar = drive_file(page, "ember/scalar.py")
    assert scalar is not None
    marker = next(line for line in scalar.splitlines() if "L10.backward" in line)
    edit_in_drive(page, "ember/scalar.py", marker + "\n", "")
    page.reload()
    broken = page.locator('.ember-from-notebook .ember-broken[data-file="scalar.py"]')
    expect(broken).to_contain_text("Nothing was taken from the notebook's ember/scalar.py", timeout=BOOT_MS)
    wait_for_lab(page)
    assert "queue.pop(0)" in (stored_piece(page, "L10.backward") or "")

    # Opening the notebook again copies the damaged file aside in the drive before writing over it.
    hand_over_without_opening(page, context)
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("ember/scalar.py.1.bak")
    copy = drive_file(page, "ember/scalar.py.1.bak")
    assert copy is not None and marker not in copy
    assert marker in (drive_file(page, "ember/scalar.py") or "")


OTHER_HOST = "ember.test"  # resolved to 127.0.0.1 by the browser itself: plain HTTP, not a secure context


@pytest.mark.long
def test_on_plain_http_from_another_address_the_kernel_reads_the_learners_files_from_storage(playwright) -> None:
    server = Server(SITE, isolate=False)
    browser = launch(playwright, [f"--host-resolver-rules=MAP {OTHER_HOST} 127.0.0.1"])
    foreign, missing = [], []
    try:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        context.add_init_script("try { localStorage.setItem('ember:offline', 'off'); } catch {}")

        def route(route_, request) -> None:
            host = request.url.split("/")[2].split(":")[0] if "://" in request.url else ""
            if request.url.startswith(("http", "ws")) and host not in (OTHER_HOST, "127.0.0.1"):
                foreign.append(request.url)
                route_.abort()
            else:
                route_.continue_()

        def answered(response: Response) -> None:
            if response.status == 404:
                missing.append(response.url)

        context.route("**/*", route)
        context.on("response", answered)
        page = context.new_page()
        url = f"http://{OTHER_HOST}:{server.server.server_address[1]}/"
        open_lesson_10_with_breadth_first_walk(page, url)
        assert page.evaluate("isSecureContext") is False  # no service worker, no isolation: the drive cannot work
        notebook = open_notebook(page, context)
        kernel_idle(notebook)
        start = run_notebook_cell(notebook, code_cell(notebook, "await start('L10')"))
        expect(start).to_contain_text("from the browser's storage")
        asks_in_the_pages_order(page, notebook)  # the seed came with the copy of the learner's files
        checks = run_notebook_cell(notebook, code_cell(notebook, "check('L10')"))
        expect(checks).to_contain_text("[FAIL] the trap graph gives w.grad = 28")  # the learner's breadth-first walk
        claims = len(COURSE.lesson("L10").claims)
        expect(checks).to_contain_text(f"of {claims} claims hold.")
        context.close()
    finally:
        browser.close()
        server.stop()
    assert not foreign, f"requests off 127.0.0.1: {foreign}"
    assert not missing, f"404s: {missing}"


@pytest.mark.long
@pytest.mark.fresh_profile
def test_lesson_18_opens_as_a_notebook_with_the_data_and_its_checks_pass(page: Page, context: BrowserContext,
                                                                           base_url: str) -> None:
    """Part III in the notebook: the names data reaches the kernel, the checks pass, a heat map draws."""
    open_page(page, base_url + "lessons/18-a-bigram-that-writes-names/")
    wait_for_lab(page)
    load_finished_pieces(page)
    for gap_id in COURSE.lesson("L18").gaps:
        type_into_gap(page, gap_id, COURSE.gaps[gap_id].finished)
    saved_soon(page, "L18.sample", "rng.choices")
    notebook = open_notebook(page, context)
    assert "path=L18.ipynb" in notebook.url
    kernel_idle(notebook)
    start = run_notebook_cell(notebook, code_cell(notebook, "await start('L18')"))
    expect(start).to_contain_text("ember/bigram.py")

    checks = run_notebook_cell(notebook, code_cell(notebook, "check('L18')"))
    claims = len(COURSE.lesson("L18").claims)
    expect(checks).to_contain_text(f"{claims} of {claims} claims hold.")

    scratch = run_notebook_cell(notebook, code_cell(notebook, SCRATCH_LINE), (
        f"{SCRATCH_LINE}\nfrom labs.course.datasets import names_text\n"
        "from ember.bigram import count_pairs, count_loss\n"
        "text = names_text()\ncounts = count_pairs(text)\n"
        'print("pairs", sum(map(sum, counts)), "loss", round(count_loss(counts), 4))\n'
        "show_tensor([row[97:100] for row in counts[97:100]], heat=True)"))
    expect(scratch).to_contain_text(f"pairs {len(DATA) - 1} loss")
    expect(scratch.locator("svg").first).to_be_visible()


def kernel_marks(notebook: Page) -> list[str]:
    """The marks the kernel's worker made as it started (scripts/build_notebook.py hooks them in)."""
    workers = [w for w in notebook.workers if ".worker." in w.url.rsplit("/", 1)[-1]]
    assert workers, "no kernel worker"
    return workers[-1].evaluate("performance.getEntriesByType('mark').map((mark) => mark.name)")


def started_straight(page: Page, base_url: str) -> tuple[Locator, list[str]]:
    """Open lesson 10's notebook straight (no lesson page before it), run its start cell once the kernel is idle;
    answer the cell's output and the kernel worker's phase marks."""
    page.goto(base_url + "notebook/notebooks/index.html?path=L10.ipynb")
    kernel_idle(page)
    start = run_notebook_cell(page, code_cell(page, "await start('L10')"))
    return start, kernel_marks(page)


@pytest.mark.long
@pytest.mark.fresh_profile  # JupyterLite's drive needs its service worker, which the shared profile blocks
def test_shift_enter_as_soon_as_the_cells_show_runs_the_start_cell_on_the_notebooks_one_kernel(
        context: BrowserContext, base_url: str) -> None:
    """The cells show a moment before the notebook starts its kernel. Shift+Enter in that moment, once, runs the
    start cell on the kernel the notebook starts (its worker made early by the page), with no dialog asking which
    kernel to start; on a first visit and again on a second. (Before scripts/build_notebook.py mended the two races,
    JupyterLab asked "Select Kernel" or dropped the press, in two of four such visits.)"""
    for visit in ("first", "second"):
        notebook = context.new_page()
        notebook.goto(base_url + "notebook/notebooks/index.html?path=L10.ipynb")
        start = code_cell(notebook, "await start('L10')")
        editor = start.locator(".jp-InputArea-editor .cm-content")
        expect(editor).to_be_visible(timeout=BOOT_MS)
        editor.click(force=True)  # at once: no waiting for the page to settle, as an eager learner clicks
        notebook.keyboard.press("Shift+Enter")
        expect(start.locator(".jp-OutputArea")).to_contain_text("L10 · The order of blame", timeout=KERNEL_MS)
        expect(notebook.locator(".jp-Dialog"), f"{visit} visit").to_have_count(0)
        kernels = [w for w in notebook.workers if ".worker." in w.url.rsplit("/", 1)[-1]]
        assert len(kernels) == 1, f"{visit} visit: {len(kernels)} kernel workers"
        notebook.close()


PRELOADS = """() => {
  const preloaded = [...document.querySelectorAll('link[rel=preload]:not([id]), link[rel=modulepreload]')]
    .map((link) => link.href);
  const asked = performance.getEntriesByType("resource").map((entry) => entry.name);
  return preloaded.map((url) => [url, asked.filter((name) => name === url).length]);
}"""


@pytest.mark.fresh_profile
def test_the_files_an_app_page_preloads_are_each_asked_for_once(context: BrowserContext, base_url: str) -> None:
    """Each file a notebook app page preloads (scripts/build_notebook.py) is the very request JupyterLite makes for
    it: asked for once. A preload the app's own request did not match would be fetched twice."""
    for page_path in ("notebooks/index.html?path=L10.ipynb", "tree/index.html"):
        page = context.new_page()
        page.goto(base_url + "notebook/" + page_path)
        expect(page.locator(".jp-DirListing, .jp-Notebook").first).to_be_visible(timeout=BOOT_MS)
        counts = page.evaluate(PRELOADS)
        assert len(counts) >= 9, counts  # config-utils.js, six configuration files, the schemas, the kernel's entry
        assert all(count == 1 for _, count in counts), counts
        page.close()


@pytest.mark.long
@pytest.mark.fresh_profile  # JupyterLite's drive needs its service worker, which the shared profile blocks
def test_the_kernel_starts_from_its_snapshot_then_imports_completes_and_reads_input(page: Page,
                                                                                     base_url: str) -> None:
    """The kernel starts from the build's memory snapshot of its Python; once the first cell has run, the wheels'
    files are in (a module nothing imported yet imports, the editor's completion answers), and input() reads what
    the learner types. The status says "ready" once the kernel has started, even where the toolbar never showed
    it starting, and the browser tab keeps the notebook's name."""
    page.add_init_script(INDICATOR_ALWAYS_IDLE)
    start, marks = started_straight(page, base_url)
    expect(start).to_contain_text("L10 · The order of blame")
    assert "kernel: snapshot restored" in marks, marks  # not the long start, whose marks lack it

    cell = code_cell(page, SCRATCH_LINE)
    editor = cell.locator(".jp-InputArea-editor .cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(
        f"{SCRATCH_LINE}\nimport sys\nprint('new:', 'pygments.lexers.rust' not in sys.modules)\n"
        "import pygments.lexers.rust\nprint('lexer:', pygments.lexers.rust.RustLexer.name)\n"
        "name = input('Your name? ')\nprint('hello', name)")
    page.keyboard.press("Shift+Enter")
    answer = cell.locator(".jp-Stdin-input")
    expect(answer).to_be_visible(timeout=KERNEL_MS)
    answer.fill("Ada")
    answer.press("Enter")
    output = cell.locator(".jp-OutputArea")
    expect(output).to_contain_text("hello Ada", timeout=RUN_MS)
    expect(output).to_contain_text("new: True")
    expect(output).to_contain_text("lexer: Rust")
    assert "kernel: wheels' files in" in kernel_marks(page)

    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(f"{SCRATCH_LINE}\nimport json\n")  # the scratch line keeps the cell found
    page.keyboard.type("json.dum")  # typed: the completer answers Tab after keys, not after pasted text
    expect(editor).to_contain_text("json.dum")
    completion = page.locator(".jp-Completer-item", has_text="dumps").first
    for _ in range(RUN_TRIES):  # the kernel's completion (jedi, once the wheels' files are in), as a learner asks
        editor.click()  # in the cell's editor (after an Escape, out of command mode)
        page.keyboard.press("ControlOrMeta+End")  # the cursor after "json.dum", wherever the click put it
        page.keyboard.press("Tab")
        try:
            expect(completion).to_be_visible(timeout=QUEUED_MS)
            break
        except AssertionError:
            page.keyboard.press("Escape")  # a completer open with other names, or none yet: ask again
    expect(completion).to_be_visible(timeout=RUN_MS)
    # The tab still names the notebook after all that (the app's saved state used to put the app's name back).
    expect(page).to_have_title("L10")


@pytest.mark.long
@pytest.mark.fresh_profile
def test_without_its_snapshot_the_kernel_starts_the_long_way(page: Page, context: BrowserContext,
                                                             base_url: str) -> None:
    """A snapshot that does not come (a host that fails to send it) costs time, not the notebook. (And a learner
    whose system prefers dark gets the app's dark theme, without a "Not Trusted" the course has no use for.)"""
    page.emulate_media(color_scheme="dark")
    context.route("**/notebook/kernel/*.snapshot", lambda route: route.fulfill(status=503, body="busy"))
    start, marks = started_straight(page, base_url)
    expect(start).to_contain_text("Your engine: ember/nudge.py")
    assert "kernel: initGlobals" in marks and "kernel: snapshot restored" not in marks, marks
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    expect(page.get_by_text("Not Trusted")).to_have_count(0)
