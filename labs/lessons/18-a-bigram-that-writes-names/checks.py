"""Checks of lesson 18, A bigram that writes names: the pair table, the count model's loss, the fused
loss of W over the table (its numbers, and how its work grows), sampling, and a short training run of
the learner's engine on a tiny text.

Every expected number comes from the checker's own counting and arithmetic below, or from the same
computation spelled out in the learner's own ``Value``s, never from the learner's piece under test;
the texts are tiny so that the checks stay fast in the page.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sized
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

from labs.checking.by_hand import kept_by_a_cycle, kept_row, lazy_form, walk_by_hand
from labs.checking.claimkit import Env, Fail, claim, close, show
from labs.checking.cost import (
    FAULTS,
    GROWTH,
    QUADRATIC,
    SCANS,
    Tally,
    Traced,
    Work,
    grows_with_the_square,
    growth_text,
    square_growth,
    square_kind,
    tallied,
)
from labs.checking.oracle import Flat, Shape, agree, by_values, nested, numbers, rule_grads, total
from labs.checking.own_lists import own_lists_counted, placer

BYTES = 256
NEWLINE = 10
TEXT = b"anna\nbo\xffb\nanz"  # 13 bytes, 12 pairs; a repeated pair, a byte above 127, no newline at the end
SECOND_TEXT = b"zoe\nzed"
LOSS_TEXT = b"anna\nbob\nannabel\nada\n"
TRAIN_TEXT = b"emma\nolivia\nava\nisabella\nsophia\nmia\namelia\n"
CERTAIN = 40.0  # a score that makes one byte certain against scores of 0: e^-40 · 255 ≈ 1e-15
# The softmax test: rows 10, 'a' and 'b' alike give 'a' three times the odds of 'b', and end a name with
# probability 0.05; 50 names of up to 50 bytes hold about 900 letters, of which 0.75 ± 0.07 (over 4.5
# standard deviations) should be 'a'.
ODDS_END, ODDS_LIMIT, ODDS_NAMES = math.log(0.05 / 0.95 * 4 / 3), 50, 50


def own_counts(text: bytes) -> list[list[int]]:
    """The checker's own table of byte pairs."""
    counts = [[0] * BYTES for _ in range(BYTES)]
    for a, b in pairwise(text):
        counts[a][b] += 1
    return counts


def own_loss(counts: list[list[int]], smoothing: float, base: float = math.e,
             extra: Callable[[float], float] | None = None) -> float:
    """The checker's own count-model loss; ``extra`` (the smoothing added to a row's total) defaults to 256·s."""
    added = extra(smoothing) if extra else BYTES * smoothing
    total, pairs = 0.0, 0
    for row in counts:
        n = sum(row)
        if n == 0:
            continue
        total -= sum(c * math.log((c + smoothing) / (n + added), base) for c in row if c)
        pairs += n
    return total / pairs


def unweighted_loss(counts: list[list[int]], smoothing: float) -> float:
    """The loss with every distinct pair counted once, however often it occurs."""
    terms = [-math.log((c + smoothing) / (sum(row) + BYTES * smoothing)) for row in counts for c in row if c]
    return sum(terms) / len(terms)


def table_shape(counts: Any) -> str:
    """What the learner's table looks like: '256 rows of 256', '128 rows', 'a dict', ..."""
    try:
        widths = sorted({len(row) for row in counts})
        rows = "1 row" if len(counts) == 1 else f"{len(counts)} rows"
        return f"{rows} of {' or '.join(str(w) for w in widths)}"
    except TypeError:
        return f"a {type(counts).__name__}"


def pair_text(a: int, b: int) -> str:
    """A pair as a learner reads it: 'n' then 'a' is ('n', 'a'); a newline shows as '\\n'."""
    return f"({chr(a)!r}, {chr(b)!r})"


def _first_difference(table: list[list[Any]], expected: list[list[int]]) -> dict[str, object]:
    """The first pair whose count differs, for a message."""
    a, b = next((a, b) for a in range(BYTES) for b in range(BYTES) if table[a][b] != expected[a][b])
    return {"pair": pair_text(a, b), "got": show(table[a][b]), "expected": expected[a][b]}


PAIRS_COST_TEXT = bytes(32 + (7 * k) % 95 for k in range(128))  # the shorter text; the longer repeats it GROWTH times


def count_pairs_work(env: Env, text: bytes) -> Traced:
    """What the lists the learner's count_pairs builds read, copy and move, counting the pairs of ``text``."""
    work = Traced()
    with own_lists_counted(env, work):
        env.bigram.count_pairs(text)
    return work


def count_pairs_cost(env: Env) -> None:
    """Fail with 'cost' when count_pairs's own lists do work that grows with the square of the text."""
    small = count_pairs_work(env, PAIRS_COST_TEXT)
    large = count_pairs_work(env, PAIRS_COST_TEXT * GROWTH)
    if found := square_growth(small, large, placer(env)):
        raise Fail("cost", small=f"{len(PAIRS_COST_TEXT):,}", large=f"{len(PAIRS_COST_TEXT) * GROWTH:,}",
                   times=GROWTH, **found)


