"""Checks of lesson 15, Broadcasting, and what it does backward.

Every expected shape, position and gradient here comes from the checker's own reading of NumPy's
rule (``labs.checking.oracle.stretched``) and from the same computation spelled out in the learner's own
``Value``s, never from the learner's tensor code.
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import combinations
from types import ModuleType
from typing import Any

from labs.checking import references, sweep
from labs.checking.claimkit import Env, Fail, claim, show
from labs.checking.cost import GROWTH, Growth, Tally, Traced, helpers_counted, tallied
from labs.checking.oracle import (
    Flat,
    Shape,
    agree,
    names_shape,
    nested,
    numbers,
    rule_grads,
    seed_kept,
    size,
    stretched,
    total,
)
from labs.checking.own_lists import placer

# --- the checker's own broadcasting ------------------------------------------------------------


def padded_on_the_left(a: Shape, b: Shape) -> list[tuple[int, int]]:
    """The two shapes' lengths axis by axis, lined up on the right (the shorter padded with 1s in front)."""
    n = max(len(a), len(b))
    return list(zip((1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)))


def right_aligned(a: Shape, b: Shape) -> Shape | None:
    """NumPy's common shape of a and b, or None when they do not fit."""
    pairs = padded_on_the_left(a, b)
    if any(x != y and 1 not in (x, y) for x, y in pairs):
        return None
    return tuple(y if x == 1 else x for x, y in pairs)  # a 1 stretches even to 0


def left_aligned(a: Shape, b: Shape) -> Shape | None:
    """What lining the shapes up on the left (padding 1s at the end) would give: the classic mistake."""
    n = max(len(a), len(b))
    padded_a, padded_b = tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))
    if any(x != y and 1 not in (x, y) for x, y in zip(padded_a, padded_b)):
        return None
    return tuple(y if x == 1 else x for x, y in zip(padded_a, padded_b))


def summed_back(grad: Sequence[float], shape: Shape, to: Shape) -> list[float]:
    """A gradient of shape ``shape`` summed onto the shape ``to`` that was stretched to it (fsum per number)."""
    shares: list[list[float]] = [[] for _ in range(size(to))]
    for g, i in zip(grad, stretched(to, shape)):
        shares[i].append(g)
    return [math.fsum(s) for s in shares]


def summed_over(grad: Sequence[float], shape: Shape, axes: Sequence[int]) -> list[float]:
    """A gradient of shape ``shape`` summed over the given axes (those axes dropped)."""
    kept = tuple(1 if axis in axes else n for axis, n in enumerate(shape))
    return summed_back(grad, shape, kept)


def stretched_axes(shape: Shape, to: Shape) -> list[int]:
    """The axes of ``to`` along which a tensor of ``shape`` is read again and again (missing ones included)."""
    padded = (1,) * (len(to) - len(shape)) + tuple(shape)
    return [axis for axis, (n, m) in enumerate(zip(padded, to)) if n != m]


def outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """What a call of the learner's returns, or the ValueError it raises (other errors propagate)."""
    try:
        return call(), None
    except ValueError as error:
        return None, error


# --- broadcast_shape ---------------------------------------------------------------------------

FITTING = [((3, 1), (1, 4)), ((2, 1), (2,)), ((2, 3), (3,)), ((), (2, 3)), ((2, 3), ()), ((2, 1, 3), (4, 1)),
           ((4, 1), (2, 1, 3)), ((1,), (3, 1)), ((3,), (3,)), ((2, 3), (1, 3)), ((5, 1, 1), (1, 1)), ((1,), ()),
           ((2, 1), (0,)), ((0, 3), (1, 3))]
NOT_FITTING = [((3, 2), (4,)), ((2, 3), (3, 2)), ((2, 3, 4), (2, 4)), ((3,), (4,)), ((0,), (2,))]


def largest(a: Shape, b: Shape) -> Shape:
    """The larger length on each axis, right-aligned: right except where a 1 meets a 0."""
    return tuple(max(x, y) for x, y in padded_on_the_left(a, b))


