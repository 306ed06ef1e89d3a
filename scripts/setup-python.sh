#!/usr/bin/env bash
# Create .venv and install the pinned Python packages; install Graphviz's `dot` if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot >/dev/null 2>&1; then
  echo "== installing Graphviz (dot) from Debian's packages"
  bash scripts/apt-install.sh graphviz
fi
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
if [ ! -x .venv-notebook/bin/python ]; then
  echo "== creating .venv-notebook (the notebook app's build tools, kept apart)"
  python3 -m venv .venv-notebook
fi
echo "== installing Python packages (the notebook app's build tools beside them)"
.venv-notebook/bin/python -m pip install -q --disable-pip-version-check -r requirements-notebook.txt &
notebook=$!
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt -r requirements-site.txt
wait "$notebook"
