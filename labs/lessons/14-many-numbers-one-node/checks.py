"""Checks of lesson 14, Many numbers, one node: elementwise tensor operations, sum, and the backward walk.

Every rule is checked against the same numbers spelled out in the learner's own ``Value``s (the
oracle, :mod:`labs.checking.oracle`). The walk's checks build their graphs with the checker's own
operations (``Tensor.made`` with rules written here), so a mistake in an operation never shows up
as a mistake of the walk, and each rule run is recorded.
"""

from __future__ import annotations

import gc
import random
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from labs.checking import oracle, sweep
from labs.checking.claimkit import Env, Fail, claim, show
from labs.checking.cost import GROWTH, Tally, Traced, square_growth, tallied
from labs.checking.own_lists import own_lists_counted, placer
from labs.checking.walks import large_graph, recursion_judged, tensor_order

SHAPE = (2, 3)


# --- small helpers ------------------------------------------------------------------------------


def tensor(env: Env, flat: Sequence[float], shape: tuple[int, ...] = SHAPE) -> Any:
    """A learner Tensor made from flat numbers and a shape."""
    return env.tensor.Tensor(oracle.nested(list(flat), shape))


def rounded(xs: Sequence[float]) -> list[float]:
    """Numbers as a message shows them: 12 significant digits, so noise of 1e-16 does not distract."""
    return [float(f"{x:.12g}") for x in xs]


def shape_text(shape: object) -> str:
    """A shape as Python writes a tuple: (2, 3), (3,), ()."""
    return show(tuple(shape)) if isinstance(shape, (tuple, list)) else repr(shape)


def grads_of(raw: object, parents: int, op: str) -> list[list[float]]:
    """The gradients a rule returned, one list per parent, or Fail("form") saying what it returned instead
    (Fail("lazy") for a generator, which claimkit's show() would print as the list it gives)."""
    if isinstance(raw, Iterator) or (isinstance(raw, (list, tuple)) and any(isinstance(g, Iterator) for g in raw)):
        what = f"a {type(raw).__name__}" if isinstance(raw, Iterator) else f"a {type(raw).__name__} holding a generator"
        raise Fail("lazy", op=op, what=what, parents=parents)
    if isinstance(raw, (list, tuple)) and raw and all(isinstance(g, (int, float)) for g in raw):
        what = f"a {type(raw).__name__} of {len(raw)} number{'' if len(raw) == 1 else 's'}"
    elif not isinstance(raw, (list, tuple)) or not all(isinstance(g, (list, tuple)) for g in raw):
        what = f"a {type(raw).__name__}" if not isinstance(raw, (list, tuple)) else f"{show(raw)}"
    elif len(raw) != parents:
        what = f"{len(raw)} gradient list{'' if len(raw) == 1 else 's'}"
    else:
        return [list(g) for g in raw]
    raise Fail("form", op=op, what=what, parents=parents)


def call_rule(out: Any, seed: Sequence[float]) -> object:
    """A result's backward rule called by hand with ``seed`` as the output's gradient: whatever it returns."""
    out.grad = list(seed)
    return out._backward(out)


# --- L14.unary ----------------------------------------------------------------------------------

# name -> (the tensor operation, the same on one Value, the numbers it is tried on)
UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], list[float]]] = {
    "exp": (lambda t: t.exp(), lambda v: v.exp(), oracle.numbers(SHAPE, 1)),
    "log": (lambda t: t.log(), lambda v: v.log(), oracle.numbers(SHAPE, 2, 0.2, 3.0)),
    "tanh": (lambda t: t.tanh(), lambda v: v.tanh(), oracle.numbers(SHAPE, 3)),
    "relu": (lambda t: t.relu(), lambda v: v.relu(), [-1.5, 0.0, 0.7, 2.0, -0.2, 0.0]),
    "neg": (lambda t: -t, lambda v: -v, oracle.numbers(SHAPE, 5)),
    "**3": (lambda t: t**3, lambda v: v**3, oracle.numbers(SHAPE, 6)),
    "**-2": (lambda t: t**-2, lambda v: v**-2, oracle.numbers(SHAPE, 7, 0.3, 2.0)),
}
SEED = oracle.numbers(SHAPE, 11, 0.5, 2.5)  # an upstream gradient that is not all ones


def spy_f(x: float) -> float:
    """The checker's own function for a spied unary: y is never x, so swapping them shows."""
    return x * x + 1.0


@claim("L14", "unary_forward")
def unary_forward(env: Env) -> None:
    for op, (tensor_op, value_op, flat) in UNARY.items():
        t = tensor(env, flat)
        before = list(t.data)
        out = tensor_op(t)
        if list(t.data) != before or out is t:
            raise Fail("changed", op=op, before=show(before), after=show(list(t.data)))
        if tuple(out.shape) != SHAPE:
            raise Fail("shape", op=op, got=shape_text(out.shape))
        expected = [value_op(env.Value(x)).data for x in flat]
        if not oracle.agree(out.data, expected):
            raise Fail("values", op=op, x=show(flat), got=show(list(out.data)), expected=show(rounded(expected)))
        if len(out._parents) != 1 or out._parents[0] is not t:
            raise Fail("parents", op=op, got=len(out._parents))