def check_fitting(env: Env, a: Shape, b: Shape) -> None:
    """broadcast_shape(a, b) for shapes that fit: the right tuple, no error."""
    expected = right_aligned(a, b)
    got, error = outcome(lambda: env.shapes.broadcast_shape(a, b))
    left = left_aligned(a, b)
    if error is not None:
        raise Fail("refused", a=show(a), b=show(b), expected=show(expected), error=str(error))
    if not isinstance(got, tuple) and isinstance(got, Sequence) and tuple(got) == expected:
        raise Fail("not_tuple", a=show(a), b=show(b), expected=show(expected), got=show(got),
                   kind=type(got).__name__)
    if got != expected:
        if left is not None and left != expected and isinstance(got, (list, tuple)) and tuple(got) == left:
            raise Fail("left", a=show(a), b=show(b), expected=show(expected), got=show(got))
        if 0 in a + b and isinstance(got, (list, tuple)) and tuple(got) == largest(a, b):
            raise Fail("zero", a=show(a), b=show(b), expected=show(expected), got=show(got))
        raise Fail("wrong", a=show(a), b=show(b), expected=show(expected), got=show(got))


def check_not_fitting(env: Env, a: Shape, b: Shape, call: Callable[[], Any], what: str) -> None:
    """``call`` on shapes a and b that do not fit must raise a ValueError whose message names both shapes."""
    x, y = next((x, y) for x, y in padded_on_the_left(a, b) if x != y and 1 not in (x, y))
    try:
        got = call()
    except ValueError as error:
        if not (names_shape(str(error), a) and names_shape(str(error), b)):
            raise Fail("unnamed", what=what, a=show(a), b=show(b), error=str(error)) from None
        return
    except (AssertionError, IndexError, KeyError, TypeError) as error:
        raise Fail("wrong_error", what=what, a=show(a), b=show(b), kind=type(error).__name__,
                   error=str(error)) from None
    seen = f"a tensor of shape {show(tuple(got.shape))}" if hasattr(got, "shape") else show(got)
    raise Fail("no_error", what=what, a=show(a), b=show(b), x=x, y=y, got=seen)


@claim("L15", "broadcast_shape")
def broadcast_shape(env: Env) -> None:
    for a, b in FITTING:
        check_fitting(env, a, b)
    for a, b in NOT_FITTING:
        # mypy types no lambda's defaults (here binding this turn's values): hence its ignore
        check_not_fitting(env, a, b, lambda a=a, b=b: env.shapes.broadcast_shape(a, b),  # type: ignore[misc]
                          f"broadcast_shape({show(a)}, {show(b)})")


# --- unbroadcast ---------------------------------------------------------------------------------

# (shape of the gradient, shape it goes back to); the square ones tell the axes apart by their numbers.
UNBROADCAST = [((3, 4), (3, 1)), ((3, 4), (1, 4)), ((3, 3), (1, 3)), ((3, 3), (3, 1)), ((3, 3), (3,)),
               ((3, 4), (4,)), ((3, 4), ()), ((2, 4, 3), (4, 1)), ((2, 4, 3), (2, 1, 3)), ((2, 4, 3), (1,)),
               ((2, 3), (1, 1)), ((2, 3), (2, 3))]


@contextmanager
def calls_recorded(module: ModuleType, name: str) -> Iterator[list[tuple[Any, ...]]]:
    """Inside the block, the arguments of every call of ``module.name`` (the course's helper), in order."""
    function = getattr(module, name, None)
    calls: list[tuple[Any, ...]] = []
    if not callable(function):
        yield calls
        return

    def recorded(*args: Any) -> Any:
        calls.append(tuple(tuple(a) if isinstance(a, (list, tuple)) else a for a in args))
        return function(*args)

    setattr(module, name, recorded)
    try:
        yield calls
    finally:
        setattr(module, name, function)


