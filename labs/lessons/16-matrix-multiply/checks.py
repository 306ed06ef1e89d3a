"""Checks of lesson 16, Matrix multiply is many dot products: sum along an axis, a @ b, rows().

Every result and every gradient is compared with the same computation spelled out number by
number in the learner's own ``Value``s; positions are worked out here, never by the learner's
tensor code. The backward rules are called by hand with an upstream gradient that is not all
ones, so a rule that drops ``out.grad`` or reads it at the wrong place shows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from labs.checking import references, sweep
from labs.checking.by_hand import lazy_form
from labs.checking.claimkit import Env, Fail, claim, show
from labs.checking.cost import GROWTH, Growth, Own, Tally, Work, helpers_counted, tallied
from labs.checking.oracle import (
    Flat,
    Shape,
    agree,
    leaves,
    names_shape,
    nested,
    numbers,
    seed_kept,
    size,
    total,
)

# --- positions, by the checker's own arithmetic ---------------------------------------------------


def unravel(p: int, shape: Shape) -> tuple[int, ...]:
    """The index (one number per axis) of flat position p in a row-major tensor of this shape."""
    index = []
    for n in reversed(shape):
        p, i = divmod(p, n)
        index.append(i)
    return tuple(reversed(index))


def ravel(index: Sequence[int], shape: Shape) -> int:
    """The flat row-major position of an index."""
    p = 0
    for i, n in zip(index, shape):
        p = p * n + i
    return p


def summed_shape(shape: Shape, axis: int | None, keepdims: bool) -> Shape:
    """The shape NumPy gives x.sum(axis, keepdims) for x of this shape."""
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    axis %= len(shape)
    return shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]


def summed_groups(shape: Shape, axis: int | None) -> list[list[int]]:
    """For each output number of x.sum(axis), row by row, the flat positions of x that add into it."""
    if axis is None:
        return [list(range(size(shape)))]
    axis %= len(shape)
    kept = shape[:axis] + shape[axis + 1:]
    groups: list[list[int]] = [[] for _ in range(size(kept))]
    for p in range(size(shape)):
        index = unravel(p, shape)
        groups[ravel(index[:axis] + index[axis + 1:], kept)].append(p)
    return groups


def tensor(env: Env, flat: Flat, shape: Shape) -> Any:
    """A learner Tensor holding these numbers."""
    return env.tensor.Tensor(nested(flat, shape))


def shape_of(t: Any) -> Any:
    """A result's shape as a tuple when it is a sequence of ints (so (2,) and [2] compare alike)."""
    try:
        return tuple(t.shape)
    except TypeError:
        return t.shape


def grads_by_parent(out: Any, seed: Flat, *inputs: Any) -> list[Flat | None]:
    """Call out's backward rule with ``seed`` as out.grad; the gradient it gives each input (None: none given).
    Fail("lazy") when the rule hands back a generator where a list belongs."""
    out.grad = list(seed)
    raw = out._backward(out)  # called once, as rule_grads would, so that a rule with side effects is seen once
    what = lazy_form(raw)
    if what:
        raise Fail("lazy", op=str(out._op), what=what)
    given = [list(g) for g in raw]
    found: list[Flat | None] = [None] * len(inputs)
    for parent, grad in zip(out._parents, given):
        for k, t in enumerate(inputs):
            if parent is t and found[k] is None:
                found[k] = grad
    return found


def unlinked(out: Any, **inputs: Any) -> str | None:
    """What keeps backward() from reaching the named inputs through ``out``, if anything."""
    if not callable(getattr(out, "_backward", None)):
        return "has no backward rule (its _backward is None)"
    parents = tuple(getattr(out, "_parents", ()) or ())
    missing = [name for name, t in inputs.items() if not any(p is t for p in parents)]
    if missing:
        return f"does not list {' and '.join(missing)} among its parents"
    return None


def listed(flat: Flat | None, shape: Shape | None = None) -> str:
    """Numbers for a message: nested in ``shape`` when they fill it, else flat; a word when there are none."""
    if flat is None:
        return "no gradient at all"
    numbers_ = [float(x) for x in flat]
    if shape is not None and len(numbers_) == size(shape):
        return show(nested(numbers_, shape))
    return show(numbers_)


def result_numbers(t: Any) -> str:
    """A result's numbers for a message, nested by its own shape when that shape fits them."""
    shape = shape_of(t)
    fits = isinstance(shape, tuple) and all(isinstance(n, int) for n in shape)
    return listed(list(t.data), shape if fits else None)


def nudged(flat: Sequence[float], shape: Shape) -> str:
    """Numbers measured by nudging, to six decimals (their last digits are rounding noise)."""
    return listed([round(float(x), 6) + 0.0 for x in flat], shape)


# --- sum along an axis ------------------------------------------------------------------------------

# (shape, axis, keepdims): each negative axis comes after its positive twin, so a piece that only
# fails for the negative one is told about negative axes.
SUM_CASES: list[tuple[Shape, int, bool]] = [  # each sums along one axis
    ((2, 3), 0, False), ((2, 3), 1, False), ((2, 3), 0, True), ((2, 3), 1, True),
    ((2, 3, 2), 1, False), ((2, 3, 2), 2, True), ((2, 3, 2), 0, False),
    ((2, 3), -1, False), ((2, 3), -2, True), ((2, 3, 2), -1, True), ((2, 3, 2), -3, False),
]


