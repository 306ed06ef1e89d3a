"""Drawings of any learner's Value graph: tables, Graphviz DOT, backward and sort traces."""

from hx.dot import to_digraph, to_dot, to_svg
from hx.fmt import fmt
from hx.graph import Edge, Graph, Node
from hx.table import node_table_html, node_table_rows, node_table_text
from hx.trace import (
    BackwardTrace,
    EdgeStep,
    TopoEvent,
    TopoTrace,
    backward_trace,
    local_derivatives,
    topo_trace,
    walk_trace,
)

__all__ = [
    "BackwardTrace",
    "Edge",
    "EdgeStep",
    "Graph",
    "Node",
    "TopoEvent",
    "TopoTrace",
    "backward_trace",
    "fmt",
    "local_derivatives",
    "node_table_html",
    "node_table_rows",
    "node_table_text",
    "to_digraph",
    "to_dot",
    "to_svg",
    "topo_trace",
    "walk_trace",
]