def check_unbroadcast(env: Env, shape: Shape, to: Shape, seed: int) -> None:
    grad = numbers(shape, seed)
    with calls_recorded(env.shapes, "broadcast_index") as calls:
        try:
            got = env.shapes.unbroadcast(list(grad), shape, to)
        except (IndexError, ValueError, TypeError) as error:
            got = error
    swapped = shape != to and (shape, to) in calls
    if isinstance(got, Exception):
        if swapped:
            raise Fail("swapped", shape=show(shape), to=show(to),
                       outcome=f"It raised {type(got).__name__} ({got})") from None
        raise got
    try:
        got = [float(g) for g in got]
    except (TypeError, ValueError):
        raise Fail("wrong", shape=show(shape), to=show(to), grad=show(grad), expected="a list of numbers",
                   got=show(got), i=0, positions="[]") from None
    expected = summed_back(grad, shape, to)
    if agree(got, expected):
        return
    if swapped:
        raise Fail("swapped", shape=show(shape), to=show(to), outcome=f"It gave {show(got)}, not {show(expected)}")
    reads = stretched(to, shape)
    if len(got) != len(expected):
        why = (f"That is the whole gradient, not summed: each number of a {show(to)} tensor was read "
               f"{size(shape) // max(1, size(to))} times, so its gradient is the sum of those shares."
               if len(got) == len(grad) else
               "Sum over exactly the axes that were stretched: those where the small shape has a 1, "
               "or no axis at all once both are lined up on the right.")
        raise Fail("length", shape=show(shape), to=show(to), n=len(expected), got_n=len(got), why=why)
    axes = stretched_axes(to, shape)
    for count in range(1, len(shape) + 1):
        for other in combinations(range(len(shape)), count):
            if list(other) != axes and agree(got, summed_over(grad, shape, other)):
                raise Fail("wrong_axis", shape=show(shape), to=show(to), grad=show(grad), expected=show(expected),
                           got=show(got), axes=show(axes), other=show(list(other)))
    i = next(i for i, (g, e) in enumerate(zip(got, expected)) if not agree([g], [e]))
    positions = [k for k, r in enumerate(reads) if r == i]
    terms = [grad[k] for k in positions]
    values = dict(shape=show(shape), to=show(to), i=i, terms=show(terms), expected=show(expected[i]),
                  got=show(got[i]), k=len(terms))
    if len(terms) > 1 and any(agree([got[i]], [t]) for t in terms):
        raise Fail("one_term", **values)
    if len(terms) > 1 and agree([got[i]], [expected[i] / len(terms)]):
        raise Fail("mean", **values)
    raise Fail("wrong", shape=show(shape), to=show(to), grad=show(grad), expected=show(expected), got=show(got),
               i=i, positions=show(positions))


@claim("L15", "unbroadcast")
def unbroadcast(env: Env) -> None:
    for seed, (shape, to) in enumerate(UNBROADCAST):
        check_unbroadcast(env, shape, to, 150 + seed)


# --- arithmetic with broadcasting, against the Value spelling ------------------------------------

OPS: dict[str, Callable[[Any, Any], Any]] = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                                             "/": operator.truediv}
PARTIALS: dict[str, tuple[Callable[[float, float], float], Callable[[float, float], float]]] = {
    "+": (lambda a, b: 1.0, lambda a, b: 1.0), "-": (lambda a, b: 1.0, lambda a, b: -1.0),
    "*": (lambda a, b: b, lambda a, b: a), "/": (lambda a, b: 1.0 / b, lambda a, b: -a / (b * b)),
}
Operand = Shape | float  # a tensor of this shape, or a plain number


def operand_numbers(operand: Operand, seed: int, op: str, right: bool) -> list[float]:
    """The numbers of one side: a plain number as it is, a tensor's from the seed (a divisor kept from 0)."""
    if not isinstance(operand, tuple):
        return [float(operand)]
    if op == "/" and right:
        return numbers(operand, seed, 0.5, 2.0)
    return numbers(operand, seed)


def describe(a: Operand, op: str, b: Operand) -> str:
    """'a * b, a of shape (2, 3) and b of shape (3,)', or '2.0 - b, b of shape (2, 3)'."""
    left = "a" if isinstance(a, tuple) else show(float(a))
    right = "b" if isinstance(b, tuple) else show(float(b))
    shapes = [f"{name} of shape {show(s)}" for name, s in (("a", a), ("b", b)) if isinstance(s, tuple)]
    return f"{left} {op} {right}, " + " and ".join(shapes)


UNSTRETCHED = ("That is what the rule gives when it pairs out.grad with a's and b's numbers as they were before "
               "stretching: lists of different lengths, so zip stops at the shortest and pairs positions that do not "
               "belong together. The rule should read the stretched lists the forward paired up, one number per "
               "position of the output.")


