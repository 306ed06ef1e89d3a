"""Lesson 14's page says what its runs show, in code that fits the editor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labs.course.model import load_course
from labs.course.pages import FENCE
from tests.pages_kit import PAGES, group_of, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()
TEXT = PAGES["L14"].read_text()
ROOT = Path(__file__).resolve().parent.parent


def cell_printing(words: str) -> int:
    """The index of the one cell whose printed text holds ``words``."""
    (found,) = [k for k, items in enumerate(page_outputs("L14")) if words in text_of(items)]
    return found


def test_the_values_step_alone_comes_first_and_both_engines_agree_after_the_lab() -> None:
    outputs = page_outputs("L14")
    (values_table,) = [item for item in outputs[0] if item["kind"] == "table"]
    first_nodes = next(row for row in values_table["rows"] if row[0] == "nodes in the graph")[1]
    both = outputs[cell_printing("with tensors")]
    printed = text_of(both)
    losses = re.search(r"loss: ([\d.]+) with Values, ([\d.]+) with tensors", printed)
    assert losses and losses.group(1) == losses.group(2)
    assert f"loss: {losses.group(1)}" in text_of(outputs[0])  # the same step as the first cell's
    gap = float(group_of(r"between the two gradients: (\S+)", printed))
    assert gap < 1e-12
    (table,) = [item for item in both if item["kind"] == "table"]
    nodes = next(row for row in table["rows"] if row[0] == "nodes in the graph")
    assert nodes[1] == first_nodes
    value_nodes, tensor_nodes = (int(n.replace(",", "")) for n in nodes[1:])
    assert 1000 < value_nodes < 10_000 and tensor_nodes < value_nodes / 50  # "a few thousand" against a handful


def test_a_plain_number_meets_only_a_tensor_of_shape_empty() -> None:
    """The page: `t * 2.5` works when t has shape (); (1,) is refused in this lesson."""
    printed = text_of(page_outputs("L14")[cell_printing("Tensor(-1.5) * 2.5")])
    assert "Tensor(-1.5) * 2.5 = -3.75" in printed
    assert re.search(r"ValueError: .*\(1,\).*\(\)", printed)
    assert "works when `t` has shape `()`" in TEXT


def test_the_drawn_columns_are_every_byte_of_the_file() -> None:
    outputs = page_outputs("L14")
    printed = text_of(outputs[-1])
    count = int(group_of(r"(\d+) different bytes occur in the file", printed))
    (heat,) = [item for item in outputs[-1] if item["kind"] == "tensor"]
    assert len(heat["col_labels"]) == count
    text = (ROOT / "labs" / "data" / "names.txt").read_bytes()
    assert count == len(set(text)) < 256


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
    assert re.search(r"Row `m`\s+has two negative cells", TEXT)


def test_the_code_a_learner_reads_fits_the_editor() -> None:
    """The page's cells, the lab's starters and hints' code, and lesson 14's pieces of ember/tensor.py."""
    for kind, body in FENCE.findall(TEXT):
        if kind == "ember-cell":
            assert all(len(line) <= 88 for line in body.splitlines()), body
    for gap_id in COURSE.lesson("L14").gaps:
        gap = COURSE.gaps[gap_id]
        for line in (gap.starter or "").splitlines() + gap.finished.splitlines():
            assert len(line) <= 92, (gap_id, line)
    source = (ROOT / "ember" / "tensor.py").read_text()
    for gap_id in ("L14.unary", "L14.backward"):
        region = source.split(f"# --- gap {gap_id} ---")[1].split("# --- end gap ---")[0]
        assert all(len(line) <= 92 for line in region.splitlines()), gap_id
    check = source[source.index("def check_grad"):].split("\n\n\n")[0]
    assert all(len(line) <= 92 for line in check.splitlines())