@claim("L18", "count_pairs")
def count_pairs(env: Env) -> None:
    try:
        got = env.bigram.count_pairs(TEXT)
    except IndexError as error:
        raise Fail("shape", text=show(TEXT), got=f"IndexError: {error}") from None
    if table_shape(got) != "256 rows of 256":
        raise Fail("shape", text=show(TEXT), got=table_shape(got))
    if len({id(row) for row in got}) < BYTES:
        raise Fail("aliased", shared=BYTES + 1 - len({id(row) for row in got}))
    expected = own_counts(TEXT)
    table = [list(row) for row in got]
    seen = [[bool(c) for c in row] for row in table]
    if table != expected and seen == [[bool(c) for c in row] for row in expected]:
        raise Fail("wrong", text=show(TEXT), **_first_difference(table, expected))
    total = sum(sum(row) for row in table)
    if total != len(TEXT) - 1:
        raise Fail("total", text=show(TEXT), n=len(TEXT), got=show(total), expected=len(TEXT) - 1)
    if table != expected:
        if table == [list(column) for column in zip(*expected)]:
            raise Fail("reversed", text=show(TEXT))
        raise Fail("wrong", text=show(TEXT), **_first_difference(table, expected))
    again = [list(row) for row in env.bigram.count_pairs(SECOND_TEXT)]
    if again != own_counts(SECOND_TEXT):
        raise Fail("fresh", first=show(TEXT), second=show(SECOND_TEXT), got=sum(map(sum, again)),
                   expected=len(SECOND_TEXT) - 1)
    if [list(row) for row in got] != expected:  # the first call's table, read again after the second call
        raise Fail("reused", first=show(TEXT), second=show(SECOND_TEXT), got=sum(map(sum, got)))
    run = env.bigram.count_pairs(b"zaaa")
    if run[ord("a")][ord("a")] != 2:
        raise Fail("overlap", got=show(run[ord("a")][ord("a")]))
    count_pairs_cost(env)


def _judge_loss(got: object, counts: list[list[int]], smoothing: float) -> None:
    """Fail with the message that names what a wrong count_loss did, if it did something wrong."""
    expected = own_loss(counts, smoothing)
    if close(got, expected, 1e-9):
        return
    pairs = sum(map(sum, counts))
    rows = sum(1 for row in counts if any(row))
    values = {"smoothing": show(smoothing), "got": show(got), "expected": show(expected)}
    if close(got, -expected, 1e-9):
        raise Fail("sign", **values)
    if close(got, own_loss(counts, smoothing, base=2), 1e-9):
        raise Fail("log_base", **values)
    if smoothing and close(got, own_loss(counts, smoothing, extra=lambda s: s), 1e-9):
        raise Fail("denominator", **values)
    total = expected * pairs
    if any(close(got, total / k, 1e-9) for k in (1, rows, BYTES, BYTES * BYTES, pairs + 1)):
        raise Fail("per_pair", pairs=pairs, **values)
    if close(got, unweighted_loss(counts, smoothing), 1e-9):
        raise Fail("unweighted", **values)
    if smoothing == 0 and close(got, own_loss(counts, 1.0), 1e-9):
        raise Fail("ignores_smoothing", **values)
    raise Fail("wrong", **values)


def count_loss_of_copy(env: Env, counts: list[list[int]], smoothing: float) -> object:
    """The learner's count_loss on a copy of ``counts``; Fail("changed_counts") if it changed the copy."""
    given = [list(row) for row in counts]
    got = env.bigram.count_loss(given, smoothing)
    if given != counts:
        changed = sum(1 for row, kept in zip(given, counts) if row != kept)
        raise Fail("changed_counts", rows=changed, smoothing=show(smoothing))
    return got


@claim("L18", "count_loss")
def count_loss(env: Env) -> None:
    counts = own_counts(LOSS_TEXT)
    _judge_loss(count_loss_of_copy(env, counts, 1.0), counts, 1.0)
    try:
        got = count_loss_of_copy(env, counts, 0.0)
    except ZeroDivisionError:
        raise Fail("empty_row") from None
    except ValueError as error:
        raise Fail("log_zero", error=str(error)) from None
    _judge_loss(got, counts, 0.0)
    _judge_loss(count_loss_of_copy(env, counts, 0.5), counts, 0.5)


class Weights:
    """256 × 256 Tensors of the learner's kind with chosen scores, all one object whose numbers are swapped:
    building a Tensor from 65,536 nested numbers is the slow part, so it happens once per check."""

    def __init__(self, env: Env) -> None:
        self.tensor = env.tensor.Tensor([[0.0] * BYTES for _ in range(BYTES)])

    def __call__(self, scores: dict[tuple[int, int], float]) -> Any:
        """The tensor, now all zeros but for the given scores at [row][column]."""
        data = [0.0] * (BYTES * BYTES)
        for (a, b), score in scores.items():
            data[a * BYTES + b] = score
        self.tensor.data = data
        return self.tensor


def draw(env: Env, w: Any, seed: int, limit: int | None = None) -> object:
    """One sample from the learner's sample(), refusing a text that is not one character per byte."""
    rng = random.Random(seed)
    try:
        return env.bigram.sample(w, rng) if limit is None else env.bigram.sample(w, rng, limit)
    except UnicodeDecodeError as error:
        raise Fail("decode", error=str(error)) from None
    except OverflowError as error:
        raise Fail("overflow", error=str(error)) from None


