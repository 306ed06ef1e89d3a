"""Work in a folder on this computer: lesson 10's lab linked to a folder, through the File System Access API.

The browser's origin-private file system hands out the same FileSystemDirectoryHandle a folder picker does, so the
tests put it in the picker's place: the page then writes and reads a real folder ("mywork") with no dialog to answer.
"""

from __future__ import annotations

import re
import textwrap

from playwright.sync_api import Page, expect

from labs.checking.learner import INIT_SOURCE, build_modules
from labs.course.gaps import find_gaps
from labs.course.model import load_course

from .harness import LESSON_10
from .learner import (
    BREADTH_FIRST,
    RUN_MS,
    gap_indent,
    lab_editor,
    open_page,
    run_checks,
    stored_piece,
    stored_work,
    type_into_gap,
    wait_for_lab,
)
from .test_access import in_every_look

COURSE = load_course()
GAP = "L10.backward"
FILE = COURSE.gaps[GAP].file  # the learner file that holds the gap
FOLDER = "mywork"
# The folder picker, answered with a folder of the origin's private file system.
PICKER = f"""window.showDirectoryPicker = async () =>
  (await navigator.storage.getDirectory()).getDirectoryHandle({FOLDER!r}, {{ create: true }});"""
NO_PICKER = "delete window.showDirectoryPicker;"
# A file of the private file system ("mywork/ember/scalar.py") as its bytes, or null.
READ_BYTES = """async (path) => {
  let folder = await navigator.storage.getDirectory();
  const parts = path.split("/");
  try {
    for (const part of parts.slice(0, -1)) folder = await folder.getDirectoryHandle(part);
    const file = await (await folder.getFileHandle(parts.at(-1))).getFile();
    return Array.from(new Uint8Array(await file.arrayBuffer()));
  } catch (error) {
    if (error.name === "NotFoundError") return null;
    throw error;
  }
}"""
WRITE = """async ([path, text]) => {
  let folder = await navigator.storage.getDirectory();
  const parts = path.split("/");
  for (const part of parts.slice(0, -1)) folder = await folder.getDirectoryHandle(part, { create: true });
  const writable = await (await folder.getFileHandle(parts.at(-1), { create: true })).createWritable();
  await writable.write(text);
  await writable.close();
}"""
LINKED = f"Linked to your folder “{FOLDER}”"


def folder_bytes(page: Page, name: str) -> bytes | None:
    found = page.evaluate(READ_BYTES, f"{FOLDER}/ember/{name}")
    return None if found is None else bytes(found)


def folder_text(page: Page, name: str) -> str:
    found = folder_bytes(page, name)
    assert found is not None, f"{FOLDER}/ember/{name} is not there"
    return found.decode("utf-8")


def save_in_folder(page: Page, name: str, text: str) -> None:
    """Save a file in the linked folder, as the learner's own editor does."""
    page.evaluate(WRITE, [f"{FOLDER}/ember/{name}", text])


def with_gap(source: str, gap_id: str, code: str) -> str:
    """``source`` with the lines between a gap's markers replaced by ``code``, indented as the gap is."""
    gap = next(gap for gap in find_gaps(source) if gap.id == gap_id)
    lines = source.split("\n")
    body = textwrap.indent(textwrap.dedent(code).strip("\n"), gap_indent(gap_id)).split("\n")
    return "\n".join(lines[:gap.open_line] + body + lines[gap.close_line - 1:])


def open_linked_lab(page: Page, url: str) -> None:
    """Lesson 10 with its lab linked to the folder (from the keyboard), the learner's files written into it."""
    page.add_init_script(PICKER)
    open_page(page, url + LESSON_10)
    lab = wait_for_lab(page)
    button = lab.get_by_role("button", name="Work in a folder on this computer")
    expect(button).to_have_accessible_description(re.compile(r"^Your files go into a folder you choose: .+checks\.$"))
    button.focus()
    page.keyboard.press("Enter")
    expect(lab.locator(".ember-folder-state")).to_contain_text(LINKED, timeout=RUN_MS)
    expect(lab.get_by_role("button", name="Unlink folder")).to_be_focused()  # where the pressed button was


