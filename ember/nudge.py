"""Derivatives from a function's values alone: nudge an input, watch the output move.

Nothing here knows how ``f`` computes its answer; every slope comes from calling it.
A function of several inputs takes them as one list, ``f([x, y])``. Every piece you
write sits between a ``# --- gap ID ---`` line and the ``# --- end gap ---`` after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

Scalar = Callable[[float], float]
Field = Callable[[list[float]], float]
Map = Callable[[list[float]], Sequence[float]]


# --- gap L01.slope ---
def slope(f: Scalar, x: float, h: float = 1e-6) -> float:
    """Estimate df/dx at x from f(x + h) and f(x - h): the central difference."""
    if h <= 0:
        raise ValueError(f"h must be a positive step, got {h}")
    return (f(x + h) - f(x - h)) / (2 * h)
# --- end gap ---


# --- gap L02.rules ---
def power_slope(x: float, k: float) -> float:
    """The slope of x**k at x: k·x**(k-1)."""
    return k * x ** (k - 1)


def exp_slope(x: float) -> float:
    """The slope of e**x at x: e**x itself."""
    return math.exp(x)


def log_slope(x: float) -> float:
    """The slope of ln x at x: 1/x."""
    return 1 / x


def tanh_slope(x: float) -> float:
    """The slope of tanh x at x: 1 - tanh(x)**2."""
    return 1 - math.tanh(x) ** 2
# --- end gap ---


# --- gap L02.product ---
def product_slope(f: Scalar, f_slope: Scalar, g: Scalar, g_slope: Scalar, x: float) -> float:
    """The slope of f(x)·g(x) at x: f'(x)·g(x) + f(x)·g'(x)."""
    return f_slope(x) * g(x) + f(x) * g_slope(x)
# --- end gap ---


# --- gap L02.chain ---
def chain(steps: Sequence[tuple[Scalar, Scalar]], x: float) -> tuple[float, float]:
    """Run x through (function, slope) steps, innermost first; return the value and its slope dx."""
    value, rate = x, 1.0
    for function, function_slope in steps:
        rate *= function_slope(value)  # the local rate, taken where this step's input is
        value = function(value)
    return value, rate
# --- end gap ---


# --- gap L03.partial ---
def partial(f: Field, xs: Sequence[float], i: int, h: float = 1e-6) -> float:
    """Estimate the slope of f along input i at xs, nudging xs[i] alone (xs is not changed)."""
    up, down = list(xs), list(xs)
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / (2 * h)
# --- end gap ---


# --- gap L03.gradient ---
def gradient(f: Field, xs: Sequence[float], h: float = 1e-6) -> list[float]:
    """Every partial slope of f at xs, as a list: the direction of steepest climb."""
    return [partial(f, xs, i, h) for i in range(len(xs))]
# --- end gap ---


# --- gap L04.jacobian ---
def jacobian_numeric(f: Map, x: Sequence[float], h: float = 1e-6) -> list[list[float]]:
    """The matrix J[i][j] = d f_i / d x_j, one column per nudged input (2n calls of f)."""
    columns = []
    for j in range(len(x)):
        up, down = list(x), list(x)
        up[j] += h
        down[j] -= h
        columns.append([(a - b) / (2 * h) for a, b in zip(f(up), f(down))])
    return [list(row) for row in zip(*columns)]
# --- end gap ---


# --- gap L04.jvp ---
def jvp_numeric(f: Map, x: Sequence[float], v: Sequence[float], h: float = 1e-6) -> list[float]:
    """J·v, how every output moves when x is nudged along v: two calls of f, however many inputs."""
    up = [xi + h * vi for xi, vi in zip(x, v)]
    down = [xi - h * vi for xi, vi in zip(x, v)]
    return [(a - b) / (2 * h) for a, b in zip(f(up), f(down))]
# --- end gap ---


# --- gap L04.vjp ---
def vjp_numeric(f: Map, x: Sequence[float], u: Sequence[float], h: float = 1e-6) -> list[float]:
    """uᵀ·J, the gradient of the weighted sum u·f(x): every input nudged, so 2n calls of f."""
    return gradient(lambda p: sum(ui * fi for ui, fi in zip(u, f(p))), x, h)
# --- end gap ---
