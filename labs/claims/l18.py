"""Checks of lesson 18, A bigram that writes names: the pair table, the count model's loss, sampling,
and a short training run of the learner's engine on a tiny text.

Every expected number comes from the checker's own counting and arithmetic below, never from the
learner's pieces; the texts are tiny so that the checks stay fast in the page.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from ..claimkit import Env, Fail, claim, close, show

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
        return f"{len(counts)} rows of {' or '.join(str(w) for w in widths)}"
    except TypeError:
        return f"a {type(counts).__name__}"


def pair_text(a: int, b: int) -> str:
    """A pair as a learner reads it: 'n' then 'a' is ('n', 'a'); a newline shows as '\\n'."""
    return f"({chr(a)!r}, {chr(b)!r})"


def _first_difference(table: list[list[Any]], expected: list[list[int]]) -> dict[str, object]:
    """The first pair whose count differs, for a message."""
    a, b = next((a, b) for a in range(BYTES) for b in range(BYTES) if table[a][b] != expected[a][b])
    return {"pair": pair_text(a, b), "got": show(table[a][b]), "expected": expected[a][b]}


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


@claim("L18", "count_loss")
def count_loss(env: Env) -> None:
    counts = own_counts(LOSS_TEXT)
    given = [list(row) for row in counts]
    got = env.bigram.count_loss(given, 1.0)
    if given != counts:
        changed = sum(1 for row, kept in zip(given, counts) if row != kept)
        raise Fail("changed_counts", rows=changed)
    _judge_loss(got, counts, 1.0)
    try:
        got = env.bigram.count_loss(counts, 0.0)
    except ZeroDivisionError:
        raise Fail("empty_row") from None
    except ValueError as error:
        raise Fail("log_zero", error=str(error)) from None
    _judge_loss(got, counts, 0.0)
    _judge_loss(env.bigram.count_loss(counts, 0.5), counts, 0.5)


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
        if got.startswith("cb"):
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
            raise Fail("limit", limit=limit, got=show(got), n=len(got))
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


TRAIN_STEPS, TRAIN_RATE = 10, 20.0


def _model_loss(w: list[float], counts: list[list[int]]) -> float:
    """The checker's own mean cross-entropy of the weights ``w`` (flat, 256 × 256) over every pair in counts."""
    total, pairs = 0.0, 0
    for a, row in enumerate(counts):
        n = sum(row)
        if not n:
            continue
        scores = w[a * BYTES:(a + 1) * BYTES]
        top = max(scores)
        norm = top + math.log(sum(math.exp(s - top) for s in scores))
        total += sum(c * (norm - scores[b]) for b, c in enumerate(row) if c)
        pairs += n
    return total / pairs


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