def test_the_folder_gets_the_learners_files_byte_for_byte_and_run_takes_a_gap_saved_there(
        page: Page, base_url: str) -> None:
    open_linked_lab(page, base_url)
    modules = build_modules(COURSE, "L10", stored_work(page))
    for name, module in modules.items():
        assert folder_bytes(page, name) == module.source.encode("utf-8"), name
    assert folder_bytes(page, "__init__.py") == INIT_SOURCE.encode("utf-8")
    lab = page.locator(".ember-lab")
    expect(lab.get_by_role("button", name="Unlink folder")).to_be_visible()
    expect(lab.get_by_role("button", name="Work in a folder on this computer")).to_be_hidden()

    saved = with_gap(folder_text(page, FILE), GAP, BREADTH_FIRST)
    save_in_folder(page, FILE, saved)
    assert stored_piece(page, GAP) is None  # nothing is taken before the learner runs the checks or comes back
    run_checks(page)
    expect(lab_editor(page)).to_contain_text("queue.pop(0)")
    expect(lab.locator(".ember-notice")).to_contain_text(f"Gap {GAP} taken from your folder")
    wanted = next(gap.text for gap in find_gaps(saved) if gap.id == GAP)
    assert stored_piece(page, GAP) == wanted  # the gap's lines, byte for byte
    assert folder_text(page, FILE) == saved  # the learner's file is as they saved it

    lab.get_by_role("button", name="Undo").click()  # what the lab had comes back, and goes to the folder
    expect(lab.locator(".ember-notice")).to_have_text("Undone.")
    assert stored_piece(page, GAP) is None
    page.wait_for_function(f"""async () => {{
        const bytes = await ({READ_BYTES})("{FOLDER}/ember/{FILE}");
        return bytes && !new TextDecoder().decode(new Uint8Array(bytes)).includes("queue.pop(0)");
    }}""", timeout=RUN_MS)


def test_code_typed_in_the_lab_reaches_the_folder_and_the_link_outlives_a_reload(page: Page, base_url: str) -> None:
    open_linked_lab(page, base_url)
    type_into_gap(page, GAP, BREADTH_FIRST)
    page.wait_for_function(f"""async () => {{
        const bytes = await ({READ_BYTES})("{FOLDER}/ember/{FILE}");
        return bytes && new TextDecoder().decode(new Uint8Array(bytes)).includes("queue.pop(0)");
    }}""", timeout=RUN_MS)

    # Saved in the folder while the page was away: the page, opened again, takes it.
    saved = with_gap(folder_text(page, FILE), GAP, BREADTH_FIRST.replace("queue.pop(0)", "queue.pop(0)  # mine"))
    save_in_folder(page, FILE, saved)
    page.reload()
    wait_for_lab(page)
    expect(page.locator(".ember-lab .ember-folder-state")).to_contain_text(LINKED, timeout=RUN_MS)
    expect(lab_editor(page)).to_contain_text("# mine", timeout=RUN_MS)
    assert "# mine" in (stored_piece(page, GAP) or "")

    # Coming back to the page (its window gets the focus) takes what was saved meanwhile.
    save_in_folder(page, FILE, saved.replace("# mine", "# mine again"))
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    expect(lab_editor(page)).to_contain_text("# mine again", timeout=RUN_MS)

    # Unlinked, the folder keeps its files and the lab no longer reads them.
    lab = page.locator(".ember-lab")
    lab.get_by_role("button", name="Unlink folder").click()
    expect(lab.locator(".ember-folder-state")).to_contain_text("is unlinked. Your files stay in it.")
    expect(lab.get_by_role("button", name="Work in a folder on this computer")).to_be_focused()
    save_in_folder(page, FILE, saved.replace("# mine", "# not taken"))
    run_checks(page)
    assert "# not taken" not in (stored_piece(page, GAP) or "")
    page.reload()
    wait_for_lab(page)
    expect(page.locator(".ember-lab").get_by_role("button", name="Work in a folder on this computer")).to_be_visible()


