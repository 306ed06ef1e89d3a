#!/usr/bin/env bash
# Set up everything (Python and npm packages, vendored runtime, build) and serve the site
# on http://127.0.0.1:8000 with the headers that let Stop interrupt Python.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
bash scripts/setup-node.sh
.venv/bin/python scripts/build_site.py
exec .venv/bin/python scripts/serve.py site --port "${PORT:-8000}"