class Case:
    """One operation of the learner's tensors on two operands, with everything the checker expects of it."""

    def __init__(self, env: Env, a: Operand, op: str, b: Operand, seed: int) -> None:
        self.env, self.a, self.op, self.b = env, a, op, b
        self.a_flat = operand_numbers(a, seed, op, False)
        self.b_flat = operand_numbers(b, seed + 1, op, True)
        self.a_shape = a if isinstance(a, tuple) else ()
        self.b_shape = b if isinstance(b, tuple) else ()
        shape = right_aligned(self.a_shape, self.b_shape)
        assert shape is not None
        self.shape: Shape = shape
        self.ra, self.rb = stretched(self.a_shape, self.shape), stretched(self.b_shape, self.shape)
        self.seed = numbers(self.shape, seed + 2)  # an upstream gradient that is not all ones
        self.expr = describe(a, op, b)

    def side(self, operand: Operand, flat: list[float]) -> Any:
        """A learner Tensor for a tensor operand, the plain number itself otherwise."""
        return self.env.tensor.Tensor(nested(flat, operand)) if isinstance(operand, tuple) else float(operand)

    def by_values(self) -> tuple[list[float], list[float], list[float]]:
        """Output numbers and the gradients of sum(seed · out) for a and b, spelled out in the learner's Values."""
        va = [self.env.Value(x) for x in self.a_flat]
        vb = [self.env.Value(x) for x in self.b_flat]
        f = OPS[self.op]
        outs = [f(va[i] if isinstance(self.a, tuple) else self.a_flat[0],
                  vb[j] if isinstance(self.b, tuple) else self.b_flat[0]) for i, j in zip(self.ra, self.rb)]
        loss = total([o * g for o, g in zip(outs, self.seed)])
        loss.backward()
        return [o.data for o in outs], [v.grad for v in va], [v.grad for v in vb]

    def local(self, which: int, partial: int) -> list[float]:
        """seed × a partial at every output position, summed back onto side ``which`` (for diagnosis)."""
        d = PARTIALS[self.op][partial]
        flat = [g * d(self.a_flat[i], self.b_flat[j]) for g, i, j in zip(self.seed, self.ra, self.rb)]
        return summed_back(flat, self.shape, (self.a_shape, self.b_shape)[which])

    def to_other_parent(self, which: int, got: list[float]) -> bool:
        """Whether side ``which``'s gradient was summed back to the other side's shape instead of its own."""
        own, other = (self.a_shape, self.b_shape)[which], (self.b_shape, self.a_shape)[which]
        partial = PARTIALS[self.op][which]
        flat = [g * partial(self.a_flat[i], self.b_flat[j]) for g, i, j in zip(self.seed, self.ra, self.rb)]
        return own != other and agree(got, summed_back(flat, self.shape, other))

    def unstretched(self, which: int, got: list[float]) -> bool:
        """Whether side ``which``'s gradient is what a rule gives that pairs out.grad with a's and b's numbers as
        they were before stretching (zip stopping at the shortest), summed back to the side's shape or not."""
        partial = PARTIALS[self.op][which]
        flat = [g * partial(x, y) for g, x, y in zip(self.seed, self.a_flat, self.b_flat)]
        if len(flat) == size(self.shape):
            return False  # nothing was stretched: the lists are the stretched ones
        own = (self.a_shape, self.b_shape)[which]
        return agree(got, flat) or agree(got, summed_back(flat, self.shape, own))

    def grad_why(self, which: int, got: list[float]) -> str:
        """What a wrong gradient for side ``which`` looks like."""
        own, other = (self.a_shape, self.b_shape)[which], (self.b_shape, self.a_shape)[which]
        if self.unstretched(which, got):
            return UNSTRETCHED
        if agree(got, self.local(which, 1 - which)):
            return (f"That is the output's gradient times the partial for the {('second', 'first')[which]} "
                    "side: da and db are swapped.")
        if self.to_other_parent(which, got):
            return (f"That is this side's gradient summed to the other parent's shape {show(other)}: each "
                    "gradient goes back to its own parent's shape.")
        return (f"Each number of this side was read at {size(self.shape) // max(1, size(own))} positions of the "
                "output: its gradient is the sum over those positions of out.grad times this side's partial.")

    def run(self) -> None:
        """The forward numbers and the rule called by hand, against the Value spelling."""
        tensors = (self.side(self.a, self.a_flat), self.side(self.b, self.b_flat))
        expected_out, ga, gb = self.by_values()
        try:
            out = OPS[self.op](*tensors)
        except ValueError as error:
            raise Fail("forward", expr=self.expr, shape=show(self.shape), expected=show(expected_out),
                       got=f"ValueError: {error}", why="These shapes fit: both sides must be stretched to "
                       "the common shape that broadcast_shape gives.") from None
        got_out = list(out.data)
        if tuple(out.shape) != self.shape or not agree(got_out, expected_out):
            if tuple(out.shape) != self.shape:
                why = "The result's shape is the common shape that broadcast_shape gives for the two shapes."
            elif len(got_out) != size(self.shape):
                why = ("Both sides must be stretched to it with expand before they are paired up: zip stops at "
                       "the shorter list.")
            else:
                why = "Pair up the numbers of both sides after stretching each of them to the output's shape."
            raise Fail("forward", expr=self.expr, shape=show(self.shape), expected=show(expected_out),
                       got=f"shape {show(tuple(out.shape))} holding {show(got_out)}", why=why)
        self.check_rule(out, tensors, (ga, gb))

    def walk(self) -> None:
        """The same through the learner's backward(), once every rule is known to be right by itself."""
        self.check_walk(self.by_values()[1:])

    def check_rule(self, out: Any, tensors: tuple[Any, Any], expected: tuple[list[float], list[float]]) -> None:
        """Call the output's rule by hand: each parent's gradient has its length; a's and b's match the Values."""
        parents = tuple(out._parents)
        grads = rule_grads(out, self.seed)
        for parent, grad in zip(parents, grads):
            if len(grad) != len(parent.data):
                whose = "a" if parent is tensors[0] else "b" if parent is tensors[1] else "the plain number"
                if len(grad) == size(self.shape):
                    why = (f"That is the output's gradient, not summed back: sum it over the stretched axes "
                           f"with unbroadcast(..., {show(tuple(parent.shape))}).")
                elif whose != "the plain number" and self.unstretched("ab".index(whose), grad):
                    why = UNSTRETCHED
                elif whose != "the plain number" and self.to_other_parent("ab".index(whose), grad):
                    why = "That is the size of the other parent: each gradient goes back to its own parent's shape."
                else:
                    why = "A gradient has exactly the shape of the tensor it belongs to."
                raise Fail("length", op=str(out._op), out_shape=show(tuple(out.shape)), expr=self.expr,
                           got_n=len(grad), whose=whose, shape=show(tuple(parent.shape)), n=len(parent.data),
                           why=why)
        for which, (parent, grad) in enumerate(zip(parents, grads)):
            if parent is not tensors[which]:
                continue  # a node of the learner's own making in between: check_walk checks its gradients
            if not agree(grad, expected[which]):
                raise Fail("grad", expr=self.expr, upstream=show(self.seed), side="ab"[which],
                           shape=show(tuple(parent.shape)), expected=show(expected[which]), got=show(grad),
                           why=self.grad_why(which, grad))
        seed_kept(out, self.seed)

    def check_walk(self, expected: tuple[list[float], ...]) -> None:
        """loss = (a op b * w).sum() through the learner's backward(): a's and b's .grad match the Values."""
        weights = self.env.tensor.Tensor(nested(self.seed, self.shape))
        fresh = tuple(self.side(x, flat) for x, flat in ((self.a, self.a_flat), (self.b, self.b_flat)))
        (OPS[self.op](*fresh) * weights).sum().backward()
        for which, t in enumerate(fresh):
            if isinstance(t, float):
                continue
            if not agree(list(t.grad), expected[which]):
                raise Fail("walk", expr=self.expr, upstream=show(self.seed), side="ab"[which],
                           expected=show(expected[which]), got=show(list(t.grad)))


