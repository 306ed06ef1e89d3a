"""The learner's work travels: "Download all my work" on a page, "Bring my work here" in a fresh browser (chosen by
keyboard or dropped on the page) with its preview first, every gap byte for byte, the answers, progress and seed
(so the options keep their order), Undo that asks first and takes back only what the import wrote and nobody
changed since (later work in any lesson or tab stays), every bad file refused with its message and nothing changed
(too large in all, or nested too deep, before Python reads it), and a trip from the page through
``python -m labs import`` and ``export`` and back."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import zipfile
from datetime import date
from pathlib import Path

from playwright.sync_api import BrowserContext, FilePayload, Locator, Page, expect

from labs.course.model import load_course
from labs.work.work_file import state_texts, state_work, write_work
from tests.test_work_file import FOLDER, ODD, bad_bytes, broken_markers, finished_texts, zip_of

from .harness import LESSON_10, ROOT, Watch
from .learner import (
    BOOT_MS,
    RUN_MS,
    go_to_gap,
    lab_editor,
    load_finished_pieces,
    open_page,
    run_checks,
    type_into_gap,
    wait_for_lab,
)
from .test_access import in_every_look

COURSE = load_course()
QUESTIONS = [f"L10.{question.id}" for question in COURSE.lesson("L10").questions]
ANSWER = COURSE.lesson("L10").questions[0].answer  # answers are taken only as the course can mean them
TYPED = COURSE.gaps["L10.backward"].finished.rstrip("\n") + "\n\t# a tab, then spaces  \n# é中😀"
LESSON_09 = "lessons/09-many-paths-one-sum/"
KEY = "ember:v1"
BEFORE = "ember:before-import"
# What the site stores for Python's start, and about the browser (persistent storage asked for, notes hidden:
# web/src/page/notes.js); every other "ember:" key is the learner's work or about it.
PYTHONS = ("ember:snapshot", "ember:offline", "ember:isolation-reload", "ember:persist-asked", "ember:hidden-notes")
STORED = (f"() => Object.fromEntries(Object.entries(localStorage).filter(([key]) => key.startsWith('ember:') "
          f"&& !{list(PYTHONS)}.includes(key)))")
DROP = """([name, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const files = new DataTransfer();
  files.items.add(new File([bytes], name, { type: "application/zip" }));
  const target = document.querySelector("article h1") || document.body;
  for (const type of ["dragenter", "dragover", "drop"])
    target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: files }));
}"""


def stored(page: Page) -> dict[str, str]:
    """Everything the site keeps for the learner in this browser, as stored."""
    return page.evaluate(STORED)


def saved_state(page: Page) -> dict:
    return json.loads(page.evaluate(f"localStorage.getItem('{KEY}')") or "null")


def work_box(page: Page) -> Locator:
    box = page.locator(".ember-your-work")
    expect(box).to_be_visible()
    return box


def download_all(page: Page) -> tuple[str, bytes]:
    """Press "Download all my work": the file's name and bytes."""
    with page.expect_download(timeout=BOOT_MS) as download:
        work_box(page).get_by_role("button", name="Download all my work").click()
    return download.value.suggested_filename, Path(download.value.path()).read_bytes()


def choose(page: Page, *files: tuple[str, bytes]) -> None:
    """Give files to "Bring my work here…" as its file dialog would."""
    payloads: list[FilePayload] = [{"name": name, "mimeType": "application/octet-stream", "buffer": data}
                                   for name, data in files]
    work_box(page).locator("input[type=file]").set_input_files(payloads)


def preview(page: Page) -> Locator:
    shown = work_box(page).get_by_role("region", name=re.compile(r"^Bring in "))
    expect(shown).to_be_visible(timeout=BOOT_MS)
    return shown


def orders(page: Page) -> dict[str, list[str]]:
    """Each of lesson 10's questions' options, in the order shown."""
    return {key: page.locator(f'.ember-question[data-question="{key}"] input').evaluate_all(
        "(inputs) => inputs.map((input) => input.value)") for key in QUESTIONS}


def codes(state: dict) -> dict[str, str]:
    return {gap: piece["code"] for gap, piece in state["pieces"].items()}


def page_state(texts: dict[str, str], **more: object) -> dict:
    pieces = {gap: {"code": text, "version": "old", "saved": 1, "exact": True} for gap, text in texts.items()}
    return {"pieces": pieces, "answers": {}, "progress": {}, "last": None, "seed": None, **more}


