"""ember: shapes, and how tensors of different shapes stretch to meet.

A tensor keeps its numbers in one flat list, row by row, and a shape such as ``(3, 4)`` says how
to read them: 3 rows of 4. ``size``, ``flatten`` and ``nest`` go between the two. Broadcasting
stretches a tensor to a larger shape by reading its numbers again and again: ``broadcast_index``
says which number each position reads, and ``expand`` makes the stretched list. ``broadcast_shape``
(the shape two tensors stretch to) and ``unbroadcast`` (a gradient summed back to the shape that
was stretched) are yours to write in lesson 15. ``ember/tensor.py`` imports every one of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Shape = tuple[int, ...]


def size(shape: Shape) -> int:
    """How many numbers a tensor of this shape holds: the product of its axes (1 for ())."""
    return math.prod(shape)


def flatten(data: object, where: str = "") -> tuple[list[float], Shape]:
    """A number or a rectangular nested list, as (flat row-major list of floats, shape).

    A ragged list is refused with the place where it breaks, such as ``data[1][2]``.
    """
    if isinstance(data, (int, float)):
        return [float(data)], ()
    if not isinstance(data, (list, tuple)):
        raise TypeError(f"a Tensor is made from numbers and nested lists; data{where} is a {type(data).__name__}")
    if not data:
        return [], (0,)
    rows = [flatten(item, f"{where}[{i}]") for i, item in enumerate(data)]
    shape = rows[0][1]
    for i, (_, row_shape) in enumerate(rows):
        if row_shape != shape:
            raise ValueError(
                f"ragged nested list: data{where}[{i}] has shape {row_shape} but data{where}[0] has shape {shape}; "
                "every row must have the same length"
            )
    return [x for flat, _ in rows for x in flat], (len(rows), *shape)


def nest(flat: Sequence[float], shape: Shape) -> object:
    """The nested lists a flat row-major list stands for (a float for shape ())."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = size(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def broadcast_index(shape: Shape, to: Shape) -> list[int]:
    """For each position of a tensor of shape ``to``, row by row, the position it reads in one of shape ``shape``.

    ``shape`` must broadcast to ``to``: an axis of length 1 (or a missing leading axis) is read
    again and again along the stretched axis of ``to``.
    """
    padded = (1,) * (len(to) - len(shape)) + tuple(shape)
    strides = [size(padded[axis + 1:]) for axis in range(len(padded))]
    index = [0]
    for n, m, stride in zip(padded, to, strides):
        step = 0 if n == 1 else stride
        index = [i + k * step for i in index for k in range(m)]
    return index


def expand(data: list[float], shape: Shape, to: Shape) -> list[float]:
    """The numbers of a tensor of shape ``shape`` stretched to shape ``to`` (row-major)."""
    if shape == to:
        return data
    return [data[i] for i in broadcast_index(shape, to)]


# --- gap L15.broadcast_shape ---
def broadcast_shape(a: Shape, b: Shape) -> Shape:
    """The shape two tensors stretch to together: align on the right, a 1 (or a missing axis) stretches."""
    n = max(len(a), len(b))
    a1 = (1,) * (n - len(a)) + tuple(a)
    b1 = (1,) * (n - len(b)) + tuple(b)
    shape = []
    for x, y in zip(a1, b1):
        if x != y and x != 1 and y != 1:
            raise ValueError(
                f"shapes {tuple(a)} and {tuple(b)} do not broadcast: axes of {x} and {y} neither match nor are 1"
            )
        shape.append(y if x == 1 else x)  # a 1 stretches to the other length, even to 0
    return tuple(shape)
# --- end gap ---


# --- gap L15.unbroadcast ---
def unbroadcast(grad: list[float], shape: Shape, to: Shape) -> list[float]:
    """A gradient for shape ``shape`` summed down to the shape ``to`` that was stretched to make it."""
    if shape == to:
        return grad
    total = [0.0] * size(to)
    for g, i in zip(grad, broadcast_index(to, shape)):
        total[i] += g
    return total
# --- end gap ---
