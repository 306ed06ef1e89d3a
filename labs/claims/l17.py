"""Checks of lesson 17, Softmax and cross-entropy: the loss as one fused, overflow-proof operation.

Every number the learner's ``cross_entropy`` gives is compared with the same loss spelled out
in the learner's own ``Value``s (the oracle of Part III): per row, the row's largest logit plus
the log of the sum of e^(x - top), minus the target's logit, and the mean over the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..claimkit import Env, Fail, claim, show
from ..oracle import Flat, Shape, agree, by_values, nested, numbers, total

# (shape, targets, seed of the logits): targets repeat, and some rows' targets are not their largest logit.
CASES: list[tuple[Shape, list[int], int]] = [
    ((3, 4), [1, 1, 3], 17),
    ((4, 3), [0, 2, 0, 0], 5),
    ((2, 5), [4, 4], 23),
    ((1, 3), [2], 8),
]
UPSTREAM = 2.5

# Rows far apart: a shift by the row's own max is the only way through all three.
HUGE = [[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 999.0], [-1000.0, -999.0, -1000.0]]
HUGE_TARGETS = [0, 0, 1]

# (shape, how many targets): each must be refused with a ValueError.
REFUSED: list[tuple[Shape, int]] = [((3, 4), 2), ((2, 3), 3), ((4,), 4), ((2, 2, 2), 2)]


def spelled_out(env: Env, flat: Flat, shape: Shape, targets: Sequence[int],
                scale: float = 1.0) -> tuple[float, Flat]:
    """The loss (times ``scale``) spelled out in the learner's Values, shifted by each row's max: value, gradient."""
    n, v = shape

    def build(xs: list[Any]) -> Any:
        losses = []
        for r, t in enumerate(targets):
            row = xs[r * v:(r + 1) * v]
            top = max(x.data for x in row)  # a plain number: any constant shift leaves the loss as it is
            losses.append(total([(x - top).exp() for x in row]).log() + top - row[t])
        return total(losses) * (scale / n)

    value, (grad,) = by_values(env, build, flat)
    return value, grad


def softmax_rows(flat: Flat, shape: Shape) -> list[list[float]]:
    """The checker's own softmax of each row."""
    n, v = shape
    out = []
    for r in range(n):
        row = flat[r * v:(r + 1) * v]
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        out.append([e / sum(exps) for e in exps])
    return out


def with_minus(probs: list[list[float]], n: int, marks: Sequence[tuple[int, int]], scale: float) -> Flat:
    """(probs - ones at ``marks``, each (row, column)) times ``scale``, flat."""
    v = len(probs[0])
    flat = [p for row in probs for p in row]
    for r, c in marks:
        flat[r * v + c] -= 1.0
    return [x * scale for x in flat]


def loss_of(env: Env, flat: Flat, shape: Shape, targets: Sequence[int],
            handed: list[int] | None = None) -> tuple[Any, Any]:
    """The learner's logits for (flat, shape) and their cross-entropy with ``targets``, handed over as the list
    ``handed`` (a copy of targets when none is given: the checks' own targets never reach the learner's code)."""
    logits = env.tensor.Tensor(nested(flat, shape))
    loss = logits.cross_entropy(list(targets) if handed is None else handed)
    if not isinstance(loss, env.tensor.Tensor):
        raise Fail("not_tensor", targets=show(targets), shape=show(shape),
                   got=f"{type(loss).__name__} {show(loss)}")
    return logits, loss


def one_number(loss: Any, shape: Shape, targets: Sequence[int]) -> None:
    """Fail with 'not_one' unless the loss holds one number, the only kind backward() starts from."""
    if len(loss.data) != 1:
        raise Fail("not_one", shape=show(shape), targets=show(targets), got=show(tuple(loss.shape)))


