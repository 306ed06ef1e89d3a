#!/usr/bin/env bash
# Install Node.js and npm from Debian's packages if missing, then the pinned npm packages (package-lock.json)
# whenever node_modules is older than the lock file, as scripts/build_site.py does before it bundles.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "== installing Node.js and npm from Debian's packages"
  bash scripts/apt-install.sh nodejs npm
fi
if [ ! -e node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing the pinned npm packages"
  npm ci --no-audit --no-fund
fi
