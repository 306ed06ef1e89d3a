"""ember: a bigram model of names, first counted from the text, then learned with Tensor.

The model reads a text as raw bytes and guesses each byte from the one before it. A newline
ends one name and starts the next, so the pair (newline, b) says how names begin and the pair
(a, newline) how they end. Both models are a 256 × 256 table: row a holds the scores for
every byte that may follow byte a.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import pairwise

from ember.tensor import Grads, Tensor

BYTES = 256
NEWLINE = 10

Counts = list[list[int]]


# --- gap L18.count_pairs ---
def count_pairs(text: bytes) -> Counts:
    """counts[a][b]: how many times byte b follows byte a in text."""
    counts = [[0] * BYTES for _ in range(BYTES)]
    for a, b in pairwise(text):
        counts[a][b] += 1
    return counts
# --- end gap ---


# --- gap L18.count_loss ---
def count_loss(counts: Counts, smoothing: float = 1.0) -> float:
    """The count model's mean negative log-probability per pair, each row's counts plus ``smoothing``."""
    total, pairs = 0.0, 0
    for row in counts:
        n = sum(row)
        if n == 0:
            continue
        norm = n + BYTES * smoothing
        total -= sum(c * math.log((c + smoothing) / norm) for c in row if c)
        pairs += n
    return total / pairs
# --- end gap ---


# --- gap L18.pair_loss ---
def pair_loss(w: Tensor, counts: Counts) -> Tensor:
    """W's mean cross-entropy over every pair the table counts, as one operation.

    counts[a][b] is how often b follows a, one row of counts per row of w (256 × 256 for bytes).
    It is lesson 17's cross-entropy with the counts in place of the one-hot: row a of the
    gradient is (n_a · softmax(W[a]) - counts[a]) / pairs, where n_a is the row's total.
    """
    used = [a for a, row in enumerate(counts) if any(row)]
    logits = w.rows(used)
    width = logits.shape[1]
    follows = [[(b, c) for b, c in enumerate(counts[a]) if c] for a in used]
    pairs = sum(c for nexts in follows for _, c in nexts)
    probs: list[float] = []
    total = 0.0
    for r, nexts in enumerate(follows):
        row = logits.data[r * width:(r + 1) * width]
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        s = sum(exps)
        n = sum(c for _, c in nexts)
        total += n * (top + math.log(s)) - sum(c * row[b] for b, c in nexts)
        probs.extend(n * e / s for e in exps)

    def rule(out: Tensor) -> Grads:
        scale = out.grad[0] / pairs
        grad = [p * scale for p in probs]
        for r, nexts in enumerate(follows):
            for b, c in nexts:
                grad[r * width + b] -= c * scale
        return (grad,)
    return Tensor.made([total / pairs], (), (logits,), "pair_loss", rule)
# --- end gap ---


def train(w: Tensor, loss_of: Callable[[Tensor], Tensor], steps: int, lr: float,
          each: Callable[[int, float], None] | None = None) -> list[float]:
    """Take ``steps`` steps of gradient descent on w; ``each(step, loss)`` after every step.

    w changes in one assignment per step, so a run stopped part way keeps the weights of the
    last finished step. A loss that stops being a finite number ends the run, with w back at
    the last weights whose loss was finite.
    """
    losses: list[float] = []
    kept = w.data  # the weights whose loss was last seen finite (none seen yet: the starting ones)
    for step in range(1, steps + 1):
        loss = loss_of(w)
        value = loss.item()
        if not math.isfinite(value):
            w.data = kept
            where = (f"W is back at the weights of step {step - 1}, whose loss was {losses[-1]:.6g}"
                     if losses else "W keeps its starting weights")
            raise FloatingPointError(
                f"step {step}: the loss is {value}, so the steps have overshot; "
                f"{where}. Try a smaller learning rate than {lr}."
            )
        kept = w.data
        w.grad = [0.0] * len(w.data)
        loss.backward()
        w.data = [x - lr * g for x, g in zip(w.data, w.grad)]
        losses.append(value)
        if each is not None:
            each(step, value)
    return losses


# --- gap L18.sample ---
def sample(w: Tensor, rng: random.Random, limit: int = 30) -> str:
    """One name: start after a newline, draw each next byte from softmax(W[previous]) until a newline."""
    out: list[int] = []
    previous = NEWLINE
    while len(out) < limit:
        row = w.data[previous * BYTES:(previous + 1) * BYTES]
        top = max(row)
        weights = [math.exp(x - top) for x in row]
        byte = rng.choices(range(BYTES), weights)[0]
        if byte == NEWLINE:
            break
        out.append(byte)
        previous = byte
    return bytes(out).decode("latin-1")
# --- end gap ---
