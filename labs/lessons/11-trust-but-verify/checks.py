"""Checks of lesson 11, Trust, but verify: new operations and a gradient checker of your own."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, expect_close, nudged_slope, show


def nudged(f: Callable[[float], float], x: float) -> float:
    """The checker's central difference, rounded to 9 significant digits so messages do not show its noise."""
    return float(f"{nudged_slope(f, x):.9g}")


def check_op(env: Env, op: Callable, reference: Callable[[float], float], points: tuple[float, ...]) -> None:
    """Fail with 'wrong' unless y = op(x) has the reference's value and its nudged slope at every point."""
    for x in points:
        v = env.Value(x)
        y = op(v)
        y.backward()
        expected_y, expected = reference(x), nudged(reference, x)
        if not (close(y.data, expected_y) and close(v.grad, expected, 1e-5)):
            raise Fail("wrong", x=show(x), got_y=show(y.data), got=show(v.grad),
                       expected_y=show(expected_y), expected=show(expected))


def check_in_a_graph(env: Env, op: Callable, reference: Callable[[float], float], x: float) -> None:
    """op's step inside a larger graph: it multiplies by out.grad (z = 3·op(x)), leaves out.grad as it found
    it, and adds to x.grad (op(x)·x).

    Fails with 'upstream', 'cleared' or 'assign'; run after check_op, so the step's own slope is known to be right.
    """
    slope = nudged(reference, x)
    v = env.Value(x)
    y = op(v)
    (y * 3).backward()
    if not close(v.grad, 3 * slope, 1e-5):
        raise Fail("upstream", x=show(x), slope=show(slope), got=show(v.grad), expected=show(3 * slope))
    if not close(y.grad, 3.0):  # what the product sent it
        raise Fail("cleared", x=show(x), got=show(y.grad))
    v = env.Value(x)
    (op(v) * v).backward()
    expected = float(f"{reference(x) + x * slope:.9g}")  # the product's share, plus the share through op
    if not close(v.grad, expected, 1e-5):
        raise Fail("assign", x=show(x), got=show(v.grad), expected=show(expected),
                   direct=show(reference(x)), through=show(float(f"{x * slope:.9g}")))


@claim("L11", "pow_rule")
def pow_rule(env: Env) -> None:
    # no point at x = 0 or 1, where k·x^k and k·x^(k-1) would agree
    for x, k in ((2.0, 3), (-1.5, 2), (4.0, 0.5), (0.5, -1)):
        v = env.Value(x)
        (v**k).backward()
        expected = nudged(lambda t, k=k: t**k, x)  # type: ignore[misc]  # mypy types no lambda's defaults, here binding this turn's values
        if not close(v.grad, expected, 1e-5) and close(v.grad, k * x**k, 1e-5):
            raise Fail("kept_exponent", x=show(x), k=k, got=show(v.grad), expected=show(expected))
        expect_close("wrong", v.grad, expected, 1e-5, x=show(x), k=k)
    for k in (2, 3):  # flat at x = 0: a slope worked out by dividing by x fails there
        v = env.Value(0.0)
        try:
            (v**k).backward()
        except ZeroDivisionError:
            raise Fail("divides_by_x", k=k) from None
        expect_close("wrong", v.grad, 0.0, 1e-12, x=show(0.0), k=k)
    check_in_a_graph(env, lambda v: v**3, lambda t: t**3, 2.0)


@claim("L11", "pow_needs_number")
def pow_needs_number(env: Env) -> None:
    x = env.Value(3.0)
    (x**2).backward()  # a plain exponent works, backward included
    try:
        got = x ** env.Value(2.0)
    except TypeError:
        return
    except Exception as error:  # any other refusal is named in the message
        raise Fail("other_error", error=f"{type(error).__name__}: {error}") from None
    raise Fail("no_type_error", got=show(got))


@claim("L11", "exp")
def exp(env: Env) -> None:
    check_op(env, lambda v: v.exp(), math.exp, (0.7, -1.3, 2.0))
    check_in_a_graph(env, lambda v: v.exp(), math.exp, 0.7)


