"""What checks of a learner's graph walks are written with, shared by the lessons that walk one (06, 10, 12, 14).

Each wraps the learner's code without changing what it computes: ``watch_steps`` records the order of the
``_backward`` steps, ``large_graph`` lets a very large graph be built and walked at full speed, and
``recursion_judged`` turns a RecursionError, or a changed recursion limit, into the claim's message.
``tensor_order`` is the checker's own order of a tensor graph (lessons 14 to 18), for checks that walk it by hand.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hx.graph import topological_order
from labs.checking.claimkit import Fail, graph_order
from labs.checking.timelimit import unwatched


def watch_steps(root: Any) -> list[tuple[Any, float]]:
    """Wrap the ``_backward`` of every node that has inputs, so that each run is recorded with the node's grad then.

    Leaves are left alone: running their empty step or not makes no difference.
    """
    runs: list[tuple[Any, float]] = []
    for node in graph_order(root):
        if node._prev:
            step = node._backward

            def watched(node: Any = node, step: Callable[[], None] = step) -> None:
                runs.append((node, node.grad))
                step()
            node._backward = watched
    return runs


@contextmanager
def large_graph() -> Iterator[None]:
    """Build and walk a very large graph at full speed: the time limit's watching is off inside (unwatched), and so
    is cyclic garbage collection.

    Where the page cannot share memory, the time limit watches each call and loop turn of the learner's code, which
    makes a walk of 50,000 nodes several times slower and hides what the time per node shows; and each Value's
    closure makes a cycle for the collector to chase. The checks before, on small graphs and watched, have shown
    that the learner's walk finishes; Stop still ends it in the browser, and in CPython and on an isolated page the
    time limit costs nothing and stays.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        with unwatched():
            yield
    finally:
        if collecting:
            gc.enable()


@contextmanager
def recursion_limit_kept() -> Iterator[list[int]]:
    """Inside the block, a call of sys.setrecursionlimit is recorded, not obeyed; the limit is the same after it."""
    asked: list[int] = []
    set_limit, limit = sys.setrecursionlimit, sys.getrecursionlimit()
    sys.setrecursionlimit = asked.append
    try:
        yield asked
    finally:
        sys.setrecursionlimit = set_limit
        if sys.getrecursionlimit() != limit:  # changed some other way
            asked.append(sys.getrecursionlimit())
            sys.setrecursionlimit(limit)


@contextmanager
def recursion_judged() -> Iterator[None]:
    """Run the block with Python's recursion limit kept (recursion_limit_kept); then fail with 'limit' when the code
    asked for another limit, or with 'recursion' when it raised RecursionError. Other errors pass through."""
    crashed = False
    with recursion_limit_kept() as asked:
        try:
            yield
        except RecursionError:
            crashed = True
    if asked:
        raise Fail("limit", asked=f"{max(asked):,}")
    if crashed:
        raise Fail("recursion")


def tensor_order(root: Any) -> list[Any]:
    """Every node of a tensor graph that ``root`` reaches, output first, each node before its parents; no recursion.

    A node without ``_parents`` (or with ``None`` there) counts as a leaf."""
    return topological_order(root, lambda node: getattr(node, "_parents", ()) or ())[::-1]
