"""The work bench/part3.py times: lesson 18's trainings and one bigram step, in plain Python, and labs' checks.

This file runs unchanged in CPython (imported) and in the page's Python worker (its text sent as a
cell, so its functions live in the page's namespace and use the learner's files, here the finished
pieces, lesson 18's pair_loss among them). Each measuring function answers a dict of plain numbers, so
the two places print alike. ``lab_checks`` is called in CPython only: the page times a lab's checks through
its worker's own check request.
"""

from __future__ import annotations

import contextlib
import gc
import math
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TypeVar

import labs
from ember.bigram import BYTES, Counts, count_loss, count_pairs, pair_loss, train
from ember.graph import toposort
from ember.scalar import Value
from ember.tensor import Tensor

MARGIN = 0.05  # nats above the smoothed count model's loss
MAX_STEPS = 3000  # a training that has not reached the target by then is reported as such
BATCH = 128
MINIBATCH_LR = ((0, 50.0), (300, 15.0))  # (from step, learning rate)

# What setup() reads and counts, for the functions below.
TEXT: bytes
COUNTS: Counts
TARGET: float
PAIRS: list[tuple[int, int]]


class Reached(Exception):
    """Raised from train's ``each`` to end a training once the loss is within the target."""


def names_text() -> bytes:
    """The names file as shipped with the course (in the worker: in the course's Python bundle)."""
    return (Path(labs.__file__).parent / "data" / "names.txt").read_bytes()


def setup() -> dict:
    """Read the data and count its pairs; answer the target and how long the counting took."""
    global TEXT, COUNTS, TARGET, PAIRS
    TEXT = names_text()
    started = time.perf_counter()
    COUNTS = count_pairs(TEXT)
    counted = time.perf_counter() - started
    started = time.perf_counter()
    smoothed = count_loss(COUNTS)
    TARGET = smoothed + MARGIN
    PAIRS = list(pairwise(TEXT))
    pyodide = sys.modules.get("pyodide")
    return {"python": platform.python_version(), "pyodide": getattr(pyodide, "__version__", None),
            "bytes": len(TEXT), "pairs": len(PAIRS), "count_s": counted,
            "count_loss": smoothed, "count_loss_s": time.perf_counter() - started, "target": TARGET}


def zeros() -> Tensor:
    return Tensor([[0.0] * BYTES for _ in range(BYTES)])


def spelled_loss_of(counts: list[list[int]]):
    """The full-batch loss spelled out in tensor ops: rows, exp, sum(axis=1, keepdims=True), log, weighted by counts."""
    used = [a for a in range(BYTES) if any(counts[a])]
    weights = Tensor([counts[a] for a in used])
    pairs = sum(sum(counts[a]) for a in used)

    def loss_of(w: Tensor) -> Tensor:
        logits = w.rows(used)
        log_probs = logits - logits.exp().sum(axis=1, keepdims=True).log()
        return -(log_probs * weights).sum() / pairs
    return loss_of


def full_batch(lr: float, spelled: bool = False) -> dict:
    """Train W from zeros on the whole text each step until the loss is within the target.

    ``steps`` counts the updates made before the loss was first seen within the target; ``seconds`` is
    the time until then (steps and losses as lesson 18's ``train`` takes and reports them).
    """
    loss_of = spelled_loss_of(COUNTS) if spelled else (lambda w: pair_loss(w, COUNTS))
    w = zeros()
    seen: list[float] = []

    def each(step: int, loss: float) -> None:
        seen.append(time.perf_counter() - started)
        if loss <= TARGET:
            raise Reached

    started = time.perf_counter()
    with contextlib.suppress(Reached):
        train(w, loss_of, MAX_STEPS, lr, each)
    reached = len(seen) if seen and len(seen) <= MAX_STEPS else None
    # each(step) runs after step's update: the loss it reports was measured before that update
    return {"lr": lr, "spelled": spelled, "steps": reached - 1 if reached else None,
            "seconds": seen[-1] if reached else None, "per_step_ms": 1000 * seen[-1] / len(seen)}


