"""Every item of a cell's outputs (see :mod:`labs.showing.display`) drawn as HTML, once, for every front end.

The lesson page and the notebook both show what :func:`render` answers. The page's worker adds
it to each item as ``item["html"]``, and ``web/src/page/cell-output.js`` inserts it, adding only what moves:
Graphviz pictures (a ``data-dot`` placeholder that viz.js fills), the Back / Next / Play controls
over the frames drawn here, live updates by key, and the buttons of long text. The notebook
(:mod:`labs.frontends.notebook`) asks for the same HTML with a :class:`Look` that draws Graphviz in the
kernel and adds inline styles, since it has no ``ember.css``.

Every piece of text that comes from an item is escaped. Colours come from CSS classes on the page
(light and dark themes); SVG presentation attributes and ``currentColor`` are the notebook's
fallback, which the page's style sheet overrides. Adding a kind of picture: one function and one
entry in :data:`DRAW` (and its classes in ``docs/assets/ember.css``). Standard library only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hx.fmt import escape_html
from labs.course.words import counted

__all__ = ["DRAW", "INTERACTIVE", "PAGE", "Look", "item_html", "render"]

Item = dict[str, Any]
Svg = Callable[[str], str]
Scale = tuple[Callable[[float], float], list[float]]


@dataclass(frozen=True)
class Look:
    """Where the HTML goes: how Graphviz is drawn, how wide the output is, and whether to inline styles."""

    svg: Svg | None = None  # DOT to SVG (the notebook); None leaves a placeholder the page fills with viz.js
    room: int | None = None  # the output's width in CSS pixels (the page measures it); None: the widest
    inline: bool = False  # style attributes for a front end without ember.css (the notebook)


PAGE = Look()
SERIES_COLOURS = ("#3b82f6", "#f97316", "#10b981", "#d946ef")  # fallbacks; the page's CSS has its own
PLUS, MINUS, HEAT = "#3b82f6", "#f97316", "#8b5cf6"
BORDER = "rgba(128, 128, 128, 0.5)"
FLEX = "display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start"
OPEN_TABLE_UP_TO = 12  # node tables of graphs this small start open
LIVE_LINES = 40  # a running cell shows its latest lines, at most this many (labs.showing.outputs sends them)
# What the page's JavaScript still does for these kinds, beyond inserting the HTML made here.
INTERACTIVE = {
    "graph": "viz.js draws the data-dot placeholder", "pair": "viz.js draws the data-dot placeholders",
    "sort": "Back / Next / Play over the frames", "sort_steps": "Back / Next / Play over the frames",
    "stdout": "buttons that open or download long text", "stderr": "buttons that open or download long text",
    "text": "replaced by key while the cell runs",
}

SORT_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "enter": lambda e: f"Pop {e['node']}: not seen yet, so mark it seen, push it back as \"parents done\", "
                       "then push its parents.",
    "follow": lambda e: f"Push {e['node']}, a parent of {e['via']}.",
    "skip-seen": lambda e: f"Pop {e['node']}: already seen, skip it.",
    "append": lambda e: f"Pop {e['node']} with its parents done: append it to the order.",
}


def render(item: Item, look: Look = PAGE) -> str:
    """One item of a cell's outputs as one HTML fragment."""
    draw = DRAW.get(item.get("kind", ""))
    return _unknown(item) if draw is None else draw(item, look)


def item_html(item: Item, svg: Svg) -> str:
    """The notebook's HTML for an item: ``svg(dot)`` draws Graphviz, styles are inline."""
    return render(item, Look(svg=svg, inline=True))


# --- small pieces -------------------------------------------------------------------------------


def _e(text: object) -> str:
    """Any text from an item, escaped for HTML text and attribute values."""
    return escape_html(str(text))


def _s(look: Look, css: str) -> str:
    """A style attribute for the notebook; nothing on the page, whose style sheet has the same rules."""
    return f' style="{css}"' if look.inline and css else ""


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


def _round(x: float) -> int:
    """Half up, as JavaScript's Math.round."""
    return math.floor(x + 0.5)


def _room(look: Look, low: int, high: int) -> int:
    """The width a picture gets: the output's, within [low, high]; ``high`` where it is not known.

    Pictures are laid out at this width and drawn at their own size, so their text keeps the size
    the style sheet gives it (11 px and up) on a phone too, instead of shrinking with the picture.
    """
    return high if not look.room or look.room <= 0 else max(low, min(high, int(look.room)))


def _heading(title: object, cls: str = "") -> str:
    """An <h4> with the title, or nothing when there is no title."""
    if not title:
        return ""
    return f'<h4 class="{cls}">{_e(title)}</h4>' if cls else f"<h4>{_e(title)}</h4>"


def _names(names: Sequence[object]) -> str:
    """A list of names as escaped text, comma separated, '(empty)' when there are none."""
    return ", ".join(_e(name) for name in names) or "(empty)"


def _count(n: object) -> str:
    """A count with thousands separators (1,000)."""
    return f"{n:,}" if isinstance(n, int) else _e(n)


def _error(text: object, look: Look, kind: str = "ember-error") -> str:
    """A sentence that says something went wrong, marked so it stands out in both themes.

    ``kind`` is the class: ``ember-error`` for a failure, another for a refusal the picture means to show.
    """
    return f'<p class="{kind}"{_s(look, f"border-left:3px solid {MINUS};padding-left:0.5em")}>{_e(text)}</p>'