@claim("L14", "unary_slope_arguments")
def unary_slope_arguments(env: Env) -> None:
    flat = [0.5, -1.0, 2.0, 1.5, -0.25, 3.0]
    calls: list[tuple[float, float]] = []

    def slope(x: float, y: float) -> float:
        calls.append((x, y))
        return 10.0 * x + y

    t = tensor(env, flat)
    out = t.unary("spy", spy_f, slope)
    pairs = [(x, spy_f(x)) for x in flat]
    if not oracle.agree(out.data, [y for _, y in pairs]):
        raise Fail("forward", x=show(flat), got=show(list(out.data)), expected=show([y for _, y in pairs]))
    grads = grads_of(call_rule(out, SEED), 1, "t.unary(...)")
    for x, y in calls:
        if (x, y) in pairs:
            continue
        if (y, x) in pairs:
            raise Fail("swapped", x=show(y), y=show(x))
        if x == y and any(x == px for px, _ in pairs):
            raise Fail("x_for_y", x=show(x), y=show(spy_f(x)))
        raise Fail("arguments", got=show((x, y)), pairs=show(pairs[:3]))
    expected = [g * (10.0 * x + y) for g, (x, y) in zip(SEED, pairs)]
    if not oracle.agree(grads[0], expected):
        raise Fail("wrong", got=show(grads[0]), expected=show(rounded(expected)))


@claim("L14", "unary_rules")
def unary_rules(env: Env) -> None:
    for op, (tensor_op, value_op, flat) in UNARY.items():
        out = tensor_op(tensor(env, flat))
        (got,) = grads_of(call_rule(out, SEED), 1, op)
        expected = value_grads(env, value_op, flat, SEED)
        if oracle.agree(got, expected):
            oracle.seed_kept(out, SEED, op)
            continue
        values = {"op": op, "x": show(flat), "seed": show(SEED), "got": show(got), "expected": show(rounded(expected))}
        slopes = value_grads(env, value_op, flat, [1.0] * len(flat))
        if oracle.agree(got, slopes) and not oracle.agree(slopes, expected):
            raise Fail("no_upstream", **values)
        if all(g == 0 for g in got):
            raise Fail("zeros", **values)
        raise Fail("wrong", **values)


# --- how the work grows: counted reads, never a clock (labs/checking/cost.py) ----------------------------

COST_SIZE = 16  # numbers in the small input; the large one holds GROWTH times more


def cost_numbers(n: int) -> list[float]:
    """n different numbers in (-1, 1), so a search by value finds the position it looks for."""
    return [((7 * i) % n - n / 2) / n + 0.5 / n for i in range(n)]


def unary_work(env: Env, n: int) -> tuple[Traced, Traced]:
    """The reads of t.tanh() on n numbers, then of its rule with an out.grad that is not all ones."""
    work = Traced()
    t = tallied(env.tensor.Tensor(cost_numbers(n)), work)
    with own_lists_counted(env, work):
        out = t.tanh()
        forward = Traced()
        forward.kinds, forward._reads = Counter(work.kinds), work.reads
        work.restart()
        tallied(out, work)
        out.grad = Tally([0.5 + i / n for i in range(n)], work)
        out._backward(out)
    return forward, work


@claim("L14", "unary_cost")
def unary_cost(env: Env) -> None:
    (small_f, small_r), (large_f, large_r) = unary_work(env, COST_SIZE), unary_work(env, COST_SIZE * GROWTH)
    for key, small, large in (("forward", small_f, large_f), ("rule", small_r, large_r)):
        if found := square_growth(small, large, placer(env)):
            raise Fail(key, n=COST_SIZE, **found)


def value_grads(env: Env, value_op: Callable[[Any], Any], flat: list[float], seed: list[float]) -> list[float]:
    """The oracle: the gradient of sum(seed[i] * op(x[i])) in the learner's Values, one number per x."""
    _, (grads,) = oracle.by_values(env, lambda vs: oracle.total([value_op(v) * s for v, s in zip(vs, seed)]), flat)
    return grads


# --- L14.binary ---------------------------------------------------------------------------------

BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "+": (lambda a, b: a + b, lambda a, b: a + b),
    "-": (lambda a, b: a - b, lambda a, b: a - b),
    "*": (lambda a, b: a * b, lambda a, b: a * b),
    "/": (lambda a, b: a / b, lambda a, b: a / b),
}
A_FLAT, B_FLAT = oracle.numbers(SHAPE, 21), oracle.numbers(SHAPE, 22, 0.5, 2.5)


