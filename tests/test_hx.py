"""Tests of hx: the graph model, the tables, the DOT drawing and the two lesson-10 traces."""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TypeVar

import graphviz
import pytest

import hx
from ember.scalar import Value
from hx.dot import dot_string, record_text
from hx.fmt import MISSING, escape_html, fmt
from hx.trace import EdgeStep

T = TypeVar("T")
SNAPSHOTS = Path(__file__).parent / "snapshots"
SVG_TEXT = "{http://www.w3.org/2000/svg}text"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz `dot` program is not installed")


def trap_graph() -> tuple[Value, ...]:
    """Lesson 10's trap graph: w = 2; x = w*w; e = x*3; d = e*2; c = x + d (labelled, not yet run backward)."""
    w = Value(2.0)
    w.label = "w"
    x = w * w
    x.label = "x"
    e = x * 3
    e.label = "e"
    d = e * 2
    d.label = "d"
    c = x + d
    c.label = "c"
    return w, x, e, d, c


def chain(n: int) -> tuple[Value, Value]:
    """x and y = x + 1 + 1 + ... (n additions): 2n + 1 Values."""
    x = Value(1.0)
    y = x
    for _ in range(n):
        y = y + 1
    return x, y


def check_snapshot(name: str, text: str) -> None:
    """Compare text with tests/snapshots/<name>; EMBER_UPDATE_SNAPSHOTS=1 writes it instead."""
    path = SNAPSHOTS / name
    if os.environ.get("EMBER_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"missing snapshot {path}; run with EMBER_UPDATE_SNAPSHOTS=1 to write it")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True), text.splitlines(keepends=True), f"snapshots/{name}", "now"
        )
        pytest.fail("snapshot differs (EMBER_UPDATE_SNAPSHOTS=1 rewrites it):\n" + "".join(diff))


class Hostile:
    """A learner's Value that is not ember's, whose repr, hash, ==, bool and str all raise."""

    label: str  # given to some

    def __init__(self, data: float, _prev: tuple = (), _op: str = "") -> None:
        self.data = data
        self.grad = 0.0
        self._prev = _prev
        self._op = _op
        self._backward = lambda: None

    def __repr__(self) -> str:
        raise RuntimeError("repr called")

    def __str__(self) -> str:
        raise RuntimeError("str called")

    def __hash__(self) -> int:
        raise RuntimeError("hash called")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("== called")

    def __bool__(self) -> bool:
        raise RuntimeError("bool called")

    def __mul__(self, other: Hostile) -> Hostile:
        out = Hostile(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __add__(self, other: Hostile) -> Hostile:
        out = Hostile(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out


# --- the graph model ---


def share_of(edge: EdgeStep) -> float:
    """What an edge's backward call sent to its input (a number, in these graphs)."""
    assert edge.share is not None
    return edge.share


def test_trap_graph_table_rows_after_backward() -> None:
    *_, c = trap_graph()
    c.backward()
    rows = [(n.name, n.op, n.data, n.grad) for n in hx.Graph.from_root(c).nodes]
    assert rows == [
        ("#0", "", 2.0, 12.0),  # the 2 wrapped by d = e*2: found first, walking from c
        ("#1", "", 3.0, 8.0),  # the 3 wrapped by e = x*3
        ("w", "", 2.0, 28.0),
        ("x", "*", 4.0, 7.0),
        ("e", "*", 12.0, 2.0),
        ("d", "*", 24.0, 1.0),
        ("c", "+", 28.0, 1.0),
    ]


def test_order_is_topological_with_root_last() -> None:
    *_, c = trap_graph()
    graph = hx.Graph.from_root(c)
    for node in graph.nodes:
        assert all(j < node.index for j in node.inputs)
    assert graph.root.name == "c"
    assert graph.node("c").input_names == ("x", "d")


def test_order_is_deterministic() -> None:
    first = [(n.name, n.op, n.data, n.inputs) for n in hx.Graph.from_root(trap_graph()[-1]).nodes]
    second = [(n.name, n.op, n.data, n.inputs) for n in hx.Graph.from_root(trap_graph()[-1]).nodes]
    assert first == second


def test_unnamed_nodes_are_numbered_and_a_reused_node_appears_once() -> None:
    a = Value(3.0)
    y = a * a + a
    graph = hx.Graph.from_root(y)
    assert [n.name for n in graph.nodes] == ["#0", "#1", "#2"]
    assert [n.op for n in graph.nodes] == ["", "*", "+"]
    assert graph.node("#1").inputs == (0, 0)  # x*x: one node, two edges
    assert graph.total_edges == 4
    assert [(e.input, e.output, e.position) for e in graph.edges()] == [(0, 1, 0), (0, 1, 1), (1, 2, 0), (0, 2, 1)]


def test_auto_names_skip_labels_already_taken() -> None:
    a = Value(1.0, label="#0")
    y = a + 2
    assert [n.name for n in hx.Graph.from_root(y).nodes] == ["#1", "#0", "#2"]


def sigmoid_loss(fused: bool, y: Value | float) -> Value:
    """L = (sigmoid(w*x + b) - y)**2 at w = 0.5, x = 2, b = -1; sigmoid fused or spelled out."""
    w, x, b = Value(0.5), Value(2.0), Value(-1.0)
    z = w * x + b
    s = z.sigmoid() if fused else 1 / (1 + (-z).exp())
    return (s - y) ** 2


@pytest.mark.parametrize(
    ("fused", "y", "edges"),
    [
        # ember's graph really holds these (s - y is s + (y * -1); 1/t is 1 * t**-1; constants are wrapped)
        (True, 1.0, 8),
        (False, 1.0, 15),
        (True, Value(1.0), 10),
        (False, Value(1.0), 17),
    ],
)
def test_backward_edges_of_fused_and_spelled_out_sigmoid(fused: bool, y: Value | float, edges: int) -> None:
    graph = hx.Graph.from_root(sigmoid_loss(fused, y))
    assert graph.total_edges == edges
    values = [v for v in graph.values if isinstance(v, Value)]
    assert len(values) == len(graph.values) and graph.total_edges == sum(len(v._prev) for v in values)


# --- formatting and tables ---


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (28.0, "28"), (-0.125, "-0.125"), (1e-07, "1e-07"), (0.1 + 0.2, "0.3"), (-0.0, "0"), (7, "7"),
        (float("nan"), "nan"), (float("-inf"), "-inf"), (True, "True"), (None, "None"), ("2", "'2'"),
        (MISSING, "?"), (Value(1.0), "<Value>"), ([1, 2], "<list>"), (10**400, "huge int"),
    ],
)
def test_fmt(value: object, text: str) -> None:
    assert fmt(value) == text