def run_cases(env: Env, cases: Sequence[tuple[Operand, str, Operand]], seed: int) -> None:
    """Every case's forward and rule first, then a product of same-shape tensors for each output shape (the
    walk multiplies by weights of that shape), then every case through backward()."""
    made = [Case(env, a, op, b, seed + 10 * k) for k, (a, op, b) in enumerate(cases)]
    shapes = list(dict.fromkeys(case.shape for case in made))
    made_too = [Case(env, shape, "*", shape, seed + 500 + 10 * k) for k, shape in enumerate(shapes)]
    for case in made + made_too:
        case.run()
    for case in made:
        case.walk()


@claim("L15", "column_row")
def column_row(env: Env) -> None:
    run_cases(env, [((3, 1), "+", (1, 4)), ((3, 1), "*", (1, 4)), ((1, 4), "-", (3, 1)), ((3, 1), "*", (1, 3)),
                    ((3, 1), "/", (1, 4))], 1500)


@claim("L15", "row_vector")
def row_vector(env: Env) -> None:
    run_cases(env, [((2, 3), "+", (3,)), ((2, 3), "*", (3,)), ((3,), "-", (2, 3)), ((2, 3), "/", (3,)),
                    ((3,), "*", (2, 3))], 1600)
    a, b = (2, 3), (2,)
    t, u = env.tensor.Tensor(nested(numbers(a, 1), a)), env.tensor.Tensor(nested(numbers(b, 2), b))
    check_not_fitting(env, a, b, lambda: t * u, f"a * b with a of shape {show(a)} and b of shape {show(b)}")