@claim("L14", "binary_forward")
def binary_forward(env: Env) -> None:
    for op, (tensor_op, value_op) in BINARY.items():
        a, b = tensor(env, A_FLAT), tensor(env, B_FLAT)
        out = tensor_op(a, b)
        if tuple(out.shape) != SHAPE:
            raise Fail("shape", op=op, got=shape_text(out.shape))
        expected = [value_op(env.Value(x), env.Value(y)).data for x, y in zip(A_FLAT, B_FLAT)]
        if not oracle.agree(out.data, expected):
            backwards = [value_op(env.Value(y), env.Value(x)).data for x, y in zip(A_FLAT, B_FLAT)]
            key = "operands" if oracle.agree(out.data, backwards) else "values"
            raise Fail(key, op=op, a=show(A_FLAT), b=show(B_FLAT), got=show(list(out.data)),
                       expected=show(rounded(expected)))
        if len(out._parents) != 2 or out._parents[0] is not a or out._parents[1] is not b:
            raise Fail("parents", op=op, got=len(out._parents))


@claim("L14", "binary_numbers")
def binary_numbers(env: Env) -> None:
    """A plain number on either side of a one-number tensor (the shapes match: both are ())."""
    cases = [("t * 2.5", lambda t: t * 2.5, lambda v: v * 2.5), ("t + 2.5", lambda t: t + 2.5, lambda v: v + 2.5),
             ("2.5 - t", lambda t: 2.5 - t, lambda v: 2.5 - v), ("1 / t", lambda t: 1 / t, lambda v: 1 / v)]
    for text, tensor_op, value_op in cases:
        t = env.tensor.Tensor(-1.5)
        try:
            out = tensor_op(t)
        except Exception as exc:  # any error here is the finding
            raise Fail("plain", case=text, error=f"{type(exc).__name__}: {exc}") from None
        expected = value_op(env.Value(-1.5)).data
        if tuple(out.shape) != () or not oracle.agree(out.data, [expected]):
            raise Fail("wrong", case=text, got=show(list(out.data)), shape=shape_text(out.shape),
                       expected=show(expected))


# pairs of shapes that do not match and cannot broadcast either (a learner who broadcasts already is right)
MISMATCHED = [((3,), (4,)), ((2, 3), (3, 2)), ((2, 3), (2,))]


@claim("L14", "binary_shapes")
def binary_shapes(env: Env) -> None:
    for sa, sb in MISMATCHED:
        a, b = tensor(env, oracle.numbers(sa, 31), sa), tensor(env, oracle.numbers(sb, 32), sb)
        values = {"a": shape_text(sa), "b": shape_text(sb)}
        try:
            out = a * b
        except ValueError as exc:
            words = str(exc)
            if not (oracle.names_shape(words, sa) and oracle.names_shape(words, sb)):
                raise Fail("unnamed", said=words, **values) from None
            continue
        except Exception as exc:  # any other error is the finding
            raise Fail("kind", error=f"{type(exc).__name__}: {exc}", **values) from None
        same = len(a.data) == len(b.data)
        raise Fail("same_size" if same else "silent", got=shape_text(out.shape), n=len(a.data), **values)


def spied_binary(env: Env, calls: dict[str, list[tuple[float, float]]]) -> Any:
    """a.binary(b, ...) with the checker's own f, da and db, each recording its arguments."""

    def partial(name: str, weight: float) -> Callable[[float, float], float]:
        def slope(x: float, y: float) -> float:
            calls[name].append((x, y))
            return weight * x + y
        return slope

    a, b = tensor(env, A_FLAT), tensor(env, B_FLAT)
    return a.binary(b, "spy", lambda x, y: 3.0 * x - y, partial("da", 10.0), partial("db", 100.0))


@claim("L14", "binary_rule")
def binary_rule(env: Env) -> None:
    calls: dict[str, list[tuple[float, float]]] = {"da": [], "db": []}
    out = spied_binary(env, calls)
    ga, gb = grads_of(call_rule(out, SEED), 2, "a.binary(b, ...)")
    pairs = list(zip(A_FLAT, B_FLAT))
    for name in ("da", "db"):
        for x, y in calls[name]:
            if (x, y) not in pairs:
                raise Fail("arguments", name=name, got=show((x, y)), pairs=show(pairs[:2]))
    expected_a = [g * (10.0 * x + y) for g, (x, y) in zip(SEED, pairs)]
    expected_b = [g * (100.0 * x + y) for g, (x, y) in zip(SEED, pairs)]
    values = {"seed": show(SEED), "got_a": show(ga), "got_b": show(gb),
              "expected_a": show(rounded(expected_a)), "expected_b": show(rounded(expected_b))}
    if oracle.agree(ga, expected_a) and oracle.agree(gb, expected_b):
        return
    if oracle.agree(ga, expected_b) and oracle.agree(gb, expected_a):
        raise Fail("partials_swapped", **values)
    if oracle.agree(ga, gb):
        raise Fail("same_grad", **values)
    if oracle.agree(ga, [10.0 * x + y for x, y in pairs]) or oracle.agree(gb, [100.0 * x + y for x, y in pairs]):
        raise Fail("no_upstream", **values)
    raise Fail("wrong", **values)