def call_of(axis: int | None, keepdims: bool) -> str:
    """How the learner would write the call."""
    return f"x.sum(axis={axis}, keepdims={keepdims})"


def summed_values(env: Env, flat: Flat, shape: Shape, axis: int | None) -> Flat:
    """x.sum(axis) spelled out in the learner's Values: each output is the total of its group."""
    vs = leaves(env, flat)
    return [float(total([vs[p] for p in group]).data) for group in summed_groups(shape, axis)]


def other_axis(env: Env, flat: Flat, shape: Shape, axis: int, keepdims: bool, got: Any) -> int | None:
    """The other axis whose sum the learner's result matches in shape and numbers, if any."""
    for other in range(len(shape)):
        if other == axis % len(shape):
            continue
        if shape_of(got) == summed_shape(shape, other, keepdims) and agree(
                got.data, summed_values(env, flat, shape, other)):
            return other
    return None


def by_parts(flat: Flat, outer: int, n: int, inner: int) -> Flat | None:
    """What a sum along an axis computes with these outer, n and inner (None where it would read past x)."""
    if (outer * n * inner) > len(flat):
        return None
    out = [0.0] * (outer * inner)
    for o in range(outer):
        for j in range(n):
            for i in range(inner):
                out[o * inner + i] += flat[(o * n + j) * inner + i]
    return out


def rule_by_parts(seed: Flat, size_x: int, outer: int, n: int, inner: int) -> Flat | None:
    """What the rule of a sum along an axis gives x with these outer, n and inner (None where it would read past
    out.grad or write past x)."""
    if outer * n * inner > size_x or outer * inner > len(seed):
        return None
    grad = [0.0] * size_x
    for o in range(outer):
        for j in range(n):
            for i in range(inner):
                grad[(o * n + j) * inner + i] = seed[o * inner + i]
    return grad


def next_axis_only(shape: Shape, axis: int) -> list[tuple[str, int, int, int, int]]:
    """(which, wrong length, right length, outer, inner) for outer or inner taken as one neighbouring axis's length
    instead of the product of every axis on that side, where that differs."""
    axis %= len(shape)
    outer, inner = size(shape[:axis]), size(shape[axis + 1:])
    found = []
    if axis + 1 < len(shape) and shape[axis + 1] != inner:
        found.append(("inner", shape[axis + 1], inner, outer, shape[axis + 1]))
    if axis > 0 and shape[axis - 1] != outer:
        found.append(("outer", shape[axis - 1], outer, shape[axis - 1], inner))
    return found


def one_axis_fault(shape: Shape, axis: int | None, got: Flat | None, make: Any) -> dict[str, Any] | None:
    """The fields of the one_axis message when ``got`` is what taking outer or inner as one axis's length gives."""
    if axis is None or got is None:
        return None
    a = axis % len(shape)
    for which, wrong, right, outer, inner in next_axis_only(shape, a):
        if (alike := make(outer, shape[a], inner)) is not None and agree(got, alike):
            side = "after" if which == "inner" else "before"
            return dict(which=which, wrong=wrong, right=right, side=side)
    return None


@claim("L16", "sum_axis")
def sum_axis(env: Env) -> None:
    flat = numbers((2, 3), 1601)
    for keepdims in (False, True):
        expected_shape = summed_shape((2, 3), None, keepdims)
        expected = summed_values(env, flat, (2, 3), None)
        got = tensor(env, flat, (2, 3)).sum(keepdims=keepdims)
        if shape_of(got) != expected_shape or not agree(got.data, expected):
            raise Fail("all", call=f"x.sum(keepdims={keepdims})", x=show(flat), expected=show(expected),
                       expected_shape=show(expected_shape), got=result_numbers(got), got_shape=show(shape_of(got)))
    for shape, axis, keepdims in SUM_CASES:
        flat = numbers(shape, 1602 + len(shape))
        x_shown = show(nested(flat, shape))
        expected_shape = summed_shape(shape, axis, keepdims)
        expected = summed_values(env, flat, shape, axis)
        values = dict(call=call_of(axis, keepdims), shape=show(shape), x=x_shown,
                      expected=show(nested(expected, expected_shape)), expected_shape=show(expected_shape),
                      positive=axis % len(shape))
        try:
            got = tensor(env, flat, shape).sum(axis=axis, keepdims=keepdims)
        except NotImplementedError as error:
            raise Fail("not_yet", got=f"NotImplementedError: {error}", **values) from None
        except Exception as error:
            if axis < 0:
                raise Fail("negative_raised", got=f"{type(error).__name__}: {error}", **values) from None
            raise
        got_shape = shape_of(got)
        if got_shape == expected_shape and agree(got.data, expected):
            continue
        values.update(got=result_numbers(got), got_shape=show(got_shape))
        if got_shape == summed_shape(shape, axis, not keepdims) and agree(got.data, expected):
            raise Fail("keepdims", **values)
        if axis < 0:
            raise Fail("negative", **values)
        fault = one_axis_fault(shape, axis, list(got.data), lambda o, n, i, flat=flat: by_parts(flat, o, n, i))
        if fault is not None:
            raise Fail("one_axis", **fault, **values)
        other = other_axis(env, flat, shape, axis, keepdims, got)
        if other is not None:
            raise Fail("other_axis", other=other, **values)
        raise Fail("wrong", **values)


