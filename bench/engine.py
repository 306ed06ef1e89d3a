"""Time the finished ember engine against micrograd, and weigh their graphs.

Run from the repository root with ``.venv/bin/python bench/engine.py``. Both
engines run in this one process with the garbage collector on (its default);
the heap is collected before every timed run so that no run pays for the
garbage of the one before it. The engines take turns run by run, and each
figure is the best of ``REPEATS`` runs (``SHORT_REPEATS`` for the quick ones).

micrograd sorts its graph with a recursive function, so a graph deeper than
about a thousand nodes raises RecursionError at the default recursion limit.
Such a workload is reported as "RecursionError" for micrograd at the default
limit, then timed again with the limit raised to ``DEEP_LIMIT`` in a thread
with a ``DEEP_STACK``-byte stack, so that there is still a ratio to report.
ember walks its graph with an explicit stack and always runs at the default limit.
"""

from __future__ import annotations

import gc
import random
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

from micrograd import nn as micrograd_nn
from micrograd.engine import Value as MgValue

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for `ember`
from ember.nn import MLP, sgd_step
from ember.scalar import Value

REPEATS = 5  # best of this many runs for the long workloads
SHORT_REPEATS = 25  # and of this many for the ones that take milliseconds
DEEP_LIMIT = 60_000
DEEP_STACK = 512 * 1024 * 1024
TIME_TARGET = 0.8  # ember's time at most this fraction of micrograd's
BYTES_TARGET = 400  # bytes per Value in ember's graph

T = TypeVar("T")
Engine = type  # ember's Value or micrograd's Value


@dataclass(frozen=True)
class Timing:
    """Seconds spent building a graph (the forward pass) and sending gradients back through it."""

    build: float
    backward: float

    @property
    def total(self) -> float:
        """Build plus backward."""
        return self.build + self.backward


@dataclass(frozen=True)
class Result:
    """One engine's best timing on one workload, and whether it needed a raised recursion limit."""

    timing: Timing
    needed_deep_recursion: bool = False


# --- workloads: each builds a fresh graph, runs backward, and returns its Timing ---


def addition_chain(engine: Engine, n: int) -> Any:
    """y = x + 1 + 1 + ... (n additions); every `+ 1` makes two Values: the constant and the sum."""
    y = engine(1.0)
    for _ in range(n):
        y = y + 1
    return y


def time_chain(engine: Engine, n: int) -> Timing:
    """Build an n-addition chain, then backward from its end."""
    start = time.perf_counter()
    y = addition_chain(engine, n)
    built = time.perf_counter()
    y.backward()
    done = time.perf_counter()
    return Timing(built - start, done - built)


def time_reuse(engine: Engine, n: int) -> Timing:
    """One node x used in n products, summed: s = x*c_1 + x*c_2 + ... + x*c_n."""
    x = engine(0.5)
    start = time.perf_counter()
    s = x * 1.0
    for i in range(1, n):
        s = s + x * ((i % 7 + 1) / 7)
    built = time.perf_counter()
    s.backward()
    done = time.perf_counter()
    return Timing(built - start, done - built)


def mlp_data(n: int = 100, seed: int = 1) -> list[tuple[list[float], float]]:
    """n points in [-1, 1]^2 labelled +1 or -1 by the sign of x*y; the same for both engines."""
    rng = random.Random(seed)
    points = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(n)]
    return [(p, 1.0 if p[0] * p[1] > 0 else -1.0) for p in points]


def make_mlp(engine: Engine) -> Any:
    """A 2-16-16-1 MLP (relu hidden layers, linear output) from the engine's own nn module."""
    if engine is Value:
        return MLP(2, [16, 16, 1], seed=0)
    random.seed(0)  # micrograd's MLP draws its weights from the global generator
    return micrograd_nn.MLP(2, [16, 16, 1])


