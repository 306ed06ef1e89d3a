"""Checks of lesson 06, Which comes first?: a topological sort with its own stack."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..claimkit import Env, Fail, claim

DIAMOND = {"top": ["left", "right"], "left": ["bottom"], "right": ["bottom"], "bottom": []}
RECIPE = {
    "serve": ["ice the cake", "brew tea"],
    "ice the cake": ["bake", "make icing"],
    "brew tea": ["boil water"],
    "bake": ["mix batter", "preheat oven"],
    "make icing": ["toast nuts", "whip cream"],
    "mix batter": ["crack eggs", "weigh flour"],
    "toast nuts": ["preheat oven"],
    "boil water": [], "preheat oven": [], "whip cream": [], "crack eggs": [], "weigh flour": [],
}
CYCLE = {"bake": ["shape"], "shape": ["rise"], "rise": ["knead"], "knead": ["shape"]}
ON_CYCLE = ("knead", "rise", "shape")


class _Endless(BaseException):
    """parents() was asked far more often than the graph has nodes (BaseException: a learner's except skips it)."""


def counting(graph: Callable[[Hashable], list], limit: int) -> tuple[Callable[[Hashable], list], list[int]]:
    """A parents function that counts its calls and stops the walk past ``limit`` of them."""
    calls = [0]

    def parents(node: Hashable) -> list:
        calls[0] += 1
        if calls[0] > limit:
            raise _Endless
        return graph(node)

    return parents, calls


def listed(got: object, limit: int = 8) -> str:
    """A returned order as a short text: its first items, and how many there are."""
    if not isinstance(got, list):
        return repr(got)
    if len(got) <= limit:
        return repr(got)
    return "[" + ", ".join(repr(x) for x in got[:limit]) + f", ...] ({len(got)} items)"


def violation(order: list, parents: Callable[[Hashable], list]) -> tuple[Hashable, Hashable] | None:
    """The first (node, parent) pair where the parent is listed before the node, if any."""
    position = {node: i for i, node in enumerate(order)}
    for node in order:
        for parent in parents(node):
            if position.get(parent, len(order)) < position[node]:
                return node, parent
    return None


@claim("L06", "diamond")
def diamond(env: Env) -> None:
    got = env.graph.toposort("top", DIAMOND.__getitem__)
    if not isinstance(got, list) or sorted(map(str, got)) != sorted(DIAMOND):
        raise Fail("count", got=listed(got))
    if got[0] != "top":
        raise Fail("root", got=listed(got))


@claim("L06", "recipe")
def recipe(env: Env) -> None:
    got = env.graph.toposort("serve", RECIPE.__getitem__)
    if not isinstance(got, list) or sorted(map(str, got)) != sorted(RECIPE):
        raise Fail("count", expected=len(RECIPE), got=listed(got, 14))
    found = violation(got, RECIPE.__getitem__)
    if found:
        raise Fail("order", node=found[0], parent=found[1], got=listed(got, 14))


@claim("L06", "deep_chain")
def deep_chain(env: Env) -> None:
    depth = 50_000
    chain = {k: (k - 1,) for k in range(1, depth + 1)}
    chain[0] = ()
    try:
        got = env.graph.toposort(depth, chain.__getitem__)  # a lookup, not a Python call, per node
    except RecursionError:
        raise Fail("recursion") from None
    if got != list(range(depth, -1, -1)):
        raise Fail("wrong", got=listed(got))


@claim("L06", "ladder")
def ladder(env: Env) -> None:
    parents, calls = counting(lambda k: [k - 1, k - 1] if k > 0 else [], 1000)
    try:
        got = env.graph.toposort(40, parents)
    except _Endless:
        raise Fail("paths", got=calls[0] - 1) from None
    if got != list(range(40, -1, -1)):
        raise Fail("wrong", got=listed(got))


@claim("L06", "cycle")
def cycle(env: Env) -> None:
    limit = 10_000
    parents, _ = counting(CYCLE.__getitem__, limit)
    try:
        got = env.graph.toposort("bake", parents)
    except _Endless:
        raise Fail("endless", got=limit) from None
    except ValueError as error:
        if not any(name in str(error) for name in ON_CYCLE):
            raise Fail("not_named", got=repr(str(error))) from None
        return
    except Exception as error:  # any other exception is the wrong kind of refusal
        raise Fail("other_error", got=type(error).__name__) from None
    raise Fail("no_error", got=listed(got))
