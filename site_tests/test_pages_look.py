"""What a learner sees on the lesson pages: lab buttons, walk cards, plots on a phone, wide graphs, the closing box."""

from __future__ import annotations

import json
import re

from playwright.sync_api import BrowserContext, FloatRect, Locator, Page, expect

from labs.checking.learner import finished_pieces
from labs.course.model import load_course
from tests.also_right import KAHN_BACKWARD

from .harness import LESSON_10
from .learner import open_page, run_cell, run_checks, type_into_gap, wait_for_lab

COURSE = load_course()
LESSON_01 = "lessons/01-slopes-by-nudging/"
LESSON_02 = "lessons/02-the-chain-rule/"
LESSON_03 = "lessons/03-many-inputs/"
LOAD = "Load the finished pieces of earlier lessons"


def with_work(page: Page, base_url: str, pieces: dict[str, str]) -> None:
    """Give the page's browser profile these pieces saved, as a learner who wrote them would have."""
    state = {"pieces": {gap: {"code": code, "saved": 1} for gap, code in pieces.items()},
             "answers": {}, "progress": {}, "last": None}
    page.goto(base_url + "hosting/")
    page.evaluate("state => localStorage.setItem('ember:v1', state)", json.dumps(state))


def finished_up_to(lesson: str) -> dict[str, str]:
    return finished_pieces(COURSE, COURSE.lesson(lesson).number)


def test_the_first_lab_offers_no_earlier_pieces_to_load_and_the_second_does(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_01)
    lab = wait_for_lab(page)
    expect(lab.get_by_role("button", name="Run checks")).to_be_visible()
    expect(lab.get_by_role("button", name=LOAD)).to_have_count(0)
    open_page(page, base_url + LESSON_02)
    expect(wait_for_lab(page).get_by_role("button", name=LOAD)).to_be_visible()


def test_walk_cards_number_the_steps_shown_when_a_walk_calls_leaves_between_them(page: Page, base_url: str) -> None:
    # A correct backward() in PyTorch's way (Kahn's algorithm) calls leaf c's step before d's.
    with_work(page, base_url, finished_up_to("L09") | {"L10.backward": KAHN_BACKWARD})
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    output = run_cell(page, 4)  # show_walk on lesson 09's example
    cards = output.locator(".ember-cards")
    expect(cards.locator(".ember-walk-order")).to_contain_text("L, e, c, d")
    titles = cards.locator(".ember-card-title").all_inner_texts()
    steps = [int(m.group(1)) for m in (re.match(r"step (\d+) ·", t) for t in titles) if m]
    assert steps == [1, 1, 2, 2, 3, 3], titles


# The rendered size of every tick label of every drawing in a cell's output: its font size times
# the scale at which its SVG is drawn.
TICK_SIZES = """(output) => [...output.querySelectorAll("svg")].flatMap((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll("text.ember-tick, text.ember-label")].map(
    (text) => parseFloat(getComputedStyle(text).fontSize) * scale);
})"""


