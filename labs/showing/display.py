"""What an example cell can show besides printed text: graphs, step-throughs and plots.

Each function appends one item (plain data) to the cell's outputs; the page draws it. An
item with a ``key`` replaces the earlier item with the same key, and is also sent to the
page at once while the cell still runs, so a picture can update as a model trains.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from labs.course.datasets import DATA_DIR
from labs.course.words import counted

Item = dict[str, Any]


class Display:
    """The display functions of one cell run; ``emit`` receives every item."""

    def __init__(self, emit: Callable[[Item], None]) -> None:
        self.emit = emit

    def functions(self) -> dict[str, Callable[..., object]]:
        """The names a cell sees."""
        return {
            "show": self.show, "show_pair": self.show_pair, "show_sort": self.show_sort,
            "show_backward": self.show_backward, "show_walk": self.show_walk,
            "show_backward_pair": self.show_backward_pair, "plot": self.plot, "show_boundary": self.show_boundary,
            "show_table": self.show_table, "reference_numbers": reference_numbers,
            "show_field": self.show_field, "show_sort_steps": self.show_sort_steps,
            "show_broadcast": self.show_broadcast,
            "show_tensor": self.show_tensor,
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
        lines: list[dict[str, Any]] = []
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
               f"{right} of {counted(len(points), 'point')} {'is' if right == 1 else 'are'} on their own side")
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
               f"{high:.3g} (dark), with {counted(len(kept), 'arrow')}")
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


    def show_tensor(
        self,
        t: object,
        title: str = "",
        labels: tuple[Sequence[object] | None, Sequence[object] | None] | None = None,
        rows: Sequence[int] | None = None,
        cols: Sequence[int] | None = None,
        heat: bool | None = None,
    ) -> None:
        """A tensor (or a number, or a nested list) with its shape: a table of its numbers, or a heat map.

        ``rows`` / ``cols``: which rows and columns to show (indices, negative from the end); by
        default all of them, or the first and last few of a large tensor. ``labels``: (row labels,
        column labels) for the rows and columns shown, either may be None. ``heat=True`` draws a 2-D
        tensor as a heat map; by default a 2-D tensor too large for a table of numbers is one. A
        tensor of more than two axes is shown with its leading axes as rows, each labelled [i, j].
        """
        flat, shape = _tensor_numbers(t)
        n_cols = shape[-1] if shape else 1
        n_rows = len(flat) // n_cols if n_cols else 0
        whole = rows is None and cols is None
        if heat is None:
            heat = len(shape) == 2 and whole and (n_rows > TABLE_UP_TO or n_cols > TABLE_UP_TO)
        if heat and len(shape) != 2:
            raise ValueError(f"show_tensor(heat=True) draws a 2-D tensor; this one has shape {shape}")
        limit = HEAT_UP_TO if heat else TABLE_UP_TO
        picked_rows = _picked(rows, n_rows, limit, "rows")
        picked_cols = _picked(cols, n_cols, limit, "cols")
        row_labels, col_labels = labels if labels is not None else (None, None)
        lead = shape[:-1]
        item: Item = {
            "kind": "tensor", "title": title, "shape": list(shape), "size": len(flat), "heat": bool(heat),
            "n_rows": n_rows, "n_cols": n_cols, "rows": picked_rows, "cols": picked_cols,
            "row_labels": _labels(row_labels, picked_rows, "row", lambda i: _index_label(i, lead)),
            "col_labels": _labels(col_labels, picked_cols, "column", str),
            "row_head": len(shape) >= 2 or row_labels is not None,
            "col_head": len(shape) >= 1 or col_labels is not None,
        }
        grid = [[flat[r * n_cols + c] for c in picked_cols] for r in picked_rows]
        if heat:
            finite = [x for row in grid for x in row if math.isfinite(x)]
            item["values"] = [[x if math.isfinite(x) else None for x in row] for row in grid]
            item["low"], item["high"] = (min(finite), max(finite)) if finite else (0.0, 0.0)
        else:
            from hx import fmt

            item["cells"] = [[fmt(x) for x in row] for row in grid]
        item["alt"] = _tensor_alt(item)
        self.emit(item)


TABLE_UP_TO = 12  # rows or columns a table of numbers shows whole; a larger axis shows its first and last few
HEAT_UP_TO = 256  # rows or columns a heat map shows whole


def _tensor_numbers(t: object) -> tuple[list[float], tuple[int, ...]]:
    """The flat row-major numbers and the shape of a tensor-like object, a number, or a nested list."""
    shape, data = getattr(t, "shape", None), getattr(t, "data", None)
    if isinstance(shape, (tuple, list)) and isinstance(data, (list, tuple)) and not isinstance(t, (list, tuple)):
        dims = tuple(int(n) for n in shape)
        if len(data) != math.prod(dims):
            raise ValueError(f"show_tensor: shape {dims} holds {math.prod(dims)} numbers but .data has {len(data)}")
        return [_number(x) for x in data], dims
    return _nested_numbers(t, "t")


def _number(x: object) -> float:
    """One number of a tensor: a number, or a Value's .data."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    inner = getattr(x, "data", None)
    if isinstance(inner, (int, float)) and not isinstance(inner, bool):
        return float(inner)
    raise TypeError(f"show_tensor shows numbers, not {type(x).__name__}")


