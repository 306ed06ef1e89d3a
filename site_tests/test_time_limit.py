"""The checks' time limit in the page: through the interrupt buffer where the page is cross-origin
isolated (the learner's code runs unwatched), through sys.monitoring where it is not."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import LESSON_10
from .learner import RUN_MS, load_finished_pieces, open_page, run_cell, run_checks, type_into_gap, wait_for_lab

ENDLESS = "def backward(self) -> None:\n    while True:\n        pass\n"
MECHANISM = "import labs.timelimit\nprint(labs.timelimit.mechanism())"


def stop_an_endless_backward(page: Page, url: str) -> str:
    """Type a backward() that never returns, run the checks, and answer how Python watched it."""
    open_page(page, url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", ENDLESS)
    claims = run_checks(page)
    expect(claims.first).to_have_attribute("data-state", "fail", timeout=RUN_MS)
    expect(claims.first).to_contain_text("Is there a loop that never ends?")
    expect(claims.nth(1)).to_contain_text("Not run: the check before it had to be stopped.")
    from .learner import cell, replace_cell_code

    cell(page, 0).scroll_into_view_if_needed()
    replace_cell_code(page, 0, MECHANISM)
    return run_cell(page, 0).inner_text().strip()


def test_an_isolated_page_ends_a_runaway_check_through_the_interrupt_buffer(page: Page, base_url: str) -> None:
    assert page.evaluate("() => true")
    assert stop_an_endless_backward(page, base_url) == "interrupt"
    assert page.evaluate("() => crossOriginIsolated")


def test_a_page_without_isolation_watches_the_check_with_sys_monitoring(page: Page, plain_url: str) -> None:
    assert stop_an_endless_backward(page, plain_url) == "monitoring"
    assert not page.evaluate("() => crossOriginIsolated")