@claim("L11", "exp_shared")
def exp_shared(env: Env) -> None:
    """Two exp nodes made from one x: 3e^x + 4e^x sends 7e^x back."""
    for x_value in (0.5, -1.0):
        x = env.Value(x_value)
        y = 3 * x.exp() + 4 * x.exp()
        y.backward()
        expect_close("wrong", x.grad, 7 * math.exp(x_value), x=show(x_value))


@claim("L11", "log")
def log(env: Env) -> None:
    check_op(env, lambda v: v.log(), math.log, (0.5, 2.0, 7.0))
    check_in_a_graph(env, lambda v: v.log(), math.log, 2.0)
    for x in (-2.0, 0.0):  # ln x exists only for x > 0
        try:
            y = env.Value(x).log()
        except ValueError:
            continue
        raise Fail("not_refused", x=show(x), got_y=show(getattr(y, "data", y)))


@claim("L11", "tanh")
def tanh(env: Env) -> None:
    check_op(env, lambda v: v.tanh(), math.tanh, (0.5, -1.2, 2.0))
    check_in_a_graph(env, lambda v: v.tanh(), math.tanh, 0.5)


@claim("L11", "relu")
def relu(env: Env) -> None:
    check_op(env, lambda v: v.relu(), lambda t: max(t, 0.0), (1.5, -0.8, 3.0, -2.0))
    check_in_a_graph(env, lambda v: v.relu(), lambda t: max(t, 0.0), 1.5)


@claim("L11", "relu_at_zero")
def relu_at_zero(env: Env) -> None:
    x = env.Value(0.0)
    y = x.relu()
    y.backward()
    if y.data != 0.0 or x.grad != 0.0:
        raise Fail("wrong", got_y=show(y.data), got=show(x.grad))


@claim("L11", "divide")
def divide(env: Env) -> None:
    cases = (
        ("y = a / b", lambda a, b: a / b, 2.0, (1.5, 0.5, -0.75), "wrong"),
        ("y = a / b", lambda a, b: a / b, -2.0, (-1.5, -0.5, -0.75), "wrong"),
        ("y = (a / b) * 3", lambda a, b: (a / b) * 3, 2.0, (4.5, 1.5, -2.25), "upstream"),
        ("y = (a / b) * b", lambda a, b: (a / b) * b, 2.0, (3.0, 1.0, 0.0), "assign"),
    )
    for expr, make, b_value, expected, key in cases:
        a, b = env.Value(3.0), env.Value(b_value)
        y = make(a, b)
        y.backward()
        got = (y.data, a.grad, b.grad)
        if not all(close(g, e) for g, e in zip(got, expected)):
            raise Fail(key, expr=expr, b=show(b_value), got=show(got), expected=show(expected))


@claim("L11", "divide_by_number")
def divide_by_number(env: Env) -> None:
    for x_value, number in ((3.0, 2), (-1.0, 2), (3.0, 2.5)):
        x = env.Value(x_value)
        try:
            y = x / number
            y.backward()
        except (AttributeError, TypeError) as error:
            raise Fail("crash", number=number, error=f"{type(error).__name__}: {error}") from None
        if not (close(y.data, x_value / number) and close(x.grad, 1 / number)):
            raise Fail("wrong", number=number, x=show(x_value), got_y=show(y.data), got=show(x.grad),
                       expected_y=show(x_value / number), expected=show(1 / number))


@claim("L11", "divide_into")
def divide_into(env: Env) -> None:
    cases = (  # (expr, make, number, a, expected y, expected a.grad, key)
        ("2 / a", lambda a: 2 / a, 4.0, 0.5, -0.125, "wrong"),
        ("2 / a", lambda a: 2 / a, -0.5, -4.0, -8.0, "wrong"),
        ("3 / a", lambda a: 3 / a, 4.0, 0.75, -0.1875, "wrong"),
        ("(2 / a) * 3", lambda a: (2 / a) * 3, 4.0, 1.5, -0.375, "upstream"),
        ("(2 / a) * a", lambda a: (2 / a) * a, 4.0, 2.0, 0.0, "assign"),
    )
    for expr, make, a_value, expected_y, expected, key in cases:
        a = env.Value(a_value)
        try:
            y = make(a)
        except RecursionError:
            raise Fail("recursion", expr=expr) from None
        y.backward()
        if not (close(y.data, expected_y) and close(a.grad, expected)):
            raise Fail(key, expr=expr, a=show(a_value), got_y=show(y.data), got=show(a.grad),
                       expected_y=show(expected_y), expected=show(expected))


