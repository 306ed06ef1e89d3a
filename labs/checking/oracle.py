"""The scalar oracle of Part III: a tensor computation spelled out number by number in the learner's Values.

Part III's claims ask the learner's ``Tensor`` for a result and its gradients, then do the same
computation one number at a time with the learner's own ``Value`` (lessons 07 to 11) and compare.
Positions are worked out here, by the NumPy rule, never by the learner's tensor code.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from labs.checking.claimkit import Env, Fail, show

Shape = tuple[int, ...]
Flat = list[float]


def size(shape: Shape) -> int:
    """How many numbers a tensor of this shape holds."""
    return math.prod(shape)


def nested(flat: Sequence[Any], shape: Shape) -> Any:
    """A flat row-major list as the nested lists a Tensor is made from (the number itself for shape ())."""
    if not shape:
        return flat[0]
    step = size(shape[1:])
    if len(shape) == 1:
        return list(flat)
    return [nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def numbers(shape: Shape, seed: int, low: float = -2.0, high: float = 2.0) -> Flat:
    """Reproducible numbers for a tensor of this shape, rounded to 3 places so messages stay short."""
    rng = random.Random(seed)
    return [round(rng.uniform(low, high), 3) for _ in range(size(shape))]


def stretched(shape: Shape, to: Shape) -> list[int]:
    """For each position of shape ``to`` (row-major), the position it reads in shape ``shape``, by NumPy's rule."""
    padded = (1,) * (len(to) - len(shape)) + tuple(shape)
    reads = []
    for k in range(size(to)):
        rest, index, stride = k, 0, 1
        for n, m in zip(reversed(padded), reversed(to)):
            position = rest % m
            rest //= m
            index += (0 if n == 1 else position) * stride
            stride *= n
        reads.append(index)
    return reads


def leaves(env: Env, flat: Flat) -> list[Any]:
    """One leaf Value of the learner's per number."""
    return [env.Value(x) for x in flat]


def total(values: Sequence[Any]) -> Any:
    """The sum of Values, added one by one."""
    result = values[0]
    for v in values[1:]:
        result = result + v
    return result


def by_values(env: Env, build: Callable[..., Any], *inputs: Flat) -> tuple[float, list[Flat]]:
    """Run ``build`` on lists of leaf Values, one list per input; it returns one Value. Answer its number, grads."""
    made = [leaves(env, flat) for flat in inputs]
    out = build(*made)
    out.backward()
    return out.data, [[v.grad for v in vs] for vs in made]


def by_tensors(env: Env, build: Callable[..., Any], *inputs: tuple[Flat, Shape]) -> tuple[float, list[Flat]]:
    """Run ``build`` on learner Tensors made from (flat, shape) pairs, to a one-number Tensor. Answer it, and grads."""
    made = [env.tensor.Tensor(nested(flat, shape)) for flat, shape in inputs]
    out = build(*made)
    out.backward()
    return out.item(), [list(t.grad) for t in made]


def rule_grads(out: Any, seed: Flat) -> list[Flat]:
    """Call a result's backward rule by hand with ``seed`` as its gradient; answer one gradient per parent."""
    out.grad = list(seed)
    return [list(g) for g in out._backward(out)]


def seed_kept(out: Any, seed: Flat, op: str | None = None) -> None:
    """After a rule was called by hand with ``seed``: Fail("changed_grad") if it left out.grad otherwise."""
    if list(out.grad) != list(seed):
        raise Fail("changed_grad", op=op or str(out._op), seed=show(list(seed)), got=show(list(out.grad)))


def agree(got: Sequence[float], expected: Sequence[float], tol: float = 1e-9) -> bool:
    """Same length, and equal number by number to ``tol`` (relative, or absolute near zero)."""
    try:
        return len(got) == len(expected) and all(
            math.isclose(float(g), e, rel_tol=tol, abs_tol=tol) for g, e in zip(got, expected)
        )
    except (TypeError, ValueError):
        return False


def names_shape(text: str, shape: Shape) -> bool:
    """Whether an error message names a shape: as a tuple or a list ((2, 3), [2, 3], (3,)), with x or × between
    its lengths (2x3), or, for a 1-D shape, as its length standing alone (the 4 in '3x2 and 4'). A bracketed form
    is its own boundary; a bare one counts only where no other digit, comma, bracket, x or decimal point joins it:
    12x3 does not name (2, 3), and neither (12, 3) nor 4.5 names (2,) or (4,)."""
    flat = re.sub(r"\s+", "", text).replace(",)", ")").replace(",]", "]")
    lengths = [str(n) for n in shape]
    if any(form in flat for form in ("(" + ",".join(lengths) + ")", "[" + ",".join(lengths) + "]")):
        return True
    bare = ["x".join(lengths), "×".join(lengths)] if len(shape) > 1 else lengths
    edge_before, edge_after = r"(?<![\d,(\[x×])(?<!\d\.)", r"(?![\d,)\]x×])(?!\.\d)"
    return any(re.search(edge_before + form + edge_after, flat) for form in bare)