def time_mlp_epoch(engine: Engine, data: list[tuple[list[float], float]]) -> Timing:
    """One epoch: forward every point, one summed squared-error loss, backward, SGD step, zero grads.

    The build time is the forward pass and loss; the backward time includes the step and zero_grad.
    """
    model = make_mlp(engine)
    start = time.perf_counter()
    loss = None
    for point, target in data:
        error = (model(point) - target) ** 2
        loss = error if loss is None else loss + error
    built = time.perf_counter()
    assert loss is not None, "no data"
    loss.backward()
    sgd_step(model.parameters(), 0.01)
    model.zero_grad()
    done = time.perf_counter()
    return Timing(built - start, done - built)


# --- timing machinery --------------------------------------------------------------


def fastest(timings: list[Timing]) -> Timing:
    """The run with the smallest total."""
    return min(timings, key=lambda t: t.total)


def in_deep_thread(work: Callable[[], T]) -> T:
    """Run `work` in a thread with a big stack and the recursion limit raised; restore both afterwards."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed back to the caller below
            outcome["error"] = error

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size(DEEP_STACK)
    sys.setrecursionlimit(DEEP_LIMIT)
    try:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
        threading.stack_size(old_stack)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def on_fresh_heap(run: Callable[[], Timing]) -> Timing:
    """Collect the garbage of earlier runs, then run."""
    gc.collect()
    return run()


def works_at_default_limit(run: Callable[[], Timing]) -> bool:
    """Run once as a warm-up; False if it raises RecursionError at the default recursion limit."""
    try:
        run()
    except RecursionError:
        return False
    return True


def compare(workload: Callable[[Engine], Timing], repeats: int) -> tuple[Result, Result]:
    """Best-of-`repeats` timings of ember and of micrograd on one workload.

    The two engines take turns, run by run, so that both see the same load on a shared machine.
    """
    def ember() -> Timing:
        return workload(Value)

    def micrograd() -> Timing:
        return workload(MgValue)

    ember()  # warm-up
    deep = not works_at_default_limit(micrograd)
    run_micrograd = partial(in_deep_thread, micrograd) if deep else micrograd
    if deep:
        run_micrograd()  # warm-up, now with enough recursion
    ember_runs, micrograd_runs = [], []
    for _ in range(repeats):
        ember_runs.append(on_fresh_heap(ember))
        micrograd_runs.append(on_fresh_heap(run_micrograd))
    return Result(fastest(ember_runs)), Result(fastest(micrograd_runs), needed_deep_recursion=deep)


# --- memory --------------------------------------------------------------------------


def count_values(root: Any) -> int:
    """How many distinct Values the graph ending at root holds (an explicit-stack walk)."""
    seen = {id(root)}
    stack = [root]
    while stack:
        for parent in stack.pop()._prev:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return len(seen)


@dataclass(frozen=True)
class Footprint:
    """Bytes per Value of one engine's graph, before and after backward."""

    values: int
    after_build: float
    after_backward: float


def footprint(engine: Engine, n: int) -> Footprint:
    """Trace the memory a freshly built n-addition chain holds, per Value, before and after backward.

    Slow for micrograd (about half a minute): tracemalloc walks the whole Python stack on every
    allocation, and micrograd's recursive sort allocates at every one of its 50,000 levels.
    """
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        y = addition_chain(engine, n)
        built = tracemalloc.get_traced_memory()[0] - base
        y.backward()
        backed = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    values = count_values(y)
    return Footprint(values, built / values, backed / values)


def measure_footprint(engine: Engine, n: int) -> Footprint:
    """The footprint at the default recursion limit, or in a deep thread if that limit is too low."""
    try:
        return footprint(engine, n)
    except RecursionError:
        return in_deep_thread(lambda: footprint(engine, n))


# --- report ----------------------------------------------------------------------------


def verdict(met: bool) -> str:
    """'met' or 'MISSED'."""
    return "met" if met else "MISSED"


