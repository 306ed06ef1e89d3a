"""Checks of lesson 02, The chain rule: rules of slopes, the product rule, and chains."""

from __future__ import annotations

import math
from collections.abc import Callable

from labs.checking.claimkit import Env, Fail, claim, close, quiet_slope, show


@claim("L02", "power_rule")
def power_rule(env: Env) -> None:
    for x, k in ((2.0, 3), (-1.5, 2), (4.0, 0.5), (0.5, -1), (3.0, 1), (0.0, 2), (0.0, 1)):
        try:
            got = env.nudge.power_slope(x, k)
        except ZeroDivisionError:
            raise Fail("divides", k=k) from None
        expected = quiet_slope(lambda t, k=k: t**k, x)  # type: ignore[misc]  # mypy types no lambda's defaults, here binding this turn's values
        if not close(got, expected, 1e-5):
            key = "wrong"
            if x == 0.0:  # every slip gives 0 or 1 here: nothing to tell them apart
                pass
            elif close(got, k * x**k, 1e-9):
                key = "not_lowered"
            elif close(got, x ** (k - 1), 1e-9):
                key = "no_k"
            raise Fail(key, x=show(x), k=k, km1=show(k - 1), got=show(got), expected=show(expected))


@claim("L02", "exp_log_tanh")
def exp_log_tanh(env: Env) -> None:
    cases = (("exp_slope", math.exp, (0.0, 0.7, -1.3)), ("log_slope", math.log, (0.5, 2.0, 7.0)),
             ("tanh_slope", math.tanh, (0.5, -1.2, 2.0)))
    for rule, f, points in cases:
        for x in points:
            got = getattr(env.nudge, rule)(x)
            expected = quiet_slope(f, x)
            if not close(got, expected, 1e-5):
                key = "wrong"
                if rule == "tanh_slope" and close(got, 1 - x * x, 1e-9):
                    key = "tanh_of_input"
                elif rule == "tanh_slope" and close(got, 1 - math.tanh(x), 1e-9):
                    key = "tanh_unsquared"
                elif rule == "log_slope" and close(got, math.log(x), 1e-9):
                    key = "log_itself"
                raise Fail(key, rule=rule, x=show(x), got=show(got), expected=show(expected))


@claim("L02", "product_rule")
def product_rule(env: Env) -> None:
    def f(x: float) -> float:
        return x * x

    def df(x: float) -> float:
        return 2 * x

    for x in (0.5, 2.0, -1.0):
        got = env.nudge.product_slope(f, df, math.sin, math.cos, x)
        expected = quiet_slope(lambda t: t * t * math.sin(t), x)
        if not close(got, expected, 1e-5):
            key = "wrong"
            if close(got, df(x) * math.cos(x), 1e-9):
                key = "slopes_multiplied"
            elif close(got, df(x) * math.sin(x) - f(x) * math.cos(x), 1e-9):
                key = "minus"
            raise Fail(key, x=show(x), got=show(got), expected=show(expected))
    # The rule builds the slope from the two slopes it is handed. Handed stand-ins (not the true slopes of
    # f and g), it must follow them; a slope found by nudging f·g does not.
    x, f_stand_in, g_stand_in = 1.5, 10.0, -4.0
    got = env.nudge.product_slope(f, lambda _: f_stand_in, math.sin, lambda _: g_stand_in, x)
    expected = f_stand_in * math.sin(x) + f(x) * g_stand_in
    if not close(got, expected, 1e-9):
        nudged = quiet_slope(lambda t: t * t * math.sin(t), x)
        raise Fail("nudged" if close(got, nudged, 1e-5) else "stand_ins", x=show(x), got=show(got),
                   expected=show(expected), fs=show(f_stand_in), gs=show(g_stand_in))


def recording(name: str, slope: Callable[[float], float], asked: list[tuple[str, float]]) -> Callable[[float], float]:
    """A slope function that writes down every point it is asked at."""

    def ask(x: float) -> float:
        asked.append((name, x))
        return slope(x)

    return ask


@claim("L02", "chain_three")
def chain_three(env: Env) -> None:
    asked: list[tuple[str, float]] = []
    names = ("x → x²", "u → u + 1", "v → v³")
    steps = [
        (lambda x: x * x, recording(names[0], lambda x: 2 * x, asked)),
        (lambda u: u + 1, recording(names[1], lambda u: 1.0, asked)),
        (lambda v: v**3, recording(names[2], lambda v: 3 * v * v, asked)),
    ]
    given = list(steps)
    result = env.nudge.chain(steps, 2.0)
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise Fail("pair", got=show(result))
    value, rate = result
    if close(value, 300.0) and close(rate, 125.0):
        raise Fail("swapped", got=show(result))
    if close(value, 81.0):
        raise Fail("reversed", got=show(value))
    if not close(value, 125.0):
        raise Fail("value", got=show(value))
    if len(steps) != len(given):
        raise Fail("steps_changed", got=f"{len(steps)} step" + ("" if len(steps) == 1 else "s"))
    if any(a is not b for a, b in zip(steps, given)):
        raise Fail("steps_changed", got="its steps in another order" if sorted(map(id, steps)) == sorted(map(id, given))
                   else "other steps than it was given")
    inputs = {names[0]: 2.0, names[1]: 4.0, names[2]: 5.0}
    for name, x in asked:
        if not close(x, inputs[name]):
            step = names.index(name) + 1
            raise Fail("asked_at", step=step, name=name, got=show(x), expected=show(inputs[name]))
    if not close(rate, 300.0):
        raise Fail("wrong", got=show(rate))


@claim("L02", "chain_by_rules")
def chain_by_rules(env: Env) -> None:
    nudge = env.nudge
    steps = [(lambda x: x**2, lambda x: nudge.power_slope(x, 2)), (lambda u: u + 1, lambda u: 1.0),
             (lambda v: v**3, lambda v: nudge.power_slope(v, 3))]
    for x in (2.0, -0.5, 1.3):
        _, got = nudge.chain(steps, x)
        expected = nudge.slope(lambda t: (t * t + 1) ** 3, x)
        if not close(got, expected, 1e-5):
            raise Fail("wrong", x=show(x), got=show(got), expected=show(expected))
