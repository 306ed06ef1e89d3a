"""Checks of lesson 05, A number that carries its slope: dual numbers."""

from __future__ import annotations

import math
from collections.abc import Callable

from labs.checking.claimkit import Env, Fail, claim, close, is_number, quiet_slope, show

Plain = Callable[[float], float]




def described(x: object) -> str:
    """A number as show() prints it; anything else as repr with its type named."""
    return show(x) if is_number(x) else f"{x!r} (a {type(x).__name__})"


def carried(env: Env, op: Callable, x: float) -> tuple[object, object]:
    """The value and derivative a Dual seeded at x carries through op."""
    out = op(env.dual.Dual(x, 1.0))
    return getattr(out, "value", out), getattr(out, "deriv", None)


def check(env: Env, key: str, expr: str, op: Callable, plain: Plain, points: tuple, **slips: Plain) -> None:
    """Fail unless op carries plain's value and nudged slope at every point.

    The message key is ``key``, 'sign' when only the derivative's sign is wrong, or the name of a
    slip in ``slips`` (a function of x giving the derivative that slip would carry) that the result matches.
    """
    for x in points:
        got_value, got = carried(env, op, x)
        expected_value, expected = plain(x), quiet_slope(plain, x)
        if close(got_value, expected_value) and close(got, expected, 1e-5):
            continue
        found = key
        if close(got_value, expected_value):
            if close(got, -expected, 1e-5):
                found = "sign"
            for name, slip in slips.items():
                if close(got, slip(x), 1e-9) and not close(slip(x), expected, 1e-5):
                    found = name
        raise Fail(found, expr=expr, x=show(x), got_value=described(got_value), got=described(got),
                   expected_value=show(expected_value), expected=show(expected))


@claim("L05", "construct")
def construct(env: Env) -> None:
    Dual = env.dual.Dual  # noqa: N806 - the learner's class
    for made, d, value, deriv in (("Dual(3.0)", Dual(3.0), 3.0, 0.0), ("Dual(2, 5)", Dual(2, 5), 2, 5)):
        for name in ("value", "deriv"):
            if not hasattr(d, name):
                raise Fail("missing", made=made, name=name)
        got_value, got_deriv = d.value, d.deriv
        if is_number(got_value) and is_number(got_deriv) and got_value == value and got_deriv == deriv:
            continue
        key = "swapped" if (got_value, got_deriv) == (deriv, value) else "wrong"
        raise Fail(key, made=made, value=show(value), deriv=show(deriv), got_value=described(got_value),
                   got_deriv=described(got_deriv))


@claim("L05", "cube_exact")
def cube_exact(env: Env) -> None:
    got = env.dual.derivative(lambda x: x * x * x, 2.0)
    if is_number(got) and got == 12.0:
        got = env.dual.derivative(lambda x: x * x * x, 0.5)
        if not (is_number(got) and got == 0.75):
            raise Fail("point", got=repr(got))
        return
    key = "wrong"
    if hasattr(got, "deriv"):
        key = "dual"
    elif is_number(got) and got == 0.0:
        key = "zero"
    elif is_number(got) and got == 8.0:
        key = "value"
    elif close(got, 12.0, 1e-6):
        key = "not_exact"
    raise Fail(key, got=repr(got))


OPERATIONS = (
    ("x + x * x", lambda d: d + d * d, lambda t: t + t * t, (0.5, -2.0)),
    ("x - x * x", lambda d: d - d * d, lambda t: t - t * t, (0.5, -2.0)),
    ("-x * x", lambda d: -d * d, lambda t: -t * t, (1.5,)),
    ("x * 3 - 1", lambda d: d * 3 - 1, lambda t: t * 3 - 1, (0.5,)),
    ("x / (x * x + 1)", lambda d: d / (d * d + 1), lambda t: t / (t * t + 1), (0.5, 2.0)),
    ("x ** 3", lambda d: d**3, lambda t: t**3, (2.0, -1.5, 0.0)),
    ("x ** -2", lambda d: d**-2, lambda t: t**-2, (2.0, -0.5)),
    ("x ** 0.5", lambda d: d**0.5, lambda t: t**0.5, (4.0,)),
    ("x * 0.5 + 0.25", lambda d: d * 0.5 + 0.25, lambda t: t * 0.5 + 0.25, (1.5,)),
    ("exp(x)", lambda d: d.exp(), math.exp, (0.7, -1.3)),
    ("log(x)", lambda d: d.log(), math.log, (0.5, 7.0)),
    ("tanh(x)", lambda d: d.tanh(), math.tanh, (0.5, -1.2, 2.0)),
    ("relu(x)", lambda d: d.relu(), lambda t: max(t, 0.0), (2.0, -1.0)),
)


