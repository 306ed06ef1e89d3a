"""One learner, several tabs of one browser: every tab shows what another saves within a second, a gap typed in two
tabs before either heard of the other keeps both versions until the learner keeps one, and a tab on an older
release of the course never writes over a newer one's work."""

from __future__ import annotations

import json

from playwright.sync_api import BrowserContext, Locator, Page, expect

from labs.course.model import load_course

from .harness import LESSON_10, SITE, Watch
from .learner import go_to_gap, open_page, run_checks, stored_piece, wait_for_lab
from .test_access import serious_violations

COURSE = load_course()
LESSON_9 = "lessons/09-many-paths-one-sum/"
# ms: how long a test waits for another tab's change to show. A tab hears of another's save at once (the storage
# event); on a busy machine the editor may take a few seconds to draw it, and the test waits for it to, not for a
# guessed length of time.
SOON = 15_000
BOX = "L10.backward was changed in two tabs at once. Both versions are kept until you choose."
# A tab that has not heard of the other tabs' writes yet: it keeps the page's parts from learning of them (the
# browser's storage event still reaches store.js), until HEARING puts things back.
NOT_HEARING = """() => {
  window.emberHear = window.dispatchEvent;
  window.dispatchEvent = (event) => (event.detail?.otherTab ? true : window.emberHear.call(window, event));
}"""
HEARING = "() => { window.dispatchEvent = window.emberHear; }"


def tab(context: BrowserContext, watch: Watch, url: str, lab: bool = True) -> Page:
    """Another tab of the learner's browser on ``url``, with its lab ready if it has one."""
    page = context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    if lab:
        open_page(page, url)
        wait_for_lab(page)
    else:
        page.goto(url)
    return page


def add_line(page: Page, gap: str, words: str) -> None:
    """Add a comment line at the top of a gap, as a learner types one."""
    page.locator(f'.ember-gap[data-gap="{gap}"]').get_by_role("button", name="Go to the gap").click()
    page.keyboard.insert_text(f"    # {words}\n")


def conflict_box(page: Page) -> Locator:
    return page.get_by_role("group", name=BOX)


def expect_told_to_reload(page: Page) -> None:
    """The lab says, at once, that a newer release saved L10.backward and this tab no longer does."""
    note = page.locator(".ember-lab .ember-tabs-newer")
    expect(note).to_contain_text("Another tab has a newer version of the course", timeout=SOON)
    expect(note).to_have_attribute("role", "alert")
    expect(note).to_contain_text("L10.backward")
    expect(note.get_by_role("button", name="Reload this page")).to_be_visible()


def test_two_tabs_adding_lines_to_one_gap_keep_both_and_a_conflict_keeps_both_versions(
        context: BrowserContext, watch: Watch, base_url: str) -> None:
    one, two = (tab(context, watch, base_url + LESSON_10) for _ in range(2))
    # The steps: a line in the first tab, then one in the second; a third tab opened afterwards.
    add_line(one, "L10.backward", "a line from the first tab")
    expect(go_to_gap(two, "L10.backward")).to_contain_text("a line from the first tab", timeout=SOON)
    add_line(two, "L10.backward", "a line from the second tab")
    expect(go_to_gap(one, "L10.backward")).to_contain_text("a line from the second tab", timeout=SOON)
    three = tab(context, watch, base_url + LESSON_10)
    shown = go_to_gap(three, "L10.backward")
    for words in ("a line from the first tab", "a line from the second tab"):
        expect(shown).to_contain_text(words)
        assert words in (stored_piece(three, "L10.backward") or "")
    # The second tab types before it hears of the first tab's line: both versions stay, in every tab.
    two.evaluate(NOT_HEARING)
    add_line(one, "L10.backward", "first, at the same time")
    add_line(two, "L10.backward", "second, at the same time")
    for page in (one, two, three):
        expect(conflict_box(page)).to_be_visible(timeout=SOON)
        expect(conflict_box(page).get_by_role("alert")).to_have_text(BOX)
    # Coming back to a tab looks for the notebook's edits, and leaves the box where it is.
    looked = one.evaluate("Number(document.documentElement.dataset.notebookLooks || 0)")
    one.evaluate('() => document.dispatchEvent(new Event("visibilitychange"))')
    one.wait_for_function(f"() => Number(document.documentElement.dataset.notebookLooks || 0) > {looked}")
    expect(conflict_box(one)).to_be_visible()
    mine = conflict_box(two).locator('[data-where="this tab"] pre')
    expect(mine).to_contain_text("second, at the same time")
    expect(conflict_box(two).locator('[data-where="another tab"] pre')).to_contain_text("first, at the same time")
    two.evaluate(HEARING)
    assert not serious_violations(two)
    # The third tab keeps the second tab's, by keyboard: from the gap's Reset button, Tab reaches the box's buttons.
    box = conflict_box(three)
    expect(box.locator('[data-where="one tab"] pre')).to_contain_text("first, at the same time")
    three.get_by_role("button", name="Reset this gap").focus()
    keep = box.get_by_role("button", name="Keep the one in another tab")
    for _ in range(6):
        three.keyboard.press("Tab")
        if keep.evaluate("button => button === document.activeElement"):
            break
    expect(keep).to_be_focused()
    three.keyboard.press("Enter")
    for page in (one, two, three):
        expect(page.locator(".ember-two-tabs")).to_have_count(0, timeout=SOON)
    kept = stored_piece(one, "L10.backward") or ""
    assert "second, at the same time" in kept and "first, at the same time" not in kept
    expect(three.locator(".ember-lab .ember-notice")).to_have_text("L10.backward holds the version you kept.")
    expect(go_to_gap(one, "L10.backward")).not_to_contain_text("first, at the same time", timeout=SOON)
    assert "conflicts" not in json.loads(one.evaluate("localStorage.getItem('ember:v1')"))