@claim("L14", "binary_oracle")
def binary_oracle(env: Env) -> None:
    for op, (tensor_op, value_op) in BINARY.items():
        out = tensor_op(tensor(env, A_FLAT), tensor(env, B_FLAT))
        ga, gb = grads_of(call_rule(out, SEED), 2, op)
        _, (ea, eb) = oracle.by_values(
            env, lambda xs, ys, value_op=value_op: oracle.total([value_op(x, y) * s for x, y, s in zip(xs, ys, SEED)]),
            A_FLAT, B_FLAT)
        if not (oracle.agree(ga, ea) and oracle.agree(gb, eb)):
            raise Fail("wrong", op=op, seed=show(SEED), got_a=show(ga), got_b=show(gb),
                       expected_a=show(rounded(ea)), expected_b=show(rounded(eb)))
        oracle.seed_kept(out, SEED, op)


# --- L14.sum ------------------------------------------------------------------------------------


@claim("L14", "sum_forward")
def sum_forward(env: Env) -> None:
    for shape, seed in (((2, 3), 41), ((4,), 42), ((2, 2, 2), 43)):
        flat = oracle.numbers(shape, seed)
        t = tensor(env, flat, shape)
        out = t.sum()
        if tuple(out.shape) != ():
            raise Fail("shape", shape=shape_text(shape), got=shape_text(out.shape))
        expected = oracle.total(oracle.leaves(env, flat)).data
        if not oracle.agree(out.data, [expected]):
            raise Fail("value", shape=shape_text(shape), x=show(flat), got=show(list(out.data)),
                       expected=show(rounded([expected])[0]))
        if len(out._parents) != 1 or out._parents[0] is not t:
            raise Fail("parents", got=len(out._parents))


@claim("L14", "sum_rule")
def sum_rule(env: Env) -> None:
    flat = oracle.numbers(SHAPE, 44)
    out = tensor(env, flat).sum()
    (got,) = grads_of(call_rule(out, [-2.5]), 1, "sum")
    _, (expected,) = oracle.by_values(env, lambda vs: oracle.total(vs) * -2.5, flat)
    if oracle.agree(got, expected):
        oracle.seed_kept(out, [-2.5], "sum")
        return
    values = {"got": show(got), "expected": show(rounded(expected))}
    if len(got) == 1:
        raise Fail("one_number", **values)
    if oracle.agree(got, [1.0] * len(flat)):
        raise Fail("ones", **values)
    raise Fail("wrong", **values)


# --- L14.backward: graphs made of the checker's own operations ----------------------------------


class Ops:
    """The checker's own tensor operations (rules written here), recording each rule run with out.grad then."""

    def __init__(self, env: Env) -> None:
        self.Tensor = env.tensor.Tensor
        self.runs: list[tuple[Any, object]] = []
        self.names: dict[int, str] = {}

    def leaf(self, flat: Sequence[float], name: str, shape: tuple[int, ...] | None = None) -> Any:
        t = self.Tensor(oracle.nested(list(flat), shape or (len(flat),)))
        self.names[id(t)] = name
        return t

    def made(self, data: list[float], shape: tuple, parents: tuple, op: str,
             rule: Callable[[Any], tuple], name: str) -> Any:
        runs = self.runs

        def watched(out: Any) -> tuple:
            runs.append((out, list(out.grad) if isinstance(out.grad, list) else out.grad))
            return rule(out)
        out = self.Tensor.made(data, shape, parents, op, watched)
        self.names[id(out)] = name
        return out

    def mul(self, a: Any, b: Any, name: str) -> Any:
        x, y = list(a.data), list(b.data)
        return self.made([p * q for p, q in zip(x, y)], a.shape, (a, b), "*",
                         lambda out: ([g * q for g, q in zip(out.grad, y)], [g * p for g, p in zip(out.grad, x)]), name)

    def add(self, a: Any, b: Any, name: str) -> Any:
        return self.made([p + q for p, q in zip(a.data, b.data)], a.shape, (a, b), "+",
                         lambda out: (list(out.grad), list(out.grad)), name)

    def scale(self, a: Any, k: float, name: str) -> Any:
        return self.made([k * p for p in a.data], a.shape, (a,), f"*{k}",
                         lambda out: ([k * g for g in out.grad],), name)

    def total(self, a: Any, name: str) -> Any:
        n = len(a.data)
        return self.made([sum(a.data)], (), (a,), "sum", lambda out: ([out.grad[0]] * n,), name)


def misshapen(root: Any) -> Fail | None:
    """For the tensor of root's graph nearest the output whose gradient holds more numbers than the tensor,
    Fail("joined"); for one whose gradient holds fewer, Fail("short"); None when every gradient fits."""
    for tensor in tensor_order(root):
        grad = getattr(tensor, "grad", None)
        if isinstance(grad, list) and len(grad) != len(tensor.data):
            op = getattr(tensor, "_op", "")
            made = f"the result of '{op}'" if op else f"a tensor of shape {tensor.shape}"
            name = getattr(tensor, "label", "") or made
            return Fail("joined" if len(grad) > len(tensor.data) else "short",
                        name=name, got=len(grad), size=len(tensor.data))
    return None


def run_backward(root: Any) -> None:
    """root.backward(), with a seed that is a bare number, or gradients joined end to end or cut short, named as
    the mistakes they are."""
    try:
        root.backward()
    except (TypeError, IndexError, ValueError) as exc:
        if isinstance(exc, TypeError) and "'NoneType' object is not callable" in str(exc):
            raise Fail("no_rule") from None
        if not isinstance(root.grad, list):
            raise Fail("seed_number", got=show(root.grad)) from None
        found = misshapen(root)
        if found:
            raise found from None
        raise exc
    found = misshapen(root)
    if found:
        raise found