def work_file(state: dict) -> bytes:
    return write_work(COURSE, state_work(COURSE, state), "0123456789ab", date(2026, 12, 5))


def undo_the_import(page: Page) -> str:
    """Press "Undo the import…", see what it would do, and take it back: the confirmation, as it was shown."""
    work_box(page).get_by_role("button", name="Undo the import…").click()
    asked = work_box(page).get_by_role("region", name="Undo the import?")
    expect(asked).to_be_visible()
    expect(asked.locator("h4")).to_be_focused()
    shown = asked.inner_text()
    asked.get_by_role("button", name="Take them back").click()
    expect(asked).to_be_hidden()
    return shown


def fresh_page(another: BrowserContext, watch: Watch) -> Page:
    """A page in another browser profile (``another_context``): a learner who never used the course there."""
    page = another.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    return page


def test_all_my_work_goes_to_a_fresh_browser_byte_for_byte_and_undo_brings_back_what_was_there(
        page: Page, base_url: str, another_context: BrowserContext, watch: Watch) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", TYPED)
    expect(run_checks(page).first).to_have_attribute("data-state", "pass")
    first, second = (page.locator(f'.ember-question[data-question="{key}"]') for key in QUESTIONS[:2])
    answer = COURSE.lesson("L10").questions[0].answer
    first.locator(f'input:not([value="{answer}"])').first.check()
    first.locator(f'input[value="{answer}"]').check()
    second.locator("input").last.check()
    name, data = download_all(page)
    assert name == f"ember-work-{date.today().isoformat()}.zip"
    mine, shown = saved_state(page), orders(page)
    assert "\t# a tab, then spaces  \n" in codes(mine)["L10.backward"]

    fresh = fresh_page(another_context, watch)
    fresh.on("filechooser", lambda chooser: None)  # Playwright takes file dialogs from now on, before the key press
    try:
        open_page(fresh, base_url + LESSON_10)
        wait_for_lab(fresh)
        before = stored(fresh)
        assert saved_state(fresh)["seed"] != mine["seed"]  # a learner of its own, with a seed of its own
        # The keyboard's way in: Tab to the button, Enter opens the file dialog.
        work_box(fresh).get_by_role("button", name="Bring my work here…").focus()
        with fresh.expect_file_chooser() as chooser:
            fresh.keyboard.press("Enter")
        chooser.value.set_files({"name": name, "mimeType": "application/zip", "buffer": data})
        shown_preview = preview(fresh)
        expect(shown_preview.locator("h4")).to_be_focused()
        expect(shown_preview).to_contain_text(f"Gaps: {len(mine['pieces'])} new, 0 changed, 0 the same as here.")
        expect(shown_preview.locator('li[data-gap="L10.backward"]')).to_have_attribute("data-status", "new")
        assert stored(fresh) == before  # nothing changes before Apply
        shown_preview.get_by_role("button", name="Apply").click()
        expect(work_box(fresh).locator(".ember-work-status")).to_contain_text(f"Brought in from {name}")
        brought = saved_state(fresh)
        assert codes(brought) == codes(mine)  # every gap, byte for byte
        assert (brought["answers"], brought["progress"], brought["seed"]) == (
            mine["answers"], mine["progress"], mine["seed"])
        assert json.loads(stored(fresh)[BEFORE])["raw"] == before[KEY]
        expect(lab_editor(fresh)).to_contain_text("é中😀", timeout=RUN_MS)  # the lab shows it at once
        assert orders(fresh) == shown  # the options in the order the learner met them
        expect(fresh.locator(f'.ember-question[data-question="{QUESTIONS[0]}"]')).to_have_attribute(
            "data-state", "right")
        undo_the_import(fresh)
        expect(work_box(fresh).locator(".ember-work-status")).to_contain_text("Undone")
        assert stored(fresh) == before  # exactly what was there, the copy aside gone
        expect(lab_editor(fresh)).not_to_contain_text("é中😀", timeout=RUN_MS)
    finally:
        fresh.close()