def test_a_change_in_another_gap_shows_and_the_cursor_stays(context: BrowserContext, watch: Watch,
                                                              base_url: str) -> None:
    one, two = (tab(context, watch, base_url + LESSON_9) for _ in range(2))
    add_line(two, "L09.sub", "typing in sub")
    two.keyboard.press("ArrowUp")
    two.keyboard.press("End")
    add_line(one, "L09.neg", "a line in neg from the first tab")
    typing = two.locator(".ember-lab .cm-editor.cm-focused .cm-content")  # the second tab's focus is where it was
    expect(typing).to_contain_text("a line in neg from the first tab", timeout=SOON)
    two.keyboard.insert_text(", and more")
    assert "    # typing in sub, and more\n" in (stored_piece(two, "L09.sub") or "")
    # A gap back to its starting code in the first tab: Python builds it for the second, whose cursor stays.
    one.locator('.ember-gap[data-gap="L09.neg"]').get_by_role("button", name="Reset this gap").click()
    expect(typing).not_to_contain_text("a line in neg from the first tab", timeout=SOON)
    two.keyboard.insert_text("!")
    assert "    # typing in sub, and more!\n" in (stored_piece(two, "L09.sub") or "")
    assert stored_piece(two, "L09.neg") is None


def test_answers_and_progress_follow_from_tab_to_tab(context: BrowserContext, watch: Watch, base_url: str) -> None:
    home = tab(context, watch, base_url, lab=False)
    lesson = home.locator('.ember-home li[data-lesson="L10"]')
    expect(lesson).to_have_attribute("data-state", "new")
    one = tab(context, watch, base_url + LESSON_10)
    expect(lesson).to_have_attribute("data-state", "started", timeout=SOON)
    two = context.new_page()
    two.on("pageerror", lambda error: watch.errors.append(str(error)))
    open_page(two, base_url + LESSON_10)
    one.locator('.ember-question[data-question="L10.bfs"]').get_by_label("4", exact=True).check()
    question = two.locator('.ember-question[data-question="L10.bfs"]')
    expect(question.locator('input[value="four"]')).to_be_checked(timeout=SOON)
    expect(question.locator(".ember-feedback")).to_contain_text("Right.")
    expect(question.locator(".ember-explain")).to_be_visible()
    claims = run_checks(one)
    total = claims.count()
    passed = one.locator('.ember-lab .ember-claims li[data-state="pass"]').count()
    expect(lesson.locator(".ember-progress")).to_contain_text(f"{passed} of {total} checks pass", timeout=SOON)


def test_a_tab_on_an_older_release_never_writes_over_a_newer_ones_work(context: BrowserContext, watch: Watch,
                                                                        base_url: str) -> None:
    release = json.loads((SITE / "assets" / "gen" / "course.json").read_text())["release"]
    one, two = (tab(context, watch, base_url + LESSON_10) for _ in range(2))
    add_line(one, "L10.backward", "typed on this release")
    # A tab on a newer release saves the gap (here written straight into storage, from the first tab).
    one.evaluate("""(release) => {
      const state = JSON.parse(localStorage.getItem("ember:v1"));
      const piece = state.pieces["L10.backward"];
      piece.code = "    # saved by a newer release\\n" + piece.code;
      Object.assign(piece, { version: "0123456789ab", release, rev: "newer.1" });
      localStorage.setItem("ember:v1", JSON.stringify(state));
    }""", release + 1)
    newer = stored_piece(one, "L10.backward")
    expect_told_to_reload(two)  # it hears of the newer piece
    assert not serious_violations(two)
    add_line(one, "L10.backward", "typed on the older release")  # it learns of it as it saves
    expect_told_to_reload(one)
    assert stored_piece(one, "L10.backward") == newer
    expect(go_to_gap(two, "L10.backward")).to_contain_text("saved by a newer release")
    two.keyboard.insert_text("    # typed on the older release\n")  # the gap is read-only now
    assert stored_piece(two, "L10.backward") == newer
    one.reload()
    wait_for_lab(one)
    expect(one.locator(".ember-lab .ember-tabs-newer")).to_contain_text("L10.backward")
    add_line(one, "L10.backward", "typed after a reload")
    assert stored_piece(one, "L10.backward") == newer
