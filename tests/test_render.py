"""The one renderer of every kind of item that labs.showing.display emits (page and notebook), built from real items.

Most tests use the notebook's look (Graphviz drawn by a stand-in, inline styles); the page's look is
the same HTML without styles and with Graphviz placeholders (tested at the end).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ember.graph import toposort
from ember.scalar import Value
from labs.showing.display import Display
from labs.showing.outputs import LIVE_KEY, SHOWN_LINES, Outputs
from labs.showing.render import DRAW, INTERACTIVE, PAGE, Look, item_html, render

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


VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


@dataclass
class Node:
    """An element of a parsed fragment."""

    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        """Its text; child elements that are divs or paragraphs each on a line of their own."""
        parts = [c if isinstance(c, str) else c.text() for c in self.children]
        lines = any(isinstance(c, Node) and c.tag in ("div", "p") for c in self.children)
        return "\n".join(parts) if lines else "".join(parts)

    def find_all(self, match: Callable[[Node], bool]) -> list[Node]:
        found = []
        for child in self.children:
            if isinstance(child, Node):
                found += [child] * match(child) + child.find_all(match)
        return found


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(fragment: str) -> Node:
    """A fragment parsed into elements (every tag it opens must be closed, in order)."""
    parser = _Tree()
    parser.feed(fragment)
    parser.close()
    assert parser.stack == [parser.root], "an element is left open"
    return parser.root


def of_class(fragment: str, cls: str) -> list[str]:
    """The text of every element with this class, in order."""
    return [node.text() for node in parse(fragment).find_all(lambda n: cls in (n.attrs.get("class") or "").split())]


def entries(fragment: str) -> list[str]:
    """The text of every list entry, in order."""
    return [node.text() for node in parse(fragment).find_all(lambda n: n.tag == "li")]


def cards(fragment: str) -> list[str]:
    """The text of every backward card but the seed, in order."""
    return [node.text() for node in parse(fragment).find_all(
        lambda n: (n.attrs.get("class") or "").split() == ["ember-card"])]


def svg_tree(fragment: str) -> ET.Element:
    """The (only) inline SVG picture of a fragment, parsed: it must be well-formed XML."""
    (picture,) = re.findall(r"<svg.*?</svg>", fragment, re.S)
    return ET.fromstring(picture)


def found(element: ET.Element, path: str) -> ET.Element:
    """The first element at ``path`` under ``element``: it must be there."""
    child = element.find(path)
    assert child is not None, f"no {path} in <{element.tag}>"
    return child


def number(element: ET.Element, name: str) -> float:
    """An attribute of the element, as a number: it must be there."""
    value = element.get(name)
    assert value is not None, f"<{element.tag}> has no {name}"
    return float(value)


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
    assert '<td>a &amp; b</td><td class="hx-num">3</td>' in page
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
    assert f"5 more lines ({SHOWN_LINES + 5:,} in all) are not shown here" in page
    assert "line 0" in page and f"line {SHOWN_LINES + 4}" not in page


def test_an_unknown_kind_says_it_is_only_drawn_in_the_lesson_page() -> None:
    page = item_html({"kind": "<sparkle>", "note": NASTY, "n": 3}, fake_svg)
    assert "cannot draw an item" in page
    assert 'kind "&lt;sparkle&gt;"' in page and "<script>" not in page
    assert "<pre>" in page and "&quot;n&quot;: 3" in page
    assert "cannot draw an item" in item_html({"no": "kind"}, fake_svg)


# --- plots ---


def plot_item(**options: Any) -> dict:
    series: dict[str, Iterable[tuple[float, float]]] = {
        "loss": [(1, 0.0), (2, 0.5), (3, -1.0), (4, 0.1), (5, 0.2)], "<acc>": [(1, 1.0), (5, 2.0)]}
    return one(lambda d: d.plot(series, title="Training", x_label="step", y_label="loss", **options))


def polylines(page: str) -> list[list[tuple[float, ...]]]:
    """The points of each line of the page's picture, in order."""
    return [[tuple(map(float, pair.split(","))) for pair in re.findall(r"[-\d.]+,[-\d.]+", line.get("d", ""))]
            for line in svg_tree(page).iter(f"{NS}path")]


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
    assert found(tree, f"{NS}title").text == item["alt"]
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
    assert "nothing to plot yet" in page and "<path" not in page


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
    assert number(circles[0], "cx") < number(circles[1], "cx")
    assert found(tree, f"{NS}title").text == item["alt"] and "2 of 2 points" in item["alt"]
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
    steps = of_class(page, "ember-step")
    assert len(steps) == len(events) == len(of_class(page, "ember-step-words"))
    assert steps[0].startswith('Pop L: not seen yet, so mark it seen, push it back as "parents done"')
    assert steps[1].startswith("Push c, a parent of L.")
    kinds = [event["kind"] for event in events]
    assert steps[kinds.index("skip-seen")].startswith("Pop a: already seen, skip it.")
    assert steps[kinds.index("append")].startswith("Pop a with its parents done: append it to the order.")
    assert "\nstack (top last): L ✓ parents done\nseen: L\norder so far: (empty)" in steps[0]
    assert "\nstack (top last): L ✓ parents done, c, a\nseen: L\n" in steps[2]
    assert [node.attrs["data-node"] for node in parse(page).find_all(lambda n: n.attrs.get("class") == "ember-step")
            ] == [f"n{event['index']}" for event in events]
    assert f"Order: {', '.join(item['trace']['order'])}" in text_of(page)
    assert fake_svg(item["dot"]) in page


