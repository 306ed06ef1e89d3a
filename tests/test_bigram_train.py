"""Lesson 18's course code, train(): a run the loss overflows ends with W at the last weights whose loss was finite."""

from __future__ import annotations

import math

import pytest

from ember.bigram import count_pairs, pair_loss, train
from ember.tensor import Tensor
from labs.course.datasets import names_text

COUNTS = count_pairs(names_text())  # the page's run: at learning rate 1e305 the loss overflows at step 3


def zeros() -> Tensor:
    return Tensor([[0.0] * 256 for _ in range(256)])


def test_an_overflowing_run_keeps_the_last_weights_whose_loss_was_finite() -> None:
    w, seen = zeros(), []
    with pytest.raises(FloatingPointError, match=r"step (\d+): the loss is inf.*weights of step \d+, whose loss"):
        train(w, lambda w: pair_loss(w, COUNTS), 30, 1e305, lambda step, loss: seen.append(loss))
    kept = pair_loss(w, COUNTS).item()
    assert math.isfinite(kept) and all(math.isfinite(x) for x in w.data)
    assert kept == seen[-1]  # the weights whose loss each() saw last, not those the next step made


def test_the_message_names_the_step_whose_weights_are_kept() -> None:
    w = zeros()
    with pytest.raises(FloatingPointError) as raised:
        train(w, lambda w: pair_loss(w, COUNTS), 30, 1e305)
    step = int(str(raised.value).split(":", 1)[0].removeprefix("step "))
    assert f"the weights of step {step - 1}" in str(raised.value)


def test_a_loss_that_is_not_finite_from_the_start_leaves_the_starting_weights() -> None:
    w = zeros()
    w.data[0] = 1.0
    start = list(w.data)
    with pytest.raises(FloatingPointError, match="starting weights"):
        train(w, lambda w: pair_loss(w, COUNTS) * math.inf, 5, 1.0)
    assert w.data == start


def test_a_run_stopped_from_each_keeps_the_weights_of_its_last_finished_step() -> None:
    w, seen = zeros(), []

    def each(step: int, loss: float) -> None:
        seen.append(list(w.data))
        if step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(w, lambda w: pair_loss(w, COUNTS), 10, 50.0, each)
    assert w.data == seen[-1] and seen[-1] != seen[-2]
