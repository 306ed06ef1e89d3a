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
echo "== pytest (CPython tests, then browser tests; add -n 3 to run them in three processes)"
.venv/bin/python -m pytest --dist loadgroup --durations=10 "$@"