# One operation each, on d = Dual(0.5, 1.0) and e = Dual(2.0, 0.0): none may change d or e.
SINGLE = (
    ("d + e", lambda d, e: d + e), ("d + 1", lambda d, e: d + 1), ("2 + d", lambda d, e: 2 + d),
    ("d - e", lambda d, e: d - e), ("d - 1", lambda d, e: d - 1), ("2 - d", lambda d, e: 2 - d),
    ("d * e", lambda d, e: d * e), ("d * 3", lambda d, e: d * 3), ("3 * d", lambda d, e: 3 * d),
    ("d / e", lambda d, e: d / e), ("d / 2", lambda d, e: d / 2), ("2 / d", lambda d, e: 2 / d),
    ("-d", lambda d, e: -d), ("d ** 3", lambda d, e: d**3), ("d.exp()", lambda d, e: d.exp()),
    ("d.log()", lambda d, e: d.log()), ("d.tanh()", lambda d, e: d.tanh()), ("d.relu()", lambda d, e: d.relu()),
)


def operands_kept(env: Env) -> None:
    """Fail if an operation changes a Dual it was given (one that raises is left to the other checks), with d
    above 0 and below it (relu treats the two apart)."""
    for d_value in (0.5, -0.5):
        for expr, op in SINGLE:
            d, e = env.dual.Dual(d_value, 1.0), env.dual.Dual(2.0, 0.0)
            try:
                op(d, e)
            except Exception:  # the checks below report it with its place
                continue
            for name, dual, value, deriv in (("d", d, d_value, 1.0), ("e", e, 2.0, 0.0)):
                now = getattr(dual, "value", None), getattr(dual, "deriv", None)
                if now != (value, deriv):
                    raise Fail("changed_input", op=expr, name=name, d=show(d_value), value=show(value),
                               deriv=show(deriv), got_value=described(now[0]), got=described(now[1]))


def exponent_refused(env: Env) -> None:
    """Fail unless a Dual exponent is refused with TypeError: x ** x needs exp and log, not the power rule."""
    d, e = env.dual.Dual(2.0, 1.0), env.dual.Dual(2.0, 1.0)
    try:
        got = d**e
    except TypeError:
        return
    raise Fail("dual_exponent", got=f"value {described(getattr(got, 'value', got))} and deriv "
                                     f"{described(getattr(got, 'deriv', None))}")


@claim("L05", "every_operation")
def every_operation(env: Env) -> None:
    operands_kept(env)
    exponent_refused(env)
    for expr, op, plain, points in OPERATIONS:
        slips = {"tanh_of_input": lambda t: 1 - t * t} if expr == "tanh(x)" else {}
        check(env, "wrong", expr, op, plain, points, **slips)