def test_trap_table_text_snapshot() -> None:
    *_, c = trap_graph()
    c.backward()
    check_snapshot("trap_table.txt", hx.node_table_text(c))


def test_table_without_grads() -> None:
    *_, c = trap_graph()
    text = hx.node_table_text(c, grads=False)
    assert "gradient" not in text and "gradient" not in hx.node_table_html(c, grads=False)
    assert text.splitlines()[0].split() == ["node", "op", "value"]


def test_table_html() -> None:
    *_, c = trap_graph()
    c.backward()
    page = hx.node_table_html(c)
    assert page.startswith('<table class="hx-table">')
    assert "<tr><td>w</td><td></td><td class=\"hx-num\">2</td><td class=\"hx-num\">28</td></tr>" in page
    ET.fromstring(page)  # well-formed


NASTY = '<b>&"x"'


def test_labels_are_escaped_in_html() -> None:
    w = Value(2.0, label=NASTY)
    y = w * 3
    y._op = "<op>"
    page = hx.node_table_html(y)
    assert "&lt;b&gt;&amp;&quot;x&quot;" in page and "&lt;op&gt;" in page
    assert NASTY not in page and "<op>" not in page
    cells = [td.text or "" for td in ET.fromstring(page).iter("td")]
    assert NASTY in cells and "<op>" in cells


def test_junk_a_learner_stores_is_shown_safely() -> None:
    v = Value(1.0)
    v.data = "<script>"  # type: ignore[assignment]  # junk, as a learner's code might store
    v.grad = Value(5.0)  # type: ignore[assignment]  # a Value where a number belongs: shown by type, not its repr
    text = hx.node_table_text(v)
    assert "'<script>'" in text and "<Value>" in text
    assert "&lt;script&gt;" in hx.node_table_html(v)


# --- DOT and SVG ---


def test_trap_dot_snapshot() -> None:
    *_, c = trap_graph()
    c.backward()
    check_snapshot("trap_graph.dot", hx.to_dot(c))


def test_dot_shape_of_the_drawing() -> None:
    *_, c = trap_graph()
    source = hx.to_dot(c)
    assert "rankdir=LR" in source
    assert '\tn2 [label="{ w | data 2 | grad 0 }"]' in source
    assert source.count("shape=ellipse") == 4  # one op node per non-leaf Value
    assert source.count("n2 -> n3op") == 2  # x = w*w: both edges drawn
    assert "grad" not in hx.to_dot(c, grads=False).replace("fontsize", "")


