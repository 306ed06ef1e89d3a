"""Stop a learner's code that runs too long, in CPython and in Pyodide alike."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    depth, frame = 0, sys._getframe()
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


def _alarm_available() -> bool:
    return (
        sys.platform != "emscripten"
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )


@contextmanager
def time_limit(seconds: float, watched_files: frozenset[str]) -> Iterator[None]:
    """Raise TimeLimitExceeded inside the block once ``seconds`` have passed.

    With a real-time alarm (CPython, main thread) this costs nothing until it
    fires. Elsewhere (Pyodide, threads) a trace function watches only the
    frames whose code comes from ``watched_files``: the learner's modules.
    """
    if _alarm_available():
        with _alarm(seconds):
            yield
    else:
        with _traced_deadline(seconds, watched_files):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise TimeLimitExceeded(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _traced_deadline(seconds: float, watched_files: frozenset[str]) -> Iterator[None]:
    deadline = time.monotonic() + seconds

    def on_line(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if time.monotonic() > deadline:
            raise TimeLimitExceeded(f"still running after {seconds:g} s")
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