@claim("L14", "backward_seed")
def backward_seed(env: Env) -> None:
    ops = Ops(env)
    x = ops.leaf([1.5, -2.0, 0.5], "x")
    y = ops.total(ops.mul(x, x, "x*x"), "y")
    for when, start in (("after one call", None), ("on a y whose grad already held [0.5]", [0.5])):
        if start is not None:
            y.grad = start
        ops.runs.clear()
        run_backward(y)
        seen = [grad for node, grad in ops.runs if node is y]  # y.grad when y's own rule ran
        if seen and seen[0] != [1.0]:
            raise Fail("seed", got=show(seen[0]), when=when)
        if y.grad != [1.0]:
            raise Fail("seed", got=show(y.grad), when=when)


def trap(ops: Ops, mirrored: bool) -> tuple[Any, Any]:
    """w; x = w*w; e = 3x; d = 2e; c = sum(x + d) (mirrored: d + x): x is used twice, once far above."""
    w = ops.leaf([2.0, -1.0], "w")
    x = ops.mul(w, w, "x")
    e = ops.scale(x, 3.0, "e")
    d = ops.scale(e, 2.0, "d")
    s = ops.add(d, x, "d + x") if mirrored else ops.add(x, d, "x + d")
    return w, ops.total(s, "c")


def first_misstep(ops: Ops, root: Any) -> tuple[str, dict[str, Any]] | None:
    """The first thing one backward() did wrong in running the rules: a message key and its values, or None."""
    inner = [node for node in tensor_order(root) if node._parents]
    for node in inner:
        times = sum(1 for ran, _ in ops.runs if ran is node)
        if times != 1:
            return ("repeated", {"node": ops.names[id(node)], "times": times}) if times else (
                "skipped", {"node": ops.names[id(node)]})
    position = {id(node): i for i, (node, _) in enumerate(ops.runs)}
    for node in inner:
        for user in inner:
            if any(parent is node for parent in user._parents) and position[id(user)] > position[id(node)]:
                return "order", {"node": ops.names[id(node)], "user": ops.names[id(user)]}
    return None



@claim("L14", "backward_order")
def backward_order(env: Env) -> None:
    for mirrored in (False, True):
        ops = Ops(env)
        w, c = trap(ops, mirrored)
        run_backward(c)
        expected = [14.0 * v for v in w.data]  # c = sum(w² + 6w²) = sum(7w²), so 14w
        if oracle.agree(w.grad, expected):
            continue
        values = {"graph": "c = sum(d + x)" if mirrored else "c = sum(x + d)", "got": show(list(w.grad)),
                  "expected": show(expected)}
        misstep = first_misstep(ops, c)
        if misstep is not None:
            key, found = misstep
            raise Fail(key, **found, **values)
        raise Fail("wrong", **values)


@claim("L14", "backward_shared")
def backward_shared(env: Env) -> None:
    ops = Ops(env)
    a, b = ops.leaf([2.0, -1.0, 0.5], "a"), ops.leaf([3.0, 4.0, -2.0], "b")
    y = ops.total(ops.add(ops.mul(a, b, "a*b"), a, "a*b + a"), "y")
    run_backward(y)
    shares = ([1.0] * 3, list(b.data))
    expected = [p + q for p, q in zip(*shares)]
    if not oracle.agree(a.grad, expected):
        one = any(oracle.agree(a.grad, share) for share in shares)
        raise Fail("overwrote" if one else "wrong", graph="y = sum(a*b + a)", got=show(list(a.grad)),
                   expected=show(expected), shares=f"{show(shares[1])} through a*b and {show(shares[0])} directly")
    ops = Ops(env)
    a = ops.leaf([2.0, -1.0, 0.5], "a")
    y = ops.total(ops.mul(a, a, "a*a"), "y")
    run_backward(y)
    expected = [2.0 * v for v in a.data]
    if not oracle.agree(a.grad, expected):
        one = oracle.agree(a.grad, list(a.data))
        raise Fail("overwrote" if one else "wrong", graph="y = sum(a*a)", got=show(list(a.grad)),
                   expected=show(expected), shares=f"{show(list(a.data))} from each factor")


