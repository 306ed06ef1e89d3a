"""The core journey in Firefox and WebKit (Safari's engine), driven over WebDriver: lesson 10 loads and Python is
ready, a cell runs, a gap is typed, the checks give their verdict, a question is answered, Stop ends an endless
loop (in place where the page shares memory with the worker, by a restart where it does not, and the page says
which), a reload keeps the work and starts Python from the stored memory snapshot, the work file goes out and
comes back, and after one visit the lesson works with the server gone.

Chromium walks the same steps in its own tests (test_lesson10.py, test_work_travels.py, test_offline.py). Each
engine gets a fresh profile and a server of its own (a fresh origin), stopped for the offline step; every page
carries a hook that records its errors (webdriver_browsers.py), and any error fails the test.
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

from labs.course.model import load_course

from .harness import LESSON_10, SITE, Server
from .learner import gap_indent
from .webdriver_browsers import (
    ENGINES,
    EngineMissing,
    Session,
    browser_session,
    page_errors,
    wait_for,
    wait_until,
    watch_page,
)

COURSE = load_course()
# The finished backward() without its docstring (typed key by key: an editor closes quotes as they are typed).
FINISHED = [line for line in COURSE.gaps["L10.backward"].finished.rstrip("\n").split("\n") if '"""' not in line]
SAVED_S = 240.0  # the snapshot and every file saved for offline use, on two busy cores
PYTHON_READY = "return document.documentElement.dataset.python === 'ready'"
LAB_READY = "return document.querySelector('.ember-lab')?.dataset.ready === 'true'"
STORED_PIECE = """const state = JSON.parse(localStorage.getItem('ember:v1') || '{}');
return ((state.pieces || {})['L10.backward'] || {}).code || null;"""


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Session]:
    try:
        with browser_session(request.param) as session:
            yield session
    except EngineMissing as missing:
        if os.environ.get("CI"):  # the test command installs every engine: missing there, it is a fault
            raise
        pytest.skip(str(missing))


@pytest.fixture
def own_server() -> Iterator[Server]:
    """The built site with the isolation headers on a port of its own (a fresh origin), stoppable."""
    server = Server(SITE, isolate=True)
    yield server
    server.stop()


