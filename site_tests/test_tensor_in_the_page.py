"""The learner's tensor engine in the page's Python: long chains are built, walked and freed without a crash."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from labs.course.model import load_course

from .learner import load_finished_pieces, replace_cell_code, run_cell, wait_for_lab
from .test_journey import fill_every_gap

COURSE = load_course()

CHAIN = """from ember.tensor import Tensor

x = Tensor([1.0, 2.0])
y = x
for _ in range(20_000):
    y = (-y).tanh()
y.sum().backward()
print("walked", len(x.grad))
del y  # 40,000 tensors freed one after another
print("freed")
"""


def test_a_chain_of_40000_tensors_is_walked_and_freed_and_python_lives_on(page: Page, base_url: str) -> None:
    page.goto(base_url)
    page.locator('.ember-lessons li[data-lesson="L14"] a').click()
    wait_for_lab(page)
    load_finished_pieces(page)
    fill_every_gap(page, "L14")
    replace_cell_code(page, 0, CHAIN)
    output = run_cell(page, 0)
    expect(output).to_contain_text("walked 2")
    expect(output).to_contain_text("freed")
    replace_cell_code(page, 0, "print(sum(range(10)))")
    expect(run_cell(page, 0)).to_contain_text("45")
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "ready")
