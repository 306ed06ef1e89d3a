"""Any graph given as ``parents(node)`` (a recipe, a build), and a step-through of a learner's sort over it.

Nodes are any hashable objects, named by ``str`` (cut to one short line). Nothing here
recurses, and the learner's sort is only ever handed a ``parents`` function that records
what it is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from hx.fmt import one_line

__all__ = ["Dag", "SortTrace", "sort_trace"]

Parents = Callable[[Hashable], Iterable[Hashable]]
MAX_NODES = 200
MAX_CALLS = 2000


def _name(node: object) -> str:
    """A node's name for a picture: its str, on one line, never longer than 40 characters."""
    try:
        text = str(node)
    except Exception:  # a learner's object may fail to print itself
        text = type(node).__name__
    text = one_line(text)
    return text if len(text) <= 40 else text[:39] + "…"


def _quoted(text: str) -> str:
    """Text as a DOT double-quoted string that Graphviz shows literally."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Dag:
    """The nodes reachable from a root (in the order first met) and each node's parents, by index."""

    nodes: tuple[Hashable, ...]
    parents: tuple[tuple[int, ...], ...]

    @classmethod
    def from_root(cls, root: Hashable, parents: Parents) -> Dag:
        """Walk from root with an explicit stack, meeting each node once (at most MAX_NODES of them)."""
        index: dict[Hashable, int] = {root: 0}
        nodes: list[Hashable] = [root]
        links: list[tuple[int, ...]] = []
        at = 0
        while at < len(nodes):
            found = []
            for parent in parents(nodes[at]):
                if parent not in index:
                    if len(nodes) >= MAX_NODES:
                        raise ValueError(f"the graph has more than {MAX_NODES} nodes: too many to draw")
                    index[parent] = len(nodes)
                    nodes.append(parent)
                found.append(index[parent])
            links.append(tuple(found))
            at += 1
        return cls(tuple(nodes), tuple(links))

    def index_of(self, node: Hashable) -> int | None:
        """The position of a node, or None when it is not in the graph."""
        try:
            return self.nodes.index(node)
        except ValueError:
            return None

    def to_dot(self) -> str:
        """The graph as Graphviz DOT, every arrow from a node to what is made from it, nodes named n0, n1, ..."""
        lines = ["digraph {", "  rankdir=BT;", '  node [shape=box fontsize=12];']
        for i, node in enumerate(self.nodes):
            lines.append(f"  n{i} [label={_quoted(_name(node))}];")
        for i, found in enumerate(self.parents):
            for j in found:
                lines.append(f"  n{j} -> n{i};")
        lines.append("}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class SortTrace:
    """What a learner's sort did on a graph: each call of parents() in turn, and the order it returned."""

    dag: Dag
    calls: tuple[tuple[int, tuple[int, ...]], ...]  # (asked node, its parents), by index
    order: tuple[int, ...] | None  # the returned order by index, None when the sort raised
    error: str | None
    verdict: str  # one sentence on the returned order

    def events(self) -> list[dict[str, object]]:
        """The steps to show: one per call of parents(), then one per node of the returned order."""
        names = [_name(node) for node in self.dag.nodes]
        steps: list[dict[str, object]] = []
        asked: list[str] = []
        for number, (i, found) in enumerate(self.calls, start=1):
            asked.append(names[i])
            listed = ", ".join(names[j] for j in found) or "nothing: it is a first step"
            steps.append({"text": f"Call {number}: your sort asks parents({names[i]}) and gets {listed}.",
                          "node": f"n{i}", "panels": [["parents() asked, in turn", list(asked)],
                                                      ["order returned", []]]})
        returned: list[str] = []
        for position, i in enumerate(self.order or (), start=1):
            returned.append(names[i])
            steps.append({"text": f"Your sort returns {names[i]} at position {position}.", "node": f"n{i}",
                          "panels": [["parents() asked, in turn", list(asked)], ["order returned", list(returned)]]})
        last = self.error or self.verdict
        steps.append({"text": last, "node": None,
                      "panels": [["parents() asked, in turn", list(asked)], ["order returned", list(returned)]]})
        return steps

    def to_dict(self) -> dict[str, object]:
        """The trace as plain data for the page."""
        return {"dot": self.dag.to_dot(), "events": self.events(), "error": self.error, "verdict": self.verdict,
                "calls": len(self.calls), "nodes": len(self.dag.nodes)}


class _TooManyCalls(BaseException):
    """The sort asked for parents far more often than a walk of the graph needs."""


def _verdict(dag: Dag, order: list[int]) -> str:
    """One sentence: is this a topological order of the graph, root first, every node once?"""
    if sorted(order) != list(range(len(dag.nodes))):
        entries = "1 entry" if len(order) == 1 else f"{len(order)} entries"
        nodes = "1 node" if len(dag.nodes) == 1 else f"{len(dag.nodes)} nodes"
        return f"The order has {entries} for {nodes}: every node should appear once."
    position = {i: k for k, i in enumerate(order)}
    for i, found in enumerate(dag.parents):
        for j in found:
            if position[j] < position[i]:
                names = _name(dag.nodes[i]), _name(dag.nodes[j])
                return f"Not a valid order: {names[1]} comes before {names[0]}, which is made from it."
    return "A valid order: every node once, each one before everything it is made from."


def sort_trace(sort: Callable[[Hashable, Parents], object], root: Hashable, parents: Parents) -> SortTrace:
    """Run a learner's ``sort(root, parents)`` with a parents() that records each call.

    Whatever the sort raises is kept as the trace's error, except NotImplementedError: a sort that is
    not written yet is not a trace to show.
    """
    dag = Dag.from_root(root, parents)
    calls: list[tuple[int, tuple[int, ...]]] = []

    def recorded(node: Hashable) -> list[Hashable]:
        if len(calls) >= MAX_CALLS:
            raise _TooManyCalls
        i = dag.index_of(node)
        if i is None:
            raise KeyError(f"{_name(node)} is not a node of this graph")
        found = [dag.nodes[j] for j in dag.parents[i]]
        calls.append((i, dag.parents[i]))
        return found

    error = None
    order: tuple[int, ...] | None = None
    try:
        returned: Any = sort(root, recorded)  # the learner's: whatever it is, walking it may raise, reported below
        indices = [dag.index_of(node) for node in returned]
        if any(i is None for i in indices):
            error = "Your sort returned something that is not a node of this graph."
        else:
            order = tuple(i for i in indices if i is not None)
    except _TooManyCalls:
        error = f"Stopped after {MAX_CALLS} calls of parents(): the walk follows paths, not nodes."
    except NotImplementedError:
        raise  # a sort not written yet: the cell says so, and offers the finished piece
    except Exception as exc:  # whatever the learner's sort raises is reported, not raised
        error = f"Your sort raised {type(exc).__name__}: {one_line(str(exc))}"
    verdict = _verdict(dag, list(order)) if order is not None else "No order to check."
    return SortTrace(dag, tuple(calls), order, error, verdict)