@claim("L14", "backward_twice")
def backward_twice(env: Env) -> None:
    ops = Ops(env)
    a, b = ops.leaf([2.0, -1.0], "a"), ops.leaf([-3.0, 0.5], "b")
    inner = ops.add(ops.mul(a, b, "a*b"), a, "a*b + a")
    y = ops.total(ops.mul(inner, a, "(a*b + a)*a"), "y")
    run_backward(y)
    once = [list(a.grad), list(b.grad)]
    first = [[2 * p * q + 2 * p for p, q in zip(a.data, b.data)], [p * p for p in a.data]]
    if not all(oracle.agree(g, e) for g, e in zip(once, first)):
        twice = [[2 * g for g in grads] for grads in first]
        raise Fail("wrong", once=show(first), got=show(once), expected=show(twice), when="after the first call")
    if not oracle.agree(inner.grad, list(a.data)):  # what the one pass sent a*b + a, for the learner to read
        raise Fail("spent", inner=show(list(inner.grad)), one=show(list(a.data)))
    run_backward(y)
    got, expected = [list(a.grad), list(b.grad)], [[2 * g for g in once[0]], [2 * g for g in once[1]]]
    if all(oracle.agree(g, e) for g, e in zip(got, expected)):
        return
    values = {"once": show(once), "got": show(got), "expected": show(expected), "when": "after the second"}
    if all(oracle.agree(g, e) for g, e in zip(got, once)):
        raise Fail("leaves_reset", **values)
    if not oracle.agree(inner.grad, list(a.data)):  # one pass gives a*b + a the grad a
        raise Fail("kept", inner=show(list(inner.grad)), one=show(list(a.data)), **values)
    raise Fail("wrong", **values)


@claim("L14", "backward_long_chain")
def backward_long_chain(env: Env) -> None:
    with recursion_judged(), large_graph():
        ops = Ops(env)
        x = ops.leaf([0.0, 1.0], "x")
        y = x
        for _ in range(5000):
            y = ops.scale(y, 1.0, "y")
        y = ops.total(y, "sum")
        try:
            run_backward(y)
        finally:
            dismantle(y)
    if not oracle.agree(x.grad, [1.0, 1.0]):
        raise Fail("wrong", got=show(list(x.grad)))


def dismantle(root: Any) -> None:
    """Cut every link of a graph, output first, so that freeing a long chain never nests one call per node.

    A graph without cycles is freed by reference counting, each node freeing its parents inside its
    own deallocation: 5,000 nested deallocations overflow the browser's stack and crash Python there.
    """
    for node in tensor_order(root):
        node._parents, node._backward = (), None


@claim("L14", "backward_one_number")
def backward_one_number(env: Env) -> None:
    for shape in ((), (1,), (1, 1)):
        ops = Ops(env)
        x = ops.leaf([1.5], "x")
        y = ops.made([3.0 * x.data[0]], shape, (x,), "*3", lambda out: ([3.0 * out.grad[0]],), "y")
        try:
            run_backward(y)
        except ValueError as exc:
            raise Fail("refused", shape=shape_text(shape), error=str(exc)) from None
    ops = Ops(env)
    x = ops.leaf(oracle.numbers(SHAPE, 51), "x", SHAPE)
    y = ops.scale(x, 2.0, "y")
    try:
        y.backward()
    except ValueError as exc:
        if ops.runs:
            raise Fail("late", error=str(exc), runs=len(ops.runs)) from None
        return
    except Exception as exc:  # any other error is the finding
        raise Fail("kind", error=f"{type(exc).__name__}: {exc}") from None
    raise Fail("silent", grad=show(y.grad))


@claim("L14", "backward_checked")
def backward_checked(env: Env) -> None:
    """A rule that hands back a gradient of the wrong length is refused, not added."""
    for times, cut in ((3, 0), (1, 2)):  # 12 numbers for a tensor of 4, then 2
        ops = Ops(env)
        b = ops.leaf([0.5, -1.0, 2.0, 1.5], "b")

        def careless(out: Any, times: int = times, cut: int = cut) -> tuple:
            grad = list(out.grad) * times
            return (grad[:cut] if cut else grad,)
        stretched = ops.made([2.0 * x for x in b.data], (4,), (b,), "careless", careless, "careless")
        y = ops.total(stretched, "y")
        got = cut or 4 * times
        try:
            y.backward()
        except ValueError:
            continue
        except Exception as exc:  # any other error is the finding
            raise Fail("kind", got=got, error=f"{type(exc).__name__}: {exc}") from None
        raise Fail("unchecked", got=got, grad=show(b.grad) if isinstance(b.grad, list) else repr(b.grad))


def backward_work(env: Env, n: int) -> Traced:
    """The reads of one backward() of y = sum(x * x) with x of n numbers: x's grad and every gradient the
    checker's rules hand back count their reads."""
    work = Traced()
    ops = Ops(env)
    x = ops.leaf(cost_numbers(n), "x")
    xs = list(x.data)

    def square(out: Any) -> tuple:
        share = Tally([g * v for g, v in zip(out.grad, xs)], work)
        return share, Tally(list.__iter__(share), work)
    y = ops.total(ops.made([v * v for v in xs], (n,), (x, x), "*", square, "x*x"), "y")
    y._backward = lambda out: (Tally([out.grad[0]] * n, work),)
    tallied(x, work)
    work.restart()
    with own_lists_counted(env, work):
        y.backward()
    return work


CHAIN_SIZE = 32  # operations in the shorter chain: long enough that a walk's fixed work does not hide its growth


def chain_work(env: Env, length: int) -> Traced:
    """The work of the lists backward() builds itself, on a chain of ``length`` operations on one number each."""
    work = Traced()
    ops = Ops(env)
    y = ops.leaf([0.5], "x")
    for k in range(length):
        y = ops.scale(y, 1.0, f"y{k}")
    with own_lists_counted(env, work):
        y.backward()
    return work


