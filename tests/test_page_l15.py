"""Lesson 15, broadcasting: its page says what its cells print, and its checks report a wrong-length rule
even through a walk that never checks lengths."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import pytest

from labs.checking.learner import finished_pieces, module_sources
from labs.checking.pipeline import check_lesson
from labs.course.model import load_course
from tests.pages_kit import PAGES, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()
TEXT = PAGES["L15"].read_text()


def cell_printing(outputs: Sequence[list[dict]], words: str) -> str:
    """What the one cell whose printed text holds ``words`` printed."""
    (found,) = [text_of(items) for items in outputs if words in text_of(items)]
    return found


def test_what_the_page_says_is_what_its_cells_print() -> None:
    outputs = page_outputs("L15")
    shares = cell_printing(outputs, "a.grad:")
    assert "b.grad: [3.0, 3.0, 3.0, 3.0]" in shares  # the answer of L15.grad_of_b
    weighted = cell_printing(outputs, "w summed over rows:")
    got, summed = (line.split(":", 1)[1].strip() for line in weighted.splitlines())
    assert got == summed
    refused = cell_printing(outputs, "ValueError")
    assert "gave 12 numbers for a parent of shape (4,), which holds 4" in refused
    axes = cell_printing(outputs, "summed over axis 0")
    right, wrong = (line.split(":", 1)[1].strip() for line in axes.splitlines())
    assert right != wrong and right.count(",") == wrong.count(",") == 2  # three numbers each, different
    engines = cell_printing(outputs, "largest difference from the Values")
    assert float(engines.rsplit(":", 1)[1]) < 1e-12
    three = cell_printing(outputs, "out.shape")
    assert "out.shape: (2, 4, 3)" in three
    assert "p.grad: [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]" in three and "q.grad: [21.0, 21.0, 21.0, 21.0]" in three
    assert "its gradient is their sum, 5.0" in TEXT and "its gradient is 21.0" in TEXT
    pictures = [item for items in outputs for item in items if item["kind"] == "broadcast"]
    column_row = next(item for item in pictures if item["title"] == "(3, 1) * (1, 4)")
    assert [o["summed"] for o in column_row["operands"]] == [[1], [0]]  # what the page says after it
    assert "`a` over axis 1, along each row, and `b`\nover axis 0" in TEXT


WALK_WITHOUT_CHECK = '''
def backward(self):
    order = toposort(self, lambda t: t._parents)
    for node in order:
        if node._parents:
            node.grad = [0.0] * len(node.data)
    self.grad = [1.0]
    for node in order:
        if node._backward is not None:
            for parent, grad in zip(node._parents, node._backward(node)):
                parent.grad = [p + g for p, g in zip(parent.grad, grad)]
'''

BINARY_WITHOUT_SUM = '''
def binary(self, other, op, f, da, db):
    other = as_tensor(other)
    shape = broadcast_shape(self.shape, other.shape)
    a = expand(self.data, self.shape, shape)
    b = expand(other.data, other.shape, shape)

    def rule(out):
        return ([g * da(x, y) for g, x, y in zip(out.grad, a, b)],
                [g * db(x, y) for g, x, y in zip(out.grad, a, b)])
    return Tensor.made([f(x, y) for x, y in zip(a, b)], shape, (self, other), op, rule)
'''


def test_a_rule_of_the_wrong_length_is_named_even_when_the_walk_checks_no_lengths() -> None:
    pieces = finished_pieces(COURSE, 15) | {"L14.backward": textwrap.dedent(WALK_WITHOUT_CHECK),
                                            "L15.binary": textwrap.dedent(BINARY_WITHOUT_SUM)}
    report = check_lesson("L15", module_sources(COURSE, "L15", pieces))
    result = next(r for r in report.results if r.claim == "L15.column_row")
    assert result.key == "length"
    named = "backward rule of '+' (output shape (3, 4)) gave 12 numbers for its parent a of shape (3, 1)"
    assert named in result.message
    assert "not summed back" in result.message


def test_that_walk_alone_passes_every_claim() -> None:
    pieces = finished_pieces(COURSE, 15) | {"L14.backward": textwrap.dedent(WALK_WITHOUT_CHECK)}
    report = check_lesson("L15", module_sources(COURSE, "L15", pieces))
    assert report.passed, [(r.claim, r.message) for r in report.results if not r.passed]
