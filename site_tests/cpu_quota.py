"""A slower machine for the browser: Chromium started inside a cgroup whose CPU quota the test sets and lifts.

Chromium's own throttling (DevTools' Emulation.setCPUThrottlingRate) slows only a page's main thread, not the
Web Worker where Python runs; a CPU quota on the cgroup of every Chromium process slows the worker too. Chromium is
started through a small script that moves itself into the cgroup and then becomes Chromium, so that every process
Chromium starts is in the cgroup from its first instruction. Linux only, as root, with the cgroup v1 ``cpu``
controller or cgroup v2 with ``cpu`` among its controllers; elsewhere :func:`make_quota` answers None.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
PERIOD_US = 20_000  # short: the worker runs in slices of a few milliseconds, not in bursts (shares down to 0.05)


class CpuQuota:
    """One cgroup of the ``cpu`` controller: its processes get at most ``share`` of one core, once it is set."""

    def __init__(self, folder: Path, v2: bool) -> None:
        self.folder, self.v2 = folder, v2

    def limit(self, share: float | None) -> None:
        """At most this share of one core from now on (None: no limit)."""
        quota = None if share is None else max(1_000, round(share * PERIOD_US))
        if self.v2:
            (self.folder / "cpu.max").write_text(f"{quota or 'max'} {PERIOD_US}")
        else:
            (self.folder / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.folder / "cpu.cfs_quota_us").write_text(str(quota or -1))

    def processes(self) -> list[int]:
        return [int(pid) for pid in (self.folder / "cgroup.procs").read_text().split()]

    def launcher(self, folder: Path, executable: str) -> Path:
        """A script that joins this cgroup and then runs ``executable`` with its own arguments, in its own process."""
        script = folder / "chromium-in-cgroup.sh"
        procs = self.folder / "cgroup.procs"
        script.write_text(f'#!/bin/sh\necho $$ > "{procs}" || exit 1\nexec "{executable}" "$@"\n')
        script.chmod(0o755)
        return script

    def remove(self, wait_seconds: float = 10.0) -> None:
        """Lift the quota and remove the cgroup, once the processes in it have ended."""
        self.limit(None)
        deadline = time.monotonic() + wait_seconds
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        parent = self.folder.parent / "cgroup.procs"
        for pid in self.processes():  # still running after the wait: back to the parent, so the cgroup can go
            with contextlib.suppress(OSError):  # it ended meanwhile
                parent.write_text(str(pid))
        self.folder.rmdir()


def make_quota(name: str) -> CpuQuota | None:
    """A new cgroup for a CPU quota, named ``name``, or None where this machine does not let us make one."""
    if os.geteuid() != 0:
        return None
    v1 = CGROUPS / "cpu"
    if (v1 / "cpu.cfs_quota_us").exists():
        return _made(v1 / name, v2=False)
    if "cpu" in _read(CGROUPS / "cgroup.controllers").split():
        try:
            (CGROUPS / "cgroup.subtree_control").write_text("+cpu")
        except OSError:
            return None
        return _made(CGROUPS / name, v2=True)
    return None


def _made(folder: Path, v2: bool) -> CpuQuota | None:
    try:
        folder.mkdir()
    except OSError:
        return None
    return CpuQuota(folder, v2)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
