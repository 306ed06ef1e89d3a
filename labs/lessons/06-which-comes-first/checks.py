"""Checks of lesson 06, Which comes first?: a topological sort with its own stack."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from functools import cache
from itertools import islice
from typing import Any

from labs.checking.claimkit import Env, Fail, claim
from labs.checking.cost import GROWTH, SEARCHES, Traced, growing_kind, square_growth
from labs.checking.own_lists import own_lists_counted, placer
from labs.checking.walks import recursion_judged

Parents = Callable[[Any], Any]  # parents(node) of a graph: any nodes, in any iterable

# Each graph lists a node's parents as a tuple: a sort that changes what parents() hands it gets an error of its
# own, and cannot change the graphs the next checks use.
DIAMOND = {"top": ("left", "right"), "left": ("bottom",), "right": ("bottom",), "bottom": ()}
RECIPE = {
    "serve": ("ice the cake", "brew tea"),
    "ice the cake": ("bake", "make icing"),
    "brew tea": ("boil water",),
    "bake": ("mix batter", "preheat oven"),
    "make icing": ("toast nuts", "whip cream"),
    "mix batter": ("crack eggs", "weigh flour"),
    "toast nuts": ("preheat oven",),
    "boil water": (), "preheat oven": (), "whip cream": (), "crack eggs": (), "weigh flour": (),
}
# Lesson 10's trap graph (c = x + d, d = e * 2, e = x * 3, x = w * w): x is used by c directly and through
# d and e, so x may come only after e. Both orders of c's parents, so a walk that takes them either way meets
# the direct edge last.
TRAP = {"c": ("x", "d"), "d": ("e",), "e": ("x",), "x": ("w",), "w": ()}
TRAP_SWAPPED = {**TRAP, "c": ("d", "x")}
CYCLE = {"bake": ("shape",), "shape": ("rise",), "rise": ("knead",), "knead": ("shape",)}
ON_CYCLE = ("knead", "rise", "shape")


class _Endless(BaseException):
    """parents() was asked far more often than the graph has nodes (BaseException: a learner's except skips it)."""


def counting(graph: Parents, limit: int) -> tuple[Callable[[Hashable], list], list[int]]:
    """A parents function that counts its calls and stops the walk past ``limit`` of them."""
    calls = [0]

    def parents(node: Hashable) -> list:
        calls[0] += 1
        if calls[0] > limit:
            raise _Endless
        return graph(node)

    return parents, calls


def listed(got: object, limit: int = 8) -> str:
    """A returned order (a list, or a tuple or set in its place) as a short text: its first items, and how many."""
    if not isinstance(got, (list, tuple, set, frozenset)) or len(got) <= limit:
        return repr(got)
    opening, closing = "[]" if isinstance(got, list) else "()" if isinstance(got, tuple) else "{}"
    first = ", ".join(repr(x) for x in islice(got, limit))
    return f"{opening}{first}, ...{closing} ({len(got):,} items)"


def as_list(got: object, label: str, limit: int = 8) -> list:
    """The learner's order, or a failure naming what came back instead of a list."""
    if not isinstance(got, list):
        raise Fail("not_list", graph=label, kind=type(got).__name__, got=listed(got, limit))
    return got


def violation(order: list, parents: Parents) -> tuple[Hashable, Hashable] | None:
    """The first (node, parent) pair where the parent is listed before the node, if any."""
    position = {node: i for i, node in enumerate(order)}
    for node in order:
        for parent in parents(node):
            if position.get(parent, len(order)) < position[node]:
                return node, parent
    return None


def valid(env: Env, root: Hashable, graph: dict, label: str, limit: int = 8) -> list:
    """The learner's order of ``graph`` from ``root``; fails unless it lists every node once in a valid order."""
    try:
        got = env.graph.toposort(root, graph.__getitem__)
    except ValueError as error:
        raise Fail("false_cycle", graph=label, got=repr(str(error))) from None
    got = as_list(got, label, limit)
    if sorted(map(str, got)) != sorted(graph):
        raise Fail("count", graph=label, expected=len(graph), got=listed(got, limit))
    if got[0] != root and got[-1] == root:
        raise Fail("root_last", graph=label, root=repr(root), got=listed(got, limit))
    found = violation(got, graph.__getitem__)  # a root not first has a node it uses, directly or not, before it
    if found:
        raise Fail("order", graph=label, node=repr(found[0]), parent=repr(found[1]), got=listed(got, limit))
    return got


@claim("L06", "diamond")
def diamond(env: Env) -> None:
    valid(env, "top", DIAMOND, "the diamond (top uses left and right, both use bottom)")


@claim("L06", "recipe")
def recipe(env: Env) -> None:
    valid(env, "serve", RECIPE, "the recipe", 14)


@claim("L06", "shortcut")
def shortcut(env: Env) -> None:
    for graph in (TRAP, TRAP_SWAPPED):
        label = f"lesson 10's trap graph (c uses {' and '.join(graph['c'])}, d uses e, e uses x, x uses w)"
        valid(env, "c", graph, label)


class Counted(int):
    """A node (an int) whose == comparisons are counted: looking it up in a set or a dict never compares
    it with other nodes (their hashes differ), but searching a list compares it with each item."""

    compared = 0
    limit = 0

    __hash__ = int.__hash__

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        if Counted.compared > Counted.limit:
            raise _Endless
        return int.__eq__(self, other)  # not int(self) == other: with another node, that asks other.__eq__ too

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)


