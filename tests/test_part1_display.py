"""Part I's drawings: the heat map with arrows, and the step-through of a learner's sort."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from ember.graph import toposort
from hx.dag import Dag, sort_trace
from labs.showing.display import Display

RECIPE: dict[Hashable, list[Hashable]] = {
    "serve": ["bake", "tea"], "bake": ["mix", "oven"], "mix": ["eggs"], "tea": [], "oven": [], "eggs": []}


def test_the_walk_records_every_call_of_parents_and_the_returned_order() -> None:
    trace = sort_trace(toposort, "serve", RECIPE.__getitem__)
    assert len(trace.calls) == len(RECIPE)
    assert trace.error is None and trace.verdict.startswith("A valid order")
    events = trace.events()
    assert len(events) == len(trace.calls) + len(RECIPE) + 1
    assert events[0]["text"] == "Call 1: your sort asks parents(serve) and gets bake, tea."
    panels = events[-1]["panels"]
    assert isinstance(panels, list) and panels[1][1][0] == "serve"


def test_a_wrong_order_and_a_raising_sort_are_reported_not_raised() -> None:
    def backwards(root, parents):
        return toposort(root, parents)[::-1]

    assert sort_trace(backwards, "serve", RECIPE.__getitem__).verdict.startswith("Not a valid order")

    def broken(root, parents):
        raise KeyError("oops")

    trace = sort_trace(broken, "serve", RECIPE.__getitem__)
    assert trace.error == "Your sort raised KeyError: 'oops'"

    def not_written(root, parents):
        raise NotImplementedError("L06.toposort: not yet")

    with pytest.raises(NotImplementedError):
        sort_trace(not_written, "serve", RECIPE.__getitem__)


def test_a_walk_that_follows_paths_is_stopped() -> None:
    def paths(root, parents):
        order, stack = [], [root]
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(parents(node))
        return order

    def two_paths_down(k: Hashable) -> list[Hashable]:
        assert isinstance(k, int)
        return [k - 1, k - 1] if k > 0 else []

    trace = sort_trace(paths, 30, two_paths_down)
    assert trace.error is not None and "follows paths" in trace.error


def test_node_names_are_quoted_literally_in_the_picture() -> None:
    dot = Dag.from_root('a"b\\', lambda node: []).to_dot()
    assert 'n0 [label="a\\"b\\\\"];' in dot


def test_the_field_holds_a_grid_of_values_and_the_arrows() -> None:
    items: list[dict] = []
    Display(items.append).show_field(lambda p: p[0] * p[1], (-1, 1, -1, 1), [((0.5, 0.5), (0.5, 0.5))],
                                     resolution=4, title="xy")
    (item,) = items
    assert item["kind"] == "field" and len(item["values"]) == 16
    assert item["arrows"] == [[0.5, 0.5, 0.5, 0.5]]
    assert item["low"] < 0 < item["high"]
    assert item["alt"].endswith("with 1 arrow")  # the count agrees with its noun
