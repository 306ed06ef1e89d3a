"""The notebook's static HTML for every kind of item that labs.display emits, built from real items."""

from __future__ import annotations

import hashlib
import html
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from ember.graph import toposort
from ember.scalar import Value
from labs.display import Display
from labs.notebook_html import item_html
from labs.outputs import SHOWN_LINES, Outputs

NS = "{http://www.w3.org/2000/svg}"
RECIPE = {"serve": ["bake", "tea"], "bake": ["mix", "oven"], "mix": ["eggs"], "tea": [], "oven": [], "eggs": []}
NASTY = "<script>alert(1)</script>"


def fake_svg(dot: str) -> str:
    """A stand-in for viz.js: an SVG that names the DOT it was given."""
    return f'<svg data-dot="{hashlib.sha1(dot.encode()).hexdigest()}"><text>picture</text></svg>'


def emitted(call: Callable[[Display], None]) -> list[dict]:
    """The items one call of the display functions emits."""
    items: list[dict] = []
    call(Display(items.append))
    return items


def one(call: Callable[[Display], None]) -> dict:
    (item,) = emitted(call)
    return item


def loss() -> Value:
    """L = a * b + a, with named leaves: four nodes, four backward edges."""
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    out = c + a
    out.label = "L"
    return out


def text_of(fragment: str) -> str:
    """The text a reader sees in an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment.replace("<br>", "\n")))


def entries(fragment: str) -> list[str]:
    """The text of every list entry, in order."""
    return [text_of(entry) for entry in re.findall(r"<li(?:\s[^>]*)?>(.*?)</li>", fragment, re.S)]


def svg_tree(fragment: str) -> ET.Element:
    """The (only) inline SVG picture of a fragment, parsed: it must be well-formed XML."""
    (picture,) = re.findall(r"<svg.*?</svg>", fragment, re.S)
    return ET.fromstring(picture)


# --- graphs ---


def test_a_graph_shows_its_title_counts_table_and_the_svg_of_its_dot() -> None:
    item = one(lambda d: d.show(loss(), title="<b>loss</b>"))
    page = item_html(item, fake_svg)
    assert fake_svg(item["dot"]) in page
    assert item["table"] in page and "<details" in page
    assert "4 nodes, 4 backward edges" in page
    assert "&lt;b&gt;loss&lt;/b&gt;" in page and "<b>loss" not in page
    assert 'aria-label="&lt;b&gt;loss&lt;/b&gt;: 4 nodes and 4 backward edges' in page


def test_a_node_named_with_markup_stays_text() -> None:
    x = Value(1.0, label=NASTY)
    y = x * 2
    page = item_html(one(lambda d: d.show(y, title=NASTY)), fake_svg)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_pair_shows_both_graphs_in_order_side_by_side() -> None:
    left, right = loss(), Value(1.0, label="x") * Value(5.0, label="y")
    item = one(lambda d: d.show_pair(left, right, titles=("left one", "right one")))
    page = item_html(item, fake_svg)
    first, second = (fake_svg(graph["dot"]) for graph in item["graphs"])
    assert first != second
    assert page.index("left one") < page.index(first) < page.index("right one") < page.index(second)
    assert "flex-wrap:wrap" in page


def test_a_picture_that_cannot_be_drawn_says_why_and_keeps_the_table() -> None:
    def broken(dot: str) -> str:
        raise RuntimeError("syntax error <near> line 1")

    item = one(lambda d: d.show(loss()))
    page = item_html(item, broken)
    assert "Could not draw the graph: syntax error &lt;near&gt; line 1" in page
    assert item["table"] in page


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_a_real_svg_is_included_without_its_xml_prolog() -> None:
    graphviz = pytest.importorskip("graphviz")
    item = one(lambda d: d.show(loss()))
    real = graphviz.Source(item["dot"]).pipe(format="svg", encoding="utf-8")
    assert real.startswith("<?xml")
    page = item_html(item, lambda dot: graphviz.Source(dot).pipe(format="svg", encoding="utf-8"))
    assert "<?xml" not in page and "<!DOCTYPE" not in page
    assert real[real.index("<svg"):] in page


# --- tables and printed text ---


def test_every_table_cell_header_and_title_is_escaped() -> None:
    item = one(lambda d: d.show_table(["name", "<h>"], [(NASTY, 0.5), ("a & b", 3)], title="<ledger>"))
    page = item_html(item, fake_svg)
    assert "<script>" not in page and "<h>" not in page and "<ledger>" not in page
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in page
    assert "<td>a &amp; b</td><td>3</td>" in page
    assert "<th>&lt;h&gt;</th>" in page and "<h4>&lt;ledger&gt;</h4>" in page
    assert entries(page) == [] and page.count("<tr>") == 3


def test_printed_text_is_an_escaped_pre_and_long_text_says_what_was_left_out() -> None:
    outputs = Outputs()
    outputs.write("<b>hi</b>\n")
    outputs.write("oops\n", "stderr")
    outputs.write("".join(f"line {i}\n" for i in range(SHOWN_LINES + 5)))
    short, err, long = outputs.finish()
    assert item_html(short, fake_svg).startswith('<pre class="ember-stdout">&lt;b&gt;hi&lt;/b&gt;')
    assert '<pre class="ember-stderr"' in item_html(err, fake_svg) and "oops" in item_html(err, fake_svg)
    page = item_html(long, fake_svg)
    assert f"5 more lines ({SHOWN_LINES + 5} in all) not shown" in page
    assert "line 0" in page and f"line {SHOWN_LINES + 4}" not in page


def test_an_unknown_kind_says_it_is_only_drawn_in_the_lesson_page() -> None:
    page = item_html({"kind": "<sparkle>", "note": NASTY, "n": 3}, fake_svg)
    assert "only drawn in the lesson page" in page
    assert 'kind "&lt;sparkle&gt;"' in page and "<script>" not in page
    assert "<pre>" in page and "&quot;n&quot;: 3" in page
    assert "only drawn in the lesson page" in item_html({"no": "kind"}, fake_svg)


# --- plots ---


def plot_item(**options: object) -> dict:
    series = {"loss": [(1, 0.0), (2, 0.5), (3, -1.0), (4, 0.1), (5, 0.2)], "<acc>": [(1, 1.0), (5, 2.0)]}
    return one(lambda d: d.plot(series, title="Training", x_label="step", y_label="loss", **options))


def polylines(page: str) -> list[list[tuple[float, float]]]:
    """The points of each polyline of the page's picture, in order."""
    return [[tuple(map(float, pair.split(","))) for pair in line.get("points", "").split()]
            for line in svg_tree(page).iter(f"{NS}polyline")]