def test_dot_edge_labels_by_name_index_and_slot() -> None:
    *_, c = trap_graph()
    source = hx.to_dot(c, edge_labels={("x", "c"): "1", (4, 5): 2.0, ("w", "x", 1): "second"})
    assert '\tn3 -> n6op [label="1"]' in source
    assert '\tn4 -> n5op [label="2"]' in source
    assert source.count("n2 -> n3op\n") == 1 and '\tn2 -> n3op [label="second"]' in source


def test_dot_string_quotes_as_the_graphviz_package_does() -> None:
    for text in [NASTY, 'a\\b', 'end\\', '\\"', 'two words', '<html>', "tab\there"]:
        escaped = graphviz.escape(text)
        assert dot_string(escaped) == graphviz.quoting.quote(escaped)


def test_record_text_escapes_record_syntax() -> None:
    assert record_text("w") == "w"
    assert record_text("{a|b}<c>\\") == "\\{a\\|b\\}\\<c\\>\\\\"
    assert record_text("a\nb") == "a\\\\nb"  # a line break is shown as the two characters \n


@needs_dot
def test_svg_renders() -> None:
    *_, c = trap_graph()
    c.backward()
    svg = hx.to_svg(c)
    assert svg is not None and "<svg" in svg
    texts = [t.text for t in ET.fromstring(svg).iter(SVG_TEXT)]
    assert "w" in texts and "grad 28" in texts and "data 24" in texts


@needs_dot
def test_nasty_labels_render_literally() -> None:
    labels = [NASTY, "{a|b}", "back\\slash\\", 'q"uote', "<html>", "line\nbreak", "\\N\\G"]
    values = [Value(float(i), label=label) for i, label in enumerate(labels)]
    y = values[0]
    for v in values[1:]:
        y = y + v
    y.label = "<y>"
    svg = hx.to_svg(y, edge_labels={(labels[1], "#0"): '<"&>'})
    assert svg is not None
    texts = [t.text for t in ET.fromstring(svg).iter(SVG_TEXT)]
    for label in [*labels[:5], "line\\nbreak", "\\N\\G", "<y>", '<"&>']:
        assert label in texts


def test_svg_is_none_without_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert hx.to_svg(Value(1.0)) is None


# --- the backward trace ---


def test_backward_trace_shares_into_a_node_used_twice() -> None:
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    ab = a * b
    ab.label = "ab"
    d = ab + c
    d.label = "d"
    loss = d * a
    loss.label = "L"
    trace = hx.backward_trace(loss)
    assert trace.ok
    assert trace.order == ("L", "d", "ab")
    into_a = trace.shares_into("a")
    assert [(e.output, e.upstream, e.local, e.share) for e in into_a] == [("L", 1.0, 4.0, 4.0), ("ab", 2.0, -3.0, -6.0)]
    assert sum(share_of(e) for e in into_a) == -2.0
    assert (into_a[0].grad_before, into_a[0].grad_after, into_a[1].grad_after) == (0.0, 4.0, -2.0)
    assert (a.grad, b.grad, c.grad) == (-2.0, 4.0, 2.0)
    assert dict(trace.grads)["a"] == -2.0
    assert len(trace.edges) == hx.Graph.from_root(loss).total_edges


def test_backward_trace_matches_backward_and_starts_fresh() -> None:
    w, x, *_, c = trap_graph()
    c.backward()
    once = [n.grad for n in hx.Graph.from_root(c).nodes]
    c.backward()  # leaves keep accumulating in ember
    assert w.grad == 56.0
    trace = hx.backward_trace(c)  # zeroes every grad first, so it gives one pass's worth
    assert (w.grad, x.grad) == (28.0, 7.0)
    assert [grad for _, grad in trace.grads] == once
    assert trace.order == ("c", "d", "e", "x")


def test_backward_trace_splits_a_square_evenly() -> None:
    w = Value(3.0, label="w")
    y = w * w
    y.label = "y"
    edges = hx.backward_trace(y).edges
    assert [(e.input, e.position, e.share, e.repeats, e.combined_share) for e in edges] == [
        ("w", 0, 3.0, 2, 6.0),
        ("w", 1, 3.0, 2, 6.0),
    ]
    assert [(e.grad_before, e.grad_after) for e in edges] == [(0.0, 3.0), (3.0, 6.0)]


