"""Checks of lesson 04, Vectors in, vectors out: the Jacobian, J·v and uᵀJ by nudging."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, show, watching_own_list

J = [[1.0, 1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 6.0]]
X = [1.0, 2.0, 3.0]
H = 1e-3  # F is quadratic, so its central differences are exact for any h, while one-sided ones are off by about h
Map = Callable[[list[float]], list[float]]


def big_f(p: list[float]) -> list[float]:
    """F(x, y, z) = (x + y, x·y, z²)."""
    x, y, z = p
    return [x + y, x * y, z * z]


def x3y(p: list[float]) -> list[float]:
    """G(x, y) = (x³·y,): at (2, 3) with h = 1e-3 its central slope along x is 36 + 3h² = 36.000003."""
    return [p[0] ** 3 * p[1]]


def matrix_close(got: Any, expected: list[list[float]], tol: float = 1e-5) -> bool:
    """True when ``got`` is a list of rows of numbers matching ``expected`` entry by entry."""
    try:
        rows = [list(row) for row in got]
    except TypeError:
        return False
    if len(rows) != len(expected):
        return False
    return all(len(row) == len(want) and all(close(g, e, tol) for g, e in zip(row, want))
               for row, want in zip(rows, expected))


def vector_close(got: object, expected: list[float], tol: float = 1e-5) -> bool:
    """True when ``got`` is a sequence of numbers matching ``expected``."""
    return matrix_close([got], [expected], tol)


def shown(x: object) -> str:
    """A matrix or vector as a learner reads it (tuples of numbers too, as brackets)."""
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(shown(item) for item in x) + "]"
    return show(x)


def one_sided_columns(f: Map, x: list[float], h: float) -> list[list[float]]:
    """The columns a one-sided difference gives: (f(x + h·e_j) - f(x)) / h."""
    here = f(list(x))
    return [[(a - b) / h for a, b in zip(f([v + h if k == j else v for k, v in enumerate(x)]), here)]
            for j in range(len(x))]


def one_sided_jacobian(f: Map, x: list[float], h: float) -> list[list[float]]:
    """The Jacobian a one-sided difference gives, row i for output i."""
    return [list(row) for row in zip(*one_sided_columns(f, x, h))]


def four_outputs(p: list[float]) -> list[float]:
    """A map of three inputs and four outputs, for counting calls: (x + y, y·z, x·z, z)."""
    return [p[0] + p[1], p[1] * p[2], p[0] * p[2], p[2]]


def counting(f: Map) -> tuple[Map, list[int]]:
    """f, counting its calls."""
    calls = [0]

    def counted(p: list[float]) -> list[float]:
        calls[0] += 1
        return f(p)

    return counted, calls


def kept(call: str, run: Callable[[Map, list[float], list[float]], object]) -> None:
    """Fail with 'changed' when ``run(f, x, w)`` changes the input list or the direction list it is handed, and
    with 'own_list' when it hands f the caller's own x with an entry moved (even if it puts it back)."""
    x, w = list(X), [1.0, -1.0, 2.0]
    f, seen_nudged = watching_own_list(big_f, x)
    run(f, x, w)
    for name, got, expected in (("x", x, X), ("the direction", w, [1.0, -1.0, 2.0])):
        if got != expected:
            raise Fail("changed", call=call, name=name, got=repr(got), expected=repr(expected))
    if seen_nudged:
        raise Fail("own_list", call=call, seen=shown(seen_nudged[0]))
    from_tuples(call, run)


def from_tuples(call: str, run: Callable[[Map, list[float], list[float]], object]) -> None:
    """Fail with 'tuple' unless ``run(f, x, w)`` gives, on x and w as tuples, what it gives on them as lists (the
    signatures take any sequence)."""
    w = [1.0, -1.0, 2.0]
    names = call[call.index("(") + 1:-1].split(", ")[1:]  # the sequences after F: x, and v or u
    handed = f"{names[0]} handed in as a tuple" if len(names) == 1 else f"{' and '.join(names)} handed in as tuples"
    try:
        got = run(big_f, tuple(X), tuple(w))  # type: ignore[arg-type]
    except (AttributeError, TypeError) as error:  # x.copy(), or a nudge written into a tuple
        raise Fail("tuple", call=call, handed=handed, outcome=f"raised {type(error).__name__}: {error}") from None
    expected = run(big_f, list(X), list(w))
    if got != expected:
        raise Fail("tuple", call=call, handed=handed, outcome=f"gave {shown(got)} where the same numbers in lists "
                                                             f"give {shown(expected)}")


def spent(got: object) -> None:
    """Run a lazy result (a generator, a map) to its end, so that every call of f it holds back is counted."""
    if not isinstance(got, (list, tuple)):
        with contextlib.suppress(TypeError):
            list(got)  # type: ignore[call-overload]


def listed(call: str, got: object, rows: bool = False) -> None:
    """Fail with 'not_list' unless ``got`` is a list (of lists, with ``rows``), as the signature says."""
    if not isinstance(got, list) or (rows and not all(isinstance(row, list) for row in got)):
        kind = (f"a {type(got).__name__} object" if not isinstance(got, list) else "a list whose rows are "
                + " and ".join(sorted({f"{type(row).__name__} objects" for row in got if not isinstance(row, list)})))
        raise Fail("not_list", call=call, kind=kind, got=shown(got) if isinstance(got, (list, tuple)) else repr(got))


def uses_h(call: str, got: object, expected: list[float]) -> None:
    """Fail with 'ignores_h' or 'wrong_h' unless ``got`` is the central difference of x³·y with h = 1e-3."""
    if vector_close(got, expected, 1e-10):
        return
    rough = [36.0 if close(e, 36.000003) else e for e in expected]
    key = "ignores_h" if vector_close(got, rough, 3e-9) else "wrong_h"
    raise Fail(key, call=call, got=shown(got), expected=shown(expected))