@claim("L18", "sample")
def sample(env: Env) -> None:
    weights = Weights(env)
    first = weights({(NEWLINE, ord("a")): CERTAIN, (ord("a"), NEWLINE): CERTAIN})
    got = draw(env, first, 0)
    if not isinstance(got, str):
        raise Fail("type", got=type(got).__name__)
    if got != "a":
        if got == "a\n":
            raise Fail("newline_kept", got=show(got))
        if got == "":
            raise Fail("empty")
        if len(got) > 1 and set(got) == {"a"}:
            raise Fail("stuck", got=show(got))
        raise Fail("first", got=show(got))

    path = weights({(NEWLINE, ord("a")): CERTAIN, (ord("a"), ord("b")): CERTAIN,
                         (ord("b"), ord("c")): CERTAIN, (ord("c"), NEWLINE): CERTAIN})
    got = draw(env, path, 0, 12)
    if got != "abc":
        if got == "a" * 12:
            raise Fail("stuck", got=show(got))
        if isinstance(got, str) and got.startswith("cb"):
            raise Fail("column", got=show(got))
        raise Fail("path", got=show(got))

    high = weights({(NEWLINE, 0xE9): CERTAIN, (0xE9, ord("a")): CERTAIN, (ord("a"), NEWLINE): CERTAIN})
    got = draw(env, high, 0)
    if got != "\xe9a":
        raise Fail("high_byte", got=show(got))
    last = weights({(NEWLINE, 0xFF): CERTAIN, (0xFF, NEWLINE): CERTAIN})
    got = draw(env, last, 0)
    if got != "\xff":
        raise Fail("last_byte", got=show(got))

    loop = weights({(NEWLINE, ord("a")): CERTAIN, (ord("a"), ord("a")): CERTAIN})
    for limit in (7, 1):
        got = draw(env, loop, 0, limit)
        if got != "a" * limit:
            raise Fail("limit", limit=limit, got=show(got), n=len(got) if isinstance(got, Sized) else "no")
    got = draw(env, weights({(NEWLINE, ord("a")): CERTAIN, (ord("a"), NEWLINE): CERTAIN}), 0, 0)
    if got != "":
        raise Fail("limit_zero", got=show(got))

    top = 1000.0  # e^1000 overflows a float: the weights need the row's largest score taken off first
    odds = {(NEWLINE, ord("a")): top, (NEWLINE, ord("b")): top - math.log(3), (NEWLINE, NEWLINE): top + ODDS_END}
    same = {(row, b): score for row in (NEWLINE, ord("a"), ord("b")) for (_, b), score in odds.items()}
    w = weights(same)
    letters = "".join(str(draw(env, w, seed, ODDS_LIMIT)) for seed in range(ODDS_NAMES))
    share = letters.count("a") / max(len(letters), 1)
    if not 0.68 <= share <= 0.82:
        key = "greedy" if share == 1.0 else "not_softmax" if 0.43 <= share <= 0.57 else "odds"
        raise Fail(key, share=show(round(share, 3)), draws=len(letters), names=ODDS_NAMES)

    spread = weights({(NEWLINE, b): 1.0 for b in range(ord("a"), ord("z") + 1)})
    rng = random.Random(7)
    names = [env.bigram.sample(spread, rng, 8) for _ in range(3)]
    used = rng.getstate() != random.Random(7).getstate()
    rng = random.Random(7)
    again = [env.bigram.sample(spread, rng, 8) for _ in range(3)]
    if not used or again != names:
        raise Fail("seed", first=show(names), second=show(again),
                   used="drew from it" if used else "was never used: the draws came from somewhere else")


# --- pair_loss: the whole table's loss as one operation ---------------------------------------------------------

SLICE = b"emma\nolivia\nava\nisabella\nsophia\ncharlotte\nmia\namelia\n"  # the first 52 bytes of names.txt
SMALL_SHAPE: Shape = (4, 5)
# An empty row, a row whose one next byte occurs 4 times (so counts and one-hot differ), repeats and zeros.
SMALL_COUNTS = [[2, 0, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 3], [0, 4, 0, 0, 0]]
UPSTREAM = 2.5
# Rows far apart: only a shift by each row's own largest score gets through all three.
HUGE = [1000.0, -1000.0, 0.0, -1000.0, 1000.0, 999.0, -1000.0, -999.0, -1000.0]
HUGE_COUNTS = [[1, 0, 2], [0, 1, 1], [3, 0, 0]]

Row = tuple[int, int, float, list[float], float]  # (row a, n_a, logsumexp(W[a]), softmax(W[a]), Σ_b counts·W)


def row_parts(flat: Flat, shape: Shape, counts: list[list[int]]) -> list[Row]:
    """The checker's own numbers for every row of the table that starts a pair."""
    _, v = shape
    parts = []
    for a, row in enumerate(counts):
        n = sum(row)
        if not n:
            continue
        x = flat[a * v:(a + 1) * v]
        top = max(x)
        exps = [math.exp(t - top) for t in x]
        s = sum(exps)
        parts.append((a, n, top + math.log(s), [e / s for e in exps], sum(c * x[b] for b, c in enumerate(row))))
    return parts