@claim("L16", "sum_backward")
def sum_backward(env: Env) -> None:
    for shape, axis, keepdims in [((2, 3), None, False), ((2, 3), None, True), *SUM_CASES]:
        flat = numbers(shape, 1611 + len(shape))
        out_shape = summed_shape(shape, axis, keepdims)
        seed = numbers(out_shape, 1613, 0.5, 3.0)
        groups = summed_groups(shape, axis)
        vs = leaves(env, flat)
        total([total([vs[p] for p in group]) * w for group, w in zip(groups, seed)]).backward()
        expected = [float(v.grad) for v in vs]
        x = tensor(env, flat, shape)
        try:
            y = x.sum(axis=axis, keepdims=keepdims)
        except NotImplementedError as error:
            raise Fail("not_yet", call=call_of(axis, keepdims), error=f"NotImplementedError: {error}") from None
        if what := unlinked(y, x=x):
            raise Fail("unlinked", call=call_of(axis, keepdims), what=what)
        (got,) = grads_by_parent(y, seed, x)
        if got is not None and agree(got, expected):
            seed_kept(y, seed, "sum")
            continue
        values = dict(call=call_of(axis, keepdims), shape=show(shape), n=size(shape), out_shape=show(out_shape),
                      seed=show(nested(seed, out_shape)), expected=show(nested(expected, shape)),
                      got=listed(got, shape))
        if got is not None and len(got) != size(shape):
            raise Fail("length", length=len(got), **values)
        if got is not None and agree(got, [1.0] * size(shape)):
            raise Fail("upstream", **values)
        fault = one_axis_fault(shape, axis, got, lambda o, n, i, seed=seed, shape=shape: rule_by_parts(
            seed, size(shape), o, n, i))
        if fault is not None:
            raise Fail("one_axis", **fault, **values)
        raise Fail("wrong", **values)


# --- the matrix product -----------------------------------------------------------------------------

MATMUL_CASES: list[tuple[Shape, Shape]] = [((2, 3), (3, 4)), ((4, 1), (1, 2)), ((3, 3), (3, 3))]


def dot_values(env: Env, a: Flat, b: Flat, n: int, k: int, m: int,
               seed: Flat | None = None) -> tuple[Flat, Flat, Flat]:
    """a @ b spelled out in Values: out[i][j] = sum over t of a[i][t] · b[t][j]; with ``seed``, the
    gradients of sum(seed · out) for a and b (else zeros)."""
    va, vb = leaves(env, a), leaves(env, b)
    outs = [total([va[i * k + t] * vb[t * m + j] for t in range(k)]) for i in range(n) for j in range(m)]
    if seed is not None:
        total([o * w for o, w in zip(outs, seed)]).backward()
    return [float(o.data) for o in outs], [float(v.grad) for v in va], [float(v.grad) for v in vb]


def plain_product(a: Flat, b: Flat, n: int, k: int, m: int) -> Flat:
    """(n, k) @ (k, m) on flat lists of floats, for the shapes of a wrong answer."""
    return [sum(a[i * k + t] * b[t * m + j] for t in range(k)) for i in range(n) for j in range(m)]


def transposed(flat: Flat, rows: int, cols: int) -> Flat:
    """The transpose of a (rows, cols) matrix, flat."""
    return [flat[r * cols + c] for c in range(cols) for r in range(rows)]


def shape_text(shape: Shape) -> str:
    """A shape as the learner reads it: (2, 3)."""
    return show(tuple(shape))


@claim("L16", "matmul")
def matmul(env: Env) -> None:
    for case, ((n, k), (k2, m)) in enumerate(MATMUL_CASES):
        a, b = numbers((n, k), 1620 + case), numbers((k2, m), 1630 + case)
        expected, _, _ = dot_values(env, a, b, n, k, m)
        got = tensor(env, a, (n, k)) @ tensor(env, b, (k, m))
        values = dict(sa=shape_text((n, k)), sb=shape_text((k, m)), a=show(nested(a, (n, k))),
                      b=show(nested(b, (k, m))), expected=show(nested(expected, (n, m))),
                      expected_shape=shape_text((n, m)), got_shape=show(shape_of(got)), got=result_numbers(got))
        if shape_of(got) != (n, m):
            raise Fail("shape", **values)
        if not agree(got.data, expected):
            raise Fail("values", **values)


def wrong_grads(a: Flat, b: Flat, g: Flat, right_a: Flat, right_b: Flat,
                n: int, k: int, m: int) -> tuple[list[Flat], list[Flat]]:
    """The gradients for a and for b that a result left transposed ((G bᵀ)ᵀ, Gᵀ a) or a transpose left
    out (G @ b, a @ G, where those fit) would give."""
    for_a, for_b = [transposed(right_a, n, k)], [transposed(right_b, k, m)]
    if m == k:  # G (n, m) @ b (k, m) fits, and has a's shape
        for_a.append(plain_product(g, b, n, m, m))
    if n == k:  # a (n, k) @ G (n, m) fits, and has b's shape
        for_b.append(plain_product(a, g, n, k, m))
    return for_a, for_b