def test_backward_cards_come_one_per_edge_in_order() -> None:
    item = one(lambda d: d.show_backward(loss(), title="L = a·b + a"))
    page = item_html(item, fake_svg)
    shown = cards(page)
    assert len(shown) == len(item["trace"]["edges"])
    assert shown == [
        "step 1 · L → c\n1 × 1 = 1\nc.grad: 0 → 1",
        "step 1 · L → a\n1 × 1 = 1\na.grad: 0 → 1",
        "step 2 · c → a\n1 × -3 = -3\na.grad: 1 → -2",
        "step 2 · c → b\n1 × 2 = 2\nb.grad: 0 → 2",
    ]
    seen = text_of(page)
    assert seen.index("L = a·b + a") < seen.index("seedL.grad = 1") < seen.index("step 1 · L → c")
    assert of_class(page, "ember-seed") == ["seed\nL.grad = 1"]


def test_a_backward_card_says_upstream_times_local_is_share_and_the_grad_before_and_after() -> None:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = a * b
    out.label = "<out>"
    assert cards(item_html(one(lambda d: d.show_backward(out)), fake_svg)) == [
        "step 1 · <out> → a\n1 × -3 = -3\na.grad: 0 → -3",
        "step 1 · <out> → b\n1 × 2 = 2\nb.grad: 0 → 2"]


def test_a_failing_backward_step_shows_its_error_after_the_cards() -> None:
    a = Value(2.0, label="a")
    out = a * 3
    out.label = "out"

    def broken() -> None:
        raise ValueError("<bad> step")

    out._backward = broken
    page = item_html(one(lambda d: d.show_backward(out)), fake_svg)
    assert cards(page) == []
    assert "ValueError: &lt;bad&gt; step" in page


def test_a_walk_says_which_backward_calls_the_learner_made() -> None:
    root = loss()
    walk, graph = emitted(lambda d: d.show_walk(root, title="walk"))
    page = item_html(walk, fake_svg)
    calls = walk["trace"]["calls"]
    assert f"Your backward() called _backward on: {', '.join(calls)}" in text_of(page)
    assert len(cards(page)) == len(walk["trace"]["edges"])
    assert fake_svg(graph["dot"]) in item_html(graph, fake_svg)