# (expression, its Dual form, its plain form, the derivative it carries when the last operation takes the
# derivative coming into it to be 1 instead of the inner expression's, points)
INNER = (
    ("exp(x * 3)", lambda d: (d * 3).exp(), lambda t: math.exp(3 * t), lambda t: math.exp(3 * t), (0.5, -1.5)),
    ("log(x * x)", lambda d: (d * d).log(), lambda t: math.log(t * t), lambda t: 1 / (t * t), (0.5, -1.5)),
    ("tanh(x * 2)", lambda d: (d * 2).tanh(), lambda t: math.tanh(2 * t), lambda t: 1 - math.tanh(2 * t) ** 2,
     (0.5, -0.3)),
    ("relu(x * 3)", lambda d: (d * 3).relu(), lambda t: max(3 * t, 0.0), lambda t: 1.0 if t > 0 else 0.0, (0.5,)),
    ("(x * x) ** 3", lambda d: (d * d) ** 3, lambda t: (t * t) ** 3, lambda t: 3 * (t * t) ** 2, (0.5, -1.5)),
    ("(x * x) ** 0.5", lambda d: (d * d) ** 0.5, lambda t: (t * t) ** 0.5, lambda t: 0.5 / abs(t), (2.0,)),
    ("(x * x) / (x + 1)", lambda d: (d * d) / (d + 1), lambda t: t * t / (t + 1),
     lambda t: ((t + 1) - t * t) / (t + 1) ** 2, (0.5, 2.0)),
    ("tanh(exp(x) * x)", lambda d: (d.exp() * d).tanh(), lambda t: math.tanh(math.exp(t) * t),
     lambda t: 1 - math.tanh(math.exp(t) * t) ** 2, (0.3,)),
    # a plain number on one side: the Dual's own derivative must still be carried through
    ("(x * x) * 3", lambda d: (d * d) * 3, lambda t: 3 * t * t, lambda t: 3.0, (0.5, -1.5)),
    ("(x * x) / 2", lambda d: (d * d) / 2, lambda t: t * t / 2, lambda t: 0.5, (3.0,)),
    ("(x * x) + 0.5", lambda d: (d * d) + 0.5, lambda t: t * t + 0.5, lambda t: 1.0, (1.5,)),
    ("-(x * x)", lambda d: -(d * d), lambda t: -(t * t), lambda t: -1.0, (1.5,)),
)


@claim("L05", "chain_rule")
def chain_rule(env: Env) -> None:
    for expr, op, plain, local, points in INNER:
        check(env, "wrong", expr, op, plain, points, no_chain=local)


REFLECTED = (  # (expression, Dual form, plain form, the operands the other way round)
    ("2 - x", lambda d: 2 - d, lambda t: 2 - t, lambda t: t - 2),
    ("1 / x", lambda d: 1 / d, lambda t: 1 / t, lambda t: t),
    ("2 / x", lambda d: 2 / d, lambda t: 2 / t, lambda t: t / 2),
    ("2 + x", lambda d: 2 + d, lambda t: 2 + t, None),
    ("3 * x", lambda d: 3 * d, lambda t: 3 * t, None),
    ("2 - x * x", lambda d: 2 - d * d, lambda t: 2 - t * t, lambda t: t * t - 2),
    ("2 / (x * x)", lambda d: 2 / (d * d), lambda t: 2 / (t * t), lambda t: t * t / 2),
    ("2 + x * x", lambda d: 2 + d * d, lambda t: 2 + t * t, None),
    ("3 * (x * x)", lambda d: 3 * (d * d), lambda t: 3 * t * t, None),
    ("0.5 * x", lambda d: 0.5 * d, lambda t: 0.5 * t, None),
    ("1.5 - x", lambda d: 1.5 - d, lambda t: 1.5 - t, lambda t: t - 1.5),
)


@claim("L05", "reflected")
def reflected(env: Env) -> None:
    for expr, op, plain, swapped in REFLECTED:
        for x in (0.5, -2.0):
            got_value, got = carried(env, op, x)
            if swapped is not None and close(got_value, swapped(x)) and not close(got_value, plain(x)):
                raise Fail("order", expr=expr, x=show(x), got_value=described(got_value), got=described(got),
                           expected_value=show(plain(x)), expected=show(quiet_slope(plain, x)))
            check(env, "wrong", expr, op, plain, (x,))


@claim("L05", "relu_at_zero")
def relu_at_zero(env: Env) -> None:
    for x, expected in ((-1.0, 0.0), (0.0, 0.0), (2.0, 1.0)):
        got = getattr(env.dual.Dual(x, 1.0).relu(), "deriv", None)
        if not close(got, expected):
            key = "at_zero" if x == 0.0 and close(got, 1.0) else "wrong"
            raise Fail(key, x=show(x), expected=show(expected), got=described(got))


@claim("L05", "one_pass")
def one_pass(env: Env) -> None:
    calls = 0

    def f(d: object) -> object:
        nonlocal calls
        calls += 1
        return d * d + 3 * d  # type: ignore[operator]

    got = env.dual.derivative(f, 2.0)
    if not (is_number(got) and close(got, 7.0)):
        raise Fail("dual", got=repr(got)) if hasattr(got, "deriv") else Fail("wrong", got=described(got))
    if calls != 1:
        raise Fail("passes", got=calls)