@claim("L16", "matmul_grads")
def matmul_grads(env: Env) -> None:
    for case, ((n, k), (_, m)) in enumerate(MATMUL_CASES):
        a, b = numbers((n, k), 1640 + case), numbers((k, m), 1650 + case)
        seed = numbers((n, m), 1660 + case, 0.5, 3.0)
        _, expected_a, expected_b = dot_values(env, a, b, n, k, m, seed)
        ta, tb = tensor(env, a, (n, k)), tensor(env, b, (k, m))
        out = ta @ tb
        if what := unlinked(out, a=ta, b=tb):
            raise Fail("unlinked", sa=shape_text((n, k)), sb=shape_text((k, m)), what=what)
        got_a, got_b = grads_by_parent(out, seed, ta, tb)
        if got_a is not None and got_b is not None and agree(got_a, expected_a) and agree(got_b, expected_b):
            seed_kept(out, seed, "@")
            continue
        values = dict(sa=shape_text((n, k)), sb=shape_text((k, m)), sg=shape_text((n, m)),
                      a=show(nested(a, (n, k))), b=show(nested(b, (k, m))), seed=show(nested(seed, (n, m))),
                      expected_a=show(nested(expected_a, (n, k))), expected_b=show(nested(expected_b, (k, m))),
                      got_a=listed(got_a, (n, k)), got_b=listed(got_b, (k, m)), na=n * k, nb=k * m)
        if got_a is not None and got_b is not None and agree(got_a, expected_b) and agree(got_b, expected_a):
            raise Fail("swapped", **values)
        for which, got, want in (("a", got_a, n * k), ("b", got_b, k * m)):
            if got is not None and len(got) != want:
                raise Fail("length", which=which, length=len(got), **values)
        _, ones_a, ones_b = dot_values(env, a, b, n, k, m, [1.0] * (n * m))
        if got_a is not None and got_b is not None and agree(got_a, ones_a) and agree(got_b, ones_b):
            raise Fail("upstream", **values)
        for_a, for_b = wrong_grads(a, b, seed, expected_a, expected_b, n, k, m)
        if any(got_a is not None and agree(got_a, wrong) for wrong in for_a) or any(
                got_b is not None and agree(got_b, wrong) for wrong in for_b):
            raise Fail("transpose", **values)
        raise Fail("wrong", **values)


@claim("L16", "matmul_vjp")
def matmul_vjp(env: Env) -> None:
    (n, k), (_, m) = MATMUL_CASES[0]
    a, b = numbers((n, k), 1670), numbers((k, m), 1671)
    u = numbers((n, m), 1672, 0.5, 3.0)
    values_expected, expected_a, expected_b = dot_values(env, a, b, n, k, m, u)

    def through_a(p: list[float]) -> list[float]:
        return list((tensor(env, list(p), (n, k)) @ tensor(env, b, (k, m))).data)

    def through_b(p: list[float]) -> list[float]:
        return list((tensor(env, a, (n, k)) @ tensor(env, list(p), (k, m))).data)

    ta, tb = tensor(env, a, (n, k)), tensor(env, b, (k, m))
    out = ta @ tb
    forward = list(out.data)
    got_a, got_b = grads_by_parent(out, u, ta, tb)
    nudged_a = env.nudge.vjp_numeric(through_a, list(a), list(u))
    nudged_b = env.nudge.vjp_numeric(through_b, list(b), list(u))
    values = dict(a=show(nested(a, (n, k))), b=show(nested(b, (k, m))), u=show(nested(u, (n, m))),
                  nudged_a=nudged(nudged_a, (n, k)), nudged_b=nudged(nudged_b, (k, m)),
                  expected_a=listed(expected_a, (n, k)), expected_b=listed(expected_b, (k, m)),
                  got_a=listed(got_a, (n, k)), got_b=listed(got_b, (k, m)))
    if not agree(forward, values_expected):
        raise Fail("forward", expected=show(nested(values_expected, (n, m))), got=result_numbers(out), **values)
    if not (agree(nudged_a, expected_a, 1e-5) and agree(nudged_b, expected_b, 1e-5)):
        raise Fail("nudge", **values)
    if not (got_a is not None and got_b is not None
            and agree(got_a, nudged_a, 1e-5) and agree(got_b, nudged_b, 1e-5)):
        raise Fail("wrong", **values)


MISFITS: list[tuple[Shape, Shape]] = [((2, 3), (4, 2)), ((2, 3), (2, 3)), ((3,), (3, 4)), ((2, 3), (3,))]


@claim("L16", "matmul_misfit")
def matmul_misfit(env: Env) -> None:
    for case, (sa, sb) in enumerate(MISFITS):
        ta, tb = tensor(env, numbers(sa, 1680 + case), sa), tensor(env, numbers(sb, 1690 + case), sb)
        values = dict(sa=shape_text(sa), sb=shape_text(sb))
        try:
            got = ta @ tb
        except ValueError as error:
            if not (names_shape(str(error), sa) and names_shape(str(error), sb)):
                raise Fail("unnamed", error=repr(str(error)), **values) from None
            continue
        except Exception as error:
            raise Fail("other_error", error=f"{type(error).__name__}: {error}", **values) from None
        raise Fail("no_error", got_shape=show(shape_of(got)), **values)


# --- picking rows -----------------------------------------------------------------------------------

