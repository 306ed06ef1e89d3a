"""Each test's CPU time, with every process it ran (browsers, drivers, their renderers and workers), for
``bench/suite.py``: a pytest plugin, on when ``EMBER_TEST_CPU`` names a file to add one JSON line per test to.

A thread reads, four times a second, the CPU time of the test process and each of its descendants from /proc, and
keeps the last reading of every process it saw (a closed page's renderer ends: its time up to the last reading
stays counted; Chromium's processes are not all reaped by a parent in the tree, so the times of ended children
a parent keeps are not enough). A test's CPU time is what all of them used between its start and its end.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

TICKS = os.sysconf("SC_CLK_TCK")
EVERY_S = 0.25


def _stats() -> dict[int, tuple[int, int, int]]:
    """Every process's parent, start time and CPU ticks of its own."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while read
        found[int(entry.name)] = (int(fields[1]), int(fields[19]), int(fields[11]) + int(fields[12]))
    return found


class TreeCPU:
    """The CPU ticks of a process and its descendants, living or ended since they were first seen."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[tuple[int, int], int] = {}  # (pid, start time): the last ticks read
        self.lock = threading.Lock()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            self.read()
            time.sleep(EVERY_S)

    def read(self) -> None:
        stats = _stats()
        children: dict[int, list[int]] = {}
        for pid, (parent, _, _) in stats.items():
            children.setdefault(parent, []).append(pid)
        todo = [self.root]
        with self.lock:
            while todo:
                pid = todo.pop()
                if pid in stats:
                    _, started, ticks = stats[pid]
                    self.seen[(pid, started)] = ticks
                todo.extend(children.get(pid, []))

    def now(self) -> dict[tuple[int, int], int]:
        self.read()
        with self.lock:
            return dict(self.seen)


_tree: TreeCPU | None = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    global _tree
    into = os.environ.get("EMBER_TEST_CPU")
    if not into:
        yield
        return
    _tree = _tree or TreeCPU(os.getpid())
    before, wall = _tree.now(), time.monotonic()
    yield
    after = _tree.now()
    ticks = sum(value - before.get(key, 0) for key, value in after.items())
    line = {"test": item.nodeid, "cpu": round(ticks / TICKS, 2), "wall": round(time.monotonic() - wall, 2)}
    with open(into, "a") as out:  # one short line per write: processes' lines do not mix
        out.write(json.dumps(line) + "\n")
