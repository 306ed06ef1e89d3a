#!/usr/bin/env bash
# Python's annotations checked by mypy (pyproject.toml's [tool.mypy]): ember/, hx/, labs/, scripts/ and site_hooks/ in
# one run, then each lesson's checks.py on its own, since every lesson's file is named checks.py in a folder whose
# name is no Python name.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/mypy
printf '%s\n' labs/lessons/*/checks.py | xargs -n 1 .venv/bin/mypy --no-error-summary
