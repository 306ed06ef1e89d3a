"""Tests of ember's neural-network pieces: parameters, seeding, zero_grad, sgd_step, training."""

from __future__ import annotations

import random

from ember.nn import MLP, sgd_step
from ember.scalar import Value


def separable_points(n: int, seed: int = 0) -> list[tuple[tuple[float, float], float]]:
    """n points in the square [-1, 1]^2, labelled +1 above the line x + y = 0 and -1 below, with a margin."""
    rng = random.Random(seed)
    data: list[tuple[tuple[float, float], float]] = []
    while len(data) < n:
        x, y = rng.uniform(-1, 1), rng.uniform(-1, 1)
        if abs(x + y) > 0.3:
            data.append(((x, y), 1.0 if x + y > 0 else -1.0))
    return data


def predict(model: MLP, point: tuple[float, float]) -> Value:
    """The model's one output for a point."""
    prediction = model(point)
    assert isinstance(prediction, Value)
    return prediction


def mean_squared_error(model: MLP, data: list[tuple[tuple[float, float], float]]) -> Value:
    """The mean of (prediction - label)^2 over the data."""
    total = Value(0.0)
    for point, label in data:
        total = total + (predict(model, point) - label) ** 2
    return total / len(data)


def test_parameter_count() -> None:
    model = MLP(2, [16, 16, 1], seed=0)
    assert len(model.parameters()) == (2 * 16 + 16) + (16 * 16 + 16) + (16 + 1)
    assert len({id(p) for p in model.parameters()}) == len(model.parameters())


def test_same_seed_same_weights() -> None:
    first = [p.data for p in MLP(2, [16, 16, 1], seed=0).parameters()]
    again = [p.data for p in MLP(2, [16, 16, 1], seed=0).parameters()]
    other = [p.data for p in MLP(2, [16, 16, 1], seed=1).parameters()]
    assert first == again
    assert first != other


def test_single_output_is_a_value() -> None:
    model = MLP(2, [4, 1], seed=0)
    assert isinstance(model([0.5, -0.5]), Value)
    wide = MLP(2, [4, 3], seed=0)
    out = wide([0.5, -0.5])
    assert isinstance(out, list) and len(out) == 3


def test_zero_grad() -> None:
    model = MLP(2, [16, 16, 1], seed=0)
    mean_squared_error(model, separable_points(8)).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_sgd_step_moves_against_the_gradient() -> None:
    params = [Value(1.0), Value(-2.0), Value(0.5)]
    for p, g in zip(params, (0.5, -4.0, 0.0)):
        p.grad = g
    sgd_step(params, 0.1)
    assert [p.data for p in params] == [1.0 - 0.05, -2.0 + 0.4, 0.5]
    assert [p.grad for p in params] == [0.5, -4.0, 0.0]  # the step leaves gradients alone


def test_gradient_descent_lowers_the_loss() -> None:
    model = MLP(2, [16, 16, 1], seed=0)
    data = separable_points(12)
    losses = []
    for _ in range(30):
        loss = mean_squared_error(model, data)
        losses.append(loss.data)
        model.zero_grad()
        loss.backward()
        sgd_step(model.parameters(), 0.05)
    assert losses[-1] < 0.25 * losses[0], losses
    accuracy = sum((predict(model, point).data > 0) == (label > 0) for point, label in data) / len(data)
    assert accuracy >= 0.9
