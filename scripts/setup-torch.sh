#!/usr/bin/env bash
# Install PyTorch into .venv (made by setup-python.sh) for the one test that uses it. About 750 MB unpacked:
# scripts/test.sh runs this while the site builds; serving the site does not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-torch.txt