# A sort may compare nodes a few times per node and edge (a guard that a parent is not the node itself does); a search
# of a list compares a node with every item of it, millions of times on the graphs below.
COMPARISONS_PER_ITEM = 4


def size(graph: dict) -> tuple[int, int]:
    """The number of nodes and of edges of a graph given as {node: parents}."""
    return len(graph), sum(len(parents) for parents in graph.values())


@contextmanager
def comparisons_limited(graph: dict) -> Iterator[None]:
    """Stop the walk (with _Endless) once nodes were compared with == more often than the graph has nodes and edges."""
    Counted.compared, Counted.limit = 0, COMPARISONS_PER_ITEM * sum(size(graph))
    try:
        yield
    finally:
        Counted.limit = 10**18  # the checks may compare the learner's result afterwards, harmlessly


def searched(graph: dict) -> Fail:
    """The failure for a walk that comparisons_limited stopped."""
    nodes, edges = size(graph)
    return Fail("searched", nodes=f"{nodes:,}", edges=f"{edges:,}", got=f"{COMPARISONS_PER_ITEM * (nodes + edges):,}")


@claim("L06", "linear")
def linear(env: Env) -> None:
    """A node with 2,000 parents on top of a chain 2,000 deep: nodes are never compared with each other."""
    width = depth = 2_000
    nodes = [Counted(k) for k in range(width + depth + 1)]
    root = nodes[-1]
    graph: dict[Counted, tuple[Counted, ...]] = {root: tuple(nodes[depth:width + depth])}
    graph.update({nodes[k]: (nodes[k - 1],) for k in range(1, depth)})
    graph[nodes[0]] = ()
    graph.update({nodes[k]: (nodes[depth - 1],) for k in range(depth, width + depth)})
    nodes_count, _ = size(graph)
    limit = 4 * nodes_count  # a sort may ask twice per node (Kahn's algorithm does); a walk of paths asks millions
    parents, calls = counting(graph.__getitem__, limit)
    try:
        with recursion_judged(), comparisons_limited(graph):
            env.graph.toposort(root, parents)  # whether its order is right is the other claims' business
    except _Endless:
        if calls[0] > limit:
            raise Fail("paths", nodes=f"{nodes_count:,}", got=f"{limit:,}") from None
        raise searched(graph) from None
    moves_items_again_and_again(env)


def moves_items_again_and_again(env: Env) -> None:
    """Fail with 'moved' when the lists the learner's toposort builds move or copy items in work that grows with the
    square of the graph: counted, so a deep chain never has to find it by running out of time."""
    small, large = chain_work(env, CHAIN_SIZE), chain_work(env, CHAIN_SIZE * GROWTH)
    if growing_kind(small, large) in SEARCHES:
        return  # a search of a list compares nodes: comparisons_limited finds it, and says so
    if found := square_growth(small, large, placer(env)):
        raise Fail("moved", n=f"{CHAIN_SIZE:,}", times=GROWTH, **found)


CHAIN_SIZE = 250  # nodes of the shorter chain whose lists are counted; the longer one has GROWTH times more


