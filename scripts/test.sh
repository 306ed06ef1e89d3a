#!/usr/bin/env bash
# Set up everything the tests need (Python and npm packages, Chromium, the built site), then run the linters,
# the CPython tests and the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
echo "== ruff"
.venv/bin/ruff check .
# PyTorch, for one test, installs while the rest is set up and the site builds.
bash scripts/setup-torch.sh &
torch=$!
bash scripts/setup-node.sh
echo "== biome (the page code's linter and formatter)"
node_modules/.bin/biome ci web
echo "== tsc (the page code's types, from its JSDoc)"
node_modules/.bin/tsc --noEmit -p web/jsconfig.json
# Chromium, then Firefox ESR, WebKitGTK's driver and Xvfb (from Debian's packages on a fresh machine: mostly
# download and unpacking; one after the other, as apt takes one install at a time) install while the site
# builds; the tests wait for both.
{ bash scripts/setup-chromium.sh && bash scripts/setup-browsers.sh; } &
browsers=$!
.venv/bin/python scripts/build_site.py
wait "$browsers"
wait "$torch"
# Two phases: every test but those marked "alone" in EMBER_TEST_PROCESSES processes (2 by default), then
# those, whose verdicts depend on time, one at a time with nothing else running. Arguments go to both.
processes="${EMBER_TEST_PROCESSES:-2}"
echo "== pytest, phase 1: CPython and browser tests in $processes processes"
status=0
.venv/bin/python -m pytest -n "$processes" --dist loadgroup -m "not alone" --durations=10 "$@" || {
  code=$?; [ "$code" -eq 5 ] || status=$code; }
echo "== pytest, phase 2: the tests whose verdicts depend on time, alone"
.venv/bin/python -m pytest -m alone --durations=5 "$@" || { code=$?; [ "$code" -eq 5 ] || status=$code; }
exit "$status"  # 5 (no test collected) in one phase only means the arguments selected none of its tests