def test_a_file_with_a_broken_marker_says_which_line_and_changes_nothing(page: Page, base_url: str) -> None:
    open_linked_lab(page, base_url)
    source = with_gap(folder_text(page, FILE), GAP, BREADTH_FIRST)
    end = next(gap.close_line for gap in find_gaps(source) if gap.id == GAP)
    lines = source.split("\n")
    broken = "\n".join(lines[:end - 1] + lines[end:])  # the gap's closing marker deleted
    save_in_folder(page, FILE, broken)
    before = {name: folder_bytes(page, name) for name in build_modules(COURSE, "L10", stored_work(page))}

    run_checks(page)
    message = page.locator(f'.ember-lab .ember-folder-broken p[data-file="{FILE}"]')
    expect(message).to_contain_text(f"Nothing was taken from ember/{FILE} in your folder")
    expect(message).to_contain_text(f"line {next(g.open_line for g in find_gaps(source) if g.id == GAP)}")
    expect(page.locator(".ember-lab .ember-folder-broken")).to_have_attribute("role", "alert")
    assert stored_piece(page, GAP) is None
    assert {name: folder_bytes(page, name) for name in before} == before  # the learner's file is left as it is
    found = in_every_look(page)  # the linked folder's controls and the message, in both schemes and widths
    assert not found, "\n".join(f"{look}: {v['rule']} at {v['target']}" for look, vs in found.items() for v in vs)

    save_in_folder(page, FILE, source)  # the marker put back: the code comes in, and the message goes
    run_checks(page)
    expect(lab_editor(page)).to_contain_text("queue.pop(0)")
    expect(page.locator(".ember-lab .ember-folder-broken")).to_be_hidden()
    assert "queue.pop(0)" in (stored_piece(page, GAP) or "")


def test_what_the_folder_held_that_the_lab_cannot_take_is_copied_aside(page: Page, base_url: str) -> None:
    page.goto(base_url + "hosting/")
    save_in_folder(page, FILE, "# my own file, from before\n")  # the chosen folder already holds an ember/
    open_linked_lab(page, base_url)
    state = page.locator(".ember-lab .ember-folder-state")
    expect(state).to_contain_text(f"kept as ember/{FILE}.1.bak")
    assert folder_text(page, f"{FILE}.1.bak") == "# my own file, from before\n"
    assert folder_bytes(page, FILE) == build_modules(COURSE, "L10", stored_work(page))[FILE].source.encode("utf-8")

    # A line added outside the gaps cannot come into the lab: the gap's code does, and the whole file is kept aside.
    saved = "# a note of mine\n" + with_gap(folder_text(page, FILE), GAP, BREADTH_FIRST)
    save_in_folder(page, FILE, saved)
    run_checks(page)
    expect(state).to_contain_text(f"kept as ember/{FILE}.2.bak")
    assert "queue.pop(0)" in (stored_piece(page, GAP) or "")
    assert folder_text(page, f"{FILE}.2.bak") == saved
    assert folder_text(page, FILE) == saved.removeprefix("# a note of mine\n")


def test_without_a_folder_picker_the_lab_offers_no_folder(page: Page, base_url: str) -> None:
    page.add_init_script(NO_PICKER)
    open_page(page, base_url + LESSON_10)
    lab = wait_for_lab(page)
    assert page.evaluate("typeof window.showDirectoryPicker") == "undefined"
    expect(lab.get_by_role("button", name="Open as notebook")).to_be_visible()
    expect(lab.get_by_role("button", name="Work in a folder on this computer")).to_have_count(0)
    expect(lab.locator(".ember-folder")).to_have_count(0)