def test_a_backward_pair_shows_both_sets_of_cards_side_by_side() -> None:
    left = loss()
    x = Value(4.0, label="x")
    right = x * x
    item = one(lambda d: d.show_backward_pair(left, right, titles=("sum", "<square>")))
    page = item_html(item, fake_svg)
    assert "flex-wrap:wrap" in page
    assert of_class(page, "ember-cards-title") == ["sum", "<square>"]
    shown = cards(page)
    assert len(shown) == 4 + 2
    assert shown[-1].endswith("x.grad: 4 → 8")  # x * x: each slot carries half of the 8


def test_sort_steps_list_every_step_and_the_order_returned() -> None:
    item = one(lambda d: d.show_sort_steps(toposort, "serve", RECIPE.__getitem__, title="<recipe>"))
    page = item_html(item, fake_svg)
    steps = of_class(page, "ember-step-words")
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
    assert of_class(page, "ember-step-words")[-1] == "Your sort raised KeyError: '<oops>'"
    assert "Order returned: (empty)" in text_of(page)
    assert "<oops>" not in page


# --- one renderer for both front ends ---

ROOT = Path(__file__).resolve().parents[1]
RENDER_JS = ROOT / "web" / "src" / "page" / "cell-output.js"


def every_kind() -> set[str]:
    """Every kind of output item the course makes: display items, printed text, and live text."""
    found = set()
    for source in ("labs/showing/display.py", "labs/showing/outputs.py"):
        found |= set(re.findall(r'"kind": "(\w+)"', (ROOT / source).read_text(encoding="utf-8")))
    return found | {"stdout", "stderr"}


def one_of_each() -> list[dict]:
    """A real item of every kind, with text in it that would be markup if it were not escaped."""
    items: list[Any] = []  # the items, and the live batch as the JSON text the page receives, until read back
    d = Display(items.append)
    d.show(loss(), title=NASTY)
    d.show_pair(loss(), loss(), titles=(NASTY, "b"))
    d.show_table([NASTY], [[NASTY]], title=NASTY)
    d.plot({NASTY: [(1, 2), (2, 3)]}, title=NASTY, x_label=NASTY, y_label=NASTY, key="k")
    d.show_boundary(lambda x, y: x - y, [(0, 1), (1, 0)], [1, -1], resolution=3, title=NASTY)
    d.show_field(lambda p: p[0], (0, 1, 0, 1), [((0.5, 0.5), (1, 0))], resolution=3, title=NASTY, x_label=NASTY)
    d.show_sort(loss())
    d.show_backward(loss(), title=NASTY)
    d.show_backward_pair(loss(), loss(), titles=(NASTY, NASTY))
    d.show_sort_steps(toposort, NASTY, {NASTY: []}.__getitem__, title=NASTY)
    d.show_broadcast((3, 1), [[1.0, 2.0]], op=NASTY, names=(NASTY, NASTY), title=NASTY)
    d.show_tensor([[1.0, 2.0], [3.0, 4.0]], title=NASTY, labels=([NASTY, "b"], [NASTY, "d"]))
    d.show_tensor([[1.0, -2.0], [3.0, 4.0]], title=NASTY, labels=([NASTY, "b"], [NASTY, "d"]), heat=True)
    outputs = Outputs(live=items.append)
    outputs.write(NASTY + "\n")
    outputs.write(NASTY + "\n", "stderr")
    outputs.send_batch()
    items += outputs.finish()
    items[-3] = json.loads(items[-3])  # the live batch, as the page receives it
    return items


def test_every_kind_of_item_has_one_renderer_and_each_is_exercised_here() -> None:
    assert every_kind() == set(DRAW)
    assert {item["kind"] for item in one_of_each()} == set(DRAW)
    assert set(INTERACTIVE) <= set(DRAW)