def _nested_numbers(data: object, where: str) -> tuple[list[float], tuple[int, ...]]:
    """A number or a rectangular nested list as (flat numbers, shape); ragged lists are refused, naming the item."""
    if not isinstance(data, (list, tuple)):
        return [_number(data)], ()
    if not data:
        raise ValueError(f"show_tensor: {where} is an empty list")
    parts = [_nested_numbers(x, f"{where}[{i}]") for i, x in enumerate(data)]
    for i, (_, shape) in enumerate(parts):
        if shape != parts[0][1]:
            raise ValueError(f"show_tensor: ragged list: {where}[{i}] has shape {shape}, "
                             f"{where}[0] has shape {parts[0][1]}")
    return [x for flat, _ in parts for x in flat], (len(parts), *parts[0][1])


def _picked(asked: Sequence[int] | None, n: int, limit: int, name: str) -> list[int]:
    """The indices to show along an axis of length n: those asked for, or all, or the first and last few."""
    if asked is None:
        return list(range(n)) if n <= limit else [*range(limit - 3), *range(n - 2, n)]
    picked = []
    for i in asked:
        if isinstance(i, bool) or not isinstance(i, int) or not -n <= i < n:
            raise IndexError(f"show_tensor({name}=...): {i!r} is not an index of an axis of length {n}")
        picked.append(i % n)
    return picked


def _labels(given: Sequence[object] | None, picked: list[int], what: str,
            default: Callable[[int], str]) -> list[str]:
    """One label per shown row (or column): the given ones, else the indices."""
    if given is None:
        return [default(i) for i in picked]
    given = list(given)
    if len(given) != len(picked):
        raise ValueError(f"show_tensor: {len(given)} {what} labels for {len(picked)} {what}s shown")
    return [str(label) for label in given]


def _index_label(row: int, lead: tuple[int, ...]) -> str:
    """A row's label: its index, or [i, j] when the leading axes of a 3-D (or more) tensor are folded into rows."""
    if len(lead) <= 1:
        return str(row)
    index = []
    for n in reversed(lead):
        index.append(row % n)
        row //= n
    return "[" + ", ".join(map(str, reversed(index))) + "]"


def _tensor_alt(item: Item) -> str:
    """A sentence for a screen reader: the shape, what is shown, and the range of a heat map."""
    shape = "(" + ", ".join(map(str, item["shape"])) + ("," if len(item["shape"]) == 1 else "") + ")"
    words = f"{item['title'] or 'A tensor'}: shape {shape}, {item['size']:,} number{'' if item['size'] == 1 else 's'}"
    if len(item["rows"]) < item["n_rows"] or len(item["cols"]) < item["n_cols"]:
        words += (f"; {len(item['rows'])} of {item['n_rows']} rows and "
                  f"{len(item['cols'])} of {item['n_cols']} columns shown")
    low, high = item.get("low", 0.0), item.get("high", 0.0)  # a heat map has both
    if item["heat"] and low < 0 < high:
        words += (f"; a heat map from {low:.4g} to {high:.4g}, negative numbers orange and positive ones blue, "
                  "stronger the further from 0")
    elif item["heat"]:
        words += f"; a heat map from {low:.4g} (faintest) to {high:.4g} (strongest colour)"
    return words


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
    return f"{counted(len(points), 'point')} from ({first[0]:.3g}, {first[1]:.3g}) to ({last[0]:.3g}, {last[1]:.3g})"


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