# Bad files, each with what its message says (labs/work/work_file.py words them; tests/test_work_file.py makes
# them). A message that names a file's line is checked for the number.
BAD_CASES: dict[str, str | re.Pattern[str]] = {
    "not a zip": "not a zip file",
    "a high ratio": "it looks like a zip bomb",
    "dot-dot": "climbs out of the folder with '..'",
    "another course": "this work file is from another course ('torchlings')",
    "broken markers": re.compile(r"ember-work-2026-12-05/ember/scalar\.py, line \d+: .*put the markers back"),
    "wrong answer field": 'answers["L03.q"]["tried"] must be a list of option ids',
    "newer format": "format 2, newer than this course reads (1)",
}
MINE = {"L10.backward": "        pass  # mine\n", "L09.add_backward": "        x = 'mine'\n"}


def test_every_bad_file_is_refused_with_its_message_and_the_saved_work_stays_as_it_was(
        page: Page, base_url: str) -> None:
    state = page_state(MINE, seed="0123abcd", last="L10",
                       answers={QUESTIONS[0]: {"option": "a", "correct": False, "everCorrect": False, "tried": ["a"],
                                               "revealed": False}},
                       progress={"L10": {"passed": 1, "total": 6, "done": False, "at": 5}})
    page.goto(base_url)
    page.evaluate("([key, raw]) => localStorage.setItem(key, raw)", [KEY, json.dumps(state)])
    page.reload()
    before = stored(page)
    error = work_box(page).locator(".ember-work-error")
    bad = [(f"{case}.zip", bad_bytes(case), said) for case, said in BAD_CASES.items()]
    bad.append(("scalar.py", broken_markers().encode(), re.compile(r"^scalar\.py, line \d+: ")))
    bad.append(("huge.zip", b"PK" + bytes(5 * 2**20),
                "huge.zip is larger than 4 MiB, the most a file you bring in can be."))
    for name, data, said in bad:
        choose(page, (name, data))
        expect(error).to_be_visible(timeout=BOOT_MS)
        expect(error).to_have_attribute("role", "alert")
        expect(error.locator("p").first).to_have_text(f"Could not bring in {name}; nothing was changed.")
        expect(error.locator("p").last).to_have_text(said if isinstance(said, re.Pattern) else re.compile(
            re.escape(said), re.IGNORECASE))
        expect(work_box(page).locator(".ember-import")).to_be_hidden()
        assert stored(page) == before, name

    # A good file: its preview, looked at by axe, then Cancel changes nothing.
    theirs = {"L10.backward": "        pass  # <b>theirs</b>\n", "L08.add_backward": "        y = 'theirs'\n"}
    good = work_file(page_state(theirs | {"L09.add_backward": MINE["L09.add_backward"]}))
    choose(page, ("<img src=x>.zip", good))
    shown = preview(page)
    expect(shown.locator("h4")).to_have_text("Bring in <img src=x>.zip?")  # a file's words are text, never markup
    expect(shown).to_contain_text("Gaps: 1 new, 1 changed, 1 the same as here.")
    changed = shown.locator('li[data-gap="L10.backward"]')
    expect(changed).to_have_attribute("data-status", "changed")
    changed.get_by_text("Show both versions").click()
    expect(changed.locator("pre").first).to_have_text(MINE["L10.backward"])
    expect(changed.locator("pre").last).to_have_text(theirs["L10.backward"])
    found = in_every_look(page)
    assert not found, found
    page.set_viewport_size({"width": 1200, "height": 900})
    shown.get_by_role("button", name="Cancel").click()
    expect(shown).to_be_hidden()
    expect(work_box(page).get_by_role("button", name="Bring my work here…")).to_be_focused()
    assert stored(page) == before

    # Keep mine in the changed gap: the new one comes in, mine stays. Undo puts back the very text stored (written
    # here by Python's json, not as the page writes it); the learner brings it in again, and keeps it.
    assert before[KEY] == json.dumps(state)

    def bring_keeping_mine() -> None:
        choose(page, ("work.zip", good))
        preview(page).get_by_role("checkbox", name="Keep mine: L10.backward").check()
        preview(page).get_by_role("button", name="Apply").click()
        expect(work_box(page).locator(".ember-work-status")).to_contain_text("Kept yours in L10.backward.")
        assert codes(saved_state(page)) == MINE | {"L08.add_backward": theirs["L08.add_backward"]}
        assert saved_state(page)["answers"] == state["answers"] and saved_state(page)["seed"] == state["seed"]

    bring_keeping_mine()
    undo_the_import(page)
    expect(work_box(page).locator(".ember-work-status")).to_contain_text("Undone")
    assert stored(page) == before
    bring_keeping_mine()
    work_box(page).get_by_role("button", name="Keep the new work").click()
    expect(work_box(page).get_by_role("button", name="Undo the import")).to_have_count(0)
    assert BEFORE not in stored(page)


