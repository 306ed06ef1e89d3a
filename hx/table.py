"""The node table (node, op, value, gradient) as aligned plain text and as HTML."""

from __future__ import annotations

from hx.fmt import escape_html, fmt, one_line
from hx.graph import Graph

__all__ = ["as_graph", "node_table_html", "node_table_rows", "node_table_text"]


def as_graph(root_or_graph: object) -> Graph:
    """The Graph itself, or the Graph collected from a root Value."""
    return root_or_graph if isinstance(root_or_graph, Graph) else Graph.from_root(root_or_graph)


def node_table_rows(root_or_graph: object, *, grads: bool = True) -> list[list[str]]:
    """The header and one row per node (inputs first) as text cells: node, op, value[, gradient]."""
    graph = as_graph(root_or_graph)
    header = ["node", "op", "value", "gradient"] if grads else ["node", "op", "value"]
    rows = [header]
    for node in graph.nodes:
        row = [one_line(node.name), one_line(node.op), fmt(node.data)]
        if grads:
            row.append(fmt(node.grad))
        rows.append(row)
    return rows


def node_table_text(root_or_graph: object, *, grads: bool = True) -> str:
    """The node table as plain text: names and ops left-aligned, numbers right-aligned."""
    rows = node_table_rows(root_or_graph, grads=grads)
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    lines = []
    for r, row in enumerate(rows):
        cells = [
            cell.ljust(width) if col < 2 else cell.rjust(width)
            for col, (cell, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
        if r == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines) + "\n"


def node_table_html(root_or_graph: object, *, grads: bool = True) -> str:
    """The node table as <table class="hx-table">, every cell escaped."""
    header, *body = node_table_rows(root_or_graph, grads=grads)
    head = "".join(f"<th>{escape_html(cell)}</th>" for cell in header)
    lines = ['<table class="hx-table">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for row in body:
        cells = [
            f'<td class="hx-num">{escape_html(cell)}</td>' if col >= 2 else f"<td>{escape_html(cell)}</td>"
            for col, cell in enumerate(row)
        ]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines) + "\n"
