#!/usr/bin/env bash
# Set up everything the tests need, then run the linter and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
echo "== ruff"
.venv/bin/ruff check .
echo "== pytest"
.venv/bin/python -m pytest "$@"