def chain_work(env: Env, depth: int) -> Traced:
    """What the lists the learner's toposort builds itself read, copy and move, sorting a chain ``depth`` deep."""
    work = Traced()
    chain = {k: (k - 1,) if k else () for k in range(depth + 1)}
    with recursion_judged(), own_lists_counted(env, work):
        env.graph.toposort(depth, chain.__getitem__)
    return work


@cache
def counted_chain(depth: int) -> tuple[list[Counted], dict[Counted, tuple[Counted, ...]]]:
    """The nodes 0..depth and the chain depth → depth - 1 → ... → 0, built once (the learner's sort only reads them)."""
    nodes = [Counted(k) for k in range(depth + 1)]
    chain: dict[Counted, tuple[Counted, ...]] = {nodes[k]: (nodes[k - 1],) for k in range(1, depth + 1)}
    chain[nodes[0]] = ()
    return nodes, chain


@claim("L06", "deep_chain")
def deep_chain(env: Env) -> None:
    depth = 50_000
    moves_items_again_and_again(env)
    nodes, chain = counted_chain(depth)
    try:
        with recursion_judged(), comparisons_limited(chain):
            got = env.graph.toposort(nodes[depth], chain.__getitem__)  # a lookup, not a Python call, per node
    except _Endless:
        raise searched(chain) from None
    order = as_list(got, "a chain 50,000 nodes deep")
    if order != nodes[::-1]:  # the same objects: compared by identity, no == called
        raise Fail("wrong", got=listed(order))


@claim("L06", "ladder")
def ladder(env: Env) -> None:
    parents, calls = counting(lambda k: [k - 1, k - 1] if k > 0 else [], 1000)
    try:
        got = env.graph.toposort(40, parents)
    except _Endless:
        raise Fail("paths", got=calls[0] - 1) from None
    order = as_list(got, "the doubling ladder")
    if order != list(range(40, -1, -1)):
        raise Fail("wrong", got=listed(order))


def afresh(name: str) -> str:
    """A string equal to ``name`` but a new object, as text read from a file or built at run time is."""
    return "".join(list(name))


def parents_afresh(graph: dict) -> Callable[[Hashable], tuple]:
    """A parents function that hands out new objects, equal (==) to the graph's nodes, on every call."""
    return lambda node: tuple(afresh(parent) for parent in graph[node])


@claim("L06", "equal_nodes")
def equal_nodes(env: Env) -> None:
    """The diamond again, with each node built afresh by parents(): equal nodes are one node, whatever their id()."""
    plain = env.graph.toposort("top", DIAMOND.__getitem__)
    if not isinstance(plain, list) or sorted(map(str, plain)) != sorted(DIAMOND) or violation(plain, DIAMOND.get):
        return  # the diamond claim says what is wrong with this order
    got = env.graph.toposort(afresh("top"), parents_afresh(DIAMOND))
    if isinstance(got, list) and sorted(map(str, got)) == sorted(DIAMOND) and not violation(got, DIAMOND.get):
        return
    repeated = sorted({str(node) for node in got if got.count(node) > 1}) if isinstance(got, list) else []
    twice = "".join(f", {name!r} more than once" for name in repeated)
    raise Fail("afresh", got=listed(got) + twice)


# The cycle's steps again, with the edge that closed the cycle taken out.
UNCYCLED = {"bake": ("shape",), "shape": ("rise",), "rise": ("knead",), "knead": ()}


def after_refusal(env: Env) -> None:
    """Fail with 'after_refusal' unless, after refusing the cycle, toposort sorts the same steps without it."""
    try:
        got = env.graph.toposort("bake", UNCYCLED.__getitem__)
    except ValueError as error:
        raise Fail("after_refusal", got=f"raised ValueError({str(error)!r})") from None
    if got != ["bake", "shape", "rise", "knead"]:
        raise Fail("after_refusal", got=f"returned {listed(got)}")


@claim("L06", "cycle")
def cycle(env: Env) -> None:
    limit = 10_000
    parents, _ = counting(CYCLE.__getitem__, limit)
    try:
        got = env.graph.toposort("bake", parents)
    except _Endless:
        raise Fail("endless", got=f"{limit:,}") from None
    except ValueError as error:
        if not any(name in str(error) for name in ON_CYCLE):
            raise Fail("not_named", got=repr(str(error))) from None
        after_refusal(env)
        return
    except Exception as error:  # any other exception is the wrong kind of refusal
        raise Fail("other_error", got=type(error).__name__) from None
    raise Fail("no_error", got=listed(got))
