#!/usr/bin/env bash
# Set up everything the tests need (Python and npm packages, Chromium, the built site),
# then run the linter, the CPython tests and the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
bash scripts/setup-node.sh
bash scripts/setup-chromium.sh
.venv/bin/python scripts/build_site.py
echo "== ruff"
.venv/bin/ruff check .
echo "== pytest (browser tests and CPython tests, in three processes: most of a browser test is waiting)"
.venv/bin/python -m pytest -n 3 --dist loadgroup --durations=10 "$@"
