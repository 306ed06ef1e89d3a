"""Checks of lesson 09, Many paths, one sum: adding up shares, and -, reflected + - * built from + and *.

No check calls backward() (lesson 10): the checker seeds the output and runs
every ``_backward`` in its own safe order (``backward_by_hand``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, backward_by_hand, claim, close, expect_close, show


@claim("L09", "x_plus_x")
def x_plus_x(env: Env) -> None:
    x = env.Value(3.0)
    backward_by_hand(x + x)
    expect_close("wrong", x.grad, 2.0)


@claim("L09", "x_times_x")
def x_times_x(env: Env) -> None:
    for x_value in (3.0, -1.5, 0.0):  # 0: a step that finds a factor's share as out.data / self.data fails here
        x = env.Value(x_value)
        y = x * x
        try:
            backward_by_hand(y)
        except ZeroDivisionError:
            raise Fail("divides", x=show(x_value)) from None
        expect_close("wrong", x.grad, 2 * x_value, x=show(x_value))
    x, b = env.Value(0.0), env.Value(5.0)  # one factor 0: its share is the other factor, 5
    backward_by_hand(x * b)
    if not (close(x.grad, 5.0) and close(b.grad, 0.0)):
        raise Fail("zero_factor", got=show((x.grad, b.grad)))


@claim("L09", "square_plus")
def square_plus(env: Env) -> None:
    for a_value in (3.0, -2.0):
        a = env.Value(a_value)
        backward_by_hand(a * a + a)
        expect_close("wrong", a.grad, 2 * a_value + 1, a=show(a_value))


@claim("L09", "worked_example")
def worked_example(env: Env) -> None:
    a, b, c = env.Value(2.0), env.Value(-3.0), env.Value(10.0)
    d = a * b
    e = d + c
    backward_by_hand(e * a)
    got = (a.grad, b.grad, c.grad)
    expected = (-2.0, 4.0, 2.0)
    if not all(close(g, want) for g, want in zip(got, expected)):
        raise Fail("wrong", got=show(got), expected=show(expected))
    if not (close(d.grad, 2.0) and close(e.grad, 2.0)):  # each received a once, from the product above it
        raise Fail("inner", got=show((d.grad, e.grad)))


def slope_at_3(env: Env, expr: str, make: Callable[[Any], Any]) -> tuple[float, float]:
    """(y.data, x.grad) for y = make(x) at x = 3, once y is seeded with 1 and sent back by hand."""
    x = env.Value(3.0)
    try:
        y = make(x)
    except RecursionError:
        raise Fail("recursion", expr=expr) from None
    backward_by_hand(y)
    return y.data, x.grad


def expect_slope(env: Env, key: str, expr: str, make: Callable[[Any], Any], data: float, slope: float,
                 inner: tuple[str, float] | None = None) -> None:
    """Fail with ``key`` unless make(x) at x = 3 gives ``data`` with slope ``slope``.

    ``inner`` names, for an expression ``T * x``, the part T and the share x receives through it alone.
    """
    got_data, got_slope = slope_at_3(env, expr, make)
    if close(got_data, data) and close(got_slope, slope):
        return
    values = {"expr": expr, "data": show(got_data), "slope": show(got_slope),
              "expected_data": show(data), "expected_slope": show(slope)}
    if close(got_slope, 0.0):
        raise Fail("no_path", **values)  # x received nothing: the result does not remember x, or never sends to it
    if inner is not None and close(got_data, data) and close(got_slope, inner[1]):
        raise Fail("lost_share", inner=inner[0], share=show(inner[1]), **values)
    raise Fail(key, **values)


@claim("L09", "neg_sub")
def neg_sub(env: Env) -> None:
    five = env.Value
    expect_slope(env, "neg", "-x", lambda x: -x, -3.0, -1.0)
    expect_slope(env, "sub", "x - 1", lambda x: x - 1, 2.0, 1.0)
    expect_slope(env, "sub", "Value(5.0) - x", lambda x: five(5.0) - x, 2.0, -1.0)
    expect_slope(env, "neg", "(-x) * x", lambda x: (-x) * x, -9.0, -6.0, ("-x", -3.0))
    expect_slope(env, "sub", "(x - 1) * x", lambda x: (x - 1) * x, 6.0, 5.0, ("x - 1", 3.0))
    expect_slope(env, "sub", "(Value(5.0) - x) * x", lambda x: (five(5.0) - x) * x, 6.0, -1.0, ("5 - x", -3.0))


@claim("L09", "rsub")
def rsub(env: Env) -> None:
    got_data, got_slope = slope_at_3(env, "1 - x", lambda x: 1 - x)
    if close(got_data, 2.0) and close(got_slope, 1.0):
        raise Fail("swapped")  # x - 1, not 1 - x
    expect_slope(env, "wrong", "1 - x", lambda x: 1 - x, -2.0, -1.0)
    expect_slope(env, "wrong", "2.5 - x", lambda x: 2.5 - x, -0.5, -1.0)
    expect_slope(env, "wrong", "(1 - x) * x", lambda x: (1 - x) * x, -6.0, -5.0, ("1 - x", -3.0))


@claim("L09", "left_constants")
def left_constants(env: Env) -> None:
    expect_slope(env, "wrong", "2 + x", lambda x: 2 + x, 5.0, 1.0)
    expect_slope(env, "wrong", "0.5 + x", lambda x: 0.5 + x, 3.5, 1.0)
    expect_slope(env, "wrong", "0 + x", lambda x: 0 + x, 3.0, 1.0)
    expect_slope(env, "wrong", "sum([x * x, x])", lambda x: sum([x * x, x]), 12.0, 7.0)  # sum() starts at 0 + ...
    expect_slope(env, "wrong", "x + 2", lambda x: x + 2, 5.0, 1.0)
    expect_slope(env, "wrong", "2 * x", lambda x: 2 * x, 6.0, 2.0)
    expect_slope(env, "wrong", "-1.5 * x", lambda x: -1.5 * x, -4.5, -1.5)
    expect_slope(env, "wrong", "x * 2", lambda x: x * 2, 6.0, 2.0)
    expect_slope(env, "wrong", "(2 + x) * x", lambda x: (2 + x) * x, 15.0, 8.0, ("2 + x", 3.0))
    expect_slope(env, "wrong", "(2 * x) * x", lambda x: (2 * x) * x, 18.0, 12.0, ("2 * x", 6.0))


# y = T * x with T one more use of x, at x = 3, b = -2: (expr, T, make, (x.grad, b.grad), x's share through T).
# The outer product sends x its share first; T's step runs after it.
EVERY_USE = (
    ("(x + b) * x", "x + b", lambda x, b: (x + b) * x, (4.0, 3.0), 3.0),
    ("(b + x) * x", "b + x", lambda x, b: (b + x) * x, (4.0, 3.0), 3.0),
    ("(x * b) * x", "x * b", lambda x, b: (x * b) * x, (-12.0, 9.0), -6.0),
    ("(b * x) * x", "b * x", lambda x, b: (b * x) * x, (-12.0, 9.0), -6.0),
)


@claim("L09", "every_use")
def every_use(env: Env) -> None:
    for expr, inner, make, expected, through in EVERY_USE:
        x, b = env.Value(3.0), env.Value(-2.0)
        backward_by_hand(make(x, b))
        got = (x.grad, b.grad)
        if all(close(g, e) for g, e in zip(got, expected)):
            continue
        values = {"expr": expr, "inner": inner, "got": show(got), "expected": show(expected)}
        if close(x.grad, through):
            raise Fail("lost_share", share=show(through), **values)
        raise Fail("wrong", **values)
