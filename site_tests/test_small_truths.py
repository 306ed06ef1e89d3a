"""What the page says is what happens: the Python badge on a visit from the saved copy, the count of the
learner's own earlier pieces, a gap a later lesson rewrote, and checks that are running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from labs.course.model import load_course

from .harness import LESSON_10, SITE, Server, Watch
from .learner import BOOT_MS, RUN_MS, held, open_page, run_checks, stored_body, wait_for_lab

COURSE = load_course()
LESSON_04 = "lessons/04-vectors-in-vectors-out/"
LESSON_08 = "lessons/08-blame-flows-backward/"
SAVED_MS = 240_000  # the snapshot and every file saved, behind other tests on two busy cores

# Every text the Python badge shows, in order, from the page's first script on.
BADGE_RECORDER = """(() => {
  // Each text as it was set, from the mutation records (reading the badge in the callback would miss a text that
  // was replaced before the callback ran, as a quick start from the snapshot does).
  window.__badge = [];
  const note = (text) => {
    if (text && window.__badge[window.__badge.length - 1] !== text) window.__badge.push(text);
  };
  new MutationObserver((records) => {
    const badge = document.getElementById("ember-python");
    if (!badge) return;
    for (const record of records) {
      if (record.type === "characterData" && badge.contains(record.target)) note(record.target.data);
      else if (record.target === badge) note([...record.addedNodes].map((node) => node.textContent).join(""));
      else if ([...record.addedNodes].includes(badge)) note(badge.textContent);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})()"""


@pytest.fixture
def server() -> Iterator[Server]:
    """The built site with the isolation headers, on a port of its own (a fresh origin)."""
    server = Server(SITE, isolate=True)
    yield server
    server.stop()


def badge_texts(page: Page) -> list[str]:
    """What the badge has said on this page, once Python is ready."""
    expect(page.locator("#ember-python")).to_have_text("Python: ready", timeout=BOOT_MS)
    return page.evaluate("window.__badge")


def store_pieces(page: Page, base_url: str, pieces: dict[str, str]) -> None:
    """Save these pieces (dedented bodies, as an older version of the course saved them) as the learner's."""
    page.goto(base_url + "hosting/")
    page.evaluate("""pieces => {
      const state = JSON.parse(localStorage.getItem('ember:v1') || '{"pieces":{}}');
      for (const [id, code] of Object.entries(pieces)) state.pieces[id] = { code, version: 'test' };
      localStorage.setItem('ember:v1', JSON.stringify(state));
    }""", pieces)


# --- the badge ---------------------------------------------------------------------------------------


def test_a_returning_learner_whose_files_are_in_the_browsers_cache_is_not_told_of_a_download(
        page: Page, base_url: str) -> None:
    # The shared profile is a returning learner's on a host without a service worker: the files come from the
    # browser's cache (asked whether they changed), Python's memory from the stored snapshot. The first visit
    # here makes sure the files are in that cache.
    page.add_init_script(BADGE_RECORDER)
    open_page(page, base_url + LESSON_10)
    badge_texts(page)
    page.reload()
    seen = badge_texts(page)
    assert not [text for text in seen if "downloading" in text], seen
    assert "Python: starting from the saved copy…" in seen, seen


@pytest.mark.long
def test_a_second_visit_and_an_offline_one_start_from_the_saved_copy(
        offline_context: BrowserContext, watch: Watch, server: Server) -> None:
    page = offline_context.new_page()
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    page.add_init_script(BADGE_RECORDER)
    # A first visit downloads: its largest file held until the badge says so (from 127.0.0.1 on a quiet machine the
    # rest can all be in before the first report, and then there is nothing to tell but "starting").
    with held(offline_context, "**/pyodide.asm.wasm"):
        open_page(page, server.url + LESSON_10)
        expect(page.locator("#ember-python")).to_contain_text("Python: downloading", timeout=BOOT_MS)
    first = badge_texts(page)
    assert [text for text in first if text.startswith("Python: downloading")], first
    expect(page.locator("#ember-offline")).to_have_text("Available offline", timeout=SAVED_MS)
    for offline in (False, True):  # the service worker's copy, then the same with no network at all
        offline_context.set_offline(offline)
        page.reload()
        seen = badge_texts(page)
        assert not [text for text in seen if "downloading" in text], (offline, seen)
        assert "Python: starting from the saved copy…" in seen, (offline, seen)
        assert page.evaluate("document.documentElement.dataset.pythonStart") == "snapshot"


# --- the learner's own earlier pieces ----------------------------------------------------------------


def test_loading_finished_pieces_says_how_many_earlier_gaps_differ_of_those_written_and_replaces_those(
        page: Page, base_url: str) -> None:
    earlier = sorted((gap_id for gap_id, gap in COURSE.gaps.items() if gap.number < 4),
                     key=lambda gap_id: COURSE.gaps[gap_id].number)
    mine = earlier[-1]
    pieces = {gap_id: COURSE.gaps[gap_id].finished for gap_id in earlier}  # every earlier gap written ...
    pieces[mine] = pieces[mine].rstrip("\n") + "  # mine\n"                 # ... one of them in a way of one's own
    store_pieces(page, base_url, pieces)
    page.goto(base_url + LESSON_04)
    wait_for_lab(page)
    lab = page.locator(".ember-lab")
    lab.get_by_role("button", name="Load the finished pieces of earlier lessons").click()
    expect(lab.locator(".ember-notice")).to_have_text("You have written every earlier gap: nothing was loaded.",
                                                      timeout=RUN_MS)
    expect(lab.locator(".ember-replace p")).to_have_text(
        f"You wrote {len(earlier)} earlier gaps. In 1 of them your code differs from the finished piece ({mine}): "
        "it was kept, not replaced.")
    assert stored_body(page, mine) == pieces[mine]
    lab.get_by_role("button", name="Replace that one with its finished piece").click()
    expect(lab.locator(".ember-notice")).to_have_text(
        "Put the finished piece in place of your code in 1 earlier gap. Undo brings yours back.", timeout=RUN_MS)
    assert stored_body(page, mine) == COURSE.gaps[mine].finished
    assert all(stored_body(page, gap_id) == COURSE.gaps[gap_id].finished for gap_id in earlier)


# --- a gap a later lesson rewrote --------------------------------------------------------------------


def test_a_gap_a_later_lesson_rewrote_says_where_the_newer_version_is_and_links_to_it(
        page: Page, base_url: str) -> None:
    rewritten, kept = "L08.add_backward", "L08.mul_backward"
    newer = COURSE.regions[rewritten].stages[-1].id
    assert newer.startswith("L09.") and COURSE.regions[kept].stages[-1].id.startswith("L09.")
    store_pieces(page, base_url, {rewritten: COURSE.gaps[rewritten].finished, newer: COURSE.gaps[newer].finished,
                                  kept: COURSE.gaps[kept].finished})  # lesson 09's version of only one of them
    page.goto(base_url + LESSON_08)
    wait_for_lab(page)
    lab = page.locator(".ember-lab")
    note = lab.locator(f'.ember-gap[data-gap="{rewritten}"] .ember-gap-newer')
    expect(note).to_have_text(
        f"Lesson 09 rewrites this gap, and your newer version of it is there ({newer}). Lesson 09 runs that one: "
        "what you change here stays in lesson 08's version. Go to your version in lesson 09")
    expect(lab.locator(f'.ember-gap[data-gap="{kept}"] .ember-gap-newer')).to_have_count(0)
    note.get_by_role("link", name="Go to your version in lesson 09").click()
    wait_for_lab(page)
    assert "/lessons/09-" in page.url and page.url.endswith(f"#ember-gap-{newer}")
    entry = page.locator(f'.ember-gap[data-gap="{newer}"]')
    expect(entry.get_by_role("button", name="Go to the gap")).to_be_focused()
    expect(entry).to_be_in_viewport()


# --- checks that are running -------------------------------------------------------------------------


def test_while_the_checks_run_the_last_verdicts_give_way_to_a_running_state(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    claims = run_checks(page)  # the starters: some claims fail
    lab = page.locator(".ember-lab")
    expect(lab.locator(".ember-claims li[data-state='fail']").first).to_be_visible()
    # The list as it is the moment it turns busy (and every moment after), until the new verdicts come.
    page.evaluate("""() => {
      const list = document.querySelector(".ember-lab .ember-claims");
      window.__busy = [];
      new MutationObserver(() => {
        if (list.getAttribute("aria-busy") !== "true") return;
        window.__busy.push({
          marks: [...list.querySelectorAll(".ember-claim-mark")].map((mark) => mark.textContent),
          messages: [...list.querySelectorAll(".ember-claim-message")].map((message) => message.textContent),
          states: [...list.children].map((item) => item.dataset.state),
          summary: document.querySelector(".ember-lab .ember-check-summary").textContent,
        });
      }).observe(list, { attributes: true, subtree: true, childList: true, characterData: true });
    }""")
    claims = run_checks(page)
    busy = page.evaluate("window.__busy")
    assert busy, "the claim list never said it was busy"
    first = busy[0]
    assert set(first["marks"]) == {"…"} and set(first["states"]) == {"running"}, first
    assert not any(first["messages"]), first  # no verdict of the last run stays up
    assert first["summary"] == "Checking your code…", first
    expect(lab.locator(".ember-claims")).not_to_have_attribute("aria-busy", "true")
    expect(lab.locator(".ember-check-summary")).to_contain_text("checks hold")
    marks = lab.locator(".ember-claim-mark").all_text_contents()
    assert set(marks) <= {"✓", "✗"} and "✗" in marks, marks
    assert claims.count() == len(COURSE.lesson("L10").claims)
