"""Checks of lesson 03, Many inputs: partial slopes and the gradient."""

from __future__ import annotations

from ..claimkit import Env, Fail, claim, close, show


def x2y(xs: list[float]) -> float:
    """f(x, y) = x²·y."""
    return xs[0] ** 2 * xs[1]


def all_close(got: object, expected: list[float], tol: float = 1e-5) -> bool:
    """True when ``got`` is a sequence of numbers, each close to its expected entry."""
    try:
        items = list(got)  # type: ignore[call-overload]
    except TypeError:
        return False
    return len(items) == len(expected) and all(close(g, e, tol) for g, e in zip(items, expected))


@claim("L03", "partial_x2y")
def partial_x2y(env: Env) -> None:
    for i, expected, why in ((0, 12.0, "2xy with y held at 3"), (1, 4.0, "x² with x held at 2")):
        got = env.nudge.partial(x2y, [2.0, 3.0], i)
        if not close(got, expected, 1e-5):
            raise Fail("wrong", i=i, expected=show(expected), why=why, got=show(got))


@claim("L03", "gradient_x2y")
def gradient_x2y(env: Env) -> None:
    got = env.nudge.gradient(x2y, [2.0, 3.0])
    if not isinstance(got, list) or not all_close(got, [12.0, 4.0]):
        raise Fail("wrong", got=show(got) if isinstance(got, list) else repr(got))


@claim("L03", "every_input")
def every_input(env: Env) -> None:
    got = env.nudge.gradient(lambda xs: sum(x * x for x in xs), [1.0, -2.0, 0.5, 3.0])
    if not all_close(got, [2.0, -4.0, 1.0, 6.0]):
        raise Fail("wrong", got=show(got) if isinstance(got, (list, tuple)) else repr(got))


@claim("L03", "input_kept")
def input_kept(env: Env) -> None:
    for call, run in (("partial(f, xs, 0)", lambda xs: env.nudge.partial(x2y, xs, 0)),
                      ("gradient(f, xs)", lambda xs: env.nudge.gradient(x2y, xs))):
        xs = [2.0, 3.0]
        run(xs)
        if xs != [2.0, 3.0]:
            raise Fail("changed", call=call, got=show(xs), expected=show([2.0, 3.0]))


@claim("L03", "cost")
def cost(env: Env) -> None:
    calls = 0

    def f(xs: list[float]) -> float:
        nonlocal calls
        calls += 1
        return sum((k + 1) * x for k, x in enumerate(xs))

    n = 5
    env.nudge.gradient(f, [1.0] * n)
    if calls != 2 * n:
        raise Fail("calls", n=n, got=calls, expected=2 * n)