@claim("L15", "scalar")
def scalar(env: Env) -> None:
    run_cases(env, [((), "+", (2, 3)), ((), "*", (2, 3)), ((2, 3), "+", ()), ((2, 3), "/", ()),
                    (2.0, "-", (2, 3)), (1.0, "/", (2, 3)), ((2, 3), "*", 3.0), ((2, 3), "-", 0.5),
                    ((), "*", 3.0), (2.0, "+", ())], 1700)


@claim("L15", "three_axes")
def three_axes(env: Env) -> None:
    run_cases(env, [((2, 1, 3), "+", (4, 1)), ((2, 1, 3), "*", (4, 1)), ((4, 1), "-", (2, 1, 3)),
                    ((4, 1), "/", (2, 1, 3))], 1800)


# --- how the work grows, counted (labs.checking.cost): never timed ----------------------------------------

@contextmanager
def checkers_unbroadcast(module: ModuleType) -> Iterator[None]:
    """Inside the block, the module's unbroadcast is the checker's own (one pass over the gradient), so that
    the work of a rule that calls it is the rule's own."""
    kept = getattr(module, "unbroadcast", None)

    def unbroadcast(grad: Sequence[float], shape: Shape, to: Shape) -> list[float]:
        total_ = [0.0] * size(to)
        for g, i in zip(grad, stretched(to, shape)):
            total_[i] += g
        return total_

    module.unbroadcast = unbroadcast  # type: ignore[attr-defined]
    try:
        yield
    finally:
        module.unbroadcast = kept  # type: ignore[attr-defined]


def unbroadcast_reads(env: Env, shape: Shape, to: Shape) -> Traced:
    """Numbers the learner's unbroadcast reads for a gradient of ``shape`` going back to ``to``, by kind."""
    work = Traced()
    with helpers_counted(env, work):
        env.shapes.unbroadcast(Tally(numbers(shape, 7), work), shape, to)
    return work


# (gradient's shape, the shape it goes back to) as a function of n; n grows GROWTH times
UNBROADCAST_GROWTH: list[Callable[[int], tuple[Shape, Shape]]] = [
    lambda n: ((n, 4), (n, 1)), lambda n: ((4, n), (n,)), lambda n: ((n, 3, 2), (n, 1, 2))]


@claim("L15", "unbroadcast_cost")
def unbroadcast_cost(env: Env) -> None:
    for case in UNBROADCAST_GROWTH:
        (shape, to), (big, big_to) = case(4), case(4 * GROWTH)
        small, large = unbroadcast_reads(env, shape, to), unbroadcast_reads(env, big, big_to)
        growth = Growth(f"unbroadcast from {show(shape)} to {show(to)}", small, large, size(shape), size(big),
                        placer(env))
        if growth.quadratic:
            raise Fail("quadratic", **growth.values())


def binary_reads(env: Env, a: Shape, op: str, b: Shape) -> tuple[Traced, Traced]:
    """Numbers the forward of a op b reads, then its rule (with the checker's own unbroadcast), for tensors of
    these shapes, by kind."""
    work = Traced()
    ta = tallied(env.tensor.Tensor(nested(numbers(a, 11, 0.5, 2.0), a)), work)
    tb = tallied(env.tensor.Tensor(nested(numbers(b, 12, 0.5, 2.0), b)), work)
    with helpers_counted(env, work), checkers_unbroadcast(env.tensor):
        out = OPS[op](ta, tb)
        forward = work.snapshot()
        out.grad = Tally(numbers(tuple(out.shape), 13), work)
        out._backward(out)
    return forward, work.since(forward)


# (a's shape, op, b's shape) as a function of n; n grows GROWTH times
BINARY_GROWTH: list[Callable[[int], tuple[Shape, str, Shape]]] = [
    lambda n: ((n, 1), "*", (n, 4)), lambda n: ((4,), "-", (n, 4)), lambda n: ((n, 4), "/", (n, 4)),
    lambda n: ((n, 1), "+", (1, 4))]


@claim("L15", "binary_cost")
def binary_cost(env: Env) -> None:
    for case in BINARY_GROWTH:
        (a, op, b), (big_a, _, big_b) = case(4), case(4 * GROWTH)
        shape, big = right_aligned(a, b), right_aligned(big_a, big_b)
        assert shape is not None and big is not None
        forward, rule = binary_reads(env, a, op, b)
        big_forward, big_rule = binary_reads(env, big_a, op, big_b)
        expr = f"a {op} b for a of shape {show(a)} and b of shape {show(b)}"
        growth = Growth(f"The forward of {expr}", forward, big_forward, size(shape), size(big), placer(env))
        if growth.quadratic:
            raise Fail("forward", **growth.values())
        growth = Growth(f"The rule of {expr}", rule, big_rule, size(shape), size(big), placer(env))
        if growth.quadratic:
            raise Fail("rule", **growth.values())


