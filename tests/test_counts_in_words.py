"""A count of one takes the singular, in what the page draws and in what the lessons' cells print."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from ember.scalar import Value
from labs.checking.learner import finished_pieces
from labs.course.words import counted
from labs.showing.display import Display
from labs.showing.render import item_html

from .pages_kit import COURSE, PAGES, fences, learner_session


def test_counted_agrees_with_its_number() -> None:
    assert counted(1, "node") == "1 node"
    assert counted(0, "node") == "0 nodes"
    assert counted(2, "backward edge") == "2 backward edges"
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
    assert counted(12_000, "line", separators=True) == "12,000 lines"
    assert counted("?", "node") == "? nodes"


def test_a_graph_with_one_backward_edge_says_edge() -> None:
    a = Value(2.0, label="a")
    out = a.relu()
    out.label = "out"
    items: list[dict] = []
    Display(items.append).show(out, title="one step")
    (item,) = items
    page = item_html(item, lambda dot: "<svg></svg>")
    assert "2 nodes, 1 backward edge<" in page
    assert 'aria-label="one step: 2 nodes and 1 backward edge,' in page
    assert "1 backward edges" not in page


def test_lesson_12s_network_has_one_linear_neuron_not_neurons() -> None:
    (code,) = [code for code in fences(PAGES["L12"], "ember-cell") if "enumerate(model.layers" in code]
    pieces = finished_pieces(COURSE, COURSE.lesson("L12").number)
    with tempfile.TemporaryDirectory(prefix="ember-page-") as folder, learner_session(Path(folder)) as session:
        result = json.loads(session.handle("run", json.dumps({"page": PAGES["L12"].name, "lab": "L12",
                                                              "pieces": pieces, "code": code})))
    assert result["error"] is None, result["error"]
    printed = "".join(item["text"] for item in result["outputs"] if item["kind"] == "stdout")
    assert "layer 1: 8 relu neurons, 24 parameters" in printed, printed
    assert "layer 3: 1 linear neuron, 9 parameters" in printed, printed
    assert "1 linear neurons" not in printed
