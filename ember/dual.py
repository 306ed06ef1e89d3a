"""Dual numbers: a value that carries its derivative through every operation (forward mode).

A ``Dual(value, deriv)`` stands for value + deriv·ε, where ε is so small that ε² = 0.
Each operation applies its rule of slopes to ``deriv`` while it computes ``value``.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _lift(x: Dual | float) -> Dual:
    """A plain number as a Dual whose derivative is 0 (a constant does not move)."""
    return x if isinstance(x, Dual) else Dual(x)


class Dual:
    """A number and its derivative with respect to one chosen input."""

    __slots__ = ("deriv", "value")

    # --- gap L05.init ---
    def __init__(self, value: float, deriv: float = 0.0) -> None:
        self.value = float(value)
        self.deriv = float(deriv)

    def __repr__(self) -> str:
        return f"Dual({self.value}, deriv={self.deriv})"
    # --- end gap ---

    # --- gap L05.add_mul ---
    def __add__(self, other: Dual | float) -> Dual:
        other = _lift(other)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __mul__(self, other: Dual | float) -> Dual:
        other = _lift(other)
        return Dual(self.value * other.value, self.deriv * other.value + self.value * other.deriv)
    # --- end gap ---

    # --- gap L05.more ---
    def __neg__(self) -> Dual:
        return Dual(-self.value, -self.deriv)

    def __sub__(self, other: Dual | float) -> Dual:
        return self + -_lift(other)

    def __truediv__(self, other: Dual | float) -> Dual:
        other = _lift(other)
        deriv = (self.deriv * other.value - self.value * other.deriv) / other.value**2
        return Dual(self.value / other.value, deriv)

    def __pow__(self, k: float) -> Dual:
        if not isinstance(k, (int, float)):
            raise TypeError(f"Dual ** {type(k).__name__}: the exponent must be a plain number")
        return Dual(self.value**k, k * self.value ** (k - 1) * self.deriv)
    # --- end gap ---

    # --- gap L05.reflected ---
    def __radd__(self, other: float) -> Dual:
        return _lift(other) + self

    def __rsub__(self, other: float) -> Dual:
        return _lift(other) - self

    def __rmul__(self, other: float) -> Dual:
        return _lift(other) * self

    def __rtruediv__(self, other: float) -> Dual:
        return _lift(other) / self
    # --- end gap ---

    # --- gap L05.functions ---
    def exp(self) -> Dual:
        e = math.exp(self.value)
        return Dual(e, e * self.deriv)

    def log(self) -> Dual:
        return Dual(math.log(self.value), self.deriv / self.value)

    def tanh(self) -> Dual:
        t = math.tanh(self.value)
        return Dual(t, (1 - t * t) * self.deriv)

    def relu(self) -> Dual:
        if self.value > 0:
            return Dual(self.value, self.deriv)
        return Dual(0.0, 0.0)
    # --- end gap ---


# --- gap L05.derivative ---
def derivative(f: Callable[[Dual], Dual], x: float) -> float:
    """df/dx at x in one pass: seed the input's derivative with 1 and read the output's."""
    return f(Dual(x, 1.0)).deriv
# --- end gap ---
