"""The graph as Graphviz DOT: a record per Value, a small ellipse per operation, drawn left to right."""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from hx.fmt import fmt, one_line
from hx.graph import Graph, Node
from hx.table import as_graph

if TYPE_CHECKING:
    import graphviz

__all__ = ["EdgeLabels", "dot_string", "record_text", "to_digraph", "to_dot", "to_svg"]

EdgeLabels = Mapping[tuple, object]

_RECORD_SPECIAL = re.compile(r"[\\{}|<>]")
_OP_STYLE = "shape=ellipse width=0.3 height=0.3 margin=0.02"


@functools.cache
def _graphviz() -> ModuleType | None:
    """The graphviz package, imported when a drawing first needs it (importing it takes a tenth of a
    second in the page's worker, which a cold start need not wait for); None where it is missing."""
    try:
        import graphviz
    except ImportError:  # e.g. Pyodide without the package: tables and traces still work
        return None
    return graphviz


def _escaped(text: str) -> str:
    """Text made literal in a DOT label: one line, backslashes doubled (graphviz.escape)."""
    graphviz = _graphviz()
    assert graphviz is not None, "labels are written inside to_digraph, which needs the package first"
    return graphviz.escape(one_line(text))


def dot_string(escaped: str) -> str:
    """A DOT double-quoted string of text whose backslashes are already doubled: only the quotes are left to escape."""
    return '"' + escaped.replace('"', '\\"') + '"'


def record_text(text: str) -> str:
    """Text made literal inside one field of a record label: backslashes doubled, \\{ \\} \\| \\< \\> escaped."""
    text = one_line(text)
    if _RECORD_SPECIAL.search(text) is None:
        return text
    return _RECORD_SPECIAL.sub(lambda m: "\\\\" if m.group() == "\\" else "\\" + m.group(), text)


def _value_label(node: Node, grads: bool) -> str:
    """The record label of one Value: { name | data 2 | grad 28 }."""
    label = f"{{ {record_text(node.name)} | data {record_text(fmt(node.data))}"
    return f"{label} | grad {record_text(fmt(node.grad))} }}" if grads else label + " }"


def _edge_label(labels: EdgeLabels, graph: Graph, j: int, i: int, k: int) -> str | None:
    """The caller's label for the edge input j -> output i (slot k), looked up by indices or by names."""
    src, dst = graph.nodes[j].name, graph.nodes[i].name
    for key in ((j, i, k), (j, i), (src, dst, k), (src, dst)):
        if key in labels:
            value = labels[key]
            return value if isinstance(value, str) else fmt(value)
    return None


def _body(graph: Graph, grads: bool, labels: EdgeLabels) -> list[str]:
    """The statements of the DOT body, one line each, in graph order."""
    lines = [f"\tn{node.index} [label={dot_string(_value_label(node, grads))}]\n" for node in graph.nodes]
    for node in graph.nodes:
        if node.is_leaf:
            continue
        i = node.index
        lines.append(f"\tn{i}op [label={dot_string(_escaped(node.op or '?'))} {_OP_STYLE}]\n")
        for k, j in enumerate(node.inputs):
            label = _edge_label(labels, graph, j, i, k) if labels else None
            attrs = "" if label is None else f" [label={dot_string(_escaped(label))}]"
            lines.append(f"\tn{j} -> n{i}op{attrs}\n")
        lines.append(f"\tn{i}op -> n{i}\n")
    return lines


def to_digraph(
    root_or_graph: object,
    *,
    grads: bool = True,
    edge_labels: EdgeLabels | None = None,
    rankdir: str = "LR",
) -> graphviz.Digraph:
    """A graphviz.Digraph of the graph: Values n0, n1, ... in graph order, op nodes n0op, n1op, ...

    grads=False leaves the grad out of every box. edge_labels maps an edge to its label (a
    str, or a number shown with fmt); a key is (input, output) or (input, output, slot in
    output's _prev), each end a node index or name. The label goes on the edge from the input
    into the op: the path that input's share comes back along.

    The body lines are written here rather than by Digraph.node/edge, which take about ten
    times as long on a graph of 100,000 nodes. Labels use the package's escaping (graphviz.escape)
    and are always double-quoted, where the package's quote() leaves a bare word unquoted.
    """
    graphviz = _graphviz()
    if graphviz is None:
        raise ImportError("hx.to_digraph needs the graphviz package (pip install graphviz)")
    graph = as_graph(root_or_graph)
    return graphviz.Digraph(
        name="hx",
        graph_attr={"rankdir": rankdir},
        node_attr={"shape": "record", "fontname": "Helvetica", "fontsize": "11"},
        edge_attr={"fontname": "Helvetica", "fontsize": "10"},
        body=_body(graph, grads, edge_labels or {}),
    )


def to_dot(
    root_or_graph: object,
    *,
    grads: bool = True,
    edge_labels: EdgeLabels | None = None,
    rankdir: str = "LR",
) -> str:
    """The DOT source of the graph (the same text for the same expression built the same way)."""
    return to_digraph(root_or_graph, grads=grads, edge_labels=edge_labels, rankdir=rankdir).source


def to_svg(
    root_or_graph: object,
    *,
    grads: bool = True,
    edge_labels: EdgeLabels | None = None,
    rankdir: str = "LR",
) -> str | None:
    """The graph drawn as SVG by the `dot` program, or None where there is no `dot` (as in Pyodide)."""
    if shutil.which("dot") is None:
        return None
    digraph = to_digraph(root_or_graph, grads=grads, edge_labels=edge_labels, rankdir=rankdir)
    return digraph.pipe(format="svg", encoding="utf-8")