def test_work_goes_from_the_page_through_the_terminal_and_back_byte_for_byte(
        page: Page, base_url: str, another_context: BrowserContext, watch: Watch, tmp_path: Path) -> None:
    texts = finished_texts(12) | ODD
    state = page_state(texts, seed="9c0d12ab", last="L12",
                       answers={QUESTIONS[0]: {"option": ANSWER, "correct": True, "everCorrect": True, "tried": [],
                                               "revealed": False}},
                       progress={"L10": {"passed": 6, "total": 6, "done": True, "at": 1_700_000_000_000}})
    page.goto(base_url)
    page.evaluate("([key, raw]) => localStorage.setItem(key, raw)", [KEY, json.dumps(state)])
    page.reload()
    work_box(page)
    assert page.evaluate("document.documentElement.dataset.python") == "off"  # the home page starts no Python
    with page.expect_download(timeout=BOOT_MS) as download:
        work_box(page).get_by_role("button", name="Download all my work").click()
        expect(work_box(page).locator(".ember-work-status")).to_have_text("Python: starting…")
    name, data = download.value.suggested_filename, Path(download.value.path()).read_bytes()
    (tmp_path / name).write_bytes(data)
    for command in (["import", name, "--dir", "mine"], ["export", "--dir", "mine", "--out", "again.zip"]):
        done = subprocess.run([sys.executable, "-m", "labs", *command], cwd=tmp_path, capture_output=True, text=True,
                              env={"PYTHONPATH": str(ROOT)}, check=False)
        assert done.returncode == 0, done.stderr
    again = (tmp_path / "again.zip").read_bytes()

    fresh = fresh_page(another_context, watch)
    try:
        fresh.goto(base_url)
        work_box(fresh)
        fresh.evaluate(DROP, ["again.zip", base64.b64encode(again).decode()])  # dropped on the page
        preview(fresh).get_by_role("button", name="Apply").click()
        expect(work_box(fresh).locator(".ember-work-status")).to_contain_text("Brought in from again.zip")
        brought = saved_state(fresh)
        expected, _, _ = state_texts(COURSE, state)  # the pieces that are not their starters
        assert codes(brought) == expected
        assert (brought["answers"], brought["progress"], brought["seed"], brought["last"]) == (
            state["answers"], state["progress"], state["seed"], state["last"])
        expect(fresh.locator('.ember-lessons li[data-lesson="L10"]')).to_have_attribute("data-state", "done")
    finally:
        fresh.close()


def wait_for_piece(page: Page, gap: str, words: str) -> None:
    """Wait until the saved piece of a gap holds these words (the lab saves what is typed a moment later)."""
    page.wait_for_function(
        "([key, gap, words]) => (JSON.parse(localStorage.getItem(key) || '{}').pieces?.[gap]?.code || '')"
        ".includes(words)", arg=[KEY, gap, words])


