"""A topological order of anything that depends on other things, found without recursion.

A node is any hashable object; ``parents(node)`` says which nodes it is made from
(a recipe step's ingredients, a Value's ``_prev``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

Node = TypeVar("Node", bound=Hashable)


# --- gap L06.toposort ---
def toposort(root: Node, parents: Callable[[Node], Iterable[Node]]) -> list[Node]:
    """Every node reachable from root once, root first, each node before all of its parents."""
    order: list[Node] = []
    finished: set[Node] = set()
    on_path: set[Node] = set()  # entered, waiting for its parents to finish
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            on_path.discard(node)
            finished.add(node)
            order.append(node)
        elif node in on_path:
            raise ValueError(f"there is no order: {node!r} depends on itself through a cycle")
        elif node not in finished:
            on_path.add(node)
            stack.append((node, True))
            for parent in parents(node):
                stack.append((parent, False))
    order.reverse()  # parents were appended first; the root comes first
    return order
# --- end gap ---
