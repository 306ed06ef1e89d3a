"""ember: many numbers in one node, with the same backward walk as Value.

A Tensor keeps its numbers in one flat list, row by row (``.data``), and says how
to read them with ``.shape``. Its gradient ``.grad`` is a flat list of the same
length. Each operation makes a new Tensor that remembers its parents and a backward
rule: given the output, the rule returns one gradient per parent, and ``backward()``
adds those into the parents' ``.grad``. The rule is handed the output rather than
holding on to it, so a finished graph is freed as soon as nothing refers to it.

The shape helpers (``size``, ``flatten``, ``nest``, ``broadcast_index``, ``expand``,
``broadcast_shape``, ``unbroadcast``) live in ``ember/shapes.py``. Every one of them is
imported here, so the code of any gap in this file can use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import add, mul

from ember.graph import toposort
from ember.shapes import Shape, broadcast_index, broadcast_shape, expand, flatten, nest, size, unbroadcast  # noqa: F401

Grads = tuple[list[float], ...]
Rule = Callable[["Tensor"], Grads]


class Tensor:
    """Numbers with a shape in a computation graph, with the gradient of the output with respect to each."""

    __slots__ = ("__weakref__", "_backward", "_op", "_parents", "data", "grad", "label", "shape")

    def __init__(self, data: object, label: str = "") -> None:
        self.data, self.shape = flatten(data)
        self.grad = [0.0] * len(self.data)
        self._parents: tuple[Tensor, ...] = ()
        self._backward: Rule | None = None
        self._op = ""
        self.label = label

    def __del__(self) -> None:
        """Let go of this tensor's graph one tensor at a time (see the end of the file)."""
        let_go(self)

    @classmethod
    def made(cls, data: list[float], shape: Shape, parents: tuple[Tensor, ...], op: str, rule: Rule) -> Tensor:
        """A result of operation ``op``: its flat data, shape, parents and backward rule."""
        out = cls.__new__(cls)
        out.data, out.shape, out.grad = data, shape, [0.0] * len(data)
        out._parents, out._backward, out._op, out.label = parents, rule, op, ""
        return out

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape}, data={self.tolist()})"

    def tolist(self) -> object:
        """The numbers as nested lists, row by row (a float for shape ())."""
        return nest(self.data, self.shape)

    def item(self) -> float:
        """The one number of a one-element tensor."""
        if len(self.data) != 1:
            raise ValueError(f".item() needs a tensor with one number; this one has shape {self.shape}")
        return self.data[0]

    # --- gap L14.unary ---
    def unary(self, op: str, f: Callable[[float], float],
              slope: Callable[[float, float], float]) -> Tensor:
        """f applied to every number; ``slope(x, y)`` is f's derivative at x, y = f(x)."""
        data = [f(x) for x in self.data]

        def rule(out: Tensor) -> Grads:
            xs, ys = self.data, out.data
            return ([g * slope(x, y) for g, x, y in zip(out.grad, xs, ys)],)
        return Tensor.made(data, self.shape, (self,), op, rule)
    # --- end gap ---

    # --- gap L15.binary ---
    def binary(self, other: Tensor | float, op: str, f: Callable[[float, float], float],
            da: Callable[[float, float], float], db: Callable[[float, float], float]) -> Tensor:
        """f applied to matching numbers of two tensors, broadcast; ``da``/``db`` are f's partials at (a, b)."""
        other = as_tensor(other)
        try:
            shape = broadcast_shape(self.shape, other.shape)
        except ValueError as error:
            raise ValueError(f"'{op}': {error}") from None
        a = expand(self.data, self.shape, shape)
        b = expand(other.data, other.shape, shape)
        data = [f(x, y) for x, y in zip(a, b)]

        def rule(out: Tensor) -> Grads:
            ga = [g * da(x, y) for g, x, y in zip(out.grad, a, b)]
            gb = [g * db(x, y) for g, x, y in zip(out.grad, a, b)]
            return unbroadcast(ga, shape, self.shape), unbroadcast(gb, shape, other.shape)
        return Tensor.made(data, shape, (self, other), op, rule)
    # --- end gap ---

    def __add__(self, other: Tensor | float) -> Tensor:
        return self.binary(other, "+", lambda a, b: a + b, lambda a, b: 1.0, lambda a, b: 1.0)

    def __mul__(self, other: Tensor | float) -> Tensor:
        return self.binary(other, "*", lambda a, b: a * b, lambda a, b: b, lambda a, b: a)

    def __sub__(self, other: Tensor | float) -> Tensor:
        return self.binary(other, "-", lambda a, b: a - b, lambda a, b: 1.0, lambda a, b: -1.0)

    def __truediv__(self, other: Tensor | float) -> Tensor:
        return self.binary(other, "/", lambda a, b: a / b, lambda a, b: 1.0 / b, lambda a, b: -a / (b * b))

    def __radd__(self, other: float) -> Tensor:
        return as_tensor(other) + self

    def __rmul__(self, other: float) -> Tensor:
        return as_tensor(other) * self

    def __rsub__(self, other: float) -> Tensor:
        return as_tensor(other) - self

    def __rtruediv__(self, other: float) -> Tensor:
        return as_tensor(other) / self

    def __neg__(self) -> Tensor:
        return self.unary("neg", lambda x: -x, lambda x, y: -1.0)

    def __pow__(self, k: float) -> Tensor:
        return self.unary(f"**{k}", lambda x: x**k, lambda x, y: k * x ** (k - 1))

    def exp(self) -> Tensor:
        return self.unary("exp", math.exp, lambda x, y: y)

    def log(self) -> Tensor:
        return self.unary("log", math.log, lambda x, y: 1.0 / x)

    def tanh(self) -> Tensor:
        return self.unary("tanh", math.tanh, lambda x, y: 1.0 - y * y)

    def relu(self) -> Tensor:
        return self.unary("relu", lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0)

    # --- gap L16.sum ---
    def sum(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """The sum of every number (axis None), or along one axis; keepdims leaves that axis as 1."""
        shape = self.shape
        if axis is None:
            out_shape = tuple(1 for _ in shape) if keepdims else ()

            def rule_all(out: Tensor) -> Grads:
                return ([out.grad[0]] * len(self.data),)
            return Tensor.made([math.fsum(self.data)], out_shape, (self,), "sum", rule_all)
        if not -len(shape) <= axis < len(shape):
            raise ValueError(f"sum(axis={axis}) of a tensor of shape {shape}: there is no such axis")
        axis %= len(shape)
        outer, n, inner = size(shape[:axis]), shape[axis], size(shape[axis + 1:])
        data = [0.0] * (outer * inner)
        for o in range(outer):
            for j in range(n):
                start = (o * n + j) * inner
                for i in range(inner):
                    data[o * inner + i] += self.data[start + i]
        out_shape = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]

        def rule(out: Tensor) -> Grads:
            grad = [0.0] * len(self.data)
            for o in range(outer):
                for j in range(n):
                    start = (o * n + j) * inner
                    grad[start:start + inner] = out.grad[o * inner:(o + 1) * inner]
            return (grad,)
        return Tensor.made(data, out_shape, (self,), "sum", rule)
    # --- end gap ---

    def mean(self) -> Tensor:
        """The mean of every number."""
        return self.sum() / len(self.data)

    # --- gap L16.matmul ---
    def __matmul__(self, other: Tensor) -> Tensor:
        """The matrix product of (n, k) and (k, m): every row of self dotted with every column of other."""
        if len(self.shape) != 2 or len(other.shape) != 2 or self.shape[1] != other.shape[0]:
            raise ValueError(f"@ needs shapes (n, k) and (k, m): got {self.shape} @ {other.shape}")
        (n, k), m = self.shape, other.shape[1]
        a_rows = [self.data[i * k:(i + 1) * k] for i in range(n)]
        b_cols = [other.data[j::m] for j in range(m)]
        data = [sum(map(mul, row, col)) for row in a_rows for col in b_cols]

        def rule(out: Tensor) -> Grads:
            g_rows = [out.grad[i * m:(i + 1) * m] for i in range(n)]
            b_rows = [other.data[j * m:(j + 1) * m] for j in range(k)]  # rows of other = columns of otherᵀ
            a_cols = [self.data[j::k] for j in range(k)]  # columns of self = rows of selfᵀ
            grad_a = [sum(map(mul, g, b)) for g in g_rows for b in b_rows]  # G @ otherᵀ
            g_cols = [out.grad[j::m] for j in range(m)]
            grad_b = [sum(map(mul, a, g)) for a in a_cols for g in g_cols]  # selfᵀ @ G
            return grad_a, grad_b
        return Tensor.made(data, (n, m), (self, other), "@", rule)
    # --- end gap ---

    # --- gap L16.rows ---
    def rows(self, indices: Sequence[int]) -> Tensor:
        """The rows of a 2-D tensor picked by index, in order; a row picked twice gets both gradients."""
        if len(self.shape) != 2:
            raise ValueError(f"rows() needs a 2-D tensor; this one has shape {self.shape}")
        n, m = self.shape
        picked = []  # a new list: the caller's indices stay as they were
        for i in indices:
            if not -n <= i < n:
                raise IndexError(f"row {i} of a tensor with {n} rows")
            picked.append(i % n)  # a negative index counts from the end, as in a list
        data = [x for i in picked for x in self.data[i * m:(i + 1) * m]]

        def rule(out: Tensor) -> Grads:
            grad = [0.0] * len(self.data)
            for r, i in enumerate(picked):
                start = i * m
                for j in range(m):
                    grad[start + j] += out.grad[r * m + j]
            return (grad,)
        return Tensor.made(data, (len(picked), m), (self,), "rows", rule)
    # --- end gap ---

    # --- gap L17.cross_entropy ---
    def cross_entropy(self, targets: Sequence[int]) -> Tensor:
        """The mean over rows of logsumexp(row) - row[target], as one operation (logits of shape (n, v))."""
        if len(self.shape) != 2 or len(targets) != self.shape[0]:
            raise ValueError(
                f"cross_entropy needs logits of shape (n, v) and n targets: got {self.shape} and {len(targets)} targets"
            )
        n, v = self.shape
        targets = list(targets)
        for t in targets:
            if not 0 <= t < v:
                raise IndexError(f"target {t} is not a column of logits with {v} columns")
        probs: list[float] = []
        total = 0.0
        for r, t in enumerate(targets):
            row = self.data[r * v:(r + 1) * v]
            top = max(row)
            exps = [math.exp(x - top) for x in row]
            s = sum(exps)
            total += top + math.log(s) - row[t]
            probs.extend(e / s for e in exps)

        def rule(out: Tensor) -> Grads:
            scale = out.grad[0] / n
            grad = [p * scale for p in probs]
            for r, t in enumerate(targets):
                grad[r * v + t] -= scale
            return (grad,)
        return Tensor.made([total / n], (), (self,), "cross_entropy", rule)
    # --- end gap ---

    # --- gap L14.backward ---
    def backward(self) -> None:
        """From this one-number output, send gradients back to every tensor it came from."""
        if len(self.data) != 1:
            raise ValueError("backward() starts from a tensor with one number; "
                             f"this one has shape {self.shape}")
        order = toposort(self, lambda t: t._parents)
        for node in order:
            if node._parents:  # results start fresh each pass; leaves keep adding up
                node.grad = [0.0] * len(node.data)
        self.grad = [1.0]
        for node in order:
            if node._backward is None:
                continue
            for parent, grad in zip(node._parents, node._backward(node)):
                check_grad(node, parent, grad)
                parent.grad = list(map(add, parent.grad, grad))
    # --- end gap ---