def own_grad(parts: list[Row], shape: Shape, counts: list[list[int]], scale: float,
             n_times: bool = True, onehot: bool = False) -> Flat:
    """scale · (n_a · softmax(W[a]) − counts[a]) in every row that starts a pair; 0 elsewhere. ``n_times`` False
    counts the softmax once, ``onehot`` subtracts 1 for each byte that follows instead of its count."""
    _, v = shape
    grad = [0.0] * math.prod(shape)
    for a, n, _, probs, _ in parts:
        for b, p in enumerate(probs):
            c = counts[a][b]
            grad[a * v + b] = scale * ((n if n_times else 1) * p - ((1 if c else 0) if onehot else c))
    return grad


class Case:
    """One W and table handed to the learner's pair_loss, with how a message names it and its rows."""

    def __init__(self, flat: Flat, shape: Shape, counts: list[list[int]], text: str, byte_rows: bool) -> None:
        self.flat, self.shape, self.counts, self.text = flat, shape, counts, text
        self.parts = row_parts(flat, shape, counts)
        self.pairs = sum(map(sum, counts))
        self.byte_rows = byte_rows
        self.given: list[list[int]] = []  # the copy of the table last handed to the learner's pair_loss

    def label(self, index: int) -> str:
        return repr(chr(index)) if self.byte_rows else str(index)

    def call(self, env: Env, w: Any) -> Any:
        """The learner's pair_loss(w, counts) on a copy of the table; Fail if it changes the copy or divides by 0."""
        self.given = [list(row) for row in self.counts]
        try:
            loss = env.bigram.pair_loss(w, self.given)
        except ZeroDivisionError as error:
            raise Fail("empty_row", case=self.text, error=f"ZeroDivisionError: {error}") from None
        self.table_kept()
        if not isinstance(loss, env.tensor.Tensor):
            raise Fail("not_tensor", case=self.text, got=f"{type(loss).__name__} {show(loss)}")
        if tuple(loss.shape) != ():
            raise Fail("shape", case=self.text, got=show(tuple(loss.shape)))
        return loss

    def table_kept(self, when: str = "") -> None:
        """Fail("changed_counts") if the copy of the table last handed to pair_loss holds other numbers now."""
        if self.given != self.counts:
            changed = sum(1 for row, kept in zip(self.given, self.counts) if row != kept)
            raise Fail("changed_counts", case=self.text, rows=changed, when=when)

    def judge_value(self, got: float, expected: float) -> None:
        """Fail with the message naming what a wrong loss did, if it is wrong."""
        if agree([got], [expected]):
            return
        summed = expected * self.pairs
        shown = {"case": self.text, "got": show(got), "expected": show(expected), "pairs": self.pairs}
        distinct = sum(1 for row in self.counts for c in row if c)
        rows, entries = len(self.parts), math.prod(self.shape)
        for k, by in ((1, "1: no mean at all"), (rows, f"the number of rows that start a pair ({rows})"),
                      (distinct, f"the number of different pairs ({distinct})"),
                      (entries, f"the number of entries in the table ({entries})")):
            if k != self.pairs and agree([got], [summed / k]):
                raise Fail("value_mean", by=by, **shown)
        if agree([got], [-expected]):
            raise Fail("value_sign", **shown)
        if agree([got], [sum(lse - dot for _, _, lse, _, dot in self.parts) / self.pairs]):
            raise Fail("value_weight", **shown)
        v = self.shape[1]
        tops = sum(n * max(self.flat[a * v:(a + 1) * v]) for a, n, _, _, _ in self.parts)
        if agree([got], [expected - tops / self.pairs]):
            raise Fail("value_shift", **shown)
        raise Fail("value_wrong", **shown)

    def row_apart(self, got: Flat, expected: Flat) -> dict[str, str]:
        """The first row of W's gradient that differs, and up to four of its columns that do, for a message."""
        v = self.shape[1]
        a = next(a for a in range(self.shape[0]) if not agree(got[a * v:(a + 1) * v], expected[a * v:(a + 1) * v]))
        columns = [b for b in range(v) if not agree([got[a * v + b]], [expected[a * v + b]])][:4]
        return {"row": self.label(a), "columns": ", ".join(self.label(b) for b in columns),
                "got": show([round(got[a * v + b], 9) for b in columns]),
                "expected": show([round(expected[a * v + b], 9) for b in columns])}

    def judge_grad(self, got: Flat, expected: Flat, upstream: float) -> None:
        """Fail with the message naming what a wrong gradient of W did, if it is wrong."""
        if agree(got, expected):
            return
        shown = {"case": self.text}
        if not any(got):
            raise Fail("not_reaching", **shown)
        scale = upstream / self.pairs
        if upstream != 1 and agree(got, own_grad(self.parts, self.shape, self.counts, 1 / self.pairs)):
            raise Fail("grad_upstream", upstream=show(upstream), **shown)
        if agree(got, own_grad(self.parts, self.shape, self.counts, upstream)):
            raise Fail("grad_pairs", pairs=self.pairs, **shown)
        if agree(got, [-g for g in expected]):
            raise Fail("grad_sign", **shown)
        columns = {"case": self.text, "pairs": self.pairs}
        for key, grad in (("grad_onehot", own_grad(self.parts, self.shape, self.counts, scale, onehot=True)),
                          ("grad_softmax", own_grad(self.parts, self.shape, self.counts, scale, n_times=False))):
            if agree(got, grad):
                raise Fail(key, **columns, **self.row_apart(got, expected))
        raise Fail("grad_wrong", **columns, **self.row_apart(got, expected))


def zero_grad(w: Any) -> None:
    w.grad = [0.0] * len(w.data)