def test_undo_takes_back_only_what_the_import_wrote_and_keeps_what_was_typed_since_in_any_lesson_or_tab(
        page: Page, base_url: str) -> None:
    answered = {QUESTIONS[0]: {"option": "a", "correct": False, "everCorrect": False, "tried": ["a"],
                               "revealed": False}}
    state = page_state(MINE, seed="0123abcd", last="L10", answers=answered,
                       progress={"L10": {"passed": 1, "total": 6, "done": False, "at": 5}})
    page.goto(base_url)
    page.evaluate("([key, raw]) => localStorage.setItem(key, raw)", [KEY, json.dumps(state)])
    open_page(page, base_url + LESSON_09)
    wait_for_lab(page)
    theirs = {"L08.add_backward": "        y = 'theirs'\n", "L09.add_backward": "        x = 'theirs'\n",
              "L09.mul_backward": "        m = 'theirs'\n", "L10.backward": "        pass  # theirs\n"}
    right = COURSE.lesson("L10").questions[1].answer  # an option the course has: others are left out on import
    their_answer = {"option": right, "correct": True, "everCorrect": True, "tried": [], "revealed": False}
    their_progress = {"passed": 3, "total": 7, "done": False, "at": 9}
    good = work_file(page_state(theirs, answers={QUESTIONS[1]: their_answer}, progress={"L11": their_progress}))
    choose(page, ("theirs.zip", good))
    shown = preview(page)
    runs = shown.get_by_text("The code you bring in runs in this page's Python when you press Run or Run checks")
    expect(runs).to_be_visible()  # said beside Apply, and read out with it
    expect(shown.get_by_role("button", name="Apply")).to_have_attribute("aria-describedby", "ember-import-runs")
    shown.get_by_role("button", name="Apply").click()
    expect(work_box(page).locator(".ember-work-status")).to_contain_text("Brought in from theirs.zip")
    assert codes(saved_state(page)) == theirs
    expect(go_to_gap(page, "L09.add_backward")).to_contain_text("x = 'theirs'")

    # Later work: typed here in lesson 09, and in lesson 08 in another tab of the same browser.
    type_into_gap(page, "L09.mul_backward", "m = 'typed here after the import'")
    wait_for_piece(page, "L09.mul_backward", "typed here after the import")
    other = page.context.new_page()
    try:
        open_page(other, base_url + "lessons/08-blame-flows-backward/")
        wait_for_lab(other)
        expect(work_box(other).get_by_role("button", name="Undo the import…")).to_be_visible()
        type_into_gap(other, "L08.add_backward", "z = 'typed in another tab'")
        wait_for_piece(page, "L08.add_backward", "typed in another tab")

        # Undo, in the other tab, says first what it takes back and what it keeps; Escape leaves everything as it is.
        before = stored(other)
        work_box(other).get_by_role("button", name="Undo the import…").click()
        asked = work_box(other).get_by_role("region", name="Undo the import?")
        expect(asked.locator("h4")).to_be_focused()
        back, kept = asked.locator(".ember-undo-back li"), asked.locator(".ember-undo-kept li")
        expect(back).to_have_text(["your code in L09.add_backward", "your code in L10.backward",
                                   "your answer to question 2 of L10", "progress in L11"])
        expect(kept).to_have_text(["your code in L08.add_backward", "your code in L09.mul_backward"])
        assert stored(other) == before
        other.keyboard.press("Escape")
        expect(asked).to_be_hidden()
        undo = work_box(other).get_by_role("button", name="Undo the import…")
        expect(undo).to_be_focused()
        assert stored(other) == before

        # By keyboard: Enter opens the question again, Tab reaches "Take them back"; axe finds nothing to mend in
        # either colour scheme; Enter takes them back.
        other.keyboard.press("Enter")
        expect(asked.locator("h4")).to_be_focused()
        other.keyboard.press("Tab")
        take_back = asked.get_by_role("button", name="Take them back")
        expect(take_back).to_be_focused()
        found = in_every_look(other)
        assert not found, found
        other.set_viewport_size({"width": 1200, "height": 900})
        assert stored(other) == before
        take_back.focus()
        other.keyboard.press("Enter")
        status = work_box(other).locator(".ember-work-status")
        expect(status).to_contain_text("Undone: your code in L09.add_backward, your code in L10.backward")
        expect(status).to_contain_text("Kept as you changed them since: your code in L08.add_backward and your "
                                       "code in L09.mul_backward.")
        after = saved_state(other)
        assert codes(after) == {  # the import's own changes taken back; later work kept
            "L08.add_backward": after["pieces"]["L08.add_backward"]["code"],
            "L09.add_backward": MINE["L09.add_backward"], "L10.backward": MINE["L10.backward"],
            "L09.mul_backward": after["pieces"]["L09.mul_backward"]["code"]}
        assert "typed in another tab" in codes(after)["L08.add_backward"]
        assert "typed here after the import" in codes(after)["L09.mul_backward"]
        assert after["answers"] == answered  # the file's answer gone, the learner's as it was
        assert "L11" not in after["progress"] and after["progress"]["L10"] == state["progress"]["L10"]
        assert after["seed"] == state["seed"]
        assert BEFORE not in stored(other)
        expect(undo).to_have_count(0)
        # The tab that brought the file in follows: no offer to undo, its lab showing the piece put back, and that
        # piece not taken for a rival's (nothing kept in two versions).
        expect(work_box(page).get_by_role("button", name="Undo the import…")).to_have_count(0)
        expect(go_to_gap(page, "L09.add_backward")).to_contain_text("x = 'mine'")
        expect(lab_editor(other)).to_contain_text("typed in another tab")
        assert "conflicts" not in saved_state(page)
    finally:
        other.close()


