#!/usr/bin/env bash
# Python's annotations checked by mypy in its default mode (pyproject.toml's [tool.mypy]), every tracked Python file
# in one of three runs:
# 1. ember/, hx/, labs/, scripts/ and site_hooks/ (pyproject's `files`), the build's scripts under the names they
#    run by (build_site imports buildkit);
# 2. the tests, the browser tests, the benchmarks and web/'s Python, as packages from the repository root (bench/
#    and web/ have no __init__.py: they import bench.learner_code, site_tests.harness, scripts.serve, ...);
# 3. each lesson's checks.py on its own, since every lesson's file is named checks.py in a folder whose name is no
#    Python name.
# tests/test_python_wings.py holds every tracked Python file to one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/mypy
.venv/bin/mypy --explicit-package-bases bench site_tests tests web
printf '%s\n' labs/lessons/*/checks.py | xargs -n 1 .venv/bin/mypy --no-error-summary