def text_case(env: Env) -> tuple[Case, Any]:
    """The table of the first bytes of names.txt and a 256 × 256 W, random in the rows of bytes that start a pair."""
    counts = own_counts(SLICE)
    used = [a for a in range(BYTES) if any(counts[a])]
    flat = [0.0] * (BYTES * BYTES)
    scores = numbers((len(used), BYTES), 18)
    for k, a in enumerate(used):
        flat[a * BYTES:(a + 1) * BYTES] = scores[k * BYTES:(k + 1) * BYTES]
    case = Case(flat, (BYTES, BYTES), counts, f"on the table of {show(SLICE)} (a 256 × 256 W)", byte_rows=True)
    return case, env.tensor.Tensor(nested(flat, (BYTES, BYTES)))


PROBE_SHAPE: Shape = (4, 3)
PROBE_PICKS = [2, 0, 2, 3]  # row 2 twice, row 1 never


def rows_probe(env: Env) -> None:
    """The learner's rows() on its own, on a 4 × 3 W: Fail("rows_values") or Fail("rows_grad") when the rows it
    picks, or the gradient its rule hands W (called by hand), are not what the checker's own arithmetic gives."""
    n, m = PROBE_SHAPE
    flat, seed = numbers(PROBE_SHAPE, 1801), numbers((len(PROBE_PICKS), m), 1802, 0.5, 3.0)
    shown = {"picks": show(PROBE_PICKS), "w": show(nested(flat, PROBE_SHAPE))}
    due = [flat[i * m + j] for i in PROBE_PICKS for j in range(m)]
    try:
        out = env.tensor.Tensor(nested(flat, PROBE_SHAPE)).rows(list(PROBE_PICKS))
        got = list(out.data)
    except Exception as error:  # any failure of rows() itself is the finding
        raise Fail("rows_values", got=f"{type(error).__name__}: {error}", expected=show(due), **shown) from None
    if not agree(got, due):
        raise Fail("rows_values", got=show(got), expected=show(due), **shown)
    grad = [0.0] * (n * m)
    for r, i in enumerate(PROBE_PICKS):
        for j in range(m):
            grad[i * m + j] += seed[r * m + j]
    handed: list[float] | str
    try:
        (handed,) = rule_grads(out, seed)
    except Exception as error:  # a rule that fails, or hands back no single gradient, is the finding
        handed = f"{type(error).__name__}: {error}"
    if not isinstance(handed, list) or not agree(handed, grad):
        raise Fail("rows_grad", seed=show(nested(seed, (len(PROBE_PICKS), m))),
                   got=handed if isinstance(handed, str) else show(nested(handed, PROBE_SHAPE)
                                                                  if len(handed) == n * m else handed),
                   expected=show(nested([round(g, 9) for g in grad], PROBE_SHAPE)), **shown)


def rule_named(env: Env, case: Case, w: Any) -> None:
    """Call the rule of a new pair_loss on the case by hand: Fail("one_row") when it raises IndexError and keeps one
    row's worth of numbers, Fail("lazy") when it hands back a generator."""
    loss = case.call(env, w)
    loss.grad = [1.0]
    shown = {"case": case.text}
    try:
        raw = loss._backward(loss)
    except IndexError as error:
        v, rows = case.shape[1], len(case.parts)
        kept = kept_row(loss._backward, rows, v)
        if kept is not None:
            raise Fail("one_row", error=f"IndexError: {error}", kept=kept, rows=rows, need=rows * v, **shown) from None
        return
    what = lazy_form(raw)
    if what:
        raise Fail("lazy", what=what, **shown)


def spelled_loss(env: Env, case: Case, w: Any, expected: float, grad: Flat) -> None:
    """The same loss as w.rows(firsts).cross_entropy(nexts), one row per pair: it must agree with pair_loss. When
    its gradient of W does not, cross_entropy's rule is called by hand, so that the message names the piece at fault."""
    firsts, nexts = (list(column) for column in zip(*pairwise(SLICE)))
    zero_grad(w)
    spelled = w.rows(firsts).cross_entropy(nexts)
    shown = {"pairs": case.pairs, "text": show(SLICE)}
    try:
        spelled.backward()
    except (TypeError, IndexError) as error:
        cross_entropy_rule(env, case, w, firsts, nexts, shown)  # names cross_entropy's rule, if it is at fault
        raise Fail("spelled_broken", error=f"{type(error).__name__}: {error}", **shown) from None
    if not agree([spelled.item()], [expected]):
        rows_probe(env)  # rows() on its own first: the message below names cross_entropy
        raise Fail("spelled_value", got=show(expected), spelled=show(spelled.item()), **shown)
    got = list(w.grad)
    if not agree(got, grad):
        cross_entropy_rule(env, case, w, firsts, nexts, shown)
        a = next(a for a in range(BYTES) if not agree(got[a * BYTES:(a + 1) * BYTES], grad[a * BYTES:(a + 1) * BYTES]))
        b = max(range(BYTES), key=lambda b: abs(got[a * BYTES + b] - grad[a * BYTES + b]))
        raise Fail("spelled_grad", row=repr(chr(a)), times=firsts.count(a), column=repr(chr(b)),
                   got=show(got[a * BYTES + b]), expected=show(grad[a * BYTES + b]), **shown)