def minibatch(seed: int) -> dict:
    """Train W from zeros on batches of BATCH random pairs (lr 50, then 15 from step 300), until the
    full-batch loss (measured after every step, not counted in the time) is within the target."""
    rng = random.Random(seed)
    w = zeros()
    spent = 0.0
    for step in range(1, MAX_STEPS + 1):
        started = time.perf_counter()
        batch = rng.choices(PAIRS, k=BATCH)
        loss = w.rows([a for a, _ in batch]).cross_entropy([b for _, b in batch])
        w.grad = [0.0] * len(w.data)
        loss.backward()
        lr = [rate for start, rate in MINIBATCH_LR if step > start][-1]
        w.data = [x - lr * g for x, g in zip(w.data, w.grad)]
        spent += time.perf_counter() - started
        if pair_loss(w, COUNTS).item() <= TARGET:
            return {"seed": seed, "steps": step, "seconds": spent, "per_step_ms": 1000 * spent / step}
    return {"seed": seed, "steps": None, "seconds": None, "per_step_ms": 1000 * spent / MAX_STEPS}


def scalar_weights() -> list[Value]:
    return [Value(0.0) for _ in range(BYTES * BYTES)]


def scalar_step(w: list[Value], batch: list[tuple[int, int]]) -> tuple[int, float]:
    """One step of the bigram with W as 65,536 Values, the loss spelled out per pair: nodes, loss."""
    losses = []
    for a, b in batch:
        row = w[a * BYTES:(a + 1) * BYTES]
        total = row[0].exp()
        for v in row[1:]:
            total = total + v.exp()
        losses.append(total.log() - row[b])
    loss = losses[0]
    for item in losses[1:]:
        loss = loss + item
    loss = loss / len(batch)
    loss.backward()
    for v in w:
        v.data -= 50.0 * v.grad
    nodes = len(toposort(loss, lambda v: v._prev))
    return nodes, loss.data


def tensor_step(w: Tensor, batch: list[tuple[int, int]]) -> tuple[int, float]:
    """The same step with W as one 256 × 256 Tensor and the fused cross-entropy: nodes, loss."""
    loss = w.rows([a for a, _ in batch]).cross_entropy([b for _, b in batch])
    loss.backward()
    w.data = [x - 50.0 * g for x, g in zip(w.data, w.grad)]
    nodes = len(toposort(loss, lambda t: t._parents))
    return nodes, loss.item()


def one_step(kind: str, seed: int = 1) -> dict:
    """One step of ``kind`` ("scalar" or "tensor") on the same minibatch, W (zeros) made beforehand: nodes in
    the loss's graph, loss, seconds (median of a few), and the peak of memory Python allocated during the
    step (tracemalloc, in a separate run; W itself not counted)."""
    batch = random.Random(seed).choices(PAIRS, k=BATCH)
    if kind == "scalar":
        return timed_step(kind, batch, scalar_step, scalar_weights, runs=3)
    return timed_step(kind, batch, tensor_step, zeros, runs=7)


W = TypeVar("W")  # the weights a step takes: the Values, or the Tensor


def timed_step(kind: str, batch: list[tuple[int, int]], step: Callable[[W, list[tuple[int, int]]], tuple[int, float]],
               weights: Callable[[], W], runs: int) -> dict:
    """one_step's measures of ``step`` on W as ``weights`` makes it."""
    times = []
    for _ in range(runs):
        w = weights()
        gc.collect()
        started = time.perf_counter()
        nodes, loss = step(w, batch)
        times.append(time.perf_counter() - started)
    w = weights()
    gc.collect()
    tracemalloc.start()
    step(w, batch)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    times.sort()
    return {"kind": kind, "nodes": nodes, "loss": loss, "seconds": times[len(times) // 2],
            "peak_mib": peak / 2**20, "loss_matches_log256": math.isclose(loss, math.log(BYTES))}


def lab_checks(lab: str, repeats: int = 3) -> dict:
    """CPython only (the page times the same checks through its worker's check request): a lab's checks on the
    finished pieces, run as the tests run them (check_lesson on the modules as the lab starts): the seconds of the
    first run (it imports the lesson's checks), and the median of ``repeats`` runs after it."""
    from labs.checking.learner import finished_pieces, module_sources
    from labs.checking.pipeline import check_lesson
    from labs.course.model import load_course

    course = load_course()
    sources = module_sources(course, lab, finished_pieces(course, course.lesson(lab).number))
    times, passed = [], True
    for _ in range(repeats + 1):
        started = time.perf_counter()
        passed = check_lesson(lab, sources, course=course).passed and passed
        times.append(time.perf_counter() - started)
    first, *runs = times
    return {"lab": lab, "first": first, "seconds": sorted(runs)[len(runs) // 2], "runs": runs, "passed": passed}
