"""The items of :mod:`labs.display` drawn as static HTML, for a notebook cell's output.

The lesson page draws each item with ``web/src/render.js``; a notebook (JupyterLite, Pyodide
kernel) shows the same items through :func:`item_html`, which answers one self-contained HTML
fragment per item. Graphviz pictures come from the ``svg`` function it is given (viz.js in the
kernel); plots, boundaries and heat maps are inline SVG made here. Every piece of text that
comes from an item is escaped. Text and axes use ``currentColor`` and fills are mid-tones, so
the output reads in light and dark themes alike. Standard library only.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["item_html"]

Item = dict[str, Any]
Svg = Callable[[str], str]
Scale = tuple[Callable[[float], float], list[float]]

SERIES_COLOURS = ("#3b82f6", "#f97316", "#10b981", "#d946ef")  # mid-tones, one per line (as render.js, by 4)
PLUS, MINUS, HEAT = "#3b82f6", "#f97316", "#8b5cf6"
BORDER = "rgba(128, 128, 128, 0.5)"
FLEX = "display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start"
SVG_STYLE = "max-width:100%;height:auto;font-family:sans-serif;font-size:11px"
OPEN_TABLE_UP_TO = 12  # node tables of graphs this small start open

SORT_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "enter": lambda e: f"Pop {e['node']}: not seen yet, so mark it seen, push it back as \"parents done\", "
                       "then push its parents.",
    "follow": lambda e: f"Push {e['node']}, a parent of {e['via']}.",
    "skip-seen": lambda e: f"Pop {e['node']}: already seen, skip it.",
    "append": lambda e: f"Pop {e['node']} with its parents done: append it to the order.",
}


def item_html(item: dict, svg: Svg) -> str:
    """One item of a cell's outputs as one HTML fragment; ``svg(dot)`` draws Graphviz DOT as SVG."""
    draw = DRAW.get(item.get("kind", ""))
    if draw is None:
        return _unknown(item)
    return draw(item, svg)


# --- small pieces -------------------------------------------------------------------------------


def _e(text: object) -> str:
    """Any text from an item, escaped for HTML text and attribute values."""
    return html.escape(str(text), quote=True)


def _num(x: object) -> str:
    """A number as the cards show it (whole numbers bare, else 6 significant digits); '?' for None."""
    if x is None:
        return "?"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if math.isfinite(x) and float(x).is_integer():
        return str(int(x))
    return f"{x:.6g}"


def _f(x: float) -> str:
    """A coordinate for an SVG attribute."""
    return f"{x:.1f}"


def _heading(title: object) -> str:
    """An <h4> with the title, or nothing when there is no title."""
    return f"<h4>{_e(title)}</h4>" if title else ""


def _ordered(lines: Iterable[str], style: str = "") -> str:
    """An <ol> of already-made HTML list entries; '(empty)' when there are none."""
    entries = "".join(f"<li>{line}</li>" for line in lines) or "<li><em>(empty)</em></li>"
    return f'<ol style="{style}">{entries}</ol>' if style else f"<ol>{entries}</ol>"


def _names(names: Sequence[object]) -> str:
    """A list of names as escaped text, comma separated, '(empty)' when there are none."""
    return ", ".join(_e(name) for name in names) or "(empty)"


def _error(text: object) -> str:
    """A sentence that says something went wrong, marked so it stands out in both themes."""
    return f'<p style="border-left:3px solid {MINUS};padding-left:0.5em">{_e(text)}</p>'


def _dot_picture(svg: Svg, dot: str, alt: str) -> str:
    """The Graphviz picture of ``dot`` with a text alternative, or why it could not be drawn."""
    try:
        text = svg(dot)
    except Exception as exc:  # viz.js may refuse a picture; the rest of the item still shows
        return _error(f"Could not draw the graph: {exc}")
    start = text.find("<svg")
    picture = text[start:] if start > 0 else text  # drop an <?xml ...?> prolog and DOCTYPE
    return f'<div role="img" aria-label="{_e(alt)}" style="overflow:auto;max-width:100%">{picture}</div>'


def _svg_open(width: int, height: int, alt: str) -> str:
    """The opening of an inline SVG picture, with its text alternative as aria-label and <title>."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{_e(alt)}" style="{SVG_STYLE}">'
            f"<title>{_e(alt)}</title>")


def _text(x: float, y: float, words: object, anchor: str = "middle", extra: str = "") -> str:
    """A piece of SVG text in the theme's text colour."""
    return (f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" fill="currentColor"{extra}>'
            f"{_e(words)}</text>")


