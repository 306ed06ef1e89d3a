"""Checks of lesson 10, The order of blame: backward() with its own topological sort."""

from __future__ import annotations

import gc
import time
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, expect_close, graph_order, show
from labs.checking.cost import GROWTH, Traced, square_growth
from labs.checking.own_lists import own_lists_counted, placer
from labs.checking.walks import large_graph, recursion_judged, watch_steps

SLOW_SECONDS = 0.4  # one backward() on a ladder rung taking longer counts as too slow


@claim("L10", "seed")
def seed(env: Env) -> None:
    a, b = env.Value(3.0), env.Value(-2.0)
    y = a * b
    y.backward()
    if not close(y.grad, 1.0):
        raise Fail("wrong", got=show(y.grad), when="after one call")
    y.backward()
    if not close(y.grad, 1.0):
        raise Fail("wrong", got=show(y.grad), when="after a second call")
    y = a * b
    y.grad = 0.5
    y.backward()
    if not close(y.grad, 1.0):
        raise Fail("wrong", got=show(y.grad), when="after a call on a y whose grad already held 0.5")


@claim("L10", "square_loss")
def square_loss(env: Env) -> None:
    w, x, b = env.Value(2.0), env.Value(-1.0), env.Value(4.0)
    z = w * x + b
    loss = (z - 3) * (z - 3)
    loss.backward()
    got = (w.grad, x.grad, b.grad)
    expected = (2.0, -4.0, -2.0)
    if not all(close(g, e) for g, e in zip(got, expected)):
        raise Fail("wrong", got=show(got), expected=show(expected))


def trap_graph_values(Value: type, mirrored: bool = False) -> tuple:  # noqa: N803 - the learner's class
    """The trap graph of the lesson: w = 2; x = w*w; e = x*3; d = e*2; c = x + d (mirrored: c = d + x)."""
    w = Value(2.0)
    x = w * w
    e = x * 3
    d = e * 2
    c = d + x if mirrored else x + d
    return w, x, e, d, c


def first_misstep(root: Any, runs: list[tuple[Any, float]], names: dict[int, str]) -> tuple[str, dict[str, Any]] | None:
    """The first thing one backward() did wrong in running the steps: a message key and its values, or None."""
    inner = [node for node in graph_order(root) if node._prev]
    for node in inner:
        times = sum(1 for ran, _ in runs if ran is node)
        if times > 1:
            return "repeated", {"node": names[id(node)], "times": times}
        if times == 0:
            return "skipped", {"node": names[id(node)]}
    position = {id(node): i for i, (node, _) in enumerate(runs)}
    for node in inner:
        for user in inner:
            if any(parent is node for parent in user._prev) and position[id(user)] > position[id(node)]:
                return "order", {"node": names[id(node)], "user": names[id(user)]}
    seed = runs[position[id(root)]][1]
    if not close(seed, 1.0):
        return "seed", {"seed": show(seed)}
    return None


@claim("L10", "trap_graph")
def trap_graph(env: Env) -> None:
    for mirrored in (False, True):  # c = x + d, then c = d + x: a walk may depend on the order of _prev
        w, x, e, d, c = trap_graph_values(env.Value, mirrored)
        names = {id(w): "w", id(x): "x", id(e): "e", id(d): "d", id(c): "c"}
        runs = watch_steps(c)
        c.backward()
        if close(w.grad, 28.0) and close(x.grad, 7.0):
            continue
        values = {"graph": "c = d + x" if mirrored else "c = x + d", "got_w": show(w.grad), "got_x": show(x.grad)}
        misstep = first_misstep(c, runs, names)
        if misstep is not None:
            key, found = misstep
            raise Fail(key, **found, **values)
        raise Fail("wrong", **values)


def shared_values(Value: type, mirrored: bool = False) -> tuple:  # noqa: N803 - the learner's class
    """x = 1.5; p = x*2; q = p*3; r = p*p; out = q + r (mirrored: r + q): p is used by two nodes, by r twice."""
    x = Value(1.5)
    p = x * 2
    q = p * 3
    r = p * p
    out = r + q if mirrored else q + r
    return x, p, q, r, out


@claim("L10", "shared_twice")
def shared_twice(env: Env) -> None:
    for mirrored in (False, True):
        x, p, q, r, out = shared_values(env.Value, mirrored)
        names = {id(p): "p", id(q): "q", id(r): "r", id(out): "out"}
        runs = watch_steps(out)
        out.backward()
        if close(x.grad, 18.0) and close(p.grad, 9.0):
            continue
        values = {"graph": "out = r + q" if mirrored else "out = q + r", "got_x": show(x.grad), "got_p": show(p.grad)}
        key, found = first_misstep(out, runs, names) or ("wrong", {})
        raise Fail(key, **found, **values)