def test_a_log_plot_drops_points_that_are_not_positive_and_draws_one_line_per_series() -> None:
    page = item_html(plot_item(log_y=True), fake_svg)
    lines = polylines(page)
    assert [len(points) for points in lines] == [3, 2]
    ys = [y for _, y in lines[0]]
    assert ys[0] < ys[2] < ys[1]  # 0.5 highest, then 0.2, then 0.1: screen y grows downward
    assert "loss (log)" in text_of(page) and "step (log)" not in text_of(page)


def test_the_renderer_itself_drops_what_a_log_axis_cannot_show() -> None:
    item = plot_item(log_x=True, log_y=True)
    item["series"][0]["points"] += [[6.0, 0.0], [-1.0, 3.0], [7.0, float("nan")]]
    assert [len(points) for points in polylines(item_html(item, fake_svg))] == [3, 2]


def test_a_plot_has_ticks_a_legend_and_its_alt_text() -> None:
    item = plot_item(log_y=True)
    page = item_html(item, fake_svg)
    tree = svg_tree(page)
    assert tree.find(f"{NS}title").text == item["alt"]
    assert tree.get("aria-label") == item["alt"]
    ticks = [t.text for t in tree.iter(f"{NS}text")]
    assert {"0.1", "1"} <= set(ticks)  # powers of ten on the log axis
    assert {"1", "2", "3", "4", "5"} <= set(ticks)  # steps of 1 on the linear one
    assert entries(page) == ["loss", "<acc>"] and "&lt;acc&gt;" in page
    assert "<figcaption>Training</figcaption>" in page
    assert "currentColor" in page


