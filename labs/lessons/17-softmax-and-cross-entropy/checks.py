"""Checks of lesson 17, Softmax and cross-entropy: the loss as one fused, overflow-proof operation.

Every number the learner's ``cross_entropy`` gives is compared with the same loss spelled out
in the learner's own ``Value``s (the oracle of Part III): per row, the row's largest logit plus
the log of the sum of e^(x - top), minus the target's logit, and the mean over the rows.
"""

from __future__ import annotations

import builtins
import math
import random
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from labs.checking import references, sweep
from labs.checking.by_hand import kept_row, lazy_form
from labs.checking.claimkit import Env, Fail, claim, show
from labs.checking.cost import (
    FAULTS,
    GROWTH,
    Tally,
    Traced,
    Work,
    grows_with_the_square,
    growth_text,
    square_kind,
    tallied,
)
from labs.checking.oracle import Flat, Shape, agree, by_values, nested, numbers, rule_grads, total
from labs.checking.own_lists import own_lists_counted

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
# Targets that are not columns of logits of shape (3, 4): read flat, each would land in another row.
OUT_OF_RANGE: list[list[int]] = [[4, 0, 1], [0, -5, 1], [1, 2, 7]]

# The cost: (small shape, shape GROWTH times larger, what grew). Wider rows first, then more rows.
COST_RUNS: list[tuple[Shape, Shape, str]] = [
    ((2, 12), (2, 12 * GROWTH), f"rows {GROWTH} times as wide"),
    ((8, 4), (8 * GROWTH, 4), f"{GROWTH} times as many rows"),
]


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


def backward_judged(env: Env, loss: Any, flat: Flat, shape: Shape, targets: Sequence[int]) -> None:
    """loss.backward(); when it stops with a TypeError or an IndexError, the rule of a new loss on the same logits is
    called by hand, and a generator in place of a list ("lazy") or a list of one row's probabilities ("one_row") is
    named. Any other failure is passed on as it was."""
    try:
        loss.backward()
    except (TypeError, IndexError) as error:
        _, fresh = loss_of(env, flat, shape, targets)
        fresh.grad = [1.0]
        shown = {"shape": show(shape), "targets": show(targets)}
        try:
            raw = fresh._backward(fresh)
        except IndexError as inner:
            kept = kept_row(fresh._backward, *shape)
            if kept is None:
                raise error from None
            raise Fail("one_row", error=f"IndexError: {inner}", kept=kept, nv=math.prod(shape), **shown) from None
        what = lazy_form(raw)
        if what:
            raise Fail("lazy", what=what, **shown) from None
        raise


@claim("L17", "value")
def value(env: Env) -> None:
    for shape, targets, seed in CASES:
        flat = numbers(shape, seed)
        n, v = shape
        given = list(targets)
        logits, loss = loss_of(env, flat, shape, targets, handed=given)
        shown = {"logits": show(nested(flat, shape)), "targets": show(targets), "shape": show(shape), "n": n}
        if given != list(targets):
            raise Fail("changed_targets", got=show(given), **shown)
        if list(logits.data) != list(flat):
            raise Fail("changed_logits", got=show(nested(list(logits.data), shape)), **shown)
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
        picked = sum(flat[r * v + t] for r, t in enumerate(targets)) / n
        columns = sum(logsumexp(flat[t::v]) - flat[r * v + t] for r, t in enumerate(targets)) / n
        key = "wrong"
        if n > 1 and agree([got], [expected * n]):
            key = "sum"
        elif agree([got], [expected / v]):
            key = "count"
        elif n != v and agree([got], [expected * n / v]):
            key = "by_v"
        elif n > 1 and agree([got], [logsumexp(flat) - picked]):
            key = "whole"
        elif n > 1 and agree([got], [columns]):
            key = "columns"
        elif agree([got], [-expected]):
            key = "sign"
        elif agree([got], [expected - tops]) or agree([got], [expected + tops]):
            key = "shift"
        elif n > 1 and agree([got], [from_row_0]):
            key = "offset"
        raise Fail(key, got=show(got), expected=show(expected), nv=n * v, top=show(tops), **shown)


def logsumexp(xs: Sequence[float]) -> float:
    """The checker's own log of the sum of e^x, shifted by the largest x."""
    top = max(xs)
    return top + math.log(math.fsum(math.exp(x - top) for x in xs))