def _figure(picture: str, caption: object, extra: str = "") -> str:
    """A <figure> holding a picture, anything after it, and its caption."""
    caption_html = f"<figcaption>{_e(caption)}</figcaption>" if caption else ""
    return f'<figure style="margin:0.5em 0">{picture}{extra}{caption_html}</figure>'


# --- scales and ticks ---------------------------------------------------------------------------


def _scale(values: Sequence[float], log: bool, start: float, end: float) -> Scale:
    """A map from data to pixels (linear or base-10 log) and its tick values, as render.js makes them."""
    t = math.log10 if log else float
    low, high = min(t(v) for v in values), max(t(v) for v in values)
    if not high > low:
        low, high = low - 1, high + 1

    def place(v: float) -> float:
        return start + (t(v) - low) / (high - low) * (end - start)

    return place, _log_ticks(low, high) if log else _linear_ticks(low, high)


def _log_ticks(low: float, high: float) -> list[float]:
    """Powers of ten between low and high (given as exponents), at most about six of them."""
    stride = max(1, math.ceil((high - low) / 6))
    return [10.0 ** e for e in range(math.ceil(low), math.floor(high) + 1, stride)]


def _linear_ticks(low: float, high: float) -> list[float]:
    """Round values (steps of 1, 2 or 5 times a power of ten) between low and high, about four steps."""
    rough = (high - low) / 4
    power = 10.0 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    first, last = math.ceil(low / step), math.floor(high / step + 1e-9)
    return [float(f"{k * step:.12g}") for k in range(first, last + 1)]


def _tick_text(v: float) -> str:
    """A tick label: compact, in powers of ten when very large or very small."""
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-2:
        return f"{v:.0e}".replace("e+0", "e+").replace("e-0", "e-")
    return f"{float(f'{v:.3g}'):g}"


# --- graphs -------------------------------------------------------------------------------------


def _graph(item: Item, svg: Svg) -> str:
    """A graph: its title, its counts, its node table (folded when large) and its picture."""
    nodes, edges = item.get("nodes", 0), item.get("edges", 0)
    alt = f"{item.get('title') or 'The graph'}: {nodes} nodes and {edges} backward edges, with values and gradients"
    opened = " open" if isinstance(nodes, int) and nodes <= OPEN_TABLE_UP_TO else ""
    table = f"<details{opened}><summary>Table of the nodes</summary>{item.get('table', '')}</details>"
    return (f'<div class="ember-graph">{_heading(item.get("title"))}'
            f"<p>{_e(nodes)} nodes, {_e(edges)} backward edges</p>"
            f'<div style="{FLEX}">{table}{_dot_picture(svg, item.get("dot", ""), alt)}</div></div>')


def _side_by_side(parts: Iterable[str]) -> str:
    """Pictures next to each other, wrapping onto new lines when the column is narrow."""
    boxes = "".join(f'<div style="flex:1 1 20em;min-width:0">{part}</div>' for part in parts)
    return f'<div style="{FLEX}">{boxes}</div>'


def _pair(item: Item, svg: Svg) -> str:
    """Two graphs side by side."""
    return _side_by_side(_graph(one, svg) for one in item.get("graphs", []))


# --- tables and text ----------------------------------------------------------------------------