def test_a_plot_with_no_points_says_so() -> None:
    item = one(lambda d: d.plot({"loss": [(1, 0.0), (2, -1.0)]}, log_y=True))
    page = item_html(item, fake_svg)
    assert "nothing to plot yet" in page and "<polyline" not in page


# --- coloured planes ---


def test_a_boundary_is_a_grid_of_rects_with_the_points_on_top() -> None:
    item = one(lambda d: d.show_boundary(lambda x, y: x, [(-1.0, 0.0), (1.0, 0.0)], [-1, 1],
                                         resolution=4, title="<split>"))
    page = item_html(item, fake_svg)
    tree = svg_tree(page)
    rects = list(tree.iter(f"{NS}rect"))
    assert len(rects) == 16
    fills = [rect.get("fill") for rect in rects[:4]]  # the first row, left to right
    assert fills[0] == fills[1] != fills[2] == fills[3]
    circles = list(tree.iter(f"{NS}circle"))
    assert len(circles) == 2 and circles[0].get("fill") == fills[0] and circles[1].get("fill") == fills[3]
    assert float(circles[0].get("cx")) < float(circles[1].get("cx"))
    assert tree.find(f"{NS}title").text == item["alt"] and "2 of 2 points" in item["alt"]
    assert "&lt;split&gt;" in page and "<split>" not in page


def test_a_field_is_a_heat_map_with_arrows_axes_and_alt_text() -> None:
    item = one(lambda d: d.show_field(lambda p: p[0] * p[1], (-1, 1, -1, 1), [((0.5, 0.5), (0.5, 0.5))],
                                      resolution=4, title="xy", x_label="<w>", y_label="b"))
    page = item_html(item, fake_svg)
    tree = svg_tree(page)
    cells = [rect for rect in tree.iter(f"{NS}rect") if rect.get("fill") != "none"]
    assert len(cells) == 16
    assert len({rect.get("fill") for rect in cells}) == 2  # a diverging map: both signs
    assert len(list(tree.iter(f"{NS}polygon"))) == 1
    assert tree.get("aria-label") == item["alt"]
    labels = [t.text for t in tree.iter(f"{NS}text")]
    assert "<w>" in labels and "-1" in labels and "1" in labels
    assert "&lt;w&gt;" in page


# --- step-throughs ---


def test_the_sort_lists_each_event_as_a_sentence_then_the_order() -> None:
    item = one(lambda d: d.show_sort(loss()))
    page = item_html(item, fake_svg)
    events = item["trace"]["events"]
    steps = entries(page)
    assert len(steps) == len(events)
    assert steps[0].startswith('Pop L: not seen yet, so mark it seen, push it back as "parents done"')
    assert steps[1].startswith("Push c, a parent of L.")
    kinds = [event["kind"] for event in events]
    assert steps[kinds.index("skip-seen")].startswith("Pop a: already seen, skip it.")
    assert steps[kinds.index("append")].startswith("Pop a with its parents done: append it to the order.")
    assert "stack (top last): L ✓ parents done · seen: L · order so far: (empty)" in steps[0]
    assert "stack (top last): L ✓ parents done, c, a · seen: L" in steps[2]
    assert f"Order: {', '.join(item['trace']['order'])}" in text_of(page)
    assert fake_svg(item["dot"]) in page


