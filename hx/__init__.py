"""Drawings of any learner's Value graph: tables, Graphviz DOT, backward and sort traces.

The names below come from their modules on first use (``from hx import to_svg`` imports hx.dot then), so
that importing one small module of the package (hx.fmt, for the page's escaping) does not import them all.
"""

from importlib import import_module

from hx.fmt import fmt as fmt  # small and named like its module: bound here, hx.fmt is the function as before

TYPE_CHECKING = False  # typing's own, without importing typing: true only for a type checker
if TYPE_CHECKING:  # the names as a type checker sees them; at run time __getattr__ below imports them when asked
    from hx.dot import to_digraph as to_digraph
    from hx.dot import to_dot as to_dot
    from hx.dot import to_svg as to_svg
    from hx.graph import Edge as Edge
    from hx.graph import Graph as Graph
    from hx.graph import Node as Node
    from hx.table import node_table_html as node_table_html
    from hx.table import node_table_rows as node_table_rows
    from hx.table import node_table_text as node_table_text
    from hx.trace import BackwardTrace as BackwardTrace
    from hx.trace import EdgeStep as EdgeStep
    from hx.trace import TopoEvent as TopoEvent
    from hx.trace import TopoTrace as TopoTrace
    from hx.trace import backward_trace as backward_trace
    from hx.trace import local_derivatives as local_derivatives
    from hx.trace import topo_trace as topo_trace
    from hx.trace import walk_trace as walk_trace

_HOMES = {
    "to_digraph": "hx.dot", "to_dot": "hx.dot", "to_svg": "hx.dot",
    "Edge": "hx.graph", "Graph": "hx.graph", "Node": "hx.graph",
    "node_table_html": "hx.table", "node_table_rows": "hx.table", "node_table_text": "hx.table",
    "BackwardTrace": "hx.trace", "EdgeStep": "hx.trace", "TopoEvent": "hx.trace", "TopoTrace": "hx.trace",
    "backward_trace": "hx.trace", "local_derivatives": "hx.trace", "topo_trace": "hx.trace", "walk_trace": "hx.trace",
}

__all__ = sorted([*_HOMES, "fmt"])


def __getattr__(name: str) -> object:
    """A name of ``__all__``, from its module."""
    if name not in _HOMES:
        raise AttributeError(f"module 'hx' has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
