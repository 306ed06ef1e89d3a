"""Time each Part I lab's checks in headless Chromium: Run checks click → every claim settled.

Run from the repository root with ``.venv/bin/python bench/part1_checks.py`` after building the
site for port 8008 (``EMBER_SITE_URL=http://127.0.0.1:8008/``). Each lab gets the finished pieces
typed into its gaps, then its checks are run five times; the script prints every run and the median.
The clock is the page's own (``performance.now()``), so Playwright's round trips are not counted.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for our imports
from labs.course.model import load_course
from site_tests.harness import built_for_port, launch, served
from site_tests.learner import type_into_gap, wait_for_lab

RUNS = 5
TIME_CHECKS = """async () => {
  const items = [...document.querySelectorAll('.ember-lab .ember-claims li')];
  const settled = () => items.every((li) => li.dataset.state === 'pass' || li.dataset.state === 'fail');
  const start = performance.now();
  document.querySelector('.ember-lab .md-button--primary').click();
  while (!settled()) await new Promise((done) => setTimeout(done, 2));
  return [performance.now() - start, items.filter((li) => li.dataset.state === 'pass').length, items.length];
}"""


def main() -> None:
    """Print the check times of every Part I lab."""
    course = load_course()
    (part,) = [part for part in course.parts if part.number == 1]
    with served(True, built_for_port()) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        page.goto(base)
        for lesson_id in part.lessons:
            page.locator(f'.ember-lessons li[data-lesson="{lesson_id}"] a').click()
            wait_for_lab(page)
            for gap_id in course.lesson(lesson_id).gaps:
                type_into_gap(page, gap_id, course.gaps[gap_id].finished)
            times = []
            for _ in range(RUNS):
                page.wait_for_timeout(200)
                ms, passed, total = page.evaluate(TIME_CHECKS)
                if passed != total:
                    raise SystemExit(f"{lesson_id}: only {passed} of {total} claims pass")
                times.append(ms)
            runs = " ".join(f"{ms:.0f}" for ms in times)
            print(f"{lesson_id}: {runs} ms, median {statistics.median(times):.0f} ms")
            page.goto(base)
        browser.close()


if __name__ == "__main__":
    main()