def print_workload(name: str, ember: Result, micrograd: Result) -> bool:
    """Print the build, backward and total rows of one workload; True when ember meets the time target."""
    ratio = ember.timing.total / micrograd.timing.total
    mark = " †" if micrograd.needed_deep_recursion else ""
    default = "RecursionError" if micrograd.needed_deep_recursion else "ok"
    rows = [
        ("build", ember.timing.build, micrograd.timing.build, ""),
        ("backward", ember.timing.backward, micrograd.timing.backward, ""),
        ("total", ember.timing.total, micrograd.timing.total, f"≤ {TIME_TARGET}: {verdict(ratio <= TIME_TARGET)}"),
    ]
    for phase, e, m, target in rows:
        label = name if phase == "build" else ""
        at_default = default if phase == "build" else ""
        print(f"{label:<28} {phase:<9} {e * 1e3:>10.2f} {m * 1e3:>10.2f}{mark:<2} {e / m:>8.2f}"
              f"  {at_default:<15} {target}")
    return ratio <= TIME_TARGET


def run_workloads() -> dict[str, bool]:
    """Time every workload on both engines, print the timing table, and return each workload's verdict."""
    data = mlp_data()
    workloads: list[tuple[str, Callable[[Engine], Timing], int]] = [
        ("5,000-addition chain", lambda engine: time_chain(engine, 5_000), SHORT_REPEATS),
        ("50,000-addition chain", lambda engine: time_chain(engine, 50_000), REPEATS),
        ("x reused in 5,000 products", lambda engine: time_reuse(engine, 5_000), SHORT_REPEATS),
        ("MLP 2-16-16-1 epoch, 100 pts", lambda engine: time_mlp_epoch(engine, data), REPEATS),
    ]
    print(f"{'workload':<28} {'phase':<9} {'ember ms':>10} {'mg ms':>10}   {'ember/mg':>8}"
          f"  {'mg @ limit ' + str(sys.getrecursionlimit()):<15} target")
    verdicts = {}
    for name, workload, repeats in workloads:
        ember, micrograd = compare(workload, repeats)
        verdicts[f"time ≤ {TIME_TARGET}× micrograd: {name}"] = print_workload(name, ember, micrograd)
    print(f"† micrograd raised RecursionError at the default recursion limit; its figures were timed "
          f"at limit {DEEP_LIMIT:,} in a thread with a {DEEP_STACK // 2**20} MiB stack.")
    return verdicts


def run_footprints(n: int = 50_000) -> bool:
    """Weigh both engines' n-addition chains, print the table, and return the memory target's verdict."""
    print("tracing both engines' graphs (micrograd's deep recursion makes this slow) ...", flush=True)
    ember, micrograd = measure_footprint(Value, n), measure_footprint(MgValue, n)
    print(f"bytes per Value, {n:,}-addition chain ({ember.values:,} Values in ember's graph, "
          f"{micrograd.values:,} in micrograd's), traced by tracemalloc:")
    print(f"{'':<28} {'ember':>10} {'micrograd':>10}")
    print(f"{'after build':<28} {ember.after_build:>10.0f} {micrograd.after_build:>10.0f}")
    print(f"{'after backward':<28} {ember.after_backward:>10.0f} {micrograd.after_backward:>10.0f}")
    met = max(ember.after_build, ember.after_backward) <= BYTES_TARGET
    print(f"target ember ≤ {BYTES_TARGET} bytes per Value: {verdict(met)}")
    return met


def summarize(verdicts: dict[str, bool]) -> None:
    """One line per target."""
    print("targets:")
    for target, met in verdicts.items():
        print(f"  {target:<56} {verdict(met)}")


def main() -> None:
    """Run the benchmark and print its tables."""
    print(f"Python {sys.version.split()[0]}, micrograd {version('micrograd')}, "
          f"gc {'on' if gc.isenabled() else 'off'}, best of {REPEATS} (of {SHORT_REPEATS} for the quick workloads), "
          f"engines taking turns\n")
    verdicts = run_workloads()
    print()
    verdicts[f"ember ≤ {BYTES_TARGET} bytes per Value"] = run_footprints()
    print()
    summarize(verdicts)


if __name__ == "__main__":
    main()
