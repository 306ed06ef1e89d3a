"""Checks of lesson 04, Vectors in, vectors out: the Jacobian, J·v and uᵀJ by nudging."""

from __future__ import annotations

from ..claimkit import Env, Fail, claim, close, show

J = [[1.0, 1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 6.0]]


def big_f(p: list[float]) -> list[float]:
    """F(x, y, z) = (x + y, x·y, z²)."""
    x, y, z = p
    return [x + y, x * y, z * z]


def matrix_close(got: object, expected: list[list[float]]) -> bool:
    """True when ``got`` is a list of rows of numbers matching ``expected`` entry by entry."""
    try:
        rows = [list(row) for row in got]  # type: ignore[union-attr]
    except TypeError:
        return False
    if len(rows) != len(expected):
        return False
    return all(len(row) == len(want) and all(close(g, e, 1e-5) for g, e in zip(row, want))
               for row, want in zip(rows, expected))


def vector_close(got: object, expected: list[float]) -> bool:
    """True when ``got`` is a sequence of numbers matching ``expected``."""
    return matrix_close([got], [expected])


def shown(x: object) -> str:
    """A matrix or vector as a learner reads it."""
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(shown(item) for item in x) + "]"
    return show(x)


@claim("L04", "jacobian")
def jacobian(env: Env) -> None:
    got = env.nudge.jacobian_numeric(big_f, [1.0, 2.0, 3.0])
    if matrix_close(got, J):
        return
    if matrix_close(got, [list(column) for column in zip(*J)]):
        raise Fail("transposed", got=shown(got))
    raise Fail("wrong", got=shown(got), expected=shown(J))


@claim("L04", "jacobian_shape")
def jacobian_shape(env: Env) -> None:
    got = env.nudge.jacobian_numeric(lambda p: [p[0], p[1], p[0] * p[1]], [2.0, 5.0])
    expected = [[1.0, 0.0], [0.0, 1.0], [5.0, 2.0]]
    if not matrix_close(got, expected):
        raise Fail("shape", got=shown(got), expected=shown(expected))


@claim("L04", "jvp")
def jvp(env: Env) -> None:
    got = env.nudge.jvp_numeric(big_f, [1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
    if not vector_close(got, [0.0, 1.0, 12.0]):
        raise Fail("wrong", got=shown(got))


@claim("L04", "jvp_calls")
def jvp_calls(env: Env) -> None:
    calls = 0
    n = 6

    def f(p: list[float]) -> list[float]:
        nonlocal calls
        calls += 1
        return [sum(p), p[0] * p[-1]]

    env.nudge.jvp_numeric(f, [1.0] * n, [1.0] * n)
    if calls != 2:
        raise Fail("calls", n=n, got=calls)


@claim("L04", "vjp")
def vjp(env: Env) -> None:
    got = env.nudge.vjp_numeric(big_f, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    if not vector_close(got, [5.0, 3.0, 18.0]):
        raise Fail("wrong", got=shown(got))
