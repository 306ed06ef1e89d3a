"""A learner's tensor graph walked by the checker itself, and freed without the cycle collector.

``walk_by_hand`` is the backward pass done the checker's way: every node's rule called once, in the
checker's own order, with the sum of what its children's rules handed back as its ``out.grad``. Only
the learner's rules run, never their ``backward()``; so a gradient that reaches a leaf this way came
through the rules, and a rule that writes some tensor's ``.grad`` itself is seen doing it.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from labs.checking.walks import tensor_order

Flat = list[float]



@dataclass
class Walk:
    """What a walk by hand found: each node's gradient (by id), and each (rule's node, node) where that rule
    wrote the other node's .grad itself."""

    grads: dict[int, Flat]
    written: list[tuple[Any, Any]] = field(default_factory=list)

    def of(self, node: Any) -> Flat:
        """The gradient the walk sent ``node`` (zeros for a node the graph does not reach)."""
        return self.grads.get(id(node), [0.0] * len(node.data))


def walk_by_hand(root: Any, seed: Flat, watched: tuple[Any, ...] = ()) -> Walk:
    """Send ``seed`` back from ``root`` through the learner's rules alone, adding shares in the checker's own lists.

    Each node's ``.grad`` is set to its summed gradient just before its rule runs, and after each rule every other
    node's ``.grad`` is looked at, and that of every tensor in ``watched`` (a leaf the graph should reach, and may
    not): one that changed was written by that rule (listed in ``written``). Every ``.grad`` is put back as it was
    afterwards. Graphs walked this way are a few nodes large.
    """
    order = tensor_order(root)
    known = {id(node) for node in order}
    looked_at = order + [node for node in watched if id(node) not in known]
    before = {id(node): list(node.grad) for node in looked_at}
    kept = dict(before)  # what each .grad should hold now, were no rule writing it
    grads = {id(node): [0.0] * len(node.data) for node in order}
    grads[id(root)] = list(seed)
    written: list[tuple[Any, Any]] = []
    try:
        for node in order:
            if node._backward is None:
                continue
            node.grad = list(grads[id(node)])
            kept[id(node)] = list(node.grad)
            for parent, grad in zip(node._parents, node._backward(node)):
                share = grads[id(parent)]
                grads[id(parent)] = [a + b for a, b in zip(share, list(grad))]
            for other in looked_at:
                if other is not node and list(other.grad) != kept[id(other)]:
                    written.append((node, other))
                    kept[id(other)] = list(other.grad)
    finally:
        for node in looked_at:
            node.grad = list(before[id(node)])
    return Walk(grads, written)


def kept_by_a_cycle(*makes: Callable[[], Any]) -> int | None:
    """With the cycle collector off, the index of the first of ``makes`` whose result stays in memory once nothing
    names it (something it refers to refers back to it); None when every result goes at once. One collection after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        for index, make in enumerate(makes):
            ref = weakref.ref(make())
            if ref() is not None:
                return index
        return None
    finally:
        if collecting:
            gc.enable()
        gc.collect()


def lazy_form(raw: object) -> str | None:
    """What a rule handed back, when it is a generator or holds one where a list belongs ('a generator', 'a tuple
    holding a generator'); None otherwise. claimkit's show() prints a generator as the list it gives, so a message
    must say so in words."""
    if isinstance(raw, Iterator):
        return f"a {type(raw).__name__}"
    if isinstance(raw, (list, tuple)) and any(isinstance(g, Iterator) for g in raw):
        return f"a {type(raw).__name__} holding a generator"
    return None


def kept_row(rule: object, rows: int, width: int) -> int | None:
    """The length of a list of floats the rule keeps from the forward pass that holds one row's worth (``width``
    numbers) where ``rows`` > 1 rows were computed, if it keeps one: a list replaced at every row, not extended."""
    for cell in getattr(rule, "__closure__", None) or ():
        try:
            kept = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if isinstance(kept, list) and rows > 1 and len(kept) == width and all(isinstance(x, float) for x in kept):
            return len(kept)
    return None
