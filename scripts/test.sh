#!/usr/bin/env bash
# Set up everything the tests need (Python and npm packages, Chromium, the built site), then run the linters,
# the CPython tests and the browser tests.
#
# The site's build runs on about one core, so the other one is put to work beside it: the linters, then (once
# PyTorch, for one test, is in) the CPython tests, which need no built site. The browser tests start once both
# are done. With arguments (paths, -k, ...), every test but the "alone" ones runs in one pytest after the build,
# as the arguments may name any of them.
set -euo pipefail
cd "$(dirname "$0")/.."
processes="${EMBER_TEST_PROCESSES:-2}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# The build's last step compresses the site (Brotli at its best: about a minute of CPU for Pyodide's wasm alone),
# keeping each result under the hash of its input (web/compress.mjs, .cache/compressed). The files the build copies
# unchanged from the npm packages go through it here, on the core that pip leaves idle: the build then finds them.
compress_early() {
  local early="$logs/early"
  mkdir -p "$early"
  cp node_modules/pyodide/pyodide.asm.wasm node_modules/pyodide/pyodide.asm.mjs node_modules/@viz-js/viz/dist/viz.js \
    "$early/" && node web/compress.mjs "$early" .cache/compressed > /dev/null || true  # the build does it otherwise
}
# Node.js and the npm packages install beside the Python packages, unless a Debian package is missing from either
# (apt takes one install at a time).
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && command -v dot >/dev/null 2>&1; then
  { bash scripts/setup-node.sh && compress_early; } > "$logs/node" 2>&1 &
  node=$!
  bash scripts/setup-python.sh
  wait "$node" || { cat "$logs/node"; exit 1; }
  cat "$logs/node"
else
  bash scripts/setup-python.sh
  bash scripts/setup-node.sh
fi
# The linters, then PyTorch and the CPython tests, run while the site builds; their output comes after it.
{ echo "== ruff" && .venv/bin/ruff check . &&
  echo "== biome (the page code's linter and formatter)" && node_modules/.bin/biome ci web &&
  echo "== tsc (the page code's types, from its JSDoc)" && node_modules/.bin/tsc --noEmit -p web/jsconfig.json &&
  echo "== tsc (the worker and the service workers, with the webworker library)" &&
  node_modules/.bin/tsc --noEmit -p web/jsconfig.worker.json &&
  echo "== tsc (the build steps, web/*.mjs, with Node's types)" && node_modules/.bin/tsc --noEmit -p web/jsconfig.node.json &&
  echo "== node --test (the page code's unit tests, web/test/)" && node --test web/test/*.test.mjs &&
  echo "== mypy (Python's annotations; each lesson's checks.py on its own)" && bash scripts/mypy.sh
} > "$logs/lint" 2>&1 &
lint=$!
if [ "$#" -eq 0 ]; then
  { bash scripts/setup-torch.sh || exit 100  # PyTorch did not install
    echo "== pytest, phase 1a: the CPython tests in $processes processes, while the site builds" &&
    .venv/bin/python -m pytest tests -n "$processes" --dist loadgroup -m "not alone" --durations=5; } \
    > "$logs/cpython" 2>&1 &
else
  { bash scripts/setup-torch.sh || exit 100; } > "$logs/cpython" 2>&1 &
fi
cpython=$!
# Chromium, then Firefox ESR, WebKitGTK's driver and Xvfb (from Debian's packages on a fresh machine: mostly
# download and unpacking; one after the other, as apt takes one install at a time) install while the site
# builds; the tests wait for both.
{ bash scripts/setup-chromium.sh && bash scripts/setup-browsers.sh; } &
browsers=$!
# The site is built again unless what it is built from (every file but the tests', in a git checkout) and the
# tools that build it are those of the last build this command made: a clean clone always builds.
site_inputs() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  { git ls-files -z -co --exclude-standard -- . ':!:tests' ':!:site_tests' ':!:bench' ':!:web/test' |
      { xargs -0 -r sha256sum 2>/dev/null || true; }
    echo "${EMBER_SITE_URL:-}"; node --version; .venv/bin/python --version; } | sha256sum | cut -c1-16
}
inputs="$(site_inputs)"
if [ -n "$inputs" ] && [ -f site/index.html ] && [ "$(cat .cache/site-inputs 2>/dev/null || true)" = "$inputs" ]; then
  echo "== site/ is up to date: built from the same files (.cache/site-inputs)"
else
  rm -f .cache/site-inputs
  .venv/bin/python scripts/build_site.py
  mkdir -p .cache && echo "$inputs" > .cache/site-inputs
fi
wait "$browsers"
lint_status=0
wait "$lint" || lint_status=$?
cat "$logs/lint"
[ "$lint_status" -eq 0 ] || exit "$lint_status"
status=0
wait "$cpython" || status=$?
cat "$logs/cpython"
[ "$status" -ne 100 ] || exit 1  # PyTorch did not install
[ "$status" -ne 5 ] || status=0  # the arguments selected none of the CPython tests
# Two phases: every test but those marked "alone" in EMBER_TEST_PROCESSES processes (2 by default; without
# arguments the CPython tests ran above, while the site built), then those, whose verdicts depend on time, one at
# a time with nothing else running. Arguments go to both.
if [ "$#" -eq 0 ]; then
  echo "== pytest, phase 1b: the browser tests in $processes processes"
  .venv/bin/python -m pytest site_tests -n "$processes" --dist loadgroup -m "not alone" --durations=10 || {
    code=$?; [ "$code" -eq 5 ] || status=$code; }
else
  echo "== pytest, phase 1: CPython and browser tests in $processes processes"
  .venv/bin/python -m pytest -n "$processes" --dist loadgroup -m "not alone" --durations=10 "$@" || {
    code=$?; [ "$code" -eq 5 ] || status=$code; }
fi
echo "== pytest, phase 2: the tests whose verdicts depend on time, alone"
.venv/bin/python -m pytest -m alone --durations=5 "$@" || { code=$?; [ "$code" -eq 5 ] || status=$code; }
exit "$status"  # 5 (no test collected) in one phase only means the arguments selected none of its tests