def cross_entropy_rule(env: Env, case: Case, w: Any, firsts: list[int], nexts: list[int],
                       shown: dict[str, Any]) -> None:
    """Call the rule of a new w.rows(firsts).cross_entropy(nexts) by hand, with out.grad = [1.0]: Fail when what it
    hands the picked rows is not (softmax − onehot) / n by the checker's own arithmetic (or is no list at all)."""
    spelled = w.rows(firsts).cross_entropy(nexts)
    spelled.grad = [1.0]
    try:
        raw = spelled._backward(spelled)
    except (TypeError, IndexError, ValueError) as error:
        raise Fail("spelled_rule_broken", what=f"failed with '{type(error).__name__}: {error}'", **shown) from None
    if not isinstance(raw, (list, tuple)) or len(raw) != 1 or not isinstance(raw[0], (list, tuple)):
        what = "a tuple holding a generator" if isinstance(raw, tuple) and any(
            isinstance(g, Iterator) for g in raw) else f"{type(raw).__name__} {show(raw)[:60]}"
        raise Fail("spelled_rule_broken", what=f"handed back {what}, not one list of numbers in a tuple", **shown)
    (handed,) = [list(g) for g in raw]
    n = len(firsts)
    probs = {a: probs for a, _, _, probs, _ in case.parts}
    due = [(p - (b == t)) / n for a, t in zip(firsts, nexts) for b, p in enumerate(probs[a])]
    if agree(handed, due):
        return
    k = next(k for k in range(n) if not agree(handed[k * BYTES:(k + 1) * BYTES], due[k * BYTES:(k + 1) * BYTES]))
    at = {"pair": pair_text(firsts[k], nexts[k]), "index": k, "column": repr(chr(nexts[k])),
          "got": show(handed[k * BYTES + nexts[k]]), "expected": show(due[k * BYTES + nexts[k]])}
    raise Fail("spelled_sign" if agree(handed, [-g for g in due]) else "spelled_rule", **at, **shown)


def by_learners_values(env: Env, case: Case, scale: float) -> tuple[float, Flat]:
    """The table's loss times ``scale``, spelled out pair by pair in the learner's Values: its value, W's gradient."""
    _, v = case.shape

    def build(xs: list[Any]) -> Any:
        terms: list[Any] = []
        for a, row in enumerate(case.counts):
            if not any(row):
                continue
            x = xs[a * v:(a + 1) * v]
            top = max(t.data for t in x)  # a plain number: a constant shift leaves the loss as it is
            lse = total([(t - top).exp() for t in x]).log() + top
            terms.extend((lse - x[b]) * c for b, c in enumerate(row) if c)
        return total(terms) * (scale / case.pairs)

    value, (grad,) = by_values(env, build, case.flat)
    return value / scale, grad


@claim("L18", "pair_loss")
def pair_loss(env: Env) -> None:
    # The 256 × 256 W of a slice of names.txt: the checker's own arithmetic, then the loss spelled out one row per pair.
    case, w = text_case(env)
    loss = case.call(env, w)
    expected = sum(n * lse - dot for _, n, lse, _, dot in case.parts) / case.pairs
    if not agree([loss.data[0]], [expected]):
        rows_probe(env)  # a fault of rows() (lesson 16) is named before pair_loss is blamed
    case.judge_value(loss.data[0], expected)
    zero_grad(w)
    try:
        loss.backward()
    except (TypeError, IndexError) as error:
        rule_named(env, case, w)  # a rule that cannot run, named by what it kept or returned
        raise error from None
    case.table_kept(" by its backward rule")
    if not any(w.grad) and any(walk_by_hand(case.call(env, w), [1.0]).of(w)):
        raise Fail("walk", case=case.text)  # the rules send W a gradient that the learner's backward() loses
    grad = own_grad(case.parts, case.shape, case.counts, 1 / case.pairs)
    if not agree(list(w.grad), grad):
        rows_probe(env)
    case.judge_grad(list(w.grad), grad, 1.0)
    spelled_loss(env, case, w, expected, grad)

    # A small W of another shape, with an empty row, against the learner's own Values, and a gradient from above.
    flat = numbers(SMALL_SHAPE, 41)
    small = Case(flat, SMALL_SHAPE, SMALL_COUNTS, f"on a 4 × 5 W with the table {show(SMALL_COUNTS)}", byte_rows=False)
    w = env.tensor.Tensor(nested(flat, SMALL_SHAPE))
    try:
        loss = small.call(env, w)
    except (IndexError, ValueError) as error:
        raise Fail("sizes", case=small.text, error=f"{type(error).__name__}: {error}") from None
    value, grad = by_learners_values(env, small, UPSTREAM)
    small.judge_value(loss.data[0], value)
    scaled = loss * UPSTREAM
    zero_grad(w)
    scaled.backward()
    small.table_kept(" by its backward rule")
    first = list(w.grad)
    small.judge_grad(first, grad, UPSTREAM)
    zero_grad(w)
    scaled.backward()
    if not agree(list(w.grad), first):
        apart = small.row_apart(list(w.grad), first)
        raise Fail("second_backward", case=small.text, row=apart["row"], first=apart["expected"], second=apart["got"])
    # The caller's table changes after the forward pass: the gradient must not.
    table = [list(row) for row in SMALL_COUNTS]
    loss = env.bigram.pair_loss(w, table)
    for row in table:
        row[0] += 3
    zero_grad(w)
    loss.backward()
    if not agree(list(w.grad), [g / UPSTREAM for g in grad]):
        raise Fail("kept_counts", case=small.text)

    # Scores of ±1000, rows far apart.
    huge = Case(HUGE, (3, 3), HUGE_COUNTS, "", byte_rows=False)
    expected = sum(n * lse - dot for _, n, lse, _, dot in huge.parts) / huge.pairs
    w = env.tensor.Tensor(nested(HUGE, (3, 3)))
    try:
        loss = huge.call(env, w)
        got = loss.data[0]
        zero_grad(w)
        loss.backward()
    except (OverflowError, ValueError, ZeroDivisionError) as error:
        raise Fail("overflow", what=f"failed with '{type(error).__name__}: {error}'") from None
    if not agree([got], [expected]):
        raise Fail("overflow", what=f"gave {show(got)} where {show(expected)} is right")
    grad = own_grad(huge.parts, huge.shape, HUGE_COUNTS, 1 / huge.pairs)
    if not agree(list(w.grad), grad):
        raise Fail("overflow", what=f"gave W the gradient {show(list(w.grad))} where {show(grad)} is right")


