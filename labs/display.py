"""What an example cell can show besides printed text: graphs, step-throughs and plots.

Each function appends one item (plain data) to the cell's outputs; the page draws it. An
item with a ``key`` replaces the earlier item with the same key, and is also sent to the
page at once while the cell still runs, so a picture can update as a model trains.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

Item = dict[str, Any]
DATA_DIR = Path(__file__).resolve().parent / "data"


class Display:
    """The display functions of one cell run; ``emit`` receives every item."""

    def __init__(self, emit: Callable[[Item], None]) -> None:
        self.emit = emit

    def functions(self) -> dict[str, Callable[..., None]]:
        """The names a cell sees."""
        return {
            "show": self.show, "show_pair": self.show_pair, "show_sort": self.show_sort,
            "show_backward": self.show_backward, "show_walk": self.show_walk,
            "show_backward_pair": self.show_backward_pair, "plot": self.plot, "show_boundary": self.show_boundary,
            "show_table": self.show_table, "reference_numbers": reference_numbers,
            "show_field": self.show_field, "show_sort_steps": self.show_sort_steps,
            "show_broadcast": self.show_broadcast,
        }

    def show_table(self, headers: Sequence[str], rows: Iterable[Sequence[object]], title: str = "") -> None:
        """A table of text and numbers (numbers shown compactly, everything as plain text)."""
        from hx import fmt

        body = [[value if isinstance(value, str) else fmt(value) for value in row] for row in rows]
        self.emit({"kind": "table", "title": title, "headers": [str(h) for h in headers], "rows": body})

    def show(self, root: object, grads: bool = True, title: str = "", edges: str = "") -> None:
        """Draw the graph that ends in ``root``: a table of its nodes and a picture.

        edges="local" writes each edge's local derivative on it, as the node's own _backward gives it.
        """
        if edges not in ("", "local"):
            raise ValueError(f"show(edges=...) takes '' or 'local', not {edges!r}")
        labels = None
        if edges == "local":
            from hx import local_derivatives

            labels = local_derivatives(root)
        self.emit(_graph(root, grads, title, labels=labels))

    def show_pair(self, left: object, right: object, titles: Sequence[str] = ("", ""), grads: bool = True) -> None:
        """Draw two graphs side by side, with their backward edge counts."""
        graphs = [_graph(left, grads, titles[0], rankdir="TB"), _graph(right, grads, titles[1], rankdir="TB")]
        self.emit({"kind": "pair", "graphs": graphs})

    def show_sort(self, root: object) -> None:
        """Step through the depth-first ordering of the graph that ends in ``root``."""
        from hx import to_dot, topo_trace

        self.emit({"kind": "sort", "trace": topo_trace(root).to_dict(), "dot": to_dot(root, grads=False)})

    def show_backward(self, root: object, title: str = "") -> None:
        """Show one card per edge as gradients flow back from ``root``, in an order hx chooses (a safe one)."""
        from hx import backward_trace

        self.emit({"kind": "backward", "title": title, "trace": backward_trace(root).to_dict()})

    def show_walk(self, root: object, title: str = "") -> None:
        """Run ``root.backward()``, your own, and show the order of its _backward calls, their cards, and the shares."""
        from hx import walk_trace

        trace = walk_trace(root)
        self.emit({"kind": "backward", "title": title, "trace": trace.to_dict()})
        self.emit(_graph(root, True, f"{title or 'The graph'}: each edge shows the share it carried back",
                         labels=trace.edge_labels()))

    def show_backward_pair(self, left: object, right: object, titles: Sequence[str] = ("", "")) -> None:
        """The backward cards of two graphs side by side (hx's own safe order for both)."""
        from hx import backward_trace

        self.emit({"kind": "backward_pair", "cards": [
            {"kind": "backward", "title": titles[0], "trace": backward_trace(left).to_dict()},
            {"kind": "backward", "title": titles[1], "trace": backward_trace(right).to_dict()},
        ]})

    def plot(
        self,
        series: dict[str, Iterable[tuple[float, float]]],
        *,
        title: str = "",
        x_label: str = "x",
        y_label: str = "y",
        log_x: bool = False,
        log_y: bool = False,
        key: str | None = None,
    ) -> None:
        """A line plot of named series of (x, y) points; log axes drop points that are not positive."""
        lines = []
        for name, points in series.items():
            kept = [[float(x), float(y)] for x, y in points
                    if _finite(x, y) and (not log_x or x > 0) and (not log_y or y > 0)]
            lines.append({"name": str(name), "points": kept})
        alt = f"{title or 'Plot'}: {y_label} against {x_label}" + "".join(
            f"; {line['name']}: {_describe(line['points'])}" for line in lines)
        self.emit({"kind": "plot", "key": key, "title": title, "x_label": x_label, "y_label": y_label,
                   "log_x": log_x, "log_y": log_y, "series": lines, "alt": alt})

    def show_boundary(
        self,
        predict: Callable[[float, float], float],
        points: Sequence[tuple[float, float]],
        labels: Sequence[float],
        *,
        extent: tuple[float, float, float, float] | None = None,
        resolution: int = 24,
        title: str = "",
        key: str | None = None,
    ) -> None:
        """Colour the plane by the sign of ``predict(x, y)`` and draw the labelled points on top."""
        if extent is None:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            pad_x, pad_y = (max(xs) - min(xs)) * 0.1 or 1.0, (max(ys) - min(ys)) * 0.1 or 1.0
            extent = (min(xs) - pad_x, max(xs) + pad_x, min(ys) - pad_y, max(ys) + pad_y)
        x0, x1, y0, y1 = extent
        values = []
        for row in range(resolution):
            y = y1 - (row + 0.5) * (y1 - y0) / resolution
            for column in range(resolution):
                x = x0 + (column + 0.5) * (x1 - x0) / resolution
                values.append(float(predict(x, y)))
        right = sum((predict(x, y) > 0) == (label > 0) for (x, y), label in zip(points, labels))
        alt = (f"{title or 'Decision boundary'}: the plane coloured by the model's sign; "
               f"{right} of {len(points)} points are on their own side")
        self.emit({"kind": "boundary", "key": key, "title": title, "extent": list(extent), "resolution": resolution,
                   "values": values, "points": [[float(x), float(y), float(label)] for (x, y), label in
                                                zip(points, labels)], "alt": alt})

    def show_field(
        self,
        f: Callable[[list[float]], float],
        extent: tuple[float, float, float, float],
        arrows: Iterable[tuple[Sequence[float], Sequence[float]]] = (),
        *,
        resolution: int = 24,
        title: str = "",
        x_label: str = "x",
        y_label: str = "y",
    ) -> None:
        """A heat map of ``f([x, y])`` over extent (x0, x1, y0, y1), with arrows ((x, y), (dx, dy)) on top."""
        x0, x1, y0, y1 = (float(v) for v in extent)
        values = []
        for row in range(resolution):
            y = y1 - (row + 0.5) * (y1 - y0) / resolution
            for column in range(resolution):
                values.append(float(f([x0 + (column + 0.5) * (x1 - x0) / resolution, y])))
        kept = [[float(p[0]), float(p[1]), float(d[0]), float(d[1])] for p, d in arrows if _finite(*p, *d)]
        finite = [v for v in values if math.isfinite(v)]
        low, high = (min(finite), max(finite)) if finite else (0.0, 0.0)
        alt = (f"{title or 'Heat map'}: {y_label} against {x_label}, values from {low:.3g} (light) to "
               f"{high:.3g} (dark), with {len(kept)} arrows")
        self.emit({"kind": "field", "title": title, "extent": [x0, x1, y0, y1], "resolution": resolution,
                   "values": values, "low": low, "high": high, "arrows": kept, "x_label": x_label,
                   "y_label": y_label, "alt": alt})

    def show_sort_steps(self, sort: Callable[..., object], root: object, parents: Callable[[Any], Iterable[Any]],
                        title: str = "") -> None:
        """Step through ``sort(root, parents)``: each call of parents() it makes, then the order it returns."""
        from hx.dag import sort_trace

        self.emit({"kind": "sort_steps", "title": title, **sort_trace(sort, root, parents).to_dict()})

    def show_broadcast(self, a: object, b: object, op: str = "+", names: Sequence[str] = ("a", "b"),
                       title: str = "") -> None:
        """Two shapes (or tensors, or nested lists) lined up on the right and stretched to their common shape.

        Shows which axes of each stretch (forward: numbers read again and again) and so which axes its
        gradient is summed over on the way back. Shapes that do not fit are drawn with the axis that clashes.
        """
        self.emit(broadcast_item(a, b, op, names, title))


def reference_numbers(name: str) -> dict[str, Any]:
    """Reference numbers recorded by the project's tests, e.g. 'pytorch_sigmoid' (from a real PyTorch run)."""
    if not name.replace("_", "").isalnum():
        raise ValueError(f"no reference numbers called {name!r}")
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


def _graph(root: object, grads: bool, title: str, rankdir: str = "LR", labels: dict | None = None) -> Item:
    from hx import Graph, node_table_html, to_dot

    graph = Graph.from_root(root)
    return {"kind": "graph", "title": title, "edges": graph.total_edges, "nodes": len(graph.nodes),
            "table": node_table_html(graph, grads=grads),
            "dot": to_dot(graph, grads=grads, rankdir=rankdir, edge_labels=labels)}


def _finite(*numbers: float) -> bool:
    return all(isinstance(n, (int, float)) and math.isfinite(n) for n in numbers)


def _describe(points: list[list[float]]) -> str:
    if not points:
        return "no points"
    first, last = points[0], points[-1]
    return f"{len(points)} points from ({first[0]:.3g}, {first[1]:.3g}) to ({last[0]:.3g}, {last[1]:.3g})"


# --- broadcasting: two shapes stretched to their common shape (lesson 15) -----------------------


def _shape_and_numbers(x: object) -> tuple[tuple[int, ...], list[float] | None]:
    """A shape as given (a tuple of ints), or a tensor's or nested list's shape and numbers."""
    if isinstance(x, tuple) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in x):
        return x, None
    if hasattr(x, "shape") and hasattr(x, "data"):
        return tuple(int(n) for n in x.shape), [float(v) for v in x.data]
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return (), [float(x)]
    if isinstance(x, list) and x:
        parts = [_shape_and_numbers(item) for item in x]
        inner = parts[0][0]
        if any(shape != inner for shape, _ in parts):
            raise ValueError("show_broadcast: a nested list must be rectangular")
        return (len(x), *inner), [v for _, numbers in parts for v in numbers or []]
    raise TypeError(f"show_broadcast takes a shape (a tuple of positive ints), a tensor or a nested list, "
                    f"not {x!r}")


