"""Checks of lesson 12, Downhill: zero_grad, a neuron, one step of gradient descent, and training."""

from __future__ import annotations

import math
import random
from itertools import pairwise
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, show
from labs.checking.walks import watch_steps


def make_data(n: int = 8) -> list[tuple[tuple[float, float], float]]:
    """A small 2-D data set: +1 above the line x0 + x1 = 0, -1 below it."""
    rng = random.Random(0)
    points = [(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(n)]
    return [(p, 1.0 if p[0] + p[1] > 0 else -1.0) for p in points]


def mean_square_loss(model: Any, data: list) -> Any:
    """The mean of (prediction - target)² over the data set, as a Value."""
    return sum((model(x) - y) ** 2 for x, y in data) * (1 / len(data))


@claim("L12", "neuron")
def neuron(env: Env) -> None:
    unit = env.nn.Neuron(3, rng=random.Random(0))
    unit.w = [env.Value(0.5), env.Value(-1.0), env.Value(2.0)]
    unit.b = env.Value(0.25)
    for x, expected in (([2.0, -1.0, 1.0], 4.25), ([1.0, 2.0, 0.5], 0.0)):
        got = unit(x).data
        if not close(got, expected):
            raise Fail("relu", x=show(x), got=show(got), expected=show(expected))
    x = [2.0, -1.0, 1.0]  # w·x + b = 4.25 > 0: relu passes the slope 1 on
    unit(x).backward()
    got = [p.grad for p in unit.w + [unit.b]]
    if not all(close(g, e) for g, e in zip(got, x + [1.0])):
        raise Fail("relu_detached", x=show(x), got=show(got))
    for p in unit.w + [unit.b]:
        p.grad = 0.0
    unit.linear = True
    x = [1.0, 2.0, 0.5]
    out = unit(x)
    if not close(out.data, -0.25):
        raise Fail("linear", x=show(x), got=show(out.data), expected=show(-0.25))
    out.backward()
    got = [p.grad for p in unit.w + [unit.b]]
    if not all(close(g, e) for g, e in zip(got, x + [1.0])):
        raise Fail("detached", x=show(x), got=show(got))
    for kind, x in (("numbers", [2.0, -1.0, 1.0]), ("Values", [env.Value(v) for v in (2.0, -1.0, 1.0)])):
        before = list(x)
        unit(x)
        if len(x) != len(before) or any(a is not b for a, b in zip(x, before)):
            raise Fail("inputs_changed", kind=kind, count=len(before), got=show([getattr(v, "data", v) for v in x]))
    x = [1.0, 2.0, 0.5]
    inputs = [env.Value(v) for v in x]  # as a layer after the first one calls it
    unit(inputs).backward()
    got = [v.grad for v in inputs]
    if not all(close(g, w.data) for g, w in zip(got, unit.w)):
        raise Fail("inputs_detached", got=show(got), expected=show([w.data for w in unit.w]))


@claim("L12", "zero_grad")
def zero_grad(env: Env) -> None:
    rng = random.Random(0)
    models = (("an MLP", env.nn.MLP(2, [3, 1], seed=0)), ("a Layer", env.nn.Layer(2, 3, rng=rng)),
              ("a Neuron", env.nn.Neuron(3, rng=rng)))
    for kind, model in models:
        params = model.parameters()
        for i, p in enumerate(params):
            p.grad = 0.5 + i
        before = [p.data for p in params]
        try:
            model.zero_grad()
        except AttributeError as error:
            raise Fail("not_shared", kind=kind, error=str(error)) from None
        if [p.data for p in params] != before:
            raise Fail("data_changed", kind=kind)
        left = [p.grad for p in params if p.grad != 0.0]
        if left:
            raise Fail("not_zero", kind=kind, count=len(left), total=len(params), got=show(left[0]))
    not_finite(env)


NOT_FINITE = (math.inf, -math.inf, math.nan)  # what a gradient holds after a step that overflowed


def not_finite(env: Env) -> None:
    """Fail with 'not_finite' unless zero_grad() turns gradients of inf, -inf and nan into 0.0, as setting does."""
    model = env.nn.MLP(2, [3, 1], seed=0)
    params = model.parameters()
    for i, p in enumerate(params):
        p.grad = NOT_FINITE[i % len(NOT_FINITE)]
    model.zero_grad()
    left = [(NOT_FINITE[i % len(NOT_FINITE)], p.grad) for i, p in enumerate(params) if p.grad != 0.0]
    if left:
        before, after = left[0]
        raise Fail("not_finite", count=len(left), total=len(params), before=show(before), got=show(after))


@claim("L12", "accumulate")
def accumulate(env: Env) -> None:
    model = env.nn.MLP(2, [3, 1], seed=0)
    params = model.parameters()
    loss = (model([0.5, -1.0]) - 1.0) ** 2
    loss.backward()
    once = [p.grad for p in params]
    runs = watch_steps(loss)
    loss.backward()
    if not runs:
        raise Fail("no_steps")
    for i, (p, g) in enumerate(zip(params, once)):
        if not close(p.grad, 2 * g):
            raise Fail("doubled", index=i, first=show(g), got=show(p.grad), expected=show(2 * g))
    model.zero_grad()
    loss.backward()
    for i, (p, g) in enumerate(zip(params, once)):
        if not close(p.grad, g):
            raise Fail("fresh", index=i, got=show(p.grad), expected=show(g))


STEP_DATA, STEP_GRADS = (1.0, -2.0, 0.5), (0.5, -1.0, 2.0)  # the step claim's parameters and their grads


def moved(by: float) -> list[float]:
    """The step claim's parameters, each moved by -by × its grad."""
    return [p - by * g for p, g in zip(STEP_DATA, STEP_GRADS)]


@claim("L12", "step")
def step(env: Env) -> None:
    for rate in (0.1, 0.01):
        params = [env.Value(v) for v in STEP_DATA]
        for p, g in zip(params, STEP_GRADS):
            p.grad = g
        env.nn.sgd_step(params, rate)
        got = [p.data for p in params]
        if all(close(g, e) for g, e in zip(got, moved(rate))):
            continue
        key = "wrong"
        if got == list(STEP_DATA) and [p.grad for p in params] == list(STEP_GRADS):
            key = "unchanged"
        elif all(close(g, e) for g, e in zip(got, moved(-rate))):
            key = "uphill"
        elif rate != 0.1 and all(close(g, e) for g, e in zip(got, moved(0.1))):
            key = "fixed_rate"
        raise Fail(key, rate=show(rate), got=show(got), expected=show(moved(rate)))
    from_generator(env)


def from_generator(env: Env) -> None:
    """Fail with 'iterable' unless sgd_step moves parameters handed in as a generator as it moves a list of them."""
    params = [env.Value(v) for v in STEP_DATA]
    for p, g in zip(params, STEP_GRADS):
        p.grad = g
    try:
        env.nn.sgd_step((p for p in params), 0.1)
    except TypeError as error:  # len() or [i] of a generator
        raise Fail("iterable", outcome=f"raised TypeError: {error}") from None
    if not all(close(p.data, e) for p, e in zip(params, moved(0.1))):
        raise Fail("iterable", outcome=f"left {show([p.data for p in params])} where a list of the same parameters "
                                       f"gives {show(moved(0.1))}")


@claim("L12", "loss_goes_down")
def loss_goes_down(env: Env) -> None:
    data = make_data()
    model = env.nn.MLP(2, [4, 1], seed=0)
    losses = []
    for _ in range(6):
        loss = mean_square_loss(model, data)
        model.zero_grad()
        loss.backward()
        env.nn.sgd_step(model.parameters(), 0.1)
        losses.append(loss.data)
    if not all(later < earlier for earlier, later in pairwise(losses)):
        raise Fail("not_down", got=show(round(x, 4) for x in losses))