def _table(item: Item, svg: Svg) -> str:
    """A table of plain text, every header and cell escaped."""
    head = "".join(f"<th>{_e(h)}</th>" for h in item.get("headers", []))
    rows = "".join("<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>"
                   for row in item.get("rows", []))
    return (f'<div class="ember-table">{_heading(item.get("title"))}'
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>")


def _printed(item: Item, svg: Svg) -> str:
    """Printed text (stdout or stderr), and how much of it was left out when it was long."""
    stderr = item.get("kind") == "stderr"
    style = f' style="border-left:3px solid {MINUS};padding-left:0.5em"' if stderr else ""
    shown = f'<pre class="ember-{_e(item.get("kind"))}"{style}>{_e(item.get("text", ""))}</pre>'
    more = item.get("more_lines")
    if not more:
        return shown
    total = item.get("total_lines", "?")
    return shown + f"<p>… {_e(more)} more line{'' if more == 1 else 's'} ({_e(total)} in all) not shown.</p>"


def _unknown(item: Item) -> str:
    """An item this module cannot draw: a sentence that says so, and the item itself as JSON."""
    kind = item.get("kind", "(none)")
    data = json.dumps(item, indent=1, default=str, ensure_ascii=False)
    return (f'<div class="ember-unknown"><p>This picture (an item of kind "{_e(kind)}") is only drawn in the '
            f"lesson page; here is what it holds.</p><pre>{_e(data)}</pre></div>")


# --- plots --------------------------------------------------------------------------------------


def _plottable(points: Iterable[Sequence[float]], log_x: bool, log_y: bool) -> list[tuple[float, float]]:
    """The points that can be drawn: finite, and positive on a log axis."""
    kept = []
    for x, y in points:
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        if (log_x and x <= 0) or (log_y and y <= 0):
            continue
        kept.append((float(x), float(y)))
    return kept


def _plot(item: Item, svg: Svg) -> str:
    """A line plot as inline SVG: axes with ticks, optional log axes, one polyline per series, a legend."""
    width, height, left, right, top, bottom = 560, 300, 64, 16, 28, 44
    log_x, log_y = bool(item.get("log_x")), bool(item.get("log_y"))
    series = [(str(line.get("name", "")), _plottable(line.get("points", []), log_x, log_y))
              for line in item.get("series", [])]
    everything = [point for _, points in series for point in points]
    alt = item.get("alt") or item.get("title") or "Plot"
    if not everything:
        return _figure("<p>(nothing to plot yet)</p>", item.get("title"))
    x, x_ticks = _scale([p[0] for p in everything], log_x, left, width - right)
    y, y_ticks = _scale([p[1] for p in everything], log_y, height - bottom, top)
    parts = [_svg_open(width, height, alt),
             f'<g stroke="currentColor" stroke-width="1"><line x1="{left}" y1="{height - bottom}" '
             f'x2="{width - right}" y2="{height - bottom}"/><line x1="{left}" y1="{top}" x2="{left}" '
             f'y2="{height - bottom}"/></g>']
    parts += [_text(x(tick), height - bottom + 16, _tick_text(tick)) for tick in x_ticks]
    parts += [_text(left - 6, y(tick) + 4, _tick_text(tick), "end") for tick in y_ticks]
    parts.append(_text((left + width - right) / 2, height - 6,
                       f"{item.get('x_label', 'x')}{' (log)' if log_x else ''}"))
    parts.append(_text(14, top - 10, f"{item.get('y_label', 'y')}{' (log)' if log_y else ''}", "start"))
    for index, (name, points) in enumerate(series):
        parts.append(_polyline([(x(px), y(py)) for px, py in points], SERIES_COLOURS[index % 4], name))
    parts.append("</svg>")
    legend = _legend([name for name, _ in series]) if len(series) > 1 or series[0][0] else ""
    return _figure("".join(parts), item.get("title"), legend)


def _polyline(points: Sequence[tuple[float, float]], colour: str, name: str) -> str:
    """One series as a polyline (a lone point also gets a dot, since a line of one point is invisible)."""
    joined = " ".join(f"{_f(px)},{_f(py)}" for px, py in points)
    dot = (f'<circle cx="{_f(points[0][0])}" cy="{_f(points[0][1])}" r="3" fill="{colour}"/>'
           if len(points) == 1 else "")
    return (f'<polyline points="{joined}" fill="none" stroke="{colour}" stroke-width="2" '
            f'data-series="{_e(name)}"><title>{_e(name)}</title></polyline>{dot}')


def _legend(names: Sequence[str]) -> str:
    """The name of each series beside a swatch of its colour."""
    entries = "".join(
        f'<li style="display:inline-block;margin-right:1.2em"><span aria-hidden="true" style="display:inline-block;'
        f'width:1.4em;height:0.25em;vertical-align:middle;margin-right:0.4em;'
        f'background:{SERIES_COLOURS[i % 4]}"></span>{_e(name)}</li>'
        for i, name in enumerate(names))
    return f'<ul class="ember-legend" style="list-style:none;padding:0;margin:0.3em 0">{entries}</ul>'


# --- coloured planes ----------------------------------------------------------------------------


def _cells(values: Sequence[float], n: int, size: float, at: tuple[float, float],
           colour: Callable[[float], tuple[str, float] | None]) -> list[str]:
    """A grid of n × n rects filling a square of ``size`` at ``at``; colour(v) gives (fill, opacity) or None."""
    cell = size / n
    rects = []
    for index, value in enumerate(values):
        paint = colour(value) if math.isfinite(value) else None
        if paint is None:
            continue
        x, y = at[0] + (index % n) * cell, at[1] + (index // n) * cell
        rects.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(cell + 0.5)}" height="{_f(cell + 0.5)}" '
                     f'fill="{paint[0]}" fill-opacity="{paint[1]:.2f}"/>')
    return rects


