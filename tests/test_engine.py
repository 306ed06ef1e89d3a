"""Tests of ember's scalar engine: values, gradients, graph reuse and edge cases.

Gradients are checked three independent ways: against central differences,
against forward-mode differentiation with dual numbers, and against hand-worked
values.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import cast

import pytest

from ember.scalar import Value

H = 1e-6
REL_TOL = 1e-6
ABS_TOL = 1e-8


def central_difference(f: Callable[[float], float], x: float, h: float = H) -> float:
    """Estimate df/dx at x as (f(x+h) - f(x-h)) / 2h."""
    return (f(x + h) - f(x - h)) / (2 * h)


def close(a: float, b: float, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    """Equal up to a relative tolerance, or an absolute one near zero."""
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)


# --- the worked example -----------------------------------------------------


def worked_example() -> tuple[Value, Value, Value, Value]:
    """L = (a*b + c)*a at a=2, b=-3, c=10; returns (a, b, c, L)."""
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    return a, b, c, (a * b + c) * a


def test_worked_example() -> None:
    a, b, c, loss = worked_example()
    assert loss.data == 8.0
    loss.backward()
    assert (a.grad, b.grad, c.grad) == (-2.0, 4.0, 2.0)
    assert loss.grad == 1.0


def test_backward_twice_doubles_leaf_gradients() -> None:
    # As in PyTorch: leaves accumulate across passes; interior results start fresh each pass.
    a, b, c, loss = worked_example()
    loss.backward()
    loss.backward()
    assert (a.grad, b.grad, c.grad) == (-4.0, 8.0, 4.0)
    assert loss.grad == 1.0


# --- every operation against central differences -----------------------------

UnaryCase = tuple[str, Callable[[Value], Value], tuple[float, ...]]

EVERYWHERE = (-3.7, -1.2, -0.4, 0.3, 1.0, 2.5, 4.1)
POSITIVE = (0.05, 0.3, 1.0, 2.7, 9.5)
NONZERO = (-3.7, -1.2, -0.4, 0.3, 1.0, 2.5, 4.1)

UNARY_CASES: list[UnaryCase] = [
    ("x+2", lambda x: x + 2, EVERYWHERE),
    ("2+x", lambda x: 2 + x, EVERYWHERE),
    ("x-1", lambda x: x - 1, EVERYWHERE),
    ("2-x", lambda x: 2 - x, EVERYWHERE),
    ("x*3", lambda x: x * 3, EVERYWHERE),
    ("2*x", lambda x: 2 * x, EVERYWHERE),
    ("x/4", lambda x: x / 4, EVERYWHERE),
    ("2/x", lambda x: 2 / x, NONZERO),
    ("-x", lambda x: -x, EVERYWHERE),
    ("x+x", lambda x: x + x, EVERYWHERE),
    ("x-x*x", lambda x: x - x * x, EVERYWHERE),
    ("x*x", lambda x: x * x, EVERYWHERE),
    ("x/(x*x+1)", lambda x: x / (x * x + 1), EVERYWHERE),
    ("x**2", lambda x: x**2, EVERYWHERE),
    ("x**3", lambda x: x**3, EVERYWHERE),
    ("x**-1", lambda x: x**-1, NONZERO),
    ("x**-2", lambda x: x**-2, NONZERO),
    ("x**0", lambda x: x**0, NONZERO),
    ("x**2.0", lambda x: x**2.0, EVERYWHERE),
    ("x**0.5", lambda x: x**0.5, POSITIVE),
    ("x**1.5", lambda x: x**1.5, POSITIVE),
    ("x**-0.5", lambda x: x**-0.5, POSITIVE),
    ("x**-2.5", lambda x: x**-2.5, POSITIVE),
    ("exp", lambda x: x.exp(), (-20.0, -3.7, -0.4, 0.0, 0.3, 2.5, 5.0, 20.0)),
    ("log", lambda x: x.log(), POSITIVE + (150.0,)),
    ("tanh", lambda x: x.tanh(), (-8.0, -3.7, -0.4, 0.0, 0.3, 2.5, 8.0)),
    ("relu", lambda x: x.relu(), EVERYWHERE),
    ("sigmoid", lambda x: x.sigmoid(), (-30.0, -8.0, -3.7, -0.4, 0.0, 0.3, 2.5, 8.0, 30.0)),
]


@pytest.mark.parametrize(("name", "f", "points"), UNARY_CASES, ids=[case[0] for case in UNARY_CASES])
def test_operation_matches_central_difference(
    name: str, f: Callable[[Value], Value], points: tuple[float, ...]
) -> None:
    for x0 in points:
        x = Value(x0)
        f(x).backward()
        numeric = central_difference(lambda t: f(Value(t)).data, x0)
        assert close(x.grad, numeric), f"{name} at {x0}: backward {x.grad}, central difference {numeric}"


BinaryCase = tuple[str, Callable[[Value, Value], Value]]

BINARY_CASES: list[BinaryCase] = [
    ("x+y", lambda x, y: x + y),
    ("x-y", lambda x, y: x - y),
    ("x*y", lambda x, y: x * y),
    ("x/y", lambda x, y: x / y),
]
PAIRS = [(-3.7, 1.3), (-0.4, -2.2), (0.3, 0.8), (2.5, -0.6), (4.1, 5.5)]


@pytest.mark.parametrize(("name", "f"), BINARY_CASES, ids=[case[0] for case in BINARY_CASES])
def test_binary_operation_matches_central_difference(name: str, f: Callable[[Value, Value], Value]) -> None:
    for x0, y0 in PAIRS:
        x, y = Value(x0), Value(y0)
        f(x, y).backward()

        def x_moved(t: float, y0: float = y0) -> float:
            return f(Value(t), Value(y0)).data

        def y_moved(t: float, x0: float = x0) -> float:
            return f(Value(x0), Value(t)).data

        dx = central_difference(x_moved, x0)
        dy = central_difference(y_moved, y0)
        assert close(x.grad, dx), f"d({name})/dx at {(x0, y0)}: backward {x.grad}, central difference {dx}"
        assert close(y.grad, dy), f"d({name})/dy at {(x0, y0)}: backward {y.grad}, central difference {dy}"


@pytest.mark.parametrize(("name", "f", "points"), UNARY_CASES, ids=[case[0] for case in UNARY_CASES])
def test_forward_values_match_floats(name: str, f: Callable[[Value], Value], points: tuple[float, ...]) -> None:
    # The forward pass of each operation agrees with a float computation of the same formula.
    floats: dict[str, Callable[[float], float]] = {
        "exp": math.exp, "log": math.log, "tanh": math.tanh,
        "relu": lambda t: max(t, 0.0), "sigmoid": lambda t: 1 / (1 + math.exp(-t)),
    }
    for x0 in points:
        on_floats = cast("Callable[[float], float]", f)  # the cases' formulas work on floats as on Values
        expected = floats[name](x0) if name in floats else on_floats(x0)
        assert close(f(Value(x0)).data, expected, rel_tol=1e-12, abs_tol=1e-15), f"{name} at {x0}"


def test_sigmoid_is_stable_at_large_inputs() -> None:
    for x0, expected in ((1000.0, 1.0), (-1000.0, 0.0), (1e308, 1.0), (-1e308, 0.0)):
        x = Value(x0)
        s = x.sigmoid()  # must not overflow in math.exp
        assert s.data == expected
        s.backward()
        assert x.grad == 0.0


# --- one expression with every operation against forward mode ----------------


class Dual:
    """A (value, derivative) pair: forward-mode differentiation of one input direction."""

    __slots__ = ("der", "val")

    def __init__(self, val: float, der: float = 0.0) -> None:
        self.val = float(val)
        self.der = float(der)

    @staticmethod
    def lift(other: Dual | float) -> Dual:
        """A plain number as a constant (derivative 0)."""
        return other if isinstance(other, Dual) else Dual(other)

    def __add__(self, other: Dual | float) -> Dual:
        other = Dual.lift(other)
        return Dual(self.val + other.val, self.der + other.der)

    def __radd__(self, other: float) -> Dual:
        return Dual.lift(other) + self

    def __neg__(self) -> Dual:
        return Dual(-self.val, -self.der)

    def __sub__(self, other: Dual | float) -> Dual:
        other = Dual.lift(other)
        return Dual(self.val - other.val, self.der - other.der)

    def __rsub__(self, other: float) -> Dual:
        return Dual.lift(other) - self

    def __mul__(self, other: Dual | float) -> Dual:
        other = Dual.lift(other)
        return Dual(self.val * other.val, self.der * other.val + self.val * other.der)

    def __rmul__(self, other: float) -> Dual:
        return Dual.lift(other) * self

    def __truediv__(self, other: Dual | float) -> Dual:
        other = Dual.lift(other)
        q = self.val / other.val
        return Dual(q, (self.der - q * other.der) / other.val)

    def __rtruediv__(self, other: float) -> Dual:
        return Dual.lift(other) / self

    def __pow__(self, k: float) -> Dual:
        return Dual(self.val**k, k * self.val ** (k - 1) * self.der)

    def exp(self) -> Dual:
        e = math.exp(self.val)
        return Dual(e, e * self.der)

    def log(self) -> Dual:
        return Dual(math.log(self.val), self.der / self.val)

    def tanh(self) -> Dual:
        t = math.tanh(self.val)
        return Dual(t, (1 - t * t) * self.der)

    def relu(self) -> Dual:
        return Dual(self.val, self.der) if self.val > 0 else Dual(0.0, 0.0)

    def sigmoid(self) -> Dual:
        s = 1 / (1 + math.exp(-self.val))
        return Dual(s, s * (1 - s) * self.der)


def every_operation(x, y):
    """An expression using + - * / neg ** exp log tanh relu sigmoid, constants on both sides.

    Untyped on purpose: it runs on Values (reverse mode) and on Duals (forward mode).
    """
    q = (x * x + 1).log() - (y * y + 2) ** 0.5  # log's argument stays positive
    r = 3 / (1 + y * y) + (x - 0.25).relu() * 2 - (0.5 * y).exp()
    s = (x * y - 1).tanh() / (2 + x.sigmoid()) + (1 - y) ** 2 + x**3 * 0.1
    return -(q * r) + s - 4 / (3 + (2 * x - y) ** 2) + 2 - x / 5


def test_every_operation_matches_forward_mode() -> None:
    rng = random.Random(0)
    points: list[tuple[float, float]] = []
    while len(points) < 25:
        x0, y0 = rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)
        if abs(x0 - 0.25) > 1e-3:  # keep away from relu's kink
            points.append((x0, y0))
    for x0, y0 in points:
        x, y = Value(x0), Value(y0)
        out = every_operation(x, y)
        out.backward()
        along_x = every_operation(Dual(x0, 1.0), Dual(y0, 0.0))
        along_y = every_operation(Dual(x0, 0.0), Dual(y0, 1.0))
        assert close(out.data, along_x.val, rel_tol=1e-12, abs_tol=1e-12)
        assert close(x.grad, along_x.der, rel_tol=1e-9, abs_tol=1e-12), f"d/dx at {(x0, y0)}"
        assert close(y.grad, along_y.der, rel_tol=1e-9, abs_tol=1e-12), f"d/dy at {(x0, y0)}"


# --- a vector-Jacobian product ------------------------------------------------


def two_outputs(x1: Value, x2: Value, x3: Value) -> tuple[Value, Value]:
    """A function from 3 inputs to 2 outputs."""
    y1 = x1 * x2 + (x3 * 0.5).exp() - x1 / x3
    y2 = (x1 - x2 * x3).tanh() + x2**2 * x3
    return y1, y2


def numeric_jacobian(point: tuple[float, float, float]) -> list[list[float]]:
    """J[i][j] = d y_i / d x_j by central differences."""
    jac = [[0.0] * 3 for _ in range(2)]
    for j in range(3):
        for i in range(2):
            def f(t: float, i: int = i, j: int = j) -> float:
                args = [Value(v) for v in point]
                args[j] = Value(t)
                return two_outputs(*args)[i].data
            jac[i][j] = central_difference(f, point[j])
    return jac


@pytest.mark.parametrize("u", [(1.0, 0.0), (0.0, 1.0), (0.7, -2.3)])
def test_vector_jacobian_product(u: tuple[float, float]) -> None:
    for point in [(0.5, -1.2, 2.0), (-1.5, 0.3, 0.8), (2.2, 1.1, -1.7)]:
        xs = [Value(v) for v in point]
        y1, y2 = two_outputs(*xs)
        (u[0] * y1 + u[1] * y2).backward()
        jac = numeric_jacobian(point)
        expected = [u[0] * jac[0][j] + u[1] * jac[1][j] for j in range(3)]
        for j in range(3):
            assert close(xs[j].grad, expected[j]), f"component {j} at {point}: {xs[j].grad} vs {expected[j]}"


# --- reuse of a node ----------------------------------------------------------


@pytest.mark.parametrize(
    ("f", "slope"),
    [
        (lambda x: x + x, lambda t: 2.0),
        (lambda x: x * x, lambda t: 2 * t),
        (lambda x: x * x + x, lambda t: 2 * t + 1),
    ],
    ids=["x+x", "x*x", "x*x+x"],
)
def test_reused_node_gradients_add_up(f: Callable[[Value], Value], slope: Callable[[float], float]) -> None:
    for x0 in (-2.0, 0.5, 3.0):
        x = Value(x0)
        f(x).backward()
        assert x.grad == slope(x0)


def test_diamond() -> None:
    for x0 in (-1.0, 0.0, 0.7):
        x = Value(x0)
        e = x.exp()
        out = 3 * e + 4 * e
        out.backward()
        assert close(e.grad, 7.0, rel_tol=1e-15)
        assert close(x.grad, 7 * math.exp(x0), rel_tol=1e-15)


def test_long_chain_needs_no_recursion() -> None:
    x = Value(1.0)
    y = x
    for _ in range(50_000):
        y = y + 1
    y.backward()  # at the default recursion limit
    assert y.data == 50_001.0
    assert x.grad == 1.0


# --- edge cases -----------------------------------------------------------------


def test_relu_at_zero() -> None:
    x = Value(0.0)
    out = x.relu()
    out.backward()
    assert out.data == 0.0
    assert x.grad == 0.0


@pytest.mark.parametrize(
    ("f", "slope"),
    [
        (lambda x: 2 * x, 2.0),
        (lambda x: x * 2, 2.0),
        (lambda x: 2 + x, 1.0),
        (lambda x: 1 - x, -1.0),
        (lambda x: x - 1, 1.0),
        (lambda x: -x, -1.0),
    ],
    ids=["2*x", "x*2", "2+x", "1-x", "x-1", "-x"],
)
def test_constants_on_either_side(f: Callable[[Value], Value], slope: float) -> None:
    x = Value(3.0)
    f(x).backward()
    assert x.grad == slope


def test_value_to_a_value_power_is_refused() -> None:
    with pytest.raises(TypeError, match="exponent"):
        Value(2.0) ** Value(3.0)  # type: ignore[operator]  # refused on purpose


@pytest.mark.parametrize("x0", [0.0, -1.0, -1e-300])
def test_log_of_non_positive_number_is_refused(x0: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        Value(x0).log()


def test_repr() -> None:
    assert repr(Value(2)) == "Value(2.0, grad=0.0)"


def test_graph_links() -> None:
    x = Value(5.0)
    y = x * 3
    assert y._op == "*"
    assert len(y._prev) == 2
    assert y._prev[0] is x
    constant = y._prev[1]
    assert isinstance(constant, Value)
    assert constant.data == 3.0
    assert constant._prev == ()
    assert x._prev == () and x._op == ""