def _dot_picture(look: Look, dot: str, alt: str, fit: bool = False) -> str:
    """The Graphviz picture of ``dot``: drawn now (notebook) or a placeholder viz.js fills (page).

    ``fit``: the page may lay a wide left-to-right picture out top to bottom to fit its column.
    """
    if look.svg is None:
        return (f'<figure class="ember-figure" data-dot="{_e(dot)}" data-alt="{_e(alt)}"'
                f'{" data-fit" if fit else ""}></figure>')
    try:
        text = look.svg(dot)
    except Exception as exc:  # viz.js may refuse a picture; the rest of the item still shows
        return _error(f"Could not draw the graph: {exc}", look)
    start = text.find("<svg")
    picture = text[start:] if start > 0 else text  # drop an <?xml ...?> prolog and DOCTYPE
    return (f'<div class="ember-figure" role="img" aria-label="{_e(alt)}" style="overflow:auto;max-width:100%">'
            f"{picture}</div>")


def _svg_open(width: int, height: int, alt: str, look: Look) -> str:
    """The opening of an inline SVG picture, with its text alternative as aria-label and <title>."""
    style = _s(look, "max-width:100%;height:auto;font-family:sans-serif;font-size:11px")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{_e(alt)}"{style}><title>{_e(alt)}</title>')


def _text(x: float, y: float, words: object, cls: str, anchor: str = "middle", extra: str = "") -> str:
    """A piece of SVG text (a tick or a label) in the theme's text colour."""
    return (f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" class="{cls}" fill="currentColor"{extra}>'
            f"{_e(words)}</text>")


def _figure(cls: str, picture: str, caption: object, look: Look, extra: str = "", key: object = None) -> str:
    """A <figure> holding a picture, anything after it, and its caption."""
    caption_html = f"<figcaption>{_e(caption)}</figcaption>" if caption else ""
    keyed = f' data-key="{_e(key)}"' if key else ""
    return (f'<figure class="ember-figure {cls}"{keyed}{_s(look, "margin:0.5em 0")}>'
            f"{picture}{extra}{caption_html}</figure>")


# --- scales and ticks ---------------------------------------------------------------------------


def _scale(values: Sequence[float], log: bool, start: float, end: float) -> Scale:
    """A map from data to pixels (linear or base-10 log) and its tick values."""
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


def _graph(item: Item, look: Look, fit: bool = True) -> str:
    """A graph: its title, its counts, its node table (folded when large) and its picture."""
    nodes, edges = item.get("nodes", 0), item.get("edges", 0)
    alt = (f"{item.get('title') or 'The graph'}: {counted(nodes, 'node')} and {counted(edges, 'backward edge')}, "
           "with values and gradients")
    opened = " open" if isinstance(nodes, int) and nodes <= OPEN_TABLE_UP_TO else ""
    table = (f'<details class="ember-table"{opened}><summary>Table of the nodes</summary>'
             f"{item.get('table', '')}</details>")  # built by hx, every label escaped
    return (f'<div class="ember-graph">{_heading(item.get("title"), "ember-graph-title")}'
            f'<p class="ember-graph-counts">{_e(counted(nodes, "node"))}, {_e(counted(edges, "backward edge"))}</p>'
            f'<div class="ember-graph-body"{_s(look, FLEX)}>{table}'
            f'{_dot_picture(look, item.get("dot", ""), alt, fit)}</div></div>')


def _side_by_side(cls: str, parts: Iterable[str], look: Look) -> str:
    """Pictures next to each other, wrapping onto new lines when the column is narrow."""
    if look.inline:
        parts = (f'<div style="flex:1 1 20em;min-width:0">{part}</div>' for part in parts)
    return f'<div class="{cls}"{_s(look, FLEX)}>{"".join(parts)}</div>'


def _pair(item: Item, look: Look) -> str:
    """Two graphs side by side."""
    return _side_by_side("ember-pair", (_graph(one, look, fit=False) for one in item.get("graphs", [])), look)


# --- tables and text ----------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    """Whether a table cell reads as a number (it is then aligned right): 'ee', a name, is text."""
    return any(c.isdigit() for c in text) and all(c in "0123456789.-+e" for c in text)


def _table(item: Item, look: Look) -> str:
    """A table of plain text, every header and cell escaped."""
    head = "".join(f"<th>{_e(h)}</th>" for h in item.get("headers", []))
    rows = "".join("<tr>" + "".join(
        f'<td class="hx-num">{_e(cell)}</td>' if _is_number(str(cell)) else f"<td>{_e(cell)}</td>" for cell in row)
        + "</tr>" for row in item.get("rows", []))
    return (f'<div class="ember-table">{_heading(item.get("title"))}'
            f'<table class="hx-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')


def _printed(item: Item, look: Look) -> str:
    """Printed text (stdout or stderr); when long, its first lines and how much was left out."""
    stderr = item.get("kind") == "stderr"
    style = _s(look, f"border-left:3px solid {MINUS};padding-left:0.5em") if stderr else ""
    shown = f'<pre class="ember-{_e(item.get("kind"))}"{style}>{_e(item.get("text", ""))}</pre>'
    more, dropped = item.get("more_lines") or 0, item.get("dropped_chars")
    if not more and not dropped:
        return shown
    total = item.get("total_lines", "?")
    words = (f"… {_count(more)} more line{'' if more == 1 else 's'} ({_count(total)} in all) "
             "are not shown here.")
    if dropped:
        kept = len(item.get("full") or "")
        words += (f" Past the first {counted(kept, 'character', separators=True)}, {_count(dropped)} "
                  f"{'was' if dropped == 1 else 'were'} not kept.")
    return f'<div class="ember-text-flood">{shown}<p class="ember-more">{words}</p></div>'


def _live_text(item: Item, look: Look) -> str:
    """The latest lines a running cell printed, and how many it has printed so far."""
    stream = "stderr" if item.get("stream") == "stderr" else "stdout"
    box = f'<pre class="ember-{stream}">{_e(item.get("text", ""))}</pre>'
    lines = item.get("lines") or 0
    if isinstance(lines, int) and lines > LIVE_LINES:
        box += f'<p class="ember-more">{_count(lines)} lines so far; the latest are shown.</p>'
    return f'<div class="ember-live-text">{box}</div>'