# --- the gradient reaches W through the learner's engine --------------------------------------------------------

# A second table for the small W, so that W can be used twice in one graph, each use with a share of its own.
OTHER_COUNTS = [[0, 3, 0, 1, 0], [1, 0, 0, 0, 2], [0, 0, 0, 0, 0], [2, 0, 5, 0, 0]]


def summed(env: Env, first: Any, second: Any) -> Any:
    """first + second as one node made by the checker (Tensor.made, with the checker's own rule): two parents."""
    return env.tensor.Tensor.made([first.data[0] + second.data[0]], (), (first, second), "+",
                                  lambda out: ([out.grad[0]], [out.grad[0]]))


def small_loss(env: Env, w: Any, counts: list[list[int]] = SMALL_COUNTS) -> Any:
    """The learner's pair_loss on W and a copy of ``counts``; Fail("no_loss") unless it is a one-number Tensor."""
    loss = env.bigram.pair_loss(w, [list(row) for row in counts])
    if not isinstance(loss, env.tensor.Tensor) or len(loss.data) != 1:
        raise Fail("no_loss")
    return loss


def twice_over(env: Env, w: Any) -> Any:
    """A graph in which W is used twice: pair_loss(W, SMALL_COUNTS) + pair_loss(W, OTHER_COUNTS)."""
    return summed(env, small_loss(env, w), small_loss(env, w, OTHER_COUNTS))


def grid(flat: Flat) -> str:
    """A gradient of the small W as its rows, for a message."""
    return show(nested([round(g, 9) for g in flat], SMALL_SHAPE))


def by_rules_and_by_backward(env: Env, build: Callable[[Any], Any]) -> tuple[Any, Flat, Flat]:
    """W's gradient from the graph ``build(W)``, twice: through its rules called by the checker (on one copy of the
    graph), then through the learner's backward() (on another). Fail("writes_grad") when a rule wrote a .grad itself."""
    flat = numbers(SMALL_SHAPE, 43)
    w = env.tensor.Tensor(nested(flat, SMALL_SHAPE))
    walk = walk_by_hand(build(w), [1.0], watched=(w,))
    if walk.written:
        writer, node = walk.written[0]
        whose = "W.grad" if node is w else f"the .grad of its parent '{node._op}'"
        raise Fail("writes_grad", op=writer._op, whose=whose, seen=grid(walk.of(w)))
    root = build(w)
    zero_grad(w)
    root.backward()
    return w, walk.of(w), list(w.grad)


@claim("L18", "through_engine")
def through_engine(env: Env) -> None:
    """W's gradient comes back through the learner's rules and backward(): the same as the rules called by hand,
    the sum of both shares where W is used twice, twice as much after a second pass; the graph frees itself."""
    w, by_rules, got = by_rules_and_by_backward(env, lambda w: small_loss(env, w))
    if not agree(got, by_rules):
        raise Fail("walk", got=grid(got), expected=grid(by_rules))
    once = got
    _, by_rules, got = by_rules_and_by_backward(env, lambda w: twice_over(env, w))
    if not agree(got, by_rules):
        alone = [b - g for b, g in zip(by_rules, once)]  # the second table's share
        key = "shared" if agree(got, once) or agree(got, alone) else "walk"
        raise Fail(key, got=grid(got), expected=grid(by_rules))
    loss = small_loss(env, w)
    zero_grad(w)
    loss.backward()
    first = list(w.grad)
    loss.backward()
    if any(first) and agree(list(w.grad), first):
        raise Fail("second_pass", got=grid(list(w.grad)), expected=grid([2 * g for g in first]))
    kept = kept_by_a_cycle(lambda: small_loss(env, w), lambda: walked(small_loss(env, w)))
    if kept is not None:
        raise Fail("cycle", after=("", " and its backward()")[kept])


def walked(root: Any) -> Any:
    root.backward()
    return root


# --- pair_loss's work, counted ----------------------------------------------------------------------------------

COST_SIZES: list[tuple[Shape, Shape, str]] = [((4, 16), (4 * GROWTH, 16), "number of rows"),
                                              ((4, 8), (4, 8 * GROWTH), "width of a row")]