def broadcast_item(a: object, b: object, op: str, names: Sequence[str], title: str) -> Item:
    """The item of show_broadcast; the common shape by NumPy's rule, worked out here."""
    shapes, numbers = zip(*(_shape_and_numbers(x) for x in (a, b)))
    rank = max(len(s) for s in shapes)
    padded = [(None,) * (rank - len(s)) + tuple(s) for s in shapes]
    clash = [axis for axis in range(rank)
             if len({n for n in (padded[0][axis], padded[1][axis]) if n not in (None, 1)}) > 1]
    shape = None if clash else [max(p[axis] or 1 for p in padded) for axis in range(rank)]
    operands = []
    for name, own, lengths, flat in zip(names, shapes, padded, numbers, strict=True):
        axes = []
        for axis, n in enumerate(lengths):
            to = shape[axis] if shape else None
            status = ("clash" if axis in clash and n not in (None, 1) else "added" if n is None
                      else "stretched" if to is not None and n != to else "kept")
            axes.append({"length": n, "to": to, "status": status})
        summed = [axis for axis, ax in enumerate(axes) if ax["status"] in ("added", "stretched")] if shape else []
        operands.append({"name": str(name), "shape": list(own), "numbers": flat, "axes": axes, "summed": summed})
    result = f"{names[0]} {op} {names[1]}"
    if shape is None:
        alt = (f"{title or 'Broadcasting'}: shapes {tuple(shapes[0])} and {tuple(shapes[1])} do not fit; "
               f"axis {clash[0]} has {padded[0][clash[0]]} against {padded[1][clash[0]]}")
    else:
        alt = f"{title or 'Broadcasting'}: {result} has shape {tuple(shape)}" + "".join(
            f"; {o['name']} {tuple(o['shape'])} is "
            + (f"stretched along {axes_words(o['summed'])}, and its gradient is summed over {axes_words(o['summed'])}"
               if o["summed"] else "not stretched, and its gradient comes back as it is") for o in operands)
    return {"kind": "broadcast", "title": title, "result": result, "shape": shape, "clash": clash,
            "operands": operands, "alt": alt}


def axes_words(axes: Sequence[int]) -> str:
    """'axis 1', 'axes 0 and 2', 'axes 0, 1 and 2'."""
    if len(axes) == 1:
        return f"axis {axes[0]}"
    return "axes " + ", ".join(str(a) for a in axes[:-1]) + f" and {axes[-1]}"
