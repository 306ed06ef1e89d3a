"""The finished pieces' arithmetic of Part III, on flat lists of floats: what a sweep compares a learner's piece with.

Each function computes what the finished piece in ``ember/`` computes, number for number and in
the same order of adding, with positions worked out by :mod:`labs.checking.oracle` (NumPy's rule),
never by the learner's code. ``tests/test_sweep.py`` holds each one to the finished piece on the
sweeps' own inputs. A refusal is a :class:`Refused` naming the error the finished piece raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from labs.checking.oracle import Flat, Shape, size, stretched


@dataclass(frozen=True)
class Refused:
    """The finished piece refuses this input; a piece may refuse it with an error of any of these kinds."""

    errors: tuple[str, ...]  # ('IndexError',), ('IndexError', 'ValueError')


def common_shape(a: Shape, b: Shape) -> Shape | None:
    """The shape two shapes broadcast to (NumPy's rule: a 1 stretches, even to 0), or None when they do not fit."""
    n = max(len(a), len(b))
    pairs = list(zip((1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)))
    if any(x != y and 1 not in (x, y) for x, y in pairs):
        return None
    return tuple(y if x == 1 else x for x, y in pairs)


def unbroadcast(grad: Flat, shape: Shape, to: Shape) -> Flat:
    """A gradient of ``shape`` summed back onto ``to``, each number added in the order of the gradient."""
    if shape == to:
        return list(grad)
    total = [0.0] * size(to)
    for g, i in zip(grad, stretched(to, shape)):
        total[i] += g
    return total


Partial = Callable[[float, float], float]


def binary(a: Flat, a_shape: Shape, b: Flat, b_shape: Shape, f: Partial, da: Partial, db: Partial,
           seed: Flat) -> tuple[Flat, Shape, Flat, Flat]:
    """f on the stretched numbers of a and b; with ``seed`` as out.grad, each side's gradient summed back."""
    shape = common_shape(a_shape, b_shape)
    assert shape is not None
    xs = [a[i] for i in stretched(a_shape, shape)]
    ys = [b[j] for j in stretched(b_shape, shape)]
    data = [f(x, y) for x, y in zip(xs, ys)]
    ga = [g * da(x, y) for g, x, y in zip(seed, xs, ys)]
    gb = [g * db(x, y) for g, x, y in zip(seed, xs, ys)]
    return data, shape, unbroadcast(ga, shape, a_shape), unbroadcast(gb, shape, b_shape)


def summed_shape(shape: Shape, axis: int | None, keepdims: bool) -> Shape:
    """The shape of x.sum(axis, keepdims) for x of this shape."""
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    axis %= len(shape)
    return shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]


def sum_along(flat: Flat, shape: Shape, axis: int | None, seed: Flat) -> tuple[Flat, Flat]:
    """x.sum(axis)'s numbers (math.fsum for every number, else added in order along the axis), and x's gradient
    with ``seed`` as out.grad."""
    if axis is None:
        return [math.fsum(flat)], [seed[0]] * len(flat)
    axis %= len(shape)
    outer, n, inner = size(shape[:axis]), shape[axis], size(shape[axis + 1:])
    data = [0.0] * (outer * inner)
    grad = [0.0] * len(flat)
    for o in range(outer):
        for j in range(n):
            for i in range(inner):
                data[o * inner + i] += flat[(o * n + j) * inner + i]
                grad[(o * n + j) * inner + i] = seed[o * inner + i]
    return data, grad


def matmul(a: Flat, b: Flat, n: int, k: int, m: int, seed: Flat) -> tuple[Flat, Flat, Flat]:
    """(n, k) @ (k, m): the product's numbers, then a's gradient G bᵀ and b's aᵀ G, with G = ``seed``."""
    data = [sum(a[i * k + t] * b[t * m + j] for t in range(k)) for i in range(n) for j in range(m)]
    grad_a = [sum(seed[i * m + j] * b[t * m + j] for j in range(m)) for i in range(n) for t in range(k)]
    grad_b = [sum(a[i * k + t] * seed[i * m + j] for i in range(n)) for t in range(k) for j in range(m)]
    return [float(x) for x in data], [float(x) for x in grad_a], [float(x) for x in grad_b]


def rows(table: Flat, n: int, m: int, indices: Sequence[int], seed: Flat) -> tuple[Flat, Flat] | Refused:
    """The picked rows of an (n, m) table (negative indices count from the end), and the table's gradient with
    ``seed`` as out.grad: each pick's gradient added into its row, in the order of the picks."""
    if any(not -n <= i < n for i in indices):
        return Refused(("IndexError",))
    picked = [i % n for i in indices]
    data = [x for i in picked for x in table[i * m:(i + 1) * m]]
    grad = [0.0] * len(table)
    for r, i in enumerate(picked):
        for j in range(m):
            grad[i * m + j] += seed[r * m + j]
    return data, grad


def cross_entropy(logits: Flat, n: int, v: int, targets: Sequence[int],
                  upstream: float) -> tuple[float, Flat] | Refused:
    """The mean over rows of logsumexp(row) − row[target] (each row shifted by its largest logit), and the logits'
    gradient (softmax − one-hot, over n, times ``upstream``)."""
    if len(targets) != n:
        return Refused(("ValueError",))
    if any(not 0 <= t < v for t in targets):
        return Refused(("IndexError", "ValueError"))  # the page asks for an error, of either kind
    probs: Flat = []
    total = 0.0
    for r, t in enumerate(targets):
        row = logits[r * v:(r + 1) * v]
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        s = sum(exps)
        total += top + math.log(s) - row[t]
        probs.extend(e / s for e in exps)
    scale = upstream / n
    grad = [p * scale for p in probs]
    for r, t in enumerate(targets):
        grad[r * v + t] -= scale
    return total / n, grad