def gradient_mistake(got: Flat, expected: Flat, flat: Flat, shape: Shape, targets: Sequence[int]) -> str:
    """Which known mistake a wrong gradient matches, else 'wrong'."""
    n, v = shape
    probs = softmax_rows(flat, shape)
    argmax = [row.index(max(row)) for row in probs]
    marks = list(enumerate(targets))
    whole = [math.exp(x - logsumexp(flat)) for x in flat]
    onehot = with_minus([[0.0] * v for _ in range(n)], n, marks, 1.0)
    known = {
        "no_mean": with_minus(probs, n, marks, 1.0),
        "count": with_minus(probs, n, marks, 1.0 / (n * v)),
        "by_v": with_minus(probs, n, marks, 1.0 / v),
        "no_onehot": with_minus(probs, n, [], 1.0 / n),
        "onehot_unscaled": [p / n + o for p, o in zip(with_minus(probs, n, [], 1.0), onehot)],
        "sign": with_minus(probs, n, marks, -1.0 / n),
        "target_sign": [(1.0 - p if j == t else p) / n for row, t in zip(probs, targets) for j, p in enumerate(row)],
        "argmax": with_minus(probs, n, list(enumerate(argmax)), 1.0 / n),
        "offset": with_minus(probs, n, [(0, t) for t in targets], 1.0 / n),
        "late": with_minus(probs, n, [(r, targets[-1]) for r in range(n)], 1.0 / n),
        "whole": [(w + o) / n for w, o in zip(whole, onehot)],
        "whole_mean": [w + o / n for w, o in zip(whole, onehot)],
    }
    for key, candidate in known.items():
        if not agree(candidate, expected) and agree(got, candidate):
            return "whole" if key == "whole_mean" else key
    return "wrong"


@claim("L17", "gradient")
def gradient(env: Env) -> None:
    for shape, targets, seed in CASES:
        flat = numbers(shape, seed)
        n, v = shape
        logits, loss = loss_of(env, flat, shape, targets)
        one_number(loss, shape, targets)
        backward_judged(env, loss, flat, shape, targets)
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
    logits, loss = loss_of(env, flat, shape, targets)
    _, expected = spelled_out(env, flat, shape, targets, UPSTREAM)
    (returned,) = rule_grads(loss, [UPSTREAM])
    if any(g != 0.0 for g in logits.grad) or not agree(returned, expected):
        r = first_row_apart(returned, expected, v)
        raise Fail("wrote_parent", targets=show(targets), shape=show(shape), scale=show(UPSTREAM), row=r,
                   got=show(row_of(returned, r, v)), expected=show(row_of(expected, r, v)),
                   grad=show(row_of(list(logits.grad), r, v)))


@claim("L17", "stable")
def stable(env: Env) -> None:
    shape = (len(HUGE), len(HUGE[0]))
    flat = [x for row in HUGE for x in row]
    shown = {"logits": show(HUGE), "targets": show(HUGE_TARGETS)}
    try:
        logits, loss = loss_of(env, flat, shape, HUGE_TARGETS)
        one_number(loss, shape, HUGE_TARGETS)
        backward_judged(env, loss, flat, shape, HUGE_TARGETS)
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
    shape = (3, 4)
    for targets in OUT_OF_RANGE:
        logits = env.tensor.Tensor(nested(numbers(shape, 4), shape))
        try:
            loss = logits.cross_entropy(list(targets))
        except (ValueError, IndexError):
            continue
        except Exception as error:  # the wrong kind of refusal: say which
            got = f"{type(error).__name__}: {error}"
        else:
            got = f"a loss of {show(loss.data[0]) if len(loss.data) == 1 else show(list(loss.data))}"
        raise Fail("out_of_range", shape=show(shape), targets=show(targets), v=shape[1], got=got)


# --- cost: the numbers read, counted ---

class CountedRange:
    """A range whose iteration counts every number it passes."""

    def __init__(self, work: Work, *args: Any) -> None:
        self.inner, self.work = builtins.range(*args), work

    def __iter__(self) -> Iterator[int]:
        return counted(self.inner, self.work)

    def __reversed__(self) -> Iterator[int]:
        return counted(builtins.reversed(self.inner), self.work)

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, index: Any) -> Any:
        return self.inner[index]

    def __contains__(self, item: object) -> bool:
        return item in self.inner


def counted(items: Iterable[Any], work: Work) -> Iterator[Any]:
    """The items, each adding one to ``work`` as it is passed (a Tally's own reads are counted by the Tally)."""
    for item in items:
        work.reads += 1
        yield item


