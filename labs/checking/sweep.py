"""Contract sweeps: a learner's piece against the finished piece's arithmetic, on generated inputs, smallest first.

A claim's fixed cases test what its author thought of. A sweep generates, from a seed, inputs that
cover a gap's edges (empty, one number, repeated and negative indices, large and tiny numbers, inf
and nan), runs the learner's piece and the checker's own copy of the finished piece's arithmetic
on each, smallest input first, and reports the first input on which they part: the smallest one
that shows the fault. Beside the numbers, the sweep checks the rest of a piece's contract:

- the caller's inputs are as they were after the forward pass and after the rule (:func:`same_input`);
- a result does not change when the caller's list changes after the forward pass
  (the rule must work on its own copy);
- a finished graph is freed by reference counting alone, with the cycle collector off
  (:func:`freed_without_collector`).

Numbers are compared as the finished piece computes them: a nan must stay a nan, an inf the same
inf, and finite numbers agree to a relative 1e-9 (another order of adding may round otherwise).
The generated numbers avoid sums whose value depends on the order of adding (a large number and
its negative in one sum), so that a correct piece in any shape agrees.
"""

from __future__ import annotations

import gc
import math
import random
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from labs.checking import references
from labs.checking.claimkit import Fail, show
from labs.checking.oracle import nested, size
from labs.checking.walks import tensor_order

INF, NAN = math.inf, math.nan
ORDINARY = (-1.5, -0.25, 0.5, 1.25, 2.0, 3.0)
# Numbers at the edges; each sweep picks those whose results do not depend on the order of adding.
LARGE, TINY = 1e300, 5e-324


def numbers(rng: random.Random, count: int, edges: Sequence[float] = ()) -> list[float]:
    """``count`` numbers: ordinary ones, with about one in three drawn from ``edges`` (when given)."""
    return [rng.choice(edges) if edges and rng.random() < 0.35 else rng.choice(ORDINARY) for _ in range(count)]


def same(got: object, expected: Sequence[float], tol: float = 1e-9) -> bool:
    """Whether ``got`` is a sequence of numbers equal to ``expected`` as floats compare in a sweep: nan where nan,
    the same inf where inf, finite numbers within a relative (or, near 0, absolute) ``tol``."""
    try:
        items = list(got)  # type: ignore[call-overload]
    except TypeError:
        return False
    if not all(isinstance(g, (int, float)) and not isinstance(g, bool) for g in items):
        return False
    return len(items) == len(expected) and all(same_number(float(g), e, tol) for g, e in zip(items, expected))


def same_number(got: float, expected: float, tol: float = 1e-9) -> bool:
    """One number as :func:`same` compares them."""
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    if math.isinf(expected) or math.isinf(got):
        return got == expected
    return math.isclose(got, expected, rel_tol=tol, abs_tol=tol)


def parting(got: Sequence[float], expected: Sequence[float]) -> int:
    """The first position where two lists of numbers part (the shorter length when one is a prefix)."""
    for i, (g, e) in enumerate(zip(got, expected)):
        if not same_number(float(g), e):
            return i
    return min(len(got), len(expected))


# What the first difference looks like, in the learner's terms: (got is, expected is) -> words.
NOTES = {
    ("finite", "nan"): "The finished piece gives nan there (0 × inf, or inf − inf, is nan in floating point) and "
                       "passes it on: a nan in a gradient says that something upstream went wrong, and a piece "
                       "that turns it into a number hides that.",
    ("nan", "inf"): "An inf became nan: an inf multiplied by 0 (a mask of 0s and 1s, or a list of zeros made by "
                    "multiplying) is nan. Add the numbers that belong together; do not multiply the others by 0.",
    ("nan", "finite"): "A nan appeared where the finished piece has a number: an inf multiplied by 0 (a mask, or "
                       "zeros made by multiplying) is nan. Add the numbers that belong together instead.",
    ("finite", "inf"): "An inf became a finite number: was it skipped, or replaced?",
}


def kind(x: float) -> str:
    """'nan', 'inf' or 'finite'."""
    return "nan" if math.isnan(x) else "inf" if math.isinf(x) else "finite"


