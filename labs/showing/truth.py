"""The course's own arithmetic for what a page cell reports about the learner's model, never the learner's code.

Lesson 18's training cell stops when the learner's ``pair_loss`` says the target is reached; before it says
so, it asks these functions what W's loss really is, so that a wrong ``pair_loss`` cannot announce success.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def bigram_loss(weights: Sequence[float], counts: Sequence[Sequence[float]]) -> float:
    """The mean over every pair the table counts of −log softmax(W[a])[b]: W's numbers flat, row by row, one row
    of W per row of ``counts``, as wide as a row of counts. Rows that start no pair are skipped."""
    total, pairs = 0.0, 0.0
    for a, row in enumerate(counts):
        n = math.fsum(row)
        if not n:
            continue
        width = len(row)
        scores = weights[a * width:(a + 1) * width]
        top = max(scores)
        logsumexp = top + math.log(math.fsum(math.exp(x - top) for x in scores))
        total += n * logsumexp - math.fsum(c * x for c, x in zip(row, scores) if c)
        pairs += n
    return total / pairs


def same_loss(yours: object, course: float) -> bool:
    """Whether the learner's loss is the course's to within rounding (1e-6, relative or absolute)."""
    return isinstance(yours, (int, float)) and math.isclose(yours, course, rel_tol=1e-6, abs_tol=1e-6)
