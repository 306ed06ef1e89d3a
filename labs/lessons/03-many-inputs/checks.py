"""Checks of lesson 03, Many inputs: partial slopes and the gradient."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, default_step_slip, is_number, show, watching_own_list

H = 1e-3  # a step large enough that a one-sided difference is 3e-3 off on x²y, while the central one is exact


def x2y(xs: list[float]) -> float:
    """f(x, y) = x²·y."""
    return xs[0] ** 2 * xs[1]


def x3y(xs: list[float]) -> float:
    """g(x, y) = x³·y: at (2, 3) with h = 1e-3 the central difference along x is 36 + 3h² = 36.000003."""
    return xs[0] ** 3 * xs[1]


def all_close(got: object, expected: list[float], tol: float = 1e-5) -> bool:
    """True when ``got`` is a sequence of numbers, each close to its expected entry."""
    try:
        items = list(got)  # type: ignore[call-overload]
    except TypeError:
        return False
    return len(items) == len(expected) and all(close(g, e, tol) for g, e in zip(items, expected))


def nudged(xs: list[float], i: int, step: float) -> list[float]:
    """A copy of xs with entry i moved by step."""
    return [x + step if j == i else x for j, x in enumerate(xs)]


def slips(f: Callable[[list[float]], float], xs: list[float], i: int, h: float) -> dict[str, float]:
    """What common wrong forms of partial(f, xs, i, h) give, by message key."""
    up, here, down = f(nudged(xs, i, h)), f(xs), f(nudged(xs, i, -h))
    every_up, every_down = f([x + h for x in xs]), f([x - h for x in xs])
    return {
        "one_sided": (up - here) / h,
        "backward": (here - down) / h,
        "over_h": (up - down) / h,
        "sign": (down - up) / (2 * h),
        "all_inputs": (every_up - every_down) / (2 * h),
    }


def diagnosis(got: object, f: Callable[[list[float]], float], xs: list[float], i: int, h: float) -> str:
    """The message key for a wrong partial slope: the slip whose result it matches, or 'wrong'."""
    right = (f(nudged(xs, i, h)) - f(nudged(xs, i, -h))) / (2 * h)
    for key, value in slips(f, xs, i, h).items():
        if close(got, value, 1e-9) and not close(value, right, 1e-6):
            return key
    other = 1 - i
    if close(got, (f(nudged(xs, other, h)) - f(nudged(xs, other, -h))) / (2 * h), 1e-6):
        return "other_input"
    return "wrong"


def default_slip(function: Callable[..., object], got: object, f: Callable[[list[float]], float], xs: list[float],
                 i: int) -> tuple[str, str] | None:
    """('tiny_default' or 'large_default', the step) when ``got`` is the central difference along input i with
    ``function``'s own default step, and that step is far from about 1e-6."""
    return default_step_slip(function, got, lambda h: (f(nudged(xs, i, h)) - f(nudged(xs, i, -h))) / (2 * h))


def default_step(call: str, got: object, function: Callable[..., object]) -> None:
    """Fail unless ``got``, the slope of x³·y along x at (2, 3) with h left to its default (1e-6), is 36 to within
    1e-6 (a step of 1e-6 adds 3h²); name the function's own default step when it is far from 1e-6."""
    if close(got, 36.0, 1e-6):
        return
    key, step = default_slip(function, got, x3y, [2.0, 3.0], 0) or ("default_step", "")
    raise Fail(key, call=call, expected="36.0", got=repr(got), step=step)


def described(got: object) -> str:
    """A result as a learner reads it, naming its type when it is not a list."""
    if isinstance(got, list):
        return show(got)
    if isinstance(got, tuple):
        return f"the tuple {show(got)}"
    return f"{type(got).__name__} {got!r}"


@claim("L03", "partial_x2y")
def partial_x2y(env: Env) -> None:
    partial = env.nudge.partial
    for i, expected, why in ((0, 12.0, "2xy with y held at 3"), (1, 4.0, "x² with x held at 2")):
        runs = ((f"partial(f, [2.0, 3.0], {i})", lambda i=i: partial(x2y, [2.0, 3.0], i), 1e-6, 1e-5),
                (f"partial(f, [2.0, 3.0], {i}, h=1e-3)", lambda i=i: partial(x2y, [2.0, 3.0], i, H), H, 1e-8))
        for call, run, h, tol in runs:
            got = run()
            if not close(got, expected, tol):
                slip = default_slip(partial, got, x2y, [2.0, 3.0], i) if h == 1e-6 else None
                key, step = slip or (diagnosis(got, x2y, [2.0, 3.0], i, h), "")
                raise Fail(key, call=call, i=i, other=1 - i, expected=show(expected), why=why, got=show(got),
                           step=step)
    got = partial(lambda xs: 1e-9 * x2y(xs), [2.0, 3.0], 0)
    if not (is_number(got) and math.isclose(got, 1.2e-8, rel_tol=1e-5)):
        raise Fail("tiny", got=show(got))
    got = partial(x3y, [2.0, 3.0], 0, H)
    if not close(got, 36.000003, 1e-10):
        raise Fail("ignores_h" if close(got, 36.0, 3e-9) else "wrong_h", got=repr(got))
    default_step("partial(g, [2.0, 3.0], 0) for g = x³·y", partial(x3y, [2.0, 3.0], 0), partial)