@pytest.mark.parametrize("look", [PAGE, Look(room=390), Look(svg=fake_svg, inline=True)], ids=["page", "phone", "nb"])
def test_every_renderer_escapes_what_it_shows_and_closes_what_it_opens(look: Look) -> None:
    for item in one_of_each():
        page = render(item, look)
        assert "<script" not in page.lower(), item["kind"]
        parse(page)  # well nested
        assert len(parse(page).children) == 1, f"{item['kind']}: one element per item (live updates replace it)"


def test_the_page_gets_classes_and_graphviz_placeholders_and_the_notebook_inline_styles() -> None:
    for item in one_of_each():
        page, notebook = render(item), item_html(item, fake_svg)
        assert " style=" not in page, f"{item['kind']}: the page's colours come from ember.css (both themes)"
        assert "data-dot" not in notebook or "<svg data-dot" in notebook
        if item["kind"] in ("graph", "sort", "sort_steps"):
            (holder,) = parse(page).find_all(lambda n: "data-dot" in n.attrs)
            assert html.unescape(holder.attrs["data-dot"] or "") == item["dot"] and holder.tag == "figure"
            assert fake_svg(item["dot"]) in notebook


def test_a_plot_is_laid_out_for_the_room_the_page_has_and_its_ticks_keep_their_size() -> None:
    item = plot_item()
    for room, width in ((None, 560), (350, 350), (200, 280), (2000, 560)):
        svg = svg_tree(render(item, Look(room=room)))
        assert svg.get("width") == str(width) and (svg.get("viewBox") or "").split()[2] == str(width)
        assert {t.get("class") for t in svg.iter(f"{NS}text")} == {"ember-tick", "ember-label"}


def test_a_running_cells_text_shows_its_latest_lines_and_how_many_there_are() -> None:
    sent: list[str] = []
    outputs = Outputs(live=sent.append)
    outputs.write("".join(f"<{i}>\n" for i in range(100)))
    outputs.send_batch()
    live = json.loads(sent[-1])
    assert live["key"] == LIVE_KEY and live["html"] == render(live)
    assert "100 lines so far; the latest are shown." in text_of(live["html"])
    assert "&lt;99&gt;" in live["html"] and "&lt;10&gt;" not in live["html"]


def test_every_output_of_a_cell_leaves_with_the_html_of_the_page_look() -> None:
    outputs = Outputs(look=Look(room=400))
    outputs.write("1\n")
    outputs.add(plot_item())
    text, plot = outputs.finish()
    assert text["html"] == '<pre class="ember-stdout">1\n</pre>'
    assert plot["html"] == render(plot_item(), Look(room=400)) and 'width="400"' in plot["html"]


def test_rendering_printed_text_costs_next_to_nothing() -> None:
    import time

    outputs = Outputs()
    outputs.write("1\n")
    started = time.perf_counter()
    for _ in range(1000):
        outputs.finish()
    assert (time.perf_counter() - started) / 1000 < 0.001  # under a millisecond each, far under print(1)'s 15 ms


def test_the_pages_javascript_draws_no_kind_of_item_itself() -> None:
    js = RENDER_JS.read_text(encoding="utf-8")
    assert "createElementNS" not in js  # no SVG drawn in the page's code
    assert not re.search(r"item\.kind\s*===|\bDRAW\b", js)  # no table of drawing functions by kind
    drawn_here = {"ember-tick", "ember-line", "ember-card", "ember-plus", "ember-arrow", "hx-table", "ember-seed",
                  "ember-legend", "ember-boundary", "ember-field", "ember-plot", "ember-walk-order"}
    assert not {cls for cls in drawn_here if cls in js}
    assert "item.html" in js and "data-dot" in js  # it inserts Python's HTML, and fills Graphviz placeholders


# --- broadcasting (lesson 15) ---