def _unknown(item: Item) -> str:
    """An item nobody can draw: a sentence that says so, and the item itself as JSON."""
    kind = item.get("kind", "(none)")
    data = json.dumps({k: v for k, v in item.items() if k != "html"}, indent=1, default=str, ensure_ascii=False)
    return (f'<div class="ember-unknown"><p>This course cannot draw an item of kind "{_e(kind)}"; '
            f"here is what it holds.</p><pre>{_e(data)}</pre></div>")


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


def _plot(item: Item, look: Look) -> str:
    """A line plot: axes with ticks, optional log axes, one line per series, a legend, as wide as it may be."""
    width, left, right, top, bottom = _room(look, 280, 560), 64, 16, 28, 44
    height = _round(max(230, min(300, width * 0.6)))
    log_x, log_y = bool(item.get("log_x")), bool(item.get("log_y"))
    series = [(str(line.get("name", "")), _plottable(line.get("points", []), log_x, log_y))
              for line in item.get("series", [])]
    everything = [point for _, points in series for point in points]
    alt = item.get("alt") or item.get("title") or "Plot"
    if not everything:
        return _figure("ember-plot", "<p>(nothing to plot yet)</p>", item.get("title"), look, key=item.get("key"))
    x, x_ticks = _scale([p[0] for p in everything], log_x, left, width - right)
    y, y_ticks = _scale([p[1] for p in everything], log_y, height - bottom, top)
    axis = 'class="ember-axis" stroke="currentColor"'
    parts = [_svg_open(width, height, alt, look),
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" {axis}/>'
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" {axis}/>']
    parts += [_text(x(tick), height - bottom + 16, _tick_text(tick), "ember-tick") for tick in x_ticks]
    parts += [_text(left - 6, y(tick) + 4, _tick_text(tick), "ember-tick", "end") for tick in y_ticks]
    parts.append(_text((left + width - right) / 2, height - 6,
                       f"{item.get('x_label', 'x')}{' (log)' if log_x else ''}", "ember-label"))
    parts.append(_text(14, top - 10, f"{item.get('y_label', 'y')}{' (log)' if log_y else ''}", "ember-label",
                       "start"))
    for index, (name, points) in enumerate(series):
        parts.append(_line([(x(px), y(py)) for px, py in points], index, name))
    parts.append("</svg>")
    legend = _legend([name for name, _ in series], look) if len(series) > 1 or series[0][0] else ""
    numbers = _plot_numbers(item, look)
    return _figure("ember-plot", "".join(parts), item.get("title"), look, legend + numbers, key=item.get("key"))


def _folded_table(summary: str, headers: Sequence[str], rows: Sequence[Sequence[object]], look: Look) -> str:
    """A picture's numbers as a table a listener can reach, folded under ``summary`` (a picture's text equivalent)."""
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="hx-num">{_e(c)}</td>' if _is_number(str(c)) else f"<td>{_e(c)}</td>"
                                    for c in row) + "</tr>" for row in rows)
    return (f'<details class="ember-table ember-numbers"><summary>{_e(summary)}</summary>'
            f'<table class="hx-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>')


def _plot_numbers(item: Item, look: Look) -> str:
    """Each line of a plot in numbers: how many points, where it starts and ends, its lowest and highest y."""
    rows = []
    for line in item.get("series", []):
        points = [(float(x), float(y)) for x, y in line.get("points", []) if _finite(x) and _finite(y)]
        if not points:
            continue
        low = min(points, key=lambda p: p[1])
        high = max(points, key=lambda p: p[1])
        at = lambda p: f"{_num(p[1])} at {_num(p[0])}"
        rows.append([line.get("name") or "the line", len(points), at(points[0]), at(points[-1]), at(low), at(high)])
    x, y = item.get("x_label", "x"), item.get("y_label", "y")
    return _folded_table("The plot in numbers", ["line", "points", f"first {y} (at {x})", f"last {y} (at {x})",
                                                  f"lowest {y} (at {x})", f"highest {y} (at {x})"], rows, look)


def _finite(v: object) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _line(points: Sequence[tuple[float, float]], index: int, name: str) -> str:
    """One series as a path (a lone point also gets a dot, since a line of one point is invisible)."""
    if not points:
        return ""
    d = " ".join(f"{'L' if i else 'M'}{_f(px)},{_f(py)}" for i, (px, py) in enumerate(points))
    colour, cls = SERIES_COLOURS[index % 4], f"ember-line ember-line-{index % 4}"
    dot = (f'<circle cx="{_f(points[0][0])}" cy="{_f(points[0][1])}" r="3" class="{cls}" fill="{colour}"/>'
           if len(points) == 1 else "")
    return (f'<path d="{d}" class="{cls}" fill="none" stroke="{colour}" stroke-width="2" '
            f'data-series="{_e(name)}"><title>{_e(name)}</title></path>{dot}')


def _legend(names: Sequence[str], look: Look) -> str:
    """The name of each series beside a swatch of its colour."""
    swatch = "display:inline-block;width:1.4em;height:0.25em;vertical-align:middle;margin-right:0.4em;background:"
    entries = "".join(
        f'<li{_s(look, "display:inline-block;margin-right:1.2em")}><span class="ember-swatch ember-swatch-{i % 4}" '
        f'aria-hidden="true"{_s(look, swatch + SERIES_COLOURS[i % 4])}></span>{_e(name)}</li>'
        for i, name in enumerate(names))
    return f'<ul class="ember-legend"{_s(look, "list-style:none;padding:0;margin:0.3em 0")}>{entries}</ul>'


