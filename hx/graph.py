"""The graph model: every Value reachable from a root, once each, in a stable topological order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from hx.fmt import MISSING, fmt

__all__ = ["Edge", "Graph", "Node", "plain", "read_attr", "read_inputs", "topological_order"]


def read_attr(obj: object, name: str, default: object = MISSING) -> object:
    """obj.name, or default when reading it fails in any way."""
    try:
        return getattr(obj, name, default)
    except Exception:  # a learner's property may raise anything
        return default


def read_inputs(obj: object) -> tuple[object, ...]:
    """The Values obj was made from (its _prev as a tuple); () for a leaf or an unreadable _prev."""
    try:
        prev = getattr(obj, "_prev", ())
    except Exception:  # a learner's property may raise anything
        return ()
    if type(prev) is tuple:
        return prev
    if isinstance(prev, (tuple, list, set, frozenset)):
        return tuple(prev)  # a set (as micrograd keeps) iterates in no stable order
    return ()


def topological_order(root: object, inputs: Callable[[object], Iterable[object]] = read_inputs) -> list[object]:
    """Every object reachable from root once, inputs before outputs, by the lesson's (node, parents_done) stack.

    A node's inputs are read by ``inputs`` (its _prev by default) and pushed in that order, so the last one is
    explored first; the root comes last. No recursion: a chain of any length fits.
    """
    order: list[object] = []
    seen: set[int] = set()
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            for parent in inputs(node):
                if id(parent) not in seen:
                    stack.append((parent, False))
    return order


@dataclass(slots=True, eq=False, repr=False)
class Node:
    """One Value as the drawings see it: its name, op, data, grad and inputs (by position in the graph)."""

    index: int
    name: str
    op: str
    data: object
    grad: object
    inputs: tuple[int, ...]
    input_names: tuple[str, ...]

    @property
    def is_leaf(self) -> bool:
        """True for a Value made from nothing (an input or a wrapped constant)."""
        return not self.inputs

    def __repr__(self) -> str:
        return f"Node({self.index}, {self.name!r}, op={self.op!r}, data={fmt(self.data)}, grad={fmt(self.grad)})"

    def to_dict(self) -> dict[str, object]:
        """The node as plain data (numbers stay numbers, anything else becomes safe text)."""
        return {
            "index": self.index,
            "name": self.name,
            "op": self.op,
            "data": plain(self.data),
            "grad": plain(self.grad),
            "inputs": list(self.inputs),
            "input_names": list(self.input_names),
        }


@dataclass(frozen=True, slots=True)
class Edge:
    """One backward edge: the output at `output` was made from the input at `input`, in slot `position` of _prev."""

    input: int
    output: int
    position: int


def plain(x: object) -> object:
    """x itself when it is a plain int or float, else its safe text (fit for JSON)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return fmt(x)
    return float.__float__(x) if isinstance(x, float) else int.__int__(x)


def _op_text(obj: object) -> str:
    """The op of obj as text ('' for a leaf)."""
    op = read_attr(obj, "_op", "")
    if isinstance(op, str):
        return op
    return "" if op is MISSING or op is None else fmt(op)


def _names(objects: list[object]) -> list[str]:
    """Each object's label when it is a non-empty str, else #0, #1, ... in list order (skipping taken labels)."""
    labels = [read_attr(obj, "label", "") for obj in objects]
    taken = {label for label in labels if isinstance(label, str) and label}
    names: list[str] = []
    counter = 0
    for label in labels:
        if isinstance(label, str) and label:
            names.append(label)
            continue
        while f"#{counter}" in taken:
            counter += 1
        names.append(f"#{counter}")
        counter += 1
    return names


@dataclass(frozen=True, eq=False)
class Graph:
    """A snapshot of the graph under a root: nodes inputs-first, the root last."""

    nodes: tuple[Node, ...]
    values: tuple[object, ...] = field(repr=False)  # the learner's objects, same order as nodes
    _index: dict[int, int] = field(repr=False)

    @classmethod
    def from_root(cls, root: object) -> Graph:
        """Collect every Value reachable from root, once each (identity by id(), never by == or hash)."""
        objects = topological_order(root)
        index = {id(obj): i for i, obj in enumerate(objects)}
        names = _names(objects)
        nodes = []
        for i, obj in enumerate(objects):
            inputs = tuple([index[id(parent)] for parent in read_inputs(obj)])
            data = read_attr(obj, "data")
            if data is MISSING and isinstance(obj, (int, float)):
                data = obj  # a bare number sitting in some _prev
            input_names = tuple([names[j] for j in inputs])
            nodes.append(Node(i, names[i], _op_text(obj), data, read_attr(obj, "grad"), inputs, input_names))
        return cls(nodes=tuple(nodes), values=tuple(objects), _index=index)

    @property
    def root(self) -> Node:
        """The node the graph was collected from."""
        return self.nodes[-1]

    @property
    def total_edges(self) -> int:
        """The number of backward edges (input -> output): the sum of len(_prev) over the nodes."""
        return sum(len(node.inputs) for node in self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def index_of(self, value: object) -> int:
        """The position of a learner's object in the graph (KeyError when it is not in it)."""
        return self._index[id(value)]

    def node(self, name: str) -> Node:
        """The first node with this name (KeyError when there is none)."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def edges(self) -> list[Edge]:
        """Every backward edge, outputs in graph order and each output's inputs in _prev order."""
        return [
            Edge(input=j, output=node.index, position=k)
            for node in self.nodes
            for k, j in enumerate(node.inputs)
        ]

    def to_dict(self) -> dict[str, object]:
        """The graph as plain data: its nodes and its edge count."""
        return {"nodes": [node.to_dict() for node in self.nodes], "total_edges": self.total_edges}