# --- contract sweeps (labs.checking.sweep): generated edge inputs, smallest first ---------------------------------

GRAD_EDGES = (0.0, sweep.LARGE, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)  # large of one sign: no cancelling


def some_shape(rng: random.Random, axes: int) -> Shape:
    """A shape of ``axes`` axes, each of length 0 to 3 (1 more often: it is the one that stretches)."""
    return tuple(rng.choice((0, 1, 1, 2, 3)) for _ in range(axes))


def stretched_from(rng: random.Random, to: Shape) -> Shape:
    """A shape that ``to`` stretches to: each 1 of ``to`` becomes any length, and up to two axes go in front."""
    return tuple(rng.choice((0, 1, 2, 3)) for _ in range(rng.randint(0, 2))) + tuple(
        rng.choice((0, 1, 2, 3)) if n == 1 else n for n in to)


def shapes_cases() -> list[sweep.Case]:
    """broadcast_shape on every pair of shapes of up to two axes of lengths 0 to 2, and on some of three axes;
    unbroadcast of gradients holding large, tiny, inf and nan numbers back to shapes with a 0, a 1 or no axes."""
    rng = random.Random(1590)
    small = [()] + [(x,) for x in range(3)] + [(x, y) for x in range(3) for y in range(3)]
    pairs = [(a, b) for a in small for b in small] + [(some_shape(rng, 3), some_shape(rng, 2)) for _ in range(6)]
    cases = [sweep.Case(f"broadcast_shape({show(a)}, {show(b)})", len(a) + len(b), ("shape", a, b)) for a, b in pairs]
    stretches: list[tuple[Shape, Shape]] = [((2, 2), (2, 1)), ((2, 2), (1, 2)), ((2, 3), (3,)), ((3, 2), (1, 2)),
                                            ((2, 1, 2), (1, 2)), ((2, 3), (2, 3)), ((2, 2), (1,)), ((0, 2), (2,))]
    while len(stretches) < 30:
        to = some_shape(rng, rng.randint(0, 3))
        stretches.append((stretched_from(rng, to), to))
    for shape, to in stretches:
        grad = sweep.numbers(rng, size(shape), GRAD_EDGES)
        shown = f"unbroadcast({show(grad)}, {show(shape)}, {show(to)})"
        cases.append(sweep.Case(shown, size(shape) + len(shape), ("unbroadcast", shape, to, grad)))
    return cases


def shapes_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    if case.data[0] == "shape":
        _, a, b = case.data
        expected = right_aligned(a, b)
        got, error = sweep.outcome(lambda: env.shapes.broadcast_shape(a, b))
        finding = None
        if expected is None:
            finding = sweep.refusal_apart(("ValueError",), got, error)
        elif error is not None or not isinstance(got, tuple) or got != expected:
            finding = sweep.Finding("differs", {"got": error or f"{type(got).__name__} {show(got)}",
                                                "expected": show(expected), "why": ""})
        if finding is not None:
            finding.values.update(gap="L15.broadcast_shape", call=case.shown)
        return finding
    _, shape, to, grad = case.data
    summed = references.unbroadcast(grad, shape, to)
    handed = list(grad)
    got, error = sweep.outcome(lambda: env.shapes.unbroadcast(handed, shape, to))
    if sweep.excused(error, summed):
        return None
    finding = sweep.error_finding(error, "a gradient") if error else sweep.grads_apart(got, summed, to)
    if finding is None and not sweep.same_input(handed, grad):
        return sweep.Finding("changed", {"call": case.shown, "got": show(handed)})
    if finding is not None:
        finding.values["call"] = case.shown
    return finding


@claim("L15", "shapes_sweep")
def shapes_sweep(env: Env) -> None:
    cases = shapes_cases()
    found = sweep.smallest_failing(cases, lambda case: shapes_judge(env, case))
    if found is not None:
        case, finding = found
        finding.values.setdefault("gap", "L15.unbroadcast")
        raise Fail(finding.key, tried=len(cases), input=case.shown, **finding.values)


BINARY_SWEEP_EDGES = (0.0, sweep.TINY, sweep.INF, -sweep.INF, sweep.NAN)
SPIES: dict[str, tuple[Callable[[float, float], float], ...]] = {  # the check's own f, da, db
    "*": (lambda x, y: x * y, lambda x, y: y, lambda x, y: x),
    "-": (lambda x, y: x - y, lambda x, y: 1.0, lambda x, y: -1.0),
}


