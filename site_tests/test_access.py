"""Anyone can take the course: axe-core on every page in the states a learner brings it to, in both schemes, at a
desktop's width and a phone's; every editor and picture named.

axe-core comes from the npm registry (pinned in package.json, installed by the build) and is put into the page
by the test: the site never serves it. A test fails on any serious or critical violation that ``WAIVED`` does not
name, with the rule, the element and why.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from labs.course.model import load_course
from labs.course.pages import lesson_page_files

from .harness import ROOT, Scheme, viewport_width
from .learner import (
    cell,
    frames_drawn,
    gap_body,
    gap_indent,
    load_finished_pieces,
    run_checks,
    wait_for_cells,
    wait_for_lab,
)

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
COURSE = load_course()
LESSON_PAGES = {lesson: f"lessons/{page.parent.name}/" for lesson, page in lesson_page_files().items()}
PAGES = {"home": "", "hosting": "hosting/", **LESSON_PAGES}
LOOKS: list[tuple[Scheme, int]] = [("light", 1280), ("dark", 1280), ("light", 390), ("dark", 390)]
SERIOUS = ("serious", "critical")
# (rule, a CSS selector of the element, why): violations that are not ours to fix, each with its reason. Empty:
# the theme's own markup is mended by the site's code and styles instead (web/src/page/access.js, ember.css).
WAIVED: list[tuple[str, str, str]] = []

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.flatMap((v) => v.nodes.map((n) => ({
    rule: v.id, impact: v.impact, target: n.target.join(" "), summary: (n.failureSummary || "").slice(0, 300) })));
}"""