def test_a_broadcast_lines_the_shapes_up_on_the_right_and_says_which_axes_stretch_and_are_summed() -> None:
    item = one(lambda d: d.show_broadcast((3, 1), (4,), title="two shapes"))
    assert item["shape"] == [3, 4] and [o["summed"] for o in item["operands"]] == [[1], [0]]
    page = render(item)
    rows = [[cell.text() if isinstance(cell, Node) else cell for cell in row.children]
            for row in parse(page).find_all(lambda n: n.tag == "tr")]
    assert rows == [["", "axis 0", "axis 1"], ["a (3, 1)", "3", "1 → 4"], ["b (4,)", "missing (1) → 3", "4"],
                    ["a + b (3, 4)", "3", "4"]]
    words = text_of(page)
    assert "a.grad is a + b's gradient of shape (3, 4) summed over axis 1" in words
    assert "b.grad is a + b's gradient of shape (3, 4) summed over axis 0" in words


def test_a_broadcast_draws_each_operand_and_its_copies_cell_by_cell() -> None:
    item = one(lambda d: d.show_broadcast([[1.5], [2.0], [-3.0]], (1, 4), op="*"))
    svgs = [svg for svg in parse(render(item)).find_all(lambda n: n.tag == "svg")]
    assert len(svgs) == 4  # a, a stretched, b, b stretched
    a_big = svgs[1]
    cells = [n for n in a_big.find_all(lambda n: n.tag == "rect")]
    labels = [n.text() for n in a_big.find_all(lambda n: n.tag == "text")]
    assert len(cells) == 12 and labels == ["1.5"] * 4 + ["2"] * 4 + ["-3"] * 4
    copies = [c for c in cells if "ember-bc-copy" in (c.attrs["class"] or "")]
    assert len(copies) == 9  # each of a's three numbers once solid, three times a copy
    assert {(c.attrs["class"] or "").split()[1] for c in cells[:4]} == {"ember-bc-0"}


def test_a_broadcast_of_a_scalar_and_of_three_axes() -> None:
    item = one(lambda d: d.show_broadcast((2, 1, 3), (4, 1)))
    assert item["shape"] == [2, 4, 3] and [o["summed"] for o in item["operands"]] == [[1], [0, 2]]
    assert "summed over axes 0 and 2" in text_of(render(item))
    scalar = one(lambda d: d.show_broadcast(2.5, (2, 3), op="*"))
    assert [o["summed"] for o in scalar["operands"]] == [[0, 1], []]
    assert "nothing is stretched" in text_of(render(scalar))


def test_shapes_that_do_not_fit_are_drawn_with_the_axis_that_clashes() -> None:
    item = one(lambda d: d.show_broadcast((3, 2), (4,)))
    assert item["shape"] is None and item["clash"] == [1]
    page = render(item)
    assert "these shapes do not fit" in text_of(page) and "<svg" not in page
    assert len(parse(page).find_all(lambda n: "ember-bc-clash" in (n.attrs.get("class") or ""))) == 3
# --- tensors (show_tensor) ---


def tensor_rows(page: str) -> list[list[str]]:
    """The text of every row of a tensor's table, header row first, one entry per cell."""
    return [[cell.text() for cell in row.find_all(lambda n: n.tag in ("th", "td"))]
            for row in parse(page).find_all(lambda n: n.tag == "tr")]


def heat_cells(page: str) -> list[ET.Element]:
    """The shaded cells of a small heat map (one rect each; the frame has no fill)."""
    return [rect for rect in svg_tree(page).iter(f"{NS}rect") if rect.get("fill") != "none"]


def test_a_tensor_shows_its_shape_and_its_numbers_row_by_row() -> None:
    from ember.tensor import Tensor

    item = one(lambda d: d.show_tensor(Tensor([[1, 2, 3], [4, 5, 6e-12]]), title="<w>"))
    page = item_html(item, fake_svg)
    assert "shape (2, 3): 6 numbers" in text_of(page)
    assert tensor_rows(page) == [["", "0", "1", "2"], ["0", "1", "2", "3"], ["1", "4", "5", "6e-12"]]
    assert "&lt;w&gt;" in page and "<w>" not in page
    assert item == one(lambda d: d.show_tensor([[1, 2, 3], [4, 5, 6e-12]], title="<w>"))  # a nested list alike


