"""Checks of lesson 08, Blame flows backward: the backward steps of + and *, called by hand.

Every graph here uses each Value once (adding up shares is lesson 09), and no
check calls backward() (lesson 10): each ``_backward`` is called by hand, output first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, backward_by_hand, claim, close, nudged_slope, show


def run_step(out: Any, name: str) -> None:
    """Call ``out._backward()``; fail with a named message when the step was stored as what calling it returned
    (None), or takes an argument."""
    if out._backward is None:
        raise Fail("called", out=name)
    try:
        out._backward()
    except TypeError as error:
        if "positional argument" in str(error):
            raise Fail("argument", out=name, error=str(error)) from None
        raise


def read_when_made(a: Any, b: Any, make: Callable[[Any, Any], Any], grad: float) -> bool:
    """Whether the step of ``make(a, b)`` sets both inputs' grads to 0.0 though out.grad was ``grad`` when it ran
    (the inputs held 7.0 before): it sent the out.grad there was when the step was made."""
    a.grad = b.grad = 7.0
    out = make(a, b)
    out.grad = grad
    out._backward()
    return a.grad == 0.0 and b.grad == 0.0


@claim("L08", "add_local")
def add_local(env: Env) -> None:
    a, b = env.Value(2.0), env.Value(3.0)
    s = a + b
    s.grad = 2.5
    run_step(s, "s")
    if a.grad == 0.0 and b.grad == 0.0:
        if read_when_made(env.Value(2.0), env.Value(3.0), lambda a, b: a + b, 2.5):
            raise Fail("early", op="s = a + b", out="s")
        raise Fail("nothing", op="s = a + b", out="s")
    if close(a.grad, 1.0) and close(b.grad, 1.0):
        raise Fail("upstream")
    if not (close(a.grad, 2.5) and close(b.grad, 2.5)):
        raise Fail("wrong", got_a=show(a.grad), got_b=show(b.grad))
    if not close(s.grad, 2.5):
        raise Fail("cleared", got=show(s.grad))


@claim("L08", "mul_local")
def mul_local(env: Env) -> None:
    a, b = env.Value(2.0), env.Value(-3.0)
    p = a * b
    p.grad = 0.5
    run_step(p, "p")
    if a.grad == 0.0 and b.grad == 0.0:
        if read_when_made(env.Value(2.0), env.Value(-3.0), lambda a, b: a * b, 0.5):
            raise Fail("early", op="p = a * b", out="p")
        raise Fail("nothing", op="p = a * b", out="p")
    got = show((a.grad, b.grad))
    if close(a.grad, 1.0) and close(b.grad, -1.5):
        raise Fail("own", got=got)
    if close(a.grad, -3.0) and close(b.grad, 2.0):
        raise Fail("upstream", got=got)
    if close(a.grad, 18.0) and close(b.grad, -12.0):
        raise Fail("out_data", got=got)
    if not (close(a.grad, -1.5) and close(b.grad, 1.0)):
        raise Fail("wrong", got=got)
    if not close(p.grad, 0.5):
        raise Fail("cleared", got=show(p.grad))


@claim("L08", "worked_example")
def worked_example(env: Env) -> None:
    w, x, b, y = env.Value(2.0), env.Value(3.0), env.Value(1.0), env.Value(10.0)
    m = w * x
    a = m + b
    n = y * -1
    e = a + n
    e.grad = -6.0  # what L = e·e would send to e: 2e = -6
    for node in (e, n, a, m):  # output first
        node._backward()
    got = (w.grad, x.grad, b.grad, y.grad)
    expected = (-18.0, -12.0, -6.0, 6.0)
    if not all(close(g, want) for g, want in zip(got, expected)):
        raise Fail("wrong", got=show(got), expected=show(expected))


def f(p, q, r, s):  # plain floats or Values alike
    """The function the nudging check differentiates: every input is used once."""
    return (p * q + r) * s


def nudged(point: tuple[float, ...], i: int) -> float:
    """The slope of f in its i-th input at ``point``, by nudging that input alone (plain floats)."""
    return nudged_slope(lambda t: f(*(point[:i] + (t,) + point[i + 1:])), point[i])


@claim("L08", "nudge")
def nudge(env: Env) -> None:
    points = ((2.0, -3.0, 10.0, 0.5), (-1.5, 4.0, 0.25, -2.0), (0.0, 2.5, -1.0, 3.0), (1.5, 0.0, -1.0, 2.0),
              (2.0, -1.0, 0.5, 0.0))  # the last three: one factor of a product is 0
    for point in points:
        inputs = [env.Value(v) for v in point]
        try:
            backward_by_hand(f(*inputs))
        except ZeroDivisionError:
            zero = next(name for name, v in zip("pqrs", point) if v == 0.0)
            raise Fail("zero", point=show(point), zero=zero) from None
        got = tuple(v.grad for v in inputs)
        expected = tuple(nudged(point, i) for i in range(4))
        if not all(close(g, want, tol=1e-5) for g, want in zip(got, expected)):
            raise Fail("wrong", point=show(point), got=show(got), expected=show(expected))
