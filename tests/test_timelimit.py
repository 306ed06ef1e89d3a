"""The time limit on learner code, both with the alarm (CPython) and the trace (Pyodide, threads)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

import pytest

from labs.checking.timelimit import (
    TimeLimitExceeded,
    _monitored_deadline,
    _traced_deadline,
    slowness,
    time_limit,
    unwatched,
)

LEARNER_FILE = "ember/scalar.py"
MEASURED_SLOWNESS = slowness  # the real measure (the tests set the one the deadlines use)


@pytest.fixture(autouse=True)
def speed(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """The machine's measured slowness, as a test sets it (1 unless set): a busy machine running the tests would
    otherwise stretch the limits these tests time."""
    from labs.checking import timelimit

    def set_slowness(factor: float) -> None:
        monkeypatch.setattr(timelimit, "slowness", lambda: factor)

    set_slowness(1.0)
    return set_slowness


def learner_function(body: str):
    """A function whose code claims to come from the learner's file."""
    namespace: dict = {}
    exec(compile(f"def run():\n{body}", LEARNER_FILE, "exec"), namespace)
    return namespace["run"]


def test_the_alarm_stops_an_endless_loop_and_a_sleep() -> None:
    for body in ("    while True:\n        pass\n", "    import time\n    time.sleep(30)\n"):
        start = time.monotonic()
        with pytest.raises(TimeLimitExceeded, match=r"still running after 0\.2 s"), \
                time_limit(0.2, frozenset({LEARNER_FILE})):
            learner_function(body)()
        assert time.monotonic() - start < 5


def test_the_trace_stops_an_endless_loop_in_learner_code() -> None:
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded), _traced_deadline(0.2, frozenset({LEARNER_FILE})):
        learner_function("    while True:\n        pass\n")()
    assert time.monotonic() - start < 5
    assert sys.gettrace() is None


def test_the_trace_leaves_code_from_other_files_alone() -> None:
    with _traced_deadline(0.05, frozenset({LEARNER_FILE})):
        time.sleep(0.1)  # not learner code: the trace never looks at it
        total = sum(range(1000))
    assert total == 499500


BUSY_FOR_A_WHILE = ("    import time\n    end = time.monotonic() + 0.4\n"
                    "    while time.monotonic() < end:\n        pass\n")
ENDLESS = "    while True:\n        pass\n"


def test_unwatched_learner_code_runs_past_the_trace_and_is_watched_again_after() -> None:
    with _traced_deadline(0.2, frozenset({LEARNER_FILE})):
        with unwatched():
            learner_function(BUSY_FOR_A_WHILE)()  # past the deadline, and nothing raised
        with pytest.raises(TimeLimitExceeded):
            learner_function(ENDLESS)()
    assert sys.gettrace() is None


@pytest.mark.skipif(not hasattr(sys, "monitoring"), reason="sys.monitoring is Python 3.12+ (Pyodide has it)")
def test_unwatched_learner_code_runs_past_sys_monitoring_and_is_watched_again_after() -> None:
    with _monitored_deadline(0.2, frozenset({LEARNER_FILE})):
        with unwatched():
            learner_function(BUSY_FOR_A_WHILE)()  # past the deadline, and nothing raised
        with pytest.raises(TimeLimitExceeded):
            learner_function(ENDLESS)()
    assert hasattr(sys, "monitoring")  # as the skip says
    assert all(sys.monitoring.get_tool(tool) is None for tool in range(6))


def test_off_the_main_thread_the_trace_is_used() -> None:
    caught: list[BaseException] = []

    def worker() -> None:
        try:
            with time_limit(0.2, frozenset({LEARNER_FILE})):
                learner_function("    while True:\n        pass\n")()
        except TimeLimitExceeded as error:
            caught.append(error)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    assert caught and isinstance(caught[0], TimeLimitExceeded)


def test_recursion_through_an_operator_stops_early_inside_shallow_recursion() -> None:
    from labs.checking.timelimit import shallow_recursion

    class Looping:
        def __radd__(self, other: object) -> object:
            return other + self  # calls __radd__ again, through C code

    limit = sys.getrecursionlimit()
    depth_reached = []

    def count(n: int) -> int:
        depth_reached.append(n)
        return count(n + 1)

    with shallow_recursion(100):
        with pytest.raises(RecursionError):
            2 + Looping()
        with pytest.raises(RecursionError):
            count(0)
    assert len(depth_reached) < 150
    assert sys.getrecursionlimit() == limit


@pytest.mark.skipif(not hasattr(sys, "monitoring"), reason="sys.monitoring is Python 3.12+ (Pyodide has it)")
@pytest.mark.parametrize("body", [
    "    while True:\n        pass\n",
    "    for _ in iter(int, 1):\n        pass\n",
    "    return [0 for _ in iter(int, 1)]\n",
])
def test_sys_monitoring_stops_an_endless_loop_in_learner_code_and_frees_its_tool(body: str) -> None:
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded), _monitored_deadline(0.2, frozenset({LEARNER_FILE})):
        learner_function(body)()
    assert time.monotonic() - start < 5
    assert hasattr(sys, "monitoring")  # as the skip says
    assert all(sys.monitoring.get_tool(tool) is None for tool in range(6))