def test_backward_trace_reports_a_failing_step() -> None:
    a = Value(2.0, label="a")
    b = a * 3
    b.label = "b"
    out = b + 1
    out.label = "out"

    def broken() -> None:
        raise ValueError("oops")
    b._backward = broken
    trace = hx.backward_trace(out)
    assert not trace.ok
    assert trace.error == "ValueError: oops" and trace.error_node == "b"
    assert trace.order == ("out",) and [e.input for e in trace.edges] == ["b", "#0"]  # #0: the wrapped 1
    assert trace.to_dict()["error"] == "ValueError: oops"
    assert "ValueError" not in repr(trace.edges) and "'share': 1.0" in repr(trace.edges[0])


def test_backward_trace_to_dict_and_edge_labels() -> None:
    *_, c = trap_graph()
    trace = hx.backward_trace(c)
    edges = trace.to_dict()["edges"]
    assert isinstance(edges, list)
    assert edges[0] == {
        "step": 0, "output": "c", "input": "x", "output_index": 6, "input_index": 3, "position": 0,
        "upstream": 1.0, "local": 1.0, "share": 1.0, "grad_before": 0.0, "grad_after": 1.0,
        "repeats": 1, "combined_share": 1.0,
    }
    source = hx.to_dot(c, edge_labels=trace.edge_labels())
    assert '\tn3 -> n4op [label="6"]' in source


# --- the topological-sort trace ---


def test_topo_trace_on_the_trap_graph() -> None:
    *_, c = trap_graph()
    trace = hx.topo_trace(c)
    graph = hx.Graph.from_root(c)
    assert trace.order == tuple(n.name for n in graph.nodes)
    assert [name for name in reversed(trace.order) if not name.startswith("#")] == ["c", "d", "e", "x", "w"]
    skipped = [e.node for e in trace.events if e.kind == "skip-seen"]
    assert skipped == ["w", "x"]  # w from x = w*w, and x reached again from c
    assert not trace.truncated and trace.total_events == len(trace.events)
    first, second = trace.events[:2]
    assert (first.kind, first.node, first.stack, first.seen, first.order) == ("enter", "c", (("c", True),), ("c",), ())
    assert (second.kind, second.node, second.via, second.stack[-1]) == ("follow", "x", "c", ("x", False))
    last = trace.events[-1]
    assert (last.kind, last.node, last.stack, last.order) == ("append", "c", (), trace.order)
    assert [e.kind for e in trace.events].count("append") == len(graph)
    events = trace.to_dict()["events"]
    assert isinstance(events, list) and events[0]["stack"] == [["c", True]]


def test_topo_trace_limit() -> None:
    *_, c = trap_graph()
    full = hx.topo_trace(c, limit=None)
    cut = hx.topo_trace(c, limit=5)
    assert cut.truncated and len(cut.events) == 5 and cut.total_events == full.total_events
    assert cut.order == full.order
    assert [e.to_dict() for e in cut.events] == [e.to_dict() for e in full.events[:5]]


# --- long chains ---


def test_a_chain_of_50000_additions_is_drawn_and_traced_without_recursion() -> None:
    assert sys.getrecursionlimit() <= 10_000  # 100,001 nodes deep: any recursion would fail
    x, y = chain(50_000)
    graph = hx.Graph.from_root(y)
    assert len(graph) == 100_001 and graph.total_edges == 100_000
    text = hx.node_table_text(y)
    assert text.count("\n") == 100_003
    source = hx.to_dot(y)
    assert source.count(" -> ") == 150_000
    topo = hx.topo_trace(y, limit=200)
    assert topo.truncated and len(topo.events) == 200 and len(topo.order) == 100_001
    trace = hx.backward_trace(y)
    assert trace.ok and x.grad == 1.0


# --- any learner's Value ---


def test_a_hostile_duck_typed_value_works() -> None:
    a, b = Hostile(2.0), Hostile(-3.0)
    a.label = "a"
    y = a * b + a
    graph = hx.Graph.from_root(y)
    assert [n.name for n in graph.nodes] == ["a", "#0", "#1", "#2"]  # y's last input, a, is explored first
    assert graph.total_edges == 4
    assert "a" in hx.node_table_text(y) and "hx-table" in hx.node_table_html(y)
    assert "n0op" not in hx.to_dot(y) and "n3op -> n3" in hx.to_dot(y)
    trace = hx.backward_trace(y)
    assert trace.ok and (a.grad, b.grad) == (-2.0, 2.0)
    assert [e.kind for e in hx.topo_trace(y).events].count("append") == 4
    y.grad = Hostile(1.0)  # type: ignore[assignment]  # junk where a number belongs
    graph = hx.Graph.from_root(y)
    assert "<Hostile>" in repr(graph) and "<Hostile>" in hx.node_table_text(graph)


