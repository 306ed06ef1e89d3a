"""ember: a number that remembers how it was made and sends gradients back.

Every piece you write in the course sits between a ``# --- gap ID ---`` line and
the ``# --- end gap ---`` line after it. This file holds the finished pieces.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _no_backward() -> None:
    """The backward step of a leaf: there is nothing further back to send to."""


def _needs_backward(out: Value, gap: str) -> Callable[[], None]:
    """The backward step of a forward-only form: it says which gap will give it a real one."""

    def _backward() -> None:
        raise NotImplementedError(f"'{out._op}' has no backward step yet: gap {gap} gives it one")
    return _backward


class Value:
    """A number in a computation graph, with the gradient of the output with respect to it."""

    __slots__ = ("_backward", "_op", "_prev", "data", "grad", "label")

    # --- gap L07.init ---
    def __init__(self, data: float, _prev: tuple[Value, ...] = (), _op: str = "", label: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self._prev = _prev
        self._op = _op
        self._backward: Callable[[], None] = _no_backward
        self.label = label
    # --- end gap ---

    # --- gap L07.repr ---
    def __repr__(self) -> str:
        return f"Value({self.data}, grad={self.grad})"
    # --- end gap ---

    def __add__(self, other: Value | float) -> Value:
        """self + other; a plain number is wrapped in a leaf first."""
        # --- gap L07.add ---
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")
        # --- end gap ---

        # --- gap L09.add_backward ---
        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        # --- end gap ---
        return out

    def __mul__(self, other: Value | float) -> Value:
        """self * other; a plain number is wrapped in a leaf first."""
        # --- gap L07.mul ---
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")
        # --- end gap ---

        # --- gap L09.mul_backward ---
        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        # --- end gap ---
        return out

    # --- gap L09.neg ---
    def __neg__(self) -> Value:
        return self * -1
    # --- end gap ---

    # --- gap L09.sub ---
    def __sub__(self, other: Value | float) -> Value:
        return self + (-other)
    # --- end gap ---

    # --- gap L09.rsub ---
    def __rsub__(self, other: float) -> Value:
        return Value(other) + (-self)
    # --- end gap ---

    # --- gap L09.radd ---
    def __radd__(self, other: float) -> Value:
        return Value(other) + self
    # --- end gap ---

    # --- gap L09.rmul ---
    def __rmul__(self, other: float) -> Value:
        return Value(other) * self
    # --- end gap ---

    # --- gap L11.pow ---
    def __pow__(self, k: float) -> Value:
        if not isinstance(k, (int, float)):
            raise TypeError(f"Value ** {type(k).__name__}: the exponent must be a plain number")
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward() -> None:
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L11.truediv ---
    def __truediv__(self, other: Value | float) -> Value:
        return self * other**-1
    # --- end gap ---

    # --- gap L11.rtruediv ---
    def __rtruediv__(self, other: float) -> Value:
        return Value(other) * self**-1
    # --- end gap ---

    # --- gap L11.exp ---
    def exp(self) -> Value:
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L11.log ---
    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"log needs a positive number, got {self.data}")
        out = Value(math.log(self.data), (self,), "log")

        def _backward() -> None:
            self.grad += out.grad / self.data
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L11.tanh ---
    def tanh(self) -> Value:
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward() -> None:
            self.grad += (1.0 - out.data * out.data) * out.grad
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L11.relu ---
    def relu(self) -> Value:
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def _backward() -> None:
            if self.data > 0:
                self.grad += out.grad
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L13.sigmoid ---
    def sigmoid(self) -> Value:
        x = self.data
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1.0 + e)
        out = Value(s, (self,), "sigmoid")

        def _backward() -> None:
            self.grad += s * (1.0 - s) * out.grad
        out._backward = _backward
        return out
    # --- end gap ---

    # --- gap L10.backward ---
    def backward(self) -> None:
        """Send gradients from this output back to every Value it was made from."""
        order: list[Value] = []
        seen: set[Value] = set()
        stack: list[tuple[Value, bool]] = [(self, False)]
        while stack:
            node, parents_done = stack.pop()
            if parents_done:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                for parent in node._prev:
                    if parent not in seen:
                        stack.append((parent, False))
        for node in order:
            if node._prev:
                node.grad = 0.0  # results start fresh each pass; leaves keep accumulating
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
    # --- end gap ---


# --- gap L11.checker ---
def numeric_slope(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    """Estimate df/dx at x by nudging x by h both ways (a central difference)."""
    return (f(x + h) - f(x - h)) / (2 * h)


def gradient_check(f: Callable[[Value], Value], x: float, rel_tol: float = 1e-5) -> bool:
    """True when backward's slope of f at x agrees with the nudged slope."""
    v = Value(x)
    f(v).backward()
    nudged = numeric_slope(lambda t: f(Value(t)).data, x)
    return math.isclose(v.grad, nudged, rel_tol=rel_tol, abs_tol=rel_tol)
# --- end gap ---