@claim("L14", "backward_cost")
def backward_cost(env: Env) -> None:
    small, large = backward_work(env, COST_SIZE), backward_work(env, COST_SIZE * GROWTH)
    if found := square_growth(small, large, placer(env)):
        raise Fail("quadratic", n=COST_SIZE, **found)
    small, large = chain_work(env, CHAIN_SIZE), chain_work(env, CHAIN_SIZE * GROWTH)
    if found := square_growth(small, large, placer(env)):
        raise Fail("nodes", n=CHAIN_SIZE, times=GROWTH, **found)


# --- the whole engine ---------------------------------------------------------------------------


def spelled(xs: Sequence[Any], ys: Sequence[Any]) -> Any:
    """sum(tanh(a*b + a) * b - exp(a) / b + relu(a)**2 - log(b)) on Values: the same as ``by_tensor``."""
    terms = [(x * y + x).tanh() * y - x.exp() / y + x.relu() ** 2 - y.log() for x, y in zip(xs, ys)]
    return oracle.total(terms)


def by_tensor(a: Any, b: Any) -> Any:
    return ((a * b + a).tanh() * b - a.exp() / b + a.relu() ** 2 - b.log()).sum()


@claim("L14", "engine")
def engine(env: Env) -> None:
    a_flat, b_flat = [0.5, -1.0, 0.0, 1.5, -0.3, 2.0], oracle.numbers(SHAPE, 61, 0.4, 2.0)
    a, b = tensor(env, a_flat), tensor(env, b_flat)
    out = by_tensor(a, b)
    try:
        out.backward()
    except (TypeError, IndexError, ValueError) as exc:
        if isinstance(exc, TypeError) and "'NoneType' object is not callable" in str(exc):
            raise Fail("no_rule") from None
        found = misshapen(out)
        if found:
            raise found from None
        raise
    found = misshapen(out)
    if found:
        raise found
    got, ga, gb = out.item(), list(a.grad), list(b.grad)
    expected, (ea, eb) = oracle.by_values(env, spelled, a_flat, b_flat)
    if not (oracle.agree([got], [expected]) and oracle.agree(ga, ea) and oracle.agree(gb, eb)):
        raise Fail("wrong", got=show(got), expected=show(rounded([expected])[0]), got_a=show(ga), got_b=show(gb),
                   expected_a=show(rounded(ea)), expected_b=show(rounded(eb)))


@claim("L14", "freed")
def freed(env: Env) -> None:
    """With the cycle collector off, a graph must go as soon as nothing refers to it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        cases = [("t.tanh()", lambda t, u: t.tanh()), ("t * u", lambda t, u: t * u), ("t.sum()", lambda t, u: t.sum()),
                 ("(t * u).sum() after backward()", lambda t, u: walked((t * u).sum()))]
        for text, build in cases:
            t, u = tensor(env, A_FLAT), tensor(env, B_FLAT)
            out = build(t, u)
            ref = weakref.ref(out)
            del out
            if ref() is not None:
                raise Fail("cycle", op=text)
    finally:
        if collecting:
            gc.enable()
        gc.collect()


def walked(root: Any) -> Any:
    root.backward()
    return root


# --- contract sweeps (labs.checking.sweep): generated edge inputs, smallest first ---------------------------------

NUMBER_EDGES = (0.0, -0.0, sweep.LARGE, -sweep.LARGE, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)


def sweep_f(x: float) -> float:
    """The check's own f for the unary sweep: finite for finite x, inf for inf."""
    return 2.0 * x - 1.0


def sweep_slope(x: float, y: float) -> float:
    """The check's own slope for the unary sweep: inf where x is inf, so that 0 × inf shows."""
    return x * y + 1.0


def unary_cases() -> list[sweep.Case]:
    """t.unary(op, f, slope) with the check's own f and slope on shapes with no axes, a 0 or a 1, and numbers
    and an out.grad with 0, -0.0, large, tiny, inf and nan."""
    rng = random.Random(1490)
    shapes: list[tuple[int, ...]] = [(), (0,), (1,), (3,), (0, 3), (2, 2), (2, 1, 2), (4,), (3, 2)]
    cases = []
    for k, shape in enumerate(shapes + shapes):
        flat = sweep.numbers(rng, oracle.size(shape), NUMBER_EDGES)
        seed = sweep.numbers(rng, oracle.size(shape), (0.0, sweep.LARGE, sweep.INF, -sweep.INF, sweep.NAN))
        if k == len(shapes) + 3:  # an inf where no gradient arrives, for certain
            flat[0], seed[0] = sweep.INF, 0.0
        shown = (f"t of shape {show(shape)} holding {sweep.nested_text(flat, shape)}, the check's own f(x) = 2x - 1 "
                 f"and slope(x, y) = x·y + 1, out.grad = {sweep.nested_text(seed, shape)}")
        cases.append(sweep.Case(shown, oracle.size(shape) + len(shape), (shape, flat, seed)))
    return cases