def test_a_number_a_vector_and_a_3d_tensor_each_keep_their_shape() -> None:
    scalar = item_html(one(lambda d: d.show_tensor(2.5)), fake_svg)
    assert "shape (): 1 number" in text_of(scalar) and tensor_rows(scalar) == [["2.5"]]
    vector = item_html(one(lambda d: d.show_tensor([1.0, -0.5, 3.0])), fake_svg)
    assert "shape (3,): 3 numbers" in text_of(vector)
    assert tensor_rows(vector) == [["0", "1", "2"], ["1", "-0.5", "3"]]
    cube = item_html(one(lambda d: d.show_tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])), fake_svg)
    assert "shape (2, 2, 2): 8 numbers" in text_of(cube)
    assert [row[0] for row in tensor_rows(cube)[1:]] == ["[0, 0]", "[0, 1]", "[1, 0]", "[1, 1]"]
    assert tensor_rows(cube)[-1] == ["[1, 1]", "7", "8"]


def test_a_large_tensor_shows_its_first_and_last_rows_and_columns_and_says_so() -> None:
    grid = [[100 * r + c for c in range(30)] for r in range(20)]
    page = item_html(one(lambda d: d.show_tensor(grid, heat=False)), fake_svg)
    rows = tensor_rows(page)
    assert "showing 11 of 20 rows and 11 of 30 columns" in text_of(page)
    assert rows[0] == ["", *map(str, range(9)), "…", "28", "29"]
    assert [row[0] for row in rows[1:]] == [*map(str, range(9)), "⋮", "18", "19"]
    assert rows[1][-1] == "29" and rows[-1][1] == "1900" and rows[-1][-1] == "1929"
    assert set(rows[10][1:]) == {"⋮"} and len(rows[10]) == len(rows[0])


def test_rows_cols_and_labels_pick_and_name_what_is_shown() -> None:
    grid = [[10 * r + c for c in range(5)] for r in range(4)]
    item = one(lambda d: d.show_tensor(grid, rows=[3, -4], cols=[4, 2], labels=(["<last>", "first"], None)))
    page = item_html(item, fake_svg)
    assert tensor_rows(page) == [["", "4", "2"], ["<last>", "34", "32"], ["first", "4", "2"]]
    assert "&lt;last&gt;" in page and "showing 2 of 4 rows and 2 of 5 columns" in text_of(page)
    every_row = item_html(one(lambda d: d.show_tensor(grid, cols=[0, 1])), fake_svg)
    assert "shape (4, 5): 20 numbers; showing 2 of 5 columns" in text_of(every_row)
    with pytest.raises(ValueError, match="3 row labels for 2 rows shown"):
        one(lambda d: d.show_tensor(grid, rows=[0, 1], labels=(["a", "b", "c"], None)))
    with pytest.raises(IndexError, match="5 is not an index of an axis of length 5"):
        one(lambda d: d.show_tensor(grid, cols=[5]))
    with pytest.raises(ValueError, match=r"ragged list: t\[1\] has shape \(1,\)"):
        one(lambda d: d.show_tensor([[1, 2], [3]]))
    with pytest.raises(ValueError, match=r"heat map|2-D tensor"):
        one(lambda d: d.show_tensor([1, 2, 3], heat=True))


