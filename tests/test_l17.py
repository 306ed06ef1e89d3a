"""Lesson 17: the fused cross-entropy of the finished engine, and the page's numbers from its runs."""

from __future__ import annotations

import pytest

from ember.tensor import Tensor


def test_a_target_outside_the_row_is_refused_instead_of_misplacing_its_gradient() -> None:
    logits = Tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    for targets in ([0, -1], [0, 3]):
        with pytest.raises(IndexError, match=f"target {targets[1]}"):
            logits.cross_entropy(targets)