def cost_table(shape: Shape, times: int = 1) -> list[list[int]]:
    """A table for W of this shape: row 0 empty, the others with counts 0, 1 and 2 (times ``times``)."""
    n, v = shape
    return [[0] * v] + [[(a + 2 * b) % 3 * times for b in range(v)] for a in range(1, n)]


@contextmanager
def tallying_tensors(tensor_class: Any, work: Work) -> Iterator[None]:
    """Inside the block, every tensor the learner's code makes counts what is read from its data and grad."""
    made, init = tensor_class.__dict__["made"], tensor_class.__init__

    def counted_made(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return tallied(made.__func__(cls, *args, **kwargs), work)

    def counted_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        tallied(self, work)

    tensor_class.made, tensor_class.__init__ = classmethod(counted_made), counted_init
    try:
        yield
    finally:
        tensor_class.made, tensor_class.__init__ = made, init


def pair_loss_work(env: Env, shape: Shape, times: int = 1) -> Traced:
    """What the learner's pair_loss and its backward read, by kind, on a W of this shape."""
    tensor_class = env.tensor.Tensor
    flat, counts = numbers(shape, 5), cost_table(shape, times)
    work = Traced()
    w = tallied(tensor_class(nested(flat, shape)), work)
    table = Tally([Tally(row, work) for row in counts], work)
    with tallying_tensors(tensor_class, work), own_lists_counted(env, work):
        env.bigram.pair_loss(w, table).backward()
    return work


def pair_loss_reads(env: Env, shape: Shape, times: int = 1) -> int:
    """How many numbers the learner's pair_loss and its backward read, on a W of this shape."""
    return pair_loss_work(env, shape, times).reads


def rows_work(env: Env, shape: Shape) -> Traced:
    """What the learner's rows() and its rule read, by kind, picking the rows of cost_table(shape) with pairs."""
    tensor_class = env.tensor.Tensor
    used = [a for a, row in enumerate(cost_table(shape)) if any(row)]
    work = Traced()
    w = tallied(tensor_class(nested(numbers(shape, 5), shape)), work)
    with tallying_tensors(tensor_class, work), own_lists_counted(env, work):
        out = w.rows(used)
        rule_grads(out, [1.0] * len(out.data))
    return work


@claim("L18", "pair_loss_cost")
def pair_loss_cost(env: Env) -> None:
    shape = COST_SIZES[0][0]
    few, many = pair_loss_reads(env, shape), pair_loss_reads(env, shape, GROWTH)
    if many > QUADRATIC * few:
        raise Fail("count_cost", shape=show(shape), growth=GROWTH, width=shape[1],
                   reads=growth_text(few, many).replace("on an input", "on counts"))
    works = [(pair_loss_work(env, small), pair_loss_work(env, large)) for small, large, _ in COST_SIZES]
    for (small, large, grown), (small_work, large_work) in zip(COST_SIZES, works):
        few, many = small_work.reads, large_work.reads
        shown = {"small": show(small), "large": show(large), "growth": GROWTH}
        if not grows_with_the_square(few, many):
            continue
        if alone := square_growth(rows_work(env, small), rows_work(env, large)):
            raise Fail("rows_cost", reads=alone["growth"], **shown)
        raise Fail("cost", reads=growth_text(few, many), grown=grown, **shown)
    for (small, large, grown), (small_work, large_work) in zip(COST_SIZES, works):
        kind = square_kind(small_work, large_work)  # one kind of work that the total hides
        if kind is None:
            continue
        shown = {"small": show(small), "large": show(large), "growth": GROWTH, "grown": grown}
        if alone := square_growth(rows_work(env, small), rows_work(env, large)):
            raise Fail("rows_cost", reads=alone["growth"], small=show(small), large=show(large), growth=GROWTH)
        if kind in SCANS:
            raise Fail("cost", reads=growth_text(small_work.kinds[kind], large_work.kinds[kind]), **shown)
        raise Fail("list_cost", fault=FAULTS[kind], **shown)


TRAIN_STEPS, TRAIN_RATE = 10, 20.0


def _model_loss(w: list[float], counts: list[list[int]]) -> float:
    """The checker's own mean cross-entropy of the weights ``w`` (flat, 256 × 256) over every pair in counts."""
    parts = row_parts(w, (BYTES, BYTES), counts)
    return sum(n * logsumexp - picked for _, n, logsumexp, _, picked in parts) / sum(n for _, n, *_ in parts)


@claim("L18", "learns")
def learns(env: Env) -> None:
    counts = env.bigram.count_pairs(TRAIN_TEXT)
    w = env.tensor.Tensor([[0.0] * BYTES for _ in range(BYTES)])
    start = list(w.data)
    losses = env.bigram.train(w, lambda w: env.bigram.pair_loss(w, counts), TRAIN_STEPS, TRAIN_RATE)
    truth = own_counts(TRAIN_TEXT)
    target = own_loss(truth, 1.0)
    values = {"steps": TRAIN_STEPS, "lr": show(TRAIN_RATE), "target": show(round(target, 4))}
    if list(w.data) == start:
        raise Fail("frozen", **values)
    first, last = _model_loss(start, truth), _model_loss(list(w.data), truth)
    values |= {"first": show(round(first, 4)), "got": show(round(last, 4))}
    if last >= first:
        raise Fail("rose", losses=show([round(x, 3) for x in losses]), **values)
    if last >= target:
        raise Fail("not_below", **values)