ROWS_CASES: list[list[int]] = [[3, 1], [2, 0, 2], [1, 1, 0, 1]]
TABLE: Shape = (4, 3)


def rows_by_values(env: Env, w: Flat, picked: list[int], seed: Flat) -> tuple[Flat, Flat]:
    """The oracle of a lookup: the picked rows of the (4, 3) table ``w`` and W's gradient under ``seed``, from the
    learner's Values."""
    _, m = TABLE
    vw = leaves(env, w)
    chosen = [vw[i * m + j] for i in picked for j in range(m)]
    total([c * s for c, s in zip(chosen, seed)]).backward()
    return [float(v.data) for v in chosen], [float(v.grad) for v in vw]


@claim("L16", "rows")
def rows(env: Env) -> None:
    n, m = TABLE
    for case, picked in enumerate(ROWS_CASES):
        w = numbers(TABLE, 1700 + case)
        seed = numbers((len(picked), m), 1710 + case, 0.5, 3.0)
        expected_values, expected = rows_by_values(env, w, picked, seed)
        tw = tensor(env, w, TABLE)
        indices = list(picked)
        out = tw.rows(indices)
        values = dict(picked=show(list(picked)), w=show(nested(w, TABLE)), m=m, size=n * m,
                      seed=show(nested(seed, (len(picked), m))), expected=show(nested(expected, TABLE)),
                      expected_values=show(nested(expected_values, (len(picked), m))),
                      expected_shape=shape_text((len(picked), m)))
        if shape_of(out) != (len(picked), m) or not agree(out.data, expected_values):
            raise Fail("values", got=result_numbers(out), got_shape=show(shape_of(out)), **values)
        if indices != list(picked):
            raise Fail("changed_indices", got=show(indices), **values)
        if what := unlinked(out, W=tw):
            raise Fail("unlinked", what=what, **values)
        (got,) = grads_by_parent(out, seed, tw)
        if got is not None and agree(got, expected):
            seed_kept(out, seed, "rows")
            continue
        values["got"] = listed(got, TABLE)
        if got is not None and len(got) != n * m:
            raise Fail("length", length=len(got), **values)
        if got is not None and agree(got, assigned(picked, seed, n, m)):
            raise Fail("assign", **values)
        ones = [0.0] * (n * m)
        for i in picked:
            for j in range(m):
                ones[i * m + j] += 1.0
        if got is not None and agree(got, ones):
            raise Fail("upstream", **values)
        raise Fail("wrong", **values)


def assigned(picked: list[int], seed: Flat, n: int, m: int) -> Flat:
    """W's gradient when each picked row's gradient replaces (=) what an earlier pick put there."""
    grad = [0.0] * (n * m)
    for r, i in enumerate(picked):
        grad[i * m:(i + 1) * m] = seed[r * m:(r + 1) * m]
    return grad


NEGATIVE_CASES: list[list[int]] = [[-1, -2], [0, -4, 3, -1]]  # for the (4, 3) table: -1 is row 3, -4 row 0


@claim("L16", "rows_negative")
def rows_negative(env: Env) -> None:
    n, m = TABLE
    for case, picked in enumerate(NEGATIVE_CASES):
        w = numbers(TABLE, 1720 + case)
        seed = numbers((len(picked), m), 1730 + case, 0.5, 3.0)
        rows_picked = [i % n for i in picked]
        expected_values, expected = rows_by_values(env, w, rows_picked, seed)
        values = dict(picked=show(list(picked)), rows=show(rows_picked), w=show(nested(w, TABLE)),
                      seed=show(nested(seed, (len(picked), m))), expected=show(nested(expected, TABLE)),
                      expected_values=show(nested(expected_values, (len(picked), m))),
                      expected_shape=shape_text((len(picked), m)))
        tw = tensor(env, w, TABLE)
        indices = list(picked)
        try:
            out = tw.rows(indices)
        except (IndexError, ValueError) as error:
            raise Fail("refused", error=f"{type(error).__name__}: {error}", **values) from None
        if shape_of(out) != (len(picked), m) or not agree(out.data, expected_values):
            raise Fail("values", got=result_numbers(out), got_shape=show(shape_of(out)), **values)
        if indices != list(picked):
            raise Fail("changed_indices", got=show(indices), **values)
        try:
            (got,) = grads_by_parent(out, seed, tw)
        except IndexError as error:
            raise Fail("grad", got=f"IndexError: {error}", **values) from None
        if got is None or not agree(got, expected):
            raise Fail("grad", got=listed(got, TABLE), **values)
    for bad in (n, -n - 1):
        try:
            out = tensor(env, numbers(TABLE, 1740), TABLE).rows([0, bad])
        except IndexError:
            continue
        except Exception as error:
            raise Fail("out_of_range", index=bad, n=n, got=f"{type(error).__name__}: {error}") from None
        raise Fail("out_of_range", index=bad, n=n, got=f"a tensor of shape {show(shape_of(out))}")


# --- how the work grows, counted (labs.checking.cost): never timed -------------------------------------------

def rule_reads(out: Any, seed: Flat, work: Work) -> Any:
    """Call out's rule with a counting out.grad; what it returns."""
    out.grad = Tally(seed, work)
    return out._backward(out)


