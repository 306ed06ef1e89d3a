"""Lesson 10's Python start, cold and warm, in Chromium, Firefox and WebKit, in one run.

Run from the repository root with ``.venv/bin/python bench/engines.py [--rounds N] [--engines a,b]`` (the site
must be built into ``site/``; Firefox ESR, WebKitGTK's driver and Xvfb installed, as ``scripts/test.sh`` does).
Chromium is Debian's, driven by Playwright as in ``site_tests/harness.py``; Firefox and WebKit are driven over
WebDriver (``site_tests/webdriver_browsers.py``); ``webkit`` has SharedArrayBuffer on, as Safari has it on an
isolated page, ``webkit-plain`` is WebKitGTK's default.

Each round opens every engine in turn (so that a shared machine's drift hits them alike) on a fresh profile:
lesson 10 cold (navigation start → Python ready, on the page's own clock), then, once the page has stored
Python's memory snapshot, a reload (warm), noting how Python started ("snapshot" or "fresh"). The ready moment is
taken by a MutationObserver put in the page right after it loaded; a start that was ready before then (never seen
cold) counts the moment it was seen. Prints each engine's medians and their ratio to Chromium's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright

from site_tests.harness import LESSON_10, SITE, VIEWPORT, Server, launch
from site_tests.webdriver_browsers import ENGINES, browser_session, wait_for

# Resolves with when Python became ready (ms since navigation start), or when it was seen ready if it already was.
READY_JS = """
const done = arguments[arguments.length - 1];
const ready = () => document.documentElement.dataset.python === "ready";
if (ready()) return done({ ms: performance.now(), late: true });
const failed = () => document.documentElement.dataset.python === "failed";
new MutationObserver((_, observer) => {
  if (ready()) { observer.disconnect(); done({ ms: performance.now(), late: false }); }
  else if (failed()) { observer.disconnect(); done({ ms: null, late: false }); }
}).observe(document.documentElement, { attributes: true, attributeFilter: ["data-python"] });
"""
SNAPSHOT_STORED = "return localStorage.getItem('ember:snapshot')"
TIMEOUT_S = 240.0
PHASES = "return (window.emberRuntime && window.emberRuntime.bootInfo || {}).phases || {}"


@dataclass
class Times:
    cold: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)
    phases: dict = field(default_factory=dict)  # the last warm start's, on the worker's clock (worker.js's marks)
    late: int = 0


def measured(answer: dict, times: Times) -> float:
    if answer["ms"] is None:
        raise RuntimeError("Python failed to start")
    times.late += bool(answer["late"])
    return float(answer["ms"]) / 1000


def visit_webdriver(engine: str, url: str, times: Times) -> None:
    with browser_session(engine) as session:
        driver = session.driver
        driver.set_script_timeout(TIMEOUT_S)
        driver.get(url)
        times.cold.append(measured(driver.execute_async_script(READY_JS), times))
        wait_for(driver, SNAPSHOT_STORED, TIMEOUT_S, "the snapshot stored")
        driver.refresh()
        times.warm.append(measured(driver.execute_async_script(READY_JS), times))
        times.starts.append(driver.execute_script("return document.documentElement.dataset.pythonStart"))
        times.phases = driver.execute_script(PHASES)


def chromium_visitor() -> tuple[Callable[[str, Times], None], Callable[[], None]]:
    playwright = sync_playwright().start()
    browser = launch(playwright)
    in_page = READY_JS.replace("arguments[arguments.length - 1]", "resolve")
    as_promise = "() => new Promise((resolve) => {" + in_page + "})"

    def visit(url: str, times: Times) -> None:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = context.new_page()
            page.goto(url)
            times.cold.append(measured(page.evaluate(as_promise), times))
            page.wait_for_function(f"() => {{ {SNAPSHOT_STORED} }}", timeout=TIMEOUT_S * 1000)
            page.reload()
            times.warm.append(measured(page.evaluate(as_promise), times))
            times.starts.append(page.evaluate("document.documentElement.dataset.pythonStart"))
            times.phases = page.evaluate(f"() => {{ {PHASES} }}")
        finally:
            context.close()

    def close() -> None:
        browser.close()
        playwright.stop()

    return visit, close


def measure(url: str, engines: list[str], rounds: int) -> dict[str, Times]:
    """Every engine's cold and warm starts of the page at ``url``, ``rounds`` times, engines taking turns."""
    visit_chromium, close_chromium = chromium_visitor() if "chromium" in engines else (None, lambda: None)
    times = {engine: Times() for engine in engines}
    try:
        for number in range(rounds):
            for engine in engines:
                if engine == "chromium":
                    assert visit_chromium is not None  # made above when the engines include Chromium
                    visit_chromium(url, times[engine])
                else:
                    visit_webdriver(engine, url, times[engine])
                print(f"round {number + 1}, {engine}: cold {times[engine].cold[-1]:.2f} s, "
                      f"warm {times[engine].warm[-1]:.2f} s ({times[engine].starts[-1]})", flush=True)
    finally:
        close_chromium()
    return times


def table(times: dict[str, Times]) -> list[str]:
    """Each engine's median cold and warm start, its ratio to Chromium's, and how its warm starts began."""
    base = times.get("chromium")
    lines = [f"{'engine':<14}{'cold':>8}{'× Chromium':>12}{'warm':>8}{'× Chromium':>12}  warm starts from"]
    for engine, got in times.items():
        cold, warm = statistics.median(got.cold), statistics.median(got.warm)
        ratio_cold = f"{cold / statistics.median(base.cold):.2f}" if base else "-"
        ratio_warm = f"{warm / statistics.median(base.warm):.2f}" if base else "-"
        starts = ", ".join(sorted(set(got.starts)))
        late = f" ({got.late} seen late)" if got.late else ""
        lines.append(f"{engine:<14}{cold:>7.2f}s{ratio_cold:>12}{warm:>7.2f}s{ratio_warm:>12}  {starts}{late}")
    lines.append("\nthe last warm start's phases in the worker (ms from the boot request): ")
    for engine, got in times.items():
        marks = sorted(got.phases.items(), key=lambda mark: mark[1])
        lines.append(f"{engine:<14}" + ", ".join(f"{name} {ms}" for name, ms in marks))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default=",".join(("chromium", *ENGINES)))
    args = parser.parse_args()
    server = Server(SITE, isolate=True)
    load = os.getloadavg()
    began = time.monotonic()
    try:
        times = measure(server.url + LESSON_10, args.engines.split(","), args.rounds)
    finally:
        server.stop()
    end = os.getloadavg()
    print(f"\nlesson 10, navigation start → Python ready, median of {args.rounds} (a fresh profile each round); "
          f"load {load[0]:.2f} → {end[0]:.2f}; {time.monotonic() - began:.0f} s in all")
    print("\n".join(table(times)))


if __name__ == "__main__":
    main()