def unary_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    shape, flat, seed = case.data
    data = [sweep_f(x) for x in flat]
    grad = [g * sweep_slope(x, y) for g, x, y in zip(seed, flat, data)]
    t = sweep.leaf(env, flat, shape)
    call = "t.unary('spy', f, slope)"
    out, error = sweep.outcome(lambda: t.unary("spy", sweep_f, sweep_slope))
    finding = sweep.error_finding(error, "a result") if error else sweep.result_apart(out, data, shape)
    if finding is None:
        call = f"the rule of {call}"
        got, error = sweep.outcome(lambda: sweep.grads_through(out, seed, (t,))[0])
        finding = sweep.error_finding(error, "a gradient") if error else sweep.grads_apart(got, grad, shape)
    if finding is not None:
        finding.values["call"] = call
    return finding


@claim("L14", "unary_sweep")
def unary_sweep(env: Env) -> None:
    sweep.fail_on_smallest("L14.unary", unary_cases(), lambda case: unary_judge(env, case))


# A graph for the walk's sweep: leaves x0.. of two numbers each, then steps (op, operands, k): "*" and "+" of two
# earlier nodes, "k" a node times the number k; the output is the sum of the last node.
Step = tuple[str, tuple[int, ...], float]
LEAF_EDGES = (0.0, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)


def graph_cases() -> list[sweep.Case]:
    """Graphs of one to six steps over two or three leaves holding 0, tiny, inf and nan; a node used twice, a
    scale by 0 (a gradient of all zeros sent on), a leaf used by the output directly."""
    rng = random.Random(1491)
    fixed: list[tuple[int, list[Step]]] = [(1, [("*", (0, 0), 0.0)]), (2, [("*", (0, 0), 0.0), ("*", (2, 1), 0.0)]),
                                            (1, [("*", (0, 0), 0.0), ("k", (1,), 0.0)])]
    specs = fixed + [random_graph(rng) for _ in range(12)]
    cases = []
    for leaves, steps in specs:
        flats = [sweep.numbers(rng, 2, LEAF_EDGES) for _ in range(leaves)]
        if (leaves, steps) == fixed[1] or (leaves, steps) == fixed[2]:
            flats[0] = [sweep.INF, 0.5]
            if leaves > 1:
                flats[1] = [0.0, 2.0]
        cases.append(sweep.Case(graph_text(flats, steps), leaves + 2 * len(steps), (flats, steps)))
    return cases


def random_graph(rng: random.Random) -> tuple[int, list[Step]]:
    """Two or three leaves and one to six steps, each on nodes made before it."""
    leaves = rng.randint(2, 3)
    steps: list[Step] = []
    for _ in range(rng.randint(1, 6)):
        made = leaves + len(steps)
        op = rng.choice("*+k")
        operands = (rng.randrange(made),) if op == "k" else (rng.randrange(made), rng.randrange(made))
        steps.append((op, operands, rng.choice((0.0, 2.0, -1.0, sweep.INF))))
    return leaves, steps


def graph_text(flats: list[list[float]], steps: list[Step]) -> str:
    """The graph as a learner reads it: x0 = [...], ...; n2 = x0 * x1; ...; the output sum(n3)."""
    names = [f"x{i}" for i in range(len(flats))]
    parts = [f"{name} = {show(flat)}" for name, flat in zip(names, flats)]
    for op, operands, k in steps:
        name = f"n{len(names)}"
        left = names[operands[0]]
        parts.append(f"{name} = {show(k)}·{left}" if op == "k" else f"{name} = {left} {op} {names[operands[1]]}")
        names.append(name)
    return "; ".join(parts) + f"; y = sum({names[-1]})"


def built(env: Env, flats: list[list[float]], steps: list[Step]) -> tuple[list[Any], Any]:
    """The graph made with the checker's own operations (Ops): its leaves and its output."""
    ops = Ops(env)
    nodes = [ops.leaf(flat, f"x{i}") for i, flat in enumerate(flats)]
    for op, operands, k in steps:
        name = f"n{len(nodes)}"
        if op == "k":
            nodes.append(ops.scale(nodes[operands[0]], k, name))
        else:
            a, b = nodes[operands[0]], nodes[operands[1]]
            nodes.append(ops.mul(a, b, name) if op == "*" else ops.add(a, b, name))
    return nodes[:len(flats)], ops.total(nodes[-1], "y")


def graph_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    flats, steps = case.data
    leaves_, root = built(env, flats, steps)
    expected = sweep.grads_through(root, [1.0], leaves_)
    leaves_, root = built(env, flats, steps)
    _, error = sweep.outcome(root.backward)
    if sweep.excused(error, *expected):
        return None
    for i, (leaf, grad) in enumerate(zip(leaves_, expected)):
        finding = sweep.error_finding(error, "the gradients") if error else sweep.grads_apart(
            leaf.grad, grad, (len(grad),))
        if finding is not None:
            finding.values["call"] = f"x{i}.grad after y.backward()"
            return finding
    return None


@claim("L14", "backward_sweep")
def backward_sweep(env: Env) -> None:
    sweep.fail_on_smallest("L14.backward", graph_cases(), lambda case: graph_judge(env, case))