@claim("L03", "gradient_x2y")
def gradient_x2y(env: Env) -> None:
    gradient = env.nudge.gradient
    got = first = gradient(x2y, [2.0, 3.0])
    if not isinstance(got, list):
        raise Fail("not_list", got=described(got))
    if len(got) != 2:
        raise Fail("length", count=len(got), got=show(got))
    if all_close(got, [4.0, 12.0]):
        raise Fail("order", got=show(got))
    if not all_close(got, [12.0, 4.0]):
        key, step = default_slip(gradient, got[0], x2y, [2.0, 3.0], 0) or ("wrong", "")
        raise Fail(key, call="gradient(f, [2.0, 3.0])", expected="[12.0, 4.0]", got=show(got), step=step)
    got = gradient(x2y, [2.0, 3.0], H)
    if not all_close(got, [12.0, 4.0], 1e-8):
        keys = {diagnosis(g, x2y, [2.0, 3.0], i, H) for i, g in enumerate(got)} if isinstance(got, list) else set()
        key = "one_sided" if keys & {"one_sided", "backward"} else "wrong"
        raise Fail(key, call="gradient(f, [2.0, 3.0], h=1e-3)", got=described(got))
    got = gradient(x3y, [2.0, 3.0], H)
    along_x = got[0] if isinstance(got, list) and got else None
    if not close(along_x, 36.000003, 1e-10):
        raise Fail("ignores_h" if close(along_x, 36.0, 3e-9) else "wrong_h", got=repr(along_x))
    got = gradient(x3y, [2.0, 3.0])
    default_step("gradient(g, [2.0, 3.0])[0] for g = x³·y", got[0] if isinstance(got, list) and got else None,
                 gradient)
    if not all_close(first, [12.0, 4.0]):
        raise Fail("reused", got=show(first))


@claim("L03", "every_input")
def every_input(env: Env) -> None:
    got = env.nudge.gradient(lambda xs: sum(x * x for x in xs), [1.0, -2.0, 0.5, 3.0])
    if isinstance(got, list) and len(got) != 4:
        raise Fail("length", count=len(got), got=show(got))
    if not all_close(got, [2.0, -4.0, 1.0, 6.0]):
        raise Fail("wrong", got=described(got))


@claim("L03", "input_kept")
def input_kept(env: Env) -> None:
    for call, run in (("partial(f, xs, 0)", lambda f, xs: env.nudge.partial(f, xs, 0)),
                      ("gradient(f, xs)", lambda f, xs: env.nudge.gradient(f, xs))):
        xs = [2.0, 3.0]
        f, seen_nudged = watching_own_list(x2y, xs)
        run(f, xs)
        if xs != [2.0, 3.0]:
            raise Fail("changed", call=call, got=repr(xs), expected=repr([2.0, 3.0]))
        if seen_nudged:
            raise Fail("own_list", call=call, seen=show(seen_nudged[0]))
    for call, run_on in (("partial(f, (2.0, 3.0), 0)", lambda xs: env.nudge.partial(x2y, xs, 0)),
                         ("gradient(f, (2.0, 3.0))", lambda xs: env.nudge.gradient(x2y, xs))):
        from_tuple(call, run_on)


def from_tuple(call: str, run: Callable[[Any], object]) -> None:
    """Fail with 'tuple' unless ``run`` gives, on the inputs (2.0, 3.0) as a tuple, what it gives on them as a list."""
    try:
        got = run((2.0, 3.0))
    except (AttributeError, TypeError) as error:  # xs.copy(), or a nudge written into a tuple
        raise Fail("tuple", call=call, outcome=f"raised {type(error).__name__}: {error}") from None
    expected = run([2.0, 3.0])
    if got != expected:
        raise Fail("tuple", call=call, outcome=f"gave {described(got)} where the same inputs in a list give "
                                               f"{described(expected)}")


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
        raise Fail("too_few" if calls < 2 * n else "too_many", n=n, got=calls, expected=2 * n)