def serious_violations(page: Page) -> list[dict]:
    """axe's serious and critical violations of the page as it is now, less the waived ones."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE.read_text())  # not a <script> of the page: its policy refuses inline script
    found = [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]
    waived = [(rule, selector) for rule, selector, _ in WAIVED]
    return [v for v in found if not any(v["rule"] == rule and page.locator(selector).count() and selector in v["target"]
                                        for rule, selector in waived)]


def use_scheme(page: Page, scheme: Scheme) -> None:
    """The light or the dark scheme, as a learner gets it: the system's preference, or, once the theme has stored
    a palette (it does on the first visit), its toggle in the header."""
    page.emulate_media(color_scheme=scheme)
    wanted = "slate" if scheme == "dark" else "default"
    if page.evaluate("document.body.dataset.mdColorScheme") != wanted:
        page.locator(f'label[title="Switch to the {scheme} theme"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", wanted)


def in_every_look(page: Page) -> dict[str, list[dict]]:
    """The violations of the page in each scheme and width, the page left as the learner brought it there."""
    found = {}
    for scheme, width in LOOKS:
        use_scheme(page, scheme)
        if viewport_width(page) != width:
            looked = page.evaluate("Number(document.documentElement.dataset.emberScrollBoxes || 0)")
            page.set_viewport_size({"width": width, "height": 900})
            # The page looks at its sideways-scrolling boxes once the new width has settled (web/src/page/access.js).
            page.wait_for_function(f"() => Number(document.documentElement.dataset.emberScrollBoxes || 0) > {looked}")
        frames_drawn(page)  # the theme's palette follows the scheme at once: painted in the next frames
        found[f"{scheme} {width}"] = serious_violations(page)
    return {look: violations for look, violations in found.items() if violations}


def bring_to_every_state(page: Page, lesson_id: str) -> None:
    """The lab loaded, its checks run (the starters fail them), a question answered wrong then right, a cell run
    until one draws, and a step-through opened if the page has one."""
    wait_for_lab(page)
    wait_for_cells(page)
    if page.locator(".ember-lab").get_by_role("button", name="Load the finished pieces of earlier lessons").count():
        load_finished_pieces(page)
    run_checks(page)
    expect(page.locator('.ember-claims li[data-state="fail"]').first).to_be_visible()
    question = COURSE.lesson(lesson_id).questions[0]
    holder = page.locator(f'.ember-question[data-question="{lesson_id}.{question.id}"]')
    wrong = next(option.id for option in question.options if option.id != question.answer)
    holder.locator(f'input[value="{wrong}"]').check()
    expect(holder.locator(".ember-feedback")).to_contain_text("Not quite.")
    holder.locator(f'input[value="{question.answer}"]').check()
    expect(holder.locator(".ember-feedback")).to_contain_text("Right.")
    for index in range(min(page.locator(".ember-cell").count(), 6)):
        box = cell(page, index)
        box.get_by_role("button", name="Run", exact=True).click()
        expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
        if box.locator(".ember-output svg, .ember-output table").count():
            break
    stepper = page.locator(".ember-stepper").first
    if stepper.count():
        stepper.get_by_role("button", name="Next").click()


@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_violation_on_a_page_in_any_look_or_state(page: Page, base_url: str, name: str) -> None:
    page.goto(base_url + PAGES[name])
    if name in LESSON_PAGES:
        bring_to_every_state(page, name)
    else:
        expect(page.locator("article")).to_be_visible()
    found = in_every_look(page)
    assert not found, "\n".join(f"{look}: {v['rule']} at {v['target']}: {v['summary']}"
                                for look, violations in found.items() for v in violations[:8])


def test_every_editor_and_picture_has_a_name(page: Page, base_url: str) -> None:
    """On lesson 10 with its cells run: each editor's text is named (the lab's by its file and gaps), and each
    picture has a text alternative, or is the decoration of one that has."""
    page.goto(base_url + LESSON_PAGES["L10"])
    wait_for_lab(page)
    wait_for_cells(page)
    load_finished_pieces(page)
    for index in range(page.locator(".ember-cell").count()):
        box = cell(page, index)
        box.get_by_role("button", name="Run", exact=True).click()
        expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
    names = page.locator(".cm-content").evaluate_all("(all) => all.map((e) => e.getAttribute('aria-label') || '')")
    assert names and all(names), names
    assert any(name.startswith("ember/scalar.py, gap L10.backward editable") for name in names), names
    described = page.locator(".cm-content").evaluate_all(
        "(all) => all.map((e) => document.getElementById(e.getAttribute('aria-describedby'))?.textContent || '')")
    assert all("Esc, then Tab" in text for text in described), described
    pictures = page.locator(".ember-output svg").evaluate_all("""(all) => all.map((svg) => ({
        named: Boolean(svg.getAttribute('aria-label')) || Boolean(svg.closest('[role=img][aria-label]')),
        hidden: Boolean(svg.closest('[aria-hidden=true]')) }))""")
    assert pictures, "lesson 10's cells drew nothing"
    assert all(p["named"] or p["hidden"] for p in pictures), pictures


# --- a keyboard-only learner on lesson 10 -------------------------------------------------------------------------

NO_POINTER = """() => {
  window.emberPointer = 0;
  for (const type of ["mousedown", "mouseup", "pointerdown", "pointerup"]) {
    addEventListener(type, (event) => { if (event.isTrusted) window.emberPointer++; }, true);
  }
}"""
FOCUSED = """() => { const e = document.activeElement; return {
  tag: e.tagName, text: (e.textContent || "").trim().slice(0, 80), cls: e.className || "",
  value: e.value || "", question: e.closest(".ember-question")?.dataset.question || "",
  editor: Boolean(e.closest(".cm-editor")), gap: e.closest(".ember-gap")?.dataset.gap || "",
  inLab: Boolean(e.closest(".ember-lab")) }; }"""


class Keys:
    """The learner's keyboard: every key they press, counted."""

    def __init__(self, page: Page) -> None:
        self.page, self.count = page, 0

    def press(self, key: str, times: int = 1) -> dict:
        for _ in range(times):
            self.page.keyboard.press(key)
            self.count += 1
        return self.focused()

    def focused(self) -> dict:
        return self.page.evaluate(FOCUSED)

    def until(self, key: str, reached: Callable[[dict], bool], limit: int) -> dict:
        """Press ``key`` until the focus is where ``reached`` says, at most ``limit`` times; passing through an
        editor, where Tab indents, press Escape first, as the note under each editor says."""
        for _ in range(limit):
            if "Tab" in key and self.focused()["editor"]:
                self.press("Escape")
            focused = self.press(key)
            if reached(focused):
                return focused
        raise AssertionError(f"{limit} presses of {key} did not get there; the focus is on {self.focused()}")


def cursor_gap(page: Page) -> str:
    """The gap whose body holds the lab editor's cursor, by the line it is on ('' if none)."""
    return page.evaluate("""() => {
      const line = getSelection().anchorNode?.parentElement?.closest(".cm-line");
      return line && line.classList.contains("cm-ember-gap") ? "gap" : ""; }""")