def joined(grads: Any, out: Any) -> bool:
    """Whether a rule handed back a counting list other than out.grad: one joined from pieces with + (the
    checker's lists count, and joining them makes another that does)."""
    return any(isinstance(g, Tally) and not isinstance(g, Own) and g is not out.grad for g in grads)


JOINED = ("it handed back a list joined from pieces with +, and each join copies every number joined before it, "
          "so the copying grows with the square of the length")
RESCANNED = "a list is gone through again, or made again, for every number"


def how(was_joined: bool) -> str:
    """What the check saw of a piece whose work grows with the square of its input."""
    return JOINED if was_joined else RESCANNED


def sum_reads(env: Env, shape: Shape, axis: int) -> tuple[int, int, bool]:
    """Numbers x.sum(axis) reads forward, then in its rule; and whether the rule's gradient was joined with +."""
    work = Work()
    x = tallied(tensor(env, numbers(shape, 21), shape), work)
    with helpers_counted(env, work):
        y = x.sum(axis=axis)
        forward = work.reads
        grads = rule_reads(y, numbers(shape_of(y), 22), work)
    return forward, work.reads - forward, joined(grads, y)


SUM_GROWTH: list[tuple[Any, int]] = [(lambda n: (n, 3), 1), (lambda n: (3, n), 0), (lambda n: (2, n, 2), 1),
                                     (lambda n: (n, 2, 3), 0)]


@claim("L16", "sum_cost")
def sum_cost(env: Env) -> None:
    for make, axis in SUM_GROWTH:
        shape, big = make(4), make(4 * GROWTH)
        try:
            forward, rule, _ = sum_reads(env, shape, axis)
        except NotImplementedError as error:
            raise Fail("not_yet", call=call_of(axis, False), error=f"NotImplementedError: {error}") from None
        big_forward, big_rule, joined_rule = sum_reads(env, big, axis)
        what = f"x.sum(axis={axis}) for x of shape {show(shape)}"
        growth = Growth(f"The forward of {what}", forward, big_forward, size(shape), size(big))
        if growth.quadratic:
            raise Fail("forward", how=how(False), **growth.values())
        growth = Growth(f"The rule of {what}", rule, big_rule, size(shape), size(big))
        if growth.quadratic:
            raise Fail("rule", how=how(joined_rule), **growth.values())


def matmul_reads(env: Env, n: int, k: int, m: int) -> tuple[int, int]:
    """Numbers (n, k) @ (k, m) reads forward, then in its rule."""
    work = Work()
    a = tallied(tensor(env, numbers((n, k), 31), (n, k)), work)
    b = tallied(tensor(env, numbers((k, m), 32), (k, m)), work)
    with helpers_counted(env, work):
        out = a @ b
        forward = work.reads
        rule_reads(out, numbers((n, m), 33), work)
    return forward, work.reads - forward


@claim("L16", "matmul_cost")
def matmul_cost(env: Env) -> None:
    base = (3, 4, 3)
    small_forward, small_rule = matmul_reads(env, *base)
    for grown, name in enumerate("nkm"):
        dims = tuple(d * GROWTH if axis == grown else d for axis, d in enumerate(base))
        n, k, m = dims
        forward, rule = matmul_reads(env, n, k, m)
        what = f"({base[0]}, {base[1]}) @ ({base[1]}, {base[2]}), then ({n}, {k}) @ ({k}, {m}),"
        nkm_small, nkm_large = base[0] * base[1] * base[2], n * k * m
        growth = Growth(f"The forward of {what}", small_forward, forward, nkm_small, nkm_large)
        if growth.quadratic:
            raise Fail("forward", grown=name, how=how(False), **growth.values())
        growth = Growth(f"The rule of {what}", small_rule, rule, nkm_small, nkm_large)
        if growth.quadratic:
            raise Fail("rule", grown=name, how=how(False), **growth.values())