def first_row_apart(got: Flat, expected: Flat, v: int) -> int:
    """The first row where two flat gradients part ways."""
    for r in range(len(expected) // v):
        if not agree(got[r * v:(r + 1) * v], expected[r * v:(r + 1) * v]):
            return r
    return 0


def row_of(flat: Flat, r: int, v: int) -> list[float]:
    return list(flat[r * v:(r + 1) * v])


def nodes_under(root: Any) -> int:
    """How many tensors a result was made from, itself included (the checker's own walk, no recursion)."""
    seen, stack = {id(root)}, [root]
    while stack:
        for parent in stack.pop()._parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return len(seen)


@claim("L17", "value")
def value(env: Env) -> None:
    for shape, targets, seed in CASES:
        flat = numbers(shape, seed)
        n, v = shape
        given = list(targets)
        _, loss = loss_of(env, flat, shape, targets, handed=given)
        shown = {"logits": show(nested(flat, shape)), "targets": show(targets), "shape": show(shape), "n": n}
        if given != list(targets):
            raise Fail("changed_targets", got=show(given), **shown)
        got_shape = tuple(loss.shape)
        if got_shape != ():
            key = "per_row" if len(loss.data) == n and n > 1 else "shape"
            raise Fail(key, got=show(got_shape), **shown)
        expected, _ = spelled_out(env, flat, shape, targets)
        got = loss.data[0]
        if agree([got], [expected]):
            continue
        tops = sum(max(flat[r * v:(r + 1) * v]) for r in range(n)) / n
        from_row_0 = expected + sum(flat[r * v + t] - flat[t] for r, t in enumerate(targets)) / n
        key = "wrong"
        if n > 1 and agree([got], [expected * n]):
            key = "sum"
        elif agree([got], [expected / v]):
            key = "count"
        elif agree([got], [-expected]):
            key = "sign"
        elif agree([got], [expected - tops]) or agree([got], [expected + tops]):
            key = "shift"
        elif n > 1 and agree([got], [from_row_0]):
            key = "offset"
        raise Fail(key, got=show(got), expected=show(expected), nv=n * v, top=show(tops), **shown)


def gradient_mistake(got: Flat, expected: Flat, flat: Flat, shape: Shape, targets: Sequence[int]) -> str:
    """Which known mistake a wrong gradient matches, else 'wrong'."""
    n, v = shape
    probs = softmax_rows(flat, shape)
    argmax = [row.index(max(row)) for row in probs]
    known = {
        "no_mean": with_minus(probs, n, list(enumerate(targets)), 1.0),
        "count": with_minus(probs, n, list(enumerate(targets)), 1.0 / (n * v)),
        "no_onehot": with_minus(probs, n, [], 1.0 / n),
        "sign": with_minus(probs, n, list(enumerate(targets)), -1.0 / n),
        "argmax": with_minus(probs, n, list(enumerate(argmax)), 1.0 / n),
        "offset": with_minus(probs, n, [(0, t) for t in targets], 1.0 / n),
    }
    for key, candidate in known.items():
        if not agree(candidate, expected) and agree(got, candidate):
            return key
    return "wrong"


@claim("L17", "gradient")
def gradient(env: Env) -> None:
    for shape, targets, seed in CASES:
        flat = numbers(shape, seed)
        n, v = shape
        logits, loss = loss_of(env, flat, shape, targets)
        one_number(loss, shape, targets)
        loss.backward()
        got = list(logits.grad)
        _, expected = spelled_out(env, flat, shape, targets)
        if agree(got, expected):
            continue
        key = gradient_mistake(got, expected, flat, shape, targets)
        r = first_row_apart(got, expected, v)
        probs = softmax_rows(flat, shape)
        raise Fail(key, logits=show(nested(flat, shape)), targets=show(targets), shape=show(shape), n=n, nv=n * v,
                   row=r, target=targets[r], argmax=probs[r].index(max(probs[r])),
                   got=show(row_of(got, r, v)), expected=show(row_of(expected, r, v)))
    shape, targets, seed = CASES[0]
    flat = numbers(shape, seed)
    v = shape[1]
    logits, loss = loss_of(env, flat, shape, targets)
    (loss * UPSTREAM).backward()
    got = list(logits.grad)
    _, once = spelled_out(env, flat, shape, targets)
    _, expected = spelled_out(env, flat, shape, targets, UPSTREAM)
    if not agree(got, expected):
        r = first_row_apart(got, expected, v)
        key = "upstream" if agree(got, once) else "scaled"
        raise Fail(key, targets=show(targets), shape=show(shape), scale=show(UPSTREAM), row=r,
                   got=show(row_of(got, r, v)), expected=show(row_of(expected, r, v)))
    if not agree(list(loss.grad), [UPSTREAM]):  # what the product sent the loss
        raise Fail("changed_grad", targets=show(targets), scale=show(UPSTREAM), got=show(list(loss.grad)))
    logits, loss = loss_of(env, flat, shape, targets)
    loss.backward()
    loss.backward()
    got = list(logits.grad)
    doubled = [2 * g for g in once]
    if not agree(got, doubled):
        r = first_row_apart(got, doubled, v)
        raise Fail("twice", targets=show(targets), shape=show(shape), row=r,
                   got=show(row_of(got, r, v)), expected=show(row_of(doubled, r, v)))


@claim("L17", "stable")
def stable(env: Env) -> None:
    shape = (len(HUGE), len(HUGE[0]))
    flat = [x for row in HUGE for x in row]
    shown = {"logits": show(HUGE), "targets": show(HUGE_TARGETS)}
    try:
        logits, loss = loss_of(env, flat, shape, HUGE_TARGETS)
        one_number(loss, shape, HUGE_TARGETS)
        loss.backward()
    except OverflowError as error:
        raise Fail("overflow", error=f"OverflowError: {error}", **shown) from None
    except (ValueError, ZeroDivisionError) as error:
        # math.log(0.0): "math domain error" before Python 3.14, "expected a positive input" from 3.14 on
        if isinstance(error, ValueError) and not any(words in str(error) for words in ("domain", "positive")):
            raise
        raise Fail("underflow", error=f"{type(error).__name__}: {error}", **shown) from None
    expected, expected_grad = spelled_out(env, flat, shape, HUGE_TARGETS)
    got, got_grad = list(loss.data), list(logits.grad)
    if not (agree(got, [expected]) and agree(got_grad, expected_grad)):
        raise Fail("wrong", got=show(got[0] if len(got) == 1 else got), expected=show(expected),
                   got_grad=show(nested(got_grad, shape)),
                   expected_grad=show(nested(expected_grad, shape)), **shown)


@claim("L17", "fused")
def fused(env: Env) -> None:
    shape, targets, seed = CASES[0]
    logits, loss = loss_of(env, numbers(shape, seed), shape, targets)
    parents = tuple(loss._parents)
    if len(parents) != 1 or parents[0] is not logits:
        raise Fail("not_fused", parents=len(parents), nodes=nodes_under(loss), targets=show(targets),
                   shape=show(shape))


@claim("L17", "refuses")
def refuses(env: Env) -> None:
    for shape, count in REFUSED:
        logits = env.tensor.Tensor(nested(numbers(shape, 3), shape))
        targets = [i % shape[-1] for i in range(count)]
        try:
            loss = logits.cross_entropy(targets)
        except ValueError:
            continue
        except Exception as error:  # the wrong kind of refusal: say which
            got = f"{type(error).__name__}: {error}"
        else:
            got = f"a loss of {show(loss.data[0]) if len(loss.data) == 1 else show(list(loss.data))}"
        raise Fail("no_error", shape=show(shape), count=count, targets=show(targets), got=got)