# --- coloured planes ----------------------------------------------------------------------------


def _cells(values: Sequence[float], n: int, size: float, at: tuple[float, float],
           colour: Callable[[float], tuple[str, str, float] | None]) -> list[str]:
    """A grid of n × n rects filling a square of ``size`` at ``at``; colour(v): (class, fill, opacity) or None."""
    cell = size / n
    rects = []
    for index, value in enumerate(values):
        paint = colour(value) if math.isfinite(value) else None
        if paint is None:
            continue
        x, y = at[0] + (index % n) * cell, at[1] + (index // n) * cell
        rects.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(cell + 0.5)}" height="{_f(cell + 0.5)}" '
                     f'class="{paint[0]}" fill="{paint[1]}" fill-opacity="{paint[2]:.2f}"/>')
    return rects


def _sign(v: float) -> tuple[str, str]:
    """The class and fallback fill of a positive or a negative value."""
    return ("ember-plus", PLUS) if v > 0 else ("ember-minus", MINUS)


def _boundary(item: Item, look: Look) -> str:
    """The plane coloured by the sign of a model's output (stronger where surer), labelled points on top."""
    size = _room(look, 200, 320)
    x0, x1, y0, y1 = item["extent"]
    alt = item.get("alt") or item.get("title") or "Decision boundary"
    parts = [_svg_open(size, size, alt, look)]
    parts += _cells(item.get("values", []), item["resolution"], size, (0, 0),
                    lambda v: (*_sign(v), min(1.0, abs(v)) * 0.55 + 0.1))
    for px, py, label in item.get("points", []):
        cx, cy = (px - x0) / (x1 - x0) * size, (y1 - py) / (y1 - y0) * size
        cls, fill = _sign(label)
        parts.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="4.5" class="ember-point-{cls[6:]}" fill="{fill}" '
                     f'stroke="currentColor" stroke-width="1.2"/>')
    parts.append("</svg>")
    return _figure("ember-boundary", "".join(parts), item.get("title") or alt, look, key=item.get("key"))


def _field(item: Item, look: Look) -> str:
    """A heat map of f(x, y) with arrows on top and axes in data units."""
    left, bottom, top, right = 44, 36, 8, 8
    size = _room(look, 200 + left + right, 320 + left + right) - left - right
    width, height = left + size + right, top + size + bottom
    x0, x1, y0, y1 = item["extent"]
    low, high = item.get("low", 0.0), item.get("high", 0.0)
    reach = max(abs(low), abs(high)) or 1.0
    diverging = low < 0 < high

    def colour(v: float) -> tuple[str, str, float]:
        if diverging:
            return (*_sign(v), 0.06 + 0.8 * abs(v) / reach)
        return "ember-heat", HEAT, 0.06 + 0.8 * (v - low) / ((high - low) or 1.0)

    alt = item.get("alt") or item.get("title") or "Heat map"
    parts = [_svg_open(width, height, alt, look)]
    parts += _cells(item.get("values", []), item["resolution"], size, (left, top), colour)

    def to_px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * size

    def to_py(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * size

    parts += _arrows(item.get("arrows", []), to_px, to_py, size)
    parts.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" class="ember-frame" fill="none" '
                 'stroke="currentColor"/>')
    x_at, x_ticks = _scale([x0, x1], False, left, left + size)
    y_at, y_ticks = _scale([y0, y1], False, top + size, top)
    parts += [_text(x_at(tick), top + size + 14, _tick_text(tick), "ember-tick") for tick in x_ticks]
    parts += [_text(left - 5, y_at(tick) + 4, _tick_text(tick), "ember-tick", "end") for tick in y_ticks]
    parts.append(_text(left + size / 2, height - 4, item.get("x_label", "x"), "ember-label"))
    middle = top + size / 2
    parts.append(_text(10, middle, item.get("y_label", "y"), "ember-label",
                       extra=f' transform="rotate(-90 10 {_f(middle)})"'))
    parts.append("</svg>")
    return _figure("ember-field", "".join(parts), item.get("title") or alt, look)


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
        shapes.append(f'<g stroke="currentColor" fill="currentColor">'
                      f'<circle cx="{_f(sx)}" cy="{_f(sy)}" r="2.5" class="ember-arrow-base"/>'
                      f'<line x1="{_f(sx)}" y1="{_f(sy)}" x2="{_f(ex)}" y2="{_f(ey)}" stroke-width="1.6" '
                      f'class="ember-arrow"/>'
                      f'<polygon points="{_f(ex)},{_f(ey)} {wings}" class="ember-arrow-head"/></g>')
    return shapes


# --- step-throughs ------------------------------------------------------------------------------


def _panel(title: str, names: Sequence[object], cls: str, look: Look) -> str:
    """One small titled list of a step (the stack, the nodes seen, the order so far...)."""
    entries = "".join(f"<li>{_e(name)}</li>" for name in names) or '<li class="ember-empty">(empty)</li>'
    ol = _s(look, "display:inline;padding:0;margin:0") if look.inline else ""
    if look.inline:  # one line per panel in the notebook: "stack (top last): a, b"
        entries = ", ".join(f'<li style="display:inline">{_e(name)}</li>' for name in names) or "(empty)"
    heading = f'<h4{_s(look, "display:inline;font-size:inherit;margin:0")}>{_e(title)}</h4>'
    colon = ": " if look.inline else ""
    return f'<div class="ember-panel {cls}"{_s(look, "font-size:smaller")}>{heading}{colon}<ol{ol}>{entries}</ol></div>'