class Learner:
    """A learner's steps in one engine's browser, every page watched for errors."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.driver = session.driver
        self.errors: list[str] = []

    def open(self, url: str) -> None:
        self.keep_errors()
        self.driver.get(url)
        watch_page(self.driver)
        wait_for(self.driver, "return document.querySelector('.ember-question fieldset') !== null",
                 what="the questions drawn")

    def reload(self) -> None:
        self.keep_errors()
        self.driver.refresh()
        watch_page(self.driver)

    def keep_errors(self) -> None:
        with contextlib.suppress(WebDriverException):  # no page yet: nothing recorded there
            self.errors += page_errors(self.driver)

    def check(self) -> None:
        self.keep_errors()
        assert not self.errors, f"page errors in {self.session.engine}: {self.errors}"

    def find(self, css: str, within: WebElement | None = None) -> WebElement:
        return (within or self.driver).find_element(By.CSS_SELECTOR, css)

    def button(self, within: WebElement, name: str) -> WebElement:
        return within.find_element(By.XPATH, f".//button[normalize-space()='{name}']")

    def click(self, element: WebElement) -> None:
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def cell(self, index: int) -> WebElement:
        return self.driver.find_elements(By.CSS_SELECTOR, ".ember-cell")[index]

    def text(self, element: WebElement) -> str:
        return self.driver.execute_script("return arguments[0].textContent", element)

    def wait_text(self, element: WebElement, words: str, timeout: float = 90.0) -> str:
        try:
            return wait_until(lambda: words in self.text(element) and self.text(element), timeout, f"{words!r} shown")
        except AssertionError as error:
            raise AssertionError(f"{error}; the page shows {self.text(element)!r}") from None

    def type_lines(self, lines: list[str]) -> None:
        """Type lines into the focused editor key by key, each in place of what the editor indented for it."""
        actions = ActionChains(self.driver)
        for number, line in enumerate(lines):
            if number:
                actions.send_keys(Keys.ENTER)
                actions.key_down(Keys.SHIFT).send_keys(Keys.HOME).key_up(Keys.SHIFT)  # the editor's own indent
            actions.send_keys(line)
        actions.perform()

    def replace_cell_code(self, index: int, lines: list[str]) -> None:
        editor = self.find(".cm-content", self.cell(index))
        self.click(editor)
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        self.type_lines(lines)

    def run_cell(self, index: int) -> WebElement:
        box = self.cell(index)
        self.driver.execute_script("delete arguments[0].dataset.state", box)  # the cell says how its run ended
        self.click(self.find(".ember-run", box))
        wait_until(lambda: self.driver.execute_script("return arguments[0].dataset.state", box), 90, "the run's end")
        return self.find(".ember-output", box)

    def stored_piece(self) -> str | None:
        return self.driver.execute_script(STORED_PIECE)


@pytest.mark.long
def test_the_core_journey(engine: Session, own_server: Server) -> None:
    learner = Learner(engine)
    driver = engine.driver
    lesson = own_server.url + LESSON_10

    # A question is answered before Python is needed.
    learner.open(lesson)
    question = learner.find('.ember-question[data-question="L10.bfs"]')
    learner.click(learner.find('input[value="four"]', question))
    learner.wait_text(learner.find(".ember-feedback", question), "Right.")

    # Python gets ready; a cell runs and shows its output.
    wait_for(driver, LAB_READY, what="the lab ready")
    learner.replace_cell_code(2, ["print(6 * 7, 'from', 'Python')"])
    assert "42 from Python" in learner.text(learner.run_cell(2))

    # Earlier lessons' finished pieces, then the gap typed key by key in the lab's editor, and the checks.
    lab = learner.find(".ember-lab")
    learner.click(learner.button(lab, "Load the finished pieces of earlier lessons"))
    learner.wait_text(learner.find(".ember-notice", lab), "Loaded")
    gap = learner.find('.ember-gap[data-gap="L10.backward"]')
    learner.click(learner.button(gap, "Go to the gap"))
    wait_for(driver, "return document.querySelector('.ember-lab .cm-editor.cm-focused') !== null",
             what="the lab's editor focused at the gap")
    select_gap_body(learner)
    indent = gap_indent("L10.backward")
    learner.type_lines([indent + line for line in FINISHED])
    wait_until(lambda: "stack.pop()" in (learner.stored_piece() or ""), 30, "the typed piece saved")
    claims = run_checks(learner)
    assert len(claims) == len(COURSE.lesson("L10").claims), claims
    assert all(state == "pass" for state in claims.values()), claims

    # Stop on an endless loop: in place where the page shares memory with the worker (what an earlier run made is
    # still there), by a restart elsewhere, and the cell says which.
    learner.replace_cell_code(2, ["kept = 41"])
    learner.run_cell(2)
    learner.replace_cell_code(2, ["while True:", "    pass"])
    box = learner.cell(2)
    learner.click(learner.find(".ember-run", box))
    learner.wait_text(box, "running")
    learner.click(learner.find(".ember-stop", box))
    output = learner.find(".ember-output", box)
    said = learner.wait_text(output, "Stopped", 120)
    wait_for(driver, PYTHON_READY, what="Python ready after Stop")
    learner.replace_cell_code(2, ["print('kept' in globals(), 6 * 7)"])
    if engine.shares_memory:
        assert "restarted" not in said, said
        assert "True 42" in learner.text(learner.run_cell(2))  # the same Python
    else:
        assert "Python was restarted" in said, said
        assert "False 42" in learner.text(learner.run_cell(2))  # a new Python, which runs

    # A reload keeps the work, and Python starts from the memory snapshot the first visit stored.
    wait_for(driver, "return localStorage.getItem('ember:snapshot')", SAVED_S, "the snapshot stored")
    learner.reload()
    wait_for(driver, LAB_READY, what="the lab ready after the reload")
    start = driver.execute_script("return [document.documentElement.dataset.pythonStart, emberRuntime.bootInfo]")
    assert start[0] == "snapshot", start  # with the reason, if it fell back
    assert "stack.pop()" in (learner.stored_piece() or "")
    assert driver.execute_script(
        "return document.querySelector('.ember-question[data-question=\"L10.bfs\"] input[value=\"four\"]').checked")

    # The work file goes out, the gap changes, and the file brings the downloaded piece back.
    name, data = download_all(learner)
    assert name.endswith(".zip") and data[:2] == b"PK", name
    select_gap_body(learner, go=True)
    learner.type_lines([indent + "pass  # changed my mind"])
    wait_until(lambda: "changed my mind" in (learner.stored_piece() or ""), 30, "the change saved")
    bring_back(learner, name, data)
    wait_until(lambda: "stack.pop()" in (learner.stored_piece() or ""), 30, "the downloaded piece back")

    # Offline after one visit: the server is gone, the lesson loads, Python starts and runs a cell.
    wait_for(driver, "return document.querySelector('#ember-offline')?.textContent === 'Available offline'",
             SAVED_S, "available offline")
    own_server.stop()
    learner.open(lesson)
    wait_for(driver, LAB_READY, what="the lab ready offline")
    learner.replace_cell_code(2, ["print(6 * 7, 'offline')"])
    assert "42 offline" in learner.text(learner.run_cell(2))
    learner.check()


def select_gap_body(learner: Learner, go: bool = False) -> None:
    """With the cursor at the gap's first line ("Go to the gap"), select the gap's whole body."""
    driver = learner.driver
    if go:
        gap = learner.find('.ember-gap[data-gap="L10.backward"]')
        learner.click(learner.button(gap, "Go to the gap"))
    lines = driver.execute_script(STORED_PIECE) or COURSE.gaps["L10.backward"].starter
    assert lines is not None, "no stored piece and no starter"
    count = len(lines.rstrip("\n").split("\n"))
    actions = ActionChains(driver).key_down(Keys.SHIFT)
    for _ in range(count - 1):
        actions.send_keys(Keys.ARROW_DOWN)
    actions.send_keys(Keys.END).key_up(Keys.SHIFT).perform()


def run_checks(learner: Learner) -> dict[str, str]:
    """Press Run checks, wait until every claim has its verdict; each claim's state."""
    lab = learner.find(".ember-lab")
    learner.click(learner.button(lab, "Run checks"))
    script = """const items = [...document.querySelectorAll('.ember-lab .ember-claims li')];
      if (!items.length || items.some((item) => ['idle', 'running'].includes(item.dataset.state))) return null;
      return Object.fromEntries(items.map((item) => [item.dataset.claim, item.dataset.state]));"""
    return wait_for(learner.driver, script, what="the checks' verdicts")