@claim("L10", "long_chain")
def long_chain(env: Env) -> None:
    with recursion_judged(), large_graph():
        x = env.Value(0.0)
        y = x
        for _ in range(5000):
            y = y + 1
        y.backward()
    expect_close("wrong", x.grad, 1.0)


def timed_backward(root: object) -> float:
    """Seconds that root.backward() took, on the wall clock: a walk that follows every path is then stopped by its
    own message after about as long on a busy machine as on a quiet one, well within the claim's time limit."""
    start = time.perf_counter()
    root.backward()  # type: ignore[attr-defined]
    return time.perf_counter() - start


@claim("L10", "ladder")
def ladder(env: Env) -> None:
    """Each level adds the level below to itself: 2^depth paths, depth + 1 nodes."""
    before = 0.0  # the rung below's time: two slow rungs in a row, so one pause of the machine is not enough
    for depth in range(10, 41, 2):
        x = env.Value(1.0)
        top = x
        for _ in range(depth):
            top = top + top
        seconds = timed_backward(top)
        if not close(x.grad, 2.0**depth):
            raise Fail("wrong", depth=depth, got=show(x.grad), expected=show(2.0**depth))
        if seconds > SLOW_SECONDS and before > SLOW_SECONDS / 4:
            raise Fail("slow", depth=depth, nodes=depth + 1, seconds=f"{seconds:.2f}", paths=f"{2**depth:,}")
        before = seconds


def chain(env: Env, length: int) -> tuple[Any, Any]:
    """A chain of ``length`` additions x + 1 + 1 + ...: (x, the last node)."""
    x = env.Value(0.0)
    y = x
    for _ in range(length):
        y = y + 1
    return x, y


def chain_gradient(env: Env, length: int) -> None:
    """backward() on a chain of ``length`` additions, whose gradient it checks; never timed."""
    try:
        with large_graph():
            x, y = chain(env, length)
            y.backward()
    except RecursionError:
        raise Fail("recursion", length=f"{length:,}") from None
    expect_close("wrong", x.grad, 1.0, length=f"{length:,}")


CHAIN_SIZE = 250  # additions in the shorter chain whose lists are counted; the longer one has GROWTH times more


def chain_work(env: Env, length: int) -> Traced:
    """What the lists the learner's backward() builds read, copy and move, on a chain of ``length`` additions."""
    work = Traced()
    try:
        with large_graph():
            _, y = chain(env, length)
            with own_lists_counted(env, work):
                y.backward()
    except RecursionError:
        raise Fail("recursion", length=f"{length:,}") from None
    return work


@claim("L10", "very_long_chain")
def very_long_chain(env: Env) -> None:
    """A chain of 20,000 additions is walked without recursion and gets its gradient; and the work of the lists
    the walk builds, counted on chains of CHAIN_SIZE and GROWTH times more, grows in step with the chain. Counted,
    never timed: the verdict is the same on any machine."""
    try:
        small, large = chain_work(env, CHAIN_SIZE), chain_work(env, CHAIN_SIZE * GROWTH)
        if found := square_growth(small, large, placer(env)):
            raise Fail("slow", n=f"{CHAIN_SIZE:,}", times=GROWTH, **found)
        chain_gradient(env, 20_000)  # after the count: a walk that slows down would take minutes here
    finally:  # the chains' tens of thousands of Values hold cycles: collected here, under this claim's limit
        gc.collect()


@claim("L10", "cube")
def cube(env: Env) -> None:
    for a_value in (2.0, -1.5):
        a = env.Value(a_value)
        (a * a * a).backward()
        expect_close("wrong", a.grad, 3 * a_value**2, a=show(a_value))


@claim("L10", "product_of_sums")
def product_of_sums(env: Env) -> None:
    for a_value in (2.0, -0.5):
        a = env.Value(a_value)
        ((a + 1) * (3 * a)).backward()
        expect_close("wrong", a.grad, 6 * a_value + 3, a=show(a_value))


@claim("L10", "twice")
def twice(env: Env) -> None:
    a, b, c = env.Value(2.0), env.Value(-3.0), env.Value(10.0)
    inner = a * b + c
    loss = inner * a
    loss.backward()
    runs = watch_steps(loss)
    loss.backward()
    got = (a.grad, b.grad, c.grad)
    expected = (-4.0, 8.0, 4.0)
    if all(close(g, e) for g, e in zip(got, expected)):
        return
    values = {"got": show(got), "expected": show(expected)}
    if not runs:
        raise Fail("no_steps", **values)
    if all(close(g, e / 2) for g, e in zip(got, expected)):
        raise Fail("leaves_reset", **values)
    if abs(inner.grad) > 2.0 + 1e-9:  # one pass gives a*b + c the grad a = 2
        raise Fail("kept", inner=show(inner.grad), **values)
    raise Fail("wrong", **values)
