#!/usr/bin/env bash
# Set up everything the tests need (Python and npm packages, Chromium, the built site), then run the linter,
# the CPython tests and the browser tests.
#
# Without arguments: the CPython tests run in one process while the site builds (the build leaves a core
# free most of the time), PyTorch's test with the browser tests once PyTorch is in; then the tests whose
# verdicts depend on time, alone. With arguments (a selection, options), both pytest runs below get them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
echo "== ruff"
.venv/bin/ruff check .
# PyTorch, for one test, installs while the rest is set up and the site builds.
bash scripts/setup-torch.sh &
torch=$!
bash scripts/setup-node.sh
.venv/bin/python scripts/build_site.py --packages-only  # the npm packages (KaTeX, for a CPython test)
# Chromium (from Debian's packages on a fresh machine: mostly download and unpacking) installs while the
# site builds; the tests wait for both.
bash scripts/setup-chromium.sh &
chromium=$!
status=0
early=""
if [ "$#" -eq 0 ]; then
  mkdir -p .cache
  log=.cache/cpython-tests.txt
  echo "== pytest, CPython tests while the site builds (output in $log, shown once they end)"
  .venv/bin/python -m pytest tests -m "not alone" --ignore tests/test_pytorch_reference.py --durations=5 \
    > "$log" 2>&1 &
  early=$!
  trap '[ -n "$early" ] && kill "$early" 2>/dev/null || true' EXIT
  set -- site_tests tests/test_pytorch_reference.py
fi
.venv/bin/python scripts/build_site.py
wait "$chromium"
wait "$torch"
# Every test not marked "alone" in EMBER_TEST_PROCESSES processes (2 by default); then those, whose verdicts
# depend on time, one at a time with nothing else running.
processes="${EMBER_TEST_PROCESSES:-2}"
echo "== pytest, phase 1: every test not marked alone and not run above, in $processes processes"
.venv/bin/python -m pytest -n "$processes" --dist loadgroup -m "not alone" --durations=10 "$@" || {
  code=$?; [ "$code" -eq 5 ] || status=$code; }
if [ -n "$early" ]; then
  code=0
  wait "$early" || code=$?
  early=""
  echo "== pytest, the CPython tests run while the site built:"
  cat "$log"
  [ "$code" -eq 0 ] || status=$code
  set --
fi
echo "== pytest, phase 2: the tests whose verdicts depend on time, alone"
.venv/bin/python -m pytest -m alone --durations=5 "$@" || { code=$?; [ "$code" -eq 5 ] || status=$code; }
exit "$status"  # 5 (no test collected) in one phase only means the arguments selected none of its tests
