"""Lesson 14's page says what its runs show, and asks before it shows."""

from __future__ import annotations

import re

import pytest

from tests.test_part2_pages import PAGES, page_outputs, position, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs


@pytest.mark.parametrize("question, reveal", [
    ("L14.value_nodes", "value_nodes = len(toposort("),
    ("L14.flat_index", 'print("data: ", t.data)'),
    ("L14.grad_shape", "y.backward()"),
    ("L14.negative_grad", "heat=True"),
])
def test_a_prediction_comes_before_the_cell_that_shows_the_answer(question: str, reveal: str) -> None:
    assert position("L14", f"```ember-question\n{question}\n```") < position("L14", reveal)


def test_the_values_and_the_tensors_agree_and_the_tensor_graph_is_far_smaller() -> None:
    outputs = page_outputs("L14")
    printed = text_of(outputs[0])
    losses = re.search(r"loss: ([\d.]+) with Values, ([\d.]+) with tensors", printed)
    assert losses and losses.group(1) == losses.group(2)
    gap = float(re.search(r"between the two gradients: (\S+)", printed).group(1))
    assert gap < 1e-12
    (table,) = [item for item in outputs[0] if item["kind"] == "table"]
    nodes = next(row for row in table["rows"] if row[0] == "nodes in the graph")
    value_nodes, tensor_nodes = (int(n.replace(",", "")) for n in nodes[1:])
    assert 1000 < value_nodes < 10_000 and tensor_nodes < value_nodes / 50  # "a few thousand" against a handful


def test_each_row_of_the_gradient_is_negative_exactly_where_a_byte_followed() -> None:
    """The prose: negative where a byte really followed, a little positive elsewhere; row m has two negatives."""
    outputs = page_outputs("L14")
    (heat,) = [item for item in outputs[-1] if item["kind"] == "tensor"]
    followed = {"e": {"m"}, "m": {"m", "a"}, "a": {"⏎"}, "⏎": {"o"}, "o": {"l"}, "l": {"i"}, "i": {"v"}}
    assert sorted(heat["row_labels"]) == sorted(followed)
    for label, row in zip(heat["row_labels"], heat["values"]):
        negative = {column for column, value in zip(heat["col_labels"], row) if value < 0}
        assert negative == followed[label], label
        assert all(value > 0 for column, value in zip(heat["col_labels"], row) if column not in negative)
    assert re.search(r"Row `m`\s+has two negative cells", PAGES["L14"].read_text())