def counting_builtins(work: Work) -> dict[str, Any]:
    """Stand-ins for builtins that go over a whole list, each counting the items it passes."""

    def over(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if len(args) == 1:
                return function(counted(args[0], work), **kwargs)
            if function in (builtins.sum,):
                return function(counted(args[0], work), *args[1:], **kwargs)
            work.reads += len(args)
            return function(*args, **kwargs)
        return wrapped

    def lazy(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return counted(function(*args, **kwargs), work)
        return wrapped

    stand_ins: dict[str, Any] = {name: over(getattr(builtins, name))
                                 for name in ("sum", "max", "min", "sorted", "any", "all")}
    stand_ins |= {name: lazy(getattr(builtins, name)) for name in ("enumerate", "zip", "map")}
    stand_ins["range"] = lambda *args: CountedRange(work, *args)
    return stand_ins


def counting_math(work: Work) -> dict[str, Callable[..., Any]]:
    """Stand-ins for math.exp, math.log (one count a call) and math.fsum (one count an item)."""

    def each_call(function: Callable[..., float]) -> Callable[..., float]:
        def wrapped(*args: Any) -> float:
            work.reads += 1
            return function(*args)
        return wrapped

    return {"exp": each_call(math.exp), "log": each_call(math.log),
            "fsum": lambda items: math.fsum(counted(items, work))}


@contextmanager
def counting_in(module: Any, work: Work) -> Iterator[None]:
    """Inside the block, the learner's module sees builtins and math functions that count what they go over.

    A list the learner's code makes itself (``exps``, a one-hot row) is not a Tally: a ``sum(exps)`` or a
    ``range(n * v)`` repeated for each number is found through the functions that go over it.
    """
    names = vars(module)
    kept = dict(names)
    math_stand_ins = counting_math(work)
    replaced: dict[str, Any] = {}
    for name, stand_in in counting_builtins(work).items():
        if name not in names:
            replaced[name] = stand_in
    for name, value in kept.items():
        if value is math:
            shim = types.ModuleType("math")
            vars(shim).update(vars(math))
            vars(shim).update(math_stand_ins)
            replaced[name] = shim
        else:
            for label, function in (("exp", math.exp), ("log", math.log), ("fsum", math.fsum)):
                if value is function:
                    replaced[name] = math_stand_ins[label]
    names.update(replaced)
    try:
        yield
    finally:
        for name in replaced:
            if name in kept:
                names[name] = kept[name]
            else:
                names.pop(name, None)


# What each count holds, for the message: (name, the reads it counts).
COUNTS = {
    "logits": "from the logits (self.data, self.grad and out.grad)",
    "targets": "from the targets list",
    "own": "by sum, max, min, range, zip, enumerate, map, math.exp and math.log, and from the lists your code builds",
}


def reads_of(env: Env, shape: Shape) -> tuple[dict[tuple[str, str], int], Traced]:
    """The numbers read by the forward pass and by the rule for logits of ``shape``, in each count; and the count of
    the learner's own work (the builtins and the lists it builds), forward and rule, by kind."""
    n, v = shape
    works: dict[str, Work] = {name: Work() for name in COUNTS}
    works["own"] = own = Traced()
    logits = tallied(env.tensor.Tensor(nested(numbers(shape, 29), shape)), works["logits"])
    targets = Tally([(3 * r + 1) % v for r in range(n)], works["targets"])
    got: dict[tuple[str, str], int] = {}
    with counting_in(env.tensor, works["own"]), own_lists_counted(env, works["own"]):
        loss = logits.cross_entropy(targets)
        got |= {("forward", name): work.reads for name, work in works.items()}
        rule = getattr(loss, "_backward", None)
        if rule is not None:
            loss.grad = Tally([1.0] * len(loss.data), works["logits"])
            rule(loss)
    got |= {("rule", name): work.reads - got["forward", name] for name, work in works.items()}
    return got, own


@claim("L17", "cost")
def cost(env: Env) -> None:
    shape, targets, seed = CASES[0]
    flat = numbers(shape, seed)
    _, loss = loss_of(env, flat, shape, targets)  # a loss that is no Tensor is named first
    backward_judged(env, loss, flat, shape, targets)  # and a rule that cannot run, by what it kept or returned
    for small_shape, large_shape, grew in COST_RUNS:
        (small, small_own), (large, large_own) = reads_of(env, small_shape), reads_of(env, large_shape)
        for (phase, name), before in small.items():
            after = large[phase, name]
            if not grows_with_the_square(before, after):
                continue
            key = {"logits": "row_scan" if small_shape[0] == large_shape[0] else "batch_scan",
                   "targets": "target_scan", "own": "list_scan"}[name]
            raise Fail(key, phase="the forward pass" if phase == "forward" else "the backward rule",
                       small=show(small_shape), large=show(large_shape), grew=grew,
                       reads=growth_text(before, after), what=COUNTS[name])
        kind = square_kind(small_own, large_own)  # one kind of the learner's own work, which the total hides
        if kind is not None:
            raise Fail("list_scan", phase="the forward pass and its rule", small=show(small_shape),
                       large=show(large_shape), grew=grew, what=f"in one kind of work ({FAULTS.get(kind, 'a scan')})",
                       reads=growth_text(small_own.kinds[kind], large_own.kinds[kind]))


# --- contract sweep (labs.checking.sweep): generated edge inputs, smallest first ---------------------------------

# Logits: large of either sign (not so large that log(2) is lost beside them: a log-softmax would part from the
# finished piece's e / s), tiny, and -inf (a column that can never be picked); never +inf or nan, whose results
# depend on how a piece shifts its rows. The upstream gradient is finite, 0 included.
LOGIT_EDGES = (700.0, -700.0, sweep.TINY, -sweep.INF)
UPSTREAMS = (1.0, 0.0, 2.5, -0.5)


def sweep_cases() -> list[sweep.Case]:
    """cross_entropy on one row or one column, repeated targets, logits at the edges; targets that are no column
    (even counted from the end, which a piece may allow), and one target too many, which the finished piece
    refuses."""
    rng = random.Random(1790)
    shapes: list[Shape] = [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (2, 3), (3, 2), (4, 3)]
    shapes += [(rng.randint(1, 4), rng.randint(1, 4)) for _ in range(4)]
    cases = []
    for k, (n, v) in enumerate(shapes):
        logits = sweep.numbers(rng, n * v, LOGIT_EDGES)
        for r in range(n):  # a row of nothing but -inf has no largest logit to shift by
            if all(x == -sweep.INF for x in logits[r * v:(r + 1) * v]):
                logits[r * v] = 0.5
        targets = [rng.randrange(v) for _ in range(n)]
        if k % 4 == 3:
            targets[rng.randrange(n)] = rng.choice((v, -v - 1, v + 2))  # no column, even counted from the end
        if k % 5 == 4:
            targets.append(0)  # one target more than there are rows
        upstream = UPSTREAMS[k % len(UPSTREAMS)]
        shown = (f"logits of shape {show((n, v))} holding {sweep.nested_text(logits, (n, v))}, "
                 f"targets {show(targets)}, out.grad = {show([upstream])}")
        cases.append(sweep.Case(shown, n * v + n, (n, v, logits, targets, upstream)))
    return cases


def sweep_judge(env: Env, case: sweep.Case) -> sweep.Finding | None:
    n, v, logits, targets, upstream = case.data
    computed = references.cross_entropy(logits, n, v, targets, upstream)
    expected = computed if isinstance(computed, references.Refused) else (
        [computed[0]], computed[1])  # the loss as a 0-d tensor's data
    x = sweep.leaf(env, logits, (n, v))
    handed = list(targets)
    return sweep.list_call_apart(f"logits.cross_entropy({show(targets)})", x, handed, targets,
                                 lambda: x.cross_entropy(handed), expected, (), [upstream], (n, v))


def sweep_kept(env: Env, case: sweep.Case) -> sweep.Finding | None:
    """Finding('kept') when the rule's gradient follows the caller's targets changed after the forward pass."""
    n, v, logits, targets, upstream = case.data
    expected = references.cross_entropy(logits, n, v, targets, upstream)
    if isinstance(expected, references.Refused) or v < 2:
        return None
    x = sweep.leaf(env, logits, (n, v))
    handed = list(targets)
    loss = x.cross_entropy(handed)
    handed[:] = [(t + 1) % v for t in targets]  # another column in every row
    got, error = sweep.outcome(lambda: sweep.grads_through(loss, [upstream], (x,))[0])
    if error is None and sweep.same(got, expected[1]):
        return None
    return sweep.Finding("kept", {"call": f"logits.cross_entropy({show(targets)})", "after": show(handed),
                                  "expected": sweep.nested_text(expected[1], (n, v)),
                                  "got": error or sweep.nested_text(list(got), (n, v))})


@claim("L17", "sweep")
def cross_entropy_sweep(env: Env) -> None:
    cases = sweep_cases()
    sweep.fail_on_smallest("L17.cross_entropy", cases, lambda case: sweep_judge(env, case))
    sweep.fail_on_smallest("L17.cross_entropy", cases, lambda case: sweep_kept(env, case))
    logits = numbers((3, 4), 1791)
    sweep.fail_unless_freed("logits.cross_entropy([1, 0, 3])",
                            lambda: env.tensor.Tensor(nested(logits, (3, 4))).cross_entropy([1, 0, 3]))