@claim("L11", "numeric_slope")
def numeric_slope(env: Env) -> None:
    def cube(t: float) -> float:
        return t**3

    expect_close("wrong", env.scalar.numeric_slope(cube, 2.0), 12.0, 1e-4)
    # nudged both ways by h the estimate for x³ at 2 is 12 + h², one way only 12 + 6h + h²
    got = env.scalar.numeric_slope(cube, 2.0, h=0.1)
    if not close(got, 12.01, 1e-9):
        key = "one_sided" if close(got, 12.61, 1e-9) else "ignores_h" if close(got, 12.0, 1e-6) else "wrong_h"
        raise Fail(key, got=show(got))
    for x in (2.0, 100.0):  # the default h: neither a visible h² error at 2 nor rounding noise at 100 (x³ = 10⁶)
        expect_close("default_h", env.scalar.numeric_slope(cube, x), 3 * x * x, 1e-6, x=show(x))


@claim("L11", "gradient_check")
def gradient_check(env: Env) -> None:
    check = env.scalar.gradient_check
    for x in (1.5, -0.7):
        verdict = check(lambda v: v * v * v - 2 * v, x)
        if verdict is not True:
            raise Fail("false_alarm", x=show(x), got=show(verdict))
    verdict = check(lambda v: v * v, 1.5)  # the same x as a check just before, another f
    if verdict is not True:
        raise Fail("stale", got=show(verdict))
    verdict = check(lambda v: v * v * v, 1234.5)
    if verdict is not True:
        raise Fail("absolute_only", got=show(verdict))
    verdict = check(lambda v: v * v * v - 3 * v, 1.0)
    if verdict is not True:
        raise Fail("relative_only", got=show(verdict))

    def square_missing_a_share(v: Any) -> Any:
        out = v * v

        def _backward() -> None:  # sends x·grad where x² needs 2x·grad
            v.grad += v.data * out.grad
        out._backward = _backward
        return out

    verdict = check(square_missing_a_share, 1.5)
    if verdict is not False:
        raise Fail("missed", got=show(verdict))
    verdict = check(lambda v: square_missing_a_share(v) * 0.001, 1.5)
    if verdict is not False:
        raise Fail("floor", got=show(verdict))

    def cube_sign_flipped(v: Any) -> Any:
        out = v * v * v

        def _backward() -> None:  # -3x²·grad: the right size, the wrong sign
            v.grad -= 3 * v.data**2 * out.grad
        out._backward = _backward
        return out

    verdict = check(cube_sign_flipped, 1.5)
    if verdict is not False:
        raise Fail("sign", got=show(verdict))

    def square_one_percent_off(v: Any) -> Any:
        out = v * v

        def _backward() -> None:  # 2x·grad, one percent too much
            v.grad += 2.02 * v.data * out.grad
        out._backward = _backward
        return out

    tolerant, strict = check(square_one_percent_off, 10.0, 0.05), check(square_one_percent_off, 10.0)
    if (tolerant, strict) != (True, False):
        raise Fail("tolerance", tolerant=show(tolerant), strict=show(strict))


def every_operation(t: Any) -> Any:
    """One expression with every operation of the lesson; works on Values and, via math, on floats."""
    return (t**2 + 1).log() * t.tanh() + t.relu() / (1 + (-t).exp()) - 2 / (t * t + 1) + (t / 3) ** 3


def every_operation_by_math(t: float) -> float:
    return (math.log(t**2 + 1) * math.tanh(t) + max(t, 0.0) / (1 + math.exp(-t))
            - 2 / (t * t + 1) + (t / 3) ** 3)