def check_grad(node: Tensor, parent: Tensor, grad: list[float]) -> None:
    """Refuse a rule's gradient whose length does not match the parent it is meant for."""
    if len(grad) != len(parent.data):
        raise ValueError(
            f"the backward rule of '{node._op}' (output shape {node.shape}) "
            f"gave {len(grad)} numbers for a parent of shape {parent.shape}, "
            f"which holds {len(parent.data)}: "
            "a gradient has the shape of the tensor it belongs to"
        )


def as_tensor(x: Tensor | float) -> Tensor:
    """A Tensor as it is, a plain number as a Tensor of shape ()."""
    return x if isinstance(x, Tensor) else Tensor(x)


# --- Memory: not part of the lessons ------------------------------------------------
# How a freed graph is let go without deep recursion. Nothing in the lessons asks you to read it.

_LET_GO: list[object] = []  # the links of freed tensors, waiting to be let go one at a time
_letting_go = False


def let_go(tensor: Tensor) -> None:
    """Let go of a freed tensor's parents and rule one tensor at a time, never nested.

    Without this, freeing the output of a 5,000-step chain frees its parent while it is being
    freed, and that parent its own parent, 5,000 calls deep: more than the browser's stack holds.
    """
    global _letting_go
    _LET_GO.append((getattr(tensor, "_parents", None), getattr(tensor, "_backward", None)))
    tensor._parents, tensor._backward = (), None  # the list above now holds the only links
    if _letting_go:
        return  # an outer call is already letting go, in a flat loop
    _letting_go = True
    try:
        while _LET_GO:
            _LET_GO.pop()
    finally:
        _letting_go = False
