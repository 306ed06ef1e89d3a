"""The learner's tensor engine in the page's Python: long chains are built, walked and freed without a crash, and
lesson 15's lab opens the learner's work in the file each of its gaps is in."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from labs.course.model import load_course
from tests.test_tensor_files import MINE_SHAPE, MINE_UNBROADCAST, SAVED

from .learner import go_to_gap, load_finished_pieces, open_page, replace_cell_code, run_cell, wait_for_lab
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


def test_work_saved_for_lesson_15s_shape_gaps_opens_in_ember_shapes_py(page: Page, base_url: str) -> None:
    """Work saved while those gaps were in ember/tensor.py: the lab edits ember/shapes.py and ember/tensor.py, the
    saved code is in shapes.py's editor, and the download of ember/shapes.py holds it byte for byte."""
    page.goto(base_url + "hosting/")
    page.evaluate("raw => { localStorage.clear(); localStorage.setItem('ember:v1', raw); }", json.dumps(SAVED))
    open_page(page, base_url + "lessons/15-broadcasting/")
    wait_for_lab(page)
    expect(page.locator(".ember-lab .ember-file-name code")).to_have_text(["ember/shapes.py", "ember/tensor.py"])
    shapes = go_to_gap(page, "L15.unbroadcast")
    expect(shapes).to_contain_text("# mine, trailing spaces kept")
    expect(shapes).to_have_attribute("aria-label", "ember/shapes.py, gaps L15.broadcast_shape, L15.unbroadcast "
                                     "editable; the rest of the file is read-only")
    with page.expect_download() as download:
        page.locator(".ember-lab").get_by_role("button", name="Download my ember/shapes.py").click()
    source = download.value.path().read_text(encoding="utf-8")
    assert MINE_UNBROADCAST in source and MINE_SHAPE.rstrip("\n") in source