def test_plot_and_heat_map_labels_stay_readable_on_a_phone(page: Page, base_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    with_work(page, base_url, finished_up_to("L03"))
    open_page(page, base_url + LESSON_01)
    wait_for_lab(page)
    for index in (1, 3):  # the secants, and the V of errors on log axes
        output = run_cell(page, index)
        expect(output.locator("svg text.ember-tick").first).to_be_attached()
        sizes = output.evaluate(TICK_SIZES)
        assert sizes and min(sizes) >= 11, sizes
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    open_page(page, base_url + LESSON_03)
    wait_for_lab(page)
    output = run_cell(page, 1)  # the heat map with gradient arrows
    expect(output.locator(".ember-field svg")).to_be_visible()
    sizes = output.evaluate(TICK_SIZES)
    assert sizes and min(sizes) >= 11, sizes


TINY_DEFAULT_STEP = """
def slope(f, x, h=1e-12):
    if h <= 0:
        raise ValueError("h must be positive")
    return (f(x + h) - f(x - h)) / (2 * h)
"""

# Each number in exponent form in the claims' names and messages, as the page shows it: its text, whether it is
# kept whole by its own element, and on how many lines it is drawn.
EXPONENT_NUMBERS = """(claims) => [...claims.querySelectorAll(".ember-claim-name, .ember-claim-message")]
  .flatMap((part) => {
  const found = [];
  const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/\\d(?:\\.\\d+)?e[-+]\\d+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      found.push({ text: match[0], whole: node.parentElement.classList.contains("ember-nowrap"), lines: tops.size });
    }
  }
  return found;
})"""


def test_a_number_like_1e_6_in_a_checks_message_stays_on_one_line_on_a_phone(page: Page, base_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, base_url + LESSON_01)
    wait_for_lab(page)
    type_into_gap(page, "L01.slope", TINY_DEFAULT_STEP)
    claims = run_checks(page)
    expect(claims.filter(has_text="your default step, h = 1e-12")).to_have_count(2)
    numbers = page.locator(".ember-claims").evaluate(EXPONENT_NUMBERS)
    texts = {number["text"] for number in numbers}
    assert {"1e-12", "1e-6", "1e-7", "1e-8", "1e-3", "2e-6"} <= texts, texts
    broken = [number for number in numbers if not number["whole"] or number["lines"] != 1]
    assert not broken, broken
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_trap_graph_fits_its_box_on_a_laptop(page: Page, base_url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    with_work(page, base_url, finished_up_to("L10"))
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    output = run_cell(page, 5)  # show_walk on the trap graph: the cards, then the graph
    picture = output.locator("svg.ember-dot")
    expect(picture).to_have_count(1)
    box = output.locator(".ember-graph .ember-figure")
    inside = box.evaluate("(f) => { const s = f.querySelector('svg').getBoundingClientRect();"
                          " const b = f.getBoundingClientRect();"
                          " return {right: s.right, box: b.right, scroll: f.scrollWidth, client: f.clientWidth}; }")
    assert inside["right"] <= inside["box"] + 0.5 and inside["scroll"] <= inside["client"] + 1, inside
    expect(picture.locator("g.node", has_text="c")).not_to_have_count(0)


def test_the_closing_box_keeps_previous_and_next_apart(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    links = wait_for_lab(page).locator(".ember-closing .ember-links li")
    expect(links).to_have_count(2)
    previous, following = links.nth(0), links.nth(1)
    expect(previous).to_contain_text("Previous: Many paths, one sum")
    expect(following).to_contain_text("Next: Trust, but verify")
    left, right = previous.bounding_box(), following.bounding_box()
    assert left and right and left["x"] + left["width"] < right["x"]
    open_page(page, base_url + LESSON_01)
    links = wait_for_lab(page).locator(".ember-closing .ember-links li")
    expect(links).to_have_count(1)
    expect(links.first).to_contain_text("Next: The chain rule")


def box_of(locator: Locator) -> FloatRect:
    """Where the element is drawn (it is on the page, and shown)."""
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return box


# The longest words each header indicator shows: while Python downloads, and while the course is saved.
LONGEST_BADGES = {"#ember-python": "Python: downloading 12.3 of 12.3 MB…", "#ember-offline": "Saving for offline: 100%"}


def test_the_headers_indicators_fit_a_phone_with_their_longest_words(offline_context: BrowserContext,
                                                                     base_url: str) -> None:
    """On a 390 px phone, Python's badge and the offline indicator fit in the header beside its buttons,
    whatever they say, in light and dark."""
    page = offline_context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url)  # without Python to wait for, the home page starts saving the course at once
    expect(page.locator("#ember-offline")).not_to_be_empty(timeout=60_000)
    page.locator('.ember-lessons li[data-lesson="L10"] a').click()  # Python's badge joins it on a lesson page
    expect(page.locator("#ember-python")).to_be_visible()
    expect(page.locator("#ember-offline")).to_be_visible()
    header = page.locator(".md-header")
    height = box_of(header)["height"]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for selector, words in LONGEST_BADGES.items():
            page.locator(selector).evaluate("(badge, words) => { badge.textContent = words; }", words)
        width, window = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert width <= window, f"{scheme}: the page is {width} px wide in a {window} px window"
        assert box_of(header)["height"] == height, scheme
        for selector in LONGEST_BADGES:
            box = box_of(page.locator(selector))
            assert box["x"] >= 0 and box["x"] + box["width"] <= window, (scheme, selector, box)