def _frames(frames: Iterable[tuple[str, str, str]], look: Look) -> str:
    """The frames of a step-through, each its sentence, its panels and the node it marks in the picture.

    The page shows one frame at a time under Back / Next / Play; the notebook lists them all.
    """
    items = "".join(f'<li class="ember-step" data-node="{_e(node)}"><p class="ember-step-words"'
                    f'{_s(look, "margin:0.2em 0")}>{_e(words)}</p><div class="ember-panels">{panels}</div></li>'
                    for words, panels, node in frames)
    return f'<ol class="ember-steps">{items or "<li><em>(no steps)</em></li>"}</ol>'


def _sort_sentence(event: dict[str, Any]) -> str:
    """What one event of the depth-first sort did."""
    words = SORT_WORDS.get(event.get("kind", ""))
    return words(event) if words else f"{event.get('kind')} {event.get('node')}"


def _sort(item: Item, look: Look) -> str:
    """The depth-first ordering, step by step: the picture, each event (with the state after it), the order."""
    trace = item.get("trace", {})
    events = trace.get("events", [])
    frames = ((_sort_sentence(event),
               _panel("stack (top last)", [f"{name}{' ✓ parents done' if done else ''}"
                                           for name, done in event.get("stack", [])], "stack", look)
               + _panel("seen", event.get("seen", []), "seen", look)
               + _panel("order so far", event.get("order", []), "order", look),
               f"n{event.get('index')}") for event in events)
    cut = ""
    if trace.get("truncated"):
        cut = (f'<p class="ember-steps-cut">Only the first {len(events)} of {_e(trace.get("total_events", "?"))} '
               "steps are shown.</p>")
    return (f'<div class="ember-stepper" data-kind="sort"{" data-truncated" if trace.get("truncated") else ""}>'
            f"<h4>The depth-first ordering, step by step</h4>"
            f"{_dot_picture(look, item.get('dot', ''), 'The graph being ordered')}{_frames(frames, look)}{cut}"
            f'<p class="ember-step-summary"><strong>Order:</strong> {_names(trace.get("order", []))}</p></div>')


def _returned_order(events: Sequence[dict[str, Any]]) -> list[str]:
    """The order the learner's sort returned, as its last step lists it."""
    if not events:
        return []
    for title, names in events[-1].get("panels", []):
        if title == "order returned":
            return list(names)
    return []


def _sort_steps(item: Item, look: Look) -> str:
    """A learner's sort step by step: the picture, each step's sentence and lists, and the order it returned."""
    events = item.get("events", [])
    alt = f"{item.get('title') or 'The graph'}: {counted(item.get('nodes', '?'), 'node')}"
    frames = ((event.get("text", ""),
               "".join(_panel(title, names, "walk", look) for title, names in event.get("panels", [])),
               event.get("node") or "") for event in events)
    return (f'<div class="ember-stepper" data-kind="sort-steps">{_heading(item.get("title"))}'
            f"{_dot_picture(look, item.get('dot', ''), alt)}{_frames(frames, look)}"
            f'<p class="ember-step-summary"><strong>Order returned:</strong> {_names(_returned_order(events))}</p>'
            "</div>")


# --- backward cards -----------------------------------------------------------------------------

CARD_STYLE = f"border:1px solid {BORDER};border-radius:4px;padding:0.3em 0.6em;margin:0.3em 0"


def _card(title: str, lines: Sequence[tuple[str, str]], cls: str, look: Look) -> str:
    """One card: a bold title and its lines (class, text)."""
    body = "".join(f'<div class="{line_cls}">{_e(text)}</div>' if line_cls else f"<div>{_e(text)}</div>"
                   for line_cls, text in lines)
    return (f'<div class="{cls}"{_s(look, CARD_STYLE)}><div class="ember-card-title"{_s(look, "font-weight:bold")}>'
            f"{_e(title)}</div>{body}</div>")


def _edge_card(edge: dict[str, Any], look: Look) -> str:
    """One edge of the backward pass: step n · output → input, upstream × local = share, before → after."""
    return _card(f"step {edge.get('step', 0) + 1} · {edge.get('output')} → {edge.get('input')}", [
        ("", f"{_num(edge.get('upstream'))} × {_num(edge.get('local'))} = {_num(edge.get('share'))}"),
        ("ember-card-grad", f"{edge.get('input')}.grad: {_num(edge.get('grad_before'))} → "
                            f"{_num(edge.get('grad_after'))}"),
    ], "ember-card", look)


def _backward(item: Item, look: Look) -> str:
    """The backward cards: whose order it is, the seed, one card per edge in order, and any error."""
    trace = item.get("trace", {})
    parts = [f'<div class="ember-cards" data-kind="backward" data-source="{_e(trace.get("source") or "hx")}">',
             _heading(item.get("title"), "ember-cards-title")]
    if trace.get("source") == "yours":
        parts.append(f'<p class="ember-walk-order">Your backward() called _backward on: '
                     f"{_e(', '.join(trace.get('calls') or []) or '(none)')}</p>")
    if trace.get("root") is not None and trace.get("seed") is not None:
        parts.append(_card("seed", [("", f"{trace['root']}.grad = {_num(trace['seed'])}")], "ember-card ember-seed",
                           look))
    parts += [_edge_card(edge, look) for edge in trace.get("edges", [])]
    if trace.get("error"):
        parts.append(_error(trace["error"], look))
    parts.append("</div>")
    return "".join(parts)


def _backward_pair(item: Item, look: Look) -> str:
    """Two sets of backward cards side by side."""
    return _side_by_side("ember-cards-pair", (_backward(cards, look) for cards in item.get("cards", [])), look)


# --- tensors -----------------------------------------------------------------------------------

HEAT_LEVELS = 8  # shades of a tensor's heat map
TITLED_CELLS_UP_TO = 1024  # heat maps this small get one rect per cell, each with its number as a tooltip


