"""Checks of lesson 05, A number that carries its slope: dual numbers."""

from __future__ import annotations

import math
from collections.abc import Callable

from ..claimkit import Env, Fail, claim, close, nudged_slope, show


def nudged(f: Callable[[float], float], x: float) -> float:
    """The checker's central difference, rounded to 9 significant digits so messages do not show its noise."""
    return float(f"{nudged_slope(f, x):.9g}")


def carried(env: Env, op: Callable, x: float) -> tuple[object, object]:
    """The value and derivative a Dual seeded at x carries through op."""
    out = op(env.dual.Dual(x, 1.0))
    return getattr(out, "value", out), getattr(out, "deriv", None)


def check(env: Env, key: str, expr: str, op: Callable, plain: Callable[[float], float], points: tuple) -> None:
    """Fail with ``key`` unless op carries plain's value and nudged slope at every point."""
    for x in points:
        got_value, got = carried(env, op, x)
        expected_value, expected = plain(x), nudged(plain, x)
        if not (close(got_value, expected_value) and close(got, expected, 1e-5)):
            raise Fail(key, expr=expr, x=show(x), got_value=show(got_value), got=show(got),
                       expected_value=show(expected_value), expected=show(expected))


@claim("L05", "construct")
def construct(env: Env) -> None:
    Dual = env.dual.Dual  # noqa: N806 - the learner's class
    for made, d, value, deriv in (("Dual(3.0)", Dual(3.0), 3.0, 0.0), ("Dual(2, 5)", Dual(2, 5), 2.0, 5.0)):
        got_value, got_deriv = getattr(d, "value", None), getattr(d, "deriv", None)
        if not (isinstance(got_value, float) and isinstance(got_deriv, float)
                and got_value == value and got_deriv == deriv):
            raise Fail("wrong", made=made, value=value, deriv=deriv, got_value=show(got_value),
                       got_deriv=show(got_deriv))


@claim("L05", "cube_exact")
def cube_exact(env: Env) -> None:
    got = env.dual.derivative(lambda x: x * x * x, 2.0)
    if got != 12.0 or isinstance(got, bool):
        raise Fail("wrong", got=show(got))


OPERATIONS = (
    ("x + x·x", lambda d: d + d * d, lambda t: t + t * t, (0.5, -2.0)),
    ("x - x·x", lambda d: d - d * d, lambda t: t - t * t, (0.5, -2.0)),
    ("-x · x", lambda d: -d * d, lambda t: -t * t, (1.5,)),
    ("x / (x·x + 1)", lambda d: d / (d * d + 1), lambda t: t / (t * t + 1), (0.5, 2.0)),
    ("x ** 3", lambda d: d**3, lambda t: t**3, (2.0, -1.5)),
    ("x ** 0.5", lambda d: d**0.5, lambda t: t**0.5, (4.0,)),
    ("exp(x)", lambda d: d.exp(), math.exp, (0.7, -1.3)),
    ("log(x)", lambda d: d.log(), math.log, (0.5, 7.0)),
    ("tanh(x)", lambda d: d.tanh(), math.tanh, (0.5, -1.2, 2.0)),
    ("relu(x)", lambda d: d.relu(), lambda t: max(t, 0.0), (2.0, -1.0)),
    ("tanh(exp(x) · x)", lambda d: (d.exp() * d).tanh(), lambda t: math.tanh(math.exp(t) * t), (0.3,)),
)


@claim("L05", "every_operation")
def every_operation(env: Env) -> None:
    for expr, op, plain, points in OPERATIONS:
        check(env, "wrong", expr, op, plain, points)


@claim("L05", "reflected")
def reflected(env: Env) -> None:
    cases = (("2 - x", lambda d: 2 - d, lambda t: 2 - t), ("1 / x", lambda d: 1 / d, lambda t: 1 / t),
             ("2 + x", lambda d: 2 + d, lambda t: 2 + t), ("3 * x", lambda d: 3 * d, lambda t: 3 * t))
    for expr, op, plain in cases:
        check(env, "wrong", expr, op, plain, (0.5, -2.0))


@claim("L05", "relu_at_zero")
def relu_at_zero(env: Env) -> None:
    for x, expected in ((-1.0, 0.0), (0.0, 0.0), (2.0, 1.0)):
        got = getattr(env.dual.Dual(x, 1.0).relu(), "deriv", None)
        if not close(got, expected):
            raise Fail("wrong", x=show(x), expected=show(expected), got=show(got))


@claim("L05", "one_pass")
def one_pass(env: Env) -> None:
    calls = 0

    def f(d: object) -> object:
        nonlocal calls
        calls += 1
        return d * d + 3 * d  # type: ignore[operator]

    got = env.dual.derivative(f, 2.0)
    if not (isinstance(got, float) and close(got, 7.0)):
        raise Fail("wrong", got=show(got))
    if calls != 1:
        raise Fail("passes", got=calls)
