"""Checks of lesson 13, One operation or four: a fused, numerically stable sigmoid."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, graph_order, nudged_slope, show


def sigmoid_by_math(x: float) -> float:
    """The checker's own sigmoid, for moderate x."""
    return 1.0 / (1.0 + math.exp(-x))


def edges(root: object) -> int:
    """Backward edges of a graph: one per (node, input) pair."""
    return sum(len(node._prev) for node in graph_order(root))


def sigmoid_of(env: Env, v: Any) -> Any:
    """v.sigmoid(), failing with 'not_value' when it hands back something other than a Value."""
    s = v.sigmoid()
    if not isinstance(s, env.Value):
        raise Fail("not_value", got=f"{type(s).__name__} {show(s)}")
    return s


def worked_example(env: Env, sigmoid: Callable) -> tuple:
    """w = 0.5, x = 2, b = -1, y = 1: z = w*x + b, s = sigmoid(z), L = (s - y)**2, after L.backward()."""
    w, x, b, y = env.Value(0.5), env.Value(2.0), env.Value(-1.0), env.Value(1.0)
    z = w * x + b
    s = sigmoid(z)
    loss = (s - y) ** 2
    loss.backward()
    return loss, z, s, (w.grad, x.grad, b.grad, y.grad)


@claim("L13", "sigmoid")
def sigmoid(env: Env) -> None:
    for x in (-3.0, -0.5, 0.0, 1.2, 4.0):
        v = env.Value(x)
        s = sigmoid_of(env, v)
        s.backward()
        expected_s, expected = sigmoid_by_math(x), float(f"{nudged_slope(sigmoid_by_math, x):.9g}")
        if not (close(s.data, expected_s) and close(v.grad, expected, 1e-5)):
            raise Fail("wrong", x=show(x), got_s=show(s.data), got=show(v.grad),
                       expected_s=show(expected_s), expected=show(expected))
    # inside a larger graph: the step multiplies by out.grad (z = 3·s), and adds to x.grad (y = s·x)
    x = 1.2
    slope = float(f"{nudged_slope(sigmoid_by_math, x):.9g}")
    v = env.Value(x)
    s = v.sigmoid()
    (s * 3).backward()
    if not close(v.grad, 3 * slope, 1e-5):
        raise Fail("upstream", x=show(x), slope=show(slope), got=show(v.grad), expected=show(3 * slope))
    if not close(s.grad, 3.0):  # what the product sent it
        raise Fail("cleared", x=show(x), got=show(s.grad))
    v = env.Value(x)
    (v.sigmoid() * v).backward()
    direct, through = sigmoid_by_math(x), float(f"{x * slope:.9g}")
    if not close(v.grad, direct + through, 1e-5):
        raise Fail("assign", x=show(x), got=show(v.grad), expected=show(direct + through),
                   direct=show(direct), through=show(through))
    a, b = env.Value(0.3), env.Value(-1.1)  # two sigmoids in one graph: each step uses its own output
    (a.sigmoid() * b.sigmoid()).backward()
    sa, sb = sigmoid_by_math(0.3), sigmoid_by_math(-1.1)
    expected_two = (sa * (1 - sa) * sb, sa * sb * (1 - sb))
    if not all(close(g, e, 1e-6) for g, e in zip((a.grad, b.grad), expected_two)):
        raise Fail("two", got=show((a.grad, b.grad)), expected=show(expected_two))


@claim("L13", "worked_example")
def worked_example_claim(env: Env) -> None:
    loss, z, s, grads = worked_example(env, lambda z: sigmoid_of(env, z))
    got = (z.data, s.data, loss.data, *grads)
    expected = (0.0, 0.5, 0.25, -0.5, -0.125, -0.25, 1.0)
    if not all(close(g, e) for g, e in zip(got, expected)):
        raise Fail("wrong", got=show(got), expected=show(expected))


@claim("L13", "fused")
def fused(env: Env) -> None:
    loss, z, s, grads = worked_example(env, lambda z: sigmoid_of(env, z))
    spelled_loss, spelled_z, spelled_s, spelled_grads = worked_example(env, lambda z: 1 / (1 + (-z).exp()))
    spelled = edges(spelled_loss)
    expected = spelled - (edges(spelled_s) - edges(spelled_z)) + 1  # the spelled-out part replaced by one edge
    if len(s._prev) != 1 or s._prev[0] is not z:
        raise Fail("not_fused", got=edges(loss), expected=expected, spelled=spelled)
    if not all(close(g, e) for g, e in zip(grads, spelled_grads)):
        raise Fail("different", got=show(grads), expected=show(spelled_grads))


@claim("L13", "stable")
def stable(env: Env) -> None:
    for x, expected in ((1000.0, 1.0), (-1000.0, 0.0)):
        v = env.Value(x)
        try:
            s = sigmoid_of(env, v)
        except OverflowError:
            raise Fail("overflow", x=show(x)) from None
        try:
            s.backward()
        except OverflowError:
            raise Fail("overflow_backward", x=show(x)) from None
        if not (close(s.data, expected, 1e-12) and close(v.grad, 0.0, 1e-12)):
            raise Fail("wrong", x=show(x), got_s=show(s.data), got=show(v.grad), expected_s=show(expected))
