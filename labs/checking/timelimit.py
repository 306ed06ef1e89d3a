"""Stop a learner's code that runs too long, in CPython and in Pyodide alike."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

RECURSION_HEADROOM = 200


@contextmanager
def shallow_recursion(headroom: int = RECURSION_HEADROOM) -> Iterator[None]:
    """Allow only ``headroom`` more nested calls inside the block.

    Recursion that passes through C code (an operator method that calls the
    operator again) can overflow Pyodide's JavaScript stack long before Python's
    default limit of 1000, which kills the runtime; a tight limit turns it into
    an ordinary RecursionError first.
    """
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + headroom)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


class TimeLimitExceeded(Exception):
    """A piece of learner code ran past its time limit."""


# A slower machine gets longer: when a limit runs out, Python's speed is measured (a fixed loop), and a machine
# slower than the one the limits were set on gets the limit again that many times over, once. A time limit stops
# an endless loop; it must not judge a piece that ends by the speed of the machine it ran on.
SPEED_LOOP = 100_000  # turns of the loop that measures Python's speed
REFERENCE_SECONDS = 0.012  # its least time of three in the page's Python on the machine the limits were set on
MOST_STRETCH = 10.0  # a limit grows at most this many times: an endless loop on the slowest device still ends


def _one_turn() -> float:
    start = time.perf_counter()
    total = 0
    for i in range(SPEED_LOOP):
        total += i
    return time.perf_counter() - start


def slowness() -> float:
    """How many times slower than the machine the limits were set on this Python runs now (under 1: faster)."""
    return min(_one_turn() for _ in range(3)) / REFERENCE_SECONDS


class _Deadline:
    """One time limit: ``seconds``, stretched once, when they run out, by how much slower this machine runs."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.allowed = seconds
        self.factor: float | None = None  # the stretch, once measured
        self.ends = time.monotonic() + seconds  # for a deadline polled as the code runs (check)

    def check(self) -> None:
        """For a deadline polled as the code runs: raise once the time allowed, stretched if need be, is over."""
        if time.monotonic() > self.ends:
            extra = self.more()
            if not extra:
                raise self.exceeded()
            self.ends = time.monotonic() + extra

    def more(self) -> float:
        """The time allowed so far has run out: the seconds more this machine gets (0: none, the limit is over)."""
        if self.factor is not None:
            return 0.0
        self.factor = min(slowness(), MOST_STRETCH)
        if self.factor <= 1:
            return 0.0
        extra = self.seconds * (self.factor - 1)
        self.allowed += extra
        return extra

    def exceeded(self) -> TimeLimitExceeded:
        if self.factor is None or self.factor <= 1:
            return TimeLimitExceeded(f"still running after {self.seconds:g} s")
        return TimeLimitExceeded(
            f"still running after {self.allowed:.3g} s ({self.seconds:g} s stretched {self.factor:.1f} times: Python "
            "runs that much slower here than on the machine the limits were set for)")


Timer = Callable[[float | None], object]


@dataclass
class _Interrupts:
    """The runtime's interrupt buffer, when the page shares one: a timer outside Python sets it."""

    timer: Timer | None = None  # timer(seconds) sends SIGALRM after that long; timer(None) cancels
    armed: _Deadline | None = None  # the deadline that is running, if one is


_interrupts = _Interrupts()
_monitoring_tools: list[int] = []  # the sys.monitoring tool of each deadline running, innermost last


def use_interrupt_timer(timer: Timer | None) -> None:
    """Watch learner code through the runtime's interrupt buffer from now on (None: stop doing so).

    ``timer(seconds)`` must have SIGALRM delivered to Python once ``seconds`` have passed, and
    ``timer(None)`` cancel that. Python checks the buffer as it runs, at no cost to the learner's
    code; an alarm that comes after its deadline was lifted is ignored.
    """
    if timer is not None:
        signal.signal(signal.SIGALRM, _on_interrupt_alarm)
    _interrupts.timer = timer


def _on_interrupt_alarm(signum: int, frame: FrameType | None) -> None:
    deadline = _interrupts.armed
    if deadline is None:
        return
    extra = deadline.more()
    if extra and _interrupts.timer is not None:
        _interrupts.timer(extra)
        return
    raise deadline.exceeded()


def mechanism() -> str:
    """How learner code is watched here: 'alarm', 'interrupt', 'monitoring' or 'trace'."""
    if _alarm_available():
        return "alarm"
    if _interrupts.timer is not None:
        return "interrupt"
    return "monitoring" if _free_monitoring_tool() is not None else "trace"


