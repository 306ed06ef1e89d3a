"""How open the course is, measured on the built site: axe-core's violations, keys to the lab, code contrast.

Run from the repository root with ``.venv/bin/python bench/access.py`` (the site must be built into ``site/``,
and ``npm`` must have installed axe-core, as the build does). It prints:

1. axe-core's violations by impact over home, hosting and the 18 lessons, each brought to the states a learner
   brings it to (the lab loaded, its checks run and failing, a question answered wrong then right, cells run
   until one draws, a step-through moved on), in the light and the dark scheme at 1280 and 390 px, and the
   rules behind them;
2. the key presses from the top of lesson 10 to the cursor in its lab's first gap, by keyboard alone;
3. the contrast of every colour of code against its own background (the code's, a gap's tint, a gap marker's
   tint) in both schemes, in the lab's editor, the example cells and the page's static code: the lowest ratio,
   and where.

The browser tests hold the first two to zero serious violations and three presses; this prints the figures.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from bench.learner_code import load_average, step
from labs.course.model import load_course
from labs.course.pages import lesson_page_files
from site_tests.harness import Scheme, launch, served, viewport_width

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LOOKS: list[tuple[Scheme, int]] = [("light", 1280), ("dark", 1280), ("light", 390), ("dark", 390)]
LESSONS = {lesson: f"lessons/{page.parent.name}/" for lesson, page in lesson_page_files().items()}
PAGES = {"home": "", "hosting": "hosting/", **LESSONS}
BOOT_MS = 120_000

VIOLATIONS = """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations.map(
  (v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.length, first: v.nodes[0].target.join(" ") }))"""
LOOKED = "Number(document.documentElement.dataset.emberScrollBoxes || 0)"
# Every coloured run of code text with its colour and the colour behind it (tints composited over what they
# cover), and the contrast between them, by WCAG's formula.
CODE_CONTRAST = """() => {
  const rgba = (text) => {
    const m = text.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) => top.map((c, i) => i < 3 ? c * top[3] + under[i] * (1 - top[3]) : 1);
  const behind = (e) => {
    const layers = [];
    for (let at = e; at; at = at.parentElement) {
      const bg = rgba(getComputedStyle(at).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const linear = (c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  const lum = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const found = [];
  const texts = document.querySelectorAll(
    ".cm-content span, .cm-content .cm-line, .cm-gutterElement, .highlight code span");
  for (const e of texts) {
    if (!e.textContent.trim() || !e.getClientRects().length) continue;
    const style = getComputedStyle(e);
    const bg = behind(e);
    const fg = over(rgba(style.color), bg);
    const where = e.closest(".cm-ember-gap") ? "gap" : e.closest(".cm-ember-marker") ? "marker"
      : e.closest(".cm-gutters") ? "line numbers" : e.closest(".ember-lab") ? "lab"
      : e.closest(".ember-cell") ? "cell" : "page";
    const text = e.textContent.slice(0, 20);
    found.push({ ratio: ratio(fg, bg), where, cls: e.className, colour: style.color, text });
  }
  return found;
}"""


def use_scheme(page: Page, scheme: Scheme) -> None:
    """The scheme as a learner gets it: the system's preference, or the header's toggle once the theme has stored
    a palette (it does on the first visit, and then a change of preference no longer reaches it)."""
    page.emulate_media(color_scheme=scheme)
    wanted = "slate" if scheme == "dark" else "default"
    if page.evaluate("document.body.dataset.mdColorScheme") != wanted:
        page.locator(f'label[title="Switch to the {scheme} theme"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", wanted)


def prepare(page: Page, lesson: str) -> None:
    """Bring a lesson to the states a learner brings it to (see the module's docstring)."""
    course = load_course()
    expect(page.locator(".ember-lab")).to_have_attribute("data-ready", "true", timeout=BOOT_MS)
    load = page.locator(".ember-lab").get_by_role("button", name="Load the finished pieces of earlier lessons")
    if load.count():
        load.click()
        expect(page.locator(".ember-lab .ember-notice")).to_contain_text("Loaded")
    page.locator(".ember-lab").get_by_role("button", name="Run checks").click()
    expect(page.locator('.ember-claims li[data-state="fail"]').first).to_be_visible(timeout=60_000)
    question = course.lesson(lesson).questions[0]
    holder = page.locator(f'.ember-question[data-question="{lesson}.{question.id}"]')
    wrong = next(option.id for option in question.options if option.id != question.answer)
    holder.locator(f'input[value="{wrong}"]').check()
    holder.locator(f'input[value="{question.answer}"]').check()
    expect(page.locator(".ember-cell .cm-editor")).to_have_count(page.locator(".ember-cell").count(), timeout=60_000)
    for index in range(min(page.locator(".ember-cell").count(), 6)):
        run = page.locator(".ember-cell").nth(index).get_by_role("button", name="Run", exact=True)
        run.click()
        expect(run).to_be_enabled(timeout=60_000)
        if page.locator(".ember-cell").nth(index).locator(".ember-output svg, .ember-output table").count():
            break
    stepper = page.locator(".ember-stepper").first
    if stepper.count():
        stepper.get_by_role("button", name="Next").click()


def violations(browser: Browser, base: str) -> tuple[collections.Counter, collections.Counter, dict]:
    """axe's violations (elements) by impact and by rule, over every page and look, each page in a browser profile
    of its own (the theme keeps a palette once stored, which would outlast a change of scheme), as the tests do;
    and the first element of each rule."""
    by_impact: collections.Counter = collections.Counter()
    by_rule: collections.Counter = collections.Counter()
    where: dict[str, str] = {}
    for name, path in PAGES.items():
        step(f"axe on {name}")
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(base + path)
        if name in LESSONS:
            prepare(page, name)
        page.evaluate(AXE.read_text())  # not a <script> of the page: its policy refuses inline script
        for scheme, width in LOOKS:
            use_scheme(page, scheme)
            if viewport_width(page) != width:
                looked = page.evaluate(LOOKED)
                page.set_viewport_size({"width": width, "height": 900})
                page.wait_for_function(f"() => {LOOKED} > {looked}")  # the page looks at its scroll boxes once settled
            page.wait_for_timeout(100)
            for found in page.evaluate(VIOLATIONS):
                by_impact[found["impact"]] += found["nodes"]
                by_rule[(found["rule"], found["impact"])] += found["nodes"]
                where.setdefault(found["rule"], f"{name}, {scheme} {width}: {found['first']}")
        context.close()
    return by_impact, by_rule, where


def keys_to_the_first_gap(page: Page, base: str) -> int:
    """Presses of Tab from the top of lesson 10 until the lab's first gap has the cursor (a skip link's Enter
    included), or -1 past 200."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(base + LESSONS["L10"])
    expect(page.locator(".ember-lab")).to_have_attribute("data-ready", "true", timeout=BOOT_MS)
    expect(page.locator(".ember-cell .cm-editor")).to_have_count(page.locator(".ember-cell").count(), timeout=60_000)
    in_gap = """() => Boolean(document.activeElement.closest('.ember-lab .cm-editor'))
      && Boolean(getSelection().anchorNode?.parentElement?.closest('.cm-ember-gap'))"""
    for presses in range(1, 201):
        focused = page.evaluate("(document.activeElement.textContent || '').trim()")
        key = "Enter" if focused == "Skip to the lab" else "Tab"
        if page.evaluate("Boolean(document.activeElement.closest('.cm-editor'))") and key == "Tab":
            page.keyboard.press("Escape")
        page.keyboard.press(key)
        if page.evaluate(in_gap):
            return presses
    return -1


def code_contrast(page: Page, base: str) -> dict[str, dict]:
    """The lowest contrast of code text against its background, per scheme, on lesson 10 with its cells run."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(base + LESSONS["L10"])
    prepare(page, "L10")
    lowest = {}
    for scheme in ("light", "dark"):
        use_scheme(page, scheme)
        page.wait_for_timeout(100)
        runs = page.evaluate(CODE_CONTRAST)
        lowest[scheme] = min(runs, key=lambda run: run["ratio"]) | {"runs": len(runs)}
    return lowest


def main() -> None:
    print(f"# bench/access.py, load average {load_average()}")
    with served(isolate=True) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        by_impact, by_rule, where = violations(browser, base)
        presses = keys_to_the_first_gap(browser.new_context().new_page(), base)
        contrast = code_contrast(browser.new_context().new_page(), base)
        browser.close()
    looks = len(PAGES) * len(LOOKS)
    print(f"axe-core violations over {len(PAGES)} pages × {len(LOOKS)} looks ({looks} scans), by impact (elements):")
    for impact in ("critical", "serious", "moderate", "minor"):
        print(f"  {impact}: {by_impact.get(impact, 0)}")
    for (rule, impact), count in by_rule.most_common():
        print(f"    {count:5d}  {impact:9s} {rule} (first: {where[rule]})")
    print(f"key presses from the top of lesson 10 to the cursor in its lab's first gap: {presses}")
    for scheme, run in contrast.items():
        print(f"lowest contrast of code text, {scheme}: {run['ratio']:.2f}:1 ({run['where']}, {run['cls'] or 'plain'}, "
              f"{run['colour']}, '{run['text']}'; {run['runs']} runs of text measured)")


if __name__ == "__main__":
    main()
