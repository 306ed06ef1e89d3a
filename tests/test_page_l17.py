"""Lesson 17: the fused cross-entropy of the finished engine, and the page's numbers from its runs."""

from __future__ import annotations

import math
import re

import pytest

from ember.tensor import Tensor
from labs.checking.learner import finished_pieces, module_sources
from labs.checking.pipeline import check_lesson
from labs.course.model import load_course
from tests.pages_kit import PAGES, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()


def test_a_target_outside_the_row_is_refused_instead_of_misplacing_its_gradient() -> None:
    logits = Tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    for targets in ([0, -1], [0, 3]):
        with pytest.raises(IndexError, match=f"target {targets[1]}"):
            logits.cross_entropy(targets)


# --- the page: predictions before what answers them, and prose that says what its runs show ---



def question(name: str) -> str:
    return f"```ember-question\nL17.{name}\n```"


def tables(outputs: list[dict]) -> list[dict]:
    return [item for item in outputs if item["kind"] == "table"]


def test_no_heading_gives_a_prediction_away() -> None:
    headings = [h.lower() for h in re.findall(r"^#+ (.*)$", PAGES["L17"].read_text(), re.MULTILINE)]
    assert not [h for h in headings if "overflow" in h or "same" in h or "onehot" in h or "one-hot" in h]


def test_the_pages_words_match_what_its_cells_print_and_draw() -> None:
    outputs = page_outputs("L17")
    # cell 1: the third row has the smallest loss and the last the largest, as the prose says
    losses = [float(line.rsplit("= ", 1)[1]) for line in text_of(outputs[0]).splitlines()]
    assert losses.index(min(losses)) == 2 and losses.index(max(losses)) == 3
    assert any(item["kind"] == "tensor" and item["heat"] for item in outputs[0])
    # cell 3: backward's gradient is (softmax - onehot)/n, negative only at each row's target
    lines = text_of(outputs[2]).splitlines()
    assert float(lines[0].rsplit(": ", 1)[1]) < 1e-12
    assert [line.split(" target ", 1)[1].split(":")[0] for line in lines[1:]] == ["'a'", "'n'", "'m'", "'.'"]
    assert all(line.endswith(f"negative at [{line.split(' target ', 1)[1].split(':')[0]}]") for line in lines[1:])
    # cell 4: the spelled-out form overflows at logits of 1000
    ((_, spelled), _) = tables(outputs[3])[0]["rows"]
    assert spelled.startswith("OverflowError")
    # cell 5: the shift changes nothing where both forms work
    printed = text_of(outputs[4])
    assert "target 1: loss 1.74131" in printed and "without the shift: 1.74131" in printed
    # cell 6: tensor nodes stay put while Value nodes grow with n·v (the node_count question)
    nodes, times = tables(outputs[5])
    rows = nodes["rows"]
    assert len({row[2] for row in rows}) == 1 and [int(row[1]) for row in rows] == [108, 864, 6912]
    value_nodes = [int(row[3]) for row in rows]
    assert value_nodes == sorted(value_nodes) and value_nodes[-1] > 100 * int(rows[-1][2])
    assert [row[0] for row in times["rows"]] == [row[0] for row in rows]
    # cells 7 and 8: the fused graph has 2 nodes, the spelled-out one the count of cell 2, same numbers
    ((_, fused_nodes, fused_value), (_, spelled_nodes, spelled_value)) = tables(outputs[6])[0]["rows"]
    assert (fused_nodes, spelled_nodes) == ("2", "11") and fused_value == spelled_value
    assert "nodes: 11" in text_of(outputs[1])
    assert float(text_of(outputs[6]).rsplit(": ", 1)[1]) < 1e-12
    assert "[(11, 2), (11, 2), (11, 2)]" in text_of(outputs[7])
    # "the fused one stays below": faster at every batch size
    assert all(float(spelled) > float(fused) for _, spelled, fused, _ in tables(outputs[7])[0]["rows"])
    # cell 9: the fused loss is finite at logits of ±1000, all of it the second row's; the first row's gradient is 0
    loss = float(text_of(outputs[8]).split("= ", 1)[1])
    assert loss == pytest.approx((2000 + math.log(1 + math.exp(-1))) / 2)
    (grad,) = [item for item in outputs[8] if item["kind"] == "tensor"]
    assert all(float(cell) == 0.0 for cell in grad["cells"][0])


def test_the_your_turn_prose_leaves_the_steps_to_the_hints() -> None:
    text = PAGES["L17"].read_text()
    assert text.index("## Your turn") < text.index("```ember-lab")
    turn = text[text.index("## Your turn"):text.index("```ember-lab")]
    assert "max(" not in turn and "Tensor.made" not in turn and "out.grad[0]" not in turn


def test_the_heat_map_is_described_in_words_true_in_both_colour_schemes() -> None:
    assert "darker" not in PAGES["L17"].read_text()


LOG_OF_ZERO = '''
def cross_entropy(self, targets):
    n, v = self.shape
    for r, t in enumerate(targets):
        row = self.data[r * v:(r + 1) * v]
        if math.exp(row[t] - max(row)) == 0.0:
            raise ValueError(MESSAGE)
    return Tensor.made([0.0], (), (self,), "cross_entropy", lambda out: ([0.0] * (n * v),))
'''


@pytest.mark.parametrize("message", ["math domain error", "expected a positive input, got 0.0"])
def test_a_log_of_zero_is_named_whichever_python_words_it(message: str) -> None:
    """CPython 3.11 says "math domain error" for math.log(0.0); the page's Python 3.14 says otherwise."""
    piece = LOG_OF_ZERO.replace("MESSAGE", repr(message))
    sources = module_sources(COURSE, "L17", finished_pieces(COURSE, 17) | {"L17.cross_entropy": piece})
    (stable,) = [r for r in check_lesson("L17", sources, course=COURSE).results if r.claim == "L17.stable"]
    assert (stable.passed, stable.key) == (False, "underflow"), stable.message