@claim("L04", "jacobian")
def jacobian(env: Env) -> None:
    jacobian_numeric = env.nudge.jacobian_numeric
    got = jacobian_numeric(big_f, list(X))
    listed("jacobian_numeric(F, [1, 2, 3])", got, rows=True)
    if not matrix_close(got, J):
        if matrix_close(got, [list(column) for column in zip(*J)]):
            raise Fail("transposed", got=shown(got))
        raise Fail("wrong", got=shown(got), expected=shown(J))
    got = jacobian_numeric(big_f, list(X), H)
    if not matrix_close(got, J, 1e-8):
        one_sided = matrix_close(got, one_sided_jacobian(big_f, X, H), 1e-9)
        raise Fail("one_sided" if one_sided else "step", got=shown(got), expected=shown(J))
    uses_h("jacobian_numeric(G, [2.0, 3.0], h=1e-3)", (jacobian_numeric(x3y, [2.0, 3.0], H) or [None])[0],
           [36.000003, 8.0])
    kept("jacobian_numeric(F, x)", lambda f, x, w: jacobian_numeric(f, x))


@claim("L04", "jacobian_shape")
def jacobian_shape(env: Env) -> None:
    got = env.nudge.jacobian_numeric(lambda p: [p[0], p[1], p[0] * p[1]], [2.0, 5.0])
    expected = [[1.0, 0.0], [0.0, 1.0], [5.0, 2.0]]
    if not matrix_close(got, expected):
        raise Fail("shape", got=shown(got), expected=shown(expected))


@claim("L04", "jacobian_calls")
def jacobian_calls(env: Env) -> None:
    n, m = 3, 4
    f, calls = counting(four_outputs)
    spent(env.nudge.jacobian_numeric(f, [1.0] * n))
    if calls[0] != 2 * n:
        raise Fail("calls", n=n, m=m, got=calls[0], expected=2 * n)


@claim("L04", "jvp")
def jvp(env: Env) -> None:
    jvp_numeric = env.nudge.jvp_numeric
    v = [1.0, -1.0, 2.0]
    got = jvp_numeric(big_f, list(X), list(v))
    listed("jvp_numeric(F, [1, 2, 3], [1, -1, 2])", got)
    if not vector_close(got, [0.0, 1.0, 12.0]):
        raise Fail("ignores_v" if vector_close(got, [2.0, 3.0, 6.0]) else "wrong", got=shown(got))
    got = jvp_numeric(big_f, list(X), list(v), H)
    if not vector_close(got, [0.0, 1.0, 12.0], 1e-8):
        up, here = big_f([a + H * b for a, b in zip(X, v)]), big_f(list(X))
        one_sided = vector_close(got, [(a - b) / H for a, b in zip(up, here)], 1e-9)
        raise Fail("one_sided" if one_sided else "step", got=shown(got))
    uses_h("jvp_numeric(G, [2.0, 3.0], [1.0, 0.0], h=1e-3)", jvp_numeric(x3y, [2.0, 3.0], [1.0, 0.0], H),
           [36.000003])
    got = jvp_numeric(lambda p: [p[0], p[1], p[0] * p[1]], [2.0, 5.0], [1.0, -1.0])
    if not vector_close(got, [1.0, -1.0, 3.0]):
        raise Fail("outputs", got=shown(got))
    kept("jvp_numeric(F, x, v)", lambda f, x, w: jvp_numeric(f, x, w))


@claim("L04", "jvp_calls")
def jvp_calls(env: Env) -> None:
    n = 6
    f, calls = counting(lambda p: [sum(p), p[0] * p[-1]])
    spent(env.nudge.jvp_numeric(f, [1.0] * n, [1.0] * n))
    if calls[0] != 2:
        raise Fail("calls", n=n, got=calls[0])


@claim("L04", "vjp")
def vjp(env: Env) -> None:
    vjp_numeric = env.nudge.vjp_numeric
    u = [1.0, 2.0, 3.0]
    got = vjp_numeric(big_f, list(X), list(u))
    listed("vjp_numeric(F, [1, 2, 3], [1, 2, 3])", got)
    if not vector_close(got, [5.0, 3.0, 18.0]):
        key = "wrong"
        if vector_close(got, [3.0, 4.0, 18.0]):
            key = "j_times_u"
        elif vector_close(got, [3.0, 2.0, 6.0]):
            key = "ignores_u"
        raise Fail(key, got=shown(got))
    got = vjp_numeric(big_f, list(X), list(u), H)
    if not vector_close(got, [5.0, 3.0, 18.0], 1e-8):
        rows = one_sided_jacobian(big_f, X, H)
        expected = [sum(ui * row[j] for ui, row in zip(u, rows)) for j in range(3)]
        raise Fail("one_sided" if vector_close(got, expected, 1e-9) else "step", got=shown(got))
    uses_h("vjp_numeric(G, [2.0, 3.0], [1.0], h=1e-3)", vjp_numeric(x3y, [2.0, 3.0], [1.0], H), [36.000003, 8.0])
    kept("vjp_numeric(F, x, u)", lambda f, x, w: vjp_numeric(f, x, w))


@claim("L04", "vjp_calls")
def vjp_calls(env: Env) -> None:
    n, m = 3, 4
    f, calls = counting(four_outputs)
    spent(env.nudge.vjp_numeric(f, [1.0] * n, [1.0] * m))
    if calls[0] != 2 * n:
        raise Fail("calls", n=n, m=m, got=calls[0], expected=2 * n)