def _gaps(picked: Sequence[int]) -> list[bool]:
    """For each shown index, whether it comes after the one before it with some indices skipped between."""
    return [i > 0 and picked[i] > picked[i - 1] + 1 for i in range(len(picked))]


def _tensor(item: Item, look: Look) -> str:
    """A tensor: its shape, then a table of its numbers or a heat map."""
    shape = item.get("shape", [])
    n = item.get("size")
    words = (f"shape ({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}): "
             f"{_count(n)} number{'' if n == 1 else 's'}")
    rows, cols = item.get("rows", []), item.get("cols", [])
    cut = [f"{_count(len(shown))} of {_count(n)} {name}" for shown, n, name in
           ((rows, item.get("n_rows") or 0, "rows"), (cols, item.get("n_cols") or 0, "columns")) if len(shown) < n]
    if cut:
        words += "; showing " + " and ".join(cut)
    body = _tensor_heat(item, look) if item.get("heat") else _tensor_table(item, look)
    return (f'<div class="ember-tensor">{_heading(item.get("title"))}'
            f'<p class="ember-tensor-shape"{_s(look, "margin:0.2em 0;font-size:smaller")}>{_e(words)}</p>'
            f"{body}</div>")


def _tensor_table(item: Item, look: Look) -> str:
    """The numbers shown, as a table with row and column labels; ⋮ and … where rows or columns are left out."""
    row_gaps, col_gaps = _gaps(item.get("rows", [])), _gaps(item.get("cols", []))
    row_head, col_head = item.get("row_head", True), item.get("col_head", True)
    gap = f'<td class="ember-tensor-gap"{_s(look, "text-align:center;opacity:0.6")}>…</td>'
    head = ""
    if col_head:
        corner = "<th></th>" if row_head else ""
        head = "<thead><tr>" + corner + "".join(
            ('<th class="ember-tensor-gap">…</th>' if skipped else "") + f'<th class="hx-num">{_e(label)}</th>'
            for label, skipped in zip(item.get("col_labels", []), col_gaps)) + "</tr></thead>"
    lines = []
    width = len(item.get("cols", [])) + sum(col_gaps)
    for label, skipped, cells in zip(item.get("row_labels", []), row_gaps, item.get("cells", [])):
        if skipped:
            lines.append("<tr>" + ("<th>⋮</th>" if row_head else "") + gap.replace("…", "⋮") * width + "</tr>")
        numbers = "".join((gap if cut else "") + f'<td class="hx-num">{_e(cell)}</td>'
                          for cell, cut in zip(cells, col_gaps))
        lines.append("<tr>" + (f'<th scope="row">{_e(label)}</th>' if row_head else "") + numbers + "</tr>")
    return (f'<div class="ember-table"><table class="hx-table ember-tensor-table">{head}'
            f'<tbody>{"".join(lines)}</tbody></table></div>')


def _heat_paint(value: float, low: float, high: float) -> tuple[str, str, int]:
    """A number's (class, fallback fill, shade 0..HEAT_LEVELS); shade 0 is left unpainted."""
    if low < 0 < high:
        reach = max(-low, high)
        return (*_sign(value), math.ceil(abs(value) / reach * HEAT_LEVELS))
    spread = high - low
    shade = HEAT_LEVELS if not spread else math.ceil((value - low) / spread * HEAT_LEVELS)
    return "ember-heat", HEAT, shade


def _rects_path(pieces: Sequence[tuple[int, int, int]], cell: int) -> str:
    """Rects (x, y, width), each ``cell`` high, as one SVG path; each moves relative to the one before."""
    d, at = [], (0, 0)
    for x, y, w in pieces:
        d.append(f"m{x - at[0]} {y - at[1]}h{w}v{cell}h-{w}z")
        at = (x, y)
    return "M" + "".join(d)[1:] if d else ""


