"""Drawings of any learner's Value graph: tables, Graphviz DOT, backward and sort traces.

The names below come from their modules on first use (``from hx import to_svg`` imports hx.dot then), so
that importing one small module of the package (hx.fmt, for the page's escaping) does not import them all.
"""

from importlib import import_module

from hx.fmt import fmt as fmt  # small and named like its module: bound here, hx.fmt is the function as before

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