def test_backward_cards_come_one_per_edge_in_order() -> None:
    item = one(lambda d: d.show_backward(loss(), title="L = a·b + a"))
    page = item_html(item, fake_svg)
    cards = entries(page)
    assert len(cards) == len(item["trace"]["edges"])
    assert cards == [
        "step 1 · L → c\n1 × 1 = 1\nc.grad: 0 → 1",
        "step 1 · L → a\n1 × 1 = 1\na.grad: 0 → 1",
        "step 2 · c → a\n1 × -3 = -3\na.grad: 1 → -2",
        "step 2 · c → b\n1 × 2 = 2\nb.grad: 0 → 2",
    ]
    seen = text_of(page)
    assert seen.index("L = a·b + a") < seen.index("seed\nL.grad = 1") < seen.index(cards[0])


def test_a_backward_card_says_upstream_times_local_is_share_and_the_grad_before_and_after() -> None:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = a * b
    out.label = "<out>"
    cards = entries(item_html(one(lambda d: d.show_backward(out)), fake_svg))
    assert cards == ["step 1 · <out> → a\n1 × -3 = -3\na.grad: 0 → -3", "step 1 · <out> → b\n1 × 2 = 2\nb.grad: 0 → 2"]


def test_a_failing_backward_step_shows_its_error_after_the_cards() -> None:
    a = Value(2.0, label="a")
    out = a * 3
    out.label = "out"

    def broken() -> None:
        raise ValueError("<bad> step")

    out._backward = broken
    page = item_html(one(lambda d: d.show_backward(out)), fake_svg)
    assert entries(page) == []
    assert "ValueError: &lt;bad&gt; step" in page


def test_a_walk_says_which_backward_calls_the_learner_made() -> None:
    root = loss()
    cards, graph = emitted(lambda d: d.show_walk(root, title="walk"))
    page = item_html(cards, fake_svg)
    calls = cards["trace"]["calls"]
    assert f"Your backward() called _backward on: {', '.join(calls)}" in text_of(page)
    assert len(entries(page)) == len(cards["trace"]["edges"])
    assert fake_svg(graph["dot"]) in item_html(graph, fake_svg)


def test_a_backward_pair_shows_both_sets_of_cards_side_by_side() -> None:
    left = loss()
    x = Value(4.0, label="x")
    right = x * x
    item = one(lambda d: d.show_backward_pair(left, right, titles=("sum", "<square>")))
    page = item_html(item, fake_svg)
    assert "flex-wrap:wrap" in page
    assert page.index("<h4>sum</h4>") < page.index("<h4>&lt;square&gt;</h4>")
    cards = entries(page)
    assert len(cards) == 4 + 2
    assert cards[-1].endswith("x.grad: 4 → 8")  # x * x: each slot carries half of the 8


def test_sort_steps_list_every_step_and_the_order_returned() -> None:
    item = one(lambda d: d.show_sort_steps(toposort, "serve", RECIPE.__getitem__, title="<recipe>"))
    page = item_html(item, fake_svg)
    steps = entries(page)
    assert steps == [event["text"] for event in item["events"]]
    assert steps[0] == "Call 1: your sort asks parents(serve) and gets bake, tea."
    assert steps[-1].startswith("A valid order")
    order = toposort("serve", RECIPE.__getitem__)
    assert f"Order returned: {', '.join(order)}" in text_of(page)
    assert fake_svg(item["dot"]) in page and "<h4>&lt;recipe&gt;</h4>" in page


def test_a_sort_that_raises_shows_its_error_and_an_empty_order() -> None:
    def broken(root: str, parents: Callable) -> list:
        parents(root)
        raise KeyError("<oops>")

    item = one(lambda d: d.show_sort_steps(broken, "serve", RECIPE.__getitem__))
    page = item_html(item, fake_svg)
    assert entries(page)[-1] == "Your sort raised KeyError: '<oops>'"
    assert "Order returned: (empty)" in text_of(page)
    assert "<oops>" not in page