class AlarmTimer:
    """A stand-in for the page's timer: delivers SIGALRM to this process after the given seconds."""

    def __init__(self) -> None:
        self.calls: list[float | None] = []
        self.pending: threading.Timer | None = None

    def __call__(self, seconds: float | None) -> None:
        import os
        import signal

        self.calls.append(seconds)
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        if seconds is not None:
            self.pending = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGALRM))
            self.pending.start()


@pytest.fixture
def interrupt_timer(monkeypatch: pytest.MonkeyPatch):
    """The interrupt-buffer mechanism in use, as in Pyodide on an isolated page."""
    import signal

    from labs.checking import timelimit

    previous = signal.getsignal(signal.SIGALRM)
    timer = AlarmTimer()
    monkeypatch.setattr(timelimit, "_alarm_available", lambda: False)
    timelimit.use_interrupt_timer(timer)
    yield timer
    timelimit.use_interrupt_timer(None)
    signal.signal(signal.SIGALRM, previous)


def test_the_interrupt_timer_stops_an_endless_loop_and_is_cancelled_after(interrupt_timer: AlarmTimer) -> None:
    from labs.checking.timelimit import mechanism

    assert mechanism() == "interrupt"
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match=r"still running after 0\.2 s"), \
            time_limit(0.2, frozenset({LEARNER_FILE})):
        learner_function("    while True:\n        pass\n")()
    assert time.monotonic() - start < 5
    assert interrupt_timer.calls == [0.2, None]


def test_an_alarm_after_the_deadline_was_lifted_is_ignored(interrupt_timer: AlarmTimer) -> None:
    import os
    import signal

    with time_limit(5, frozenset({LEARNER_FILE})):
        total = sum(range(1000))
    os.kill(os.getpid(), signal.SIGALRM)  # the timer fired just as the code finished
    time.sleep(0.05)
    assert total == 499500 and interrupt_timer.calls == [5, None]


def test_without_an_interrupt_timer_pyodide_watches_with_sys_monitoring_or_a_trace(monkeypatch) -> None:
    from labs.checking import timelimit

    monkeypatch.setattr(timelimit, "_alarm_available", lambda: False)
    assert timelimit.mechanism() == ("monitoring" if hasattr(sys, "monitoring") else "trace")


def test_slowness_measures_python_running_slower() -> None:
    def busy(frame, event, arg):  # a trace that costs every line of Python something
        sum(range(50))
        return busy

    quiet = MEASURED_SLOWNESS()
    sys.settrace(busy)
    try:
        slowed = MEASURED_SLOWNESS()
    finally:
        sys.settrace(None)
    assert quiet > 0 and slowed > 3 * quiet


MECHANISMS = ["alarm", "trace", "interrupt"] + (["monitoring"] if hasattr(sys, "monitoring") else [])


def limited(how: str, seconds: float, request: pytest.FixtureRequest):
    """The deadline of mechanism ``how``, for ``seconds``."""
    from labs.checking import timelimit

    if how == "trace":
        return _traced_deadline(seconds, frozenset({LEARNER_FILE}))
    if how == "monitoring":
        return _monitored_deadline(seconds, frozenset({LEARNER_FILE}))
    if how == "interrupt":
        request.getfixturevalue("interrupt_timer")
        assert timelimit.mechanism() == "interrupt"
    return time_limit(seconds, frozenset({LEARNER_FILE}))


@pytest.mark.parametrize("how", MECHANISMS)
def test_a_slower_machine_gets_the_limit_stretched_and_a_piece_that_ends_finishes(
        how: str, speed: Callable[[float], None], request: pytest.FixtureRequest) -> None:
    speed(4.0)  # 0.2 s becomes 0.8 s
    with limited(how, 0.2, request):
        learner_function(BUSY_FOR_A_WHILE)()  # 0.4 s: past the limit, within the stretch
    speed(1.0)
    with pytest.raises(TimeLimitExceeded, match=r"still running after 0\.2 s$"), limited(how, 0.2, request):
        learner_function(BUSY_FOR_A_WHILE)()


@pytest.mark.parametrize("how", MECHANISMS)
def test_a_stretched_limit_still_ends_an_endless_loop_and_says_it_was_stretched(
        how: str, speed: Callable[[float], None], request: pytest.FixtureRequest) -> None:
    from labs.checking.timelimit import MOST_STRETCH

    speed(2.5)
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match=r"still running after 0\.25 s \(0\.1 s stretched 2\.5 times"), \
            limited(how, 0.1, request):
        learner_function(ENDLESS)()
    assert 0.25 <= time.monotonic() - start < 5
    speed(1000.0)  # measured absurdly slow: still at most MOST_STRETCH times
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match=rf"stretched {MOST_STRETCH:.1f} times"), limited(how, 0.05, request):
        learner_function(ENDLESS)()
    assert 0.05 * MOST_STRETCH <= time.monotonic() - start < 5
