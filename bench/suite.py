"""Where the browser tests' time goes: each test's CPU seconds, with every process it ran, and its wall time.

    .venv/bin/python bench/suite.py [pytest arguments]

runs the browser tests as the test command's first browser phase does (``site_tests -n 2 --dist loadgroup
-m "not alone"``, or the arguments given instead) on the built site, with ``EMBER_TEST_CPU`` on
(``site_tests/cpu_per_test.py``), then prints the CPU and wall time in all, by file, and the costliest tests.
CPU time is much less changed by a busy machine than wall time: on two cores, the phase's wall time is at least
its CPU time over two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["site_tests", "-n", "2", "--dist", "loadgroup", "-m", "not alone"]
SHOWN = 25


def main() -> None:
    arguments = sys.argv[1:] or DEFAULT
    with tempfile.TemporaryDirectory() as folder:
        lines = Path(folder) / "cpu.jsonl"
        started, load = time.monotonic(), os.getloadavg()[0]
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments], cwd=ROOT,
                       env={**os.environ, "EMBER_TEST_CPU": str(lines)}, check=False)
        wall = time.monotonic() - started
        tests = [json.loads(line) for line in lines.read_text().splitlines()] if lines.exists() else []
    if not tests:
        sys.exit("no test was timed")
    cpu = sum(test["cpu"] for test in tests)
    print(f"\n{len(tests)} tests; wall {wall:.0f} s for the run; CPU {cpu:.0f} s in the tests (≥ {cpu / 2:.0f} s of "
          f"wall on 2 cores); sum of the tests' wall times {sum(t['wall'] for t in tests):.0f} s; "
          f"load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for test in tests:
        entry = by_file[test["test"].split("::")[0]]
        entry[0] += test["cpu"]
        entry[1] += test["wall"]
        entry[2] += 1
    print("\nby file: CPU s, wall s, tests, share of the CPU")
    for name, (seconds, walled, count) in sorted(by_file.items(), key=lambda item: -item[1][0]):
        print(f"  {seconds:7.1f} {walled:7.1f} {count:4d} {seconds / cpu:6.1%}  {name}")
    print(f"\nthe {SHOWN} costliest tests: CPU s, wall s")
    for test in sorted(tests, key=lambda test: -test["cpu"])[:SHOWN]:
        print(f"  {test['cpu']:7.1f} {test['wall']:7.1f}  {test['test']}")


if __name__ == "__main__":
    main()