def _boundary(item: Item, svg: Svg) -> str:
    """The plane coloured by the sign of a model's output (stronger where surer), labelled points on top."""
    size = 320
    x0, x1, y0, y1 = item["extent"]
    alt = item.get("alt") or item.get("title") or "Decision boundary"
    parts = [_svg_open(size, size, alt)]
    parts += _cells(item.get("values", []), item["resolution"], size, (0, 0),
                    lambda v: (PLUS if v > 0 else MINUS, min(1.0, abs(v)) * 0.55 + 0.1))
    for px, py, label in item.get("points", []):
        cx, cy = (px - x0) / (x1 - x0) * size, (y1 - py) / (y1 - y0) * size
        fill = PLUS if label > 0 else MINUS
        parts.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="4.5" fill="{fill}" stroke="currentColor" '
                     f'stroke-width="1.2"/>')
    parts.append("</svg>")
    return _figure("".join(parts), item.get("title") or alt)


def _field(item: Item, svg: Svg) -> str:
    """A heat map of f(x, y) with arrows on top and axes in data units."""
    size, left, bottom, top, right = 320, 44, 36, 8, 8
    width, height = left + size + right, top + size + bottom
    x0, x1, y0, y1 = item["extent"]
    low, high = item.get("low", 0.0), item.get("high", 0.0)
    reach = max(abs(low), abs(high)) or 1.0
    diverging = low < 0 < high

    def colour(v: float) -> tuple[str, float]:
        if diverging:
            return (PLUS if v > 0 else MINUS), 0.06 + 0.8 * abs(v) / reach
        return HEAT, 0.06 + 0.8 * (v - low) / ((high - low) or 1.0)

    alt = item.get("alt") or item.get("title") or "Heat map"
    parts = [_svg_open(width, height, alt)]
    parts += _cells(item.get("values", []), item["resolution"], size, (left, top), colour)

    def to_px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * size

    def to_py(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * size

    parts += _arrows(item.get("arrows", []), to_px, to_py, size)
    parts.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="currentColor"/>')
    x_at, x_ticks = _scale([x0, x1], False, left, left + size)
    y_at, y_ticks = _scale([y0, y1], False, top + size, top)
    parts += [_text(x_at(tick), top + size + 14, _tick_text(tick)) for tick in x_ticks]
    parts += [_text(left - 5, y_at(tick) + 4, _tick_text(tick), "end") for tick in y_ticks]
    parts.append(_text(left + size / 2, height - 4, item.get("x_label", "x")))
    middle = top + size / 2
    parts.append(_text(10, middle, item.get("y_label", "y"), extra=f' transform="rotate(-90 10 {_f(middle)})"'))
    parts.append("</svg>")
    return _figure("".join(parts), item.get("title") or alt)


def _arrows(arrows: Sequence[Sequence[float]], to_px: Callable[[float], float], to_py: Callable[[float], float],
            size: float) -> list[str]:
    """Arrows ((x, y), (dx, dy)) drawn to scale, the longest a sixth of the picture."""
    longest = max([math.hypot(dx, dy) for _, _, dx, dy in arrows] + [1e-12])
    shapes = []
    for ax, ay, dx, dy in arrows:
        length = math.hypot(dx, dy) / longest * size * 0.16
        angle = math.atan2(-dy, dx)  # screen y grows downward
        sx, sy = to_px(ax), to_py(ay)
        ex, ey = sx + length * math.cos(angle), sy + length * math.sin(angle)
        wings = " ".join(f"{_f(ex - 7 * math.cos(angle + turn))},{_f(ey - 7 * math.sin(angle + turn))}"
                         for turn in (0.45, -0.45))
        shapes.append(f'<g class="ember-arrow" stroke="currentColor" fill="currentColor">'
                      f'<circle cx="{_f(sx)}" cy="{_f(sy)}" r="2.5"/>'
                      f'<line x1="{_f(sx)}" y1="{_f(sy)}" x2="{_f(ex)}" y2="{_f(ey)}" stroke-width="1.6"/>'
                      f'<polygon points="{_f(ex)},{_f(ey)} {wings}"/></g>')
    return shapes


# --- step-throughs ------------------------------------------------------------------------------


def _sort_sentence(event: dict[str, Any]) -> str:
    """What one event of the depth-first sort did, in the words of the lesson page."""
    words = SORT_WORDS.get(event.get("kind", ""))
    return words(event) if words else f"{event.get('kind')} {event.get('node')}"


def _sort_state(event: dict[str, Any]) -> str:
    """The stack, seen set and order right after one event, as one small line."""
    stack = [f"{name}{' ✓ parents done' if done else ''}" for name, done in event.get("stack", [])]
    return (f"<br><small>stack (top last): {_names(stack)} · seen: {_names(event.get('seen', []))} · "
            f"order so far: {_names(event.get('order', []))}</small>")


def _sort(item: Item, svg: Svg) -> str:
    """The depth-first ordering: the picture, each event as a sentence (with the state after it), the order."""
    trace = item.get("trace", {})
    events = trace.get("events", [])
    steps = _ordered(_e(_sort_sentence(event)) + _sort_state(event) for event in events)
    cut = ""
    if trace.get("truncated"):
        cut = f"<p>Only the first {len(events)} of {_e(trace.get('total_events', '?'))} steps are shown.</p>"
    return (f'<div class="ember-sort"><h4>The depth-first ordering, step by step</h4>'
            f"{_dot_picture(svg, item.get('dot', ''), 'The graph being ordered')}{steps}{cut}"
            f"<p><strong>Order:</strong> {_names(trace.get('order', []))}</p></div>")


def _card(edge: dict[str, Any]) -> str:
    """One edge of the backward pass: step n · output → input, upstream × local = share, before → after."""
    return (f"<strong>step {_e(edge.get('step', 0) + 1)} · {_e(edge.get('output'))} → {_e(edge.get('input'))}"
            f"</strong><br>{_e(_num(edge.get('upstream')))} × {_e(_num(edge.get('local')))} = "
            f"{_e(_num(edge.get('share')))}<br>{_e(edge.get('input'))}.grad: {_e(_num(edge.get('grad_before')))}"
            f" → {_e(_num(edge.get('grad_after')))}")


CARD_LIST = "list-style:none;padding:0;margin:0"
CARD_STYLE = f"border:1px solid {BORDER};border-radius:4px;padding:0.3em 0.6em;margin:0.3em 0"


def _backward(item: Item, svg: Svg) -> str:
    """The backward cards: whose order it is, the seed, one card per edge in order, and any error."""
    trace = item.get("trace", {})
    parts = [f'<div class="ember-cards" data-source="{_e(trace.get("source") or "hx")}">', _heading(item.get("title"))]
    if trace.get("source") == "yours":
        parts.append(f"<p>Your backward() called _backward on: {_e(', '.join(trace.get('calls') or []) or '(none)')}"
                     "</p>")
    if trace.get("root") is not None and trace.get("seed") is not None:
        parts.append(f'<div style="{CARD_STYLE}"><strong>seed</strong><br>'
                     f"{_e(trace['root'])}.grad = {_e(_num(trace['seed']))}</div>")
    cards = "".join(f'<li style="{CARD_STYLE}">{_card(edge)}</li>' for edge in trace.get("edges", []))
    parts.append(f'<ol style="{CARD_LIST}">{cards}</ol>')
    if trace.get("error"):
        parts.append(_error(trace["error"]))
    parts.append("</div>")
    return "".join(parts)


def _backward_pair(item: Item, svg: Svg) -> str:
    """Two sets of backward cards side by side."""
    return _side_by_side(_backward(cards, svg) for cards in item.get("cards", []))


def _returned_order(events: Sequence[dict[str, Any]]) -> list[str]:
    """The order the learner's sort returned, as its last step lists it."""
    if not events:
        return []
    for title, names in events[-1].get("panels", []):
        if title == "order returned":
            return list(names)
    return []


def _sort_steps(item: Item, svg: Svg) -> str:
    """A learner's sort step by step: the picture, each step's sentence, and the order it returned."""
    events = item.get("events", [])
    alt = f"{item.get('title') or 'The graph'}: {item.get('nodes', '?')} nodes"
    steps = _ordered(_e(event.get("text", "")) for event in events)
    return (f'<div class="ember-sort-steps">{_heading(item.get("title"))}'
            f"{_dot_picture(svg, item.get('dot', ''), alt)}{steps}"
            f"<p><strong>Order returned:</strong> {_names(_returned_order(events))}</p></div>")


DRAW: dict[str, Callable[[Item, Svg], str]] = {
    "graph": _graph, "pair": _pair, "table": _table, "plot": _plot, "boundary": _boundary, "field": _field,
    "sort": _sort, "backward": _backward, "backward_pair": _backward_pair, "sort_steps": _sort_steps,
    "stdout": _printed, "stderr": _printed,
}