def rows_reads(env: Env, picks: int, table: int = 6) -> tuple[int, int, bool, bool]:
    """Numbers W.rows() reads forward, then in its rule, for ``picks`` picks from a (table, 3) table; and whether
    the forward's data and the rule's gradient were joined with +."""
    work = Work()
    w = tallied(tensor(env, numbers((table, 3), 41), (table, 3)), work)
    picked = [(5 * p + p // 3) % table for p in range(picks)]
    with helpers_counted(env, work):
        out = w.rows(picked)
        forward = work.reads
        grads = rule_reads(out, numbers((picks, 3), 42), work)
    joined_data = isinstance(out.data, Tally) and not isinstance(out.data, Own)
    return forward, work.reads - forward, joined_data, joined(grads, out)


@claim("L16", "rows_cost")
def rows_cost(env: Env) -> None:
    forward, rule, _, _ = rows_reads(env, 4)
    big_forward, big_rule, joined_data, joined_rule = rows_reads(env, 4 * GROWTH)
    what = f"W.rows() picking 4, then {4 * GROWTH}, rows of a (6, 3) table"
    growth = Growth(f"The forward of {what},", forward, big_forward, 4 * 3, 4 * GROWTH * 3)
    if growth.quadratic:
        raise Fail("forward", how=how(joined_data), **growth.values())
    growth = Growth(f"The rule of {what},", rule, big_rule, 4 * 3, 4 * GROWTH * 3)
    if growth.quadratic:
        raise Fail("rule", how=how(joined_rule), **growth.values())
    # a table that grows with the picks: a rule that goes through every pick for every row of W shows here
    small, large = rows_reads(env, 8, 8), rows_reads(env, 8 * GROWTH, 8 * GROWTH)
    for phase, (reads, big_reads) in (("forward", (small[0], large[0])), ("rule", (small[1], large[1]))):
        big = 8 * GROWTH
        what = f"The {phase} of W.rows() picking 8 rows of an (8, 3) table, then {big} of a ({big}, 3) one,"
        growth = Growth(what, reads, big_reads, 8 * 3, 8 * GROWTH * 3)
        if growth.quadratic:
            raise Fail("table", **growth.values())


# --- contract sweeps (labs.checking.sweep): generated edge inputs, smallest first ------------------------------

EDGE_DATA = (0.0, sweep.LARGE, sweep.TINY, sweep.INF, sweep.NAN)  # no -inf: fsum refuses inf + -inf
EDGE_SEED = (0.0, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)  # out.grad: copied or added, never cancelled


def sum_cases() -> list[sweep.Case]:
    """x.sum(axis, keepdims) on shapes with a 0, a 1, no axes and three, every axis and its negative twin."""
    rng = random.Random(1660)
    shapes: list[Shape] = [(), (0,), (1,), (3,), (2, 0), (0, 2), (1, 1), (2, 3), (3, 1, 2)]
    cases = []
    for k, shape in enumerate(shapes):
        calls: list[tuple[int | None, bool]] = [(None, k % 2 == 1)]  # keepdims by turns: sum_axis tries both
        calls += [(axis, (axis + k) % 2 == 0) for axis in range(-len(shape), len(shape))]
        for axis, keep in calls:
            flat = sweep.numbers(rng, size(shape), EDGE_DATA)
            seed = sweep.numbers(rng, size(summed_shape(shape, axis, keep)), EDGE_SEED)
            shown = (f"x of shape {show(shape)} holding {sweep.nested_text(flat, shape)}, "
                     f"{call_of(axis, keep)}, out.grad = {sweep.nested_text(seed, summed_shape(shape, axis, keep))}")
            cases.append(sweep.Case(shown, size(shape) + len(shape), (shape, axis, keep, flat, seed)))
    return cases


def sum_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    shape, axis, keep, flat, seed = case.data
    data, grad = references.sum_along(flat, shape, axis, seed)
    call = call_of(axis, keep)
    x = sweep.leaf(env, flat, shape)
    out, error = sweep.outcome(lambda: x.sum(axis=axis, keepdims=keep))
    if sweep.excused(error, data):
        return None
    finding = sweep.error_finding(error, "a result") if error else sweep.result_apart(
        out, data, summed_shape(shape, axis, keep))
    if finding is None:
        got, error = sweep.outcome(lambda: sweep.grads_through(out, seed, (x,))[0])
        call = f"the rule of {call}"
        finding = sweep.error_finding(error, sweep.nested_text(grad, shape)) if error else sweep.grads_apart(
            got, grad, shape)
    if finding is not None:
        finding.values["call"] = call
    return finding


@claim("L16", "sum_sweep")
def sum_sweep(env: Env) -> None:
    sweep.fail_on_smallest("L16.sum", sum_cases(), lambda case: sum_judge(env, case))
    sweep.fail_unless_freed("x.sum(axis=1)", lambda: tensor(env, numbers((2, 3), 1661), (2, 3)).sum(axis=1))


def matmul_cases() -> list[sweep.Case]:
    """(n, k) @ (k, m) with each of n, k, m 0 or 1 in turn, and larger ones; numbers with 0, inf, nan, tiny; and
    shapes that do not fit, an axis of 0 among them, which the finished piece refuses."""
    rng = random.Random(1670)
    dims = [(1, 0, 1), (0, 2, 1), (2, 1, 0), (1, 1, 1), (1, 3, 1), (2, 1, 2), (2, 3, 2), (3, 2, 4)]
    dims += [(rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)) for _ in range(4)]
    edges = (0.0, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)
    cases = []
    for n, k, m in dims:
        a, b = sweep.numbers(rng, n * k, edges), sweep.numbers(rng, k * m, edges)
        seed = sweep.numbers(rng, n * m, (0.0, sweep.TINY, sweep.INF))
        shown = (f"a of shape {show((n, k))} holding {sweep.nested_text(a, (n, k))}, b of shape {show((k, m))} "
                 f"holding {sweep.nested_text(b, (k, m))}, out.grad = {sweep.nested_text(seed, (n, m))}")
        cases.append(sweep.Case(shown, n * k + k * m + n * m, (n, k, m, a, b, seed)))
    for sa, sb in [((1, 0), (1, 0)), ((0, 2), (0, 2)), ((2, 1), (2,)), ((1,), (1, 1)), ((2, 3), (2, 3))]:
        a, b = sweep.numbers(rng, size(sa), edges), sweep.numbers(rng, size(sb), edges)
        shown = (f"a of shape {show(sa)} holding {sweep.nested_text(a, sa)}, b of shape {show(sb)} holding "
                 f"{sweep.nested_text(b, sb)}")
        cases.append(sweep.Case(shown, size(sa) + size(sb), (sa, sb, a, b)))  # shapes that do not fit
    return cases


def matmul_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    if len(case.data) == 4:  # shapes that do not fit: refused with ValueError, as the page says
        sa, sb, a, b = case.data
        out, error = sweep.outcome(lambda: sweep.leaf(env, a, sa) @ sweep.leaf(env, b, sb))
        finding = sweep.refusal_apart(("ValueError",), out, error)
        if finding is not None:
            finding.values["call"] = "a @ b"
        return finding
    n, k, m, a, b, seed = case.data
    data, grad_a, grad_b = references.matmul(a, b, n, k, m, seed)
    ta, tb = sweep.leaf(env, a, (n, k)), sweep.leaf(env, b, (k, m))
    out, error = sweep.outcome(lambda: ta @ tb)
    if sweep.excused(error, data):
        return None
    finding = sweep.error_finding(error, "a result") if error else sweep.result_apart(out, data, (n, m))
    call = "a @ b"
    if finding is None:
        call = "the rule of a @ b"
        got, error = sweep.outcome(lambda: sweep.grads_through(out, seed, (ta, tb)))
        if sweep.excused(error, grad_a, grad_b):
            return None
        if error:
            finding = sweep.error_finding(error, "two gradients")
        else:
            finding = sweep.grads_apart(got[0], grad_a, (n, k)) or sweep.grads_apart(got[1], grad_b, (k, m))
            call += ", for a" if sweep.grads_apart(got[0], grad_a, (n, k)) else ", for b"
    if finding is not None:
        finding.values["call"] = call
    return finding


@claim("L16", "matmul_sweep")
def matmul_sweep(env: Env) -> None:
    sweep.fail_on_smallest("L16.matmul", matmul_cases(), lambda case: matmul_judge(env, case))
    a, b = numbers((2, 3), 1671), numbers((3, 2), 1672)
    sweep.fail_unless_freed("a @ b", lambda: tensor(env, a, (2, 3)) @ tensor(env, b, (3, 2)))


def rows_cases() -> list[sweep.Case]:
    """W.rows(indices): none, one, repeated, negative and out-of-range indices, on tables with a row of one number
    and rows of none; the table holds large, tiny, inf and nan numbers, out.grad 0, inf and nan."""
    rng = random.Random(1680)
    specs: list[tuple[Shape, list[int]]] = [((1, 1), []), ((1, 1), [0]), ((1, 1), [-1]), ((2, 2), [2]),
                                            ((2, 2), [0, -3]), ((3, 2), [1, 1]), ((3, 2), [-3, 2, -1]),
                                            ((3, 0), [0, -1, 0]), ((2, 3), [1, -1, 1])]
    for _ in range(5):
        n, m = rng.randint(1, 4), rng.randint(1, 3)
        specs.append(((n, m), [rng.randint(-n, n - 1) for _ in range(rng.randint(1, 5))]))
    cases = []
    for (n, m), indices in specs:
        table = sweep.numbers(rng, n * m, (sweep.LARGE, sweep.TINY, sweep.INF, sweep.NAN))
        seed = sweep.numbers(rng, len(indices) * m, EDGE_SEED)
        shown = (f"W of shape {show((n, m))} holding {sweep.nested_text(table, (n, m))}, "
                 f"indices {show(indices)}, out.grad = {sweep.nested_text(seed, (len(indices), m))}")
        cases.append(sweep.Case(shown, n * m + len(indices), (n, m, table, indices, seed)))
    return cases


def moved(indices: list[int], n: int) -> list[int]:
    """The caller's list changed after the forward pass: each index moved to the next row (emptied for one row)."""
    return [(i + 1) % n for i in indices] if n > 1 else []


def rows_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    n, m, table, indices, seed = case.data
    w = sweep.leaf(env, table, (n, m))
    handed = list(indices)
    return sweep.list_call_apart(f"W.rows({show(indices)})", w, handed, indices, lambda: w.rows(handed),
                                 references.rows(table, n, m, indices, seed), (len(indices), m), seed, (n, m))


def rows_kept(env: Env, case: sweep.Case) -> sweep.Finding | None:
    """Finding('kept') when the rule's gradient follows the caller's list changed after the forward pass."""
    n, m, table, indices, seed = case.data
    expected = references.rows(table, n, m, indices, seed)
    if isinstance(expected, references.Refused):
        return None
    grad = expected[1]
    call = f"W.rows({show(indices)})"
    w = sweep.leaf(env, table, (n, m))
    handed = list(indices)
    out = w.rows(handed)
    handed[:] = moved(indices, n)
    got, error = sweep.outcome(lambda: sweep.grads_through(out, seed, (w,))[0])
    if error is None and sweep.same(got, grad):
        return None
    return sweep.Finding("kept", {"call": call, "after": show(handed), "expected": sweep.nested_text(grad, (n, m)),
                                  "got": error or sweep.nested_text(list(got), (n, m))})


@claim("L16", "rows_sweep")
def rows_sweep(env: Env) -> None:
    cases = rows_cases()
    sweep.fail_on_smallest("L16.rows", cases, lambda case: rows_judge(env, case))
    sweep.fail_on_smallest("L16.rows", cases, lambda case: rows_kept(env, case))
    sweep.fail_unless_freed("W.rows([0, 2])", lambda: tensor(env, numbers((3, 2), 1681), (3, 2)).rows([0, 2]))