def _alarm_available() -> bool:
    return (
        sys.platform != "emscripten"
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )


@contextmanager
def time_limit(seconds: float, watched_files: frozenset[str]) -> Iterator[None]:
    """Raise TimeLimitExceeded inside the block once ``seconds`` have passed.

    With a real-time alarm (CPython, main thread), or with the runtime's interrupt
    buffer (Pyodide on a cross-origin isolated page), this costs nothing until it
    fires. When ``seconds`` run out on a machine slower than the one the limits were
    set for, the block gets that many times ``seconds`` in all (at most MOST_STRETCH).
    Without an alarm or the buffer, only code from ``watched_files``, the learner's
    modules, is watched: through sys.monitoring where Python has it (3.12+: one event
    per loop turn or call, about five times cheaper than a trace of every line), else
    through a trace function.
    """
    how = mechanism()
    if how == "alarm":
        with _alarm(seconds):
            yield
    elif how == "interrupt":
        with _interrupt_deadline(seconds):
            yield
    elif how == "monitoring":
        with _monitored_deadline(seconds, watched_files):
            yield
    else:
        with _traced_deadline(seconds, watched_files):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    deadline = _Deadline(seconds)

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        extra = deadline.more()
        if extra:
            signal.setitimer(signal.ITIMER_REAL, extra)
            return
        raise deadline.exceeded()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _interrupt_deadline(seconds: float) -> Iterator[None]:
    timer = _interrupts.timer
    assert timer is not None
    _interrupts.armed = _Deadline(seconds)
    timer(seconds)
    try:
        yield
    finally:
        _interrupts.armed = None
        timer(None)


@contextmanager
def _traced_deadline(seconds: float, watched_files: frozenset[str]) -> Iterator[None]:
    deadline = _Deadline(seconds)

    def on_line(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        deadline.check()
        return on_line

    def on_call(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if frame.f_code.co_filename in watched_files:
            return on_line(frame, event, arg)
        return None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


# The events a deadline watched by sys.monitoring asks for: each call and each loop turn.
MONITORED_EVENTS = sys.monitoring.events.PY_START | sys.monitoring.events.JUMP if hasattr(sys, "monitoring") else 0


@contextmanager
def unwatched() -> Iterator[None]:
    """Run the block at full speed: the line trace or the sys.monitoring events of the deadlines running are off
    inside it (an alarm or the interrupt buffer costs nothing, and stays).

    For a check that times the learner's code on large inputs, after checks on small ones have shown that it
    finishes: watched, each call and loop turn of the learner's code costs a callback, and the time per node then
    hides a cost that grows with the input (a list shifted in C, say). Stop still ends the block in the page.
    """
    trace = sys.gettrace()
    sys.settrace(None)
    tools = list(_monitoring_tools)
    for tool in tools:
        sys.monitoring.set_events(tool, 0)  # type: ignore[attr-defined]  # a tool exists only on 3.12+
    try:
        yield
    finally:
        sys.settrace(trace)
        for tool in tools:
            sys.monitoring.set_events(tool, MONITORED_EVENTS)  # type: ignore[attr-defined]


def _free_monitoring_tool() -> int | None:
    """A sys.monitoring tool id nobody uses, or None (before Python 3.12, or all six taken)."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return None
    return next((tool for tool in range(6) if monitoring.get_tool(tool) is None), None)


@contextmanager
def _monitored_deadline(seconds: float, watched_files: frozenset[str]) -> Iterator[None]:
    """The deadline checked at every loop turn (a backward jump) and every call in the learner's code."""
    monitoring = sys.monitoring  # type: ignore[attr-defined]  # Python 3.12+
    events = monitoring.events
    tool = _free_monitoring_tool()
    if tool is None:
        raise RuntimeError("every sys.monitoring tool id is in use")
    deadline = _Deadline(seconds)

    def watch(code: Any, *_: int) -> object:
        if code.co_filename not in watched_files:
            return monitoring.DISABLE  # this place of other code is never reported again
        deadline.check()
        return None

    monitoring.use_tool_id(tool, "ember time limit")
    _monitoring_tools.append(tool)
    try:
        for event in (events.PY_START, events.JUMP):
            monitoring.register_callback(tool, event, watch)
        monitoring.set_events(tool, MONITORED_EVENTS)
        monitoring.restart_events()  # places disabled for an earlier set of watched files report again
        yield
    finally:
        _monitoring_tools.remove(tool)
        monitoring.set_events(tool, 0)
        for event in (events.PY_START, events.JUMP):
            monitoring.register_callback(tool, event, None)
        monitoring.free_tool_id(tool)