def test_a_keyboard_alone_takes_a_learner_through_lesson_10(page: Page, base_url: str) -> None:
    """No mouse event at all: skip to the lab and write the gap, run the checks and read their one sentence,
    answer a question wrong then right, step through the walk, then leave the editor for the next lesson."""
    page.add_init_script(f"({NO_POINTER})()")
    page.goto(base_url + LESSON_PAGES["L10"])
    wait_for_lab(page)
    wait_for_cells(page)
    keys = Keys(page)
    # From the top of the lesson to the cursor in the lab's first gap: Tab, Tab, Enter.
    assert keys.press("Tab")["text"] == "Skip to content"
    assert keys.press("Tab")["text"] == "Skip to the lab"
    focused = keys.press("Enter")
    assert focused["editor"] and cursor_gap(page) == "gap", focused
    assert keys.count == 3
    # Out of the editor (Escape, then Tab) to the lab's buttons: load the earlier lessons' finished pieces.
    keys.press("Escape")
    keys.until("Tab", lambda f: f["text"] == "Load the finished pieces of earlier lessons", 8)
    keys.press("Enter")
    expect(page.locator(".ember-lab .ember-notice")).to_contain_text("Loaded")
    # Back to the gap by its own button, select its starter line by line, and type the piece.
    keys.until("Shift+Tab", lambda f: f["text"] == "Go to the gap" and f["gap"] == "L10.backward", 40)
    keys.press("Enter")
    keys.press("Shift+ArrowDown", len(gap_body(page, "L10.backward").split("\n")) - 1)
    keys.press("Shift+End")
    finished = textwrap.dedent(COURSE.gaps["L10.backward"].finished).strip("\n")
    page.keyboard.insert_text(textwrap.indent(finished, gap_indent("L10.backward")))
    keys.press("ControlOrMeta+Enter")  # runs the checks from inside the editor
    summary = page.locator(".ember-check-summary")
    claims = len(COURSE.lesson("L10").claims)
    expect(summary).to_have_text(f"{claims} of {claims} checks hold. Every check holds.", timeout=60_000)
    assert summary.get_attribute("role") == "status"
    assert keys.focused()["editor"], "the focus stayed where the learner was"
    # A question, by its radio buttons: a wrong option first, then the right one.
    question = COURSE.lesson("L10").questions[0]
    keys.press("Escape")
    focused = keys.until("Shift+Tab", lambda f: f["question"] == f"L10.{question.id}", 300)
    if focused["value"] == question.answer:
        keys.press("ArrowDown")
    else:
        keys.press("Space")
    holder = page.locator(f'.ember-question[data-question="L10.{question.id}"]')
    expect(holder.locator(".ember-feedback")).to_contain_text("Not quite.")
    keys.until("ArrowDown", lambda f: f["value"] == question.answer, len(question.options))
    expect(holder.locator(".ember-feedback")).to_contain_text("Right.")
    # The walk's step-through: its cell run from its Run button, then Next.
    sort_cell = page.locator(".ember-cell", has=page.locator(".cm-content", has_text="show_sort(c)"))
    keys.until("Tab", lambda f: f["text"] == "Run" and sort_cell.evaluate("(c) => c.contains(document.activeElement)"),
               200)
    keys.press("Enter")
    stepper = sort_cell.locator(".ember-stepper")
    expect(stepper).to_be_visible(timeout=60_000)
    first = stepper.locator(".ember-step-text").inner_text()
    keys.until("Tab", lambda f: f["text"] == "Next", 10)
    keys.press("Enter")
    expect(stepper.locator(".ember-step-count")).to_contain_text("step 2 of")
    assert stepper.locator(".ember-step-text").inner_text() != first
    # Into the lab's editor by Alt+PageDown, out of it again, and on to the next lesson by its link.
    keys.until("Alt+PageDown", lambda f: f["inLab"], 30)
    keys.press("Escape")
    keys.until("Tab", lambda f: f["tag"] == "A" and f["text"].startswith("Next:"), 60)
    keys.press("Enter")
    expect(page.locator(".ember-page")).to_have_attribute("data-lesson", "L11")
    assert page.evaluate("window.emberPointer") == 0