def binary_cases() -> list[sweep.Case]:
    """a.binary(b, ...) with the check's own f and partials, on shapes that broadcast (a 0, a 1, no axes),
    numbers with 0, tiny, inf and nan, and an out.grad with 0 and inf."""
    rng = random.Random(1591)
    pairs: list[tuple[Shape, Shape]] = [((), ()), ((0,), ()), ((1,), (0,)), ((2, 1), (0,)), ((1,), (3,)),
                                        ((2, 1), (1, 2)), ((3,), (2, 3)), ((2, 1, 2), (3, 1))]
    while len(pairs) < 16:
        to = some_shape(rng, rng.randint(0, 2))
        pairs.append((stretched_from(rng, to), to) if rng.random() < 0.5 else (to, stretched_from(rng, to)))
    cases = []
    for k, (sa, sb) in enumerate(pairs):
        op = "*-"[k % 2]
        common = right_aligned(sa, sb)
        assert common is not None
        a, b = sweep.numbers(rng, size(sa), BINARY_SWEEP_EDGES), sweep.numbers(rng, size(sb), BINARY_SWEEP_EDGES)
        seed = sweep.numbers(rng, size(common), (0.0, sweep.INF))
        shown = (f"a of shape {show(sa)} holding {sweep.nested_text(a, sa)}, b of shape {show(sb)} holding "
                 f"{sweep.nested_text(b, sb)}, f(x, y) = x {op} y, out.grad = {sweep.nested_text(seed, common)}")
        cases.append(sweep.Case(shown, size(sa) + size(sb) + size(common), (op, sa, sb, a, b, seed)))
    return cases


def binary_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    op, sa, sb, a, b, seed = case.data
    f, da, db = SPIES[op]
    data, shape, ga, gb = references.binary(a, sa, b, sb, f, da, db, seed)
    ta, tb = sweep.leaf(env, a, sa), sweep.leaf(env, b, sb)
    call = f"a.binary(b, ...) for a {op} b"
    out, error = sweep.outcome(lambda: ta.binary(tb, op, f, da, db))
    if sweep.excused(error, data):
        return None
    finding = sweep.error_finding(error, "a result") if error else sweep.result_apart(out, data, shape)
    gap = "L15.binary"
    if finding is None:
        call = f"the rule of a {op} b"
        got, error = sweep.outcome(lambda: sweep.grads_through(out, seed, (ta, tb)))
        if sweep.excused(error, ga, gb):
            return None
        if error:
            finding = sweep.error_finding(error, "two gradients")
        else:
            finding = sweep.grads_apart(got[0], ga, sa) or sweep.grads_apart(got[1], gb, sb)
        if finding is not None and not unbroadcast_agrees(env, seed, a, sa, b, sb, da, db, shape):
            gap = "L15.unbroadcast"  # the helper the rule calls parts from the finished one on this very case
    if finding is not None:
        finding.values.update(call=call, gap=gap)
    return finding


def unbroadcast_agrees(env: Env, seed: Flat, a: Flat, sa: Shape, b: Flat, sb: Shape, da: Any, db: Any,
                       shape: Shape) -> bool:
    """Whether the learner's unbroadcast sums this case's two stretched gradients back as the finished one does."""
    xs, ys = [a[i] for i in stretched(sa, shape)], [b[j] for j in stretched(sb, shape)]
    for side, partial in ((sa, da), (sb, db)):
        full = [g * partial(x, y) for g, x, y in zip(seed, xs, ys)]
        # mypy types no lambda's defaults (here binding this turn's values): hence its ignore
        got, error = sweep.outcome(lambda full=full, side=side: env.shapes.unbroadcast(list(full), shape, side))  # type: ignore[misc]
        if error is not None or not sweep.same(got, references.unbroadcast(full, shape, side)):
            return False
    return True


@claim("L15", "binary_sweep")
def binary_sweep(env: Env) -> None:
    cases = binary_cases()
    found = sweep.smallest_failing(cases, lambda case: binary_judge(env, case))
    if found is not None:
        case, finding = found
        raise Fail(finding.key, tried=len(cases), input=case.shown, **finding.values)
    a, b = numbers((2, 3), 1592), numbers((3,), 1593)
    sweep.fail_unless_freed("a * b, a of shape (2, 3) and b of shape (3,)",
                            lambda: env.tensor.Tensor(nested(a, (2, 3))) * env.tensor.Tensor(b))