def why_apart(got: object, expected: Sequence[float]) -> str:
    """Words for the first difference between what a piece gave and what the finished piece gives."""
    try:
        numbers_ = [float(g) for g in got]  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return "That is not a list of numbers."
    if len(numbers_) != len(expected):
        return f"That holds {len(numbers_)} number(s), where the finished piece gives {len(expected)}."
    i = parting(numbers_, expected)
    note = NOTES.get((kind(numbers_[i]), kind(expected[i])), "")
    return f"They part at position {i}: {show(numbers_[i])} where the finished piece gives {show(expected[i])}. " + note


@dataclass
class Finding:
    """What a sweep found wrong on one input: the message key and the values the message shows."""

    key: str
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One generated input: how a message shows it, its size (smaller comes first), and what the judge needs."""

    shown: str
    size: int
    data: Any


def smallest_failing(cases: Iterable[Case], judge: Callable[[Case], Finding | None]) -> tuple[Case, Finding] | None:
    """The smallest case the judge finds fault with, trying the smallest first (ties in the order given), with
    the finding; None when every case passes."""
    for case in sorted(cases, key=lambda c: c.size):
        finding = judge(case)
        if finding is not None:
            return case, finding
    return None


def fail_on_smallest(gap: str, cases: list[Case], judge: Callable[[Case], Finding | None]) -> None:
    """Fail with the finding on the smallest case the judge faults, naming the gap, the input and how many inputs
    were tried (the message's {gap}, {input} and {tried})."""
    found = smallest_failing(cases, judge)
    if found is not None:
        case, finding = found
        raise Fail(finding.key, gap=gap, tried=len(cases), input=case.shown, **finding.values)


def fail_unless_freed(op: str, build: Callable[[], Any]) -> None:
    """Fail('cycle', op=op) when the result of ``build()`` outlives its last reference with the cycle collector off."""
    if not freed_without_collector(build):
        raise Fail("cycle", op=op)


def outcome(call: Callable[[], Any]) -> tuple[Any, str | None]:
    """What a call of the learner's returns, or the error it raises as 'Kind: words' (the sweep's finding)."""
    try:
        return call(), None
    except Exception as error:  # any error on an input the finished piece takes is the finding
        return None, f"{type(error).__name__}: {error}"


def same_input(now: Sequence[Any], before: Sequence[Any]) -> bool:
    """Whether a caller's list holds what it held (nan-aware for numbers)."""
    if len(now) != len(before):
        return False
    for a, b in zip(now, before):
        if isinstance(a, float) and isinstance(b, float):
            if not (a == b or (math.isnan(a) and math.isnan(b))):
                return False
        elif a != b:
            return False
    return True


def freed_without_collector(build: Callable[[], Any]) -> bool:
    """Whether the result ``build()`` returns is freed as soon as the last reference to it goes, with Python's
    cycle collector off: a result kept alive by a cycle (a rule whose closure holds its own result) is not."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        out = build()
        ref = weakref.ref(out)
        del out
        freed = ref() is None
    finally:
        if collecting:
            gc.enable()
    if not freed:
        gc.collect()  # what the cycle kept alive goes now, so later checks start clean
    return freed


# --- tensors: what a learner's result or rule gave, against what the finished piece gives ----------------------


def nested_text(flat: Sequence[Any], shape: Sequence[int]) -> str:
    """Numbers as nested lists when they fill ``shape``, else flat."""
    numbers_ = list(flat)
    if shape and len(numbers_) == size(tuple(shape)) and all(shape):
        return show(nested(numbers_, tuple(shape)))
    return show(numbers_)


def tensor_text(out: Any) -> str:
    """A learner's result as a message shows it: its shape and numbers, or what it is when it is no tensor."""
    try:
        shape = tuple(out.shape)
        return f"shape {show(shape)} holding {nested_text(list(out.data), shape)}"
    except (AttributeError, TypeError):
        return f"{type(out).__name__} {show(out)}"


def result_apart(out: Any, data: Sequence[float], shape: Sequence[int]) -> Finding | None:
    """Finding('differs') when a learner's result is not a tensor of ``shape`` holding ``data`` (nan-aware)."""
    expected = f"shape {show(tuple(shape))} holding {nested_text(list(data), shape)}"
    try:
        got_shape, got_data = tuple(out.shape), list(out.data)
    except (AttributeError, TypeError):
        return Finding("differs", {"got": tensor_text(out), "expected": expected, "why": ""})
    if got_shape != tuple(shape):
        return Finding("differs", {"got": tensor_text(out), "expected": expected,
                                   "why": f"The shape should be {show(tuple(shape))}."})
    if not same(got_data, data):
        return Finding("differs", {"got": tensor_text(out), "expected": expected, "why": why_apart(got_data, data)})
    return None


def grads_apart(got: Any, expected: Sequence[float], shape: Sequence[int]) -> Finding | None:
    """Finding('differs') when a gradient the rule gave is not ``expected`` (nan-aware)."""
    if same(got, expected):
        return None
    try:
        got_text = nested_text([float(g) for g in got], shape)
    except (TypeError, ValueError):
        got_text = show(got)
    return Finding("differs", {"got": got_text, "expected": nested_text(list(expected), shape),
                               "why": why_apart(got, expected)})


def excused(error: str | None, *expected: Sequence[float]) -> bool:
    """Whether an error is math.fsum refusing inf + -inf where the finished piece's plain adding gives nan: a
    piece that adds with fsum is not at fault for that (the finished sum() of every number does the same)."""
    return error is not None and error.startswith("ValueError") and "fsum" in str(error) and any(
        math.isnan(x) for numbers_ in expected for x in numbers_)


def error_finding(error: str, expected: str) -> Finding:
    """Finding('differs') for a piece that raised where the finished piece gives a result."""
    return Finding("differs", {"got": f"{error}", "expected": expected,
                               "why": "The finished piece takes this input: it is within the gap's contract."})


def refusal_apart(errors: tuple[str, ...], out: Any, error: str | None) -> Finding | None:
    """Finding('differs') unless a piece raised one of ``errors`` (the finished piece refuses the input)."""
    if error is not None and error.split(":", 1)[0] in errors:
        return None
    got = error if error is not None else f"a result of {tensor_text(out)}"
    return Finding("differs", {"got": got, "expected": " or ".join(errors),
                               "why": "The finished piece refuses this input, and the page says it raises."})


def list_call_apart(call: str, leaf: Any, handed: list[Any], given: Sequence[Any], forward: Callable[[], Any],
                    expected: Any, result_shape: Sequence[int], seed: Sequence[float],
                    leaf_shape: Sequence[int]) -> Finding | None:
    """Judge one call that is handed a copy of the caller's list (``handed``, made from ``given``): the result, or
    the refusal the finished piece makes (``expected`` is a references.Refused, or (result, gradient)); the list
    unchanged by the forward pass; the gradient its rule sends ``leaf`` for ``seed``; and the list unchanged by the
    rule (a gradient of ``leaf_shape``). A finding's values name the call."""
    out, error = outcome(forward)
    finding: Finding | None
    if isinstance(expected, references.Refused):
        finding = refusal_apart(expected.errors, out, error)
    else:
        data, grad = expected
        finding = error_finding(error, "a result") if error else result_apart(out, data, tuple(result_shape))
        if finding is None and not same_input(handed, given):
            return Finding("changed", {"call": call, "when": "during the forward pass", "got": show(handed)})
        if finding is None:
            call = f"the rule of {call}"
            got, error = outcome(lambda: grads_through(out, seed, (leaf,))[0])
            if excused(error, grad):
                return None
            finding = error_finding(error, "a gradient") if error else grads_apart(got, grad, tuple(leaf_shape))
        if finding is None and not same_input(handed, given):
            return Finding("changed", {"call": call, "when": "when its rule ran", "got": show(handed)})
    if finding is not None:
        finding.values["call"] = call
    return finding


def leaf(env: Any, flat: Sequence[float], shape: Sequence[int]) -> Any:
    """A learner Tensor of any shape, (0, 2) included (nested lists cannot say it), made as the course makes one."""
    return env.tensor.Tensor.made([float(x) for x in flat], tuple(shape), (), "", None)


def grads_through(out: Any, seed: Sequence[float], inputs: Sequence[Any]) -> list[list[float]]:
    """The gradient each input gets when ``seed`` is out.grad, walked by the checker (not the learner's backward())
    through every rule between: a piece may put nodes of its own making between its result and its inputs.
    The inputs start from zeros; a result's rule is called once, after every node that uses it."""
    order = tensor_order(out)
    for node in order:
        node.grad = [0.0] * len(node.data)
    out.grad = list(seed)
    for node in order:
        rule = getattr(node, "_backward", None)
        if rule is None:
            continue
        for parent, grad in zip(node._parents, rule(node)):
            parent.grad = [p + g for p, g in zip(parent.grad, grad)] if len(grad) == len(parent.grad) else list(grad)
    return [list(t.grad) for t in inputs]