def test_a_heat_map_shades_each_number_and_names_it_in_a_tooltip() -> None:
    item = one(lambda d: d.show_tensor([[0, 1, 2], [3, 4, 8]], heat=True, labels=(["a", "b"], ["x", "y", "<z>"])))
    page = item_html(item, fake_svg)
    cells = heat_cells(page)
    assert len(cells) == 5  # the lowest number is left unshaded
    shades = [number(rect, "fill-opacity") for rect in cells]
    assert shades == sorted(shades) and shades[-1] == 1.0 and shades[0] < shades[-1]
    assert [found(rect, f"{NS}title").text for rect in cells][-1] == "b, <z>: 8"
    assert {t.text for t in svg_tree(page).iter(f"{NS}text")} >= {"a", "b", "x", "y", "<z>"}
    assert "0 (faintest) to 8 (strongest colour)" in text_of(page)
    assert svg_tree(page).get("aria-label") == item["alt"] and "shape (2, 3)" in item["alt"]


def test_a_heat_map_of_both_signs_colours_them_apart() -> None:
    page = item_html(one(lambda d: d.show_tensor([[-2.0, -1.0], [1.0, 2.0]], heat=True)), fake_svg)
    classes = [rect.get("class") for rect in heat_cells(page)]
    assert classes == ["ember-minus", "ember-minus", "ember-plus", "ember-plus"]
    assert "orange: negative, down to -2; blue: positive, up to 2" in text_of(page)


def test_a_large_2d_tensor_is_a_heat_map_of_merged_runs_by_default() -> None:
    grid = [[float((r // 8 + c // 64) % 3) for c in range(256)] for r in range(256)]
    item = one(lambda d: d.show_tensor(grid, title="counts"))
    assert item["heat"] and item["rows"] == list(range(256))
    page = render(item, Look(room=560))
    tree = svg_tree(page)
    paths = list(tree.iter(f"{NS}path"))
    assert len(paths) == 2 and not heat_cells(page)  # two shades besides the unshaded lowest, no rect per cell
    assert len(page) < 60_000  # runs of equal shade are one rect each, not 65,536 of them
    assert "shape (256, 256): 65,536 numbers" in text_of(page)


# --- a picture's numbers, for a listener: the text equivalent of a plot or a heat map ---------------------------


def numbers_table(page: str) -> tuple[str, list[list[str]]]:
    """The folded table of a picture's numbers: its summary and its rows of cell texts (headers first)."""
    found = re.search(r'<details class="ember-table ember-numbers"><summary>(.*?)</summary>(.*?)</details>', page, re.S)
    assert found, "no table of the picture's numbers"
    rows = [[html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", found.group(2), re.S)]
    return html.unescape(found.group(1)), rows


def test_a_plot_tells_each_line_in_numbers_where_it_starts_ends_and_turns() -> None:
    item = {"kind": "plot", "title": "loss", "x_label": "step", "y_label": "loss",
            "series": [{"name": "<train>", "points": [[1, 3.0], [2, 1.5], [3, 2.0]]}]}
    summary, rows = numbers_table(item_html(item, fake_svg))
    assert summary == "The plot in numbers"
    assert rows[1] == ["<train>", "3", "3 at 1", "2 at 3", "1.5 at 2", "3 at 1"]


def test_a_heat_map_tells_its_numbers_and_a_large_one_each_rows_extremes() -> None:
    item = one(lambda d: d.show_tensor([[0, 1, 2], [3, 4, 8]], heat=True, labels=(["a", "b"], ["x", "y", "<z>"])))
    summary, rows = numbers_table(item_html(item, fake_svg))
    assert summary == "The heat map in numbers"
    assert rows == [["", "x", "y", "<z>"], ["a", "0", "1", "2"], ["b", "3", "4", "8"]]
    grid = [[float(r * 100 + c) for c in range(40)] for r in range(40)]
    summary, rows = numbers_table(render(one(lambda d: d.show_tensor(grid, heat=True)), Look(room=560)))
    assert summary == "The heat map in numbers, row by row"
    assert rows[0] == ["row", "smallest", "largest"] and rows[2] == ["1", "100 at 0", "139 at 39"]
