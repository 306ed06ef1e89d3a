"""The checks' time limit in the page: through the interrupt buffer where the page is cross-origin
isolated (the learner's code runs unwatched), through sys.monitoring where it is not."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .learner import RUN_MS, cell, check_a_backward, replace_cell_code, run_cell

pytestmark = pytest.mark.alone  # it times checks: with nothing else running (the test command's second phase)

ENDLESS = "def backward(self) -> None:\n    while True:\n        pass\n"
MECHANISM = "import labs.checking.timelimit\nprint(labs.checking.timelimit.mechanism())"


def stop_an_endless_backward(page: Page, url: str) -> str:
    """Type a backward() that never returns, run the checks, and answer how Python watched it."""
    claims = check_a_backward(page, url, ENDLESS)
    expect(claims.first).to_have_attribute("data-state", "fail", timeout=RUN_MS)
    expect(claims.first).to_contain_text("Is there a loop that never ends?")
    expect(claims.nth(1)).to_contain_text("Not run: the check before it had to be stopped.")
    cell(page, 0).scroll_into_view_if_needed()
    replace_cell_code(page, 0, MECHANISM)
    return run_cell(page, 0).inner_text().strip()


def test_an_isolated_page_ends_a_runaway_check_through_the_interrupt_buffer(page: Page, base_url: str) -> None:
    assert stop_an_endless_backward(page, base_url) == "interrupt"
    assert page.evaluate("() => crossOriginIsolated")


def test_a_page_without_isolation_watches_the_check_with_sys_monitoring(page: Page, plain_url: str) -> None:
    assert stop_an_endless_backward(page, plain_url) == "monitoring"
    assert not page.evaluate("() => crossOriginIsolated")