# The operations of every_operation in small expressions, as (how the message writes it, the expression on a Value,
# by math, where it is tried given the mix's x): log is tried at x² + 1, the number it takes in the mix.
ALONE: tuple[tuple[str, Callable, Callable[[float], float], Callable[[float], float]], ...] = (
    ("x ** 3", lambda v: v**3, lambda t: t**3, lambda x: x),
    ("-x", lambda v: -v, lambda t: -t, lambda x: x),
    ("x * x + 1", lambda v: v * v + 1, lambda t: t * t + 1, lambda x: x),
    ("1 + x", lambda v: 1 + v, lambda t: 1 + t, lambda x: x),
    ("x - x * x", lambda v: v - v * v, lambda t: t - t * t, lambda x: x),
    ("x.exp()", lambda v: v.exp(), math.exp, lambda x: x),
    ("x.log()", lambda v: v.log(), math.log, lambda x: x * x + 1),
    ("x.tanh()", lambda v: v.tanh(), math.tanh, lambda x: x),
    ("x.relu()", lambda v: v.relu(), lambda t: max(t, 0.0), lambda x: x),
    ("x / 3", lambda v: v / 3, lambda t: t / 3, lambda x: x),
    ("Value(3.0) / x", lambda v: type(v)(3.0) / v, lambda t: 3 / t, lambda x: x),
    ("2 / x", lambda v: 2 / v, lambda t: 2 / t, lambda x: x),
)


MIX_POINTS = (-2.3, -1.7, -0.9, -0.4, 0.3, 0.8, 1.1, 1.9, 2.6)


def small_failure(env: Env, name: str, op: Callable, reference: Callable[[float], float],
                  x: float) -> dict[str, str] | None:
    """How one operation goes wrong at x on its own or times 3 (with out.grad = 3), if it does: the expression, what
    was read, what it should be and what it was."""
    slope = nudged(reference, x)
    v = env.Value(x)
    y = op(v)
    y.backward()
    trials = [(f"y = {name}", "y", y.data, reference(x)), (f"y = {name}", "x.grad", v.grad, slope)]
    v = env.Value(x)
    y = op(v)
    (y * 3).backward()
    times_3 = f"z = {name} * 3" if " " not in name and not name.startswith("-") else f"z = ({name}) * 3"
    trials += [(times_3, "x.grad", v.grad, nudged(lambda t: 3 * reference(t), x)), (times_3, "y.grad", y.grad, 3.0)]
    for small, what, got, expected in trials:
        if not close(got, expected, 1e-5):
            return {"op": name, "small": small, "at": show(x), "what": what, "op_got": show(got),
                    "op_expected": show(expected)}
    return None


def wrong_alone(env: Env, x: float) -> dict[str, str] | None:
    """The first operation of the mix that goes wrong on its own or times 3, tried first where the mix went wrong (x),
    then at the mix's other points; for the message."""
    points = (x, *(point for point in MIX_POINTS if point != x))
    for name, op, reference, where in ALONE:
        for point in points:
            found = small_failure(env, name, op, reference, where(point))
            if found:
                return found
    return None


@claim("L11", "everything")
def everything(env: Env) -> None:
    try:
        check_op(env, every_operation, every_operation_by_math, MIX_POINTS)
    except Fail as failure:
        alone = wrong_alone(env, float(failure.values["x"]))
        if alone is not None:
            raise Fail("op_wrong", **failure.values, **alone) from None
        raise


@claim("L11", "agrees_with_dual")
def agrees_with_dual(env: Env) -> None:
    """Reverse mode (backward) and forward mode (the learner's Dual) give the same derivative."""
    for k in range(25):
        x = -1.25 + 0.1 * k
        v = env.Value(x)
        every_operation(v).backward()
        expected = every_operation(env.dual.Dual(x, 1.0)).deriv
        if not close(v.grad, expected, 1e-9):
            raise Fail("wrong", x=show(x), got=show(v.grad), expected=show(expected))


def three_to_three(p: list) -> list:
    """A map from three inputs to three outputs, on Values or on floats."""
    x, y, z = p
    return [x * y + z, (x - z) ** 2, y / z]


@claim("L11", "reverse_is_vjp")
def reverse_is_vjp(env: Env) -> None:
    """One backward pass from u·F gives uᵀJ, which nudging needs every input for."""
    x0, u = [1.5, -2.0, 0.5], [1.0, 2.0, -3.0]
    xs = [env.Value(v) for v in x0]
    total = env.Value(0.0)
    for ui, yi in zip(u, three_to_three(xs)):
        total = total + ui * yi
    total.backward()
    expected = env.nudge.vjp_numeric(three_to_three, x0, u)
    got = [v.grad for v in xs]
    if not all(close(g, e, 1e-5) for g, e in zip(got, expected)):
        raise Fail("wrong", got=show(got), expected=show(expected))