def _tensor_heat(item: Item, look: Look) -> str:
    """A 2-D tensor as a grid of shaded cells, labels on the left and the top when there are few enough."""
    values = item.get("values", [])
    n_rows, n_cols = len(values), len(values[0]) if values else 0
    row_labels, col_labels = item.get("row_labels", []), item.get("col_labels", [])
    show_rows, show_cols = n_rows <= 64, n_cols <= 64
    tall = show_cols and any(len(label) > 2 for label in col_labels)
    left = 8 + 7 * max([len(label) for label in row_labels] + [1]) if show_rows else 4
    top = (8 + 7 * max([len(label) for label in col_labels] + [1]) if tall else 18) if show_cols else 4
    room = _room(look, 200, 560)
    cell = max(1, min(28, (room - left - 4) // max(1, n_cols)))
    if show_rows or show_cols:
        cell = max(cell, 12) if max(n_rows, n_cols) <= 40 else cell
    width, height = left + cell * n_cols + 4, top + cell * n_rows + 4
    low, high = item.get("low", 0.0), item.get("high", 0.0)
    parts = [_svg_open(width, height, item.get("alt") or "Heat map", look)]
    titled = n_rows * n_cols <= TITLED_CELLS_UP_TO
    runs: dict[tuple[str, str, int], list[tuple[int, int, int]]] = {}
    for r, row in enumerate(values):
        c = 0
        while c < n_cols:
            value = row[c]
            paint = _heat_paint(value, low, high) if value is not None else None
            if paint is None or paint[2] <= 0:
                c += 1
                continue
            x, y = left + c * cell, top + r * cell
            if titled:
                tip = f"{row_labels[r] if r < len(row_labels) else r}, {col_labels[c] if c < len(col_labels) else c}"
                parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" class="{paint[0]}" '
                             f'fill="{paint[1]}" fill-opacity="{paint[2] / HEAT_LEVELS:.3f}">'
                             f"<title>{_e(tip)}: {_e(_num(value))}</title></rect>")
                c += 1
                continue
            end = c + 1
            while end < n_cols and row[end] is not None and _heat_paint(row[end], low, high) == paint:
                end += 1
            runs.setdefault(paint, []).append((x, y, (end - c) * cell))
            c = end
    for (cls, fill, shade), pieces in sorted(runs.items(), key=lambda kv: kv[0]):
        parts.append(f'<path d="{_rects_path(pieces, cell)}" class="{cls}" fill="{fill}" '
                     f'fill-opacity="{shade / HEAT_LEVELS:.3f}"/>')
    parts.append(f'<rect x="{left}" y="{top}" width="{cell * n_cols}" height="{cell * n_rows}" class="ember-frame" '
                 'fill="none" stroke="currentColor" stroke-opacity="0.4"/>')
    if show_rows:
        parts += [_text(left - 4, top + (r + 0.5) * cell + 4, label, "ember-tick", "end")
                  for r, label in enumerate(row_labels) if cell >= 10 or r % max(1, 12 // cell) == 0]
    if show_cols:
        for c, label in enumerate(col_labels):
            if cell < 10 and c % max(1, 12 // cell):
                continue
            middle = left + (c + 0.5) * cell
            parts.append(_text(middle + 4, top - 4, label, "ember-tick", "start",
                               extra=f' transform="rotate(-90 {_f(middle + 4)} {top - 4})"') if tall
                         else _text(middle, top - 5, label, "ember-tick"))
    parts.append("</svg>")
    scale = (f"{_num(low)} (faintest) to {_num(high)} (strongest colour)" if not low < 0 < high else
             f"orange: negative, down to {_num(low)}; blue: positive, up to {_num(high)}; "
             "the stronger the colour, the further from 0")
    caption = f'<p class="ember-tensor-scale"{_s(look, "margin:0.2em 0;font-size:smaller")}>{_e(scale)}</p>'
    return (f'<div class="ember-tensor-heat"{_s(look, "overflow-x:auto;max-width:100%")}>{"".join(parts)}</div>'
            f"{caption}{_heat_numbers(values, row_labels, col_labels, look)}")


HEAT_TABLE_UP_TO = 32 * 32  # a heat map with more cells than this tells its numbers row by row in a summary


def _heat_numbers(values: Sequence[Sequence[float | None]], row_labels: Sequence[str], col_labels: Sequence[str],
                  look: Look) -> str:
    """A heat map's numbers as a table (row by row), or for a large one each row's smallest and largest."""
    label = lambda labels, i: labels[i] if i < len(labels) else str(i)
    n_cols = len(values[0]) if values else 0
    if len(values) * n_cols <= HEAT_TABLE_UP_TO:
        rows = [[label(row_labels, r), *("" if v is None else _num(v) for v in row)] for r, row in enumerate(values)]
        headers = ["", *(label(col_labels, c) for c in range(n_cols))]
        return _folded_table("The heat map in numbers", headers, rows, look)
    rows = []
    for r, row in enumerate(values):
        known = [(v, c) for c, v in enumerate(row) if v is not None]
        if known:
            (low, lc), (high, hc) = min(known), max(known)
            rows.append([label(row_labels, r), f"{_num(low)} at {label(col_labels, lc)}",
                         f"{_num(high)} at {label(col_labels, hc)}"])
    return _folded_table("The heat map in numbers, row by row", ["row", "smallest", "largest"], rows, look)


DRAW: dict[str, Callable[[Item, Look], str]] = {
    "graph": _graph, "pair": _pair, "table": _table, "plot": _plot, "boundary": _boundary, "field": _field,
    "sort": _sort, "backward": _backward, "backward_pair": _backward_pair, "sort_steps": _sort_steps,
    "stdout": _printed, "stderr": _printed, "text": _live_text,
    "tensor": _tensor,
}


# --- broadcasting (lesson 15): two shapes stretched to their common shape -----------------------

BROADCAST_COLOURS = ("#3b82f6", "#f97316", "#10b981", "#d946ef", "#eab308", "#06b6d4")


def _shape_text(shape: Sequence[object] | None) -> str:
    """(3, 1), (4,) or () as Python writes a tuple."""
    items = list(shape or [])
    return "(" + ", ".join(str(n) for n in items) + ("," if len(items) == 1 else "") + ")"


def _axes_text(axes: Sequence[int]) -> str:
    """'axis 1', 'axes 0 and 2'."""
    if len(axes) == 1:
        return f"axis {axes[0]}"
    return "axes " + ", ".join(str(a) for a in axes[:-1]) + f" and {axes[-1]}"


def _reads(shape: Sequence[int], to: Sequence[int]) -> list[int]:
    """For each position of ``to`` (row-major), the position it reads in ``shape`` (NumPy's rule)."""
    padded = [1] * (len(to) - len(shape)) + list(shape)
    reads = []
    for k in range(math.prod(to)):
        rest, index, stride = k, 0, 1
        for n, m in zip(reversed(padded), reversed(to)):
            index += (0 if n == 1 else rest % m) * stride
            rest //= m
            stride *= n
        reads.append(index)
    return reads


def _grid(shape: Sequence[int], sources: Sequence[int], labels: Sequence[str], alt: str, look: Look) -> str:
    """A tensor drawn as cells, row by row (a 3-D one as blocks side by side); cell k is coloured by sources[k].

    A cell whose source already appeared earlier is a copy: drawn fainter, with a dashed edge.
    """
    cols = shape[-1] if shape else 1
    rows = shape[-2] if len(shape) >= 2 else 1
    blocks = math.prod(shape[:-2]) if len(shape) > 2 else 1
    cell_w, cell_h, gap = (44 if max((len(t) for t in labels), default=0) > 3 else 32), 24, 12
    width = blocks * cols * cell_w + (blocks - 1) * gap + 2
    height = rows * cell_h + 2
    parts = [_svg_open(width, height, alt, look)]
    seen: set[int] = set()
    for k, source in enumerate(sources):
        block, within = divmod(k, rows * cols)
        row, col = divmod(within, cols)
        x, y = 1 + block * (cols * cell_w + gap) + col * cell_w, 1 + row * cell_h
        copy = source in seen
        seen.add(source)
        colour = source % len(BROADCAST_COLOURS)
        cls = f"ember-bc-cell ember-bc-{colour}" + (" ember-bc-copy" if copy else "")
        dash = ' stroke-dasharray="3 2"' if copy else ""
        parts.append(f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" class="{cls}" '
                     f'fill="{BROADCAST_COLOURS[colour]}" fill-opacity="{0.18 if copy else 0.5}" '
                     f'stroke="currentColor" stroke-opacity="0.6"{dash}/>')
        parts.append(_text(x + cell_w / 2, y + cell_h / 2 + 4, labels[source], "ember-bc-label"))
    parts.append("</svg>")
    return "".join(parts)


def _axis_cell(axis: dict[str, Any]) -> tuple[str, str]:
    """One operand's entry for one axis in the table of lined-up shapes: (class, text)."""
    n, to, status = axis.get("length"), axis.get("to"), axis.get("status")
    if status == "clash":
        return "ember-bc-clash", f"{n}: does not fit"
    if status == "added":
        return "ember-bc-stretch", f"missing (1) → {to}" if to is not None else "missing (1)"
    if status == "stretched":
        return "ember-bc-stretch", f"1 → {to}"
    return "", str(n)


def _broadcast(item: Item, look: Look) -> str:
    """Two shapes lined up on the right: a table of their axes, then each operand and its stretched copy."""
    operands, shape = item.get("operands", []), item.get("shape")
    rank = max([len(o.get("axes", [])) for o in operands] + [0])
    cell = "padding:0.15em 0.6em;border:1px solid " + BORDER
    strong = ";font-weight:bold"
    head = "".join(f"<th{_s(look, cell)}>axis {k}</th>" for k in range(rank))
    rows = []
    for o in operands:
        cells = []
        for axis in o.get("axes", []):
            cls, text = _axis_cell(axis)
            cells.append(f'<td class="{cls}"{_s(look, cell + (strong if cls else ""))}>{_e(text)}</td>'
                         if cls else f"<td{_s(look, cell)}>{_e(text)}</td>")
        rows.append(f"<tr><th{_s(look, cell)}>{_e(o.get('name'))} {_e(_shape_text(o.get('shape')))}</th>"
                    f"{''.join(cells)}</tr>")
    clash = item.get("clash", [])
    result = (f"<td{_s(look, cell)}>{_e(n)}</td>" for n in shape) if shape else (
        f'<td class="ember-bc-clash"{_s(look, cell + strong)}>does not fit</td>' if k in clash
        else f"<td{_s(look, cell)}></td>" for k in range(rank))
    rows.append(f"<tr><th{_s(look, cell)}>{_e(item.get('result'))} {_e(_shape_text(shape)) if shape else ''}</th>"
                f"{''.join(result)}</tr>")
    table = (f'<table class="hx-table ember-bc-axes"{_s(look, "border-collapse:collapse;margin:0.3em 0")}>'
             f"<thead><tr><th{_s(look, cell)}></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    parts = [table]
    if shape is None:
        parts.append(_error(f"{item.get('result')}: these shapes do not fit. Lined up on the right, each axis "
                            "must have equal lengths, or a 1 on one side.", look, "ember-bc-refused"))
    else:
        parts += [_operand(o, shape, item.get("result", ""), look) for o in operands]
    return _figure("ember-broadcast", "".join(parts), item.get("title"), look)


def _operand(o: dict[str, Any], shape: Sequence[int], result: str, look: Look) -> str:
    """One operand: its own cells, the same cells stretched to the common shape, and what its backward sums."""
    own, name, summed = list(o.get("shape", [])), o.get("name", ""), o.get("summed", [])
    numbers = o.get("numbers")
    count = math.prod(own)
    labels = ([f"{v:.3g}" for v in numbers] if numbers and len(numbers) == count
              else [f"{name}{k}" for k in range(count)])
    row = "display:flex;flex-wrap:wrap;gap:0.6em;align-items:center"
    own_grid = _grid(own, list(range(count)), labels, f"{name}, shape {_shape_text(own)}", look)
    big = _grid(shape, _reads(own, shape), labels, f"{name} stretched to {_shape_text(shape)}", look)
    if summed:
        forward = (f"{name} {_shape_text(own)} is read again and again along {_axes_text(summed)}: "
                   "faint cells are copies of the solid one of the same colour.")
        backward = (f"Backward: {name}.grad is {result}'s gradient of shape {_shape_text(shape)} summed over "
                    f"{_axes_text(summed)}, each colour's cells added into one number, back to "
                    f"{_shape_text(own)}.")
    else:
        forward = f"{name} {_shape_text(own)} already has the shape {_shape_text(shape)}: nothing is stretched."
        backward = f"Backward: {name}.grad is {result}'s gradient as it is, shape {_shape_text(own)}."
    return (f'<div class="ember-bc-operand"{_s(look, "margin:0.6em 0")}><p class="ember-bc-forward">{_e(forward)}'
            f'</p><div class="ember-bc-grids"{_s(look, row)}>{own_grid}<span class="ember-bc-arrow">→</span>{big}'
            f'</div><p class="ember-bc-backward">{_e(backward)}</p></div>')


DRAW["broadcast"] = _broadcast