DEEP = ('{"format": 1, "course": "ember", "gaps": {}, "answers": {"L10.bfs": {"option": "[[[[", "tried": '
        + "[" * 5000 + "]" * 5000 + "}}}")
LONG_NAME = "n" * 250 + ".py"
CLIPPED = LONG_NAME[:30] + "…" + LONG_NAME[-29:]


def test_a_whole_import_too_large_or_a_work_file_nested_too_deep_is_refused_before_python_reads_it(
        page: Page, base_url: str) -> None:
    page.goto(base_url)
    page.evaluate("([key, raw]) => localStorage.setItem(key, raw)", [KEY, json.dumps(page_state(MINE))])
    page.reload()
    before = stored(page)
    error = work_box(page).locator(".ember-work-error")
    mib = 2**20
    nested = "Its ember-work.json nests lists and tables more than 16 deep; the course never writes one like that"
    cases = [
        ([(f"part{i}.py", b"#" * (4 * mib)) for i in range(6)], "part0.py, part1.py and 4 more files",
         "These 6 files come to more than 4 MiB together; what you bring in at once is at most 4 MiB."),
        ([(LONG_NAME, b"#" * (4 * mib + 1))], CLIPPED,
         f"{CLIPPED} is larger than 4 MiB, the most a file you bring in can be."),
        ([("deep.zip", zip_of({f"{FOLDER}/ember-work.json": DEEP}))], "deep.zip", nested),
        ([("deep-stored.zip", zip_of({"ember-work.json": DEEP}, zipfile.ZIP_STORED))], "deep-stored.zip", nested),
        ([("deep-shifted.zip", b"PK\0\0" + zip_of({"ember-work.json": DEEP}))], "deep-shifted.zip", nested),
    ]
    for files, names, said in cases:
        choose(page, *files)
        expect(error).to_be_visible()
        expect(error.locator("p").first).to_have_text(f"Could not bring in {names}; nothing was changed.")
        expect(error.locator("p").last).to_contain_text(said)
        assert len(error.inner_text()) < 400  # no name comes back whole
        assert stored(page) == before, names
    assert page.evaluate("document.documentElement.dataset.python") == "off"  # Python was never asked


def test_a_second_import_before_keeping_the_first_is_undone_with_it_and_work_between_them_stays(
        page: Page, base_url: str) -> None:
    state = page_state(MINE, seed="0123abcd")
    page.goto(base_url)
    page.evaluate("([key, raw]) => localStorage.setItem(key, raw)", [KEY, json.dumps(state)])
    page.reload()
    first = work_file(page_state({"L10.backward": "        pass  # first\n", "L09.add_backward": "        x = 1\n"}))
    second = work_file(page_state({"L10.backward": "        pass  # second\n", "L08.add_backward": "        y = 2\n"}))
    choose(page, ("first.zip", first))
    preview(page).get_by_role("button", name="Apply").click()
    expect(work_box(page).locator(".ember-work-status")).to_contain_text("Brought in from first.zip")
    # Between the two imports, L10.backward is typed again (as another tab would write it).
    between = """([key]) => { const state = JSON.parse(localStorage.getItem(key));
      state.pieces["L10.backward"] = { code: "        pass  # typed between\\n", exact: true, rev: "tab.1" };
      localStorage.setItem(key, JSON.stringify(state)); }"""
    page.evaluate(between, [KEY])
    choose(page, ("second.zip", second))
    preview(page).get_by_role("button", name="Apply").click()
    expect(work_box(page).locator(".ember-work-status")).to_contain_text("Brought in from second.zip")
    expect(work_box(page).locator(".ember-import-undo")).to_contain_text("You brought in first.zip and second.zip")
    shown = undo_the_import(page)
    assert "your code in L08.add_backward" in shown and "These stay" not in shown
    after = codes(saved_state(page))
    # Each entry goes back to what it held before the first import that wrote it, or, where it was changed between
    # the imports, to that change.
    assert after == {"L10.backward": "        pass  # typed between\n", "L09.add_backward": MINE["L09.add_backward"]}
    assert BEFORE not in stored(page)
