"""Checks of lesson 01, Slopes by nudging: the central difference."""

from __future__ import annotations

import math
from collections.abc import Callable

from labs.checking.claimkit import Env, Fail, claim, close, default_step_slip, show


def cube(x: float) -> float:
    """x³, whose one-sided and central differences at 2 with h = 1e-3 differ by a factor of 6,000."""
    return x**3


def within(got: object, expected: float, tol: float) -> bool:
    """True when ``got`` is a number no further than ``tol`` from ``expected``."""
    return close(got, expected, math.inf) and abs(got - expected) <= tol  # type: ignore[operator]


def slips(f: Callable[[float], float], x: float, h: float) -> dict[str, float]:
    """What common wrong forms of the central difference give for f at x with step h, by message key."""
    up, here, down = f(x + h), f(x), f(x - h)
    return {
        "one_sided": (up - here) / h,
        "backward": (here - down) / h,
        "over_h": (up - down) / h,
        "bracket": (up - down) / 2 * h,
        "sign": (down - up) / (2 * h),
    }


def slip_of(got: object, f: Callable[[float], float], x: float, h: float) -> str | None:
    """The key of the wrong form whose result ``got`` matches (to 1e-9 relative), if any."""
    for key, value in slips(f, x, h).items():
        if close(got, value, 1e-9) and not close(value, (f(x + h) - f(x - h)) / (2 * h), 1e-9):
            return key
    return None


def default_step_slip_of(env: Env, got: object, f: Callable[[float], float], x: float) -> tuple[str, str] | None:
    """('tiny_default' or 'large_default', the step) when ``got`` is the central difference with slope's own
    default step and that step is far from about 1e-6."""
    return default_step_slip(env.nudge.slope, got, lambda h: (f(x + h) - f(x - h)) / (2 * h))


@claim("L01", "square")
def square(env: Env) -> None:
    def f(x: float) -> float:
        return x * x

    got = env.nudge.slope(f, 3.0)
    if not within(got, 6.0, 1e-7):
        key, h = default_step_slip_of(env, got, f, 3.0) or ("wrong", "")
        raise Fail(key, got=show(got), h=h)


@claim("L01", "central")
def central(env: Env) -> None:
    h = 1e-3
    got = env.nudge.slope(cube, 2.0, h=h)
    if not within(got, 12.0, 2e-6):
        key = slip_of(got, cube, 2.0, h) or "far"
        off = f"{abs(got - 12.0):.3g}" if close(got, 0.0, math.inf) else "?"  # close() is True for any number
        raise Fail(key, got=show(got), off=off)
    if not close(got, 12.000001, 1e-9):
        key = "ignores_h" if abs(got - 12.0) < 1e-8 else "not_central"  # h² under 1e-8: a step under 1e-4
        raise Fail(key, got=repr(got))


@claim("L01", "sine")
def sine(env: Env) -> None:
    for x in (0.7, 2.5):  # where sin rises, then where it falls
        got, expected = env.nudge.slope(math.sin, x), math.cos(x)
        if not close(got, expected, 1e-8):
            if close(got, -expected, 1e-6):
                key, h = "sign", ""
            else:
                key, h = default_step_slip_of(env, got, math.sin, x) or ("wrong", "")
            raise Fail(key, x=show(x), got=show(got), expected=show(expected), h=h)


@claim("L01", "bad_h")
def bad_h(env: Env) -> None:
    for h in (-1e-3, 0.0):
        try:
            got = env.nudge.slope(lambda x: x * x, 1.0, h=h)
        except ValueError:
            continue
        except Exception as error:  # any other exception is the wrong kind of refusal
            raise Fail("other_error", h=show(h), got=type(error).__name__) from None
        raise Fail("no_error", h=show(h), got=show(got))
