"""Checks of lesson 01, Slopes by nudging: the central difference."""

from __future__ import annotations

import math

from ..claimkit import Env, Fail, claim, close, show


@claim("L01", "square")
def square(env: Env) -> None:
    got = env.nudge.slope(lambda x: x * x, 3.0)
    if not close(got, 6.0, 1e-8):
        raise Fail("wrong", got=show(got))


@claim("L01", "central")
def central(env: Env) -> None:
    got = env.nudge.slope(lambda x: x**3, 2.0, h=1e-3)
    if not close(got, 12.0, 2e-6):
        off = abs(got - 12.0) if isinstance(got, (int, float)) else "?"
        raise Fail("far", got=show(got), off=show(off))
    if not close(got, 12.000001, 1e-9):
        raise Fail("ignores_h", got=show(got))


@claim("L01", "sine")
def sine(env: Env) -> None:
    got = env.nudge.slope(math.sin, 0.7)
    if not close(got, math.cos(0.7), 1e-8):
        raise Fail("wrong", got=show(got), expected=show(math.cos(0.7)))


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