def test_an_object_missing_attributes_and_a_bare_number_in_prev() -> None:
    class Bare:
        _prev: list[object]  # given to one

    odd = Bare()
    odd._prev = [2.5, Bare()]  # a list, a bare number, and an input without data/grad/_op
    graph = hx.Graph.from_root(odd)
    assert [(n.name, fmt(n.data), fmt(n.grad), n.op) for n in graph.nodes] == [
        ("#0", "?", "?", ""),
        ("#1", "2.5", "?", ""),
        ("#2", "?", "?", ""),
    ]
    assert "?" in hx.node_table_text(odd)


def test_micrograd_values_work() -> None:
    engine = pytest.importorskip("micrograd.engine")
    a, b = engine.Value(2.0), engine.Value(-3.0)
    loss = (a * b + 10) * a
    trace = hx.backward_trace(loss)
    assert trace.ok and (a.grad, b.grad) == (-2.0, 4.0)
    assert len(hx.Graph.from_root(loss)) == 6


# --- the learner's own walk, and local derivatives -------------------------------------------

def breadth_first_backward(self: Value) -> None:
    """The lesson's breadth-first trap: each node runs its step when the walk first reaches it."""
    self.grad = 1.0
    queue, seen = [self], {self}
    while queue:
        node = queue.pop(0)
        node._backward()
        for parent in node._prev:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)


def test_a_walk_trace_records_the_learners_own_order_and_puts_every_step_back() -> None:
    w, x, e, d, c = trap_graph()
    steps = {id(v): v._backward for v in (w, x, e, d, c)}
    trace = hx.walk_trace(c)
    assert trace.source == "yours" and trace.seed == 1.0 and trace.ok
    assert trace.order == ("c", "d", "e", "x")
    assert trace.calls[:5] == ("c", "d", "e", "x", "w")  # leaves are called too, after their users
    assert (w.grad, x.grad) == (28.0, 7.0)
    assert [edge.step for edge in trace.edges] == sorted(edge.step for edge in trace.edges)
    assert all(v._backward is steps[id(v)] for v in (w, x, e, d, c))
    assert trace.to_dict()["root"] == "c" and trace.to_dict()["calls"] == list(trace.calls)


def test_a_wrong_walk_shows_up_in_its_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Value, "backward", breadth_first_backward)
    w, *_, c = trap_graph()
    trace = hx.walk_trace(c)
    assert trace.order == ("c", "x", "d", "e")  # x ran before e had sent it anything
    assert w.grad == 4.0
    (into_w_first, into_w_second) = trace.shares_into("w")
    assert into_w_first.upstream == 1.0 and share_of(into_w_first) + share_of(into_w_second) == 4.0


def test_a_walk_trace_reports_a_failing_step_and_still_restores() -> None:
    a = Value(2.0, label="a")
    y = a * 3
    y.label = "y"
    original = y._backward

    def broken() -> None:
        raise KeyError("mine")

    y._backward = broken
    trace = hx.walk_trace(y)
    assert not trace.ok and trace.error == "KeyError: 'mine'" and trace.error_node == "y"
    assert y._backward is broken and original is not broken


def test_local_derivatives_come_from_each_step_and_leave_the_grads_alone() -> None:
    w, x, *_, c = trap_graph()
    w.grad = 5.0
    labels = hx.local_derivatives(c)
    graph = hx.Graph.from_root(c)
    by_name = {(graph.nodes[j].name, graph.nodes[i].name, k): text for (j, i, k), text in labels.items()}
    assert by_name[("w", "x", 0)] == by_name[("w", "x", 1)] == "2"  # x = w·w: the other factor, w
    assert by_name[("x", "e", 0)] == "3" and by_name[("x", "c", 0)] == "1"
    assert w.grad == 5.0 and x.grad == 0.0
    assert 'label="3"' in hx.to_dot(c, edge_labels=labels)


@pytest.mark.parametrize("text", ["", "plain", "a < b & c > d", "\"quoted\" and 'single'", "&amp; already",
                                  "".join(map(chr, range(128))), "<script>alert('x')</script>", "é ∂ \u2028"])
def test_escape_html_answers_what_html_escape_does(text: str) -> None:
    import html

    assert escape_html(text) == html.escape(text, quote=True)


def test_importing_hx_leaves_graphviz_and_html_unimported() -> None:
    """The page's worker imports hx on every cold start; graphviz waits for the first drawing."""
    import subprocess

    code = "import sys, hx, labs.showing.render; print(sorted({'graphviz', 'html'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    assert out.strip() == "[]"
    digraph = hx.to_digraph(Value(2.0, label="x") * 3)
    assert isinstance(digraph, graphviz.Digraph)