def download_all(learner: Learner) -> tuple[str, bytes]:
    """Press "Download all my work": the file's name and bytes, from the download folder."""
    folder = learner.session.downloads
    box = learner.find(".ember-your-work")
    learner.click(learner.button(box, "Download all my work"))

    def arrived() -> Path | None:  # whole: nothing else (a browser's partial file) beside it, and it reads as a zip
        files = list(folder.iterdir())
        whole = len(files) == 1 and files[0].suffix == ".zip" and zipfile.is_zipfile(files[0])
        return files[0] if whole else None

    path = wait_until(arrived, 60, f"the work file in {folder}")
    return path.name, path.read_bytes()


def bring_back(learner: Learner, name: str, data: bytes) -> None:
    """Give the work file to "Bring my work here…" (its file input, as the dialog would) and apply it."""
    path = learner.session.downloads / f"back-{name}"
    path.write_bytes(data)
    box = learner.find(".ember-your-work")
    learner.find("input[type=file]", box).send_keys(str(path))
    region = wait_for(learner.driver, """return [...document.querySelectorAll('.ember-your-work [role=region]')]
      .find((region) => region.querySelector('h4')?.textContent.startsWith('Bring in ')) || null""",
                      what="the preview")
    assert "1 changed" in learner.text(region), learner.text(region)
    learner.click(learner.button(region, "Apply"))
    learner.wait_text(learner.find(".ember-work-status", box), f"Brought in from {path.name}")

